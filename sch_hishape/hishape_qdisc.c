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
 * fires at the earliest.  What this host needs to reach its neighbours
 * (its own ARP and IPv6 neighbour discovery) has a small queue of its
 * own, never dropped by "default drop" or a full pass queue; what it
 * forwards, of any protocol, is in a range or in none.  Dequeue takes
 * turns between the control queue, the pass queue and the ranges whose
 * time has come, by deficit round robin, an MTU a turn: a flood from
 * addresses in no range cannot hold back the ranges' packets, even those
 * within their rate, nor the router's own neighbour resolution.
 *
 * A range costs 40 (IPv4) or 64 (IPv6) bytes.  The queue of a range with
 * packets waiting is a slot, taken from pages of 64 allocated as the
 * backlog first needs them and freed when it drains, counted against
 * memory_limit and charged to the maker's memory cgroup, so idle ranges,
 * the most of them, cost no queue.  Tables
 * are loaded in chunks over several netlink messages into a table beside
 * the one serving, grown as the chunks arrive (up to max_ranges a family,
 * a module parameter), dropped if the loader goes quiet, and replace the
 * serving one when complete (pkt_sched_hishape.h).  What the swap does
 * under the qdisc lock is bounded by the ranges with packets queued: the
 * ranges the new table keeps are found beforehand, and keep their queue
 * and, their rate unchanged, their bucket.  The busiest ranges a dump
 * shows are kept up to date as packets leave, so a dump, which any user
 * may ask for, reads ten ranges, not the table.  The data path and the
 * stats dump hold the qdisc lock, dump and change hold RTNL: a table is
 * never read and freed at once, and no RCU is needed.
 *
 * One table serves the device: under mq, mqprio or taprio, which make a
 * qdisc a tx queue, every queue would have a table and every range its
 * rate once a queue, so hishape refuses to be made there.
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
#include <linux/workqueue.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/if_arp.h>
#include <net/flowkey_skb.h>
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
#define HISHAPE_SLOTS_PER_PAGE	64		/* 64-byte slots: one page */
#define HISHAPE_TOP_RANGES	10		/* busiest ranges in a dump */
#define HISHAPE_LOAD_IDLE	(10 * HZ)	/* a load with no step is dropped */

static unsigned int max_ranges = 1U << 20;
module_param(max_ranges, uint, 0644);
MODULE_PARM_DESC(max_ranges,
		 "Ranges a table may hold, per family (default 1048576, at most 16777216)");

/* The queue of a range with packets waiting. */
struct hishape_slot {
	struct rb_node	node;		/* in waiting, by time */
	u64		time;		/* when the head packet may leave */
	struct sk_buff	*head;
	struct sk_buff	*tail;
	u32		range;		/* its range; when free, the next free slot */
	u32		qlen;
	u32		bytes;		/* qdisc_pkt_len() of its packets */
	u32		mem;		/* their truesize */
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
	struct mem_cgroup	*memcg;		/* the maker's: slot pages */
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
	/* the busiest ranges, most bytes first */
	u32			top[HISHAPE_TOP_RANGES];
	u32			ntop;

