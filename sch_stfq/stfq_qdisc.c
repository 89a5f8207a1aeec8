// SPDX-License-Identifier: GPL-2.0
/*
 * sch_stfq	Start-time Fair Queuing
 *
 * A classful qdisc that shares the link among its classes in proportion to
 * their weights with Start-time Fair Queuing (Goyal, Vin and Cheng,
 * SIGCOMM 1996), the scheduler of the LRU-FQ partial state router
 * (Achanta and Reddy, INFOCOM 2003): the head packet with the smallest
 * start tag is sent next, S = max(v, F_prev), F = S + len / weight, v the
 * start tag of the packet in service.
 *
 * The structure is that of sch_drr: each class has a child qdisc (pfifo
 * unless another is grafted), filters attached to the qdisc pick the class,
 * and packets no filter classifies go to the default class, or are dropped
 * and counted when there is none.  The classes with packets queued are in
 * an rbtree ordered by the start tag of their head, so dequeue is
 * O(log active classes), plus a peek of each class passed over because
 * its child holds its packets (a shaper): the others are served
 * meanwhile.
 *
 * The tags are per class, not per packet (see stfq_tags.c), so the skb
 * control block is left to the child qdisc.  The tag arithmetic and the
 * virtual time are in stfq_tags.c, which knows nothing of sk_buffs and is
 * unit tested in userspace.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/init.h>
#include <linux/errno.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/rbtree.h>
#include <net/sch_generic.h>
#include <net/pkt_sched.h>
#include <net/pkt_cls.h>
#include <linux/pkt_sched_stfq.h>

#include "stfq_tags.h"

struct stfq_class {
	struct Qdisc_class_common	common;
	unsigned int			filter_cnt;

	struct gnet_stats_basic_sync	bstats;
	struct gnet_stats_queue		qstats;
	struct net_rate_estimator __rcu	*rate_est;
	struct rb_node			node;	/* in active, by start tag */
	struct Qdisc			*qdisc;

	u32				weight;
	struct stfq_tags		tags;
};

struct stfq_sched {
	struct rb_root_cached		active;
	u32				nactive;
	struct stfq_clock		clock;
	u32				defcls;		/* minor, 0: none */
	u64				drop_unclassified;

	struct tcf_proto __rcu		*filter_list;
	struct tcf_block		*block;
	struct Qdisc_class_hash		clhash;
};

static bool stfq_class_active(const struct stfq_class *cl)
{
	return !RB_EMPTY_NODE(&cl->node);
}

static bool stfq_class_less(struct rb_node *a, const struct rb_node *b)
{
	return stfq_before(rb_entry(a, struct stfq_class, node)->tags.start,
			   rb_entry(b, struct stfq_class, node)->tags.start);
}

/* @cl, the class just served, its start tag moved on: still strictly
 * before the next class's, so the tree's order holds with @cl in place
 * (a tie goes behind, as rb_add_cached() would put it).  The classes
 * before it, passed over, have smaller tags still.
 */
static bool stfq_still_first(struct stfq_class *cl)
{
	struct rb_node *next = rb_next(&cl->node);

	return !next || stfq_before(cl->tags.start,
				    rb_entry(next, struct stfq_class,
					     node)->tags.start);
}

static void stfq_activate_class(struct stfq_sched *q, struct stfq_class *cl)
{
	stfq_activate(&q->clock, &cl->tags);
	rb_add_cached(&cl->node, &q->active, stfq_class_less);
	q->nactive++;
}

static void stfq_deactivate_class(struct stfq_sched *q, struct stfq_class *cl)
{
	rb_erase_cached(&cl->node, &q->active);
	RB_CLEAR_NODE(&cl->node);
	if (!--q->nactive)
		stfq_idle(&q->clock);
}

static struct stfq_class *stfq_find_class(struct Qdisc *sch, u32 classid)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *clc;

	clc = qdisc_class_find(&q->clhash, classid);
	if (!clc)
		return NULL;
	return container_of(clc, struct stfq_class, common);
}

static const struct netlink_range_validation stfq_weight_range = {
	.min = 1,
	.max = TC_STFQ_WEIGHT_MAX,
};

static const struct netlink_range_validation stfq_defcls_range = {
	.max = 0xffff,
};

static const struct nla_policy stfq_policy[TCA_STFQ_MAX + 1] = {
	[TCA_STFQ_DEFCLS]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&stfq_defcls_range),
	[TCA_STFQ_WEIGHT]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&stfq_weight_range),
};

