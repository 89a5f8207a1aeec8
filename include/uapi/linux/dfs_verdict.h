/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Verdicts of the DFS qdisc (sch_dfs) for userspace, over generic netlink:
 * a family with a multicast group of events, sent when a flow (key) is
 * flagged or released, and a dump of the keys a qdisc flags now.
 *
 * Events are sent in batches, several messages to a datagram, from a
 * worker outside the data path; a qdisc keeps a small ring of pending
 * events, and when it fills the events past it are lost and counted.  A
 * listener told of a loss (DFS_VERDICT_CMD_LOST) must dump the qdisc
 * (DFS_VERDICT_CMD_GET) to learn the keys it flags, having joined the
 * group first so that nothing between the two goes unseen.
 */
#ifndef _UAPI_LINUX_DFS_VERDICT_H
#define _UAPI_LINUX_DFS_VERDICT_H

#define DFS_VERDICT_GENL_NAME		"dfs_verdict"
#define DFS_VERDICT_GENL_VERSION	1
#define DFS_VERDICT_MCGRP_VERDICTS	"verdicts"

enum dfs_verdict_cmd {
	DFS_VERDICT_CMD_UNSPEC,
	DFS_VERDICT_CMD_FLAG,		/* event, and each key of a dump: the
					 * key is flagged, for REASON
					 */
	DFS_VERDICT_CMD_RELEASE,	/* event: no longer flagged (CAUSE) */
	DFS_VERDICT_CMD_FLUSH,		/* event: every key of the qdisc is
					 * released (reset, new key mode,
					 * qdisc deleted)
					 */
	DFS_VERDICT_CMD_LOST,		/* event: events were lost; dump */
	DFS_VERDICT_CMD_GET,		/* dump request: IFINDEX and HANDLE
					 * (of a dfs, or of a dfs_mq root)
					 */
	__DFS_VERDICT_CMD_MAX
};

#define DFS_VERDICT_CMD_MAX	(__DFS_VERDICT_CMD_MAX - 1)

enum {
	DFS_VERDICT_A_UNSPEC,
	DFS_VERDICT_A_PAD,
	DFS_VERDICT_A_IFINDEX,	/* u32: the qdisc's device */
	DFS_VERDICT_A_HANDLE,	/* u32: the qdisc's handle */
	DFS_VERDICT_A_KEY_MODE,	/* u32: enum tc_flowkey_mode */
	DFS_VERDICT_A_FAMILY,	/* u8: AF_INET, AF_INET6, 0 (not IP) */
	DFS_VERDICT_A_SRC,	/* binary: 4 or 16 bytes, if the key has it */
	DFS_VERDICT_A_DST,	/* binary: 4 or 16 bytes, if the key has it */
	DFS_VERDICT_A_PROTO,	/* u8: key 5tuple */
	DFS_VERDICT_A_SPORT,	/* be16: key 5tuple */
	DFS_VERDICT_A_DPORT,	/* be16: key 5tuple */
	DFS_VERDICT_A_OVERFLOW,	/* flag: the flow shared by the new keys past
				 * the qdisc's "flows" (no key)
				 */
	DFS_VERDICT_A_REASON,	/* u32: TC_DFS_FLOW_MALICIOUS, TC_DFS_FLOW_CPR
				 * (the dfs qdisc's flow flags): FLAG, why now;
				 * RELEASE, why it was flagged
				 */
	DFS_VERDICT_A_RATE,	/* u64: bytes/s, its last measured bitrate */
	DFS_VERDICT_A_TIME,	/* u64: ns, CLOCK_MONOTONIC: when the qdisc
				 * saw the change (events only)
				 */
	DFS_VERDICT_A_CAUSE,	/* u32: enum dfs_verdict_cause (RELEASE) */
	DFS_VERDICT_A_LOST,	/* u64: events lost since the last LOST */
	DFS_VERDICT_A_QUEUE,	/* u32: under dfs_mq, the tx queue whose dfs
				 * sent it (HANDLE is then the root's, and a
				 * dump of it lists every queue's keys)
				 */
	__DFS_VERDICT_A_MAX
};

#define DFS_VERDICT_A_MAX	(__DFS_VERDICT_A_MAX - 1)

enum dfs_verdict_cause {
	DFS_VERDICT_CAUSE_JUDGED,	/* the detector let it go */
	DFS_VERDICT_CAUSE_PRUNED,	/* idle, forgotten while flagged */
	__DFS_VERDICT_CAUSE_MAX
};

#endif /* _UAPI_LINUX_DFS_VERDICT_H */
