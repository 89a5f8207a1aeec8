// SPDX-License-Identifier: GPL-2.0
/*
 * LRU-FQ cache unit tests: hits, misses, probabilistic admission, eviction
 * of the bottom entry, the threshold and its window, pinning, and the list
 * and hash kept consistent under random traffic.
 */
#include "lrufq_lru.h"
#include "unit.h"

#define MS	NSEC_PER_MSEC
#define ALWAYS	0u		/* rnd below any prob: admitted */
#define NEVER	U32_MAX		/* rnd at or above any prob < 1.0 */

static struct flowkey key(u32 n)
{
	struct flowkey k;

	memset(&k, 0, sizeof(k));
	k.family = 2;
	k.src[0] = 10;
	k.src[2] = n >> 8;
	k.src[3] = n;
	return k;
}

/* A poor hash on purpose, so the chains are exercised. */
static u32 hash(u32 n)
{
	return n % 7;
}

/* What lrufq_lru_packet() asks of its caller, and how often. */
struct env {
	u64	now;
	u32	rnd;
	u32	clocks, draws;
};

static u64 env_clock(void *ctx)
{
	struct env *v = ctx;

	v->clocks++;
	return v->now;
}

static u32 env_draw(void *ctx)
{
	struct env *v = ctx;

	v->draws++;
	return v->rnd;
}

static struct env last_env;

static bool pkt(struct lrufq_lru *l, u32 n, u32 len, u64 now, u32 rnd)
{
	struct flowkey k = key(n);

	last_env = (struct env){ .now = now, .rnd = rnd };
	return lrufq_lru_packet(l, &k, hash(n), len, env_clock, env_draw,
				&last_env);
}

static bool cached(const struct lrufq_lru *l, u32 n)
{
	struct flowkey k = key(n);

	return lrufq_lru_find(l, &k, hash(n));
}

/* Rank of flow n from the top, or -1. */
static int rank(const struct lrufq_lru *l, u32 n)
{
	struct flowkey k = key(n);
	const struct lrufq_entry *e;
	u32 i;

	for (i = 0; (e = lrufq_lru_rank(l, i)); i++)
		if (!memcmp(&e->key, &k, sizeof(k)))
			return i;
	return -1;
}

static void test_hit_miss(void)
{
	struct lrufq_lru l;

	CHECK(lrufq_lru_init(&l, 0, 3, U32_MAX / 2, 0, 0) == -EINVAL, "size 0");
	CHECK(!lrufq_lru_init(&l, 3, 3, U32_MAX / 2, 0, 0), "init");
	CHECK(!pkt(&l, 1, 100, 0, NEVER), "miss, not admitted: low");
	CHECK(l.stats.misses == 1 && l.stats.admissions == 0 && !cached(&l, 1),
	      "not admitted");
	CHECK(!pkt(&l, 1, 100, 0, ALWAYS), "miss, admitted: low");
	CHECK(l.stats.admissions == 1 && cached(&l, 1), "admitted");
	pkt(&l, 2, 100, 0, ALWAYS);
	pkt(&l, 3, 100, 0, ALWAYS);
	CHECK(rank(&l, 3) == 0 && rank(&l, 2) == 1 && rank(&l, 1) == 2,
	      "most recent first");
	pkt(&l, 1, 100, 0, NEVER);		/* hit: to the top */
	CHECK(l.stats.hits == 1 && rank(&l, 1) == 0 && rank(&l, 2) == 2,
	      "hit moves to the top");
	pkt(&l, 4, 100, 0, ALWAYS);		/* evicts the bottom: 2 */
	CHECK(l.stats.evictions == 1 && !cached(&l, 2) && cached(&l, 4) &&
	      rank(&l, 4) == 0 && l.used == 3, "bottom evicted");
	pkt(&l, 5, 100, 0, NEVER);
	CHECK(!cached(&l, 5) && l.stats.evictions == 1, "no admission, no eviction");
	CHECK(l.stats.hits + l.stats.misses == l.stats.high + l.stats.low,
	      "every packet classified once");
	lrufq_lru_free(&l);
}

/* A hit reads the clock and draws nothing, a refused miss draws and reads
 * no clock, an admitted one does both; with every miss admitted (p = 1)
 * nothing is drawn.
 */
