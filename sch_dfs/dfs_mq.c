// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs	dfs_mq: DFS on every tx queue of a multiqueue device
 *
 * A root qdisc serialises the whole link on one lock, and so on one CPU
 * at a time.  Under mq every tx queue has a qdisc and a lock of its own,
 * and CPUs that send on different queues do not meet.  dfs_mq is mq
 * whose queues are each a dfs, all of one configuration, as cake_mq is
 * cake's: "tc qdisc add dev eth0 root dfs_mq limit 200kb" sets up every
 * queue and "tc qdisc change" changes them all at once, all or nothing; a
 * queue can be neither configured nor replaced on its own, so the queues
 * never disagree.  The root dumps the configuration and its queues'
 * counters summed; each queue still dumps its own.
 *
 * Each queue's DFS judges the flows it sees, by its own share of the
 * link.  What one queue judges, all apply: a key a queue flags
 * (malicious, or held for its CPR) is marked in the root's table, and
 * every other queue refuses the key's packets before they take state or
 * buffer space, so a flood spread over the queues by its ports is
 * refused on all of them once one has judged it.  The table is read
 * without a lock (RCU), and skipped while empty, which is nearly always;
 * marks and unmarks, as rare as verdicts, take the root's lock.  A mark
 * holds the others only while its queue still sees the key's packets
 * (DFS_MQ_MARK_HOLD): a key that now sends on other queues only is
 * judged there afresh, as a key a queue has never seen is.
 *
 * And what one key gets, it gets over all queues: a device spreads a
 * host's connections over its tx queues by their hash, and a host with a
 * share on each queue would get as many shares as it has queues.  So the
 * queues keep a sketch of the queues each key is active on (a bitmap a
 * slot, two epochs of rate_interval, set without a lock), and "sched fq"
 * gives a key on k queues 1/k of a key's share of the round on each.  A
 * slot two keys share counts the queues of both: those keys get less,
 * never more.  The queues share "bandwidth" too: each takes the link
 * over the number of queues busy beside it (dfs_mq_link_part()).  Each
 * queue's n is its own: its round divides its part of the link among its
 * keys, and a key is judged by what that round gives it.
 */
#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/sch_priv.h>
#include <linux/pkt_sched_dfs.h>

#include "dfs_decide.h"
#include "dfs_marks.h"
#include "dfs_mq.h"

/* How long a mark holds the other queues after its queue last saw one of
 * the key's packets.
 */
#define DFS_MQ_MARK_HOLD	HZ

/* Slots of the sketch of the queues keys are active on. */
#define DFS_MQ_SPREAD_SLOTS	8192

/* The queues a slot's keys were active on (a bit a queue, modulo
 * BITS_PER_LONG) in the epoch of each parity.
 */
struct dfs_mq_spread {
	unsigned long	queues[2];
	u32		epoch[2];
};

/* What a queue last told of its load: the part of its last epoch it held
 * a backlog, and would have with what it refused let in (DFS_METER_ONE
 * all of it), and when (jiffies).
 */
struct dfs_mq_load {
	unsigned long	stamp;
	u32		busy;
	u32		busy_r;
};

/*
 * What the queues of a root share.  Not the root's private data: when a
 * root is replaced by one with ->attach (mq, mqprio, another dfs_mq),
 * qdisc_graft() destroys the old root before it puts the old queues, and
 * a queue may still be reset, dequeued or destroyed after its root is
 * gone.  So each queue holds a reference, as the root does, and the last
 * one frees it.
 */
struct dfs_mq {
	refcount_t		refs;
	spinlock_t		marks_lock;	/* writers of marks */
	struct dfs_marks	marks;
	u64			seed[FLOWKEY_HASH_SEEDS];	/* spread's */
	struct dfs_mq_spread	*spread;	/* DFS_MQ_SPREAD_SLOTS */
	u32			epoch_jiffies;	/* the queues' rate_interval */
	u16			queues;		/* of load */
	struct dfs_mq_load	*load;		/* a queue each, its own to write */
};

