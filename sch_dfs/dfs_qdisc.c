// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs	Deterministic Fair Sharing AQM
 *
 * DFS (Bedi, Roy, Shiva, "Mitigating congestion based DoS attacks with an
 * enhanced AQM technique", Computer Communications 40, 2014) keeps exact
 * state for every active flow and gives each a weighted fair share (wfs)
 * of the buffer, which shrinks as the queue fills (Eq. 1).  A flow whose
 * backlog exceeds the EWMA of wfs is ECN marked (dropped if not ECT) and
 * its unfairness p_m rises, at most once per freeze_time.  After
 * tolerance_factor rises in a row the flow is "trending": its arrival
 * bitrate against the fair bitrate drives p_m, and at max_th the flow is
 * marked malicious: every packet is dropped before it takes buffer space,
 * while its bitrate is still measured, so it is unmarked once it sends at
 * its fair rate again.
 *
 * Flows live in a B-tree keyed by their exact addresses (and ports, with
 * key 5tuple), ordered by a keyed 32-bit hash of the key kept in the nodes
 * (dfs_btree.h); malicious flows move to a small array cache searched
 * first.  A hash index over the tree (dfs_index.h) finds a known flow in
 * one line, not a node a level; a worker sizes it to the flows and
 * fills a new one, while packets find what it lacks in the tree.
 * The algorithm itself is in dfs_decide.c, dfs_btree.c, dfs_index.c and
 * dfs_cache.c, which know nothing of sk_buffs and are unit tested in
 * userspace.
 *
 * With "sched fifo" (the paper's) the queue is one FIFO.  With "sched fq"
 * the flows with packets are served by deficit round robin, and in a
 * flow's turn its connections, each in a queue of its own with CoDel
 * (dfs_fq.h): DFS still decides on arrival, with the flow's exact
 * backlog, and the scheduler keeps delay low for whatever it admits.
 * Each queued skb points to its flow, so dequeue is O(1); a
 * flow with bytes queued is never freed.  Idle flows are pruned by a
 * timer, a bounded batch at a time, under the qdisc root lock.
 * Past the "flows" cap, packets of unknown flows share one overflow flow,
 * which DFS judges like any other: a spoofed flood can not exhaust memory,
 * and it can not hurt the flows already known.
 *
 * A low-rate ("shrew") attack sends bursts in step with other attackers
 * and stays under a fair rate on average, so Algorithm 3 never sees it.
 * So each flow's congestion participation rate is kept too (dfs_cpr.c:
 * the share of its packets that came in periods in which more came than
 * the link can send, without the one flow that brought most, or with
 * "cpr_signal drops", in which DFS dropped or marked a packet; a period
 * holds eight full-sized frames at the link's rate, and at least 1 ms)
 * and, unless "nocpr", a flow whose CPR is over tau is dropped before
 * it takes buffer space, as a malicious one is, until its CPR falls
 * back under tau.  tau is fixed, or adapts (Kieu et al.): low while the
 * link is congested, high when it is calm.  A held flow's packets count as
 * congested in the periods its arrivals and the others' would have
 * swamped the link (a surge), so a flow held in an attack's step stays
 * held while the attack goes on.
 */
#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/ktime.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>
#include <linux/stringify.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>
#include <net/flowkey_skb.h>
#include <net/genetlink.h>
#include <linux/dfs_verdict.h>

#include "dfs_repo.h"
#include "dfs_fq.h"
#include "dfs_verdict.h"
#include "dfs_mq.h"

#define DFS_DEFAULT_MEMORY	SZ_32M		/* fq_codel's memory_limit */
#define DFS_DEFAULT_FLOWS	65536
#define DFS_DEFAULT_ORDER	43
#define DFS_DEFAULT_CACHE	32
#define DFS_DEFAULT_PRUNE_MS	(3600 * MSEC_PER_SEC)	/* Table 2: 1 h */

#define DFS_LIMIT_MIN		1024
#define DFS_LIMIT_MAX		SZ_1G
#define DFS_MEMORY_MIN		SZ_64K		/* a 64 KB GSO packet */
#define DFS_FLOWS_MAX		SZ_16M
/* bytes/s: 10 Tbit/s, far above any link, and a bound for the p_m step. */
#define DFS_BANDWIDTH_MAX	(10ULL * 1000 * 1000 * 1000 * 1000 / 8)
#define DFS_PRUNE_BATCH		256	/* flows examined per timer run */
/* A new order or cache size moves every flow, under the qdisc lock with
 * BH off: at most this many (tens of ms), as fq_codel refuses a new
 * "flows" once it has any.
 */
#define DFS_REBUILD_MAX		65536	/* decimal: the extack names it */
/* Reset and destroy free a B-tree of more flows than this in a worker. */
#define DFS_FREE_INLINE		4096
/* and an index of more buckets than this (64 KiB, else cleared in place) */
#define DFS_INDEX_INLINE	1024
/* Flows the index worker adds under one hold of the qdisc lock. */
#define DFS_INDEX_BATCH		1024
#define DFS_DEFAULT_TARGET_US	(5 * USEC_PER_MSEC)
#define DFS_DEFAULT_INTERVAL_US	(100 * USEC_PER_MSEC)
/*
 * sched fq: queues of flows that emptied, kept for the next flows that get
 * a packet.  When the link keeps up, nearly every packet finds its flow
 * idle, and a slab allocation and free of its queue for each would be a
 * large share of what sched fq adds to a packet's path (doc/benchmark.md);
 * a few dozen spares cover the flows that come and go within a dequeue or
 * two.
 */
#define DFS_FQ_SPARES		64
/*
 * sched fq: flow queues for the keys with more than one flow, as many as
 * fq_codel's flows, allocated while sched fq is in use; a key's first
 * flow uses the queue its struct dfs_fq_key embeds.
 */
#define DFS_FQ_POOL		1024
#define DFS_FQ_SETS		(DFS_FQ_POOL / DFS_FQ_WAYS)
/* a key's count of its pool queues, and of its queues above target */
static_assert(DFS_FQ_POOL < U16_MAX);
#define DFS_QUANTUM_MIN		256
#define DFS_QUANTUM_MAX		SZ_1M
/* A long-lived flow keeps at least this many counted (dfs_cpr.h) */
#define DFS_CPR_MIN_PACKETS_MAX	((DFS_CPR_PACKETS_MAX + 1) / 2)
/*
 * The verdict worker runs this long after the first event it finds: the
 * events of a burst go out together, and a qdisc sends at most
 * DFS_VERDICT_RING events a run, however many keys a flood gets flagged.
 */
#define DFS_VERDICT_DELAY_MS	10
/* Flows a verdict dump reads from the B-tree under the qdisc lock at a
 * time, a fraction of a millisecond.
 */
#define DFS_VERDICT_DUMP_BATCH	1024
/* Flows a call of a dump reads, once it has a key to send: a walk of a
 * large tree that finds few flagged keys goes out in many calls.
 */
#define DFS_VERDICT_DUMP_CALL	(16 * DFS_VERDICT_DUMP_BATCH)

struct dfs_skb_cb {
	struct dfs_flow	*flow;
	u32		time;		/* sched fq: enqueue, dfs_codel_time() */
	u32		mem;		/* truesize, as counted in memory_used */
};

/*
 * A flow of "sched fq": its queues, while it has packets, are in a struct
 * dfs_fq_key of its own (dfs_fq.h), so the flows that have nothing queued
 * cost 8 bytes more than in "sched fifo", not a whole queue each.
 */
struct dfs_flow_fq {
	struct dfs_flow		flow;
	struct dfs_fq_key	*fk;
};

/* A known flow's memory budget, its share of the B-tree included: 96
 * bytes in sched fifo, 128 in sched fq.
 */
static_assert(sizeof(struct dfs_flow) <= 80);
static_assert(sizeof(struct dfs_flow_fq) <= 88);
/* and a key with packets, at most 128 bytes */
static_assert(sizeof(struct dfs_fq_key) <= 128);
/* a qdisc's verdict events (dfs_verdict.h), one kmalloc-16k object */
static_assert(sizeof(struct dfs_verdicts) <= SZ_16K);

struct dfs_stats {
	u64	new_flows;
	u64	pruned;
	u64	ecn_marked;
	u64	drop_overlimit;
	u64	drop_malicious;
	u64	drop_wfs;
	u64	flows_overflow;
	u64	drop_nomem;
	u64	drop_overmemory;
	u64	drop_cpr;
	u64	drop_shared;	/* dfs_mq: flagged by another queue */
	u64	mq_unshared;	/* dfs_mq: flagged here, no room to mark */
};

struct dfs_sched_data {
	struct dfs_params	params;
	u32			flows_max;
	u32			key_mode;	/* enum tc_flowkey_mode */
	/* limit counts qdisc_pkt_len(); a flood of small packets pins far
	 * more memory than that, so the skbs' truesize is capped too.
	 */
	u32			memory_limit;
	u32			memory_used;
	bool			ecn;
	u32			prune_ms;
	u32			sched;		/* enum tc_dfs_sched */
	struct kmem_cache	*flow_cachep;	/* of the flows of sched */

	struct dfs_btree	btree;
	struct dfs_index	index;		/* over btree */
	struct dfs_cache	cache;
	struct dfs_meter	meter;
	struct dfs_flow_fq	overflow;	/* new flows past flows_max */
	u32			nflows;		/* in the B-tree and the cache */
	u32			malicious;
	u32			trending;
	u32			cpr_flows;	/* flagged DFS_F_CPR */
	u32			flagged;	/* DFS_F_FLAGGED: either flag */
	u32			wfs_ewma;

	/* CPR: the clock runs whatever cpr_mode says, as prune reads it. */
	u32			cpr_mode;	/* enum tc_dfs_cpr */
	struct dfs_cpr_params	cpr_params;
	struct dfs_cpr_clock	cpr_clock;

	/* Prune (Algorithm 2), incremental: a round walks the B-tree in key
	 * order from prune_cursor, DFS_PRUNE_BATCH flows per timer run.
	 */
	struct timer_list	prune_timer;
	struct Qdisc		*sch;
	u64			last_prune;	/* start of the last round */
	u32			last_prune_period; /* its CPR period */
	u32			prune_before;	/* idle since this period: prune */
	struct flowkey		prune_cursor;
	bool			prune_cursor_set;
	bool			prune_active;

	struct dfs_fq_sched	fq;
	struct dfs_fq_key	*fq_spare;	/* DFS_FQ_SPARES at most, by owner */
	u32			fq_spares;
	void			*fq_pool;	/* sched fq: DFS_FQ_SETS sets */
	u64			fq_seed[FLOWKEY_HASH_SEEDS]; /* connections' */
	struct dfs_fq_params	fq_params;
	struct dfs_fq_stats	fq_stats;
	u32			target_us;	/* as set: fq_params has */
	u32			interval_us;	/* them in CoDel's units */

	struct dfs_stats	stats;

	/* The index's size and fill, in index_work (dfs_index_work()): a
	 * fill walks the tree in order from index_cursor; index_retry is
	 * when to try again after an allocation failed.
	 */
	struct work_struct	index_work;
	struct flowkey		index_cursor;
	bool			index_cursor_set;
	bool			index_fill;
	unsigned long		index_retry;

	/* The verdict stream (dfs_verdict.h): the events of flag changes,
	 * sent by verdict_work; and this qdisc in the list a dump finds it
	 * in (dfs_verdict_qdiscs).
	 */
	struct dfs_verdicts	*verdicts;
	struct delayed_work	verdict_work;
	struct list_head	verdict_list;
	u32			verdict_readers; /* dumps in it */

	/* The dfs_mq root this is queue mq_queue of: the root alone
	 * configures it, and the keys it flags are marked there for all
	 * queues (dfs_mq.h).  The root's limit (mq_limit, what the queue
	 * dumps) is the buffer of the whole link, as one dfs's: each of the
	 * mq_queues queues takes an even part of it as its b (params.limit),
	 * as it takes a part of the link.
	 */
	struct dfs_mq		*mq;
	u16			mq_queue;
	u16			mq_queues;
	u32			mq_limit;
};

static struct kmem_cache *dfs_flow_cachep __read_mostly;
static struct kmem_cache *dfs_flow_fq_cachep __read_mostly;
static struct kmem_cache *dfs_fq_cachep __read_mostly;

static struct dfs_flow_fq *dfs_flow_fq(struct dfs_flow *flow)
{
	return container_of(flow, struct dfs_flow_fq, flow);
}

static bool dfs_fq_mode(const struct dfs_sched_data *q)
{
	return q->sched == TC_DFS_SCHED_FQ;
}

/*
 * dfs_mq, sched fq: the queues @flow's key is active on, as its share of
 * the round last had it (dfs_fq_slot()); 1 for any other.  Its fair rate
 * and its weight in n are by the share it gets (dfs_flow_weight()).
 */
static u32 dfs_key_split(struct dfs_sched_data *q, struct dfs_flow *flow)
{
	struct dfs_fq_key *k;

	if (likely(!q->mq) || !dfs_fq_mode(q))
		return 1;
	k = dfs_flow_fq(flow)->fk;
	return k && k->drr.split > 1 ? k->drr.split : 1;
}

static struct dfs_skb_cb *dfs_skb_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct dfs_skb_cb));
	return (struct dfs_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* Flow key of a packet (net/flowkey_skb.h, shared with cls_lrufq). */
static void dfs_classify(const struct dfs_sched_data *q,
			 const struct sk_buff *skb, struct flowkey *key)
{
	flowkey_from_skb(skb, q->key_mode, key);
}

static void dfs_count_flags(struct dfs_sched_data *q, u32 flags, int sign)
{
	if (flags & DFS_F_MALICIOUS)
		q->malicious += sign;
	if (flags & DFS_F_TRENDING)
		q->trending += sign;
	if (flags & DFS_F_CPR)
		q->cpr_flows += sign;
	if (flags & DFS_F_FLAGGED)
		q->flagged += sign;
}

/* What a flow is flagged for, as the uapi says it (TC_DFS_FLOW_*). */
static u16 dfs_verdict_reason(u32 flags)
{
	return (flags & DFS_F_MALICIOUS ? TC_DFS_FLOW_MALICIOUS : 0) |
	       (flags & DFS_F_CPR ? TC_DFS_FLOW_CPR : 0);
}

static void dfs_verdict_of(const struct dfs_sched_data *q,
			   const struct dfs_flow *flow,
			   struct dfs_verdict_event *ev)
{
	ev->key = flow->key;
	ev->rate = dfs_flow_bitrate(flow);
	ev->reason = dfs_verdict_reason(flow->flags);
	ev->key_mode = q->key_mode;
	ev->overflow = flow == &q->overflow.flow;
}

/*
 * Queue an event (the qdisc's lock held): no allocation, no message built
 * here, only a copy into the ring, which the worker drains.  A full ring
 * counts the event lost; the listeners are told to dump.
 */
static void dfs_verdict_queue(struct dfs_sched_data *q, u8 cmd,
			      const struct dfs_flow *flow, u32 old_flags,
			      u8 cause, u64 now)
{
	struct dfs_verdicts *v = q->verdicts;
	struct dfs_verdict_event *ev;
	bool idle;

	/* _bh: a qdisc being destroyed is reset with BH on */
	spin_lock_bh(&v->lock);
	ev = dfs_vring_add(&v->ring, &idle);
	if (ev) {
		ev->cmd = cmd;
		ev->time = now;
		if (flow) {
			dfs_verdict_of(q, flow, ev);
			if (cmd == DFS_VERDICT_CMD_RELEASE)
				ev->reason = dfs_verdict_reason(old_flags);
			ev->cause = cause;
		}
	}
	spin_unlock_bh(&v->lock);
	if (idle)
		queue_delayed_work(system_wq, &q->verdict_work,
				   msecs_to_jiffies(DFS_VERDICT_DELAY_MS));
}

/* The flow's flags were @old_flags: an event if what it is flagged for
 * changed.
 */
static void dfs_verdict_change(struct dfs_sched_data *q,
			       const struct dfs_flow *flow, u32 old_flags,
			       u64 now)
{
	bool flagged = flow->flags & DFS_F_FLAGGED;

	if (!((old_flags ^ flow->flags) & DFS_F_FLAGGED))
		return;
	dfs_verdict_queue(q, flagged ? DFS_VERDICT_CMD_FLAG :
				       DFS_VERDICT_CMD_RELEASE,
			  flow, old_flags, DFS_VERDICT_CAUSE_JUDGED, now);
	/* The overflow flow is no key: its sources are not known. */
	if (q->mq && flow != &q->overflow.flow &&
	    !dfs_mq_flags(q->mq, q->mq_queue, &flow->key, old_flags,
			  flow->flags))
		q->stats.mq_unshared++;
}

/* A flagged flow is pruned: forgotten, so no longer flagged. */
static void dfs_verdict_pruned(struct dfs_sched_data *q,
			       const struct dfs_flow *flow, u64 now)
{
	if (!(flow->flags & DFS_F_FLAGGED))
		return;
	dfs_verdict_queue(q, DFS_VERDICT_CMD_RELEASE, flow, flow->flags,
			  DFS_VERDICT_CAUSE_PRUNED, now);
	if (q->mq)
		dfs_mq_unmark(q->mq, q->mq_queue, &flow->key);
}

static void dfs_flow_free(struct dfs_sched_data *q, struct dfs_flow *flow)
{
	dfs_count_flags(q, flow->flags, -1);
	q->nflows--;
	kmem_cache_free(q->flow_cachep, flow);
}

/*
 * The index wants another size, or has a fill to go on with: index_work
 * does either.  Asked at each new flow and after a prune round, so that
 * a flood of new sources resizes it as soon as it is seven eighths full,
 * and the data path never allocates it.
 */
static void dfs_index_check_size(struct dfs_sched_data *q)
{
	if ((q->index_fill ||
	     dfs_index_want(&q->index, q->btree.count)) &&
	    time_after_eq(jiffies, READ_ONCE(q->index_retry)))
		queue_work(system_unbound_wq, &q->index_work);
}

/* Find the flow of a key, in the cache first (Algorithm 1, line 4). */
static struct dfs_flow *dfs_flow_get(struct dfs_sched_data *q,
				     const struct flowkey *key, u64 now)
{
	struct dfs_flow *flow;

	flow = dfs_repo_find(&q->cache, &q->index, &q->btree, key);
	if (flow)
		return flow;

	if (q->nflows >= q->flows_max)
		goto overflow;
	flow = kmem_cache_zalloc(q->flow_cachep, GFP_ATOMIC | __GFP_NOWARN);
	if (!flow)
		goto overflow;
	flow->key = *key;
	dfs_flow_init(flow, &q->params, now);
	dfs_cpr_flow_init(&q->cpr_clock, &flow->cpr);
	if (dfs_repo_insert(&q->index, &q->btree, flow)) {
		kmem_cache_free(q->flow_cachep, flow);
		goto overflow;
	}
	q->nflows++;
	q->stats.new_flows++;
	dfs_index_check_size(q);
	return flow;

overflow:
	q->stats.flows_overflow++;
	return &q->overflow.flow;
}

/* The cache or the tree, as the flow's p_m wants (the overflow flow is
 * in neither).
 */
static void dfs_flow_place(struct dfs_sched_data *q, struct dfs_flow *flow)
{
	if (flow != &q->overflow.flow)
		dfs_repo_place(&q->params, &q->cache, &q->index, &q->btree,
			       flow);
}

/* The packet of @flow is dropped or CE marked as congestion: the flow
 * wants more than it gets (dfs_meter_seen()), and the period is congested
 * (CPR).
 */
static void dfs_congested(struct dfs_sched_data *q, struct dfs_flow *flow)
{
	dfs_flow_congested(flow);
	dfs_cpr_congest(&q->cpr_clock);
}

/*
 * Hold the flow while its CPR is over tau; let it go, judged afresh, if
 * it backs off while held (dfs_cpr.h).
 */
static void dfs_cpr_judge(struct dfs_sched_data *q, struct dfs_flow *flow,
			  u64 now)
{
	bool held = flow->flags & DFS_F_CPR;

	if (q->cpr_mode == TC_DFS_CPR_OFF) {
		if (unlikely(held))
			flow->flags &= ~DFS_F_CPR;
		return;
	}
	if (held && now - flow->win_start >= DFS_CPR_HOLD_NS) {
		u64 rate = div64_u64((u64)flow->win_bytes * NSEC_PER_SEC,
				     now - flow->win_start);

		dfs_flow_set_bitrate(flow, rate);
		if (dfs_cpr_backed_off(flow->win_bytes))
			dfs_cpr_forget(&flow->cpr);
		flow->win_start = now;
		flow->win_bytes = 0;
	}
	if (!dfs_cpr_suspect(&q->cpr_clock, &q->cpr_params, &flow->cpr,
			     held)) {
		flow->flags &= ~DFS_F_CPR;
		return;
	}
	/* The hold's window starts with the bytes of the flow's last rate
	 * window, this packet's too: a hold that begins at a burst's last
	 * packet does not close on the next burst's first as backing off.
	 */
	if (!held) {
		flow->flags |= DFS_F_CPR;
		flow->win_start = now;
	}
}

static const struct dfs_fq_ops dfs_fq_ops;

/* CoDel's drops since the parents last heard, with a packet queued. */
static void dfs_fq_tell_drops(struct dfs_sched_data *q, struct Qdisc *sch)
{
	qdisc_tree_reduce_backlog(sch, q->fq_stats.drop_count,
				  q->fq_stats.drop_len);
	q->fq_stats.drop_count = 0;
	q->fq_stats.drop_len = 0;
}

/*
 * sched fq: the queue of @skb's connection in its key's, giving the key a
 * struct dfs_fq_key (a new key for the scheduler) if it has none; NULL
 * when there is no memory for one.  dfs_fq_link() puts @skb in it.
 */
static struct dfs_fq *dfs_fq_slot(struct dfs_sched_data *q,
				  struct sk_buff *skb, struct dfs_flow *flow,
				  bool new_epoch)
{
	struct dfs_flow_fq *ff = dfs_flow_fq(flow);
	struct dfs_fq_key *k = ff->fk;

	if (!k) {
		k = q->fq_spare;
		if (k) {
			q->fq_spare = k->owner;
			q->fq_spares--;
		} else {
			k = kmem_cache_alloc(dfs_fq_cachep,
					     GFP_ATOMIC | __GFP_NOWARN);
			if (!k)
				return NULL;
		}
		ff->fk = k;
		dfs_fq_activate(&q->fq, &q->fq_params, &q->fq_stats, k, flow);
		new_epoch = true;
	}
	/* dfs_mq: the key's share of this queue's round, by the queues it
	 * is active on, each time it comes back and once an epoch.
	 */
	if (unlikely(q->mq) && new_epoch && flow != &q->overflow.flow)
		dfs_fq_key_split(k, dfs_mq_spread(q->mq, q->mq_queue,
						  &flow->key));
	return dfs_fq_queue(&q->fq, &q->fq_params, &q->fq_stats, k, skb,
			    &dfs_fq_ops, q->sch);
}

static void dfs_fq_link(struct dfs_fq *fq, struct sk_buff *skb, u64 now)
{
	skb->next = NULL;
	if (fq->tail)
		((struct sk_buff *)fq->tail)->next = skb;
	else
		fq->head = skb;
	fq->tail = skb;
	dfs_skb_cb(skb)->time = dfs_codel_time(now);
}

/*
 * Algorithm 3's drop, moved off a packet of a connection with nothing
 * queued onto the head of the key's queue @bulk (dfs_fq_key_bulk()).
 * Taken once that packet is in, so that the qdisc is not empty while
 * its parents hear of the drop: a parent that saw it empty would take
 * the class for idle (its qlen_notify) with a packet in it.
 */
static void dfs_fq_shed(struct dfs_sched_data *q, struct Qdisc *sch,
			struct dfs_fq *bulk, struct sk_buff **to_free)
{
	struct sk_buff *skb = dfs_fq_ops.pop(sch, bulk);

	q->stats.drop_wfs++;
	q->fq_stats.drop_count++;
	q->fq_stats.drop_len += qdisc_pkt_len(skb);
	qdisc_drop(skb, sch, to_free);
}

static int dfs_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	const struct dfs_params *p = &q->params;
	unsigned int len = qdisc_pkt_len(skb);
	struct dfs_fq *fq = NULL, *bulk = NULL;
	enum dfs_verdict verdict;
	struct dfs_flow *flow;
	struct flowkey key;
	u64 now = ktime_get_ns();
	u32 wfs, flags, epoch, split, meter_epoch = q->meter.epoch;
	u64 fair_rate;

	dfs_meter_tick(&q->meter, now, p->rate_interval_ns);
	/* dfs_mq: a new epoch, and this queue's part of the link anew */
	if (unlikely(q->mq) && q->meter.epoch != meter_epoch)
		dfs_mq_link_part(q->mq, q->mq_queue, q->meter.busy_part,
				 dfs_meter_load(p, &q->meter),
				 &q->meter.link_part, &q->meter.link_part_r);
	dfs_cpr_tick(&q->cpr_clock, &q->cpr_params, now);
	dfs_cpr_link(&q->cpr_clock, &q->cpr_params,
		     dfs_link_rate(p, &q->meter));
	dfs_classify(q, skb, &key);
	/* Another queue of dfs_mq flagged the key: refused before it takes
	 * a flow here, as this queue's own verdict would refuse it.
	 */
	if (unlikely(q->mq) && dfs_mq_refused(q->mq, q->mq_queue, &key)) {
		q->stats.drop_shared++;
		goto refuse;
	}
	flow = dfs_flow_get(q, &key, now);
	/* A held flow's bytes are counted over its hold in one bitrate
	 * window, which dfs_cpr_judge() closes each DFS_CPR_HOLD_NS: a rate
	 * over bursts and the gaps between them, whatever the flow's phase.
	 */
	if (flow->flags & DFS_F_CPR)
		dfs_flow_add_bytes(flow, len);
	else
		dfs_flow_arrival(flow, now, len, p->rate_interval_ns);
	dfs_cpr_packet(&q->cpr_clock, &flow->cpr);

	wfs = dfs_wfs(p->limit, sch->qstats.backlog,
		      dfs_meter_active(&q->meter));
	q->wfs_ewma = dfs_wfs_ewma(q->wfs_ewma, wfs, p->beta);

	/* A flow DFS drops is judged by the fair rate it would have if
	 * let in (dfs_fair_rate_readmitted()).
	 */
	dfs_meter_update(p, &q->meter);
	flags = flow->flags;
	split = dfs_key_split(q, flow);
	fair_rate = flags & DFS_F_MALICIOUS ? q->meter.fair_r : q->meter.fair;
	verdict = dfs_decide(p, flow, now, q->wfs_ewma,
			     dfs_fair_split(fair_rate, split));
	dfs_cpr_judge(q, flow, now);
	if (flags != flow->flags) {
		dfs_count_flags(q, flags, -1);
		dfs_count_flags(q, flow->flags, 1);
		dfs_verdict_change(q, flow, flags, now);
	}
	dfs_flow_place(q, flow);
	/* A flow DFS drops takes no part of the link: not one of the n
	 * that share it (Eq. 1's b / n, the fair rate), but counted apart.
	 */
	if (verdict == DFS_DROP) {
		dfs_meter_seen_dropped(&q->meter, flow, split);
		q->stats.drop_malicious++;
		goto refuse;
	}
	dfs_cpr_arrive(&q->cpr_clock, &flow->cpr, len);
	/* Nor does a flow CPR drops; and neither drop is congestion. */
	if (flow->flags & DFS_F_CPR) {
		dfs_cpr_hold(&flow->cpr);
		q->stats.drop_cpr++;
		goto refuse;
	}
	if (verdict == DFS_MARK)
		dfs_congested(q, flow);
	epoch = flow->epoch;
	dfs_meter_seen(&q->meter, flow, split);

	if (unlikely(sch->qstats.backlog + len > p->limit)) {
		q->stats.drop_overlimit++;
		dfs_congested(q, flow);
		return qdisc_drop(skb, sch, to_free);
	}
	if (unlikely((u64)q->memory_used + skb->truesize > q->memory_limit)) {
		q->stats.drop_overmemory++;
		dfs_congested(q, flow);
		return qdisc_drop(skb, sch, to_free);
	}
	if (dfs_fq_mode(q)) {
		fq = dfs_fq_slot(q, skb, flow, flow->epoch != epoch);
		if (!fq) {
			q->stats.drop_nomem++;
			return qdisc_drop(skb, sch, to_free);
		}
	}
	if (verdict == DFS_MARK) {
		if (!q->ecn || !INET_ECN_set_ce(skb)) {
			/* sched fq: a connection with nothing queued keeps
			 * its packet, and the key's bulk queue takes the
			 * signal (dfs_fq_key_bulk()), a CE mark if it can
			 */
			bulk = fq ? dfs_fq_key_bulk(dfs_flow_fq(flow)->fk, fq) :
				    NULL;
			if (!bulk) {
				q->stats.drop_wfs++;
				goto congestion_drop;
			}
			if (q->ecn && INET_ECN_set_ce(bulk->head)) {
				q->stats.ecn_marked++;
				bulk = NULL;
			}
		} else {
			q->stats.ecn_marked++;
		}
	}
	if (fq)
		dfs_fq_link(fq, skb, now);
	/* Not "queue empty": in sched fq a parent's peek holds the head
	 * packet in gso_skb, counted in qlen, after dequeue saw it empty.
	 */
	if (!q->meter.busy)
		dfs_meter_busy(&q->meter, now);
	flow->backlog += len;
	dfs_skb_cb(skb)->flow = flow;
	dfs_skb_cb(skb)->mem = skb->truesize;
	q->memory_used += skb->truesize;
	if (fq) {
		sch->q.qlen++;
		qdisc_qstats_backlog_inc(sch, skb);
		if (unlikely(bulk))
			dfs_fq_shed(q, sch, bulk, to_free);
		/* drops of a dequeue that emptied the qdisc: the parent's
		 * backlog held them until now (dfs_dequeue()), and the shed
		 */
		if (unlikely(q->fq_stats.drop_count))
			dfs_fq_tell_drops(q, sch);
		return NET_XMIT_SUCCESS;
	}
	return qdisc_enqueue_tail(skb, sch);

refuse:
	/* let in, the link would have carried it (dfs_meter_load()) */
	q->meter.refused_bytes += len;
congestion_drop:
	qdisc_drop(skb, sch, to_free);
	return NET_XMIT_CN;
}

