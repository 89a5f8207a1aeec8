/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LRU flow cache of LRU-FQ (Achanta and Reddy, INFOCOM 2003): SLOTS
 * flows in a doubly linked list, most recently seen first, found through a
 * hash table.  A hit moves the flow to the top and counts its packet; a
 * miss replaces the bottom entry with probability p.  A flow whose count
 * passed the threshold is high bandwidth.
 *
 * The paper counts a flow's packets from its admission on, which only
 * means "heavy" while the cache is smaller than the number of flows and
 * keeps evicting them: in a cache with room for every flow, every count
 * passes the threshold in time, TCP's too.  With a window set, a flow's
 * count restarts every window, and a flow is high while it sent more than
 * the threshold in the last window of time: its count in the current
 * window plus its last window's count pro rata of the part of that window
 * still within a window of now (a sliding window, estimated with two
 * counters).  A rate, then, whatever the cache size.  A window of 0 is
 * the paper's count.
 *
 * Pinning (the paper's suggested improvement): with a pin rate set, each
 * cached flow's arrival rate is measured over LRUFQ_RATE_WINDOW_NS, and a
 * flow measured at the pin rate or above is passed over by eviction, which
 * takes the lowest flow that is not pinned among the LRUFQ_EVICT_SCAN
 * lowest, moving the pinned ones it passes to the top.  A pinned flow
 * that went silent for two windows is no longer pinned.
 *
 * Entries are array slots linked by index; the caller serialises all
 * calls (the classifier holds a spinlock).
 */
#ifndef _LRUFQ_LRU_H
#define _LRUFQ_LRU_H

#include <linux/limits.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <net/flowkey.h>
#include <linux/pkt_cls_lrufq.h>

#define LRUFQ_NIL		U32_MAX
#define LRUFQ_RATE_WINDOW_NS	(100 * NSEC_PER_MSEC)
/* Entries a miss looks at for one to evict: a bound on its cost. */
#define LRUFQ_EVICT_SCAN	8
/* The sliding estimate counts time in units of 1.024 us: a count (u32)
 * times a window of at most 60 s (26 bits) fits in 64 bits.
 */
#define LRUFQ_UNIT_SHIFT	10
#define LRUFQ_WINDOW_MIN_NS	NSEC_PER_MSEC
#define LRUFQ_WINDOW_MAX_NS	((u64)TC_LRUFQ_WINDOW_MAX * NSEC_PER_USEC)

struct lrufq_entry {
	struct flowkey	key;
	u32			hash;
	u32			hnext;		/* hash chain */
	u32			prev, next;	/* LRU list: prev is hotter */
	u32			count;		/* packets in this window */
	u32			last;		/* packets in the last one */
	bool			pinned;
	bool			high;		/* at its last packet */
	u64			count_start;	/* ns, start of this window */
	u64			win_start;	/* ns */
	u64			win_bytes;
	u64			rate;		/* bytes/s, last full window */
};

struct lrufq_lru_stats {
	u64	hits;
	u64	misses;
	u64	admissions;
	u64	evictions;
	u64	high;
	u64	low;
	u64	pin_skips;
};

struct lrufq_lru {
	u32			size;		/* slots */
	u32			used;
	u32			top, bottom;	/* most, least recently seen */
	u32			hmask;
	u32			*bucket;
	struct lrufq_entry	*e;
	u32			threshold;	/* packets */
	u32			prob;		/* U32_MAX = 1.0 */
	u64			window;		/* ns, 0: since admission */
	u64			pin_rate;	/* bytes/s, 0: no pinning */
	u32			pinned;
	struct lrufq_lru_stats	stats;
};

int lrufq_lru_init(struct lrufq_lru *l, u32 size, u32 threshold, u32 prob,
		   u64 window, u64 pin_rate);
void lrufq_lru_free(struct lrufq_lru *l);

/* The slot of the flow @key (hash @hash), or LRUFQ_NIL: it is not cached. */
u32 lrufq_lru_lookup(const struct lrufq_lru *l, const struct flowkey *key,
		     u32 hash);
/* A packet of @len bytes at @now ns of the flow cached in slot @i. */
bool lrufq_lru_hit(struct lrufq_lru *l, u32 i, u32 len, u64 now);
/* A packet of a flow not cached and not admitted: the draw refused it,
 * or every slot is pinned.
 */
bool lrufq_lru_refuse(struct lrufq_lru *l);
/* A packet of a flow not cached, which the draw admits: it takes the
 * bottom slot if one can be taken (lrufq_victim()).
 */
bool lrufq_lru_admit(struct lrufq_lru *l, const struct flowkey *key,
		     u32 hash, u32 len, u64 now);

/*
 * One packet of @len bytes of the flow @key (hash @hash): true if the flow
 * is high bandwidth.  @clock(@ctx) is the time in ns and @draw(@ctx) a
 * uniform u32, each asked for only when the packet needs it: the clock by
 * a cached or admitted flow, the draw by a miss unless every miss is
 * admitted.  A hit (all packets of a few heavy flows) takes no draw, a
 * refused miss (most packets of many small flows) reads no clock.
 * Always inline, as rb_add_cached() is with its less(): the caller's
 * @clock and @draw are inlined with it.
 */
static __always_inline bool
lrufq_lru_packet(struct lrufq_lru *l, const struct flowkey *key, u32 hash,
		 u32 len, u64 (*clock)(void *ctx), u32 (*draw)(void *ctx),
		 void *ctx)
{
	u32 i = lrufq_lru_lookup(l, key, hash);

	if (i != LRUFQ_NIL)
		return lrufq_lru_hit(l, i, len, clock(ctx));
	if (l->prob != U32_MAX && draw(ctx) >= l->prob)
		return lrufq_lru_refuse(l);
	return lrufq_lru_admit(l, key, hash, len, clock(ctx));
}

const struct lrufq_entry *lrufq_lru_find(const struct lrufq_lru *l,
					 const struct flowkey *key,
					 u32 hash);

/* The entry at rank i from the top (0 = most recent), or NULL. */
const struct lrufq_entry *lrufq_lru_rank(const struct lrufq_lru *l, u32 i);

#endif /* _LRUFQ_LRU_H */