/* The root's private data. */
struct dfs_mq_sched {
	struct mq_sched		mq_priv;	/* must be first: mq's helpers */
	struct dfs_mq		*mq;
};

void dfs_mq_get(struct dfs_mq *mq)
{
	refcount_inc(&mq->refs);
}

/* After the last queue is destroyed: no reader is left. */
void dfs_mq_put(struct dfs_mq *mq)
{
	if (!mq || !refcount_dec_and_test(&mq->refs))
		return;
	WARN_ON_ONCE(mq->marks.count);
	dfs_marks_destroy(&mq->marks);
	kvfree(mq->spread);
	kvfree(mq->load);
	kfree(mq);
}

static struct dfs_mq *dfs_mq_alloc(unsigned int queues)
{
	struct dfs_mq *mq = kzalloc(sizeof(*mq), GFP_KERNEL_ACCOUNT);

	if (!mq)
		return NULL;
	refcount_set(&mq->refs, 1);
	spin_lock_init(&mq->marks_lock);
	dfs_marks_init(&mq->marks);
	flowkey_hash_init(mq->seed);
	mq->spread = kvcalloc(DFS_MQ_SPREAD_SLOTS, sizeof(*mq->spread),
			      GFP_KERNEL_ACCOUNT);
	mq->load = kvcalloc(queues, sizeof(*mq->load), GFP_KERNEL_ACCOUNT);
	mq->queues = queues;
	if (!mq->spread || !mq->load) {
		dfs_mq_put(mq);
		return NULL;
	}
	return mq;
}

/* Under the qdisc lock of @queue: a flow's flags changed. */
bool dfs_mq_flags(struct dfs_mq *mq, u16 queue, const struct flowkey *key,
		  u32 old, u32 new)
{
	int err;

	spin_lock_bh(&mq->marks_lock);
	err = dfs_marks_flags(&mq->marks, queue, key, old, new, jiffies);
	spin_unlock_bh(&mq->marks_lock);
	return !err;
}

void dfs_mq_unmark(struct dfs_mq *mq, u16 queue, const struct flowkey *key)
{
	spin_lock_bh(&mq->marks_lock);
	dfs_marks_clear(&mq->marks, queue, key);
	spin_unlock_bh(&mq->marks_lock);
}

/* The queue forgets every flow (reset, destroy). */
void dfs_mq_unmark_queue(struct dfs_mq *mq, u16 queue)
{
	spin_lock_bh(&mq->marks_lock);
	dfs_marks_clear_queue(&mq->marks, queue);
	spin_unlock_bh(&mq->marks_lock);
}

/*
 * A packet of @key on @queue (its qdisc lock held, under the RCU of the
 * transmit path): whether another queue's verdict refuses it.  The key's
 * own mark on @queue is kept alive by it.
 */
bool dfs_mq_refused(struct dfs_mq *mq, u16 queue, const struct flowkey *key)
{
	return dfs_marks_refused(&mq->marks, queue, key, jiffies,
				 DFS_MQ_MARK_HOLD);
}

/*
 * A key's packet on @queue: on how many queues it is active, @queue
 * counted.  The first queue to see a slot in a new epoch starts its
 * bitmap with its own bit; another queue's bit set in the instant
 * between the two writes is lost, and that key counted on one queue less
 * until that queue tells of it again.
 */
u32 dfs_mq_spread(struct dfs_mq *mq, u16 queue, const struct flowkey *key)
{
	u32 e = jiffies / READ_ONCE(mq->epoch_jiffies), i = e & 1, old;
	struct dfs_mq_spread *s = &mq->spread[flowkey_hash(key, mq->seed) %
					      DFS_MQ_SPREAD_SLOTS];
	unsigned int nr = queue % BITS_PER_LONG;
	unsigned long seen;

	old = READ_ONCE(s->epoch[i]);
	if (old != e && cmpxchg(&s->epoch[i], old, e) == old)
		xchg(&s->queues[i], BIT(nr));
	else if (!test_bit(nr, &s->queues[i]))
		set_bit(nr, &s->queues[i]);
	seen = READ_ONCE(s->queues[i]) | BIT(nr);
	if (READ_ONCE(s->epoch[i ^ 1]) == e - 1)
		seen |= READ_ONCE(s->queues[i ^ 1]);
	return hweight_long(seen);
}