/* The packet leaves its flow's backlog (Algorithm 1's counterpart:
 * sz_i -= size_p) and the queue's memory.
 */
static void dfs_skb_leave_flow(struct dfs_sched_data *q, struct sk_buff *skb)
{
	dfs_skb_cb(skb)->flow->backlog -= qdisc_pkt_len(skb);
	q->memory_used -= dfs_skb_cb(skb)->mem;
}

/* The packet operations of the flow scheduler (dfs_fq.h); ctx is sch. */
static __always_inline void *dfs_fq_pop(void *ctx, struct dfs_fq *fq)
{
	struct Qdisc *sch = ctx;
	struct sk_buff *skb = fq->head;

	if (!skb)
		return NULL;
	fq->head = skb->next;
	if (!fq->head)
		fq->tail = NULL;
	skb_mark_not_on_list(skb);
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	dfs_skb_leave_flow(qdisc_priv(sch), skb);
	return skb;
}

static u32 dfs_fq_len(const void *skb)
{
	return qdisc_pkt_len(skb);
}

static u32 dfs_fq_time(const void *skb)
{
	return dfs_skb_cb(skb)->time;
}

/* CoDel's signals count as the flow's congestion (dfs_meter_seen()). */
static bool dfs_fq_mark(void *skb)
{
	if (!INET_ECN_set_ce(skb))
		return false;
	dfs_flow_congested(dfs_skb_cb(skb)->flow);
	return true;
}