	/* The load in progress: under RTNL and load_lock, which the work
	 * that drops an idle load takes (it cannot take RTNL, which destroy
	 * holds while it waits for the work).
	 */
	struct mutex		load_lock;
	struct hishape_table	*staged;
	u32			load_id;
	unsigned long		load_touched;	/* jiffies of its last step */
	size_t			staged_bytes;	/* for the stats dump */
	struct delayed_work	load_expiry;

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

/*
 * The packet's range, or HISHAPE_NONE: not IP or in no range.  The
 * address is the flow dissector's, as sch_dfs and cls_lrufq read it: past
 * VLAN tags, QinQ and PPPoE included.
 */
static u32 hishape_classify(const struct hishape_sched_data *q,
			    const struct hishape_table *t, struct sk_buff *skb)
{
	bool dst = q->match == TC_HISHAPE_MATCH_DST;
	struct hishape_in6 x;
	struct flowkey k;
	const u8 *a;
	__be64 w[2];
	__be32 v;

	flowkey_from_skb(skb, dst ? TC_FLOWKEY_DST : TC_FLOWKEY_SRC, &k);
	a = dst ? k.dst : k.src;
	switch (k.family) {
	case AF_INET:
		if (!t->n4)
			return HISHAPE_NONE;
		memcpy(&v, a, sizeof(v));
		return hishape_lookup4(t, be32_to_cpu(v));
	case AF_INET6:
		if (!t->n6)
			return HISHAPE_NONE;
		memcpy(w, a, sizeof(w));
		x.hi = be64_to_cpu(w[0]);
		x.lo = be64_to_cpu(w[1]);
		return hishape_lookup6(t, &x);
	}
	return HISHAPE_NONE;
}

/*
 * What this host needs to reach its neighbours: its own ARP, and its own
 * IPv6 neighbour discovery (ICMPv6 133 to 137 with the hop limit of 255
 * RFC 4861 requires).  Its own: the stack made the packet (it came in on
 * no device), so nothing forwarded or bridged, whatever it carries, can
 * pass for it and skip the ranges and the default policy.
 */
static bool hishape_link_control(struct sk_buff *skb)
{
	const struct icmp6hdr *ic;

	if (skb->skb_iif)
		return false;
	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_ARP):
		return true;
	case htons(ETH_P_IPV6):
		break;
	default:
		return false;
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

#define HISHAPE_PAGE_BYTES	(HISHAPE_SLOTS_PER_PAGE * sizeof(struct hishape_slot))

/* What the qdisc holds against memory_limit: its packets, its slots. */
static u64 hishape_memory(const struct hishape_sched_data *q)
{
	return q->memory_used + (u64)q->npages * HISHAPE_PAGE_BYTES;
}

/* Page @p's slots, free, in front of the free list. */
static void hishape_page_free_list(struct hishape_sched_data *q, u32 p)
{
	struct hishape_slot *page = q->pages[p];
	u32 base = p * HISHAPE_SLOTS_PER_PAGE, i;

	for (i = 0; i < HISHAPE_SLOTS_PER_PAGE; i++)
		page[i].range = i + 1 < HISHAPE_SLOTS_PER_PAGE ?
				base + i + 1 : q->free_slot;
	q->free_slot = base;
}

/*
 * A page of slots, from the data path.  Charged to the memory cgroup of
 * whoever made the qdisc, as a BPF map charges its maker: in softirq
 * there is no task of the maker's to charge, and a flood's backlog must
 * not grow what no limit holds.
 */
static struct hishape_slot *hishape_page_alloc(struct hishape_sched_data *q)
{
	struct mem_cgroup *old = set_active_memcg(q->memcg);
	struct hishape_slot *page;

