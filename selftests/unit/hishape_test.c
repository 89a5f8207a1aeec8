// SPDX-License-Identifier: GPL-2.0
/*
 * sch_hishape's cores: the range table (refusals, lookups at every
 * boundary, both families, against a linear search) and a range's token
 * bucket (bursts, the long-run rate, the extremes of rate and length).
 */
#include "hishape_table.h"
#include "unit.h"
#include "xorshift.h"

#define SEC	NSEC_PER_SEC
#define MS	NSEC_PER_MSEC

/* ---- the token bucket ---- */

static void test_rate_roundtrip(void)
{
	static const u64 rates[] = {
		1, 2, 3, 7, 1000, 37500, 125000, 1250000, 125000000,
		1250000000,
	};
	struct hishape_rate r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		hishape_rate_init(&r, rates[i], 0);
		CHECK(hishape_rate_bps(&r) == rates[i], "rate %llu reads %llu",
		      (unsigned long long)rates[i],
		      (unsigned long long)hishape_rate_bps(&r));
		/* 1e6 bytes take 1e15 / rate ns, to 2^-31 of that */
		CHECK(llabs((long long)hishape_rate_ns(&r, 1000000) -
			    (long long)(1000000000000000ULL / rates[i])) <=
		      1 + (long long)((1000000000000000ULL / rates[i]) >> 31),
		      "rate %llu: 1e6 bytes in %llu ns",
		      (unsigned long long)rates[i],
		      (unsigned long long)hishape_rate_ns(&r, 1000000));
	}
	/* the slowest rate and the longest packet: no overflow */
	hishape_rate_init(&r, 1, 0);
	CHECK(hishape_rate_ns(&r, U32_MAX) == (u64)U32_MAX * SEC,
	      "%llu", (unsigned long long)hishape_rate_ns(&r, U32_MAX));
	CHECK(hishape_rate_ns(&r, 1500) == 1500 * SEC, "1500 B at 1 B/s");
	/* out-of-range rates are clamped, never a zero cost */
	hishape_rate_init(&r, 0, 0);
	CHECK(hishape_rate_bps(&r) == HISHAPE_RATE_MIN, "rate 0");
	hishape_rate_init(&r, ~0ULL, 0);
	CHECK(llabs((long long)(hishape_rate_bps(&r) - HISHAPE_RATE_MAX)) <= 100,
	      "rate ~0 reads %llu", (unsigned long long)hishape_rate_bps(&r));
	/* 1500 bytes at 100 Gbit/s: 120 ns */
	CHECK(hishape_rate_ns(&r, 1) == 0 &&
	      hishape_rate_ns(&r, 1500) - 119 <= 1,
	      "1500 bytes at 100 Gbit/s in %llu ns",
	      (unsigned long long)hishape_rate_ns(&r, 1500));
	hishape_rate_init(&r, 1000, U32_MAX);
	CHECK(r.burst == HISHAPE_BURST_MAX, "burst clamped to %u", r.burst);
}

/* A fresh range sends its burst at once, then one packet per len/rate. */
static void test_rate_burst(void)
{
	struct hishape_rate r;
	u64 now = 5 * SEC;
	int i;

	hishape_rate_init(&r, 125000, 10000);	/* 1 Mbit/s, 10 kB */
	for (i = 0; i < 10; i++) {
		CHECK(hishape_rate_fits(&r, now, 1000), "packet %d of the burst", i);
		hishape_rate_charge(&r, now, 1000);
	}
	CHECK(!hishape_rate_fits(&r, now, 1000), "burst spent");
	/* 1000 bytes at 125 kB/s: 8 ms */
	CHECK(hishape_rate_eligible(&r, 1000) == now + 8 * MS, "eligible at +%lld",
	      (long long)(hishape_rate_eligible(&r, 1000) - now));
	CHECK(!hishape_rate_fits(&r, now + 8 * MS - 1, 1000), "a ns early");
	CHECK(hishape_rate_fits(&r, now + 8 * MS, 1000), "on time");
	/* a smaller packet fits sooner */
	CHECK(hishape_rate_eligible(&r, 500) == now + 4 * MS, "500 B at +4 ms");
	/* idle a whole second: the bucket refills to its depth, no more */
	now += SEC;
	for (i = 0; i < 10; i++) {
		CHECK(hishape_rate_fits(&r, now, 1000), "refilled %d", i);
		hishape_rate_charge(&r, now, 1000);
	}
	CHECK(!hishape_rate_fits(&r, now, 1), "not a byte more than burst");
}

