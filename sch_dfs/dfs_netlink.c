// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs: the netlink side.  The policy and the configuration (a change
 * is all or nothing: checked, then what can fail first, then applied
 * under the qdisc lock), what the queues of a dfs_mq root take from it,
 * and the dumps: the options, the statistics, and the malicious-flow
 * cache as classes.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "dfs_sched.h"
#include "dfs_mq.h"

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
void *dfs_fq_pool_new(struct netlink_ext_ack *extack)
{
	void *pool = kvzalloc(dfs_fq_pool_size(DFS_FQ_SETS), GFP_KERNEL_ACCOUNT);

	if (!pool)
		NL_SET_ERR_MSG_MOD(extack, "no memory for the flow queues");
	return pool;
}

/*
 * The qdisc lock held, and nothing left that can fail: @c in force, the
 * root's @limit under dfs_mq, the pool of connection queues @pool made
 * for a new sched fq.  Returns a pool that sched fq no longer needs, to
 * be freed after the lock.
 */
static void *dfs_config_apply(struct Qdisc *sch, const struct dfs_config *c,
			      u32 limit, void *pool)
{
	struct dfs_sched_data *q = qdisc_priv(sch);
	void *old_pool = NULL;

	/* Known flows mean nothing under another key, and the two scheds
	 * keep different state per flow: start over, queue and flows
	 * (dfs_reset, which sets up the overflow flow and the EWMA of wfs
	 * from the new parameters), with the parents told of the drops.
	 * The flows go back to the old sched's cache.
	 */
	dfs_params_set(&q->params, &c->params);
	WRITE_ONCE(q->mq_limit, limit);
	q->meter.stale = true;		/* bandwidth: the fair rates */
	dfs_cpr_change(q, c);
	if (c->key_mode != q->key_mode || c->sched != q->sched)
		qdisc_purge_queue(sch);
	if (c->sched != TC_DFS_SCHED_FQ)
		dfs_fq_spares_free(q);
	/* The scheduler is empty here: fifo never fills it, and a new sched
	 * purged it.
	 */
	if (pool) {
		q->fq_pool = pool;
		dfs_fq_pool_set(&q->fq, pool, DFS_FQ_SETS);
	} else if (c->sched != TC_DFS_SCHED_FQ && q->fq_pool) {
		old_pool = q->fq_pool;
		q->fq_pool = NULL;
		dfs_fq_pool_set(&q->fq, NULL, 0);
	}
	q->flow_cachep = c->sched == TC_DFS_SCHED_FQ ? dfs_flow_fq_cachep :
						      dfs_flow_cachep;
	WRITE_ONCE(q->flows_max, c->flows_max);
	WRITE_ONCE(q->memory_limit, c->memory_limit);
	WRITE_ONCE(q->key_mode, c->key_mode);
	WRITE_ONCE(q->prune_ms, c->prune_ms);
	WRITE_ONCE(q->ecn, c->ecn);
	WRITE_ONCE(q->sched, c->sched);
	q->meter.one_queue = !dfs_fq_mode(q);
	WRITE_ONCE(q->fq_params.quantum, c->quantum);
	WRITE_ONCE(q->target_us, c->target_us);
	WRITE_ONCE(q->interval_us, c->interval_us);
	q->fq_params.target = dfs_codel_from_us(c->target_us);
	q->fq_params.interval = dfs_codel_from_us(c->interval_us);
	q->fq_params.ecn = c->ecn;
	q->wfs_ewma = min(q->wfs_ewma, q->params.limit);
	dfs_trim_queue(sch);
	return old_pool;
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
	old_pool = dfs_config_apply(sch, &c, limit, pool);
	sch_tree_unlock(sch);
	kvfree(old_pool);
	return 0;
}

int dfs_change(struct Qdisc *sch, struct nlattr *opt,
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

/* This queue's part of the root's limit, over @queues tx queues. */
static void dfs_mq_split(struct dfs_sched_data *q, u16 queues)
{
	q->mq_queues = queues;
	WRITE_ONCE(q->params.limit, dfs_mq_part(q->mq_limit, queues));
	q->wfs_ewma = min(q->wfs_ewma, q->params.limit);
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
	/* named by the root's handle and the queue (dfs_verdict_from_of()) */
	dfs_verdict_source_queue(&q->verdict_src, queue);
	q->mq_limit = q->params.limit;
	dfs_mq_split(q, queues);
}

void dfs_split_limit(struct Qdisc *sch, u16 queues)
{
	struct dfs_sched_data *q = qdisc_priv(sch);

	sch_tree_lock(sch);
	dfs_mq_split(q, queues);
	dfs_trim_queue(sch);
	sch_tree_unlock(sch);
}

int dfs_dump(struct Qdisc *sch, struct sk_buff *skb)
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
	st->fq_boosts = q->fq_stats.boosts;
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

int dfs_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
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

const struct Qdisc_class_ops dfs_class_ops = {
	.leaf		= dfs_leaf,
	.find		= dfs_find,
	.dump		= dfs_dump_class,
	.dump_stats	= dfs_dump_class_stats,
	.walk		= dfs_walk,
};
