// SPDX-License-Identifier: GPL-2.0
/*
 * sch_hishape	per-source-range shaping (nf-HiShape)
 *
 * Every address range of a table (100,000 of them and more) gets its own
 * rate limit, so that sources suspected of taking part in a flood are
 * slowed rather than cut off, and a wrong suspicion costs little
 * (Goldstein et al., "High Performance Traffic Shaping for DDoS
 * Mitigation", CoNEXT 2008).  A packet's range is found by a binary
 * search over the sorted, non-overlapping ranges of its family
 * (hishape_table.h): O(log n) where a filter per range, as tc does it
 * with HTB, is O(n).
 *
 * A packet in no range goes to the pass queue ("pass_limit" packets) and
 * leaves in order.  A packet in a range joins the range's queue (at most
 * "limit" packets; beyond, dropped and counted per range) and leaves when
 * the range's token bucket holds it (kept as one timestamp,
 * hishape_rate.h): at once when the range is within its rate.  The ranges
 * with packets queued are in an rbtree ordered by the time their head
 * packet may leave, as sch_fq keeps its throttled flows, and the watchdog
 * fires at the earliest.  What the link needs (ARP and all that is not
 * IP, IPv6 neighbour discovery) has a small queue of its own, never
 * dropped by "default drop" or a full pass queue.  Dequeue takes turns
 * between the control queue, the pass queue and the ranges whose time has
 * come, by deficit round robin, an MTU a turn: a flood from addresses in
 * no range cannot hold back the ranges' packets, even those within their
 * rate, nor the router's own neighbour resolution, and a flood of non-IP
 * frames (a bridge) cannot take more than its turn.
 *
 * A range costs 40 (IPv4) or 64 (IPv6) bytes.  The queue of a range with
 * packets waiting is a slot, taken from pages of 64 allocated as the
 * backlog first needs them, so idle ranges, the most of them, cost no
 * queue.  Tables are loaded in chunks over several netlink messages into
 * a table beside the one serving, and replace it at once, under the
 * qdisc lock, when complete (pkt_sched_hishape.h).  The data path and the
 * stats dump hold the qdisc lock, dump and change hold RTNL: a table is
 * never read and freed at once, and no RCU is needed.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/init.h>
#include <linux/errno.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/icmpv6.h>
#include <linux/rbtree.h>
#include <linux/sizes.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ndisc.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_hishape.h>

#include "hishape_table.h"

#define HISHAPE_DEFAULT_LIMIT	32		/* packets a range may queue */
#define HISHAPE_DEFAULT_PASS	1000		/* pfifo's, at txqueuelen 1000 */
#define HISHAPE_CTRL_LIMIT	128		/* ARP, ND: a burst of them */
#define HISHAPE_DEFAULT_MEMORY	SZ_32M		/* fq_codel's memory_limit */
#define HISHAPE_SLOTS_PER_PAGE	64		/* 56-byte slots: one page */
#define HISHAPE_TOP_RANGES	10		/* busiest ranges in a dump */

/* The queue of a range with packets waiting. */
struct hishape_slot {
	struct rb_node	node;		/* in waiting, by time */
	u64		time;		/* when the head packet may leave */
	struct sk_buff	*head;
	struct sk_buff	*tail;
	u32		range;		/* its range; when free, the next free slot */
	u32		qlen;
};

struct hishape_skb_cb {
	u32		mem;		/* truesize, as counted in memory_used */
};

/* The three queues dequeue takes turns between. */
enum { HISHAPE_CTRL, HISHAPE_PASS, HISHAPE_SHAPED, HISHAPE_QUEUES };

struct hishape_sched_data {
	struct hishape_table	*table;		/* serving; NULL: no range */
	struct rb_root_cached	waiting;	/* slots, by time */
	struct hishape_slot	**pages;	/* slot i: pages[i / 64][i % 64] */
	u32			npages;		/* allocated */
	u32			pages_max;	/* room in pages[] */
	u32			free_slot;	/* free list head, or HISHAPE_NONE */
	u32			backlogged;	/* slots in use */
	struct qdisc_skb_head	ctrl;		/* what the link needs */
	struct qdisc_skb_head	pass;		/* in no range */
	s32			deficit[HISHAPE_QUEUES];
	u32			turn;		/* the queue served next */
	u32			quantum;

	u32			match;		/* TC_HISHAPE_MATCH_* */
	u32			dflt;		/* TC_HISHAPE_DEFAULT_* */
	u32			limit;		/* packets a range may queue */
	u32			pass_limit;	/* packets the pass queue may hold */
	u32			memory_limit;
	u32			memory_used;	/* truesize of the skbs queued */
	struct qdisc_watchdog	watchdog;

	/* the load in progress, under RTNL */
	struct hishape_table	*staged;
	u32			load_id;

	struct tc_hishape_xstats stats;
};