static void test_asks(void)
{
	struct lrufq_lru l;

	CHECK(!lrufq_lru_init(&l, 2, 3, U32_MAX / 2, 0, 0), "init");
	pkt(&l, 1, 100, 0, NEVER);
	CHECK(last_env.draws == 1 && last_env.clocks == 0, "refused miss");
	pkt(&l, 1, 100, 0, ALWAYS);
	CHECK(last_env.draws == 1 && last_env.clocks == 1, "admitted miss");
	pkt(&l, 1, 100, 0, ALWAYS);
	CHECK(last_env.draws == 0 && last_env.clocks == 1, "hit");
	lrufq_lru_free(&l);

	CHECK(!lrufq_lru_init(&l, 1, 3, U32_MAX, 0, 0), "init, p = 1");
	pkt(&l, 1, 100, 0, NEVER);
	CHECK(last_env.draws == 0 && cached(&l, 1), "p = 1: no draw, admitted");
	lrufq_lru_free(&l);
}

static void test_threshold(void)
{
	struct lrufq_lru l;
	int i;

	CHECK(!lrufq_lru_init(&l, 4, 5, U32_MAX, 0, 0), "init");
	for (i = 1; i <= 5; i++)
		CHECK(!pkt(&l, 9, 1500, 0, ALWAYS), "packet %d: count %d <= 5", i, i);
	CHECK(pkt(&l, 9, 1500, 0, ALWAYS), "packet 6: high");
	CHECK(l.stats.high == 1 && l.stats.low == 5, "high %llu low %llu",
	      (unsigned long long)l.stats.high, (unsigned long long)l.stats.low);
	/* Evicted and admitted again: counts from 1. */
	for (i = 10; i < 14; i++)
		pkt(&l, i, 100, 0, ALWAYS);
	CHECK(!cached(&l, 9), "evicted by 4 new flows");
	CHECK(!pkt(&l, 9, 1500, 0, ALWAYS), "back in: low again");
	lrufq_lru_free(&l);
}

/* The count window: a flow is high while its count in the current window
 * plus its last window's pro rata of what is left of it passes the
 * threshold; a flow silent for a whole window starts over.
 */
static void test_window(void)
{
	struct lrufq_lru l;
	u64 t = 1000 * MS;
	int i;

	/* 5 packets per 100 ms */
	CHECK(lrufq_lru_init(&l, 4, 5, U32_MAX, MS / 2, 0) == -EINVAL,
	      "window under 1 ms");
	CHECK(lrufq_lru_init(&l, 4, 5, U32_MAX, 61000 * MS, 0) == -EINVAL,
	      "window over 60 s");
	CHECK(!lrufq_lru_init(&l, 4, 5, U32_MAX, 100 * MS, 0), "init");
	for (i = 0; i < 5; i++)
		CHECK(!pkt(&l, 1, 1500, t + i * MS, ALWAYS), "packet %d low", i);
	CHECK(pkt(&l, 1, 1500, t + 5 * MS, ALWAYS), "sixth in the window high");
	/* 10 ms into the next window: 1 + 6 * 0.9 = 6.4 packets in the
	 * last 100 ms, still high; 60 ms in, 2 + 6 * 0.4 = 4.4: light.
	 */
	CHECK(pkt(&l, 1, 1500, t + 110 * MS, ALWAYS), "high on the last window");
	CHECK(!pkt(&l, 1, 1500, t + 160 * MS, ALWAYS), "light 60 ms on");
	/* Windows are back to back from the admission: 100-200 ms holds
	 * the packets at 110 and 160; one at 210 opens 200-300.
	 */
	CHECK(!pkt(&l, 1, 1500, t + 210 * MS, ALWAYS), "light again");
	{
		struct flowkey k = key(1);
		const struct lrufq_entry *e = lrufq_lru_find(&l, &k, hash(1));

		CHECK(e && e->count == 1 && e->last == 2 &&
		      e->count_start == t + 200 * MS,
		      "count %u last %u start %llu", e ? e->count : 0,
		      e ? e->last : 0,
		      e ? (unsigned long long)e->count_start : 0ULL);
	}
	/* Heavy again in 200-300, then silent for two windows: starts
	 * over with no last window.
	 */
	for (i = 0; i < 4; i++)
		pkt(&l, 1, 1500, t + 220 * MS + i * MS, ALWAYS);
	CHECK(pkt(&l, 1, 1500, t + 230 * MS, ALWAYS),
	      "6 + 2 * 0.7 in the last 100 ms");
	CHECK(!pkt(&l, 1, 1500, t + 520 * MS, ALWAYS), "silent 200 ms: low");
	lrufq_lru_free(&l);
}