static int stfq_change_class(struct Qdisc *sch, u32 classid, u32 parentid,
			     struct nlattr **tca, unsigned long *arg,
			     struct netlink_ext_ack *extack)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct stfq_class *cl = (struct stfq_class *)*arg;
	struct nlattr *opt = tca[TCA_OPTIONS];
	struct nlattr *tb[TCA_STFQ_MAX + 1] = {};
	u32 weight = 1;
	int err;

	if (opt) {
		err = nla_parse_nested(tb, TCA_STFQ_MAX, opt, stfq_policy,
				       extack);
		if (err < 0)
			return err;
	}
	if (tb[TCA_STFQ_DEFCLS]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_STFQ_DEFCLS],
				    "default is a qdisc option, not a class option");
		return -EINVAL;
	}
	if (tb[TCA_STFQ_WEIGHT])
		weight = nla_get_u32(tb[TCA_STFQ_WEIGHT]);

	if (cl) {
		if (tca[TCA_RATE]) {
			err = gen_replace_estimator(&cl->bstats, NULL,
						    &cl->rate_est, NULL, true,
						    tca[TCA_RATE]);
			if (err) {
				NL_SET_ERR_MSG_MOD(extack, "Failed to replace estimator");
				return err;
			}
		}
		/* From the next packet served on. */
		if (tb[TCA_STFQ_WEIGHT]) {
			sch_tree_lock(sch);
			WRITE_ONCE(cl->weight, weight);
			sch_tree_unlock(sch);
		}
		return 0;
	}

	if (!classid || TC_H_MAJ(classid) != sch->handle) {
		NL_SET_ERR_MSG_MOD(extack, "Class id must be in the qdisc's major");
		return -EINVAL;
	}
	/* Minor 0 is the qdisc itself, and "default 0" means no class. */
	if (!TC_H_MIN(classid)) {
		NL_SET_ERR_MSG_MOD(extack, "Class id minor must not be 0");
		return -EINVAL;
	}
	if (parentid && parentid != TC_H_ROOT && parentid != sch->handle) {
		NL_SET_ERR_MSG_MOD(extack, "STFQ classes are flat: the parent must be the qdisc");
		return -EINVAL;
	}

	/* Classes are bounded by the 16-bit minor of their id, 65,535 a
	 * qdisc; each is charged to the memory cgroup of whoever made it,
	 * as a user namespace's CAP_NET_ADMIN may make them.
	 */
	cl = kzalloc(sizeof(*cl), GFP_KERNEL_ACCOUNT);
	if (!cl) {
		NL_SET_ERR_MSG_MOD(extack, "Cannot allocate the class");
		return -ENOBUFS;
	}

	gnet_stats_basic_sync_init(&cl->bstats);
	RB_CLEAR_NODE(&cl->node);
	cl->common.classid = classid;
	cl->weight = weight;
	cl->qdisc = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
				      classid, NULL);
	if (!cl->qdisc)
		cl->qdisc = &noop_qdisc;
	else
		qdisc_hash_add(cl->qdisc, true);

	if (tca[TCA_RATE]) {
		err = gen_replace_estimator(&cl->bstats, NULL, &cl->rate_est,
					    NULL, true, tca[TCA_RATE]);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "Failed to replace estimator");
			qdisc_put(cl->qdisc);
			kfree(cl);
			return err;
		}
	}

	sch_tree_lock(sch);
	stfq_tags_init(&q->clock, &cl->tags);
	qdisc_class_hash_insert(&q->clhash, &cl->common);
	sch_tree_unlock(sch);

	qdisc_class_hash_grow(sch, &q->clhash);

	*arg = (unsigned long)cl;
	return 0;
}

static void stfq_destroy_class(struct Qdisc *sch, struct stfq_class *cl)
{
	gen_kill_estimator(&cl->rate_est);
	qdisc_put(cl->qdisc);
	kfree(cl);
}

/* Queued packets are dropped: qdisc_purge_queue() counts them as drops of
 * this qdisc and its parents and takes the class off the active tree
 * through stfq_qlen_notify().
 */
