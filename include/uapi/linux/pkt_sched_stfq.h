/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Start-time Fair Queuing (STFQ) qdisc: netlink attributes and statistics.
 *
 * Written in the style of include/uapi/linux/pkt_sched.h so that the block
 * can move there unchanged when the qdisc goes in-tree.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_STFQ_H
#define _UAPI_LINUX_PKT_SCHED_STFQ_H

#include <linux/types.h>

/* Weights of the classes: 1..TC_STFQ_WEIGHT_MAX, default 1. */
#define TC_STFQ_WEIGHT_MAX	65536U

enum {
	TCA_STFQ_UNSPEC,
	TCA_STFQ_DEFCLS,	/* u32: qdisc: minor of the default class, 0 none */
	TCA_STFQ_WEIGHT,	/* u32: class: weight */
	__TCA_STFQ_MAX
};

#define TCA_STFQ_MAX	(__TCA_STFQ_MAX - 1)

enum {
	TCA_STFQ_XSTATS_QDISC,
	TCA_STFQ_XSTATS_CLASS,
};

struct tc_stfq_qd_stats {
	__u64	vtime;		/* virtual time: start tag in service */
	__u64	drop_unclassified; /* no class and no default class */
	__u32	classes;
	__u32	active;		/* classes with packets queued */
};

struct tc_stfq_cl_stats {
	__u64	start;		/* start tag of the head packet */
	__u64	finish;		/* finish tag of the last packet served */
	__u32	weight;
	__u32	active;		/* 1: packets queued */
};

struct tc_stfq_xstats {
	__u32	type;		/* TCA_STFQ_XSTATS_* */
	__u32	pad;
	union {
		struct tc_stfq_qd_stats	qdisc_stats;
		struct tc_stfq_cl_stats	class_stats;
	};
};

#endif /* _UAPI_LINUX_PKT_SCHED_STFQ_H */