static struct hishape_skb_cb *hishape_skb_cb(struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct hishape_skb_cb));
	return (struct hishape_skb_cb *)qdisc_skb_cb(skb)->data;
}

static struct hishape_slot *hishape_slot(const struct hishape_sched_data *q,
					 u32 i)
{
	return &q->pages[i / HISHAPE_SLOTS_PER_PAGE][i % HISHAPE_SLOTS_PER_PAGE];
}

/* ---- classification ---- */

/* The packet's range, or HISHAPE_NONE: not IP, malformed or in no range. */
static u32 hishape_classify(const struct hishape_sched_data *q,
			    const struct hishape_table *t, struct sk_buff *skb)
{
	bool dst = q->match == TC_HISHAPE_MATCH_DST;

	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP): {
		const struct iphdr *iph;

		if (!t->n4 || !pskb_network_may_pull(skb, sizeof(*iph)))
			return HISHAPE_NONE;
		iph = ip_hdr(skb);
		return hishape_lookup4(t, ntohl(dst ? iph->daddr : iph->saddr));
	}
	case htons(ETH_P_IPV6): {
		struct hishape_in6 x;
		__be64 w[2];

		if (!t->n6 || !pskb_network_may_pull(skb, sizeof(struct ipv6hdr)))
			return HISHAPE_NONE;
		/* a copy: the header need not be 8-byte aligned */
		memcpy(w, dst ? &ipv6_hdr(skb)->daddr : &ipv6_hdr(skb)->saddr,
		       sizeof(w));
		x.hi = be64_to_cpu(w[0]);
		x.lo = be64_to_cpu(w[1]);
		return hishape_lookup6(t, &x);
	}
	}
	return HISHAPE_NONE;
}

/*
 * What the link itself needs: ARP and all else that is not IP, and IPv6
 * neighbour discovery (ICMPv6 133 to 137), which the router sends from its
 * own addresses, in no range.  ND has a hop limit of 255 (RFC 4861), which
 * no forwarded packet has, so a flood cannot pass for it.
 */
static bool hishape_link_control(struct sk_buff *skb)
{
	const struct icmp6hdr *ic;

	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP):
		return false;
	case htons(ETH_P_IPV6):
		break;
	default:
		return true;
	}
	if (!pskb_network_may_pull(skb, sizeof(struct ipv6hdr) + sizeof(*ic)) ||
	    ipv6_hdr(skb)->nexthdr != IPPROTO_ICMPV6 ||
	    ipv6_hdr(skb)->hop_limit != 255)
		return false;
	ic = (const struct icmp6hdr *)(ipv6_hdr(skb) + 1);
	return ic->icmp6_type >= NDISC_ROUTER_SOLICITATION &&
	       ic->icmp6_type <= NDISC_REDIRECT;
}

/* ---- slots ---- */

/* A free slot, from a new page of them when none is left. */
static u32 hishape_slot_get(struct hishape_sched_data *q)
{
	struct hishape_slot *page;
	u32 i, base;

	if (q->free_slot == HISHAPE_NONE) {
		if (q->npages == q->pages_max)
			return HISHAPE_NONE;
		page = kcalloc(HISHAPE_SLOTS_PER_PAGE, sizeof(*page),
			       GFP_ATOMIC | __GFP_NOWARN);
		if (!page)
			return HISHAPE_NONE;
		base = q->npages * HISHAPE_SLOTS_PER_PAGE;
		for (i = 0; i < HISHAPE_SLOTS_PER_PAGE; i++)
			page[i].range = i + 1 < HISHAPE_SLOTS_PER_PAGE ?
					base + i + 1 : HISHAPE_NONE;
		q->pages[q->npages++] = page;
		q->free_slot = base;
	}
	i = q->free_slot;
	q->free_slot = hishape_slot(q, i)->range;
	q->backlogged++;
	return i;
}

static void hishape_slot_put(struct hishape_sched_data *q, u32 i)
{
	struct hishape_slot *s = hishape_slot(q, i);

	s->head = NULL;
	s->tail = NULL;
	s->qlen = 0;
	s->range = q->free_slot;
	q->free_slot = i;
	q->backlogged--;
}

static bool hishape_slot_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct hishape_slot, node)->time <
	       rb_entry(b, struct hishape_slot, node)->time;
}

static void hishape_wait(struct hishape_sched_data *q, struct hishape_slot *s,
			 u64 time)
{
	s->time = time;
	rb_add_cached(&s->node, &q->waiting, hishape_slot_less);
}

/* ---- enqueue ---- */

static void hishape_queued(struct hishape_sched_data *q, struct Qdisc *sch,
			   struct sk_buff *skb)
{
	hishape_skb_cb(skb)->mem = skb->truesize;
	q->memory_used += skb->truesize;
	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
}