static void dfs_fq_drop(void *ctx, void *skb)
{
	dfs_flow_congested(dfs_skb_cb(skb)->flow);
	kfree_skb(skb);
	qdisc_qstats_drop(ctx);
}

/* The key left the scheduler, empty: its queues go, to the spares
 * while there is room.
 */
static void dfs_fq_release(void *ctx, struct dfs_fq_key *k)
{
	struct Qdisc *sch = ctx;
	struct dfs_sched_data *q = qdisc_priv(sch);

	dfs_flow_fq(k->owner)->fk = NULL;
	if (q->fq_spares < DFS_FQ_SPARES) {
		k->owner = q->fq_spare;	/* a spare's is the next spare */
		q->fq_spare = k;
		q->fq_spares++;
		return;
	}
	kmem_cache_free(dfs_fq_cachep, k);
}

static void dfs_fq_spares_free(struct dfs_sched_data *q)
{
	struct dfs_fq_key *k;

	while ((k = q->fq_spare)) {
		q->fq_spare = k->owner;
		kmem_cache_free(dfs_fq_cachep, k);
	}
	q->fq_spares = 0;
}

/*
 * The hash of a packet's connection, for a key that has packets queued
 * (dfs_fq_queue()): a plain packet is read as a 5-tuple, as classify
 * reads it (flowkey_from_skb_fast()), and hashed with the qdisc's seeds;
 * skb_get_hash() would dissect a packet that has no hash yet (a
 * forwarded one without the NIC's) from the start.  Others, left to the
 * dissector, take skb_get_hash().  With key 5tuple a key is one
 * connection.
 */
static u32 dfs_fq_hash(void *ctx, void *skb)
{
	struct Qdisc *sch = ctx;
	struct dfs_sched_data *q = qdisc_priv(sch);
	struct flowkey key;

	if (q->key_mode == TC_FLOWKEY_5TUPLE)
		return 0;
	memset(&key, 0, sizeof(key));
	if (likely(flowkey_from_skb_fast(skb, TC_FLOWKEY_5TUPLE, &key)))
		return flowkey_hash(&key, q->fq_seed);
	return skb_get_hash(skb);
}

static const struct dfs_fq_ops dfs_fq_ops = {
	.hash		= dfs_fq_hash,
	.pop		= dfs_fq_pop,
	.len		= dfs_fq_len,
	.time		= dfs_fq_time,
	.mark		= dfs_fq_mark,
	.drop		= dfs_fq_drop,
	.release	= dfs_fq_release,
};

/* Reset and destroy free what is queued: no drop counted. */
static void dfs_fq_free(void *ctx, void *skb)
{
	rtnl_kfree_skbs(skb, skb);
}

static const struct dfs_fq_ops dfs_fq_purge_ops = {
	.pop		= dfs_fq_pop,
	.drop		= dfs_fq_free,
	.release	= dfs_fq_release,
};

static struct sk_buff *dfs_fq_next(struct Qdisc *sch, u64 now)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	return dfs_fq_dequeue(&q->fq, &q->fq_params, &q->fq_stats,
			      &dfs_fq_ops, sch, &sch->qstats.backlog,
			      dfs_codel_time(now));
}

/* sched fq, empty: let go of the flows left in the lists (dfs_dequeue()). */
static void dfs_fq_idle(struct dfs_sched_data *q, struct Qdisc *sch)
{
	if (q->fq.count)
		dfs_fq_release_idle(&q->fq, &dfs_fq_ops, sch);
}

static struct sk_buff *dfs_dequeue(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now = 0;		/* fifo reads the clock only to go idle */

	if (dfs_fq_mode(q)) {
		u64 signals = q->fq_stats.codel_drops + q->fq_stats.codel_marks;

		/* A parent polls after every packet it took (TBF's peek,
		 * __qdisc_run()): empty, DFS answers without a clock read,
		 * which was a quarter of its clock reads under a TBF.  It
		 * lets go of the flows its last packets left in the lists,
		 * as the walk of a dequeue would: left there, they piled up
		 * in the old list while every packet came from a new flow
		 * (1M flows, each holding a queue).
		 */
		if (!sch->q.qlen) {
			dfs_fq_idle(q, sch);
			return NULL;
		}
		now = ktime_get_ns();
		skb = dfs_fq_next(sch, now);
		/* CoDel's drops and marks are congestion too (CPR) */
		if (q->fq_stats.codel_drops + q->fq_stats.codel_marks != signals) {
			dfs_cpr_tick(&q->cpr_clock, &q->cpr_params, now);
			dfs_cpr_congest(&q->cpr_clock);
		}
		/* As fq_codel: a parent (HTB) must not hear of drops while
		 * this qdisc is empty; they are told with a packet queued.
		 */
		if (q->fq_stats.drop_count && sch->q.qlen)
			dfs_fq_tell_drops(q, sch);
		if (skb)
			qdisc_bstats_update(sch, skb);
	} else {
		skb = qdisc_dequeue_head(sch);
		if (skb)
			dfs_skb_leave_flow(q, skb);
	}
	if (skb) {
		q->meter.deq_bytes += qdisc_pkt_len(skb);
		if (!sch->q.qlen)
			dfs_meter_idle(&q->meter, now ?: ktime_get_ns());
	}
	return skb;
}