/* A cache with room for every flow, at the sizes the selftests run:
 * eight flows at a TCP share (50 packets a second each) and two floods
 * (800 a second) for 20 s, each flow admitted by the draw after missing
 * for a while: with the paper's count every flow ends high, with a
 * window of 1 s and a threshold of 125 only the floods, whatever the
 * cache size; nothing is evicted.
 */
static void big_cache(u32 cache, u64 window)
{
	struct lrufq_lru l;
	u32 f, high[10];
	u64 t;

	CHECK(!lrufq_lru_init(&l, cache, 125, U32_MAX / 50, window, 0),
	      "init");
	memset(high, 0, sizeof(high));
	/* every 1.25 ms a flood packet, every 20 ms one of each TCP; a
	 * flow's first 20 packets miss
	 */
	for (t = 0; t < 20000 * MS; t += 1250 * NSEC_PER_USEC) {
		u32 late = t >= 15000 * MS;

		for (f = 8; f < 10; f++)
			high[f] += pkt(&l, f, 1500, t,
				       t < 25 * MS ? NEVER : ALWAYS) && late;
		if (t % (20 * MS))
			continue;
		for (f = 0; f < 8; f++)
			high[f] += pkt(&l, f, 1500, t,
				       t < 400 * MS ? NEVER : ALWAYS) && late;
	}
	for (f = 0; f < 8; f++)
		CHECK(window ? !high[f] : high[f] == 250,
		      "cache %u window %llu: flow %u high %u times in the last 5 s",
		      cache, (unsigned long long)window, f, high[f]);
	for (f = 8; f < 10; f++)
		CHECK(high[f] == 4000, "cache %u window %llu: flood %u high %u",
		      cache, (unsigned long long)window, f, high[f]);
	CHECK(l.used == 10 && !l.stats.evictions,
	      "cache %u: %u cached, %llu evictions", cache, l.used,
	      (unsigned long long)l.stats.evictions);
	lrufq_lru_free(&l);
}

static void test_window_big_cache(void)
{
	u32 caches[] = { 12, 64, 1024 }, c;

	for (c = 0; c < ARRAY_SIZE(caches); c++) {
		big_cache(caches[c], 0);
		big_cache(caches[c], 1000 * MS);
	}
}

/* Admission probability 1/50 over many misses. */
static void test_probability(void)
{
	struct lrufq_lru l;
	u32 seed = 1, i;

	CHECK(!lrufq_lru_init(&l, 8, 125, U32_MAX / 50, 0, 0), "init");
	for (i = 0; i < 100000; i++) {
		seed = seed * 1664525u + 1013904223u;
		pkt(&l, 1000 + i, 100, 0, seed);
	}
	CHECK(l.stats.misses == 100000, "all misses");
	CHECK(l.stats.admissions > 1800 && l.stats.admissions < 2200,
	      "admissions %llu, want ~2000", (unsigned long long)l.stats.admissions);
	lrufq_lru_free(&l);
}

/* A flow at the pin rate is not evicted; one that goes silent is again. */
static void test_pin(void)
{
	struct lrufq_lru l;
	u64 t = 0;
	int i;

	/* pin at 1 MB/s; flow 1 sends 1500 B every ms = 1.5 MB/s */
	CHECK(!lrufq_lru_init(&l, 2, 1000, U32_MAX, 0, 1000000), "init");
	for (i = 0; i < 250; i++, t += MS)
		pkt(&l, 1, 1500, t, ALWAYS);
	CHECK(l.pinned == 1,
	      "flow 1 pinned");
	pkt(&l, 2, 100, t, ALWAYS);		/* fills the second slot */
	pkt(&l, 1, 1500, t, ALWAYS);		/* 1 on top, 2 at the bottom */
	pkt(&l, 3, 100, t, ALWAYS);		/* evicts 2 */
	CHECK(cached(&l, 1) && !cached(&l, 2) && cached(&l, 3), "2 evicted");
	pkt(&l, 4, 100, t, ALWAYS);		/* 1 is the bottom: skipped */
	CHECK(cached(&l, 1) && cached(&l, 4) && !cached(&l, 3),
	      "pinned bottom passed over, 3 evicted instead");
	CHECK(l.stats.pin_skips >= 1, "pin skip counted");

	/* Flow 1 drops to 100 kB/s: unpinned at the next window. */
	for (i = 0; i < 300; i++, t += MS)
		pkt(&l, 1, 100, t, NEVER);
	CHECK(l.pinned == 0, "slow flow unpinned");

	/* Both slots pinned: a miss admits nothing. */
	lrufq_lru_free(&l);
	CHECK(!lrufq_lru_init(&l, 2, 1000, U32_MAX, 0, 1000000), "init");
	for (i = 0; i < 250; i++, t += MS) {
		pkt(&l, 1, 1500, t, ALWAYS);
		pkt(&l, 2, 1500, t, ALWAYS);
	}
	CHECK(l.pinned == 2, "both pinned");
	pkt(&l, 3, 100, t, ALWAYS);
	CHECK(!cached(&l, 3) && l.stats.evictions == 0, "no slot for 3");
	/* Silent for two windows: the pin goes stale, 3 gets a slot. */
	t += 250 * MS;
	pkt(&l, 3, 100, t, ALWAYS);
	CHECK(cached(&l, 3) && l.stats.evictions == 1 && l.pinned == 1,
	      "stale pin evicted (pinned %u)", l.pinned);
	lrufq_lru_free(&l);
}

