/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Deterministic Fair Sharing (DFS) qdisc: netlink attributes and statistics.
 *
 * Written in the style of include/uapi/linux/pkt_sched.h so that the block
 * can move there unchanged when the qdisc goes in-tree.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_DFS_H
#define _UAPI_LINUX_PKT_SCHED_DFS_H

#include <linux/types.h>

/* Fixed-point scale of p_m, the thresholds, the deltas and beta. */
#define TC_DFS_ONE	1000000U

enum {
	TCA_DFS_UNSPEC,
	TCA_DFS_LIMIT,		/* u32: buffer size b, bytes */
	TCA_DFS_FLOWS,		/* u32: most flows kept (state cap) */
	TCA_DFS_ORDER,		/* u32: B-tree minimum degree t */
	TCA_DFS_CACHE,		/* u32: malicious-flow cache slots */
	TCA_DFS_KEY,		/* u32: enum tc_flowkey_mode */
	TCA_DFS_MAX_TH,		/* u32: max_th, TC_DFS_ONE = 1.0 */
	TCA_DFS_MIN_TH,		/* u32: min_th, TC_DFS_ONE = 1.0 */
	TCA_DFS_DELTA_I,	/* u32: p_m increment, TC_DFS_ONE = 1.0 */
	TCA_DFS_DELTA_D,	/* u32: p_m decrement, TC_DFS_ONE = 1.0 */
	TCA_DFS_FREEZE_TIME,	/* u32: usec between p_m updates */
	TCA_DFS_TOLERANCE,	/* u32: tolerance_factor */
	TCA_DFS_BETA,		/* u32: EWMA weight of wfs, TC_DFS_ONE = 1.0 */
	TCA_DFS_PRUNE_INTERVAL,	/* u32: msec between purges of idle flows */
	TCA_DFS_RATE_INTERVAL,	/* u32: usec, bitrate measurement window */
	TCA_DFS_ECN,		/* u32: 0 or 1 */
	TCA_DFS_BANDWIDTH,	/* u64: link rate in bytes/s, 0 = measure */
	TCA_DFS_PAD,
	TCA_DFS_SCHED,		/* u32: enum tc_dfs_sched; a change purges the
				 * queue and forgets every flow, as KEY's does
				 */
	TCA_DFS_QUANTUM,	/* u32: bytes a flow sends a round (sched fq) */
	TCA_DFS_TARGET,		/* u32: usec, CoDel target (sched fq) */
	TCA_DFS_INTERVAL,	/* u32: usec, CoDel interval (sched fq) */
	TCA_DFS_MEMORY_LIMIT,	/* u32: bytes of queued skbs (truesize) */
	TCA_DFS_CPR,		/* u32: enum tc_dfs_cpr */
	TCA_DFS_CPR_PERIOD,	/* u32: usec, CPR sampling period; 0: from
				 * the link's rate (xstats cpr_period)
				 */
	TCA_DFS_CPR_TAU,	/* u32: fixed tau, TC_DFS_ONE = 1.0 */
	TCA_DFS_CPR_ALPHA,	/* u32: adaptive tau's fall a congested period */
	TCA_DFS_CPR_BETA,	/* u32: adaptive tau's climb a calm period */
	TCA_DFS_CPR_TAU_MIN,	/* u32: adaptive tau's floor */
	TCA_DFS_CPR_TAU_MAX,	/* u32: adaptive tau's cap and start */
	TCA_DFS_CPR_MIN_PACKETS, /* u32: packets counted before a verdict */
	TCA_DFS_CPR_SIGNAL,	/* u32: enum tc_dfs_cpr_signal */
	__TCA_DFS_MAX
};

#define TCA_DFS_MAX	(__TCA_DFS_MAX - 1)

enum tc_dfs_sched {
	TC_DFS_SCHED_FIFO,	/* one FIFO (paper) */
	TC_DFS_SCHED_FQ,	/* a queue per flow: DRR, CoDel on each */
	__TC_DFS_SCHED_MAX
};

#define TC_DFS_SCHED_MAX	(__TC_DFS_SCHED_MAX - 1)

/* Low-rate attack detection by congestion participation rate (CPR) */
enum tc_dfs_cpr {
	TC_DFS_CPR_OFF,
	TC_DFS_CPR_FIXED,	/* a flow is dropped while its CPR > tau */
	TC_DFS_CPR_ADAPTIVE,	/* tau falls with congestion, climbs without */
	__TC_DFS_CPR_MAX
};

#define TC_DFS_CPR_MAX	(__TC_DFS_CPR_MAX - 1)