/* Append to the control or the pass queue. */
static void hishape_append(struct hishape_sched_data *q, struct Qdisc *sch,
			   struct qdisc_skb_head *qh, struct sk_buff *skb)
{
	__qdisc_enqueue_tail(skb, qh);
	hishape_queued(q, sch, skb);
}

/*
 * Queue a packet of range idx: behind the range's queue, or, the queue
 * empty, to leave when the range's bucket holds it (now, if the range is
 * within its rate).  Returns false when it could not be queued (the
 * caller drops it).
 */
static bool hishape_shape(struct hishape_sched_data *q, struct Qdisc *sch,
			  struct sk_buff *skb, u32 idx, u64 now)
{
	struct hishape_range *r = &q->table->range[idx];
	struct hishape_slot *s;
	u32 i = r->slot;
	u64 time;

	if (i == HISHAPE_NONE) {
		i = hishape_slot_get(q);
		if (i == HISHAPE_NONE) {
			q->stats.drop_noslot++;
			return false;
		}
		r->slot = i;
		s = hishape_slot(q, i);
		s->range = idx;
		s->head = skb;
		time = hishape_rate_eligible(&r->rate, qdisc_pkt_len(skb));
		hishape_wait(q, s, time);
		if (time <= now)
			q->stats.conforming++;
		else
			q->stats.shaped++;
	} else {
		s = hishape_slot(q, i);
		if (s->qlen >= q->limit) {
			WRITE_ONCE(r->drops, r->drops + 1);
			q->stats.drop_range++;
			return false;
		}
		s->tail->next = skb;
		q->stats.shaped++;
	}
	skb->next = NULL;
	s->tail = skb;
	s->qlen++;
	hishape_queued(q, sch, skb);
	return true;
}

/* Pass, queue in its range or drop a packet: enqueue, and a new table's
 * classification of the packets that waited in the old one.
 */
static int hishape_admit(struct hishape_sched_data *q, struct Qdisc *sch,
			 struct sk_buff *skb, u64 now, struct sk_buff **to_free)
{
	const struct hishape_table *t = q->table;
	u32 idx = HISHAPE_NONE;

	if (t) {
		idx = hishape_classify(q, t, skb);
		q->stats.lookups++;
	}
	if (idx == HISHAPE_NONE) {
		if (hishape_link_control(skb)) {
			if (q->ctrl.qlen >= HISHAPE_CTRL_LIMIT) {
				q->stats.drop_pass++;
				return qdisc_drop(skb, sch, to_free);
			}
			q->stats.control++;
			hishape_append(q, sch, &q->ctrl, skb);
			return NET_XMIT_SUCCESS;
		}
		if (q->dflt == TC_HISHAPE_DEFAULT_DROP) {
			q->stats.drop_default++;
			return qdisc_drop(skb, sch, to_free);
		}
		if (q->pass.qlen >= q->pass_limit) {
			q->stats.drop_pass++;
			return qdisc_drop(skb, sch, to_free);
		}
		q->stats.passed++;
		hishape_append(q, sch, &q->pass, skb);
		return NET_XMIT_SUCCESS;
	}
	if (!hishape_shape(q, sch, skb, idx, now))
		return qdisc_drop(skb, sch, to_free);
	return NET_XMIT_SUCCESS;
}

static int hishape_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	struct hishape_sched_data *q = qdisc_priv(sch);

	if (unlikely((u64)q->memory_used + skb->truesize > q->memory_limit)) {
		q->stats.drop_overmemory++;
		return qdisc_drop(skb, sch, to_free);
	}
	return hishape_admit(q, sch, skb, ktime_get_ns(), to_free);
}

/* ---- dequeue ---- */

/* The reverse of hishape_queued(): out of the qdisc's accounting. */
static void hishape_unqueued(struct hishape_sched_data *q, struct Qdisc *sch,
			     struct sk_buff *skb)
{
	q->memory_used -= hishape_skb_cb(skb)->mem;
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
}

static struct sk_buff *hishape_dequeued(struct hishape_sched_data *q,
					struct Qdisc *sch, struct sk_buff *skb)
{
	hishape_unqueued(q, sch, skb);
	qdisc_bstats_update(sch, skb);
	return skb;
}

/* The head packet of the earliest slot, whose time has come. */
static struct sk_buff *hishape_release(struct hishape_sched_data *q,
				       struct hishape_slot *s, u64 now)
{
	struct hishape_range *r = &q->table->range[s->range];
	struct sk_buff *skb = s->head;
	u32 len = qdisc_pkt_len(skb);

	rb_erase_cached(&s->node, &q->waiting);
	s->head = skb->next;
	skb_mark_not_on_list(skb);
	s->qlen--;
	hishape_rate_charge(&r->rate, now, len);
	WRITE_ONCE(r->bytes, r->bytes + len);
	if (s->head) {
		hishape_wait(q, s, hishape_rate_eligible(&r->rate,
							 qdisc_pkt_len(s->head)));
	} else {
		hishape_slot_put(q, r->slot);
		r->slot = HISHAPE_NONE;
	}
	return skb;
}

