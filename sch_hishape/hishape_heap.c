// SPDX-License-Identifier: GPL-2.0
/* The time-ordered heap of backlogged ranges (hishape_heap.h). */
#include "hishape_heap.h"

int hishape_heap_init(struct hishape_heap *h, u32 cap, gfp_t gfp)
{
	u32 i;

	h->n = 0;
	h->cap = cap;
	h->ent = kvcalloc(cap, sizeof(*h->ent), gfp);
	h->pos = kvcalloc(cap, sizeof(*h->pos), gfp);
	if (!h->ent || !h->pos) {
		hishape_heap_destroy(h);
		return -ENOMEM;
	}
	for (i = 0; i < cap; i++)
		h->pos[i] = U32_MAX;
	return 0;
}

void hishape_heap_destroy(struct hishape_heap *h)
{
	kvfree(h->ent);
	kvfree(h->pos);
	h->ent = NULL;
	h->pos = NULL;
	h->n = 0;
	h->cap = 0;
}

static void hishape_heap_put(struct hishape_heap *h, u32 i,
			     struct hishape_hent e)
{
	h->ent[i] = e;
	h->pos[e.slot] = i;
}

/* Move the entry at i towards the root while it is earlier than its parent. */
static void hishape_heap_up(struct hishape_heap *h, u32 i)
{
	struct hishape_hent e = h->ent[i];

	while (i) {
		u32 parent = (i - 1) / 2;

		if (h->ent[parent].time <= e.time)
			break;
		hishape_heap_put(h, i, h->ent[parent]);
		i = parent;
	}
	hishape_heap_put(h, i, e);
}

/* Move the entry at i down while a child is earlier. */
static void hishape_heap_down(struct hishape_heap *h, u32 i)
{
	struct hishape_hent e = h->ent[i];

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->ent[c + 1].time < h->ent[c].time)
			c++;
		if (e.time <= h->ent[c].time)
			break;
		hishape_heap_put(h, i, h->ent[c]);
		i = c;
	}
	hishape_heap_put(h, i, e);
}

/* slot < cap, not in the heap: the heap has room for every slot. */
void hishape_heap_add(struct hishape_heap *h, u32 slot, u64 time)
{
	struct hishape_hent e = { .time = time, .slot = slot };

	hishape_heap_put(h, h->n++, e);
	hishape_heap_up(h, h->n - 1);
}

/* A new time for a slot in the heap, earlier or later. */
void hishape_heap_set(struct hishape_heap *h, u32 slot, u64 time)
{
	u32 i = h->pos[slot];
	u64 old = h->ent[i].time;

	h->ent[i].time = time;
	if (time < old)
		hishape_heap_up(h, i);
	else
		hishape_heap_down(h, i);
}

void hishape_heap_del(struct hishape_heap *h, u32 slot)
{
	u32 i = h->pos[slot];
	struct hishape_hent last = h->ent[--h->n];

	h->pos[slot] = U32_MAX;
	if (i == h->n)
		return;
	hishape_heap_put(h, i, last);
	/* the last leaf may belong above or below the hole it fills */
	if (i && h->ent[(i - 1) / 2].time > last.time)
		hishape_heap_up(h, i);
	else
		hishape_heap_down(h, i);
}
