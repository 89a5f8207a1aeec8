// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs: the packet path.  A packet's flow is found (or made, or it is
 * the overflow flow past "flows"), judged by Algorithm 3 and CPR, and
 * refused, dropped or queued: one FIFO with "sched fifo", or with "sched
 * fq" its flow's turn in a deficit round among the flows with packets
 * and its connection's queue with CoDel in it (dfs_fq.h).  Each queued
 * skb points to its flow, so dequeue is O(1).  Reset and a smaller
 * limit are here too: they take packets out of the queues.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/inet_ecn.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/flowkey_skb.h>
#include <linux/dfs_verdict.h>

#include "dfs_sched.h"

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

/*
 * Flow key of a packet (net/flowkey_skb.h, shared with cls_lrufq) into
 * @key; in sched fq, returned, the hash of its connection (dfs_fq_queue())
 * from the same read of its headers: a plain packet's key in the other
 * modes is its 5-tuple with the ports, the protocol and an address
 * cleared, as flowkey_from_skb_fast() leaves them there.  Others, left to
 * the dissector, take skb_get_hash().  With key 5tuple a key is one
 * connection: 0.  Every packet's hash is taken, not only that of a packet
 * whose key has packets queued, so that a key's one queue knows its
 * connection from its first packet: another connection of the key, a
 * ping beside a download, is then told from that one coming back, and
 * may go ahead of the round (dfs_fq.h's boosted keys).
 */
static u32 dfs_classify(const struct dfs_sched_data *q,
			struct sk_buff *skb, struct flowkey *key)
{
	u32 mode = q->key_mode, conn;

	if (!dfs_fq_mode(q) || mode == TC_FLOWKEY_5TUPLE) {
		flowkey_from_skb(skb, mode, key);
		return 0;
	}
	memset(key, 0, sizeof(*key));
	if (likely(flowkey_from_skb_fast(skb, TC_FLOWKEY_5TUPLE, key))) {
		conn = flowkey_hash(key, q->fq_seed);
		key->sport = 0;
		key->dport = 0;
		key->proto = 0;
		if (mode == TC_FLOWKEY_SRC)
			memset(key->dst, 0, sizeof(key->dst));
		else if (mode == TC_FLOWKEY_DST)
			memset(key->src, 0, sizeof(key->src));
		return conn;
	}
	/* What the fast path cannot read in one mode it cannot in any: to
	 * the dissector, as flowkey_from_skb() would go after a second try.
	 */
	memset(key, 0, sizeof(*key));
	flowkey_from_skb_dissect(skb, mode, key);
	return skb_get_hash(skb);
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
 * sched fq: the queue of the connection of hash @conn (dfs_classify()) in
 * its key's, giving the key a struct dfs_fq_key (a new key for the
 * scheduler) if it has none; NULL when there is no memory for one.
 * dfs_fq_link() puts the packet in it.
 */
static struct dfs_fq *dfs_fq_slot(struct dfs_sched_data *q,
				  struct dfs_flow *flow, u32 conn,
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
	return dfs_fq_queue(&q->fq, &q->fq_params, &q->fq_stats, k, conn);
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

/* Refused before the queue: the link would have carried it, had it been
 * let in (dfs_meter_load()).
 */
static int dfs_refuse(struct dfs_sched_data *q, struct Qdisc *sch,
		      struct sk_buff *skb, u32 len, struct sk_buff **to_free)
{
	q->meter.refused_bytes += len;
	qdisc_drop(skb, sch, to_free);
	return NET_XMIT_CN;
}

/*
 * Judge @flow by its packet of @len: Algorithm 3 against the fair rate of
 * the key's share (@split, dfs_mq's queues it is active on), then CPR.
 * DFS_DROP if either refuses it (counted here), else DFS_ALLOW or
 * DFS_MARK; the flow's flags, their counts and events, and where the
 * flow is kept follow the verdict.
 */
static __always_inline enum dfs_verdict
dfs_judge(struct dfs_sched_data *q, struct Qdisc *sch, struct dfs_flow *flow,
	  u32 len, u64 now, u32 *split)
{
	const struct dfs_params *p = &q->params;
	enum dfs_verdict verdict;
	u32 wfs, flags;
	u64 fair_rate;

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
	*split = dfs_key_split(q, flow);
	fair_rate = flags & DFS_F_MALICIOUS ? q->meter.fair_r : q->meter.fair;
	verdict = dfs_decide(p, flow, now, q->wfs_ewma,
			     dfs_fair_split(fair_rate, *split));
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
		dfs_meter_seen_dropped(&q->meter, flow, *split);
		q->stats.drop_malicious++;
		return DFS_DROP;
	}
	dfs_cpr_arrive(&q->cpr_clock, &flow->cpr, len);
	/* Nor does a flow CPR drops; and neither drop is congestion. */
	if (flow->flags & DFS_F_CPR) {
		dfs_cpr_hold(&flow->cpr);
		q->stats.drop_cpr++;
		return DFS_DROP;
	}
	return verdict;
}

/*
 * Admit @skb of @flow, which DFS let in: room in the buffer and in
 * memory_limit, and with sched fq a queue for its connection (into @fq).
 * A packet dropped here is congestion: 0 when admitted, else what
 * enqueue returns.
 */
static __always_inline int dfs_admit(struct dfs_sched_data *q,
				     struct Qdisc *sch, struct sk_buff *skb,
				     struct dfs_flow *flow, u32 len, u32 conn,
				     bool new_epoch, struct dfs_fq **fq,
				     struct sk_buff **to_free)
{
	if (unlikely(sch->qstats.backlog + len > q->params.limit)) {
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
		*fq = dfs_fq_slot(q, flow, conn, new_epoch);
		if (!*fq) {
			q->stats.drop_nomem++;
			return qdisc_drop(skb, sch, to_free);
		}
	}
	return 0;
}