/* A packet larger than the bucket waits for a full one, then leaves. */
static void test_rate_big_packet(void)
{
	struct hishape_rate r;
	u64 now = SEC;

	hishape_rate_init(&r, 1000, 100);
	CHECK(hishape_rate_fits(&r, now, 1500), "full bucket, big packet");
	hishape_rate_charge(&r, now, 1500);
	CHECK(hishape_rate_eligible(&r, 1500) == now + 1500 * MS, "paced: %llu",
	      (unsigned long long)hishape_rate_eligible(&r, 1500));
	CHECK(hishape_rate_eligible(&r, 50) == now + 1450 * MS, "small: %llu",
	      (unsigned long long)hishape_rate_eligible(&r, 50));
}

/*
 * A sender that always has a packet sends burst + rate * time: simulate
 * ten seconds at several rates and lengths, each packet leaving the
 * moment it fits.
 */
static void test_rate_long_run(void)
{
	static const struct { u64 rate; u32 burst, len; } c[] = {
		{ 125000, 3000, 1500 }, { 1250000, 64000, 64 },
		{ 37500, 1500, 1000 }, { 12500, 0, 1500 },
		{ 125000000, 100000, 9000 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct hishape_rate r;
		u64 start = 7 * SEC, end = start + 10 * SEC, now = start;
		u64 sent = 0, expect, got;

		hishape_rate_init(&r, c[i].rate, c[i].burst);
		for (;;) {
			u64 t = max(now, hishape_rate_eligible(&r, c[i].len));

			if (t > end)
				break;
			now = t;
			hishape_rate_charge(&r, now, c[i].len);
			sent += c[i].len;
		}
		expect = c[i].rate * 10 + max(c[i].burst, c[i].len);
		got = sent;
		CHECK(got <= expect + c[i].len && got + 2 * c[i].len >= expect,
		      "rate %llu burst %u len %u: %llu bytes, expected %llu",
		      (unsigned long long)c[i].rate, c[i].burst, c[i].len,
		      (unsigned long long)got, (unsigned long long)expect);
	}
}

/* ---- the table ---- */

static struct hishape_in6 in6(u64 hi, u64 lo)
{
	struct hishape_in6 a = { .hi = hi, .lo = lo };

	return a;
}

static void test_add_refusals(void)
{
	struct hishape_table *t = hishape_table_alloc(3, 3, GFP_KERNEL);
	struct hishape_in6 a, b;

	CHECK(t, "alloc");
	if (!t)
		return;
	CHECK(hishape_table_add4(t, 20, 10, 1000, 0) == HISHAPE_ADD_REVERSED, "reversed");
	CHECK(hishape_table_add4(t, 10, 20, 0, 0) == HISHAPE_ADD_RATE, "rate 0");
	CHECK(hishape_table_add4(t, 10, 20, HISHAPE_RATE_MAX + 1, 0) ==
	      HISHAPE_ADD_RATE, "rate too high");
	CHECK(hishape_table_add4(t, 10, 20, 1000, HISHAPE_BURST_MAX + 1) ==
	      HISHAPE_ADD_BURST, "burst");
	CHECK(t->n4 == 0, "nothing added by a refusal");
	CHECK(hishape_table_add4(t, 10, 20, 1000, 0) == HISHAPE_ADD_OK, "first");
	CHECK(hishape_table_add4(t, 20, 30, 1000, 0) == HISHAPE_ADD_UNSORTED,
	      "sharing an address");
	CHECK(hishape_table_add4(t, 5, 8, 1000, 0) == HISHAPE_ADD_UNSORTED, "below");
	CHECK(hishape_table_add4(t, 21, 21, 1000, 0) == HISHAPE_ADD_OK, "adjacent");
	CHECK(!hishape_table_complete(t), "2 of 3 and 0 of 3");
	CHECK(hishape_table_add4(t, 22, U32_MAX, 1000, 0) == HISHAPE_ADD_OK, "to the end");
	CHECK(hishape_table_add4(t, 0, 0, 1000, 0) == HISHAPE_ADD_FULL, "full");

	a = in6(1, 0);
	b = in6(0, ~0ULL);
	CHECK(hishape_table_add6(t, &a, &b, 1000, 0) == HISHAPE_ADD_REVERSED,
	      "reversed across the halves");
	CHECK(hishape_table_add6(t, &b, &a, 1000, 0) == HISHAPE_ADD_OK, "across");
	CHECK(hishape_table_add6(t, &a, &a, 1000, 0) == HISHAPE_ADD_UNSORTED,
	      "sharing the end");
	a = in6(1, 1);
	CHECK(hishape_table_add6(t, &a, &a, 1000, 0) == HISHAPE_ADD_OK, "next");
	a = in6(~0ULL, ~0ULL);
	CHECK(hishape_table_add6(t, &a, &a, 1000, 0) == HISHAPE_ADD_OK, "the last");
	CHECK(hishape_table_complete(t), "complete");
	CHECK(hishape_table_size(t) == 6, "size");
	CHECK(hishape_table_bytes(t) == sizeof(*t) + 3 * 40 + 3 * 64,
	      "%zu bytes", hishape_table_bytes(t));
	hishape_table_free(t);
}

static void test_lookup4_edges(void)
{
	struct hishape_table *t = hishape_table_alloc(3, 0, GFP_KERNEL);

	CHECK(hishape_lookup4(t, 0) == HISHAPE_NONE, "empty table");
	hishape_table_add4(t, 0, 0, 1000, 0);
	hishape_table_add4(t, 100, 199, 1000, 0);
	hishape_table_add4(t, U32_MAX, U32_MAX, 1000, 0);
	CHECK(hishape_lookup4(t, 0) == 0, "0");
	CHECK(hishape_lookup4(t, 1) == HISHAPE_NONE, "1");
	CHECK(hishape_lookup4(t, 99) == HISHAPE_NONE, "99");
	CHECK(hishape_lookup4(t, 100) == 1, "100");
	CHECK(hishape_lookup4(t, 150) == 1, "150");
	CHECK(hishape_lookup4(t, 199) == 1, "199");
	CHECK(hishape_lookup4(t, 200) == HISHAPE_NONE, "200");
	CHECK(hishape_lookup4(t, U32_MAX - 1) == HISHAPE_NONE, "max - 1");
	CHECK(hishape_lookup4(t, U32_MAX) == 2, "max");
	hishape_table_free(t);

	t = hishape_table_alloc(1, 1, GFP_KERNEL);
	hishape_table_add4(t, 0, U32_MAX, 1000, 0);
	CHECK(hishape_lookup4(t, 0) == 0 && hishape_lookup4(t, 1234567) == 0 &&
	      hishape_lookup4(t, U32_MAX) == 0, "one range, all of IPv4");
	{
		struct hishape_in6 lo = in6(0, 0), hi = in6(~0ULL, ~0ULL);
		struct hishape_in6 x = in6(0x20010db8ULL << 32, 1);

		hishape_table_add6(t, &lo, &hi, 1000, 0);
		CHECK(hishape_lookup6(t, &lo) == 1 && hishape_lookup6(t, &hi) == 1 &&
		      hishape_lookup6(t, &x) == 1, "one range, all of IPv6, after IPv4's");
	}
	hishape_table_free(t);
}

/* The linear search the paper's tc configuration amounts to. */
static u32 linear4(const struct hishape_table *t, u32 a)
{
	u32 i;

	for (i = 0; i < t->n4; i++)
		if (t->start4[i] <= a && a <= t->end4[i])
			return i;
	return HISHAPE_NONE;
}

static u32 linear6(const struct hishape_table *t, const struct hishape_in6 *a)
{
	u32 i;

	for (i = 0; i < t->n6; i++)
		if (hishape_in6_le(&t->start6[i], a) && hishape_in6_le(a, &t->end6[i]))
			return t->n4 + i;
	return HISHAPE_NONE;
}

static struct hishape_in6 in6_add(struct hishape_in6 a, u64 d)
{
	a.lo += d;
	if (a.lo < d)
		a.hi++;
	return a;
}

static struct hishape_in6 in6_sub(struct hishape_in6 a, u64 d)
{
	if (a.lo < d)
		a.hi--;
	a.lo -= d;
	return a;
}

/* Random tables of every size up to 300, lookups at and around each bound. */
static void test_lookup_random(void)
{
	u32 n, i, bad = 0, checked = 0;

	for (n = 0; n <= 300; n += 1 + n / 8) {
		struct hishape_table *t = hishape_table_alloc(n, n, GFP_KERNEL);
		u32 a4 = xorshift() % 16;
		struct hishape_in6 a6 = in6(xorshift() % 3, ~0ULL - xorshift() % 64);

		for (i = 0; i < n; i++) {
			u32 len = xorshift() % 8;
			struct hishape_in6 e6;

			a4 += xorshift() % 4;		/* gaps of 0 to 3 */
			hishape_table_add4(t, a4, a4 + len, 1000 + i, 0);
			a4 += len + 1;
			a6 = in6_add(a6, xorshift() % 4);
			e6 = in6_add(a6, len);
			hishape_table_add6(t, &a6, &e6, 1000 + i, 0);
			a6 = in6_add(e6, 1);
		}
		CHECK(hishape_table_complete(t), "n %u complete", n);
		for (i = 0; i < n; i++) {
			u32 p[4] = { t->start4[i] - 1, t->start4[i], t->end4[i],
				     t->end4[i] + 1 };
			struct hishape_in6 q[4] = {
				in6_sub(t->start6[i], 1), t->start6[i],
				t->end6[i], in6_add(t->end6[i], 1) };
			int k;

			for (k = 0; k < 4; k++) {
				bad += hishape_lookup4(t, p[k]) != linear4(t, p[k]);
				bad += hishape_lookup6(t, &q[k]) != linear6(t, &q[k]);
				checked += 2;
			}
		}
		for (i = 0; i < 200; i++) {
			u32 p = xorshift() % (a4 + 8);
			struct hishape_in6 q = in6_sub(a6, xorshift() % 4096);

			bad += hishape_lookup4(t, p) != linear4(t, p);
			bad += hishape_lookup6(t, &q) != linear6(t, &q);
			checked += 2;
		}
		hishape_table_free(t);
	}
	CHECK(!bad, "%u of %u lookups differ from the linear search", bad, checked);
}

/*
 * A table grows as ranges arrive: one that announces the most ranges and
 * gets a few holds a few.  Each growth failing in turn: the range
 * refused with HISHAPE_ADD_NOMEM, the table as it was, nothing leaked.
 */
static void test_table_grow(void)
{
	struct hishape_table *t = hishape_table_alloc(HISHAPE_RANGES_MAX,
						      HISHAPE_RANGES_MAX,
						      GFP_KERNEL);
	unsigned long every;
	u32 i, bad = 0;

	CHECK(t, "a table of the most ranges");
	if (!t)
		return;
	for (i = 0; i < 10; i++) {
		struct hishape_in6 a = in6(i, 0);

		hishape_table_add4(t, 10 * i, 10 * i + 5, 1000, 0);
		hishape_table_add6(t, &a, &a, 1000, 0);
	}
	CHECK(hishape_table_bytes(t) <= sizeof(*t) + 16 * (40 + 64),
	      "10 ranges of each family announced as 2^24 take %zu bytes",
	      hishape_table_bytes(t));
	for (i = 0; i < 10; i++)
		bad += hishape_lookup4(t, 10 * i + 3) != i;
	CHECK(!bad, "lookups after growing");
	hishape_table_free(t);

	CHECK(!hishape_table_alloc(HISHAPE_RANGES_MAX + 1, 0, GFP_KERNEL),
	      "more ranges than the bound");
	dfs_user_allocs = 0;
	dfs_user_alloc_fail_every = 1;
	t = hishape_table_alloc(1, 1, GFP_KERNEL);
	dfs_user_alloc_fail_every = 0;
	CHECK(!t, "the table itself not allocated");

	for (every = 1; every <= 4; every++) {
		enum hishape_add_err err = HISHAPE_ADD_OK;
		u32 n;

		t = hishape_table_alloc(100, 0, GFP_KERNEL);
		dfs_user_allocs = 0;
		dfs_user_alloc_fail_every = every;
		for (n = 0; n < 100 && !err; n++)
			err = hishape_table_add4(t, 2 * n, 2 * n, 1000, 0);
		dfs_user_alloc_fail_every = 0;
		CHECK(err == HISHAPE_ADD_NOMEM, "allocation %lu failing: %d",
		      every, err);
		CHECK(t->n4 == n - 1, "the refused range not added");
		for (i = 0; i < t->n4; i++)
			bad += hishape_lookup4(t, 2 * i) != i;
		CHECK(!bad, "the ranges before the failure kept");
		hishape_table_free(t);
	}
}

/* What a reload keeps: the ranges of the same bounds, and the bucket of
 * those of the same rate too.
 */
static void test_table_carry(void)
{
	struct hishape_table *old = hishape_table_alloc(4, 2, GFP_KERNEL);
	struct hishape_table *t = hishape_table_alloc(4, 2, GFP_KERNEL);
	struct hishape_in6 a = in6(1, 0), b = in6(1, 9), c = in6(2, 0);
	u32 map[6];

	/* old: [0,9] [10,19] [20,29] [40,49]; v6 [a,b] [c,c] */
	hishape_table_add4(old, 0, 9, 1000, 0);
	hishape_table_add4(old, 10, 19, 1000, 0);
	hishape_table_add4(old, 20, 29, 1000, 0);
	hishape_table_add4(old, 40, 49, 1000, 0);
	hishape_table_add6(old, &a, &b, 1000, 0);
	hishape_table_add6(old, &c, &c, 1000, 0);
	/* new: [0,9] same; [10,19] at another rate; [20,25] narrower;
	 * [30,39] new; [40,49] another burst; v6 [a,a] narrower, [c,c] same
	 */
	hishape_table_add4(t, 0, 9, 1000, 0);
	hishape_table_add4(t, 10, 19, 2000, 0);
	hishape_table_add4(t, 20, 25, 1000, 0);
	hishape_table_add4(t, 40, 49, 1000, 3000);
	hishape_table_add6(t, &a, &a, 1000, 0);
	hishape_table_add6(t, &c, &c, 1000, 0);
	for (u32 i = 0; i < 6; i++)
		hishape_range(old, i)->rate.tat = 100 + i;

	hishape_table_carry(old, t, map);
	CHECK(map[0] == 0 && map[1] == 1 && map[2] == HISHAPE_NONE &&
	      map[3] == 3 && map[4] == HISHAPE_NONE && map[5] == 5,
	      "map %u %u %u %u %u %u", map[0], map[1], map[2], map[3],
	      map[4], map[5]);
	CHECK(hishape_range(t, 0)->rate.tat == 100, "same rate: bucket kept");
	CHECK(hishape_range(t, 1)->rate.tat == 0, "new rate: a fresh bucket");
	CHECK(hishape_range(t, 3)->rate.tat == 0, "new burst: a fresh bucket");
	CHECK(hishape_range(t, 5)->rate.tat == 105, "IPv6: bucket kept");
	hishape_table_free(old);
	hishape_table_free(t);
}

int main(void)
{
	TEST(test_rate_roundtrip);
	TEST(test_rate_burst);
	TEST(test_rate_big_packet);
	TEST(test_rate_long_run);
	TEST(test_add_refusals);
	TEST(test_lookup4_edges);
	TEST(test_lookup_random);
	TEST(test_table_grow);
	TEST(test_table_carry);
	return unit_summary("hishape_test");
}
