// SPDX-License-Identifier: GPL-2.0
/*
 * cls_lrufq	LRU-FQ flow classifier
 *
 * The identification half of LRU-FQ (Achanta and Reddy, "Design, Analysis
 * and Experience of a Partial State Router", INFOCOM 2003): an LRU cache
 * of a few flows finds the high-bandwidth ones, whose packets go to the
 * "high" class, while every other packet goes to the "low" class.  A
 * classful qdisc (sch_stfq) then gives each class its policy share of the
 * link, so the flows that are not cached (web mice, fair TCP) are
 * protected from the ones that are.
 *
 * One filter per tcf_proto, as cls_matchall.  The cache (lrufq_lru.c,
 * unit tested in userspace) is per filter and guarded by a spinlock, so
 * classify may run on several CPUs at once (a shared block, a multiqueue
 * device).  "change" builds a new filter with an empty cache and swaps it
 * in with RCU; the old one is freed after a grace period.
 */
#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/prandom.h>
#include <linux/spinlock.h>
#include <linux/ktime.h>
#include <net/sch_generic.h>
#include <net/pkt_cls.h>
#include <net/flowkey_skb.h>
#include <linux/pkt_cls_lrufq.h>

#include "lrufq_lru.h"

#define LRUFQ_DEFAULT_CACHE	12	/* the paper's */
#define LRUFQ_DEFAULT_THRESHOLD	125
#define LRUFQ_DEFAULT_PROB	(TC_LRUFQ_PROB_ONE / 50)
/* The threshold per second: a flow is heavy now, whatever the cache size
 * (see lrufq_lru.h).  0 is the paper's count since admission.
 */
#define LRUFQ_DEFAULT_WINDOW_US	USEC_PER_SEC

struct lrufq_head {
	struct tcf_exts		exts;
	struct tcf_result	high;
	struct tcf_result	low;
	u32			handle;
	u32			key_mode;	/* enum tc_flowkey_mode */
	u64			hash_seed[FLOWKEY_HASH_SEEDS];

	spinlock_t		lock;		/* the cache and prng */
	struct lrufq_lru	lru;
	/* The admission draw of every miss.  It only thins the misses out;
	 * nobody sees its output, so a seeded prandom state does, at a
	 * fraction of get_random_u32()'s cost per packet.
	 */
	struct rnd_state	prng;

	struct rcu_work		rwork;
	bool			deleting;
};

/* The time for a cached flow's window and pin: read only if either is on. */
static u64 lrufq_clock(void *ctx)
{
	const struct lrufq_head *head = ctx;

	return head->lru.pin_rate || head->lru.window ? ktime_get_ns() : 0;
}

static u32 lrufq_draw(void *ctx)
{
	struct lrufq_head *head = ctx;

	return prandom_u32_state(&head->prng);
}

static int lrufq_classify(struct sk_buff *skb, const struct tcf_proto *tp,
			  struct tcf_result *res)
{
	struct lrufq_head *head = rcu_dereference_bh(tp->root);
	struct flowkey key;
	bool high;
	u32 hash;

	if (unlikely(!head))
		return -1;

	flowkey_from_skb(skb, head->key_mode, &key);
	hash = flowkey_hash(&key, head->hash_seed);

	spin_lock(&head->lock);
	high = lrufq_lru_packet(&head->lru, &key, hash, qdisc_pkt_len(skb),
				lrufq_clock, lrufq_draw, head);
	spin_unlock(&head->lock);

	*res = high ? head->high : head->low;
	return tcf_exts_exec(skb, &head->exts, res);
}

static int lrufq_init(struct tcf_proto *tp)
{
	return 0;
}

static void __lrufq_destroy(struct lrufq_head *head)
{
	tcf_exts_destroy(&head->exts);
	tcf_exts_put_net(&head->exts);
	lrufq_lru_free(&head->lru);
	kfree(head);
}

static void lrufq_destroy_work(struct work_struct *work)
{
	struct lrufq_head *head = container_of(to_rcu_work(work),
					       struct lrufq_head, rwork);

	rtnl_lock();
	__lrufq_destroy(head);
	rtnl_unlock();
}