/*
 * Queue the admitted @skb of @flow (in @fq with sched fq): first the
 * congestion signal of a DFS_MARK, a CE mark or a drop, which sched fq
 * moves off a connection with nothing queued onto its key's bulk queue.
 */
static __always_inline int dfs_queue(struct dfs_sched_data *q,
				     struct Qdisc *sch, struct sk_buff *skb,
				     struct dfs_flow *flow, struct dfs_fq *fq,
				     enum dfs_verdict verdict, u32 len,
				     u64 now, struct sk_buff **to_free)
{
	struct dfs_fq *bulk = NULL;

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
				qdisc_drop(skb, sch, to_free);
				return NET_XMIT_CN;
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
	if (!fq)
		return qdisc_enqueue_tail(skb, sch);
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
	if (unlikely(bulk))
		dfs_fq_shed(q, sch, bulk, to_free);
	/* drops of a dequeue that emptied the qdisc: the parent's backlog
	 * held them until now (dfs_dequeue()), and the shed
	 */
	if (unlikely(q->fq_stats.drop_count))
		dfs_fq_tell_drops(q, sch);
	return NET_XMIT_SUCCESS;
}

/*
 * A packet: its flow's key refused by another queue of dfs_mq, or its
 * flow found or made and judged (dfs_judge()), admitted (dfs_admit())
 * and queued (dfs_queue()).
 */
int dfs_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		struct sk_buff **to_free)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	const struct dfs_params *p = &q->params;
	u32 len = qdisc_pkt_len(skb), split, epoch;
	u32 meter_epoch = q->meter.epoch;
	enum dfs_verdict verdict;
	struct dfs_fq *fq = NULL;
	struct dfs_flow *flow;
	u64 now = ktime_get_ns();
	struct flowkey key;
	u32 conn;
	int ret;

	dfs_meter_tick(&q->meter, now, p->rate_interval_ns);
	/* dfs_mq: a new epoch, and this queue's part of the link anew */
	if (unlikely(q->mq) && q->meter.epoch != meter_epoch)
		dfs_mq_link_part(q->mq, q->mq_queue, q->meter.busy_part,
				 dfs_meter_load(p, &q->meter),
				 &q->meter.link_part, &q->meter.link_part_r);
	dfs_cpr_tick(&q->cpr_clock, &q->cpr_params, now);
	dfs_cpr_link(&q->cpr_clock, &q->cpr_params,
		     dfs_link_rate(p, &q->meter));
	conn = dfs_classify(q, skb, &key);
	/* Another queue of dfs_mq flagged the key: refused before it takes
	 * a flow here, as this queue's own verdict would refuse it.
	 */
	if (unlikely(q->mq) && dfs_mq_refused(q->mq, q->mq_queue, &key)) {
		q->stats.drop_shared++;
		return dfs_refuse(q, sch, skb, len, to_free);
	}
	flow = dfs_flow_get(q, &key, now);

	verdict = dfs_judge(q, sch, flow, len, now, &split);
	if (verdict == DFS_DROP)
		return dfs_refuse(q, sch, skb, len, to_free);
	if (verdict == DFS_MARK)
		dfs_congested(q, flow);
	epoch = flow->epoch;
	dfs_meter_seen(&q->meter, flow, split);

	ret = dfs_admit(q, sch, skb, flow, len, conn, flow->epoch != epoch,
			&fq, to_free);
	if (ret)
		return ret;
	return dfs_queue(q, sch, skb, flow, fq, verdict, len, now, to_free);
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

void dfs_fq_spares_free(struct dfs_sched_data *q)
{
	struct dfs_fq_key *k;

	while ((k = q->fq_spare)) {
		q->fq_spare = k->owner;
		kmem_cache_free(dfs_fq_cachep, k);
	}
	q->fq_spares = 0;
}

static const struct dfs_fq_ops dfs_fq_ops = {
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

struct sk_buff *dfs_dequeue(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now = 0;		/* fifo reads the clock only to go idle */

	if (dfs_fq_mode(q)) {
		u64 signals = q->fq_stats.codel_drops + q->fq_stats.codel_marks;

		/* A parent polls after every packet it took (TBF's peek,
		 * __qdisc_run()): empty, DFS answers without a clock read,
		 * and a TBF parent asks that often (doc/benchmark.md).  It
		 * lets go of the flows its last packets left in the lists,
		 * as the walk of a dequeue would: left there, they piled up
		 * in the old list while every packet came from a new flow,
		 * each holding a queue.
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
 * find nothing, at a cost doc/benchmark.md puts beside a refusal's.  A
 * packet held by a peek is in sch->q.qlen, so an empty qlen holds none.
 */
struct sk_buff *dfs_peek(struct Qdisc *sch)
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

/* Forget every flow, and free what sched fq still holds. */
void dfs_flows_destroy(struct Qdisc *sch)
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
void dfs_meter_start(struct dfs_sched_data *q, u64 now)
{
	dfs_meter_init(&q->meter, now);
	q->meter.one_queue = !dfs_fq_mode(q);
}

void dfs_reset(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	/* The core resets a qdisc it destroys, before ->destroy and
	 * without its lock (__qdisc_destroy()), while the prune timer, the
	 * index worker and a verdict dump may still be at the flows: those
	 * stop in dfs_destroy(), which then frees what reset would.
	 */
	if (!refcount_read(&sch->refcnt))
		return;
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
void dfs_trim_queue(struct Qdisc *sch)
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
