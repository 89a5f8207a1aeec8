// SPDX-License-Identifier: GPL-2.0
/*
 * Building the range table of sch_hishape (hishape_table.h): grown as the
 * loader's ranges arrive, filled in ascending order, every range checked
 * as it is added, so a table is never complete and wrong.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "hishape_table.h"

/* The first arrays a family gets: a page of IPv4 starts.  The unit tests
 * start smaller, to grow tables of a few ranges.
 */
#ifndef HISHAPE_CAP_MIN
#define HISHAPE_CAP_MIN		1024
#endif

struct hishape_table *hishape_table_alloc(u32 max4, u32 max6, gfp_t gfp)
{
	struct hishape_table *t;

	if (max4 > HISHAPE_RANGES_MAX || max6 > HISHAPE_RANGES_MAX)
		return NULL;
	t = kzalloc(sizeof(*t), gfp);
	if (!t)
		return NULL;
	t->max4 = max4;
	t->max6 = max6;
	t->gfp = gfp;
	return t;
}

void hishape_table_free(struct hishape_table *t)
{
	if (!t)
		return;
	kvfree(t->start4);
	kvfree(t->end4);
	kvfree(t->range4);
	kvfree(t->start6);
	kvfree(t->end6);
	kvfree(t->range6);
	kfree(t);
}

size_t hishape_table_bytes(const struct hishape_table *t)
{
	return sizeof(*t) +
	       (size_t)t->cap4 * (2 * sizeof(u32) + sizeof(struct hishape_range)) +
	       (size_t)t->cap6 * (2 * sizeof(struct hishape_in6) +
				  sizeof(struct hishape_range));
}

/* Room for twice the ranges, or all that were announced if fewer. */
static u32 hishape_next_cap(u32 cap, u32 max)
{
	return min_t(u64, max_t(u64, 2ULL * cap, HISHAPE_CAP_MIN), max);
}

/*
 * Arrays of @cap elements with the @n of @old in front.  All three of a
 * family are made before any replaces its old one, so a failure leaves
 * the table as it was.
 */
static bool hishape_grow(void **arr[3], const size_t size[3], u32 n, u32 cap,
			 gfp_t gfp)
{
	void *p[3];
	int i;

	for (i = 0; i < 3; i++) {
		p[i] = kvcalloc(cap, size[i], gfp);
		if (!p[i]) {
			while (i--)
				kvfree(p[i]);
			return false;
		}
	}
	for (i = 0; i < 3; i++) {
		if (n)
			memcpy(p[i], *arr[i], (size_t)n * size[i]);
		kvfree(*arr[i]);
		*arr[i] = p[i];
	}
	return true;
}

static bool hishape_grow4(struct hishape_table *t)
{
	void **arr[3] = { (void **)&t->start4, (void **)&t->end4,
			  (void **)&t->range4 };
	static const size_t size[3] = {
		sizeof(u32), sizeof(u32), sizeof(struct hishape_range),
	};
	u32 cap = hishape_next_cap(t->cap4, t->max4);

	if (!hishape_grow(arr, size, t->n4, cap, t->gfp))
		return false;
	t->cap4 = cap;
	return true;
}

static bool hishape_grow6(struct hishape_table *t)
{
	void **arr[3] = { (void **)&t->start6, (void **)&t->end6,
			  (void **)&t->range6 };
	static const size_t size[3] = {
		sizeof(struct hishape_in6), sizeof(struct hishape_in6),
		sizeof(struct hishape_range),
	};
	u32 cap = hishape_next_cap(t->cap6, t->max6);

	if (!hishape_grow(arr, size, t->n6, cap, t->gfp))
		return false;
	t->cap6 = cap;
	return true;
}

static enum hishape_add_err hishape_check_rate(u64 rate, u32 burst)
{
	if (rate < HISHAPE_RATE_MIN || rate > HISHAPE_RATE_MAX)
		return HISHAPE_ADD_RATE;
	if (burst > HISHAPE_BURST_MAX)
		return HISHAPE_ADD_BURST;
	return HISHAPE_ADD_OK;
}

