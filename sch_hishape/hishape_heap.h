/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ranges that have packets queued, ordered by the time their first
 * packet may leave: a binary min-heap of backlog slots keyed by that
 * time, with each slot's position kept so that a slot's time can change
 * and a slot can leave from anywhere in O(log n).
 *
 * The qdisc's dequeue takes the earliest slot whose time has come (ranges
 * are served in the order their packets became eligible, so none waits
 * behind another for longer than its own rate makes it) and arms its
 * watchdog for the earliest time otherwise.  An array rather than an
 * rbtree as sch_fq keeps its throttled flows: 20 bytes a slot, no pointer
 * chasing, and the same code in the unit tests; lib/min_heap.h keeps no
 * positions and changed its interface in 6.11.
 *
 * Slots are small integers the caller owns, below the capacity given at
 * init; ranges have none until they queue a packet, so an idle range
 * costs the heap nothing.
 */
#ifndef _HISHAPE_HEAP_H
#define _HISHAPE_HEAP_H

#include "core_env.h"

struct hishape_hent {
	u64	time;
	u32	slot;
};

struct hishape_heap {
	u32	n;		/* slots in the heap */
	u32	cap;		/* slots there may be */
	struct hishape_hent *ent;	/* ent[0] the earliest */
	u32	*pos;		/* pos[slot]: its index in ent, or U32_MAX */
};

int hishape_heap_init(struct hishape_heap *h, u32 cap, gfp_t gfp);
void hishape_heap_destroy(struct hishape_heap *h);

void hishape_heap_add(struct hishape_heap *h, u32 slot, u64 time);
void hishape_heap_set(struct hishape_heap *h, u32 slot, u64 time);
void hishape_heap_del(struct hishape_heap *h, u32 slot);

static inline bool hishape_heap_has(const struct hishape_heap *h, u32 slot)
{
	return h->pos[slot] != U32_MAX;
}

/* The earliest slot and its time; the heap must not be empty. */
static inline const struct hishape_hent *
hishape_heap_first(const struct hishape_heap *h)
{
	return &h->ent[0];
}

#endif /* _HISHAPE_HEAP_H */