	page = kzalloc(HISHAPE_PAGE_BYTES,
		       GFP_ATOMIC | __GFP_NOWARN | __GFP_ACCOUNT);
	set_active_memcg(old);
	return page;
}

/* A free slot, from a new page of them when none is left. */
static u32 hishape_slot_get(struct hishape_sched_data *q, u32 truesize)
{
	struct hishape_slot *page;
	u32 i;

	if (q->free_slot == HISHAPE_NONE) {
		if (q->npages == q->pages_max ||
		    hishape_memory(q) + HISHAPE_PAGE_BYTES + truesize >
		    q->memory_limit)
			return HISHAPE_NONE;
		page = hishape_page_alloc(q);
		if (!page)
			return HISHAPE_NONE;
		q->pages[q->npages] = page;
		hishape_page_free_list(q, q->npages++);
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
	s->bytes = 0;
	s->mem = 0;
	s->range = q->free_slot;
	q->free_slot = i;
	q->backlogged--;
}

/*
 * No range has packets queued: the pages the backlog took beyond the
 * first go back, so a burst's slots are not held for the qdisc's life.
 */
static void hishape_slots_shrink(struct hishape_sched_data *q)
{
	if (q->backlogged || q->npages <= 1)
		return;
	while (q->npages > 1)
		kfree(q->pages[--q->npages]);
	q->free_slot = HISHAPE_NONE;
	hishape_page_free_list(q, 0);
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
	struct hishape_range *r = hishape_range(q->table, idx);
	struct hishape_slot *s;
	u32 i = r->slot;
	u64 time;

	if (i == HISHAPE_NONE) {
		i = hishape_slot_get(q, skb->truesize);
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
	s->bytes += qdisc_pkt_len(skb);
	s->mem += skb->truesize;
	hishape_queued(q, sch, skb);
	return true;
}

/* Pass, queue in its range or drop a packet. */
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

	if (unlikely(hishape_memory(q) + skb->truesize > q->memory_limit)) {
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

/*
 * Range @idx sent a packet and has @bytes now: keep top[] the busiest
 * ranges, most first.  One comparison for a range that is not among them
 * and does not join them; at most HISHAPE_TOP_RANGES steps for one that
 * is.
 */
static void hishape_top_update(struct hishape_sched_data *q,
			       const struct hishape_table *t, u32 idx,
			       u64 bytes)
{
	u32 n = q->ntop, i;

	if (n == HISHAPE_TOP_RANGES && q->top[n - 1] != idx &&
	    bytes <= hishape_range(t, q->top[n - 1])->bytes)
		return;
	for (i = 0; i < n && q->top[i] != idx; i++)
		;
	if (i == n) {
		if (n < HISHAPE_TOP_RANGES)
			q->ntop = ++n;
		i = n - 1;
	}
	for (; i && hishape_range(t, q->top[i - 1])->bytes < bytes; i--)
		q->top[i] = q->top[i - 1];
	q->top[i] = idx;
}

/* Take the head packet off slot @s. */
static struct sk_buff *hishape_slot_pop(struct hishape_slot *s)
{
	struct sk_buff *skb = s->head;

	s->head = skb->next;
	skb_mark_not_on_list(skb);
	s->qlen--;
	s->bytes -= qdisc_pkt_len(skb);
	s->mem -= hishape_skb_cb(skb)->mem;
	return skb;
}

/* The head packet of the earliest slot, whose time has come. */
static struct sk_buff *hishape_release(struct hishape_sched_data *q,
				       struct hishape_slot *s, u64 now)
{
	struct hishape_range *r = hishape_range(q->table, s->range);
	struct sk_buff *skb;
	u32 len;

	rb_erase_cached(&s->node, &q->waiting);
	skb = hishape_slot_pop(s);
	len = qdisc_pkt_len(skb);
	hishape_rate_charge(&r->rate, now, len);
	WRITE_ONCE(r->bytes, r->bytes + len);
	hishape_top_update(q, q->table, s->range, r->bytes);
	if (s->head) {
		hishape_wait(q, s, hishape_rate_eligible(&r->rate,
							 qdisc_pkt_len(s->head)));
	} else {
		hishape_slot_put(q, r->slot);
		r->slot = HISHAPE_NONE;
		hishape_slots_shrink(q);
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
		struct hishape_range *r = hishape_range(q->table, s->range);

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
	hishape_slots_shrink(q);
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
	u32 cap = min_t(u32, READ_ONCE(max_ranges), HISHAPE_RANGES_MAX);
	struct hishape_table *t;

	if (l->ranges4 > cap || l->ranges6 > cap) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "More ranges of one family than the module parameter max_ranges allows");
		return -E2BIG;
	}
	/* What is sent is what is allocated, as it arrives: a load may
	 * announce far more than the machine has, and fail there, not here.
	 */
	t = hishape_table_alloc(l->ranges4, l->ranges6,
				GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
				__GFP_RETRY_MAYFAIL);
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

/* A load whose loader went quiet (it died, or was never going to
 * finish) is dropped: it would hold its memory until the next load or
 * the qdisc's end.
 */
static void hishape_load_expire(struct work_struct *work)
{
	struct hishape_sched_data *q =
		container_of(to_delayed_work(work), struct hishape_sched_data,
			     load_expiry);

	mutex_lock(&q->load_lock);
	if (q->staged &&
	    time_after_eq(jiffies, q->load_touched + HISHAPE_LOAD_IDLE)) {
		hishape_load_abort(q);
		WRITE_ONCE(q->staged_bytes, 0);
	}
	mutex_unlock(&q->load_lock);
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
	case HISHAPE_ADD_NOMEM:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "No memory for the range table: the load is dropped");
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
	int ret = -EINVAL;

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
			if (err == HISHAPE_ADD_NOMEM)
				ret = -ENOMEM;
			goto refused;
		}
	}
	return 0;
refused:
	hishape_load_abort(q);
	return ret;
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
 * Slot @i's range is gone from the new table: its packets are in no range
 * now, and go as such (the pass queue, or dropped by "default drop" or a
 * full pass queue) with no look at each: a slot's counts move at once.
 */
static void hishape_unrange(struct hishape_sched_data *q, struct Qdisc *sch,
			    u32 i, struct sk_buff **to_free, u32 *dropped,
			    u32 *bytes)
{
	struct hishape_slot *s = hishape_slot(q, i);

	if (q->dflt == TC_HISHAPE_DEFAULT_PASS &&
	    q->pass.qlen + s->qlen <= q->pass_limit) {
		if (q->pass.tail)
			q->pass.tail->next = s->head;
		else
			q->pass.head = s->head;
		q->pass.tail = s->tail;
		q->pass.qlen += s->qlen;
	} else {
		if (q->dflt == TC_HISHAPE_DEFAULT_DROP)
			q->stats.drop_default += s->qlen;
		else
			q->stats.drop_pass += s->qlen;
		s->tail->next = *to_free;
		*to_free = s->head;
		*dropped += s->qlen;
		*bytes += s->bytes;
		q->memory_used -= s->mem;
		sch->q.qlen -= s->qlen;
		sch->qstats.backlog -= s->bytes;
		sch->qstats.drops += s->qlen;
	}
	hishape_slot_put(q, i);
}

/*
 * Every range with packets queued moves to its place in @t (@map, from
 * hishape_table_carry()), its queue with it, or out of the ranges.  One
 * step a slot, no lookup: the work under the root lock is bounded by the
 * ranges backlogged, whatever the tables' sizes.
 */
static void hishape_move_queues(struct hishape_sched_data *q,
				struct Qdisc *sch, struct hishape_table *t,
				const u32 *map, struct sk_buff **to_free)
{
	struct rb_root_cached moved = RB_ROOT_CACHED;
	const struct hishape_table *old = q->table;
	u32 dropped = 0, bytes = 0;
	struct rb_node *n;

	while ((n = rb_first_cached(&q->waiting))) {
		struct hishape_slot *s = rb_entry(n, struct hishape_slot, node);
		u32 i = hishape_range(old, s->range)->slot;
		u32 j = map[s->range];
		struct hishape_range *r;

		rb_erase_cached(n, &q->waiting);
		if (j == HISHAPE_NONE) {
			hishape_unrange(q, sch, i, to_free, &dropped, &bytes);
			continue;
		}
		r = hishape_range(t, j);
		r->slot = i;
		s->range = j;
		s->time = hishape_rate_eligible(&r->rate,
						qdisc_pkt_len(s->head));
		rb_add_cached(&s->node, &moved, hishape_slot_less);
	}
	q->waiting = moved;
	if (dropped)
		qdisc_tree_reduce_backlog(sch, dropped, bytes);
}

/*
 * The staged table replaces the one serving.  What can be done beside
 * the serving table is: the ranges both tables have are found, and those
 * of unchanged rate get their buckets (hishape_table_carry(); a range
 * charged in the moment between keeps a few bytes of credit).  Under the
 * root lock the queues move, one step a backlogged range.
 */
static int hishape_load_commit(struct Qdisc *sch, struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	struct hishape_table *old = q->table, *t = q->staged;
	struct hishape_slot **pages, **old_pages = NULL;
	struct sk_buff *to_free = NULL;
	u32 pages_max, *map = NULL;

	if (!hishape_load_is(q, tb[TCA_HISHAPE_LOAD_COMMIT], extack))
		return -EINVAL;
	if (!hishape_table_complete(t)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "Table load committed before all its ranges were sent");
		hishape_load_abort(q);
		return -EINVAL;
	}
	if (old) {
		map = kvmalloc_array(max(hishape_table_size(old), 1U),
				     sizeof(*map), GFP_KERNEL_ACCOUNT);
		if (!map) {
			NL_SET_ERR_MSG_MOD(extack, "Cannot allocate the ranges' map");
			return -ENOMEM;
		}
		hishape_table_carry(old, t, map);
	}
	if (hishape_grow_pages(q, t, &pages, &pages_max)) {
		kvfree(map);
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
	if (old)
		hishape_move_queues(q, sch, t, map, &to_free);
	q->table = t;
	q->staged = NULL;
	q->ntop = 0;
	q->stats.loads++;
	sch_tree_unlock(sch);

	kfree_skb_list(to_free);
	kvfree(map);
	kvfree(old_pages);
	hishape_table_free(old);
	return 0;
}

/* ---- change ---- */

/* Lower limits: the oldest packets over them are dropped. */
static void hishape_trim(struct Qdisc *sch)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	struct rb_root_cached kept = RB_ROOT_CACHED;
	u32 dropped = 0, bytes = 0;
	struct rb_node *n;

	while (q->pass.qlen > q->pass_limit) {
		struct sk_buff *skb = __qdisc_dequeue_head(&q->pass);

		dropped++;
		bytes += qdisc_pkt_len(skb);
		hishape_unqueued(q, sch, skb);
		qdisc_qstats_drop(sch);
		q->stats.drop_pass++;
		rtnl_kfree_skbs(skb, skb);
	}

	/* every backlogged range, a tree of them rebuilt as they are trimmed */
	while ((n = rb_first_cached(&q->waiting))) {
		struct hishape_slot *s = rb_entry(n, struct hishape_slot, node);
		struct hishape_range *r = hishape_range(q->table, s->range);

		rb_erase_cached(n, &q->waiting);
		while (s->qlen > q->limit) {
			struct sk_buff *skb = hishape_slot_pop(s);

			dropped++;
			bytes += qdisc_pkt_len(skb);
			hishape_unqueued(q, sch, skb);
			qdisc_qstats_drop(sch);
			WRITE_ONCE(r->drops, r->drops + 1);
			q->stats.drop_range++;
			rtnl_kfree_skbs(skb, skb);
		}
		s->time = hishape_rate_eligible(&r->rate, qdisc_pkt_len(s->head));
		rb_add_cached(&s->node, &kept, hishape_slot_less);
	}
	q->waiting = kept;
	if (dropped)
		qdisc_tree_reduce_backlog(sch, dropped, bytes);
}

static int hishape_load_step(struct Qdisc *sch, struct nlattr **tb,
			     struct netlink_ext_ack *extack)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	int err = 0;