static int stfq_delete_class(struct Qdisc *sch, unsigned long arg,
			     struct netlink_ext_ack *extack)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct stfq_class *cl = (struct stfq_class *)arg;

	if (cl->filter_cnt > 0) {
		NL_SET_ERR_MSG_MOD(extack, "A filter still points to this class");
		return -EBUSY;
	}

	sch_tree_lock(sch);
	qdisc_purge_queue(cl->qdisc);
	if (stfq_class_active(cl))
		stfq_deactivate_class(q, cl);
	qdisc_class_hash_remove(&q->clhash, &cl->common);
	sch_tree_unlock(sch);

	stfq_destroy_class(sch, cl);
	return 0;
}

static unsigned long stfq_search_class(struct Qdisc *sch, u32 classid)
{
	return (unsigned long)stfq_find_class(sch, classid);
}

static struct tcf_block *stfq_tcf_block(struct Qdisc *sch, unsigned long cl,
					struct netlink_ext_ack *extack)
{
	struct stfq_sched *q = qdisc_priv(sch);

	if (cl) {
		NL_SET_ERR_MSG_MOD(extack, "Filters attach to the qdisc, not to a class");
		return NULL;
	}
	return q->block;
}

static unsigned long stfq_bind_tcf(struct Qdisc *sch, unsigned long parent,
				   u32 classid)
{
	struct stfq_class *cl = stfq_find_class(sch, classid);

	if (cl)
		cl->filter_cnt++;
	return (unsigned long)cl;
}

static void stfq_unbind_tcf(struct Qdisc *sch, unsigned long arg)
{
	struct stfq_class *cl = (struct stfq_class *)arg;

	cl->filter_cnt--;
}

static int stfq_graft_class(struct Qdisc *sch, unsigned long arg,
			    struct Qdisc *new, struct Qdisc **old,
			    struct netlink_ext_ack *extack)
{
	struct stfq_class *cl = (struct stfq_class *)arg;

	if (!new) {
		new = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
					cl->common.classid, NULL);
		if (!new)
			new = &noop_qdisc;
	}

	*old = qdisc_replace(sch, new, &cl->qdisc);
	return 0;
}

static struct Qdisc *stfq_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	struct stfq_class *cl = (struct stfq_class *)arg;

	return cl->qdisc;
}

static void stfq_qlen_notify(struct Qdisc *sch, unsigned long arg)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct stfq_class *cl = (struct stfq_class *)arg;

	if (stfq_class_active(cl))
		stfq_deactivate_class(q, cl);
}

static int stfq_dump_class(struct Qdisc *sch, unsigned long arg,
			   struct sk_buff *skb, struct tcmsg *tcm)
{
	struct stfq_class *cl = (struct stfq_class *)arg;
	struct nlattr *nest;

	tcm->tcm_parent	= TC_H_ROOT;
	tcm->tcm_handle	= cl->common.classid;
	tcm->tcm_info	= cl->qdisc->handle;

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_STFQ_WEIGHT, READ_ONCE(cl->weight)))
		goto nla_put_failure;
	return nla_nest_end(skb, nest);

nla_put_failure:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int stfq_dump_class_stats(struct Qdisc *sch, unsigned long arg,
				 struct gnet_dump *d)
{
	struct stfq_class *cl = (struct stfq_class *)arg;
	struct tc_stfq_xstats xst = { .type = TCA_STFQ_XSTATS_CLASS };
	struct tc_stfq_cl_stats *st = &xst.class_stats;
	__u32 qlen = qdisc_qlen_sum(cl->qdisc);
	struct Qdisc *cl_q = cl->qdisc;

	sch_tree_lock(sch);
	st->start = cl->tags.start;
	st->finish = cl->tags.finish;
	st->weight = cl->weight;
	st->active = stfq_class_active(cl);
	sch_tree_unlock(sch);

	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_rate_est(d, &cl->rate_est) < 0 ||
	    gnet_stats_copy_queue(d, cl_q->cpu_qstats, &cl_q->qstats, qlen) < 0)
		return -1;

	return gnet_stats_copy_app(d, &xst, sizeof(xst));
}

static void stfq_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct stfq_class *cl;
	unsigned int i;

	if (arg->stop)
		return;

	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
			if (!tc_qdisc_stats_dump(sch, (unsigned long)cl, arg))
				return;
		}
	}
}

/*
 * The class of @skb, or NULL: then *qerr says whether it is to be counted
 * as a drop, and *unclassified whether no filter nor default class had a
 * class for it (a filter's "shot" is a verdict, not a miss).
 */
