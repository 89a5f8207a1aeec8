// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the LRU-FQ flow cache (lrufq_lru.c) against a
 * naive LRU: an array of flows ordered from the most to the least recently
 * seen, searched and shifted one by one, with the same admission, threshold,
 * count window and pinning rules (see lrufq_lru.h).
 *
 * Checked after every packet: the verdict (high or low), every statistic,
 * the number of cached and pinned flows, and the whole recency order with
 * each flow's counts, rate and pin, as lrufq_lru_rank() reports them; that
 * lrufq_lru_find() finds exactly the cached flows.  Flow hashes come from
 * the input, so hash chains collide at will.  Allocation failures are
 * injected into init.
 */
#include "lrufq_lru.h"
#include "fuzz_input.h"


#define NKEYS	24
#define SLOTS	16

struct ref_entry {
	u32	key;
	u32	count, last;
	u64	count_start;
	bool	pinned, high;
	u64	win_start, win_bytes, rate;
};

struct ref_lru {
	u32			size, used, threshold, prob;
	u64			window, pin_rate;
	struct ref_entry	e[SLOTS];	/* e[0] most recent */
	struct lrufq_lru_stats	stats;
};

static struct flowkey keys[NKEYS];
static u32 hashes[NKEYS];


static void ref_to_top(struct ref_lru *r, u32 i)
{
	struct ref_entry e = r->e[i];

	memmove(&r->e[1], &r->e[0], i * sizeof(e));
	r->e[0] = e;
}

/* count + last * (window - elapsed) / window > threshold, in 1.024 us
 * units, computed wide: the module's 64 bits must never overflow.
 */
static bool ref_heavy(const struct ref_lru *r, const struct ref_entry *e,
		      u64 now)
{
	unsigned __int128 w = r->window >> 10, gone, left;

	if (!r->window)
		return e->count > r->threshold;
	gone = (now - e->count_start) >> 10;
	left = gone < w ? w - gone : 0;
	return (unsigned __int128)e->count * w + e->last * left >
	       (unsigned __int128)r->threshold * w;
}

/* The clock and the draw of one packet, as the classifier gives them. */
struct fuzz_env {
	u64	now;
	u32	rnd;
};

static u64 env_clock(void *ctx)
{
	return ((struct fuzz_env *)ctx)->now;
}

static u32 env_draw(void *ctx)
{
	return ((struct fuzz_env *)ctx)->rnd;
}

static bool ref_packet(struct ref_lru *r, u32 key, u32 len, u64 now, u32 rnd)
{
	struct ref_entry *e;
	u32 i, v;

	for (i = 0; i < r->used; i++) {
		if (r->e[i].key != key)
			continue;
		e = &r->e[i];
		r->stats.hits++;
		/* which window since count_start the packet falls in */
		if (r->window) {
			u64 k = (now - e->count_start) / r->window;

			if (k == 1) {
				e->last = e->count;
				e->count_start += r->window;
			} else if (k > 1) {
				e->last = 0;
				e->count_start = now;
			}
			if (k)
				e->count = 0;
		}
		if (e->count < U32_MAX)
			e->count++;
		if (r->pin_rate && now - e->win_start >= LRUFQ_RATE_WINDOW_NS) {
			u64 dt = now - e->win_start;

			e->rate = dt >= 2 * LRUFQ_RATE_WINDOW_NS ? 0 :
				  (u64)((unsigned __int128)e->win_bytes *
					NSEC_PER_SEC / dt);
			e->pinned = e->rate >= r->pin_rate;
			e->win_start = now;
			e->win_bytes = 0;
		}
		if (r->pin_rate)
			e->win_bytes += len;
		ref_to_top(r, i);
		goto out;
	}

	r->stats.misses++;
	if (rnd >= r->prob && r->prob != U32_MAX)
		goto low;
	if (r->used < r->size) {
		v = r->used++;
	} else {
		/* the bottom if not pinned, or pinned but silent for two
		 * windows; a pinned one goes to the top and the next is
		 * looked at, LRUFQ_EVICT_SCAN at most
		 */
		u32 n = r->size < LRUFQ_EVICT_SCAN ? r->size : LRUFQ_EVICT_SCAN;

		for (;;) {
			v = r->size - 1;
			if (!r->e[v].pinned)
				break;
			if (now - r->e[v].win_start >= 2 * LRUFQ_RATE_WINDOW_NS)
				break;
			r->stats.pin_skips++;
			if (!--n)
				goto low;
			ref_to_top(r, v);
		}
		r->stats.evictions++;
	}
	r->e[v] = (struct ref_entry){ .key = key, .count = 1,
				      .count_start = now,
				      .win_start = now, .win_bytes = len };
	ref_to_top(r, v);
	r->stats.admissions++;
out:
	r->e[0].high = ref_heavy(r, &r->e[0], now);
	if (r->e[0].high) {
		r->stats.high++;
		return true;
	}
low:
	r->stats.low++;
	return false;
}