static struct sk_buff *hishape_dequeue(struct Qdisc *sch)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	struct rb_node *first = rb_first_cached(&q->waiting);
	struct hishape_slot *s = first ?
		rb_entry(first, struct hishape_slot, node) : NULL;
	u64 now = ktime_get_ns();
	bool ready[HISHAPE_QUEUES] = {
		[HISHAPE_CTRL]		= q->ctrl.head,
		[HISHAPE_PASS]		= q->pass.head,
		[HISHAPE_SHAPED]	= s && s->time <= now,
	};
	u32 n = ready[HISHAPE_CTRL] + ready[HISHAPE_PASS] + ready[HISHAPE_SHAPED];
	struct sk_buff *skb;
	u32 who;

	if (!n) {
		if (s)
			qdisc_watchdog_schedule_ns(&q->watchdog, s->time);
		return NULL;
	}
	/* deficit round robin over the queues that have a packet ready */
	while (!ready[q->turn] || (n > 1 && q->deficit[q->turn] <= 0)) {
		if (ready[q->turn])
			q->deficit[q->turn] += q->quantum;
		q->turn = (q->turn + 1) % HISHAPE_QUEUES;
	}
	who = q->turn;
	if (who == HISHAPE_CTRL)
		skb = __qdisc_dequeue_head(&q->ctrl);
	else if (who == HISHAPE_PASS)
		skb = __qdisc_dequeue_head(&q->pass);
	else
		skb = hishape_release(q, s, now);
	if (n > 1)
		q->deficit[who] -= qdisc_pkt_len(skb);
	return hishape_dequeued(q, sch, skb);
}

/* ---- reset ---- */

/* Every shaped packet out of its slot, in time order, as one list. */
static struct sk_buff *hishape_unqueue_all(struct hishape_sched_data *q,
					   struct sk_buff **last)
{
	struct sk_buff *head = NULL, **tail = &head;
	struct rb_node *n;

	*last = NULL;
	while ((n = rb_first_cached(&q->waiting))) {
		struct hishape_slot *s = rb_entry(n, struct hishape_slot, node);
		struct hishape_range *r = &q->table->range[s->range];

		rb_erase_cached(n, &q->waiting);
		*tail = s->head;
		tail = &s->tail->next;
		*last = s->tail;
		hishape_slot_put(q, r->slot);
		r->slot = HISHAPE_NONE;
	}
	return head;
}

static void hishape_reset(struct Qdisc *sch)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	struct sk_buff *last, *shaped = hishape_unqueue_all(q, &last);
	u32 i;

	if (shaped)
		rtnl_kfree_skbs(shaped, last);
	__qdisc_reset_queue(&q->ctrl);
	__qdisc_reset_queue(&q->pass);
	q->memory_used = 0;
	for (i = 0; i < HISHAPE_QUEUES; i++)
		q->deficit[i] = q->quantum;
	qdisc_watchdog_cancel(&q->watchdog);
}

/* ---- policy ---- */

static const struct netlink_range_validation hishape_limit_range = {
	.min = 1,
	.max = 65536,
};

static const struct netlink_range_validation hishape_pass_range = {
	.min = 1,
	.max = 1U << 20,
};

static const struct netlink_range_validation hishape_memory_range = {
	.min = SZ_64K,
	.max = U32_MAX,
};

static const struct nla_policy hishape_policy[TCA_HISHAPE_MAX + 1] = {
	[TCA_HISHAPE_MATCH]	= NLA_POLICY_MAX(NLA_U32, TC_HISHAPE_MATCH_MAX),
	[TCA_HISHAPE_DEFAULT]	= NLA_POLICY_MAX(NLA_U32, TC_HISHAPE_DEFAULT_MAX),
	[TCA_HISHAPE_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&hishape_limit_range),
	[TCA_HISHAPE_MEMORY_LIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32,
							   &hishape_memory_range),
	[TCA_HISHAPE_LOAD_BEGIN] = NLA_POLICY_EXACT_LEN(sizeof(struct tc_hishape_load)),
	[TCA_HISHAPE_LOAD_ID]	= { .type = NLA_U32 },
	[TCA_HISHAPE_LOAD_OFFSET] = { .type = NLA_U32 },
	[TCA_HISHAPE_LOAD_RANGES] = { .type = NLA_BINARY },
	[TCA_HISHAPE_LOAD_COMMIT] = { .type = NLA_U32 },
	[TCA_HISHAPE_RANGES4]	= { .type = NLA_REJECT,
				    .reject_message = "Attribute is dump-only" },
	[TCA_HISHAPE_RANGES6]	= { .type = NLA_REJECT,
				    .reject_message = "Attribute is dump-only" },
	[TCA_HISHAPE_TOP]	= { .type = NLA_REJECT,
				    .reject_message = "Attribute is dump-only" },
	[TCA_HISHAPE_PASS_LIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &hishape_pass_range),
};

