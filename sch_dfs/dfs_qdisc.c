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
 * userspace; dfs_sched.h says which of the qdisc's files holds what.
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
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "dfs_sched.h"
#include "dfs_mq.h"

static void dfs_destroy(struct Qdisc *sch)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	/* Nothing else reads the flows from here on (dfs_reset()). */
	dfs_verdict_source_del(&q->verdict_src);
	timer_delete_sync(&q->prune_timer);
	cancel_work_sync(&q->index_work);
	dfs_flows_destroy(sch);
	qdisc_reset_queue(sch);
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
	dfs_events_init(q);

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
	dfs_verdict_source_add(&q->verdict_src);
	return 0;
}

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