/*
 * A parent's peek (TBF's, for every packet it may send) of an empty sched
 * fq is answered here: qdisc_peek_dequeued() would call dfs_dequeue() to
 * find nothing, a tenth of what DFS ran for a flood packet it refused.  A
 * packet held by a peek is in sch->q.qlen, so an empty qlen holds none.
 */
static struct sk_buff *dfs_peek(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	if (!dfs_fq_mode(q))
		return qdisc_peek_head(sch);
	if (!sch->q.qlen) {
		dfs_fq_idle(q, sch);
		return NULL;
	}
	return qdisc_peek_dequeued(sch);
}

static void dfs_free_flow_cb(struct dfs_flow *flow, void *arg)
{
	dfs_flow_free(arg, flow);
}

/*
 * A B-tree of flows to free, taken from a qdisc being reset or destroyed:
 * up to "flows" (16M) flows and their nodes, which reset would otherwise
 * free under the qdisc lock with BH off, for a second or more.  The
 * flows hold no packets by then (sched fq's queues are purged first).
 */
struct dfs_grave {
	struct work_struct	work;
	struct dfs_btree	tree;
	void			*index;		/* the index's memory */
	struct kmem_cache	*cachep;	/* of its flows */
	u32			freed;
};

/* Drained by module exit before the flow caches go. */
static struct workqueue_struct *dfs_free_wq;

static void dfs_grave_free_flow(struct dfs_flow *flow, void *arg)
{
	struct dfs_grave *g = arg;

	kmem_cache_free(g->cachep, flow);
	if (!(++g->freed % DFS_FREE_INLINE))
		cond_resched();
}

static void dfs_grave_work(struct work_struct *work)
{
	struct dfs_grave *g = container_of(work, struct dfs_grave, work);

	dfs_btree_destroy(&g->tree, dfs_grave_free_flow, g);
	kvfree(g->index);
	kfree(g);
}

/* Hand a large B-tree, and its index, to the worker; a small one, or one
 * without memory for the hand-over, is freed here, the index emptied.
 * An index handed over is replaced by none: index_work sizes the next.
 */
static void dfs_btree_bury(struct dfs_sched_data *q)
{
	struct dfs_grave *g;

	q->index_fill = false;
	q->index_cursor_set = false;
	if (q->btree.count > DFS_FREE_INLINE ||
	    dfs_index_buckets(&q->index) > DFS_INDEX_INLINE) {
		g = kzalloc(sizeof(*g), GFP_ATOMIC | __GFP_NOWARN);
		if (g) {
			INIT_WORK(&g->work, dfs_grave_work);
			g->tree = q->btree;
			g->index = q->index.b;
			g->cachep = q->flow_cachep;
			q->nflows -= q->btree.count;
			dfs_btree_init(&q->btree, q->btree.order);
			dfs_index_set(&q->index, NULL, 0);
			queue_work(dfs_free_wq, &g->work);
			return;
		}
	}
	dfs_btree_destroy(&q->btree, dfs_free_flow_cb, q);
	dfs_index_clear(&q->index);
}

/* Forget every flow, and free what sched fq still holds. */
static void dfs_flows_destroy(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	u32 i;

	/* One event says every key of the qdisc is released, however many
	 * were flagged: the flows go without one each.
	 */
	if (q->flagged)
		dfs_verdict_queue(q, DFS_VERDICT_CMD_FLUSH, NULL, 0, 0,
				  ktime_get_ns());
	if (q->mq)
		dfs_mq_unmark_queue(q->mq, q->mq_queue);
	dfs_fq_purge(&q->fq, &dfs_fq_purge_ops, sch);
	q->fq_stats.drop_count = 0;
	q->fq_stats.drop_len = 0;
	for (i = 0; i < q->cache.size; i++) {
		struct dfs_flow *flow = dfs_cache_at(&q->cache, i);

		if (flow) {
			dfs_cache_remove(&q->cache, flow);
			dfs_flow_free(q, flow);
		}
	}
	dfs_btree_bury(q);
	memset(&q->overflow, 0, sizeof(q->overflow));
	dfs_flow_init(&q->overflow.flow, &q->params, ktime_get_ns());
	dfs_cpr_flow_init(&q->cpr_clock, &q->overflow.flow.cpr);
	q->malicious = 0;
	q->trending = 0;
	q->cpr_flows = 0;
	q->flagged = 0;
	q->prune_active = false;
}

/* The meter starts over; a loss makes a flow whole in one queue only. */
static void dfs_meter_start(struct dfs_sched_data *q, u64 now)
{
	dfs_meter_init(&q->meter, now);
	q->meter.one_queue = !dfs_fq_mode(q);
}

static void dfs_reset(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	dfs_flows_destroy(sch);		/* and sched fq's queues */
	qdisc_reset_queue(sch);
	sch->qstats.backlog = 0;	/* qdisc_reset_queue leaves it */
	q->memory_used = 0;
	dfs_meter_start(q, ktime_get_ns());
	q->wfs_ewma = q->params.limit;
}

/* Drop queued packets, oldest first, until the backlog fits the limit
 * and the skbs fit memory_limit.
 *
 * The oldest may be one the driver handed back (sch->gso_skb, when DFS is
 * the root qdisc and the device pushed back): it is counted in the qdisc's
 * backlog, but it left its flow when it was dequeued, and that flow may
 * have been pruned since.  It goes first, without touching a flow.
 */
static void dfs_trim_queue(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	unsigned int qlen = sch->q.qlen, backlog = sch->qstats.backlog;
	u64 now = ktime_get_ns();
	/* CoDel's drops below are in the difference reported at the end */
	u32 drop_count = q->fq_stats.drop_count;
	u32 drop_len = q->fq_stats.drop_len;

	while (sch->qstats.backlog > q->params.limit ||
	       q->memory_used > q->memory_limit) {
		bool overlimit = sch->qstats.backlog > q->params.limit;
		struct sk_buff *skb = __skb_dequeue(&sch->gso_skb);

		/* As qdisc_dequeue_internal(sch, true) does in its final
		 * form; the stable kernels carry it in two, and the first
		 * (6.12.95's) leaves the backlog to its caller.
		 */
		if (skb) {
			sch->q.qlen--;
			qdisc_qstats_backlog_dec(sch, skb);
		} else if (dfs_fq_mode(q)) {
			skb = dfs_fq_next(sch, now);
			if (!skb)
				break;
		} else {
			skb = qdisc_dequeue_head(sch);
			if (!skb)
				break;
			dfs_skb_leave_flow(q, skb);
		}
		if (overlimit)
			q->stats.drop_overlimit++;
		else
			q->stats.drop_overmemory++;
		rtnl_qdisc_drop(skb, sch);
	}
	q->fq_stats.drop_count = drop_count;
	q->fq_stats.drop_len = drop_len;
	if (!sch->q.qlen)
		dfs_meter_idle(&q->meter, now);
	qdisc_tree_reduce_backlog(sch, qlen - sch->q.qlen,
				  backlog - sch->qstats.backlog);
}

/* A flow still in sched fq's lists (empty, until its turn) is not idle. */
static bool dfs_flow_idle(const struct dfs_sched_data *q,
			  struct dfs_flow *flow)
{
	return !flow->backlog &&
	       dfs_cpr_idle_before(&flow->cpr, q->prune_before) &&
	       !(dfs_fq_mode(q) && dfs_flow_fq(flow)->fk);
}

/* One batch of Algorithm 2; returns true while the round goes on. */
static bool dfs_prune_batch(struct dfs_sched_data *q, u64 now)
{
	u32 budget = DFS_PRUNE_BATCH;
	struct dfs_flow *flow;

	while (budget--) {
		flow = dfs_btree_next(&q->btree, q->prune_cursor_set ?
				      &q->prune_cursor : NULL);
		if (!flow)
			return false;
		q->prune_cursor = flow->key;
		q->prune_cursor_set = true;
		if (dfs_flow_idle(q, flow)) {
			dfs_verdict_pruned(q, flow, now);
			dfs_repo_remove(&q->index, &q->btree, flow);
			dfs_flow_free(q, flow);
			q->stats.pruned++;
		}
	}
	return true;
}

static void dfs_prune_start(struct dfs_sched_data *q, u64 now)
{
	u32 i;

	dfs_cpr_tick(&q->cpr_clock, &q->cpr_params, now);
	q->prune_before = q->last_prune_period;
	q->last_prune = now;
	q->last_prune_period = q->cpr_clock.cur;
	for (i = 0; i < q->cache.size; i++) {
		struct dfs_flow *flow = dfs_cache_at(&q->cache, i);

		if (flow && dfs_flow_idle(q, flow)) {
			dfs_verdict_pruned(q, flow, now);
			dfs_cache_remove(&q->cache, flow);
			dfs_flow_free(q, flow);
			q->stats.pruned++;
		}
	}
	q->prune_cursor_set = false;
	q->prune_active = true;
}

static void dfs_prune_timer(struct timer_list *t)
{
	struct dfs_sched_data *q = timer_container_of(q, t, prune_timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock;	/* the root qdisc's, found under RCU */
	unsigned long next;
	u64 now = ktime_get_ns();

	/* The root qdisc pointer is RCU protected (as in sch_red.c and
	 * sch_pie.c's timers): lockdep's RCU checking says so otherwise.
	 */
	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);
	if (!q->prune_active &&
	    now - q->last_prune >= (u64)q->prune_ms * NSEC_PER_MSEC)
		dfs_prune_start(q, now);
	if (q->prune_active) {
		q->prune_active = dfs_prune_batch(q, now);
		if (!q->prune_active)
			dfs_index_check_size(q);	/* fewer flows */
	}
	/* Go on at once while a round is under way, else check again in a
	 * tenth of the interval (at most a second late).
	 */
	if (q->prune_active)
		next = 1;
	else
		next = min_t(unsigned long,
			     msecs_to_jiffies(q->prune_ms) / 10 + 1, HZ);
	spin_unlock(root_lock);
	rcu_read_unlock();

	mod_timer(&q->prune_timer, jiffies + next);
}

/*
 * index_work: a new index of the size the flows want, put in place of the
 * old under the qdisc lock, then filled from the tree a batch at a time,
 * each under the lock (as the prune walks it), while packets look in the
 * tree for what it lacks.  The memory is allocated here, where it may
 * sleep: vmalloc's, past a few pages.
 */
static void dfs_index_work(struct work_struct *work)
{
	struct dfs_sched_data *q = container_of(work, struct dfs_sched_data,
						index_work);
	spinlock_t *root_lock;	/* the root qdisc's, found under RCU */
	void *mem = NULL;
	bool more;
	u32 want;

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(q->sch));
	spin_lock_bh(root_lock);
	want = dfs_index_want(&q->index, q->btree.count);
	spin_unlock_bh(root_lock);
	rcu_read_unlock();

	if (want) {
		mem = kvzalloc(dfs_index_size(want), GFP_KERNEL | __GFP_NOWARN);
		if (!mem) {
			WRITE_ONCE(q->index_retry, jiffies + HZ);
			return;
		}
	}
	do {
		rcu_read_lock();
		root_lock = qdisc_lock(qdisc_root_sleeping(q->sch));
		spin_lock_bh(root_lock);
		/* the flows may have come or gone meanwhile: then not now */
		if (mem && dfs_index_want(&q->index, q->btree.count) == want) {
			swap(mem, q->index.b);
			dfs_index_set(&q->index, q->index.b, want);
			q->index_cursor_set = false;
			q->index_fill = true;
		}
		more = q->index_fill &&
		       dfs_repo_fill(&q->index, &q->btree, &q->index_cursor,
				     &q->index_cursor_set, DFS_INDEX_BATCH);
		q->index_fill = more;
		spin_unlock_bh(root_lock);
		rcu_read_unlock();
		kvfree(mem);	/* the old index's, or the one not put in */
		mem = NULL;
		cond_resched();
	} while (more);
}

/* A queue's even part of the root's limit, never under dfs's least. */
static u32 dfs_mq_part(u32 limit, u16 queues)
{
	return max_t(u32, limit / max_t(u16, queues, 1), DFS_LIMIT_MIN);
}

static const struct netlink_range_validation dfs_limit_range = {
	.min = DFS_LIMIT_MIN, .max = DFS_LIMIT_MAX,
};

static const struct netlink_range_validation dfs_memory_range = {
	.min = DFS_MEMORY_MIN, .max = U32_MAX,
};

static const struct netlink_range_validation dfs_flows_range = {
	.min = 1, .max = DFS_FLOWS_MAX,
};

