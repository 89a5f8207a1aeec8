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
 * says otherwise.
 *
 * The CPR is the paper's count, congested packets over all packets, with
 * one change: both counts are halved when the count of packets would pass
 * DFS_CPR_PACKETS_MAX, so a flow is judged on its last 2048 to 4095
 * packets.  A count from the flow's start would let a flow that has sent
 * for hours drift with the long-run CSR and never shed an old judgement;
 * a short moving average (tried first: 16 packets) swings a TCP flow's
 * CPR with every attack burst, above tau_min, while an attacker's packets
 * all come in bursts: its CPR is high however long it is measured
 * (cpr_test's test_cpr_separates_bursts is that case).
 *
 * Eight bytes a flow.  The period of a flow's last packet is also when it
 * was last seen, which prune asks (dfs_cpr_idle_before()).
 */
#ifndef _DFS_CPR_H
#define _DFS_CPR_H

#include <linux/pkt_sched_dfs.h>
#include "core_env.h"

#define DFS_CPR_RING	1024	/* periods remembered: 1 s of 1 ms periods */
#define DFS_CPR_WORDS	(DFS_CPR_RING / 64)
#define DFS_CPR_PENDING_MAX	255	/* packets a period counts, at most */
#define DFS_CPR_PACKETS_MAX	4095	/* halved past this */

struct dfs_cpr_params {
	u64	period_ns;	/* sampling period */
	u32	tau;		/* fixed tau; TC_DFS_ONE = 1.0 */
	u32	alpha;		/* adaptive tau's fall per congested period */
	u32	beta;		/* its climb per calm period */
	u32	tau_min;
	u32	tau_max;	/* and its start */
	u32	min_packets;	/* a flow is judged from this many on */
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
	u32	pending:8;	/* packets in it, not counted yet */
	u32	congested:12;	/* counted packets of congested periods */
	u32	packets:12;	/* counted packets */
};

void dfs_cpr_init(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		  u64 now);
void dfs_cpr_retune(struct dfs_cpr_clock *c, const struct dfs_cpr_params *old,
		    const struct dfs_cpr_params *p);
void dfs_cpr_tick(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		  u64 now);
void dfs_cpr_congest(struct dfs_cpr_clock *c);
bool dfs_cpr_was_congested(const struct dfs_cpr_clock *c, u32 period);
void dfs_cpr_packet(const struct dfs_cpr_clock *c, struct dfs_cpr_flow *f);
bool dfs_cpr_suspect(const struct dfs_cpr_clock *c,
		     const struct dfs_cpr_params *p,
		     const struct dfs_cpr_flow *f);

/* A new flow, seen now. */
static inline void dfs_cpr_flow_init(const struct dfs_cpr_clock *c,
				     struct dfs_cpr_flow *f)
{
	*f = (struct dfs_cpr_flow){ .period = c->cur };
}

/*
 * Was the flow last seen before @period?  A signed difference: right for
 * 2^31 periods, 24 days of the shortest (1 ms), twice the longest prune
 * interval.
 */
static inline bool dfs_cpr_idle_before(const struct dfs_cpr_flow *f,
				       u32 period)
{
	return (s32)(f->period - period) < 0;
}

/* The flow's CPR as TC_DFS_ONE = 1.0, for dumps; 0 before it is counted. */
static inline u32 dfs_cpr_value(const struct dfs_cpr_flow *f)
{
	return f->packets ? f->congested * TC_DFS_ONE / f->packets : 0;
}

/* The congested share of periods (CSR), TC_DFS_ONE = 1.0. */
static inline u32 dfs_cpr_csr(const struct dfs_cpr_clock *c)
{
	return c->periods ? div64_u64(c->congested * TC_DFS_ONE, c->periods) : 0;
}

#endif /* _DFS_CPR_H */