/* What makes a CPR sampling period congested */
enum tc_dfs_cpr_signal {
	TC_DFS_CPR_SIGNAL_DROPS,	/* the qdisc dropped or marked (paper) */
	TC_DFS_CPR_SIGNAL_SURGES,	/* more came than the link can send */
	__TC_DFS_CPR_SIGNAL_MAX
};

#define TC_DFS_CPR_SIGNAL_MAX	(__TC_DFS_CPR_SIGNAL_MAX - 1)

enum {
	TCA_DFS_XSTATS_QDISC,
	TCA_DFS_XSTATS_CLASS,
};

struct tc_dfs_qd_stats {
	__u32	flows;		/* flows known (B-tree + cache) */
	__u32	btree_flows;
	__u32	cache_flows;
	__u32	malicious;	/* flows marked malicious */
	__u32	trending;	/* flows whose bitrate is tracked */
	__u32	active_flows;	/* n of Eq. (1), weighed by rate */
	__u32	btree_height;
	__u32	wfs;		/* EWMA of wfs, bytes */
	__u64	fair_rate;	/* fair bitrate, bytes/s */
	__u64	new_flows;
	__u64	pruned;
	__u64	ecn_marked;
	__u64	drop_overlimit;	/* buffer full (Alg. 1 line 2) */
	__u64	drop_malicious;	/* flow marked malicious */
	__u64	drop_wfs;	/* over wfs and not ECN capable */
	__u64	flows_overflow;	/* packets of new flows past the flows cap */
	__u64	memory_usage;	/* bytes of flow state */
	__u64	fq_flows;	/* sched fq: flows with a queue */
	__u64	fq_new_flows;	/* sched fq: flows that joined the new flows */
	__u64	codel_drops;	/* sched fq: dropped by CoDel */
	__u64	codel_marks;	/* sched fq: CE marked by CoDel */
	__u64	drop_nomem;	/* sched fq: no memory for a flow's queue */
	__u64	drop_overmemory; /* queued skbs at memory_limit */
	__u64	queue_memory;	/* bytes of queued skbs (truesize) */
	__u32	cpr_tau;	/* tau now, TC_DFS_ONE = 1.0 */
	__u32	cpr_csr;	/* congested periods / periods, TC_DFS_ONE */
	__u32	cpr_flows;	/* flows whose CPR is over tau */
	__u32	pad;
	__u64	cpr_periods;	/* sampling periods ended */
	__u64	cpr_congested;	/* of them, congested */
	__u64	drop_cpr;	/* packets of flows over tau */
	__u64	cpr_surges;	/* periods whose arrivals swamped the link */
	__u32	cpr_period;	/* usec, the sampling period in force */
	__u32	pad2;
	__u64	fq_queues;	/* sched fq: flow queues of the pool in use */
	__u64	fq_overflow;	/* sched fq: packets that found their set of
				 * the pool full, queued with their key's
				 * first flow
				 */
	__u32	index_flows;	/* B-tree flows the hash index holds */
	__u32	index_buckets;	/* its size, 64-byte buckets of 5 */
	__u64	drop_shared;	/* dfs_mq: packets of a key another tx
				 * queue flagged
				 */
	__u64	mq_unshared;	/* dfs_mq: keys this queue flagged that the
				 * root's table had no room for
				 */
	__u64	fq_boosts;	/* sched fq: packets of a new connection of
				 * a busy key, sent ahead of the round
				 */
};

/* One flow held in the malicious-flow cache, reported as a class. */
struct tc_dfs_cl_stats {
	__u8	family;		/* AF_INET, AF_INET6 or 0 (non-IP) */
	__u8	proto;
	__u16	flags;		/* TC_DFS_FLOW_* */
	__be16	sport;
	__be16	dport;
	__u8	src[16];
	__u8	dst[16];
	__u32	pm;		/* TC_DFS_ONE = 1.0 */
	__u32	backlog;	/* bytes in the buffer */
	__u64	bitrate;	/* bytes/s */
	__u32	cpr;		/* TC_DFS_ONE = 1.0 */
	__u32	cpr_packets;	/* the packets it is counted over */
};

#define TC_DFS_FLOW_MALICIOUS	0x1	/* dropped: its rate (p_m at max_th) */
#define TC_DFS_FLOW_TRENDING	0x2
#define TC_DFS_FLOW_CPR		0x4	/* dropped: its CPR is over tau */

struct tc_dfs_xstats {
	__u32	type;		/* TCA_DFS_XSTATS_* */
	__u32	pad;
	union {
		struct tc_dfs_qd_stats	qdisc_stats;
		struct tc_dfs_cl_stats	class_stats;
	};
};

#endif /* _UAPI_LINUX_PKT_SCHED_DFS_H */