static void check(const struct lrufq_lru *l, const struct ref_lru *r)
{
	u32 i, pinned = 0;
	bool cached[NKEYS] = {};

	FUZZ_ASSERT(!memcmp(&l->stats, &r->stats, sizeof(r->stats)));
	FUZZ_ASSERT(l->used == r->used);
	for (i = 0; i < r->used; i++) {
		const struct lrufq_entry *e = lrufq_lru_rank(l, i);
		const struct ref_entry *x = &r->e[i];

		FUZZ_ASSERT(e && !memcmp(&e->key, &keys[x->key], sizeof(e->key)));
		FUZZ_ASSERT(e->count == x->count && e->last == x->last &&
			    e->pinned == x->pinned);
		FUZZ_ASSERT(!r->window || e->count_start == x->count_start);
		if (r->pin_rate)
			FUZZ_ASSERT(e->rate == x->rate);
		FUZZ_ASSERT(e->high == x->high);
		pinned += x->pinned;
		cached[x->key] = true;
	}
	FUZZ_ASSERT(!lrufq_lru_rank(l, r->used));
	FUZZ_ASSERT(l->pinned == pinned);
	for (i = 0; i < NKEYS; i++)
		FUZZ_ASSERT(!!lrufq_lru_find(l, &keys[i], hashes[i]) ==
			    cached[i]);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct lrufq_lru l;
	static struct ref_lru r;
	u64 now;
	u8 mode;
	u32 i;

	memset(&r, 0, sizeof(r));
	r.size = 1 + get(&in, 1) % SLOTS;
	r.threshold = get(&in, 1) % 8;
	mode = get(&in, 1);
	/* 1.0, or anything from never to always */
	r.prob = mode & 1 ? U32_MAX : get(&in, 4);
	r.pin_rate = mode & 2 ? 1 + get(&in, 3) * 64 : 0;
	/* none (the paper's count), or 20 to 140 ms against steps of up to
	 * 65 ms: windows roll over, and pass by twice
	 */
	r.window = (u64)(mode >> 5) * 20 * NSEC_PER_MSEC;
	/* hashes: distinct, or colliding in few buckets */
	for (i = 0; i < NKEYS; i++) {
		memset(&keys[i], 0, sizeof(keys[i]));
		keys[i].src[0] = 10;
		keys[i].src[3] = i;
		keys[i].dst[15] = i * 7;
		keys[i].sport = i & 3;
		keys[i].family = 2;
		hashes[i] = mode & 4 ? i % 3 : i * 0x9e3779b9;
	}

	dfs_user_allocs = 0;
	dfs_user_alloc_fail_every = mode & 8 ? 1 + (mode >> 4) % 2 : 0;
	if (lrufq_lru_init(&l, r.size, r.threshold, r.prob, r.window,
			   r.pin_rate)) {
		dfs_user_alloc_fail_every = 0;
		FUZZ_ASSERT(!l.e && !l.bucket);
		return 0;
	}
	dfs_user_alloc_fail_every = 0;

	now = get(&in, 8);
	while (in.left) {
		u32 key = get(&in, 1) % NKEYS, len = 1 + get(&in, 2);
		u32 rnd = get(&in, 1) << 24;
		struct fuzz_env env;
		bool high;

		/* 0 to 65 ms: rate windows of 100 ms pass, or many */
		now += get(&in, 1) * 256 * 1024;
		env = (struct fuzz_env){ .now = now, .rnd = rnd };
		high = lrufq_lru_packet(&l, &keys[key], hashes[key], len,
					env_clock, env_draw, &env);
		FUZZ_ASSERT(high == ref_packet(&r, key, len, now, rnd));
		check(&l, &r);
	}
	lrufq_lru_free(&l);
	return 0;
}
