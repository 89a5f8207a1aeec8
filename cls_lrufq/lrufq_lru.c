// SPDX-License-Identifier: GPL-2.0
/*
 * LRU flow cache of LRU-FQ, see lrufq_lru.h.  Plain C: built into
 * cls_lrufq and into the userspace unit tests.
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "lrufq_lru.h"

int lrufq_lru_init(struct lrufq_lru *l, u32 size, u32 threshold, u32 prob,
		   u64 window, u64 pin_rate)
{
	u32 nb = 1, i;

	memset(l, 0, sizeof(*l));
	if (!size || (window && (window < LRUFQ_WINDOW_MIN_NS ||
				 window > LRUFQ_WINDOW_MAX_NS)))
		return -EINVAL;
	while (nb < 2 * size)
		nb <<= 1;
	/* kvcalloc: no high-order pages needed for a large cache; and
	 * charged to the memory cgroup of whoever configured it.
	 */
	l->e = kvcalloc(size, sizeof(*l->e), GFP_KERNEL_ACCOUNT);
	l->bucket = kvcalloc(nb, sizeof(*l->bucket), GFP_KERNEL_ACCOUNT);
	if (!l->e || !l->bucket) {
		lrufq_lru_free(l);
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++)
		l->bucket[i] = LRUFQ_NIL;
	l->size = size;
	l->hmask = nb - 1;
	l->top = LRUFQ_NIL;
	l->bottom = LRUFQ_NIL;
	l->threshold = threshold;
	l->prob = prob;
	l->window = window;
	l->pin_rate = pin_rate;
	return 0;
}

void lrufq_lru_free(struct lrufq_lru *l)
{
	kvfree(l->e);
	kvfree(l->bucket);
	l->e = NULL;
	l->bucket = NULL;
	l->size = 0;
	l->used = 0;
}

u32 lrufq_lru_lookup(const struct lrufq_lru *l, const struct flowkey *key,
		     u32 hash)
{
	u32 i;

	for (i = l->bucket[hash & l->hmask]; i != LRUFQ_NIL; i = l->e[i].hnext)
		if (l->e[i].hash == hash && flowkey_eq(&l->e[i].key, key))
			return i;
	return LRUFQ_NIL;
}

const struct lrufq_entry *lrufq_lru_find(const struct lrufq_lru *l,
					 const struct flowkey *key,
					 u32 hash)
{
	u32 i = lrufq_lru_lookup(l, key, hash);

	return i == LRUFQ_NIL ? NULL : &l->e[i];
}

const struct lrufq_entry *lrufq_lru_rank(const struct lrufq_lru *l, u32 n)
{
	u32 i;

	for (i = l->top; i != LRUFQ_NIL && n; i = l->e[i].next)
		n--;
	return i == LRUFQ_NIL ? NULL : &l->e[i];
}

static void lrufq_unlink(struct lrufq_lru *l, u32 i)
{
	struct lrufq_entry *e = &l->e[i];

	if (e->prev != LRUFQ_NIL)
		l->e[e->prev].next = e->next;
	else
		l->top = e->next;
	if (e->next != LRUFQ_NIL)
		l->e[e->next].prev = e->prev;
	else
		l->bottom = e->prev;
}

static void lrufq_push_top(struct lrufq_lru *l, u32 i)
{
	struct lrufq_entry *e = &l->e[i];

	e->prev = LRUFQ_NIL;
	e->next = l->top;
	if (l->top != LRUFQ_NIL)
		l->e[l->top].prev = i;
	else
		l->bottom = i;
	l->top = i;
}

static void lrufq_hash_del(struct lrufq_lru *l, u32 i)
{
	u32 *p = &l->bucket[l->e[i].hash & l->hmask];

	while (*p != i)
		p = &l->e[*p].hnext;
	*p = l->e[i].hnext;
}

static void lrufq_set_pinned(struct lrufq_lru *l, struct lrufq_entry *e,
			     bool pinned)
{
	if (e->pinned != pinned) {
		e->pinned = pinned;
		if (pinned)
			l->pinned++;
		else
			l->pinned--;
	}
}

/* Rate of a cached flow over windows of LRUFQ_RATE_WINDOW_NS; the pin
 * follows the rate of the last complete window.
 */
static void lrufq_meter(struct lrufq_lru *l, struct lrufq_entry *e, u32 len,
			u64 now)
{
	u64 dt = now - e->win_start;

	if (dt >= LRUFQ_RATE_WINDOW_NS) {
		/* A window and more without packets: the rate was 0. */
		e->rate = dt >= 2 * LRUFQ_RATE_WINDOW_NS ? 0 :
			  div64_u64(e->win_bytes * NSEC_PER_SEC, dt);
		e->win_start = now;
		e->win_bytes = 0;
		lrufq_set_pinned(l, e, e->rate >= l->pin_rate);
	}
	e->win_bytes += len;
}