static void lrufq_unbind(struct tcf_proto *tp, struct lrufq_head *head)
{
	tcf_unbind_filter(tp, &head->high);
	tcf_unbind_filter(tp, &head->low);
}

static void lrufq_destroy(struct tcf_proto *tp, bool rtnl_held,
			  struct netlink_ext_ack *extack)
{
	struct lrufq_head *head = rtnl_dereference(tp->root);

	if (!head)
		return;

	lrufq_unbind(tp, head);
	if (tcf_exts_get_net(&head->exts))
		tcf_queue_work(&head->rwork, lrufq_destroy_work);
	else
		__lrufq_destroy(head);
}

static void *lrufq_get(struct tcf_proto *tp, u32 handle)
{
	struct lrufq_head *head = rtnl_dereference(tp->root);

	if (head && head->handle == handle)
		return head;
	return NULL;
}

static const struct netlink_range_validation lrufq_cache_range = {
	.min = 1,
	.max = TC_LRUFQ_CACHE_MAX,
};

static const struct netlink_range_validation lrufq_u32_min1 = {
	.min = 1,
	.max = U32_MAX,
};

/* A flow is high with more packets than the threshold.  At 0 every
 * cached flow would be, from the packet that admitted it: the mice the
 * draw lets in too, which the threshold is there to keep out.  A count
 * stops at U32_MAX, so no flow could pass U32_MAX since its admission.
 */
static const struct netlink_range_validation lrufq_threshold_range = {
	.min = 1,
	.max = TC_LRUFQ_THRESHOLD_MAX,
};

static const struct netlink_range_validation lrufq_window_range = {
	.min = 0,
	.max = TC_LRUFQ_WINDOW_MAX,
};

/* bytes/s: 10 Tbit/s, far above any link */
static const struct netlink_range_validation lrufq_pin_range = {
	.min = 0,
	.max = 10ULL * 1000 * 1000 * 1000 * 1000 / 8,
};

static const struct nla_policy lrufq_policy[TCA_LRUFQ_MAX + 1] = {
	[TCA_LRUFQ_HIGH]	= NLA_POLICY_FULL_RANGE(NLA_U32, &lrufq_u32_min1),
	[TCA_LRUFQ_LOW]		= NLA_POLICY_FULL_RANGE(NLA_U32, &lrufq_u32_min1),
	[TCA_LRUFQ_CACHE]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&lrufq_cache_range),
	[TCA_LRUFQ_PROB]	= NLA_POLICY_FULL_RANGE(NLA_U32, &lrufq_u32_min1),
	[TCA_LRUFQ_THRESHOLD]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&lrufq_threshold_range),
	[TCA_LRUFQ_KEY]		= NLA_POLICY_MAX(NLA_U32, TC_FLOWKEY_MAX),
	[TCA_LRUFQ_PIN_RATE]	= NLA_POLICY_FULL_RANGE(NLA_U64,
							&lrufq_pin_range),
	[TCA_LRUFQ_WINDOW]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&lrufq_window_range),
	[TCA_LRUFQ_ACT]		= { .type = NLA_NESTED },
	[TCA_LRUFQ_STATS]	= { .type = NLA_REJECT },
	[TCA_LRUFQ_FLOWS]	= { .type = NLA_REJECT },
};

static u32 lrufq_get_u32(struct nlattr **tb, int attr, u32 dflt)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : dflt;
}

/* Every change builds a new filter: the parameters not given keep their
 * old values, the cache starts empty.
 */
static int lrufq_change(struct net *net, struct sk_buff *in_skb,
			struct tcf_proto *tp, unsigned long base,
			u32 handle, struct nlattr **tca,
			void **arg, u32 flags,
			struct netlink_ext_ack *extack)
{
	struct lrufq_head *head = rtnl_dereference(tp->root);
	struct nlattr *tb[TCA_LRUFQ_MAX + 1];
	struct lrufq_head *old = NULL;
	struct lrufq_head *new;
	u32 cache, threshold, prob, window_us;
	u64 pin_rate;
	int err;

