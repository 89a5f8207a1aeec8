/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * LRU-FQ flow classifier (lrufq): netlink attributes and statistics.
 *
 * Written in the style of include/uapi/linux/pkt_cls.h so that the block
 * can move there unchanged when the classifier goes in-tree.
 */
#ifndef _UAPI_LINUX_PKT_CLS_LRUFQ_H
#define _UAPI_LINUX_PKT_CLS_LRUFQ_H

#include <linux/types.h>

/* Admission probability: TC_LRUFQ_PROB_ONE = 1.0. */
#define TC_LRUFQ_PROB_ONE	0xffffffffU
#define TC_LRUFQ_CACHE_MAX	4096U
#define TC_LRUFQ_WINDOW_MAX	60000000U	/* us */
/* A flow with more packets than the threshold is high; a count stops at
 * 2^32 - 1.
 */
#define TC_LRUFQ_THRESHOLD_MAX	0xfffffffeU
/* At most this many cached flows, most recent first, in TCA_LRUFQ_FLOWS:
 * in a dump asked for with CAP_NET_ADMIN, as many as fit in a message of
 * NLMSG_GOODSIZE.
 */
#define TC_LRUFQ_DUMP_MAX	64U

enum {
	TCA_LRUFQ_UNSPEC,
	TCA_LRUFQ_HIGH,		/* u32: classid of the high-bandwidth flows */
	TCA_LRUFQ_LOW,		/* u32: classid of all other packets */
	TCA_LRUFQ_CACHE,	/* u32: LRU slots, 1..TC_LRUFQ_CACHE_MAX */
	TCA_LRUFQ_PROB,		/* u32: admission on a miss, PROB_ONE = 1.0 */
	TCA_LRUFQ_THRESHOLD,	/* u32: packets, 1..TC_LRUFQ_THRESHOLD_MAX */
	TCA_LRUFQ_KEY,		/* u32: enum tc_flowkey_mode */
	TCA_LRUFQ_PIN_RATE,	/* u64: bytes/s that pin a flow, 0 = off */
	TCA_LRUFQ_ACT,		/* nested: actions */
	TCA_LRUFQ_STATS,	/* struct tc_lrufq_stats (dump only) */
	TCA_LRUFQ_FLOWS,	/* struct tc_lrufq_flow[] (dump only) */
	TCA_LRUFQ_PAD,
	TCA_LRUFQ_WINDOW,	/* u32: us a count lasts, 0 = since admitted */
	__TCA_LRUFQ_MAX
};

#define TCA_LRUFQ_MAX	(__TCA_LRUFQ_MAX - 1)

struct tc_lrufq_stats {
	__u64	hits;		/* packets of cached flows */
	__u64	misses;		/* packets of other flows */
	__u64	admissions;	/* misses that took a slot */
	__u64	evictions;	/* flows replaced at the bottom */
	__u64	high;		/* packets sent to the high class */
	__u64	low;		/* packets sent to the low class */
	__u64	pin_skips;	/* pinned flows passed over for eviction */
	__u32	cached;		/* flows in the cache */
	__u32	pinned;		/* of which pinned */
};

/* The verdict at the flow's last packet: more packets than the threshold
 * in the window up to it (this window's count, plus the last window's
 * pro rata of the part of it still within a window of that packet), or
 * since admission with a window of 0.
 */
#define TC_LRUFQ_FLOW_HIGH	0x1
#define TC_LRUFQ_FLOW_PINNED	0x2

struct tc_lrufq_flow {
	__u8	src[16];	/* IPv4: the first 4 bytes */
	__u8	dst[16];
	__be16	sport;
	__be16	dport;
	__u8	proto;
	__u8	family;		/* AF_INET, AF_INET6, 0: not IP */
	__u16	flags;		/* TC_LRUFQ_FLOW_* */
	__u32	count;		/* packets in this window (or since admitted) */
	__u32	last;		/* packets in the last window */
	__u64	rate;		/* bytes/s of the last window (pin) */
};

#endif /* _UAPI_LINUX_PKT_CLS_LRUFQ_H */