/*
 * A new epoch of @queue's meter, which held a backlog @busy of its last,
 * and would have held one @busy_r with what it refused let in
 * (DFS_METER_ONE all of it): the part of "bandwidth" it sends now, in
 * 1/DFS_LINK_ONE, into @part, and the part it would send with every
 * queue's refused let in into @part_r (the rate a flagged key is judged
 * by: a flood that the queues refuse leaves them idle, and each would
 * take the whole link).  While it has a backlog the device serves it in
 * turn with the queues that have one too, so it gets the link over their
 * number: 1 for its own, and each other queue counted by the part of its
 * epoch it was busy, as of its last epoch if that ended within two epochs
 * (an idle queue ticks no epoch, and its last word goes stale).  A queue
 * whose traffic comes in bursts is counted by the time it is busy, not
 * whole as cake_mq counts an active queue: a ping's queue does not halve
 * the part of a queue that sends all the time.  Read without a lock, once
 * an epoch; a value a moment old only moves the part a little.
 */
void dfs_mq_link_part(struct dfs_mq *mq, u16 queue, u32 busy, u32 busy_r,
		      u32 *part, u32 *part_r)
{
	unsigned long now = jiffies, fresh = 2 * READ_ONCE(mq->epoch_jiffies);
	u64 busy_queues = DFS_METER_ONE, busy_queues_r = DFS_METER_ONE;
	unsigned int i;

	WRITE_ONCE(mq->load[queue].busy, busy);
	WRITE_ONCE(mq->load[queue].busy_r, busy_r);
	WRITE_ONCE(mq->load[queue].stamp, now);
	for (i = 0; i < mq->queues; i++) {
		const struct dfs_mq_load *l = &mq->load[i];

		if (i == queue || !time_before(now, READ_ONCE(l->stamp) + fresh))
			continue;
		busy_queues += min(READ_ONCE(l->busy), DFS_METER_ONE);
		busy_queues_r += min(READ_ONCE(l->busy_r), DFS_METER_ONE);
	}
	*part = div64_u64((u64)DFS_LINK_ONE * DFS_METER_ONE, busy_queues);
	*part_r = div64_u64((u64)DFS_LINK_ONE * DFS_METER_ONE, busy_queues_r);
}

/* The spread's epochs are the queues' rate_interval. */
static void dfs_mq_set_epoch(struct dfs_mq *mq, struct Qdisc *child)
{
	u64 ns = dfs_rate_interval_ns(child);

	WRITE_ONCE(mq->epoch_jiffies,
		   max_t(unsigned long, 1, nsecs_to_jiffies(ns)));
}

/* Queue @ntx's dfs: in mq's array until mq_attach(), then on the device
 * (dump may come between, with the root itself on the device's queues).
 */
static struct Qdisc *dfs_mq_queue(struct Qdisc *sch, unsigned int ntx)
{
	struct dfs_mq_sched *priv = qdisc_priv(sch);
	struct Qdisc *child;

	if (priv->mq_priv.qdiscs)
		child = priv->mq_priv.qdiscs[ntx];
	else
		child = rtnl_dereference(netdev_get_tx_queue(qdisc_dev(sch),
							     ntx)->qdisc_sleeping);
	return child && child->ops == &dfs_qdisc_ops ? child : NULL;
}

/*
 * The configuration of @child as a TCA_OPTIONS attribute that
 * dfs_configure() takes: what to go back to if a later queue refuses a
 * change.
 */
static struct sk_buff *dfs_mq_save(struct Qdisc *child)
{
	struct sk_buff *skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	struct nlattr *opts;

	if (!skb)
		return NULL;
	opts = (struct nlattr *)skb_tail_pointer(skb);
	if (dfs_qdisc_ops.dump(child, skb) < 0) {
		kfree_skb(skb);
		return NULL;
	}
	opts->nla_type |= NLA_F_NESTED;
	return skb;
}