/*
 * Every entry of a cache larger than LRUFQ_EVICT_SCAN pinned: a miss looks
 * at LRUFQ_EVICT_SCAN entries and no more, however many misses come, and
 * the ones it passes go to the top, so a later miss looks at others.
 */
static void test_pin_bounded(void)
{
	struct lrufq_lru l;
	u64 t = 0, skips;
	int i, f;

	CHECK(!lrufq_lru_init(&l, 64, 1000, U32_MAX, 0, 1000), "init");
	for (i = 0; i < 150; i++, t += MS)
		for (f = 1; f <= 64; f++)
			pkt(&l, f, 100, t, ALWAYS);
	CHECK(l.pinned == 64, "all 64 pinned (%u)", l.pinned);
	skips = l.stats.pin_skips;
	for (f = 1000; f < 1100; f++) {
		pkt(&l, f, 100, t, ALWAYS);
		CHECK(!cached(&l, f), "flow %d evicted a live pin", f);
	}
	CHECK(l.stats.pin_skips - skips == 100 * LRUFQ_EVICT_SCAN,
	      "100 misses looked at %llu pinned entries",
	      (unsigned long long)(l.stats.pin_skips - skips));
	CHECK(l.stats.evictions == 0, "nothing evicted");
	CHECK(lrufq_lru_rank(&l, 63), "all 64 still cached");
	lrufq_lru_free(&l);
}

/* Random traffic: the list and the hash always hold the same flows. */
static void test_random(void)
{
	struct lrufq_lru l;
	u32 seed = 7, i, n, count;
	const struct lrufq_entry *e;

	CHECK(!lrufq_lru_init(&l, 16, 20, U32_MAX / 4, 0, 500000), "init");
	for (i = 0; i < 200000; i++) {
		seed = seed * 1664525u + 1013904223u;
		/* flows 0..3 heavy, 4..99 light */
		n = (seed >> 4) % 8 < 5 ? (seed >> 12) % 4 :
		    4 + (seed >> 12) % 96;
		pkt(&l, n, 1000, (u64)i * 10000, seed ^ (seed >> 16) * 31);
	}
	count = 0;
	for (i = 0; (e = lrufq_lru_rank(&l, i)); i++) {
		struct flowkey k = e->key;

		count++;
		CHECK(lrufq_lru_find(&l, &k, e->hash) == e, "rank %u in hash", i);
	}
	CHECK(count == l.used && l.used == 16, "list %u used %u", count, l.used);
	for (n = 0; n < 4; n++)
		CHECK(cached(&l, n), "heavy flow %u cached", n);
	CHECK(l.stats.hits + l.stats.misses == 200000, "counted");
	CHECK(l.stats.high > 100000, "heavy traffic high: %llu",
	      (unsigned long long)l.stats.high);
	lrufq_lru_free(&l);
}

/* Allocation failure: no leak, an error. */
static void test_nomem(void)
{
	struct lrufq_lru l;

	dfs_user_alloc_fail_every = 1;
	CHECK(lrufq_lru_init(&l, 8, 1, 1, 0, 0) == -ENOMEM, "ENOMEM");
	dfs_user_alloc_fail_every = 0;
}

int main(void)
{
	TEST(test_hit_miss);
	TEST(test_asks);
	TEST(test_threshold);
	TEST(test_window);
	TEST(test_window_big_cache);
	TEST(test_probability);
	TEST(test_pin);
	TEST(test_pin_bounded);
	TEST(test_random);
	TEST(test_nomem);
	return unit_summary("lrufq_test");
}