static const struct netlink_range_validation dfs_order_range = {
	.min = DFS_BTREE_ORDER_MIN, .max = DFS_BTREE_ORDER_MAX,
};

static const struct netlink_range_validation dfs_cache_range = {
	.min = 0, .max = DFS_CACHE_MAX,
};

static const struct netlink_range_validation dfs_fraction_range = {
	.min = 0, .max = TC_DFS_ONE,
};

static const struct netlink_range_validation dfs_step_range = {
	.min = 1, .max = TC_DFS_ONE,
};

static const struct netlink_range_validation dfs_freeze_range = {
	.min = 0, .max = 10 * USEC_PER_SEC,
};

static const struct netlink_range_validation dfs_tolerance_range = {
	.min = 0, .max = 1000,
};

static const struct netlink_range_validation dfs_prune_range = {
	.min = MSEC_PER_SEC, .max = 7 * 24 * 3600 * MSEC_PER_SEC,
};

static const struct netlink_range_validation dfs_rate_interval_range = {
	.min = USEC_PER_MSEC, .max = 10 * USEC_PER_SEC,
};

static const struct netlink_range_validation dfs_bandwidth_range = {
	.min = 0, .max = DFS_BANDWIDTH_MAX,
};

static const struct netlink_range_validation dfs_quantum_range = {
	.min = DFS_QUANTUM_MIN, .max = DFS_QUANTUM_MAX,
};

/* CoDel's: 1 us to 1 s of target, 1 ms to 10 s of interval */
static const struct netlink_range_validation dfs_target_range = {
	.min = 1, .max = USEC_PER_SEC,
};

static const struct netlink_range_validation dfs_interval_range = {
	.min = USEC_PER_MSEC, .max = 10 * USEC_PER_SEC,
};

/* 0 (from the link's rate) or 1 ms to 1 s: dfs_config_check() */
static const struct netlink_range_validation dfs_cpr_period_range = {
	.min = 0, .max = USEC_PER_SEC,
};

static const struct netlink_range_validation dfs_cpr_min_packets_range = {
	.min = 1, .max = DFS_CPR_MIN_PACKETS_MAX,
};

static const struct nla_policy dfs_policy[TCA_DFS_MAX + 1] = {
	[TCA_DFS_LIMIT]		= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_limit_range),
	[TCA_DFS_FLOWS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_flows_range),
	[TCA_DFS_ORDER]		= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_order_range),
	[TCA_DFS_CACHE]		= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_cache_range),
	[TCA_DFS_KEY]		= NLA_POLICY_MAX(NLA_U32, TC_FLOWKEY_MAX),
	[TCA_DFS_MAX_TH]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_step_range),
	[TCA_DFS_MIN_TH]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_fraction_range),
	[TCA_DFS_DELTA_I]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_step_range),
	[TCA_DFS_DELTA_D]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_step_range),
	[TCA_DFS_FREEZE_TIME]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_freeze_range),
	[TCA_DFS_TOLERANCE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_tolerance_range),
	[TCA_DFS_BETA]		= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_step_range),
	[TCA_DFS_PRUNE_INTERVAL] = NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_prune_range),
	[TCA_DFS_RATE_INTERVAL]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dfs_rate_interval_range),
	[TCA_DFS_ECN]		= NLA_POLICY_MAX(NLA_U32, 1),
	[TCA_DFS_BANDWIDTH]	= NLA_POLICY_FULL_RANGE(NLA_U64,
							&dfs_bandwidth_range),
	[TCA_DFS_SCHED]		= NLA_POLICY_MAX(NLA_U32, TC_DFS_SCHED_MAX),
	[TCA_DFS_QUANTUM]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_quantum_range),
	[TCA_DFS_TARGET]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_target_range),
	[TCA_DFS_INTERVAL]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dfs_interval_range),
	[TCA_DFS_MEMORY_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dfs_memory_range),
	[TCA_DFS_CPR]		= NLA_POLICY_MAX(NLA_U32, TC_DFS_CPR_MAX),
	[TCA_DFS_CPR_PERIOD]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dfs_cpr_period_range),
	[TCA_DFS_CPR_TAU]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_fraction_range),
	[TCA_DFS_CPR_ALPHA]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_fraction_range),
	[TCA_DFS_CPR_BETA]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_fraction_range),
	[TCA_DFS_CPR_TAU_MIN]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_fraction_range),
	[TCA_DFS_CPR_TAU_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dfs_fraction_range),
	[TCA_DFS_CPR_MIN_PACKETS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						&dfs_cpr_min_packets_range),
	[TCA_DFS_CPR_SIGNAL]	= NLA_POLICY_MAX(NLA_U32, TC_DFS_CPR_SIGNAL_MAX),
};

/* Everything "change" may set, so it can be checked before it is applied. */
struct dfs_config {
	struct dfs_params	params;
	u32			flows_max;
	u32			order;
	u32			cache_size;
	u32			key_mode;
	u32			prune_ms;
	u32			sched;
	u32			quantum;
	u32			target_us;
	u32			interval_us;
	u32			memory_limit;
	bool			ecn;
	u32			cpr_mode;
	struct dfs_cpr_params	cpr;
};

static void dfs_config_get(const struct dfs_sched_data *q,
			   struct dfs_config *c)
{
	c->params = q->params;
	if (q->mq)
		c->params.limit = q->mq_limit;
	c->flows_max = q->flows_max;
	c->order = q->btree.order;
	c->cache_size = q->cache.size;
	c->key_mode = q->key_mode;
	c->prune_ms = q->prune_ms;
	c->sched = q->sched;
	c->quantum = q->fq_params.quantum;
	c->target_us = q->target_us;
	c->interval_us = q->interval_us;
	c->memory_limit = q->memory_limit;
	c->ecn = q->ecn;
	c->cpr_mode = q->cpr_mode;
	c->cpr = q->cpr_params;
}

static void dfs_config_parse(struct nlattr **tb, struct dfs_config *c)
{
	struct dfs_params *p = &c->params;

	if (tb[TCA_DFS_LIMIT])
		p->limit = nla_get_u32(tb[TCA_DFS_LIMIT]);
	if (tb[TCA_DFS_FLOWS])
		c->flows_max = nla_get_u32(tb[TCA_DFS_FLOWS]);
	if (tb[TCA_DFS_ORDER])
		c->order = nla_get_u32(tb[TCA_DFS_ORDER]);
	if (tb[TCA_DFS_CACHE])
		c->cache_size = nla_get_u32(tb[TCA_DFS_CACHE]);
	if (tb[TCA_DFS_KEY])
		c->key_mode = nla_get_u32(tb[TCA_DFS_KEY]);
	if (tb[TCA_DFS_MAX_TH])
		p->max_th = nla_get_u32(tb[TCA_DFS_MAX_TH]);
	if (tb[TCA_DFS_MIN_TH])
		p->min_th = nla_get_u32(tb[TCA_DFS_MIN_TH]);
	if (tb[TCA_DFS_DELTA_I])
		p->delta_i = nla_get_u32(tb[TCA_DFS_DELTA_I]);
	if (tb[TCA_DFS_DELTA_D])
		p->delta_d = nla_get_u32(tb[TCA_DFS_DELTA_D]);
	if (tb[TCA_DFS_FREEZE_TIME])
		p->freeze_ns = (u64)nla_get_u32(tb[TCA_DFS_FREEZE_TIME]) *
			       NSEC_PER_USEC;
	if (tb[TCA_DFS_TOLERANCE])
		p->tolerance = nla_get_u32(tb[TCA_DFS_TOLERANCE]);
	if (tb[TCA_DFS_BETA])
		p->beta = nla_get_u32(tb[TCA_DFS_BETA]);
	if (tb[TCA_DFS_PRUNE_INTERVAL])
		c->prune_ms = nla_get_u32(tb[TCA_DFS_PRUNE_INTERVAL]);
	if (tb[TCA_DFS_RATE_INTERVAL])
		p->rate_interval_ns =
			(u64)nla_get_u32(tb[TCA_DFS_RATE_INTERVAL]) *
			NSEC_PER_USEC;
	if (tb[TCA_DFS_ECN])
		c->ecn = nla_get_u32(tb[TCA_DFS_ECN]);
	if (tb[TCA_DFS_BANDWIDTH])
		p->bandwidth = nla_get_u64(tb[TCA_DFS_BANDWIDTH]);
	if (tb[TCA_DFS_SCHED])
		c->sched = nla_get_u32(tb[TCA_DFS_SCHED]);
	if (tb[TCA_DFS_QUANTUM])
		c->quantum = nla_get_u32(tb[TCA_DFS_QUANTUM]);
	if (tb[TCA_DFS_TARGET])
		c->target_us = nla_get_u32(tb[TCA_DFS_TARGET]);
	if (tb[TCA_DFS_INTERVAL])
		c->interval_us = nla_get_u32(tb[TCA_DFS_INTERVAL]);
	if (tb[TCA_DFS_MEMORY_LIMIT])
		c->memory_limit = nla_get_u32(tb[TCA_DFS_MEMORY_LIMIT]);
	if (tb[TCA_DFS_CPR]) {
		c->cpr_mode = nla_get_u32(tb[TCA_DFS_CPR]);
		c->cpr.adaptive = c->cpr_mode == TC_DFS_CPR_ADAPTIVE;
	}
	if (tb[TCA_DFS_CPR_PERIOD])
		c->cpr.period_ns = (u64)nla_get_u32(tb[TCA_DFS_CPR_PERIOD]) *
				   NSEC_PER_USEC;
	if (tb[TCA_DFS_CPR_TAU])
		c->cpr.tau = nla_get_u32(tb[TCA_DFS_CPR_TAU]);
	if (tb[TCA_DFS_CPR_ALPHA])
		c->cpr.alpha = nla_get_u32(tb[TCA_DFS_CPR_ALPHA]);
	if (tb[TCA_DFS_CPR_BETA])
		c->cpr.beta = nla_get_u32(tb[TCA_DFS_CPR_BETA]);
	if (tb[TCA_DFS_CPR_TAU_MIN])
		c->cpr.tau_min = nla_get_u32(tb[TCA_DFS_CPR_TAU_MIN]);
	if (tb[TCA_DFS_CPR_TAU_MAX])
		c->cpr.tau_max = nla_get_u32(tb[TCA_DFS_CPR_TAU_MAX]);
	if (tb[TCA_DFS_CPR_MIN_PACKETS])
		c->cpr.min_packets = nla_get_u32(tb[TCA_DFS_CPR_MIN_PACKETS]);
	if (tb[TCA_DFS_CPR_SIGNAL])
		c->cpr.signal = nla_get_u32(tb[TCA_DFS_CPR_SIGNAL]);
}

/* What dfs_dump() reads without the qdisc lock is written once. */
static void dfs_cpr_params_set(struct dfs_cpr_params *p,
			       const struct dfs_cpr_params *n)
{
	WRITE_ONCE(p->period_ns, n->period_ns);
	WRITE_ONCE(p->tau, n->tau);
	WRITE_ONCE(p->alpha, n->alpha);
	WRITE_ONCE(p->beta, n->beta);
	WRITE_ONCE(p->tau_min, n->tau_min);
	WRITE_ONCE(p->tau_max, n->tau_max);
	WRITE_ONCE(p->min_packets, n->min_packets);
	WRITE_ONCE(p->signal, n->signal);
	WRITE_ONCE(p->adaptive, n->adaptive);
}

/* What dfs_dump() reads without the qdisc lock is written once. */
static void dfs_params_set(struct dfs_params *p, const struct dfs_params *n)
{
	WRITE_ONCE(p->limit, n->limit);
	WRITE_ONCE(p->max_th, n->max_th);
	WRITE_ONCE(p->min_th, n->min_th);
	WRITE_ONCE(p->delta_i, n->delta_i);
	WRITE_ONCE(p->delta_d, n->delta_d);
	WRITE_ONCE(p->tolerance, n->tolerance);
	WRITE_ONCE(p->beta, n->beta);
	WRITE_ONCE(p->freeze_ns, n->freeze_ns);
	WRITE_ONCE(p->rate_interval_ns, n->rate_interval_ns);
	WRITE_ONCE(p->bandwidth, n->bandwidth);
}

static int dfs_config_check(const struct dfs_config *c,
			    struct netlink_ext_ack *extack)
{
	const struct dfs_params *p = &c->params;

