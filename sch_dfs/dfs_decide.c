// SPDX-License-Identifier: GPL-2.0
/*
 * DFS decision logic (Bedi, Roy, Shiva, Computer Communications 2014):
 * the defaults and the initial state of the meter and of a flow.  Eq.
 * (1), the EWMA of wfs and Algorithm 3 run per packet, inline, from
 * dfs_decide.h.
 */
#include <linux/build_bug.h>
#include <linux/string.h>

#include "dfs_decide.h"

/* p_m, at most max_th <= TC_DFS_ONE, lives in 20 bits of struct dfs_flow. */
static_assert(TC_DFS_ONE < (1U << 20));
static_assert(sizeof(struct dfs_flow) <= 80);

void dfs_meter_init(struct dfs_meter *m, u64 now)
{
	memset(m, 0, sizeof(*m));
	m->epoch_start = now;
	m->epoch = 2;	/* flows start at epoch 0: never seen, not recent */
	m->stale = true;	/* no fair rate yet */
	m->link_part = DFS_LINK_ONE;
	m->link_part_r = DFS_LINK_ONE;
}

/* The defaults: Table 2 of the paper, the bandwidth measured. */
void dfs_params_init(struct dfs_params *p)
{
	*p = (struct dfs_params){
		.limit		= 1024 * 1024,
		.max_th		= TC_DFS_ONE,
		.min_th		= 0,
		.delta_i	= TC_DFS_ONE / 25,	/* 0.04 */
		.delta_d	= TC_DFS_ONE / 25,	/* 0.04 */
		.tolerance	= 3,
		.beta		= TC_DFS_ONE / 20,	/* 0.05 */
		.freeze_ns	= 10 * NSEC_PER_MSEC,
		.rate_interval_ns = 100 * NSEC_PER_MSEC,
		.bandwidth	= 0,
	};
}

void dfs_flow_init(struct dfs_flow *f, const struct dfs_params *p, u64 now)
{
	f->pm = p->min_th;
	f->ptime = dfs_ptime(now);
	f->win_start = now;
}