static void hishape_range_init(struct hishape_range *r, u64 rate, u32 burst)
{
	hishape_rate_init(&r->rate, rate, burst);
	r->bytes = 0;
	r->drops = 0;
	r->slot = HISHAPE_NONE;
}

enum hishape_add_err hishape_table_add4(struct hishape_table *t, u32 start,
					u32 end, u64 rate, u32 burst)
{
	enum hishape_add_err err;

	if (t->n4 == t->max4)
		return HISHAPE_ADD_FULL;
	if (start > end)
		return HISHAPE_ADD_REVERSED;
	if (t->n4 && start <= t->end4[t->n4 - 1])
		return HISHAPE_ADD_UNSORTED;
	err = hishape_check_rate(rate, burst);
	if (err)
		return err;
	if (t->n4 == t->cap4 && !hishape_grow4(t))
		return HISHAPE_ADD_NOMEM;
	t->start4[t->n4] = start;
	t->end4[t->n4] = end;
	hishape_range_init(&t->range4[t->n4], rate, burst);
	t->n4++;
	return HISHAPE_ADD_OK;
}

enum hishape_add_err hishape_table_add6(struct hishape_table *t,
					const struct hishape_in6 *start,
					const struct hishape_in6 *end,
					u64 rate, u32 burst)
{
	enum hishape_add_err err;

	if (t->n6 == t->max6)
		return HISHAPE_ADD_FULL;
	if (!hishape_in6_le(start, end))
		return HISHAPE_ADD_REVERSED;
	if (t->n6 && hishape_in6_le(start, &t->end6[t->n6 - 1]))
		return HISHAPE_ADD_UNSORTED;
	err = hishape_check_rate(rate, burst);
	if (err)
		return err;
	if (t->n6 == t->cap6 && !hishape_grow6(t))
		return HISHAPE_ADD_NOMEM;
	t->start6[t->n6] = *start;
	t->end6[t->n6] = *end;
	hishape_range_init(&t->range6[t->n6], rate, burst);
	t->n6++;
	return HISHAPE_ADD_OK;
}

static bool hishape_same_rate(const struct hishape_rate *a,
			      const struct hishape_rate *b)
{
	return a->mult == b->mult && a->shift == b->shift &&
	       a->burst == b->burst;
}

/* A range of @old kept by @t: @map says where, and its bucket goes with
 * it if its rate did not change.  tat is read once: the data path may be
 * charging the old range meanwhile.
 */
static void hishape_carry_one(const struct hishape_table *old, u32 i,
			      struct hishape_table *t, u32 j, u32 *map)
{
	const struct hishape_range *a = hishape_range(old, i);
	struct hishape_range *b = hishape_range(t, j);

	map[i] = j;
	if (hishape_same_rate(&a->rate, &b->rate))
		b->rate.tat = READ_ONCE(a->rate.tat);
}

/*
 * What a reload keeps: for each range of @old, map[] gets the index of the
 * range of @t with the same bounds, or HISHAPE_NONE; a range kept with its
 * rate and burst keeps its bucket, so a reload gives no range a fresh
 * burst.  Both tables complete; one merge of the sorted starts, O(n).
 */
void hishape_table_carry(const struct hishape_table *old,
			 struct hishape_table *t, u32 *map)
{
	u32 i, j;

	for (i = 0, j = 0; i < old->n4; i++) {
		map[i] = HISHAPE_NONE;
		while (j < t->n4 && t->start4[j] < old->start4[i])
			j++;
		if (j < t->n4 && t->start4[j] == old->start4[i] &&
		    t->end4[j] == old->end4[i])
			hishape_carry_one(old, i, t, j, map);
	}
	for (i = 0, j = 0; i < old->n6; i++) {
		const struct hishape_in6 *s = &old->start6[i];

		map[old->n4 + i] = HISHAPE_NONE;
		while (j < t->n6 && !hishape_in6_le(s, &t->start6[j]))
			j++;
		if (j < t->n6 && hishape_in6_le(&t->start6[j], s) &&
		    !memcmp(&t->end6[j], &old->end6[i], sizeof(*s)))
			hishape_carry_one(old, old->n4 + i, t, t->n4 + j, map);
	}
}