static struct stfq_class *stfq_classify(struct sk_buff *skb,
					struct Qdisc *sch, int *qerr,
					bool *unclassified)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct stfq_class *cl = NULL;
	struct tcf_result res;
	struct tcf_proto *fl;
	int result;

	if (TC_H_MAJ(skb->priority ^ sch->handle) == 0) {
		cl = stfq_find_class(sch, skb->priority);
		if (cl)
			return cl;
	}

	*qerr = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
	fl = rcu_dereference_bh(q->filter_list);
	result = tcf_classify_qdisc(skb, fl, &res, false);
	if (result >= 0) {
#ifdef CONFIG_NET_CLS_ACT
		switch (result) {
		case TC_ACT_QUEUED:
		case TC_ACT_STOLEN:
		case TC_ACT_TRAP:
			*qerr = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
			fallthrough;
		case TC_ACT_SHOT:
			return NULL;
		}
#endif
		cl = (struct stfq_class *)res.class;
		if (!cl)
			cl = stfq_find_class(sch, res.classid);
	}
	if (!cl && q->defcls)
		cl = stfq_find_class(sch, TC_H_MAKE(sch->handle, q->defcls));
	*unclassified = !cl;
	return cl;
}

static int stfq_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	unsigned int len = qdisc_pkt_len(skb);
	struct stfq_sched *q = qdisc_priv(sch);
	bool unclassified = false;
	struct stfq_class *cl;
	int err = 0;

	cl = stfq_classify(skb, sch, &err, &unclassified);
	if (!cl) {
		if (err & __NET_XMIT_BYPASS) {
			if (unclassified)
				q->drop_unclassified++;
			qdisc_qstats_drop(sch);
		}
		__qdisc_drop(skb, to_free);
		return err;
	}

	err = qdisc_enqueue(skb, cl->qdisc, to_free);
	if (unlikely(err != NET_XMIT_SUCCESS)) {
		if (net_xmit_drop_count(err)) {
			cl->qstats.drops++;
			qdisc_qstats_drop(sch);
		}
		return err;
	}

	if (!stfq_class_active(cl))
		stfq_activate_class(q, cl);

	sch->qstats.backlog += len;
	sch->q.qlen++;
	return err;
}

static struct sk_buff *stfq_dequeue(struct Qdisc *sch)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct rb_node *node, *next;
	struct stfq_class *cl;
	struct sk_buff *skb;

	for (node = rb_first_cached(&q->active); node; node = next) {
		next = rb_next(node);
		cl = rb_entry(node, struct stfq_class, node);
		/* A child with nothing to send now is passed over for the
		 * next class by start tag: it holds its packets (tbf,
		 * netem: its watchdog reschedules the root when one is
		 * due), or the peek dropped its last ones (codel), which
		 * took the class off the tree.  drr waits for it instead,
		 * and every class with it.
		 */
		skb = cl->qdisc->ops->peek(cl->qdisc);
		if (!skb)
			continue;
		skb = qdisc_dequeue_peeked(cl->qdisc);
		if (unlikely(!skb))
			return NULL;

		/* A child that drops as it dequeues (codel, fq_codel, cake)
		 * reports it with qdisc_tree_reduce_backlog(), and once its
		 * queue is empty for a moment stfq_qlen_notify() takes the
		 * class off the tree, even when it then hands over a packet
		 * (qdisc_peek_dequeued() put that one back).  Serve the class
		 * either way; it goes back on the tree only if it still has
		 * packets, so nothing is erased twice or counted out twice.
		 */
		stfq_serve(&q->clock, &cl->tags, qdisc_pkt_len(skb),
			   READ_ONCE(cl->weight));
		/* Its next packet starts where this one finished: a class
		 * still first by that tag stays where it is in the tree (a
		 * lone backlogged class, a heavy weight's runs); else it is
		 * erased, which reads no key, and added again by its new one.
		 */
		if (stfq_class_active(cl) &&
		    !(cl->qdisc->q.qlen && stfq_still_first(cl))) {
			rb_erase_cached(&cl->node, &q->active);
			RB_CLEAR_NODE(&cl->node);
			q->nactive--;
		}
		if (!stfq_class_active(cl)) {
			if (cl->qdisc->q.qlen) {
				rb_add_cached(&cl->node, &q->active,
					      stfq_class_less);
				q->nactive++;
			} else if (!q->nactive) {
				stfq_idle(&q->clock);
			}
		}

		bstats_update(&cl->bstats, skb);
		qdisc_bstats_update(sch, skb);
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		return skb;
	}
	return NULL;
}

