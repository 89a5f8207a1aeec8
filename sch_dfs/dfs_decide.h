/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DFS decisions, free of sk_buff: Eq. (1) weighted fair share, its EWMA,
 * per-flow bitrates, the count of active flows, the fair bitrate, and
 * Algorithm 3 (ProcessPacketAndDecide) of the paper.
 */
#ifndef _DFS_DECIDE_H
#define _DFS_DECIDE_H

#include <linux/pkt_sched_dfs.h>
#include "dfs_flow.h"

struct dfs_params {
	u32	limit;		/* b: buffer size, bytes */
	u32	max_th;		/* TC_DFS_ONE = 1.0 */
	u32	min_th;
	u32	delta_i;
	u32	delta_d;
	u32	tolerance;
	u32	beta;
	u64	freeze_ns;
	u64	rate_interval_ns;
	u64	bandwidth;	/* bytes/s, 0: measure the dequeue rate */
};

/*
 * Activity and rate meter, driven by arrivals and departures.  Time is cut
 * into epochs of rate_interval.  A flow is active when it sent two packets
 * within the current and the previous epoch, so n follows the flows that
 * really compete for the link within one measurement window (a lone packet,
 * such as a spoofed source hitting a known flow, does not count), and is
 * kept in O(1) per packet with no walk over the flows.  n is a sum of
 * weights in 1/DFS_METER_ONE of a flow: a sparse flow that gets all it
 * sends counts for less than one (dfs_meter_seen()).
 */
#define DFS_METER_ONE	256U

struct dfs_meter {
	u64	epoch_start;	/* ns */
	u32	epoch;
	u64	cur_active;	/* flows seen in this epoch, DFS_METER_ONE each */
	u64	prev_active;	/* the same for the previous epoch */
	u64	cur_dropped;	/* and flows DFS drops (malicious) */
	u64	prev_dropped;
	bool	busy;		/* the queue holds a packet, since busy_start */
	u64	busy_start;	/* ns */
	u64	busy_ns;	/* time with a backlog in this epoch */
	u64	deq_bytes;	/* bytes sent in this epoch */
	u64	deq_rate;	/* link rate: bytes/s sent while busy */
	bool	one_queue;	/* sched fifo: the flows share one queue */
};

enum dfs_verdict {
	DFS_ALLOW,
	DFS_MARK,	/* ECN-Mark(p): CE mark, or drop if not ECT */
	DFS_DROP,	/* the flow is marked malicious */
};

u32 dfs_wfs(u32 limit, u32 backlog, u32 nflows);
u32 dfs_wfs_ewma(u32 ewma, u32 wfs, u32 beta);

void dfs_meter_init(struct dfs_meter *m, u64 now);
void dfs_meter_tick(struct dfs_meter *m, u64 now, u64 interval);
void dfs_meter_busy(struct dfs_meter *m, u64 now);
void dfs_meter_idle(struct dfs_meter *m, u64 now);
void dfs_meter_seen(struct dfs_meter *m, struct dfs_flow *f, u64 fair_rate);
void dfs_meter_seen_dropped(struct dfs_meter *m, struct dfs_flow *f,
			    u64 fair_rate);
u32 dfs_meter_active(const struct dfs_meter *m);
u64 dfs_fair_rate(const struct dfs_params *p, const struct dfs_meter *m);
u64 dfs_fair_rate_readmitted(const struct dfs_params *p,
			     const struct dfs_meter *m);

void dfs_params_init(struct dfs_params *p);
void dfs_flow_init(struct dfs_flow *f, const struct dfs_params *p, u64 now);
void dfs_flow_arrival(struct dfs_flow *f, u64 now, u32 len, u64 interval);
/* A packet of @f was dropped or CE marked to signal congestion. */
static inline void dfs_flow_congested(struct dfs_flow *f)
{
	f->flags |= DFS_F_LOSS;
}

enum dfs_verdict dfs_decide(const struct dfs_params *p, struct dfs_flow *f,
			    u64 now, u32 wfs, u64 fair_rate);

/* Algorithm 1, lines 10-13: where the flow belongs after a decision.  A
 * flow CPR drops is held in the cache too, where it is found first and
 * listed.
 */
static inline bool dfs_flow_wants_cache(const struct dfs_params *p,
					const struct dfs_flow *f)
{
	return f->pm >= p->max_th || (f->flags & DFS_F_CPR);
}

static inline bool dfs_flow_wants_btree(const struct dfs_params *p,
					const struct dfs_flow *f)
{
	return f->pm <= p->min_th && !(f->flags & DFS_F_CPR);
}

#endif /* _DFS_DECIDE_H */
