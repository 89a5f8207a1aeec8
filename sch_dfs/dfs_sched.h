/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dfs: the qdisc's private data, and what its files give each other.
 *
 * The qdisc is laid out in files by concern, each calling only those
 * below it:
 *
 *   dfs_module.c    registers the qdiscs and the verdict family
 *   dfs_mq.c        the dfs_mq root: configures and sums its queues' dfs
 *   dfs_qdisc.c     the ops: init and destroy
 *   dfs_netlink.c   the netlink configuration and the dumps
 *   dfs_path.c      the packet path: enqueue, dequeue, reset
 *   dfs_table.c     the flow table's upkeep: prune, index, teardown
 *   dfs_events.c    the verdict events of a qdisc, and its dump's walk
 *   dfs_verdict.c   the generic netlink family that sends and dumps them
 *   dfs_mq_shared.c what the queues of a dfs_mq root share
 *
 * and below them the algorithm's cores, without sk_buff (dfs_decide.c,
 * dfs_btree.c, dfs_index.c, dfs_cache.c, dfs_cpr.c, dfs_fq.h,
 * dfs_marks.c, dfs_vring.h), unit tested in userspace.
 */
#ifndef _DFS_SCHED_H
#define _DFS_SCHED_H

#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_dfs.h>

#include "dfs_repo.h"
#include "dfs_fq.h"
#include "dfs_verdict.h"
#include "dfs_mq_shared.h"

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

	/* The verdict stream (dfs_events.c): the events of flag changes,
	 * sent by verdict_work; and this qdisc as a source a dump of the
	 * family finds (dfs_verdict.h).
	 */
	struct dfs_verdicts	*verdicts;
	struct delayed_work	verdict_work;
	struct dfs_verdict_source verdict_src;

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

static inline struct dfs_flow_fq *dfs_flow_fq(struct dfs_flow *flow)
{
	return container_of(flow, struct dfs_flow_fq, flow);
}

static inline bool dfs_fq_mode(const struct dfs_sched_data *q)
{
	return q->sched == TC_DFS_SCHED_FQ;
}

static inline struct dfs_skb_cb *dfs_skb_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct dfs_skb_cb));
	return (struct dfs_skb_cb *)qdisc_skb_cb(skb)->data;
}

static inline void dfs_count_flags(struct dfs_sched_data *q, u32 flags, int sign)
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

/* dfs_path.c: the packet path */
int dfs_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		struct sk_buff **to_free);
struct sk_buff *dfs_dequeue(struct Qdisc *sch);
struct sk_buff *dfs_peek(struct Qdisc *sch);
void dfs_reset(struct Qdisc *sch);
void dfs_flows_destroy(struct Qdisc *sch);
void dfs_trim_queue(struct Qdisc *sch);
void dfs_meter_start(struct dfs_sched_data *q, u64 now);
void dfs_fq_spares_free(struct dfs_sched_data *q);

/* dfs_table.c: the flow table's upkeep, and the flows' memory */
extern struct kmem_cache *dfs_flow_cachep;
extern struct kmem_cache *dfs_flow_fq_cachep;
extern struct kmem_cache *dfs_fq_cachep;
int dfs_table_init(void);
void dfs_table_exit(void);
void dfs_flow_free(struct dfs_sched_data *q, struct dfs_flow *flow);
void dfs_index_check_size(struct dfs_sched_data *q);
void dfs_btree_bury(struct dfs_sched_data *q);
void dfs_prune_timer(struct timer_list *t);
void dfs_index_work(struct work_struct *work);
int dfs_rebuild(struct dfs_sched_data *q, u32 order, struct dfs_cache *nc);

/* dfs_events.c: the verdict events of the qdisc */
void dfs_verdict_queue(struct dfs_sched_data *q, u8 cmd,
		       const struct dfs_flow *flow, u32 old_flags, u8 cause,
		       u64 now);
void dfs_verdict_change(struct dfs_sched_data *q, const struct dfs_flow *flow,
			u32 old_flags, u64 now);
void dfs_verdict_pruned(struct dfs_sched_data *q, const struct dfs_flow *flow,
			u64 now);
void dfs_verdict_drain(struct dfs_sched_data *q, bool again);
void dfs_verdict_work(struct work_struct *work);
void dfs_events_init(struct dfs_sched_data *q);

/* dfs_netlink.c: configuration and dumps */
void *dfs_fq_pool_new(struct netlink_ext_ack *extack);
int dfs_change(struct Qdisc *sch, struct nlattr *opt,
	       struct netlink_ext_ack *extack);
int dfs_dump(struct Qdisc *sch, struct sk_buff *skb);
int dfs_dump_stats(struct Qdisc *sch, struct gnet_dump *d);
extern const struct Qdisc_class_ops dfs_class_ops;

#endif /* _DFS_SCHED_H */