/* ---- change: the load ---- */

static int hishape_load_begin(struct hishape_sched_data *q,
			      const struct nlattr *attr,
			      struct netlink_ext_ack *extack)
{
	const struct tc_hishape_load *l = nla_data(attr);
	struct hishape_table *t;

	if (l->ranges4 > HISHAPE_RANGES_MAX || l->ranges6 > HISHAPE_RANGES_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "More than 16777216 ranges of one family");
		return -E2BIG;
	}
	t = hishape_table_alloc(l->ranges4, l->ranges6, GFP_KERNEL_ACCOUNT);
	if (!t) {
		NL_SET_ERR_MSG_MOD(extack, "Cannot allocate the range table");
		return -ENOMEM;
	}
	hishape_table_free(q->staged);
	q->staged = t;
	q->load_id = l->id;
	return 0;
}

static void hishape_load_abort(struct hishape_sched_data *q)
{
	hishape_table_free(q->staged);
	q->staged = NULL;
}

static bool hishape_load_is(const struct hishape_sched_data *q,
			    const struct nlattr *id,
			    struct netlink_ext_ack *extack)
{
	if (!q->staged || !id || nla_get_u32(id) != q->load_id) {
		NL_SET_ERR_MSG_MOD(extack,
				   "No table load with this id in progress (superseded, or never begun)");
		return false;
	}
	return true;
}

/* NL_SET_ERR_MSG_ATTR() keeps its message in a static: one a case. */
static void hishape_add_refused(struct netlink_ext_ack *extack,
				const struct nlattr *attr,
				enum hishape_add_err err)
{
	switch (err) {
	case HISHAPE_ADD_FULL:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "More ranges than the load announced");
		break;
	case HISHAPE_ADD_REVERSED:
		NL_SET_ERR_MSG_ATTR(extack, attr, "A range starts above its end");
		break;
	case HISHAPE_ADD_UNSORTED:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "A range is not above the previous one of its family: ranges must be sorted and must not overlap");
		break;
	case HISHAPE_ADD_RATE:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "A rate is out of range: 1 byte/s to 100 Gbit/s");
		break;
	case HISHAPE_ADD_BURST:
		NL_SET_ERR_MSG_ATTR(extack, attr, "A burst is above 128 MB");
		break;
	case HISHAPE_ADD_OK:
		break;
	}
}

/* A chunk of ranges; any refusal ends the load. */
static int hishape_load_ranges(struct hishape_sched_data *q,
			       struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	const struct nlattr *attr = tb[TCA_HISHAPE_LOAD_RANGES];
	const struct tc_hishape_range *rg = nla_data(attr);
	struct hishape_table *t = q->staged;
	u32 n = nla_len(attr) / sizeof(*rg), i;

	if (!hishape_load_is(q, tb[TCA_HISHAPE_LOAD_ID], extack))
		return -EINVAL;
	if (nla_len(attr) % sizeof(*rg)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "Ranges attribute is not a whole number of struct tc_hishape_range");
		goto refused;
	}
	if (!tb[TCA_HISHAPE_LOAD_OFFSET] ||
	    nla_get_u32(tb[TCA_HISHAPE_LOAD_OFFSET]) != t->n4 + t->n6) {
		NL_SET_ERR_MSG_MOD(extack,
				   "Chunk offset is not the number of ranges loaded: a chunk was lost or repeated");
		goto refused;
	}
	for (i = 0; i < n; i++) {
		enum hishape_add_err err = HISHAPE_ADD_OK;
		struct tc_hishape_range r;

		/* netlink aligns to 4 bytes: rate, a u64, may not be aligned */
		memcpy(&r, &rg[i], sizeof(r));
		if (r.family == AF_INET) {
			__be32 w[2];

			memcpy(&w[0], r.start, 4);
			memcpy(&w[1], r.end, 4);
			err = hishape_table_add4(t, be32_to_cpu(w[0]),
						 be32_to_cpu(w[1]), r.rate, r.burst);
		} else if (r.family == AF_INET6) {
			struct hishape_in6 a, b;
			__be64 w[4];

			memcpy(w, r.start, 16);
			memcpy(&w[2], r.end, 16);
			a.hi = be64_to_cpu(w[0]);
			a.lo = be64_to_cpu(w[1]);
			b.hi = be64_to_cpu(w[2]);
			b.lo = be64_to_cpu(w[3]);
			err = hishape_table_add6(t, &a, &b, r.rate, r.burst);
		} else {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "A range's family is neither AF_INET nor AF_INET6");
			goto refused;
		}
		if (err) {
			hishape_add_refused(extack, attr, err);
			goto refused;
		}
	}
	return 0;
