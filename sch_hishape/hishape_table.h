/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The range table of sch_hishape: sorted, non-overlapping address ranges
 * [start, end], each with its own rate limit (the paper's Eq. 1), IPv4
 * and IPv6 apart.  A packet's range is the one whose start is the last at
 * or below its address, if the address is also at or below that range's
 * end: one binary search over the starts, O(log n), and one comparison.
 *
 * The starts have an array of their own, so the search walks 4 (IPv4) or
 * 16 (IPv6) bytes a probe and 100,000 IPv4 starts fit in 400 KB; the
 * range's state is touched once, when found.  A table is filled once, in
 * ascending order (the loader appends what tc sends, in chunks), then
 * published whole and never changed but for the state of its ranges: a
 * reload builds another table beside it.
 *
 * The arrays grow as ranges arrive, doubling up to the count the load
 * announced: a load that announces 2^24 ranges and sends ten holds ten,
 * so what a table costs is what was sent, not what was claimed.
 *
 * Per range: 8 bytes of IPv4 bounds or 32 of IPv6, and a struct
 * hishape_range of 32; 40 and 64 bytes in all.
 */
#ifndef _HISHAPE_TABLE_H
#define _HISHAPE_TABLE_H

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/types.h>
#include "hishape_rate.h"

/* No range: an address no range holds, a range with nothing queued. */
#define HISHAPE_NONE		U32_MAX
/* Ranges a table may hold, per family. */
#define HISHAPE_RANGES_MAX	BIT(24)

/* An IPv6 address as a 128-bit number in host order. */
struct hishape_in6 {
	u64	hi;
	u64	lo;
};

struct hishape_range {
	struct hishape_rate rate;
	u64	bytes;		/* sent: passed at once or released */
	u32	drops;		/* dropped: its queue was full */
	u32	slot;		/* the qdisc's backlog slot, or HISHAPE_NONE */
};

/*
 * A range's index: IPv4 ranges at [0, n4), IPv6 ranges at [n4, n4 + n6);
 * hishape_range() finds its state.  Indices are stable once the table is
 * complete, the only time the qdisc uses them.
 */
struct hishape_table {
	u32	n4, n6;		/* ranges added so far */
	u32	max4, max6;	/* ranges the table holds when complete */
	u32	cap4, cap6;	/* ranges the arrays have room for */
	gfp_t	gfp;		/* for growing them */
	u32	*start4;	/* ascending */
	u32	*end4;
	struct hishape_range *range4;
	struct hishape_in6 *start6;
	struct hishape_in6 *end6;
	struct hishape_range *range6;
};

/* Why hishape_table_add*() refused a range. */
enum hishape_add_err {
	HISHAPE_ADD_OK,
	HISHAPE_ADD_FULL,	/* more ranges than announced */
	HISHAPE_ADD_REVERSED,	/* start above end */
	HISHAPE_ADD_UNSORTED,	/* start not above the previous range's end */
	HISHAPE_ADD_RATE,	/* rate outside [RATE_MIN, RATE_MAX] */
	HISHAPE_ADD_BURST,	/* burst above HISHAPE_BURST_MAX */
	HISHAPE_ADD_NOMEM,	/* no memory to grow the table */
};

struct hishape_table *hishape_table_alloc(u32 max4, u32 max6, gfp_t gfp);
void hishape_table_free(struct hishape_table *t);
size_t hishape_table_bytes(const struct hishape_table *t);

enum hishape_add_err hishape_table_add4(struct hishape_table *t, u32 start,
					u32 end, u64 rate, u32 burst);
enum hishape_add_err hishape_table_add6(struct hishape_table *t,
					const struct hishape_in6 *start,
					const struct hishape_in6 *end,
					u64 rate, u32 burst);
void hishape_table_carry(const struct hishape_table *old,
			 struct hishape_table *t, u32 *map);

static inline bool hishape_table_complete(const struct hishape_table *t)
{
	return t->n4 == t->max4 && t->n6 == t->max6;
}

static inline u32 hishape_table_size(const struct hishape_table *t)
{
	return t->n4 + t->n6;
}

static inline struct hishape_range *
hishape_range(const struct hishape_table *t, u32 idx)
{
	return idx < t->n4 ? &t->range4[idx] : &t->range6[idx - t->n4];
}

static inline bool hishape_in6_le(const struct hishape_in6 *a,
				  const struct hishape_in6 *b)
{
	return a->hi < b->hi || (a->hi == b->hi && a->lo <= b->lo);
}

/*
 * The index of the last start at or below x, or HISHAPE_NONE.  Branch
 * free: the window halves every step whatever the comparison says, so
 * the compiler makes the step a conditional move and the CPU has no
 * branch to mispredict, which a search over random addresses would do
 * at every other probe.
 */
static inline u32 hishape_last_le4(const u32 *start, u32 n, u32 x)
{
	const u32 *base = start;

	if (!n)
		return HISHAPE_NONE;
	while (n > 1) {
		u32 half = n / 2;

		base = base[half] <= x ? base + half : base;
		n -= half;
	}
	return *base <= x ? base - start : HISHAPE_NONE;
}

static inline u32 hishape_last_le6(const struct hishape_in6 *start, u32 n,
				   const struct hishape_in6 *x)
{
	const struct hishape_in6 *base = start;

	if (!n)
		return HISHAPE_NONE;
	while (n > 1) {
		u32 half = n / 2;

		base = hishape_in6_le(&base[half], x) ? base + half : base;
		n -= half;
	}
	return hishape_in6_le(base, x) ? base - start : HISHAPE_NONE;
}

/* The range holding an address, its index in t->range, or HISHAPE_NONE. */
static inline u32 hishape_lookup4(const struct hishape_table *t, u32 addr)
{
	u32 i = hishape_last_le4(t->start4, t->n4, addr);

	return i != HISHAPE_NONE && addr <= t->end4[i] ? i : HISHAPE_NONE;
}

static inline u32 hishape_lookup6(const struct hishape_table *t,
				  const struct hishape_in6 *addr)
{
	u32 i = hishape_last_le6(t->start6, t->n6, addr);

	return i != HISHAPE_NONE && hishape_in6_le(addr, &t->end6[i]) ?
	       t->n4 + i : HISHAPE_NONE;
}

#endif /* _HISHAPE_TABLE_H */
