// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs: a qdisc's verdict events (linux/dfs_verdict.h).  A change of
 * what a flow is flagged for is copied into the qdisc's ring under its
 * lock (dfs_vring.h), and a worker drains the ring into the family's
 * messages (dfs_verdict.c) a batch at a time; the family's dump walks
 * the qdisc's flagged flows through the source this file gives it.  Under
 * dfs_mq a flag change is marked for the other queues too
 * (dfs_mq_shared.h).
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/workqueue.h>
#include <net/sch_generic.h>
#include <linux/dfs_verdict.h>

#include "dfs_sched.h"

/*
 * The verdict worker runs this long after the first event it finds: the
 * events of a burst go out together, and a qdisc sends at most
 * DFS_VERDICT_RING events a run, however many keys a flood gets flagged.
 */
#define DFS_VERDICT_DELAY_MS	10

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
void dfs_verdict_queue(struct dfs_sched_data *q, u8 cmd,
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
void dfs_verdict_change(struct dfs_sched_data *q,
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
void dfs_verdict_pruned(struct dfs_sched_data *q,
			const struct dfs_flow *flow, u64 now)
{
	if (!(flow->flags & DFS_F_FLAGGED))
		return;
	dfs_verdict_queue(q, DFS_VERDICT_CMD_RELEASE, flow, flow->flags,
			  DFS_VERDICT_CAUSE_PRUNED, now);
	if (q->mq)
		dfs_mq_unmark(q->mq, q->mq_queue, &flow->key);
}

/*
 * Send what the ring holds, a batch at a time, and at most a ring's worth
 * a run, so that a qdisc whose keys keep changing does not keep the worker
 * busy; after a loss, one LOST in its place (dfs_vring_take()).
 */
void dfs_verdict_drain(struct dfs_sched_data *q, bool again)
{
	struct dfs_verdicts *v = q->verdicts;
	struct net_device *dev = qdisc_dev(q->sch);
	u32 budget = DFS_VERDICT_RING, n;
	struct dfs_verdict_from from;
	u64 lost, unsent;
	bool more;

	if (!v)
		return;
	dfs_verdict_from_of(&q->verdict_src, &from);
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

void dfs_verdict_work(struct work_struct *work)
{
	struct dfs_sched_data *q = container_of(to_delayed_work(work),
						struct dfs_sched_data,
						verdict_work);

	dfs_verdict_drain(q, true);
}

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
	dfs_verdict_from_of(&q->verdict_src, &from);
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
static int dfs_verdict_walk(struct sk_buff *skb, struct netlink_callback *cb,
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

/* The family's dump of this qdisc, a batch under its root's lock. */
static int dfs_verdict_dump_batch(struct dfs_verdict_source *src,
				  struct sk_buff *skb,
				  struct netlink_callback *cb,
				  struct dfs_verdict_cursor *c)
{
	struct dfs_sched_data *q = container_of(src, struct dfs_sched_data,
						verdict_src);
	spinlock_t *root_lock;	/* the root qdisc's, RCU */
	int err;

	/* Found as the prune timer finds it: not by sch_tree_lock(), which
	 * asserts RTNL on older kernels.
	 */
	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(q->sch));
	spin_lock_bh(root_lock);
	err = dfs_verdict_walk(skb, cb, q, c);
	spin_unlock_bh(root_lock);
	rcu_read_unlock();
	return err;
}

static const struct dfs_verdict_source_ops dfs_verdict_source_ops = {
	.dump_batch	= dfs_verdict_dump_batch,
};

/* Before the qdisc is configured: its worker, and its source. */
void dfs_events_init(struct dfs_sched_data *q)
{
	INIT_DELAYED_WORK(&q->verdict_work, dfs_verdict_work);
	INIT_LIST_HEAD(&q->verdict_src.list);
	q->verdict_src.sch = q->sch;
	q->verdict_src.queue = -1;
	q->verdict_src.ops = &dfs_verdict_source_ops;
}