	if (c->target_us >= c->interval_us) {
		NL_SET_ERR_MSG_MOD(extack, "target must be below interval");
		return -EINVAL;
	}
	if (c->cpr.period_ns && c->cpr.period_ns < NSEC_PER_MSEC) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cpr_period must be 0 (auto) or from 1ms to 1s");
		return -EINVAL;
	}
	if (c->cpr.tau_min > c->cpr.tau_max) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cpr_tau_min must not be above cpr_tau_max");
		return -EINVAL;
	}

	if (p->min_th >= p->max_th) {
		NL_SET_ERR_MSG_MOD(extack, "min_th must be below max_th");
		return -EINVAL;
	}
	/* Past this bound no flow can become trending, so none is ever
	 * marked malicious: refuse rather than silently disarm DFS.
	 */
	if (p->min_th + (u64)p->tolerance * p->delta_i >= p->max_th) {
		NL_SET_ERR_MSG_MOD(extack,
				   "min_th + tolerance * delta_i must be below max_th");
		return -EINVAL;
	}
	return 0;
}

/*
 * Move every flow into a B-tree of @order and the cache @nc; cached flows
 * that do not fit in @nc go back to the tree.  All or nothing: on failure
 * the old structures are untouched.  The new tree keeps the old one's
 * order of flows, so a prune round under way goes on where it was.
 */
static int dfs_rebuild(struct dfs_sched_data *q, u32 order,
		       struct dfs_cache *nc)
{
	struct dfs_flow *flow = NULL;
	struct dfs_btree nb;
	u32 i;

	dfs_btree_init_as(&nb, order, &q->btree);
	while ((flow = dfs_btree_next(&q->btree, flow ? &flow->key : NULL))) {
		if (dfs_btree_insert(&nb, flow))
			goto fail;
	}
	for (i = 0; i < q->cache.size; i++) {
		flow = dfs_cache_at(&q->cache, i);
		if (flow && dfs_cache_insert(nc, flow) &&
		    dfs_btree_insert(&nb, flow))
			goto fail;
	}

	for (i = 0; i < q->cache.size; i++) {
		flow = dfs_cache_at(&q->cache, i);
		if (flow && !dfs_cache_lookup(nc, &flow->key))
			flow->flags &= ~DFS_F_CACHED;
	}
	dfs_btree_destroy(&q->btree, NULL, NULL);
	dfs_cache_free(&q->cache);
	q->btree = nb;
	q->cache = *nc;
	/* same flows, same tags: the index holds, but for those */
	q->index_fill = q->index.held < nb.count;
	q->index_cursor_set = false;
	dfs_index_check_size(q);
	return 0;

fail:
	dfs_btree_destroy(&nb, NULL, NULL);
	return -ENOMEM;
}

/* CPR is off: the flows it holds in the cache go free now, one outside
 * it (the cache was full) at its next packet.
 */
static void dfs_cpr_release(struct dfs_sched_data *q)
{
	u64 now = ktime_get_ns();
	u32 i;

	for (i = 0; i < q->cache.size; i++) {
		struct dfs_flow *flow = dfs_cache_at(&q->cache, i);
		u32 flags;

		if (flow && (flow->flags & DFS_F_CPR)) {
			flags = flow->flags;
			dfs_count_flags(q, flags, -1);
			flow->flags &= ~DFS_F_CPR;
			dfs_count_flags(q, flow->flags, 1);
			dfs_verdict_change(q, flow, flags, now);
		}
	}
}

/* New CPR parameters: the clock closes its periods by the old ones.  A
 * bandwidth given counts at once (dfs_enqueue() gives the rate too), so
 * the period derived from it is in force, and shown, before a packet.
 */
static void dfs_cpr_change(struct dfs_sched_data *q, const struct dfs_config *c)
{
	struct dfs_cpr_params old = q->cpr_params;

	dfs_cpr_tick(&q->cpr_clock, &old, ktime_get_ns());
	dfs_cpr_params_set(&q->cpr_params, &c->cpr);
	dfs_cpr_link(&q->cpr_clock, &q->cpr_params,
		     dfs_link_rate(&c->params, &q->meter));
	dfs_cpr_retune(&q->cpr_clock, &old, &q->cpr_params);
	if (c->cpr_mode == TC_DFS_CPR_OFF && q->cpr_mode != TC_DFS_CPR_OFF)
		dfs_cpr_release(q);
	WRITE_ONCE(q->cpr_mode, c->cpr_mode);
}

/* sched fq's pool of connection queues (dfs_fq_queue()) */
static void *dfs_fq_pool_new(struct netlink_ext_ack *extack)
{
	void *pool = kvzalloc(dfs_fq_pool_size(DFS_FQ_SETS), GFP_KERNEL_ACCOUNT);

	if (!pool)
		NL_SET_ERR_MSG_MOD(extack, "no memory for the flow queues");
	return pool;
}

int dfs_configure(struct Qdisc *sch, struct nlattr *opt,
		  struct netlink_ext_ack *extack)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_DFS_MAX + 1];
	void *pool = NULL, *old_pool = NULL;
	struct dfs_cache nc = {};
	struct dfs_config c;
	bool rebuild;
	u32 limit;
	int err;

	err = nla_parse_nested(tb, TCA_DFS_MAX, opt, dfs_policy, extack);
	if (err < 0)
		return err;

	dfs_config_get(q, &c);
	dfs_config_parse(tb, &c);
	err = dfs_config_check(&c, extack);
	if (err)
		return err;
	limit = c.params.limit;
	if (q->mq)
		c.params.limit = dfs_mq_part(limit, q->mq_queues);

	if (c.sched == TC_DFS_SCHED_FQ && !q->fq_pool) {
		pool = dfs_fq_pool_new(extack);
		if (!pool)
			return -ENOMEM;
	}
	rebuild = c.order != q->btree.order || c.cache_size != q->cache.size;
	if (rebuild) {
		err = dfs_cache_init(&nc, c.cache_size);
		if (err) {
			kvfree(pool);
			NL_SET_ERR_MSG_MOD(extack, "no memory for the cache");
			return err;
		}
	}

	sch_tree_lock(sch);
	if (rebuild && q->nflows > DFS_REBUILD_MAX) {
		sch_tree_unlock(sch);
		dfs_cache_free(&nc);
		kvfree(pool);
		NL_SET_ERR_MSG_MOD(extack,
				   "order and cache change with at most "
				   __stringify(DFS_REBUILD_MAX)
				   " flows known; replace the qdisc");
		return -EBUSY;
	}
	/* The one step that can fail goes first: nothing has changed yet. */
	if (rebuild && dfs_rebuild(q, c.order, &nc)) {
		sch_tree_unlock(sch);
		dfs_cache_free(&nc);
		kvfree(pool);
		NL_SET_ERR_MSG_MOD(extack, "no memory to rebuild the flow table");
		return -ENOMEM;
	}
	/* Known flows mean nothing under another key, and the two scheds
	 * keep different state per flow: start over, queue and flows
	 * (dfs_reset, which sets up the overflow flow and the EWMA of wfs
	 * from the new parameters), with the parents told of the drops.
	 * The flows go back to the old sched's cache.
	 */
	dfs_params_set(&q->params, &c.params);
	WRITE_ONCE(q->mq_limit, limit);
	q->meter.stale = true;		/* bandwidth: the fair rates */
	dfs_cpr_change(q, &c);
	if (c.key_mode != q->key_mode || c.sched != q->sched)
		qdisc_purge_queue(sch);
	if (c.sched != TC_DFS_SCHED_FQ)
		dfs_fq_spares_free(q);
	/* The scheduler is empty here: fifo never fills it, and a new sched
	 * purged it.
	 */
	if (pool) {
		q->fq_pool = pool;
		dfs_fq_pool_set(&q->fq, pool, DFS_FQ_SETS);
	} else if (c.sched != TC_DFS_SCHED_FQ && q->fq_pool) {
		old_pool = q->fq_pool;
		q->fq_pool = NULL;
		dfs_fq_pool_set(&q->fq, NULL, 0);
	}
	q->flow_cachep = c.sched == TC_DFS_SCHED_FQ ? dfs_flow_fq_cachep :
						      dfs_flow_cachep;
	WRITE_ONCE(q->flows_max, c.flows_max);
	WRITE_ONCE(q->memory_limit, c.memory_limit);
	WRITE_ONCE(q->key_mode, c.key_mode);
	WRITE_ONCE(q->prune_ms, c.prune_ms);
	WRITE_ONCE(q->ecn, c.ecn);
	WRITE_ONCE(q->sched, c.sched);
	q->meter.one_queue = !dfs_fq_mode(q);
	WRITE_ONCE(q->fq_params.quantum, c.quantum);
	WRITE_ONCE(q->target_us, c.target_us);
	WRITE_ONCE(q->interval_us, c.interval_us);
	q->fq_params.target = dfs_codel_from_us(c.target_us);
	q->fq_params.interval = dfs_codel_from_us(c.interval_us);
	q->fq_params.ecn = c.ecn;
	q->wfs_ewma = min(q->wfs_ewma, q->params.limit);
	dfs_trim_queue(sch);
	sch_tree_unlock(sch);
	kvfree(old_pool);
	return 0;
}

static int dfs_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	if (q->mq) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a queue of dfs_mq; change the dfs_mq root");
		return -EOPNOTSUPP;
	}
	return dfs_configure(sch, opt, extack);
}

u64 dfs_rate_interval_ns(struct Qdisc *sch)
{
	const struct dfs_sched_data *q = qdisc_priv(sch);

	return READ_ONCE(q->params.rate_interval_ns);
}

/*
 * Before the root attaches it: no packet has come yet.  Queue @queue of
 * @queues, the device's tx queues in use, over which the limit is split.
 */
void dfs_join_mq(struct Qdisc *sch, struct dfs_mq *mq, u16 queue,
		 u16 queues)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	dfs_mq_get(mq);
	q->mq = mq;
	q->mq_queue = queue;
	q->mq_queues = queues;
	q->mq_limit = q->params.limit;
	q->params.limit = dfs_mq_part(q->mq_limit, queues);
	q->wfs_ewma = min(q->wfs_ewma, q->params.limit);
}

void dfs_split_limit(struct Qdisc *sch, u16 queues)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	sch_tree_lock(sch);
	q->mq_queues = queues;
	q->params.limit = dfs_mq_part(q->mq_limit, queues);
	q->wfs_ewma = min(q->wfs_ewma, q->params.limit);
	dfs_trim_queue(sch);
	sch_tree_unlock(sch);
}

/*
 * The qdiscs a verdict dump may ask for.  A dump takes the lock to find
 * its qdisc and count itself a reader of it, and again to let it go;
 * dfs_destroy() takes the qdisc off the list, then waits for its readers,
 * each of them in one batch at most (DFS_VERDICT_DUMP_BATCH flows under
 * the qdisc's lock).  No mutex: a dump holds nothing a qdisc change, and
 * RTNL with it, would wait on longer than that.
 */
static LIST_HEAD(dfs_verdict_qdiscs);
static DEFINE_SPINLOCK(dfs_verdict_lock);

/*
 * Who @q's messages are from.  A queue of dfs_mq has no handle of its own
 * (0): it is named by its root's and its queue, so that a listener, and
 * a dump, take the root's queues as one qdisc.
 */
static void dfs_verdict_from_of(const struct dfs_sched_data *q,
				struct dfs_verdict_from *from)
{
	from->ifindex = qdisc_dev(q->sch)->ifindex;
	from->handle = q->mq ? TC_H_MAJ(q->sch->parent) : q->sch->handle;
	from->queue = q->mq ? q->mq_queue : -1;
}

/*
 * Send what the ring holds, a batch at a time, and at most a ring's worth
 * a run, so that a qdisc whose keys keep changing does not keep the worker
 * busy; after a loss, one LOST in its place (dfs_vring_take()).
 */
static void dfs_verdict_drain(struct dfs_sched_data *q, bool again)
{
	struct dfs_verdicts *v = q->verdicts;
	struct net_device *dev = qdisc_dev(q->sch);
	u32 budget = DFS_VERDICT_RING, n;
	struct dfs_verdict_from from;
	u64 lost, unsent;
	bool more;

	if (!v)
		return;
	dfs_verdict_from_of(q, &from);
	do {
		spin_lock_bh(&v->lock);
		n = dfs_vring_take(&v->ring, v->out,
				   min_t(u32, budget, DFS_VERDICT_BATCH), &lost);
		spin_unlock_bh(&v->lock);
		budget -= n;
		unsent = dfs_verdict_send(dev_net(dev), &from, v->out, n, lost);
		if (unsent) {
			spin_lock_bh(&v->lock);
			dfs_vring_lose(&v->ring, unsent);
			spin_unlock_bh(&v->lock);
		}
	} while (n && budget);

	spin_lock_bh(&v->lock);
	more = dfs_vring_pending(&v->ring);
	spin_unlock_bh(&v->lock);
	if (more && again)
		queue_delayed_work(system_wq, &q->verdict_work,
				   msecs_to_jiffies(DFS_VERDICT_DELAY_MS));
}