	if (!tca[TCA_OPTIONS]) {
		NL_SET_ERR_MSG_MOD(extack, "lrufq options are required");
		return -EINVAL;
	}
	if (head) {
		if (*arg != head || (handle && handle != head->handle)) {
			NL_SET_ERR_MSG_MOD(extack, "Only one lrufq filter per priority");
			return -EEXIST;
		}
		old = head;
	}

	err = nla_parse_nested(tb, TCA_LRUFQ_MAX, tca[TCA_OPTIONS],
			       lrufq_policy, extack);
	if (err < 0)
		return err;

	if (!old && (!tb[TCA_LRUFQ_HIGH] || !tb[TCA_LRUFQ_LOW])) {
		NL_SET_ERR_MSG_MOD(extack, "Both the high and the low class are required");
		return -EINVAL;
	}

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new) {
		NL_SET_ERR_MSG_MOD(extack, "Cannot allocate the filter");
		return -ENOBUFS;
	}

	err = tcf_exts_init(&new->exts, net, TCA_LRUFQ_ACT, 0);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "Cannot allocate the actions");
		goto err_exts_init;
	}

	cache = lrufq_get_u32(tb, TCA_LRUFQ_CACHE,
			      old ? old->lru.size : LRUFQ_DEFAULT_CACHE);
	threshold = lrufq_get_u32(tb, TCA_LRUFQ_THRESHOLD,
				  old ? old->lru.threshold :
				  LRUFQ_DEFAULT_THRESHOLD);
	prob = lrufq_get_u32(tb, TCA_LRUFQ_PROB,
			     old ? old->lru.prob : LRUFQ_DEFAULT_PROB);
	window_us = lrufq_get_u32(tb, TCA_LRUFQ_WINDOW,
				  old ? div_u64(old->lru.window, NSEC_PER_USEC) :
				  LRUFQ_DEFAULT_WINDOW_US);
	pin_rate = old ? old->lru.pin_rate : 0;
	if (tb[TCA_LRUFQ_PIN_RATE])
		pin_rate = nla_get_u64(tb[TCA_LRUFQ_PIN_RATE]);

	err = lrufq_lru_init(&new->lru, cache, threshold, prob,
			     (u64)window_us * NSEC_PER_USEC, pin_rate);
	if (err) {
		/* The policy bounds the rest: the core refuses only a
		 * window under LRUFQ_WINDOW_MIN_NS.
		 */
		if (err == -EINVAL)
			NL_SET_ERR_MSG_MOD(extack, "window must be 0 or at least 1ms");
		else
			NL_SET_ERR_MSG_MOD(extack, "Cannot allocate the cache");
		goto err_lru;
	}
	spin_lock_init(&new->lock);
	new->handle = old ? old->handle : (handle ? handle : 1);
	new->key_mode = lrufq_get_u32(tb, TCA_LRUFQ_KEY,
				      old ? old->key_mode :
				      TC_FLOWKEY_SRCDST);
	flowkey_hash_init(new->hash_seed);
	prandom_seed_state(&new->prng, get_random_u64());
	new->high.classid = lrufq_get_u32(tb, TCA_LRUFQ_HIGH,
					  old ? old->high.classid : 0);
	new->low.classid = lrufq_get_u32(tb, TCA_LRUFQ_LOW,
					 old ? old->low.classid : 0);

	err = tcf_exts_validate(net, tp, tb, tca[TCA_RATE], &new->exts, flags,
				extack);
	if (err < 0)
		goto err_validate;

	tcf_bind_filter(tp, &new->high, base);
	tcf_bind_filter(tp, &new->low, base);

	*arg = new;
	rcu_assign_pointer(tp->root, new);
	if (old) {
		lrufq_unbind(tp, old);
		tcf_exts_get_net(&old->exts);
		tcf_queue_work(&old->rwork, lrufq_destroy_work);
	}
	return 0;

err_validate:
	lrufq_lru_free(&new->lru);
err_lru:
	tcf_exts_destroy(&new->exts);
err_exts_init:
	kfree(new);
	return err;
}

static int lrufq_delete(struct tcf_proto *tp, void *arg, bool *last,
			bool rtnl_held, struct netlink_ext_ack *extack)
{
	struct lrufq_head *head = rtnl_dereference(tp->root);

	head->deleting = true;
	*last = true;
	return 0;
}