/* The count window of a cached flow: while the flow keeps sending,
 * windows follow each other back to back, so a rate is counted over the
 * same span however its packets fall; a flow silent for a whole window
 * sent nothing in the last one.
 */
static void lrufq_count(struct lrufq_lru *l, struct lrufq_entry *e, u64 now)
{
	u64 dt = now - e->count_start;

	if (l->window && dt >= l->window) {
		if (dt >= 2 * l->window) {
			e->last = 0;
			e->count_start = now;
		} else {
			e->last = e->count;
			e->count_start += l->window;
		}
		e->count = 0;
	}
	if (e->count < U32_MAX)
		e->count++;
}

/* Heavy now: more than the threshold in the last window of time (see
 * lrufq_lru.h), or since admission without a window.  No division: both
 * sides of count + last * left / window > threshold times the window.
 */
static bool lrufq_heavy(const struct lrufq_lru *l,
			const struct lrufq_entry *e, u64 now)
{
	u64 w = l->window >> LRUFQ_UNIT_SHIFT, gone, left;

	if (!l->window)
		return e->count > l->threshold;
	gone = (now - e->count_start) >> LRUFQ_UNIT_SHIFT;
	left = gone < w ? w - gone : 0;
	return (u64)e->count * w + (u64)e->last * left >
	       (u64)l->threshold * w;
}

static bool lrufq_pin_stale(const struct lrufq_entry *e, u64 now)
{
	return now - e->win_start >= 2 * LRUFQ_RATE_WINDOW_NS;
}

/*
 * The slot a new flow takes: a free one, else the lowest entry not pinned
 * (a pinned one silent for two windows is pinned no more), else none.
 * A pinned entry met at the bottom goes to the top, as if seen, so the
 * next look starts past it: each miss looks at LRUFQ_EVICT_SCAN entries
 * at most, however many are pinned, where walking up past every pinned
 * one cost a miss the whole cache under the filter's lock once the
 * bottom of the list was pinned.  A flow at the pin rate is seen often
 * and sits near the top anyway; one that stops goes stale in two windows
 * and is evicted when it next reaches the bottom.
 */
static u32 lrufq_victim(struct lrufq_lru *l, u64 now)
{
	u32 i, n = min_t(u32, l->size, LRUFQ_EVICT_SCAN);

	if (l->used < l->size)
		return l->used++;
	for (;;) {
		struct lrufq_entry *e;

		i = l->bottom;
		e = &l->e[i];
		if (!e->pinned)
			break;
		if (lrufq_pin_stale(e, now)) {
			lrufq_set_pinned(l, e, false);
			break;
		}
		l->stats.pin_skips++;
		if (!--n)
			return LRUFQ_NIL;
		lrufq_unlink(l, i);
		lrufq_push_top(l, i);
	}
	lrufq_unlink(l, i);
	lrufq_hash_del(l, i);
	l->stats.evictions++;
	return i;
}

/* The verdict on a cached or newly admitted flow's packet. */
static bool lrufq_verdict(struct lrufq_lru *l, struct lrufq_entry *e,
			  u64 now)
{
	e->high = lrufq_heavy(l, e, now);
	if (e->high) {
		l->stats.high++;
		return true;
	}
	l->stats.low++;
	return false;
}

bool lrufq_lru_hit(struct lrufq_lru *l, u32 i, u32 len, u64 now)
{
	struct lrufq_entry *e = &l->e[i];

	l->stats.hits++;
	lrufq_count(l, e, now);
	if (l->pin_rate)
		lrufq_meter(l, e, len, now);
	if (l->top != i) {
		lrufq_unlink(l, i);
		lrufq_push_top(l, i);
	}
	return lrufq_verdict(l, e, now);
}

bool lrufq_lru_refuse(struct lrufq_lru *l)
{
	l->stats.misses++;
	l->stats.low++;
	return false;
}

bool lrufq_lru_admit(struct lrufq_lru *l, const struct flowkey *key,
		     u32 hash, u32 len, u64 now)
{
	struct lrufq_entry *e;
	u32 i = lrufq_victim(l, now);

	if (i == LRUFQ_NIL)
		return lrufq_lru_refuse(l);
	l->stats.misses++;
	e = &l->e[i];
	memset(e, 0, sizeof(*e));
	e->key = *key;
	e->hash = hash;
	e->count = 1;
	e->count_start = now;
	e->win_start = now;
	e->win_bytes = len;
	e->hnext = l->bucket[hash & l->hmask];
	l->bucket[hash & l->hmask] = i;
	lrufq_push_top(l, i);
	l->stats.admissions++;
	return lrufq_verdict(l, e, now);
}