static void dfs_verdict_work(struct work_struct *work)
{
	struct dfs_sched_data *q = container_of(to_delayed_work(work),
						struct dfs_sched_data,
						verdict_work);

	dfs_verdict_drain(q, true);
}

/*
 * The @skip-th qdisc of a dump, dfs_verdict_lock held: a dfs, or one of
 * the queues of a dfs_mq root, by the handle their messages carry.
 */
static struct dfs_sched_data *dfs_verdict_find(struct net *net, int ifindex,
					       u32 handle, u32 skip)
{
	struct dfs_verdict_from from;
	struct dfs_sched_data *q;

	list_for_each_entry(q, &dfs_verdict_qdiscs, verdict_list) {
		struct net_device *dev = qdisc_dev(q->sch);

		dfs_verdict_from_of(q, &from);
		if (dev->ifindex == ifindex && from.handle == handle &&
		    net_eq(dev_net(dev), net) && !skip--)
			return q;
	}
	return NULL;
}

/* The qdisc, counted a reader of, or NULL. */
static struct dfs_sched_data *dfs_verdict_get(struct net *net, int ifindex,
					      u32 handle, u32 skip)
{
	struct dfs_sched_data *q;

	spin_lock_bh(&dfs_verdict_lock);
	q = dfs_verdict_find(net, ifindex, handle, skip);
	if (q)
		q->verdict_readers++;
	spin_unlock_bh(&dfs_verdict_lock);
	return q;
}

static void dfs_verdict_put(struct dfs_sched_data *q)
{
	spin_lock_bh(&dfs_verdict_lock);
	if (!--q->verdict_readers)
		wake_up_var(&q->verdict_readers);
	spin_unlock_bh(&dfs_verdict_lock);
}

/* Where a verdict dump is, across its calls (the callback's ctx). */
struct dfs_verdict_cursor {
	struct flowkey	key;		/* the last flow of the tree read */
	u8		phase;		/* enum dfs_verdict_phase */
	u8		key_set;	/* key holds a flow */
	u16		done;		/* the qdiscs of the handle dumped */
	u32		slot;		/* the next slot of the cache */
};

enum dfs_verdict_phase {
	DFS_VERDICT_DUMP_OVERFLOW,
	DFS_VERDICT_DUMP_CACHE,
	DFS_VERDICT_DUMP_TREE,
	DFS_VERDICT_DUMP_DONE,
};

static_assert(sizeof(struct dfs_verdict_cursor) <=
	      sizeof_field(struct netlink_callback, ctx));

static int dfs_verdict_dump_flow(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 const struct dfs_sched_data *q,
				 const struct dfs_flow *flow)
{
	struct dfs_verdict_event ev = { .cmd = DFS_VERDICT_CMD_FLAG };
	struct dfs_verdict_from from;

	if (!(flow->flags & DFS_F_FLAGGED))
		return 0;
	dfs_verdict_of(q, flow, &ev);
	dfs_verdict_from_of(q, &from);
	return dfs_verdict_fill(skb, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq, NLM_F_MULTI, &from, &ev);
}

/* Whether the B-tree holds flagged flows: only those that found the
 * cache full.  Most of the time it holds none, and a dump reads no more
 * than the cache.
 */
static bool dfs_verdict_in_tree(const struct dfs_sched_data *q)
{
	u32 i, seen = q->overflow.flow.flags & DFS_F_FLAGGED ? 1 : 0;

	for (i = 0; i < q->cache.size; i++) {
		const struct dfs_flow *flow = dfs_cache_at(&q->cache, i);

		if (flow && (flow->flags & DFS_F_FLAGGED))
			seen++;
	}
	return q->flagged > seen;
}

/*
 * One call of a dump of the flagged keys: the overflow flow, the cache,
 * then, if it holds any, the B-tree in its order from the last flow read,
 * DFS_VERDICT_DUMP_BATCH flows at a time under the qdisc lock, so that a
 * walk over a million flows never holds it for long.  A flow flagged or
 * released between two calls is listed or not as it was when read: the
 * events that come after the dump say what changed.
 */
static int dfs_verdict_dump_batch(struct sk_buff *skb,
				  struct netlink_callback *cb,
				  struct dfs_sched_data *q,
				  struct dfs_verdict_cursor *c)
{
	struct dfs_flow *flow;
	u32 budget;

	if (c->phase == DFS_VERDICT_DUMP_OVERFLOW) {
		if (dfs_verdict_dump_flow(skb, cb, q, &q->overflow.flow))
			return -EMSGSIZE;
		c->phase = DFS_VERDICT_DUMP_CACHE;
	}
	if (c->phase == DFS_VERDICT_DUMP_CACHE) {
		for (; c->slot < q->cache.size; c->slot++) {
			flow = dfs_cache_at(&q->cache, c->slot);
			if (flow && dfs_verdict_dump_flow(skb, cb, q, flow))
				return -EMSGSIZE;
		}
		c->phase = dfs_verdict_in_tree(q) ? DFS_VERDICT_DUMP_TREE :
						    DFS_VERDICT_DUMP_DONE;
	}
	for (budget = DFS_VERDICT_DUMP_BATCH;
	     c->phase == DFS_VERDICT_DUMP_TREE && budget; budget--) {
		flow = dfs_btree_next(&q->btree, c->key_set ? &c->key : NULL);
		if (!flow) {
			c->phase = DFS_VERDICT_DUMP_DONE;
			break;
		}
		if (dfs_verdict_dump_flow(skb, cb, q, flow))
			return -EMSGSIZE;
		c->key = flow->key;
		c->key_set = 1;
	}
	return 0;
}

int dfs_qdisc_verdict_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   struct net *net, int ifindex, u32 handle)
{
	struct dfs_verdict_cursor *c = (void *)cb->ctx;
	u32 batches = DFS_VERDICT_DUMP_CALL / DFS_VERDICT_DUMP_BATCH;
	struct dfs_sched_data *q;
	int err = 0;

	/* A dfs_mq root's queues one after the other: a queue added or
	 * deleted between two calls may be listed twice or not at all, as
	 * any dump's objects may; the events after it say what changed.
	 */
	while ((q = dfs_verdict_get(net, ifindex, handle, c->done))) {
		while (c->phase != DFS_VERDICT_DUMP_DONE && !err) {
			spinlock_t *root_lock;	/* the root qdisc's, RCU */

			/* A call has read enough: what it holds goes, and
			 * the next goes on.  One that holds nothing yet
			 * goes on, a batch at a time, with no lock held
			 * between batches: the walk ends, or finds a key.
			 */
			if (!batches && skb->len)
				break;
			batches -= !!batches;
			/* Found as the prune timer finds it: not by
			 * sch_tree_lock(), which asserts RTNL on older
			 * kernels.
			 */
			rcu_read_lock();
			root_lock = qdisc_lock(qdisc_root_sleeping(q->sch));
			spin_lock_bh(root_lock);
			err = dfs_verdict_dump_batch(skb, cb, q, c);
			spin_unlock_bh(root_lock);
			rcu_read_unlock();
			cond_resched();
		}
		dfs_verdict_put(q);
		if (err || c->phase != DFS_VERDICT_DUMP_DONE)
			break;
		c->done++;
		c->phase = DFS_VERDICT_DUMP_OVERFLOW;
		c->key_set = 0;
		c->slot = 0;
	}
	if (!q && !c->done && c->phase == DFS_VERDICT_DUMP_OVERFLOW &&
	    !skb->len) {
		NL_SET_ERR_MSG(cb->extack, "no dfs qdisc of that handle");
		return -ENOENT;
	}
	/* full, or read enough, or done: what it holds goes, and the next
	 * call goes on (or, empty, ends the dump)
	 */
	return skb->len;
}

static void dfs_destroy(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	spin_lock_bh(&dfs_verdict_lock);
	list_del_init(&q->verdict_list);
	spin_unlock_bh(&dfs_verdict_lock);
	wait_var_event(&q->verdict_readers, !READ_ONCE(q->verdict_readers));
	timer_delete_sync(&q->prune_timer);
	cancel_work_sync(&q->index_work);
	dfs_flows_destroy(sch);
	kvfree(q->index.b);
	/* The last events (a FLUSH, if any key was flagged) go now. */
	cancel_delayed_work_sync(&q->verdict_work);
	dfs_verdict_drain(q, false);
	kvfree(q->verdicts);
	dfs_fq_spares_free(q);
	kvfree(q->fq_pool);
	dfs_cache_free(&q->cache);
	dfs_mq_put(q->mq);
}

static int dfs_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	struct dfs_params *p = &q->params;
	u64 now = ktime_get_ns();
	int err;

	q->sch = sch;
	timer_setup(&q->prune_timer, dfs_prune_timer, TIMER_DEFERRABLE);
	INIT_WORK(&q->index_work, dfs_index_work);
	q->index_retry = jiffies;
	INIT_DELAYED_WORK(&q->verdict_work, dfs_verdict_work);
	INIT_LIST_HEAD(&q->verdict_list);

	dfs_params_init(p);
	q->prune_ms = DFS_DEFAULT_PRUNE_MS;
	q->flows_max = DFS_DEFAULT_FLOWS;
	q->memory_limit = DFS_DEFAULT_MEMORY;
	q->key_mode = TC_FLOWKEY_SRCDST;
	q->ecn = true;
	/* A queue per flow: the FIFO's verdicts at a fraction of its queueing
	 * delay (doc/dfs.md); sched fifo is the paper's DFS.
	 */
	q->sched = TC_DFS_SCHED_FQ;
	q->fq_params.quantum = max_t(u32, psched_mtu(qdisc_dev(sch)),
				     DFS_QUANTUM_MIN);
	q->target_us = DFS_DEFAULT_TARGET_US;
	q->interval_us = DFS_DEFAULT_INTERVAL_US;
	q->fq_params.target = dfs_codel_from_us(q->target_us);
	q->fq_params.interval = dfs_codel_from_us(q->interval_us);
	q->fq_params.mtu = psched_mtu(qdisc_dev(sch));
	q->fq_params.ecn = q->ecn;
	q->flow_cachep = dfs_flow_fq_cachep;
	q->cpr_mode = TC_DFS_CPR_ADAPTIVE;
	dfs_cpr_params_init(&q->cpr_params);
	dfs_cpr_init(&q->cpr_clock, &q->cpr_params, now);

	dfs_btree_init(&q->btree, DFS_DEFAULT_ORDER);
	dfs_index_set(&q->index,
		      kvzalloc(dfs_index_size(DFS_INDEX_MIN), GFP_KERNEL_ACCOUNT),
		      DFS_INDEX_MIN);
	if (!q->index.b) {
		NL_SET_ERR_MSG_MOD(extack, "no memory for the flow index");
		return -ENOMEM;
	}
	err = dfs_cache_init(&q->cache, DFS_DEFAULT_CACHE);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "no memory for the cache");
		return err;
	}
	q->verdicts = kvzalloc(sizeof(*q->verdicts), GFP_KERNEL_ACCOUNT);
	if (!q->verdicts) {
		NL_SET_ERR_MSG_MOD(extack, "no memory for the verdict events");
		return -ENOMEM;
	}
	spin_lock_init(&q->verdicts->lock);
	dfs_fq_sched_init(&q->fq, NULL, 0);
	flowkey_hash_init(q->fq_seed);
	dfs_flow_init(&q->overflow.flow, p, now);
	dfs_cpr_flow_init(&q->cpr_clock, &q->overflow.flow.cpr);
	dfs_meter_start(q, now);

	if (opt) {
		err = dfs_configure(sch, opt, extack);
		if (err)
			return err;
	} else {
		q->fq_pool = dfs_fq_pool_new(extack);
		if (!q->fq_pool)
			return -ENOMEM;
		dfs_fq_pool_set(&q->fq, q->fq_pool, DFS_FQ_SETS);
	}

	q->wfs_ewma = p->limit;
	q->last_prune = now;
	mod_timer(&q->prune_timer, jiffies + HZ);
	spin_lock_bh(&dfs_verdict_lock);
	list_add(&q->verdict_list, &dfs_verdict_qdiscs);
	spin_unlock_bh(&dfs_verdict_lock);
	return 0;
}