	if (!tb[TCA_HISHAPE_LOAD_BEGIN] && !tb[TCA_HISHAPE_LOAD_RANGES] &&
	    !tb[TCA_HISHAPE_LOAD_COMMIT])
		return 0;
	mutex_lock(&q->load_lock);
	if (tb[TCA_HISHAPE_LOAD_BEGIN])
		err = hishape_load_begin(q, tb[TCA_HISHAPE_LOAD_BEGIN], extack);
	if (!err && tb[TCA_HISHAPE_LOAD_RANGES])
		err = hishape_load_ranges(q, tb, extack);
	if (!err && tb[TCA_HISHAPE_LOAD_COMMIT])
		err = hishape_load_commit(sch, tb, extack);
	q->load_touched = jiffies;
	WRITE_ONCE(q->staged_bytes,
		   q->staged ? hishape_table_bytes(q->staged) : 0);
	if (q->staged)
		mod_delayed_work(system_long_wq, &q->load_expiry,
				 HISHAPE_LOAD_IDLE);
	mutex_unlock(&q->load_lock);
	return err;
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
	err = hishape_load_step(sch, tb, extack);
	if (err)
		return err;

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

/*
 * Made a qdisc per tx queue: below a root that has them (mq, mqprio,
 * taprio, htb offload), or by such a root as it is made, from
 * default_qdisc, when its handle is not yet known on the device (what
 * bpf_qdisc's init tells apart too).  Each would keep a table of its own.
 */
static bool hishape_per_queue(const struct Qdisc *sch)
{
	struct net_device *dev = qdisc_dev(sch);
	struct Qdisc *root = rtnl_dereference(dev->qdisc), *p;
	u32 major = TC_H_MAJ(sch->parent);

	if (sch->parent == TC_H_ROOT)
		return false;
	if (root->flags & TCQ_F_MQROOT)
		return true;
	if (!(root->flags & TCQ_F_BUILTIN) && root->handle == major)
		return false;
	hash_for_each_possible(dev->qdisc_hash, p, hash, major)
		if (p->handle == major)
			return false;
	return true;
}

static int hishape_init(struct Qdisc *sch, struct nlattr *opt,
			struct netlink_ext_ack *extack)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	u32 i;

