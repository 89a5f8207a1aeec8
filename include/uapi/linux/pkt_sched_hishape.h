/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * HiShape qdisc (per-source-range shaping): netlink attributes and
 * statistics.
 *
 * Written in the style of include/uapi/linux/pkt_sched.h so that the block
 * can move there unchanged when the qdisc goes in-tree.
 *
 * A range table is too large for one netlink message (100,000 ranges of
 * struct tc_hishape_range are 4.8 MB), so it is loaded in steps, each an
 * RTM_NEWQDISC "change" (the first may ride on the "add"):
 *
 *   1. TCA_HISHAPE_LOAD_BEGIN: the load's id (any value the loader picks)
 *      and the number of IPv4 and IPv6 ranges (E2BIG beyond the module's
 *      max_ranges).  The kernel makes an empty table beside the one
 *      serving, which takes memory as ranges arrive; a BEGIN drops any
 *      earlier load not committed, and so does 10 s with no step.
 *   2. TCA_HISHAPE_LOAD_ID, TCA_HISHAPE_LOAD_OFFSET and TCA_HISHAPE_LOAD_RANGES
 *      as often as needed: ranges in ascending order within each family,
 *      OFFSET the number of ranges sent before this chunk, so a lost or
 *      repeated chunk is refused rather than shifting the table.  Each
 *      range is checked as it is added; a refused chunk ends the load.
 *   3. TCA_HISHAPE_LOAD_COMMIT with the id: the table, complete, replaces
 *      the one serving at once.  Packets queued in an old range stay
 *      queued in the new range of the same bounds, which keeps the old
 *      one's bucket if its rate and burst are the same; those of a range
 *      the new table lacks are then in no range.
 *
 * Until the commit the old table serves, unchanged.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_HISHAPE_H
#define _UAPI_LINUX_PKT_SCHED_HISHAPE_H

#include <linux/types.h>

enum {
	TC_HISHAPE_MATCH_SRC,	/* shape by source address (default) */
	TC_HISHAPE_MATCH_DST,
	__TC_HISHAPE_MATCH_MAX
};

#define TC_HISHAPE_MATCH_MAX	(__TC_HISHAPE_MATCH_MAX - 1)

enum {
	TC_HISHAPE_DEFAULT_PASS,	/* addresses in no range pass (default) */
	TC_HISHAPE_DEFAULT_DROP,
	__TC_HISHAPE_DEFAULT_MAX
};

#define TC_HISHAPE_DEFAULT_MAX	(__TC_HISHAPE_DEFAULT_MAX - 1)

enum {
	TCA_HISHAPE_UNSPEC,
	TCA_HISHAPE_MATCH,		/* u32: TC_HISHAPE_MATCH_* */
	TCA_HISHAPE_DEFAULT,		/* u32: TC_HISHAPE_DEFAULT_* */
	TCA_HISHAPE_LIMIT,		/* u32: packets one range may queue */
	TCA_HISHAPE_MEMORY_LIMIT,	/* u32: bytes (truesize) queued in all */
	TCA_HISHAPE_LOAD_BEGIN,		/* struct tc_hishape_load */
	TCA_HISHAPE_LOAD_ID,		/* u32: the load a chunk belongs to */
	TCA_HISHAPE_LOAD_OFFSET,	/* u32: ranges sent before this chunk */
	TCA_HISHAPE_LOAD_RANGES,	/* struct tc_hishape_range[] */
	TCA_HISHAPE_LOAD_COMMIT,	/* u32: the load's id */
	TCA_HISHAPE_RANGES4,		/* u32, dump only: IPv4 ranges serving */
	TCA_HISHAPE_RANGES6,		/* u32, dump only: IPv6 ranges serving */
	TCA_HISHAPE_TOP,		/* nested, dump only: busiest ranges */
	TCA_HISHAPE_PASS_LIMIT,		/* u32: packets in no range queued */
	__TCA_HISHAPE_MAX
};

#define TCA_HISHAPE_MAX	(__TCA_HISHAPE_MAX - 1)

struct tc_hishape_load {
	__u32	id;
	__u32	ranges4;
	__u32	ranges6;
};

/* One range: [start, end] of one family, its rate and bucket. */
struct tc_hishape_range {
	__u8	family;		/* AF_INET or AF_INET6 */
	__u8	pad[3];
	__u32	burst;		/* bytes */
	__u64	rate;		/* bytes per second */
	__u8	start[16];	/* network order; IPv4 in the first 4 bytes */
	__u8	end[16];
};

/* In TCA_HISHAPE_TOP, one TCA_HISHAPE_TOP_RANGE nest per range. */
enum {
	TCA_HISHAPE_TOP_UNSPEC,
	TCA_HISHAPE_TOP_RANGE,		/* nested TCA_HISHAPE_TR_* */
	__TCA_HISHAPE_TOP_MAX
};

enum {
	TCA_HISHAPE_TR_UNSPEC,
	TCA_HISHAPE_TR_FAMILY,		/* u8 */
	TCA_HISHAPE_TR_START,		/* binary: 4 or 16 bytes */
	TCA_HISHAPE_TR_END,
	TCA_HISHAPE_TR_RATE,		/* u64: bytes per second */
	TCA_HISHAPE_TR_BYTES,		/* u64: bytes sent */
	TCA_HISHAPE_TR_DROPS,		/* u32: packets dropped, queue full */
	TCA_HISHAPE_TR_PAD,
	__TCA_HISHAPE_TR_MAX
};

#define TCA_HISHAPE_TR_MAX	(__TCA_HISHAPE_TR_MAX - 1)

struct tc_hishape_xstats {
	__u64	lookups;	/* packets looked up in the table */
	__u64	passed;		/* in no range */
	__u64	control;	/* ARP, neighbour discovery: the control queue */
	__u64	conforming;	/* in a range, within its rate on arrival */
	__u64	shaped;		/* in a range, held back for its rate */
	__u64	drop_range;	/* dropped: their range's queue was full */
	__u64	drop_pass;	/* dropped: pass (or control) queue full */
	__u64	drop_default;	/* dropped: in no range, "default drop" */
	__u64	drop_overmemory; /* dropped: memory_limit reached */
	__u64	drop_noslot;	/* dropped: no memory for a range's queue */
	__u64	memory_usage;	/* bytes: table, queues, queued skbs */
	__u32	ranges;		/* in the table serving */
	__u32	backlogged;	/* ranges with packets queued */
	__u32	loads;		/* tables committed */
	__u32	pad;
};

#endif /* _UAPI_LINUX_PKT_SCHED_HISHAPE_H */