/* Every queue takes @opt, or none does. */
static int dfs_mq_configure(struct Qdisc *sch, struct nlattr *opt,
			    struct netlink_ext_ack *extack)
{
	unsigned int ntx, n = qdisc_dev(sch)->num_tx_queues, done;
	struct Qdisc *first = dfs_mq_queue(sch, 0);
	struct sk_buff *saved;
	int err = 0;

	if (!first)
		return -EINVAL;
	saved = dfs_mq_save(first);
	if (!saved) {
		NL_SET_ERR_MSG_MOD(extack, "no memory to change dfs_mq");
		return -ENOMEM;
	}
	for (ntx = 0; ntx < n && !err; ntx++) {
		struct Qdisc *child = dfs_mq_queue(sch, ntx);

		err = child ? dfs_configure(child, opt, extack) : 0;
	}
	if (!err)
		dfs_mq_set_epoch(((struct dfs_mq_sched *)qdisc_priv(sch))->mq,
				 first);
	if (err) {
		/* The queues before it took it: back to what they had. */
		for (done = 0; done + 1 < ntx; done++) {
			struct Qdisc *child = dfs_mq_queue(sch, done);

			if (child && dfs_configure(child, (void *)saved->data,
						   NULL))
				pr_warn_ratelimited("dfs_mq: %s: queue %u keeps the refused change\n",
						    qdisc_dev(sch)->name, done);
		}
	}
	kfree_skb(saved);
	return err;
}

static int dfs_mq_change(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	return dfs_mq_configure(sch, opt, extack);
}

static int dfs_mq_init(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct dfs_mq_sched *priv = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	unsigned int ntx;
	int err;

	if (sch->parent != TC_H_ROOT) {
		NL_SET_ERR_MSG_MOD(extack, "dfs_mq is a root qdisc only");
		return -EOPNOTSUPP;
	}
	if (!netif_is_multiqueue(dev)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "dfs_mq needs a device with several tx queues; use dfs");
		return -EOPNOTSUPP;
	}
	/* On failure the core calls dfs_mq_destroy(), which frees what
	 * mq_init_common() made.
	 */
	err = mq_init_common(sch, opt, extack, &dfs_qdisc_ops);
	if (err)
		return err;
	priv->mq = dfs_mq_alloc(dev->num_tx_queues);
	if (!priv->mq) {
		NL_SET_ERR_MSG_MOD(extack, "no memory for dfs_mq");
		return -ENOMEM;
	}
	dfs_mq_set_epoch(priv->mq, priv->mq_priv.qdiscs[0]);
	for (ntx = 0; ntx < dev->num_tx_queues; ntx++)
		dfs_join_mq(priv->mq_priv.qdiscs[ntx], priv->mq, ntx,
			    dev->real_num_tx_queues);
	return opt ? dfs_mq_configure(sch, opt, extack) : 0;
}

/*
 * The queues may outlive the root (see struct dfs_mq): each drops its
 * marks and its reference when it is destroyed.
 */
static void dfs_mq_destroy(struct Qdisc *sch)
{
	struct dfs_mq_sched *priv = qdisc_priv(sch);

	mq_destroy_common(sch);
	dfs_mq_put(priv->mq);
}

/*
 * The device uses @new_real_tx of its tx queues from now on (RTNL held,
 * before it counts them): the limit is split over those.
 */
static void dfs_mq_change_real_num_tx(struct Qdisc *sch,
				      unsigned int new_real_tx)
{
	unsigned int ntx;

	mq_change_real_num_tx(sch, new_real_tx);
	for (ntx = 0; ntx < qdisc_dev(sch)->num_tx_queues; ntx++) {
		struct Qdisc *child = dfs_mq_queue(sch, ntx);

		if (child)
			dfs_split_limit(child, new_real_tx);
	}
}

static int dfs_mq_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct Qdisc *first = dfs_mq_queue(sch, 0);

	mq_dump_common(sch, skb);
	return first ? dfs_qdisc_ops.dump(first, skb) : -1;
}