static int dfs_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	const struct dfs_cpr_params *cp = &q->cpr_params;
	const struct dfs_params *p = &q->params;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	/* order and cache change only by dfs_rebuild(), under RTNL as
	 * this dump is.
	 */
	if (nla_put_u32(skb, TCA_DFS_LIMIT, q->mq ? READ_ONCE(q->mq_limit) :
						   READ_ONCE(p->limit)) ||
	    nla_put_u32(skb, TCA_DFS_FLOWS, READ_ONCE(q->flows_max)) ||
	    nla_put_u32(skb, TCA_DFS_ORDER, q->btree.order) ||
	    nla_put_u32(skb, TCA_DFS_CACHE, q->cache.size) ||
	    nla_put_u32(skb, TCA_DFS_KEY, READ_ONCE(q->key_mode)) ||
	    nla_put_u32(skb, TCA_DFS_MAX_TH, READ_ONCE(p->max_th)) ||
	    nla_put_u32(skb, TCA_DFS_MIN_TH, READ_ONCE(p->min_th)) ||
	    nla_put_u32(skb, TCA_DFS_DELTA_I, READ_ONCE(p->delta_i)) ||
	    nla_put_u32(skb, TCA_DFS_DELTA_D, READ_ONCE(p->delta_d)) ||
	    nla_put_u32(skb, TCA_DFS_FREEZE_TIME,
			div_u64(READ_ONCE(p->freeze_ns), NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TCA_DFS_TOLERANCE, READ_ONCE(p->tolerance)) ||
	    nla_put_u32(skb, TCA_DFS_BETA, READ_ONCE(p->beta)) ||
	    nla_put_u32(skb, TCA_DFS_PRUNE_INTERVAL, READ_ONCE(q->prune_ms)) ||
	    nla_put_u32(skb, TCA_DFS_RATE_INTERVAL,
			div_u64(READ_ONCE(p->rate_interval_ns), NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TCA_DFS_ECN, READ_ONCE(q->ecn)) ||
	    nla_put_u64_64bit(skb, TCA_DFS_BANDWIDTH, READ_ONCE(p->bandwidth),
			      TCA_DFS_PAD) ||
	    nla_put_u32(skb, TCA_DFS_SCHED, READ_ONCE(q->sched)) ||
	    nla_put_u32(skb, TCA_DFS_QUANTUM,
			READ_ONCE(q->fq_params.quantum)) ||
	    nla_put_u32(skb, TCA_DFS_TARGET, READ_ONCE(q->target_us)) ||
	    nla_put_u32(skb, TCA_DFS_INTERVAL, READ_ONCE(q->interval_us)) ||
	    nla_put_u32(skb, TCA_DFS_MEMORY_LIMIT, READ_ONCE(q->memory_limit)) ||
	    nla_put_u32(skb, TCA_DFS_CPR, READ_ONCE(q->cpr_mode)) ||
	    nla_put_u32(skb, TCA_DFS_CPR_PERIOD,
			div_u64(READ_ONCE(cp->period_ns), NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TCA_DFS_CPR_TAU, READ_ONCE(cp->tau)) ||
	    nla_put_u32(skb, TCA_DFS_CPR_ALPHA, READ_ONCE(cp->alpha)) ||
	    nla_put_u32(skb, TCA_DFS_CPR_BETA, READ_ONCE(cp->beta)) ||
	    nla_put_u32(skb, TCA_DFS_CPR_TAU_MIN, READ_ONCE(cp->tau_min)) ||
	    nla_put_u32(skb, TCA_DFS_CPR_TAU_MAX, READ_ONCE(cp->tau_max)) ||
	    nla_put_u32(skb, TCA_DFS_CPR_MIN_PACKETS,
			READ_ONCE(cp->min_packets)) ||
	    nla_put_u32(skb, TCA_DFS_CPR_SIGNAL, READ_ONCE(cp->signal)))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -1;
}

static u64 dfs_memory_usage(const struct dfs_sched_data *q)
{
	return q->btree.mem +
	       dfs_index_size(dfs_index_buckets(&q->index)) +
	       (u64)q->nflows * kmem_cache_size(q->flow_cachep) +
	       (u64)(q->fq.count + q->fq_spares) *
	       kmem_cache_size(dfs_fq_cachep) +
	       (q->fq_pool ? dfs_fq_pool_size(DFS_FQ_SETS) : 0) +
	       q->cache.size * sizeof(struct dfs_cache_slot);
}

void dfs_qd_stats(struct Qdisc *sch, struct tc_dfs_qd_stats *st)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	sch_tree_lock(sch);
	st->flows = q->nflows;
	st->btree_flows = q->btree.count;
	st->cache_flows = q->cache.count;
	st->malicious = q->malicious;
	st->trending = q->trending;
	st->active_flows = dfs_meter_active(&q->meter);
	st->btree_height = q->btree.height;
	st->index_flows = q->index.held;
	st->index_buckets = dfs_index_buckets(&q->index);
	st->wfs = q->wfs_ewma;
	st->fair_rate = dfs_fair_rate(&q->params, &q->meter);
	st->new_flows = q->stats.new_flows;
	st->pruned = q->stats.pruned;
	st->ecn_marked = q->stats.ecn_marked;
	st->drop_overlimit = q->stats.drop_overlimit;
	st->drop_malicious = q->stats.drop_malicious;
	st->drop_wfs = q->stats.drop_wfs;
	st->flows_overflow = q->stats.flows_overflow;
	st->memory_usage = dfs_memory_usage(q);
	st->fq_flows = q->fq.count;
	st->fq_new_flows = q->fq_stats.new_flows;
	st->codel_drops = q->fq_stats.codel_drops;
	st->codel_marks = q->fq_stats.codel_marks;
	st->fq_queues = q->fq.pooled;
	st->fq_overflow = q->fq_stats.overflow;
	st->drop_nomem = q->stats.drop_nomem;
	st->drop_overmemory = q->stats.drop_overmemory;
	st->queue_memory = q->memory_used;
	st->cpr_tau = q->cpr_clock.tau;
	st->cpr_csr = dfs_cpr_csr(&q->cpr_clock);
	st->cpr_flows = q->cpr_flows;
	st->cpr_periods = q->cpr_clock.periods;
	st->cpr_congested = q->cpr_clock.congested;
	st->drop_cpr = q->stats.drop_cpr;
	st->cpr_surges = q->cpr_clock.surges;
	st->cpr_period = div_u64(q->cpr_clock.period_ns, NSEC_PER_USEC);
	st->drop_shared = q->stats.drop_shared;
	st->mq_unshared = q->stats.mq_unshared;
	sch_tree_unlock(sch);
}

static int dfs_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct tc_dfs_xstats xst = { .type = TCA_DFS_XSTATS_QDISC };

	dfs_qd_stats(sch, &xst.qdisc_stats);
	return gnet_stats_copy_app(d, &xst, sizeof(xst));
}

/* Classes: the cache slots, read only, so "tc -s class show" lists the
 * flows DFS holds as malicious, or drops for their CPR.
 */
static struct Qdisc *dfs_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;
}

static unsigned long dfs_find(struct Qdisc *sch, u32 classid)
{
	return 0;
}

static int dfs_dump_class(struct Qdisc *sch, unsigned long cl,
			  struct sk_buff *skb, struct tcmsg *tcm)
{
	tcm->tcm_handle |= TC_H_MIN(cl);
	return 0;
}

static int dfs_dump_class_stats(struct Qdisc *sch, unsigned long cl,
				struct gnet_dump *d)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	struct tc_dfs_xstats xst = { .type = TCA_DFS_XSTATS_CLASS };
	struct tc_dfs_cl_stats *st = &xst.class_stats;
	struct gnet_stats_queue qs = {};
	const struct dfs_flow *flow;

	sch_tree_lock(sch);
	flow = dfs_cache_at(&q->cache, cl - 1);
	if (flow) {
		st->family = flow->key.family;
		st->proto = flow->key.proto;
		st->sport = flow->key.sport;
		st->dport = flow->key.dport;
		memcpy(st->src, flow->key.src, sizeof(st->src));
		memcpy(st->dst, flow->key.dst, sizeof(st->dst));
		st->pm = flow->pm;
		st->backlog = flow->backlog;
		st->bitrate = dfs_flow_bitrate(flow);
		st->cpr = dfs_cpr_value(&flow->cpr);
		st->cpr_packets = flow->cpr.packets;
		if (flow->flags & DFS_F_MALICIOUS)
			st->flags |= TC_DFS_FLOW_MALICIOUS;
		if (flow->flags & DFS_F_TRENDING)
			st->flags |= TC_DFS_FLOW_TRENDING;
		if (flow->flags & DFS_F_CPR)
			st->flags |= TC_DFS_FLOW_CPR;
		qs.backlog = flow->backlog;
	}
	sch_tree_unlock(sch);

	if (gnet_stats_copy_queue(d, NULL, &qs, 0) < 0)
		return -1;
	return gnet_stats_copy_app(d, &xst, sizeof(xst));
}

static void dfs_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	u32 i;

	if (arg->stop)
		return;
	for (i = 0; i < q->cache.size; i++) {
		/* Racy peek, under RTNL only; the stats are read locked.
		 * Free slots count too, as in fq_codel_walk(): a dump split
		 * over several messages resumes at arg->skip by slot.
		 */
		if (!READ_ONCE(q->cache.slot[i].flow)) {
			arg->count++;
			continue;
		}
		if (!tc_qdisc_stats_dump(sch, i + 1, arg))
			break;
	}
}

static const struct Qdisc_class_ops dfs_class_ops = {
	.leaf		= dfs_leaf,
	.find		= dfs_find,
	.dump		= dfs_dump_class,
	.dump_stats	= dfs_dump_class_stats,
	.walk		= dfs_walk,
};

struct Qdisc_ops dfs_qdisc_ops __read_mostly = {
	.cl_ops		= &dfs_class_ops,
	.id		= "dfs",
	.priv_size	= sizeof(struct dfs_sched_data),
	.enqueue	= dfs_enqueue,
	.dequeue	= dfs_dequeue,
	.peek		= dfs_peek,
	.init		= dfs_init,
	.reset		= dfs_reset,
	.destroy	= dfs_destroy,
	.change		= dfs_change,
	.dump		= dfs_dump,
	.dump_stats	= dfs_dump_stats,
	.owner		= THIS_MODULE,
};

static void dfs_caches_destroy(void)
{
	kmem_cache_destroy(dfs_fq_cachep);
	kmem_cache_destroy(dfs_flow_fq_cachep);
	kmem_cache_destroy(dfs_flow_cachep);
}

static int __init dfs_module_init(void)
{
	int err;

	dfs_flow_cachep = KMEM_CACHE(dfs_flow, 0);
	dfs_flow_fq_cachep = KMEM_CACHE(dfs_flow_fq, 0);
	dfs_fq_cachep = KMEM_CACHE(dfs_fq_key, 0);
	dfs_free_wq = alloc_workqueue("dfs_free", WQ_UNBOUND, 0);
	if (!dfs_flow_cachep || !dfs_flow_fq_cachep || !dfs_fq_cachep ||
	    !dfs_free_wq) {
		err = -ENOMEM;
		goto err;
	}
	err = dfs_verdict_register();
	if (err)
		goto err;
	err = register_qdisc(&dfs_qdisc_ops);
	if (err)
		goto err_verdict;
	err = register_qdisc(&dfs_mq_qdisc_ops);
	if (err) {
		unregister_qdisc(&dfs_qdisc_ops);
		goto err_verdict;
	}
	return 0;
err_verdict:
	dfs_verdict_unregister();
err:
	if (dfs_free_wq)
		destroy_workqueue(dfs_free_wq);
	dfs_caches_destroy();
	return err;
}

static void __exit dfs_module_exit(void)
{
	unregister_qdisc(&dfs_mq_qdisc_ops);
	unregister_qdisc(&dfs_qdisc_ops);
	dfs_verdict_unregister();
	destroy_workqueue(dfs_free_wq);	/* the last flows freed */
	dfs_caches_destroy();
}

module_init(dfs_module_init);
module_exit(dfs_module_exit);
MODULE_AUTHOR("sch_dfs developers <dev@sch-dfs.invalid>");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deterministic Fair Sharing (DFS) AQM");
MODULE_VERSION(SCH_DFS_VERSION);
MODULE_ALIAS_NET_SCH("dfs");