static void lrufq_walk(struct tcf_proto *tp, struct tcf_walker *arg,
		       bool rtnl_held)
{
	struct lrufq_head *head = rtnl_dereference(tp->root);

	if (arg->count < arg->skip)
		goto skip;

	if (!head || head->deleting)
		return;
	if (arg->fn(tp, head, arg) < 0)
		arg->stop = 1;
skip:
	arg->count++;
}

static void lrufq_fill_flow(const struct lrufq_lru *lru,
			    const struct lrufq_entry *e,
			    struct tc_lrufq_flow *f)
{
	memcpy(f->src, e->key.src, sizeof(f->src));
	memcpy(f->dst, e->key.dst, sizeof(f->dst));
	f->sport = e->key.sport;
	f->dport = e->key.dport;
	f->proto = e->key.proto;
	f->family = e->key.family;
	f->count = e->count;
	f->last = e->last;
	f->rate = e->rate;
	if (e->high)
		f->flags |= TC_LRUFQ_FLOW_HIGH;
	if (e->pinned)
		f->flags |= TC_LRUFQ_FLOW_PINNED;
}

/* The statistics and the top @max (at most TC_LRUFQ_DUMP_MAX) cached
 * flows, copied under the lock into @flows; returns how many flows.
 */
static u32 lrufq_snapshot(struct lrufq_head *head, struct tc_lrufq_stats *st,
			  struct tc_lrufq_flow *flows, u32 max)
{
	const struct lrufq_lru *lru = &head->lru;
	const struct lrufq_entry *e;
	u32 n = 0, i;

	spin_lock_bh(&head->lock);
	st->hits = lru->stats.hits;
	st->misses = lru->stats.misses;
	st->admissions = lru->stats.admissions;
	st->evictions = lru->stats.evictions;
	st->high = lru->stats.high;
	st->low = lru->stats.low;
	st->pin_skips = lru->stats.pin_skips;
	st->cached = lru->used;
	st->pinned = lru->pinned;
	for (i = lru->top; i != LRUFQ_NIL && n < max; i = lru->e[i].next) {
		e = &lru->e[i];
		lrufq_fill_flow(lru, e, &flows[n++]);
	}
	spin_unlock_bh(&head->lock);
	return n;
}

/* The cached flows are the addresses and ports of what the router
 * forwards: they go only to a dump asked for by a socket whose opener
 * has CAP_NET_ADMIN in the user namespace that owns the netns, as
 * conntrack's entries do.  netlink_dump() builds a dump in a buffer the
 * asking socket owns; a notification (add, change, get, delete) goes to
 * every RTNLGRP_TC listener and is built in a buffer no socket owns, so
 * it lists none.
 */
static bool lrufq_may_list_flows(const struct sk_buff *skb,
				 const struct net *net)
{
	const struct sock *sk = skb->sk;

	return sk && sk->sk_socket && sk->sk_socket->file &&
	       sk_ns_capable(sk, net->user_ns, CAP_NET_ADMIN);
}

/* The most the first action's statistics take after the options
 * (tcf_exts_dump_stats(): the legacy TCA_STATS and TCA_STATS2 with its
 * basic, hardware, rate and queue counters come to about 150 bytes).
 */
#define LRUFQ_ACT_STATS_MAX	256

/* How many flows the message may list so that it fits in
 * NLMSG_GOODSIZE, the smallest buffer a dump has: @used bytes of it are
 * taken, and @tail more follow the list.  A message that does not fit
 * in what is left of a dump's buffer is made again in the next one.
 */
static u32 lrufq_flows_room(unsigned int used, unsigned int tail)
{
	unsigned int need = used + tail + nla_total_size_64bit(0);

	if (need >= NLMSG_GOODSIZE)
		return 0;
	return min_t(u32, (NLMSG_GOODSIZE - need) / sizeof(struct tc_lrufq_flow),
		     TC_LRUFQ_DUMP_MAX);
}