refused:
	hishape_load_abort(q);
	return -EINVAL;
}

/* Room for a slot per range of the new table: a larger pages[]. */
static int hishape_grow_pages(struct hishape_sched_data *q,
			      const struct hishape_table *t,
			      struct hishape_slot ***pages, u32 *max)
{
	u32 need = DIV_ROUND_UP(hishape_table_size(t), HISHAPE_SLOTS_PER_PAGE);

	*pages = NULL;
	*max = q->pages_max;
	if (need <= q->pages_max)
		return 0;
	*pages = kvcalloc(need, sizeof(**pages), GFP_KERNEL_ACCOUNT);
	if (!*pages)
		return -ENOMEM;
	*max = need;
	return 0;
}

/*
 * The staged table replaces the one serving.  Its packets waiting in the
 * old ranges are classified again, in the order they would have left,
 * against the new table; those the new table's limits refuse are dropped
 * and the parents told.
 */
static int hishape_load_commit(struct Qdisc *sch, struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	struct hishape_table *old = q->table, *t = q->staged;
	struct hishape_slot **pages, **old_pages = NULL;
	struct sk_buff *skb, *next, *last, *to_free = NULL;
	u32 pages_max, qlen, dropped = 0;
	struct tc_hishape_xstats seen;
	unsigned int backlog;
	u64 now;

	if (!hishape_load_is(q, tb[TCA_HISHAPE_LOAD_COMMIT], extack))
		return -EINVAL;
	if (!hishape_table_complete(t)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "Table load committed before all its ranges were sent");
		hishape_load_abort(q);
		return -EINVAL;
	}
	if (hishape_grow_pages(q, t, &pages, &pages_max)) {
		NL_SET_ERR_MSG_MOD(extack, "Cannot allocate the queues' index");
		return -ENOMEM;
	}

	sch_tree_lock(sch);
	if (pages) {
		if (q->npages)
			memcpy(pages, q->pages, q->npages * sizeof(*pages));
		old_pages = q->pages;
		q->pages = pages;
		q->pages_max = pages_max;
	}
	skb = hishape_unqueue_all(q, &last);
	q->table = t;
	q->staged = NULL;
	q->stats.loads++;
	qlen = sch->q.qlen;
	backlog = sch->qstats.backlog;
	now = ktime_get_ns();
	seen = q->stats;
	for (; skb; skb = next) {
		next = skb->next;
		skb_mark_not_on_list(skb);
		/* out of the old accounting, into the new */
		hishape_unqueued(q, sch, skb);
		if (hishape_admit(q, sch, skb, now, &to_free) != NET_XMIT_SUCCESS)
			dropped++;
	}
	/* The packets were counted as they arrived: moving them counts them
	 * again only where the new table drops them.
	 */
	q->stats.lookups = seen.lookups;
	q->stats.passed = seen.passed;
	q->stats.control = seen.control;
	q->stats.conforming = seen.conforming;
	q->stats.shaped = seen.shaped;
	if (dropped)
		qdisc_tree_reduce_backlog(sch, qlen - sch->q.qlen,
					  backlog - sch->qstats.backlog);
	sch_tree_unlock(sch);

	kfree_skb_list(to_free);
	kvfree(old_pages);
	hishape_table_free(old);
	return 0;
}

/* ---- change ---- */

/* Lower limits: the oldest packets over them are dropped. */
static void hishape_trim(struct Qdisc *sch)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	u32 i, dropped = 0, bytes = 0;

	while (q->pass.qlen > q->pass_limit) {
		struct sk_buff *skb = __qdisc_dequeue_head(&q->pass);

		dropped++;
		bytes += qdisc_pkt_len(skb);
		hishape_unqueued(q, sch, skb);
		qdisc_qstats_drop(sch);
		q->stats.drop_pass++;
		rtnl_kfree_skbs(skb, skb);
	}

	for (i = 0; i < q->npages * HISHAPE_SLOTS_PER_PAGE; i++) {
		struct hishape_slot *s = hishape_slot(q, i);
		struct hishape_range *r;

		if (!s->head || s->qlen <= q->limit)
			continue;
		r = &q->table->range[s->range];
		rb_erase_cached(&s->node, &q->waiting);
		while (s->qlen > q->limit) {
			struct sk_buff *skb = s->head;

			s->head = skb->next;
			skb_mark_not_on_list(skb);
			s->qlen--;
			dropped++;
			bytes += qdisc_pkt_len(skb);
			hishape_unqueued(q, sch, skb);
			qdisc_qstats_drop(sch);
			WRITE_ONCE(r->drops, r->drops + 1);
			q->stats.drop_range++;
			rtnl_kfree_skbs(skb, skb);
		}
		hishape_wait(q, s, hishape_rate_eligible(&r->rate,
							 qdisc_pkt_len(s->head)));
	}
	if (dropped)
		qdisc_tree_reduce_backlog(sch, dropped, bytes);
}