/* The queues' counters and counts summed; of what is a level, not a
 * count (the tree's height, the EWMA of wfs, the fair rate, CPR's tau and
 * period), the highest queue's.
 */
static void dfs_mq_add_stats(struct tc_dfs_qd_stats *s,
			     const struct tc_dfs_qd_stats *q)
{
	s->flows += q->flows;
	s->btree_flows += q->btree_flows;
	s->cache_flows += q->cache_flows;
	s->malicious += q->malicious;
	s->trending += q->trending;
	s->active_flows += q->active_flows;
	s->btree_height = max(s->btree_height, q->btree_height);
	s->wfs = max(s->wfs, q->wfs);
	s->fair_rate = max(s->fair_rate, q->fair_rate);
	s->new_flows += q->new_flows;
	s->pruned += q->pruned;
	s->ecn_marked += q->ecn_marked;
	s->drop_overlimit += q->drop_overlimit;
	s->drop_malicious += q->drop_malicious;
	s->drop_wfs += q->drop_wfs;
	s->flows_overflow += q->flows_overflow;
	s->memory_usage += q->memory_usage;
	s->fq_flows += q->fq_flows;
	s->fq_new_flows += q->fq_new_flows;
	s->codel_drops += q->codel_drops;
	s->codel_marks += q->codel_marks;
	s->drop_nomem += q->drop_nomem;
	s->drop_overmemory += q->drop_overmemory;
	s->queue_memory += q->queue_memory;
	s->cpr_tau = max(s->cpr_tau, q->cpr_tau);
	s->cpr_csr = max(s->cpr_csr, q->cpr_csr);
	s->cpr_flows += q->cpr_flows;
	s->cpr_periods += q->cpr_periods;
	s->cpr_congested += q->cpr_congested;
	s->drop_cpr += q->drop_cpr;
	s->cpr_surges += q->cpr_surges;
	s->cpr_period = max(s->cpr_period, q->cpr_period);
	s->fq_queues += q->fq_queues;
	s->fq_overflow += q->fq_overflow;
	s->index_flows += q->index_flows;
	s->index_buckets += q->index_buckets;
	s->drop_shared += q->drop_shared;
	s->mq_unshared += q->mq_unshared;
}

static int dfs_mq_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct tc_dfs_xstats xst = { .type = TCA_DFS_XSTATS_QDISC };
	unsigned int ntx;

	for (ntx = 0; ntx < qdisc_dev(sch)->num_tx_queues; ntx++) {
		struct Qdisc *child = dfs_mq_queue(sch, ntx);
		struct tc_dfs_qd_stats st = {};

		if (!child)
			continue;
		dfs_qd_stats(child, &st);
		dfs_mq_add_stats(&xst.qdisc_stats, &st);
	}
	return gnet_stats_copy_app(d, &xst, sizeof(xst));
}

static int dfs_mq_graft(struct Qdisc *sch, unsigned long cl,
			struct Qdisc *new, struct Qdisc **old,
			struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG_MOD(extack,
			   "the queues of dfs_mq are its own; replace the root");
	return -EOPNOTSUPP;
}

static const struct Qdisc_class_ops dfs_mq_class_ops = {
	.select_queue	= mq_select_queue,
	.graft		= dfs_mq_graft,
	.leaf		= mq_leaf,
	.find		= mq_find,
	.walk		= mq_walk,
	.dump		= mq_dump_class,
	.dump_stats	= mq_dump_class_stats,
};

struct Qdisc_ops dfs_mq_qdisc_ops __read_mostly = {
	.cl_ops		= &dfs_mq_class_ops,
	.id		= "dfs_mq",
	.priv_size	= sizeof(struct dfs_mq_sched),
	.init		= dfs_mq_init,
	.destroy	= dfs_mq_destroy,
	.attach		= mq_attach,
	.change		= dfs_mq_change,
	.change_real_num_tx = dfs_mq_change_real_num_tx,
	.dump		= dfs_mq_dump,
	.dump_stats	= dfs_mq_dump_stats,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("dfs_mq");
MODULE_IMPORT_NS("NET_SCHED_INTERNAL");
