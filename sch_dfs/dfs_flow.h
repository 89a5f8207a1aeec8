/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A DFS flow: its exact key and the per-flow variables of Table 2 of the
 * paper (sz, p_m, p_time, mark, store_br, br), plus what the kernel needs
 * to measure bitrates and to prune idle flows.
 *
 * Flows are exact keys, never hashed: two flows can not share state, so a
 * light flow is never punished for a heavy one it collides with.
 */
#ifndef _DFS_FLOW_H
#define _DFS_FLOW_H

#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include "dfs_cpr.h"
#include <net/flowkey.h>

/* dfs_flow.flags */
#define DFS_F_MALICIOUS	0x01	/* mark_i: every packet is dropped */
#define DFS_F_STORE_BR	0x02	/* store_br_i: bitrate used for decisions */
#define DFS_F_TRENDING	0x04	/* p_m above min_th + tolerance * delta_i */
#define DFS_F_CACHED	0x08	/* held in the cache, not the B-tree */
/*
 * A packet of the flow was dropped or CE marked as congestion (not as
 * malicious) in its current bitrate window (LOSS), or in the last one
 * (LOSS_PREV): the flow wants more than it gets, so it counts as a whole
 * flow in n whatever its rate (dfs_meter_seen()).
 */
#define DFS_F_LOSS	0x10
#define DFS_F_LOSS_PREV	0x100
/* Its CPR is over tau: every packet is dropped (dfs_cpr.h). */
#define DFS_F_CPR	0x200
/* What a flow is flagged for: its packets are dropped before the queue. */
#define DFS_F_FLAGGED	(DFS_F_MALICIOUS | DFS_F_CPR)
/*
 * Bits 5-7: the rate intervals (1..7) that the bitrate measured last spans,
 * until p_m has moved by it; 0 when it has.  A window closes at the
 * flow's first packet past rate_interval, so after a silence one window
 * spans many intervals: it is that much evidence (dfs_decide()).
 */
#define DFS_F_WINDOWS		0xe0
#define DFS_F_WINDOWS_SHIFT	5
#define DFS_F_WINDOWS_MAX	(DFS_F_WINDOWS >> DFS_F_WINDOWS_SHIFT)

/*
 * 80 bytes, with a tag and a pointer of B-tree node a flow beside it: what
 * a flow costs in all is make bench's to measure (doc/benchmark.md).  So
 * p_m and the flags share a word, and what needs neither nanoseconds nor
 * 64 bits is 32-bit:
 *
 *  - p_time in units of 2^10 ns (about 1 us): it is only compared with
 *    freeze_time (10 s at most), and wraps after 73 minutes; a flow whose
 *    p_m has not moved for a multiple of that may stay frozen for one more
 *    freeze_time, which changes nothing.
 *  - the bitrate in units of 8 bytes/s, rounded up so that a measured rate
 *    is never 0, saturating at 275 Gbit/s (dfs_flow_bitrate()).
 *  - when the flow was last seen (prune) is the CPR sampling period of
 *    its last packet (dfs_cpr_idle_before()).
 *
 * The bitrate window keeps nanoseconds: the rate is divided by it.
 */
#define DFS_PTIME_SHIFT	10
#define DFS_BR_SHIFT	3

struct dfs_flow {
	struct flowkey	key;
	u32		backlog;	/* sz_i: bytes in the buffer */
	u32		pm:20;		/* p_m, TC_DFS_ONE = 1.0 (< 2^20) */
	u32		flags:12;	/* DFS_F_* */
	u32		win_bytes;	/* bytes arrived in this window */
	u32		epoch;		/* last epoch << 1 | counted, dfs_meter_seen() */
	u32		ptime;		/* p_time: last p_m update, dfs_ptime() */
	u32		bitrate;	/* br_i of the last window, dfs_flow_bitrate() */
	u64		win_start;	/* bitrate window start, ns */
	struct dfs_cpr_flow cpr;	/* CPR, and the period last seen */
};

/* br_i in bytes/s; 0: not measured yet. */
static inline u64 dfs_flow_bitrate(const struct dfs_flow *f)
{
	return (u64)f->bitrate << DFS_BR_SHIFT;
}

static inline void dfs_flow_set_bitrate(struct dfs_flow *f, u64 rate)
{
	rate = (rate + (1U << DFS_BR_SHIFT) - 1) >> DFS_BR_SHIFT;
	f->bitrate = min_t(u64, rate, U32_MAX);
}

/* Add @len to the bitrate window's bytes, saturating. */
static inline void dfs_flow_add_bytes(struct dfs_flow *f, u32 len)
{
	f->win_bytes = f->win_bytes + len < f->win_bytes ? U32_MAX :
		       f->win_bytes + len;
}

static inline u32 dfs_ptime(u64 ns)
{
	return ns >> DFS_PTIME_SHIFT;
}

/*
 * More than @gap ns (at most 10 s) since the last p_m update?  @gap is
 * rounded up to whole units, so the answer is never early (it can be up
 * to 2 us late).
 */
static inline bool dfs_ptime_after(const struct dfs_flow *f, u64 now,
				   u64 gap)
{
	u32 units = (gap + (1U << DFS_PTIME_SHIFT) - 1) >> DFS_PTIME_SHIFT;

	return (u32)(dfs_ptime(now) - f->ptime) > units;
}

static inline int dfs_key_cmp(const struct flowkey *a, const struct flowkey *b)
{
	int i;

	for (i = 0; i < 5; i++) {
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	}
	return 0;
}

/* 64-bit tag of a key: the cache compares tags before whole keys. */
static inline u64 dfs_key_tag(const struct flowkey *k)
{
	u64 t = k->w[0] ^ (k->w[1] * 0x9e3779b97f4a7c15ULL) ^
		(k->w[2] * 0xc2b2ae3d27d4eb4fULL) ^ k->w[3] ^
		(k->w[4] * 0x165667b19e3779f9ULL);

	return t ^ (t >> 29);
}

#endif /* _DFS_FLOW_H */
