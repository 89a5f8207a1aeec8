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
 * counters summed; each queue still dumps its own.  limit is the whole
 * link's, split over the tx queues in use, again when they change.
 *
 * What the queues share (the marks of the keys they flag, the sketch of
 * the queues keys are active on, their loads) is dfs_mq_shared.c's, and
 * outlives this root.
 */
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/sch_priv.h>
#include <linux/pkt_sched_dfs.h>

#include "dfs_mq.h"
#include "dfs_mq_shared.h"

/* The root's private data. */
struct dfs_mq_sched {
	struct mq_sched		mq_priv;	/* must be first: mq's helpers */
	struct dfs_mq		*mq;
};

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
				 dfs_rate_interval_ns(first));
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
	dfs_mq_set_epoch(priv->mq,
			 dfs_rate_interval_ns(priv->mq_priv.qdiscs[0]));
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
	s->fq_boosts += q->fq_boosts;
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
