// SPDX-License-Identifier: GPL-2.0
/*
 * Building the range table of sch_hishape (hishape_table.h): allocated
 * for the counts the loader announces, filled in ascending order, every
 * range checked as it is added, so a table is never complete and wrong.
 */
#include <linux/slab.h>

#include "hishape_table.h"

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
	/* kvcalloc() of nothing gives ZERO_SIZE_PTR, which kvfree() takes */
	t->start4 = kvcalloc(max4, sizeof(*t->start4), gfp);
	t->end4 = kvcalloc(max4, sizeof(*t->end4), gfp);
	t->start6 = kvcalloc(max6, sizeof(*t->start6), gfp);
	t->end6 = kvcalloc(max6, sizeof(*t->end6), gfp);
	t->range = kvcalloc((size_t)max4 + max6, sizeof(*t->range), gfp);
	if (!t->start4 || !t->end4 || !t->start6 || !t->end6 || !t->range) {
		hishape_table_free(t);
		return NULL;
	}
	return t;
}

void hishape_table_free(struct hishape_table *t)
{
	if (!t)
		return;
	kvfree(t->start4);
	kvfree(t->end4);
	kvfree(t->start6);
	kvfree(t->end6);
	kvfree(t->range);
	kfree(t);
}

size_t hishape_table_bytes(const struct hishape_table *t)
{
	return sizeof(*t) +
	       (size_t)t->max4 * (2 * sizeof(u32) + sizeof(*t->range)) +
	       (size_t)t->max6 * (2 * sizeof(struct hishape_in6) +
				  sizeof(*t->range));
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
	t->start4[t->n4] = start;
	t->end4[t->n4] = end;
	hishape_range_init(&t->range[t->n4], rate, burst);
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
	t->start6[t->n6] = *start;
	t->end6[t->n6] = *end;
	hishape_range_init(&t->range[t->max4 + t->n6], rate, burst);
	t->n6++;
	return HISHAPE_ADD_OK;
}