	/* first: destroy, which a refused init gets, cancels the work */
	mutex_init(&q->load_lock);
	INIT_DELAYED_WORK(&q->load_expiry, hishape_load_expire);
	qdisc_watchdog_init(&q->watchdog, sch);
	q->memcg = get_mem_cgroup_from_mm(current->mm);
	if (hishape_per_queue(sch)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "hishape keeps one table a device and cannot be a qdisc per tx queue (mq, mqprio, taprio): attach it at the root or below a single-queue parent");
		return -EOPNOTSUPP;
	}

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

	return opt ? hishape_change(sch, opt, extack) : 0;
}

static void hishape_destroy(struct Qdisc *sch)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	u32 i;

	cancel_delayed_work_sync(&q->load_expiry);
	hishape_reset(sch);
	for (i = 0; i < q->npages; i++)
		kfree(q->pages[i]);
	kvfree(q->pages);
	hishape_table_free(q->table);
	hishape_table_free(q->staged);
	mem_cgroup_put(q->memcg);
	mutex_destroy(&q->load_lock);
}

/* ---- dump ---- */

static int hishape_dump_range(struct sk_buff *skb,
			      const struct hishape_table *t, u32 i)
{
	const struct hishape_range *r = hishape_range(t, i);
	struct nlattr *nest = nla_nest_start_noflag(skb, TCA_HISHAPE_TOP_RANGE);
	__be64 w[4];
	__be32 v[2];

	if (!nest)
		return -EMSGSIZE;
	if (i < t->n4) {
		v[0] = cpu_to_be32(t->start4[i]);
		v[1] = cpu_to_be32(t->end4[i]);
		if (nla_put_u8(skb, TCA_HISHAPE_TR_FAMILY, AF_INET) ||
		    nla_put(skb, TCA_HISHAPE_TR_START, 4, &v[0]) ||
		    nla_put(skb, TCA_HISHAPE_TR_END, 4, &v[1]))
			return -EMSGSIZE;
	} else {
		i -= t->n4;
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
 * Under RTNL: the table cannot be replaced meanwhile (commit holds RTNL
 * too).  The busiest ranges are copied under the qdisc lock, as dequeue
 * keeps them; their counters are read once each.  Bounded work, whatever
 * the table's size: any user may ask for it.
 */
static int hishape_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct hishape_sched_data *q = qdisc_priv(sch);
	const struct hishape_table *t = q->table;
	struct nlattr *opts, *top;
	u32 idx[HISHAPE_TOP_RANGES], n, i;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_HISHAPE_MATCH, READ_ONCE(q->match)) ||
	    nla_put_u32(skb, TCA_HISHAPE_DEFAULT, READ_ONCE(q->dflt)) ||
	    nla_put_u32(skb, TCA_HISHAPE_LIMIT, READ_ONCE(q->limit)) ||
	    nla_put_u32(skb, TCA_HISHAPE_PASS_LIMIT, READ_ONCE(q->pass_limit)) ||
	    nla_put_u32(skb, TCA_HISHAPE_MEMORY_LIMIT,
			READ_ONCE(q->memory_limit)) ||
	    nla_put_u32(skb, TCA_HISHAPE_RANGES4, t ? t->n4 : 0) ||
	    nla_put_u32(skb, TCA_HISHAPE_RANGES6, t ? t->n6 : 0))
		goto nla_put_failure;
	if (t) {
		sch_tree_lock(sch);
		n = q->ntop;
		memcpy(idx, q->top, n * sizeof(*idx));
		sch_tree_unlock(sch);
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
	st.memory_usage = hishape_memory(q) +
		(u64)q->pages_max * sizeof(*q->pages) +
		(q->table ? hishape_table_bytes(q->table) : 0) +
		READ_ONCE(q->staged_bytes);
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