static int lrufq_dump(struct net *net, struct tcf_proto *tp, void *fh,
		      struct sk_buff *skb, struct tcmsg *t, bool rtnl_held)
{
	struct lrufq_head *head = fh;
	struct tc_lrufq_flow *flows = NULL;
	struct tc_lrufq_stats st;
	struct nlattr *nest;
	u32 n, max = 0;

	if (!head)
		return skb->len;

	t->tcm_handle = head->handle;

	if (lrufq_may_list_flows(skb, net)) {
		flows = kcalloc(TC_LRUFQ_DUMP_MAX, sizeof(*flows), GFP_KERNEL);
		if (!flows)
			return -1;
		max = TC_LRUFQ_DUMP_MAX;
	}
	memset(&st, 0, sizeof(st));
	n = lrufq_snapshot(head, &st, flows, max);

	nest = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!nest)
		goto nla_put_failure;

	if (nla_put_u32(skb, TCA_LRUFQ_HIGH, head->high.classid) ||
	    nla_put_u32(skb, TCA_LRUFQ_LOW, head->low.classid) ||
	    nla_put_u32(skb, TCA_LRUFQ_CACHE, head->lru.size) ||
	    nla_put_u32(skb, TCA_LRUFQ_PROB, head->lru.prob) ||
	    nla_put_u32(skb, TCA_LRUFQ_THRESHOLD, head->lru.threshold) ||
	    nla_put_u32(skb, TCA_LRUFQ_WINDOW,
			div_u64(head->lru.window, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TCA_LRUFQ_KEY, head->key_mode) ||
	    nla_put_u64_64bit(skb, TCA_LRUFQ_PIN_RATE, head->lru.pin_rate,
			      TCA_LRUFQ_PAD) ||
	    nla_put_64bit(skb, TCA_LRUFQ_STATS, sizeof(st), &st,
			  TCA_LRUFQ_PAD))
		goto nla_put_failure;

	if (tcf_exts_dump(skb, &head->exts))
		goto nla_put_failure;

	/* Last in the options: the list is cut to what the message has
	 * room for.  The message began NLMSG_HDRLEN before its tcmsg.
	 */
	n = min(n, lrufq_flows_room(skb_tail_pointer(skb) - (u8 *)t +
				    NLMSG_HDRLEN,
				    tcf_exts_has_actions(&head->exts) ?
				    LRUFQ_ACT_STATS_MAX : 0));
	if (n && nla_put_64bit(skb, TCA_LRUFQ_FLOWS, n * sizeof(*flows),
			       flows, TCA_LRUFQ_PAD))
		goto nla_put_failure;

	nla_nest_end(skb, nest);
	kfree(flows);

	if (tcf_exts_dump_stats(skb, &head->exts) < 0)
		return -1;
	return skb->len;

nla_put_failure:
	kfree(flows);
	nla_nest_cancel(skb, nest);
	return -1;
}

static void lrufq_bind_class(void *fh, u32 classid, unsigned long cl,
			     void *q, unsigned long base)
{
	struct lrufq_head *head = fh;

	tc_cls_bind_class(classid, cl, q, &head->high, base);
	tc_cls_bind_class(classid, cl, q, &head->low, base);
}

static struct tcf_proto_ops cls_lrufq_ops __read_mostly = {
	.kind		= "lrufq",
	.classify	= lrufq_classify,
	.init		= lrufq_init,
	.destroy	= lrufq_destroy,
	.get		= lrufq_get,
	.change		= lrufq_change,
	.delete		= lrufq_delete,
	.walk		= lrufq_walk,
	.dump		= lrufq_dump,
	.bind_class	= lrufq_bind_class,
	.owner		= THIS_MODULE,
};

static int __init lrufq_module_init(void)
{
	return register_tcf_proto_ops(&cls_lrufq_ops);
}

static void __exit lrufq_module_exit(void)
{
	unregister_tcf_proto_ops(&cls_lrufq_ops);
}

module_init(lrufq_module_init);
module_exit(lrufq_module_exit);
MODULE_AUTHOR("sch_dfs developers <dev@sch-dfs.invalid>");
MODULE_DESCRIPTION("LRU-FQ flow classifier: high-bandwidth flows by LRU");
MODULE_VERSION(SCH_DFS_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS_NET_CLS("lrufq");