static int hishape_change(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_HISHAPE_MAX + 1];
	int err;

	err = nla_parse_nested(tb, TCA_HISHAPE_MAX, opt, hishape_policy, extack);
	if (err < 0)
		return err;

	/* The load steps first: a step refused changes no parameter. */
	if (tb[TCA_HISHAPE_LOAD_BEGIN]) {
		err = hishape_load_begin(q, tb[TCA_HISHAPE_LOAD_BEGIN], extack);
		if (err)
			return err;
	}
	if (tb[TCA_HISHAPE_LOAD_RANGES]) {
		err = hishape_load_ranges(q, tb, extack);
		if (err)
			return err;
	}
	if (tb[TCA_HISHAPE_LOAD_COMMIT]) {
		err = hishape_load_commit(sch, tb, extack);
		if (err)
			return err;
	}

	sch_tree_lock(sch);
	if (tb[TCA_HISHAPE_MATCH])
		WRITE_ONCE(q->match, nla_get_u32(tb[TCA_HISHAPE_MATCH]));
	if (tb[TCA_HISHAPE_DEFAULT])
		WRITE_ONCE(q->dflt, nla_get_u32(tb[TCA_HISHAPE_DEFAULT]));
	if (tb[TCA_HISHAPE_MEMORY_LIMIT])
		WRITE_ONCE(q->memory_limit,
			   nla_get_u32(tb[TCA_HISHAPE_MEMORY_LIMIT]));
	if (tb[TCA_HISHAPE_PASS_LIMIT])
		WRITE_ONCE(q->pass_limit,
			   nla_get_u32(tb[TCA_HISHAPE_PASS_LIMIT]));
	if (tb[TCA_HISHAPE_LIMIT])
		WRITE_ONCE(q->limit, nla_get_u32(tb[TCA_HISHAPE_LIMIT]));
	if (tb[TCA_HISHAPE_LIMIT] || tb[TCA_HISHAPE_PASS_LIMIT])
		hishape_trim(sch);
	sch_tree_unlock(sch);
	return 0;
}

/* ---- init, destroy ---- */

static int hishape_init(struct Qdisc *sch, struct nlattr *opt,
			struct netlink_ext_ack *extack)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	u32 i;

	q->waiting = RB_ROOT_CACHED;
	q->free_slot = HISHAPE_NONE;
	q->match = TC_HISHAPE_MATCH_SRC;
	q->dflt = TC_HISHAPE_DEFAULT_PASS;
	q->limit = HISHAPE_DEFAULT_LIMIT;
	q->pass_limit = HISHAPE_DEFAULT_PASS;
	q->memory_limit = HISHAPE_DEFAULT_MEMORY;
	q->quantum = psched_mtu(qdisc_dev(sch));
	for (i = 0; i < HISHAPE_QUEUES; i++)
		q->deficit[i] = q->quantum;
	qdisc_watchdog_init(&q->watchdog, sch);

	return opt ? hishape_change(sch, opt, extack) : 0;
}

static void hishape_destroy(struct Qdisc *sch)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	u32 i;

	hishape_reset(sch);
	for (i = 0; i < q->npages; i++)
		kfree(q->pages[i]);
	kvfree(q->pages);
	hishape_table_free(q->table);
	hishape_table_free(q->staged);
}

/* ---- dump ---- */

/* The ranges that sent the most bytes, most first: their count. */
static u32 hishape_top(const struct hishape_table *t, u32 *idx, u64 *bytes)
{
	u32 n = 0, i, j;

	for (i = 0; i < hishape_table_size(t); i++) {
		u64 b = READ_ONCE(t->range[i].bytes);

		if (!b || (n == HISHAPE_TOP_RANGES && b <= bytes[n - 1]))
			continue;
		if (n < HISHAPE_TOP_RANGES)
			n++;
		for (j = n - 1; j && bytes[j - 1] < b; j--) {
			bytes[j] = bytes[j - 1];
			idx[j] = idx[j - 1];
		}
		bytes[j] = b;
		idx[j] = i;
	}
	return n;
}

