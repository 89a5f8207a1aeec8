/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPR, free of sk_buff: the congestion participation rate of a flow
 * (Zhang et al. 2012; adaptive threshold: Kieu et al., SoICT 2017).
 *
 * Time is cut into sampling periods; a period is congested when the qdisc
 * dropped (or marked) a packet in it.  A flow's CPR is the share of its
 * packets that arrived in congested periods.  A low-rate ("shrew")
 * attacker sends only in the bursts that congest the link, so its CPR
 * tends to 1, while a flow that sends evenly has about the link's
 * congested share of periods (its CSR).  A flow whose CPR is over tau is
 * suspect; adaptive tau falls by alpha in each congested period, to
 * tau_min, and climbs by beta in each other one, to tau_max: it is low
 * while an attack's bursts last, and high again when the link is calm.
 *
 * Everything is settled lazily, O(1) per packet and with no timer: the
 * clock closes the periods that ended when the next packet or drop comes
 * (any number at once, the idle ones in one step), and a flow keeps the
 * period of its last packets and how many they were, which are counted
 * once that period has ended, at the flow's next packet.  Whether it was
 * congested comes from a ring of the last DFS_CPR_RING periods' bits; the
 * packets of an older period count as sent in a calm one, since nothing
 * says otherwise.  The CPR is a moving average over the flow's last
 * packets, each weighing 2^-DFS_CPR_SHIFT, rather than the paper's count
 * from the flow's start: a flow that has sent for hours must not need
 * hours of bursts to be judged, nor carry one old congestion forever.
 * Eight bytes a flow.
 */
#ifndef _DFS_CPR_H
#define _DFS_CPR_H

#include <linux/pkt_sched_dfs.h>
#include "core_env.h"

#define DFS_CPR_RING	1024	/* periods remembered: 1 s of 1 ms periods */
#define DFS_CPR_WORDS	(DFS_CPR_RING / 64)
#define DFS_CPR_ONE	32768U	/* a flow's CPR of 1.0 */
#define DFS_CPR_SHIFT	4	/* each packet weighs 1/16 in the average */

struct dfs_cpr_params {
	u64	period_ns;	/* sampling period */
	u32	tau;		/* fixed tau, or adaptive tau's start; TC_DFS_ONE */
	u32	alpha;		/* tau's fall per congested period */
	u32	beta;		/* tau's climb per calm period */
	u32	tau_min;
	u32	tau_max;
	u32	min_packets;	/* a flow is judged from this many on (<= 255) */
	bool	adaptive;
};

struct dfs_cpr_clock {
	u64	cur_start;	/* ns: start of period cur */
	u32	cur;		/* index of the current period */
	u32	tau;		/* TC_DFS_ONE = 1.0 */
	u64	periods;	/* periods closed */
	u64	congested;	/* of them, congested */
	u64	ring[DFS_CPR_WORDS];	/* bit i % RING: period i congested */
};

/* A flow's part: eight bytes. */
struct dfs_cpr_flow {
	u32	period;		/* the period of its last packets */
	u16	cpr;		/* DFS_CPR_ONE = 1.0, packets of periods closed */
	u8	pending;	/* packets in period, not yet counted (<= 255) */
	u8	seen;		/* packets so far, up to 255 */
};

void dfs_cpr_init(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		  u64 now);
void dfs_cpr_tick(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		  u64 now);
void dfs_cpr_congest(struct dfs_cpr_clock *c);
bool dfs_cpr_was_congested(const struct dfs_cpr_clock *c, u32 period);
void dfs_cpr_packet(const struct dfs_cpr_clock *c, struct dfs_cpr_flow *f);
bool dfs_cpr_suspect(const struct dfs_cpr_clock *c,
		     const struct dfs_cpr_params *p,
		     const struct dfs_cpr_flow *f);

/* The flow's CPR as TC_DFS_ONE = 1.0, for dumps. */
static inline u32 dfs_cpr_value(const struct dfs_cpr_flow *f)
{
	return div_u64((u64)f->cpr * TC_DFS_ONE, DFS_CPR_ONE);
}

/* The congested share of periods (CSR), TC_DFS_ONE = 1.0. */
static inline u32 dfs_cpr_csr(const struct dfs_cpr_clock *c)
{
	return c->periods ? div64_u64(c->congested * TC_DFS_ONE, c->periods) : 0;
}

#endif /* _DFS_CPR_H */