static void stfq_reset_qdisc(struct Qdisc *sch)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct stfq_class *cl;
	unsigned int i;

	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
			if (stfq_class_active(cl))
				stfq_deactivate_class(q, cl);
			qdisc_reset(cl->qdisc);
		}
	}
}

static int stfq_change_qdisc(struct Qdisc *sch, struct nlattr *opt,
			     struct netlink_ext_ack *extack)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_STFQ_MAX + 1];
	int err;

	if (!opt)
		return 0;
	err = nla_parse_nested(tb, TCA_STFQ_MAX, opt, stfq_policy, extack);
	if (err < 0)
		return err;
	if (tb[TCA_STFQ_WEIGHT]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_STFQ_WEIGHT],
				    "weight is a class option, not a qdisc option");
		return -EINVAL;
	}
	if (tb[TCA_STFQ_DEFCLS]) {
		sch_tree_lock(sch);
		WRITE_ONCE(q->defcls, nla_get_u32(tb[TCA_STFQ_DEFCLS]));
		sch_tree_unlock(sch);
	}
	return 0;
}

static int stfq_init_qdisc(struct Qdisc *sch, struct nlattr *opt,
			   struct netlink_ext_ack *extack)
{
	struct stfq_sched *q = qdisc_priv(sch);
	int err;

	q->active = RB_ROOT_CACHED;
	stfq_clock_init(&q->clock);

	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;
	err = qdisc_class_hash_init(&q->clhash);
	if (err < 0)
		return err;
	return stfq_change_qdisc(sch, opt, extack);
}

static void stfq_destroy_qdisc(struct Qdisc *sch)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct stfq_class *cl;
	struct hlist_node *next;
	unsigned int i;

	tcf_block_put(q->block);

	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry_safe(cl, next, &q->clhash.hash[i],
					  common.hnode)
			stfq_destroy_class(sch, cl);
	}
	qdisc_class_hash_destroy(&q->clhash);
}

static int stfq_dump_qdisc(struct Qdisc *sch, struct sk_buff *skb)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_STFQ_DEFCLS, READ_ONCE(q->defcls)))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -1;
}

static int stfq_dump_qdisc_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct stfq_sched *q = qdisc_priv(sch);
	struct tc_stfq_xstats xst = { .type = TCA_STFQ_XSTATS_QDISC };
	struct tc_stfq_qd_stats *st = &xst.qdisc_stats;

	sch_tree_lock(sch);
	st->vtime = q->clock.v;
	st->drop_unclassified = q->drop_unclassified;
	st->classes = q->clhash.hashelems;
	st->active = q->nactive;
	sch_tree_unlock(sch);

	return gnet_stats_copy_app(d, &xst, sizeof(xst));
}

static const struct Qdisc_class_ops stfq_class_ops = {
	.change		= stfq_change_class,
	.delete		= stfq_delete_class,
	.find		= stfq_search_class,
	.tcf_block	= stfq_tcf_block,
	.bind_tcf	= stfq_bind_tcf,
	.unbind_tcf	= stfq_unbind_tcf,
	.graft		= stfq_graft_class,
	.leaf		= stfq_class_leaf,
	.qlen_notify	= stfq_qlen_notify,
	.dump		= stfq_dump_class,
	.dump_stats	= stfq_dump_class_stats,
	.walk		= stfq_walk,
};

static struct Qdisc_ops stfq_qdisc_ops __read_mostly = {
	.cl_ops		= &stfq_class_ops,
	.id		= "stfq",
	.priv_size	= sizeof(struct stfq_sched),
	.enqueue	= stfq_enqueue,
	.dequeue	= stfq_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= stfq_init_qdisc,
	.reset		= stfq_reset_qdisc,
	.destroy	= stfq_destroy_qdisc,
	.change		= stfq_change_qdisc,
	.dump		= stfq_dump_qdisc,
	.dump_stats	= stfq_dump_qdisc_stats,
	.owner		= THIS_MODULE,
};

static int __init stfq_module_init(void)
{
	return register_qdisc(&stfq_qdisc_ops);
}

static void __exit stfq_module_exit(void)
{
	unregister_qdisc(&stfq_qdisc_ops);
}

module_init(stfq_module_init);
module_exit(stfq_module_exit);
MODULE_AUTHOR("sch_dfs developers <dev@sch-dfs.invalid>");
MODULE_DESCRIPTION("Start-time Fair Queuing (classful)");
MODULE_VERSION(SCH_DFS_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS_NET_SCH("stfq");
