/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Flow key modes: what makes a flow to the qdiscs and classifiers that
 * keep exact per-flow state (net/flowkey.h).  One enum for all of them,
 * so that a mode is the same flow to each.
 *
 * Written in the style of include/uapi/linux/pkt_sched.h so that the block
 * can move there unchanged when the flow key goes in-tree.
 */
#ifndef _UAPI_LINUX_PKT_FLOWKEY_H
#define _UAPI_LINUX_PKT_FLOWKEY_H

enum tc_flowkey_mode {
	TC_FLOWKEY_SRCDST,	/* source and destination address */
	TC_FLOWKEY_SRC,		/* source address: a flow per host */
	TC_FLOWKEY_DST,		/* destination address */
	TC_FLOWKEY_5TUPLE,	/* addresses, protocol and ports */
	__TC_FLOWKEY_MAX
};

#define TC_FLOWKEY_MAX	(__TC_FLOWKEY_MAX - 1)

#endif /* _UAPI_LINUX_PKT_FLOWKEY_H */