static int hishape_dump_range(struct sk_buff *skb,
			      const struct hishape_table *t, u32 i)
{
	const struct hishape_range *r = &t->range[i];
	struct nlattr *nest = nla_nest_start_noflag(skb, TCA_HISHAPE_TOP_RANGE);
	__be64 w[4];
	__be32 v[2];

	if (!nest)
		return -EMSGSIZE;
	if (i < t->max4) {
		v[0] = cpu_to_be32(t->start4[i]);
		v[1] = cpu_to_be32(t->end4[i]);
		if (nla_put_u8(skb, TCA_HISHAPE_TR_FAMILY, AF_INET) ||
		    nla_put(skb, TCA_HISHAPE_TR_START, 4, &v[0]) ||
		    nla_put(skb, TCA_HISHAPE_TR_END, 4, &v[1]))
			return -EMSGSIZE;
	} else {
		i -= t->max4;
		w[0] = cpu_to_be64(t->start6[i].hi);
		w[1] = cpu_to_be64(t->start6[i].lo);
		w[2] = cpu_to_be64(t->end6[i].hi);
		w[3] = cpu_to_be64(t->end6[i].lo);
		if (nla_put_u8(skb, TCA_HISHAPE_TR_FAMILY, AF_INET6) ||
		    nla_put(skb, TCA_HISHAPE_TR_START, 16, &w[0]) ||
		    nla_put(skb, TCA_HISHAPE_TR_END, 16, &w[2]))
			return -EMSGSIZE;
	}
	if (nla_put_u64_64bit(skb, TCA_HISHAPE_TR_RATE,
			      hishape_rate_bps(&r->rate), TCA_HISHAPE_TR_PAD) ||
	    nla_put_u64_64bit(skb, TCA_HISHAPE_TR_BYTES, READ_ONCE(r->bytes),
			      TCA_HISHAPE_TR_PAD) ||
	    nla_put_u32(skb, TCA_HISHAPE_TR_DROPS, READ_ONCE(r->drops)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Under RTNL, not the qdisc lock: the table cannot be replaced meanwhile
 * (commit holds RTNL too); a range's counters are read once each.
 */
static int hishape_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	const struct hishape_table *t = q->table;
	struct nlattr *opts, *top;
	u32 idx[HISHAPE_TOP_RANGES], n, i;
	u64 bytes[HISHAPE_TOP_RANGES];

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_HISHAPE_MATCH, READ_ONCE(q->match)) ||
	    nla_put_u32(skb, TCA_HISHAPE_DEFAULT, READ_ONCE(q->dflt)) ||
	    nla_put_u32(skb, TCA_HISHAPE_LIMIT, READ_ONCE(q->limit)) ||
	    nla_put_u32(skb, TCA_HISHAPE_PASS_LIMIT, READ_ONCE(q->pass_limit)) ||
	    nla_put_u32(skb, TCA_HISHAPE_MEMORY_LIMIT,
			READ_ONCE(q->memory_limit)) ||
	    nla_put_u32(skb, TCA_HISHAPE_RANGES4, t ? t->max4 : 0) ||
	    nla_put_u32(skb, TCA_HISHAPE_RANGES6, t ? t->max6 : 0))
		goto nla_put_failure;
	if (t) {
		n = hishape_top(t, idx, bytes);
		top = nla_nest_start_noflag(skb, TCA_HISHAPE_TOP);
		if (!top)
			goto nla_put_failure;
		for (i = 0; i < n; i++)
			if (hishape_dump_range(skb, t, idx[i]))
				goto nla_put_failure;
		nla_nest_end(skb, top);
	}
	return nla_nest_end(skb, opts);

nla_put_failure:
	return -1;
}

static int hishape_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	struct tc_hishape_xstats st;

	sch_tree_lock(sch);
	st = q->stats;
	st.ranges = q->table ? hishape_table_size(q->table) : 0;
	st.backlogged = q->backlogged;
	st.memory_usage = q->memory_used +
		(u64)q->npages * HISHAPE_SLOTS_PER_PAGE * sizeof(struct hishape_slot) +
		(u64)q->pages_max * sizeof(*q->pages) +
		(q->table ? hishape_table_bytes(q->table) : 0) +
		(q->staged ? hishape_table_bytes(q->staged) : 0);
	sch_tree_unlock(sch);

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops hishape_qdisc_ops __read_mostly = {
	.id		= "hishape",
	.priv_size	= sizeof(struct hishape_sched_data),
	.enqueue	= hishape_enqueue,
	.dequeue	= hishape_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= hishape_init,
	.reset		= hishape_reset,
	.destroy	= hishape_destroy,
	.change		= hishape_change,
	.dump		= hishape_dump,
	.dump_stats	= hishape_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init hishape_module_init(void)
{
	return register_qdisc(&hishape_qdisc_ops);
}

static void __exit hishape_module_exit(void)
{
	unregister_qdisc(&hishape_qdisc_ops);
}

module_init(hishape_module_init);
module_exit(hishape_module_exit);
MODULE_AUTHOR("sch_dfs developers <dev@sch-dfs.invalid>");
MODULE_DESCRIPTION("Per-source-range shaping (nf-HiShape): 100,000 ranges, O(log n) a packet");
MODULE_VERSION(SCH_DFS_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS_NET_SCH("hishape");
