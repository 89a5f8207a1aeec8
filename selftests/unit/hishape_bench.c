// SPDX-License-Identifier: GPL-2.0
/*
 * The range table's lookup on the host CPU, 10 to 1M ranges: the search
 * sch_hishape uses (branch-free halving, hishape_table.h) against a
 * textbook binary search with a branch, and against an Eytzinger (BFS
 * order) copy of the starts with a prefetch of the node four levels down,
 * the layout that is faster on large arrays when memory, not compute,
 * bounds the search.  IPv4 and IPv6; addresses in random ranges (a shaped
 * source's packets) and addresses in no range (the paper's unlimited
 * source).  The same hishape_table.c as the module, -O2, no sanitizers.
 * It measures and prints; it does not pass or fail.
 */
#include <stdio.h>
#include <time.h>
#include "hishape_table.h"
#include "xorshift.h"

#define LOOKUPS	(1U << 22)


static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* A branch per probe, as a textbook (and the paper's) binary search. */
static u32 branchy4(const struct hishape_table *t, u32 x)
{
	u32 lo = 0, hi = t->n4;

	while (lo < hi) {		/* the first start above x */
		u32 mid = lo + (hi - lo) / 2;

		if (t->start4[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && x <= t->end4[lo - 1] ? lo - 1 : HISHAPE_NONE;
}

/*
 * Eytzinger layout: e[1..n] holds the starts in BFS order of the implicit
 * search tree, idx[k] the sorted index of e[k].  The search walks from the
 * root, k = 2k + (e[k] <= x), with no branch, prefetching 16 nodes ahead
 * (one cache line of 4-byte keys, four levels down).
 */
struct eytz {
	u32	*e;
	u32	*idx;
	u32	n;
};

static u32 eytz_fill(struct eytz *z, const u32 *sorted, u32 i, u32 k)
{
	if (k <= z->n) {
		i = eytz_fill(z, sorted, i, 2 * k);
		z->e[k] = sorted[i];
		z->idx[k] = i++;
		i = eytz_fill(z, sorted, i, 2 * k + 1);
	}
	return i;
}

static u32 eytz4(const struct eytz *z, const struct hishape_table *t, u32 x)
{
	u32 k = 1;

	while (k <= z->n) {
		__builtin_prefetch(z->e + 16 * k);
		k = 2 * k + (z->e[k] <= x);
	}
	/* undo the right turns after the last left one: the first start above x */
	k >>= __builtin_ffs(~k);
	k = k ? z->idx[k] : z->n;
	if (!k)
		return HISHAPE_NONE;
	k--;
	return x <= t->end4[k] ? k : HISHAPE_NONE;
}

/* n ranges of random widths with random gaps, spread over the space. */
static struct hishape_table *build(u32 n, bool v6)
{
	struct hishape_table *t = hishape_table_alloc(v6 ? 0 : n, v6 ? n : 0, 0);
	u64 step = (1ULL << 32) / n, a = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		u64 len = xorshift() % (step / 2 + 1);
		u64 s = a + xorshift() % (step - len);

		if (v6) {
			struct hishape_in6 x = { 0x20010db800000000ULL, s << 20 };
			struct hishape_in6 y = { 0x20010db800000000ULL,
						 (s + len) << 20 | 0xfffff };

			hishape_table_add6(t, &x, &y, 125000, 3000);
		} else {
			hishape_table_add4(t, s, s + len, 125000, 3000);
		}
		a += step;
	}
	return t;
}

/* Addresses: inside random ranges, or in the gaps before them. */
static void addresses(const struct hishape_table *t, u32 *a, bool hit, bool v6)
{
	u32 n = v6 ? t->n6 : t->n4, i;

	for (i = 0; i < LOOKUPS; i++) {
		u32 r = xorshift() % n;
		u64 s = v6 ? t->start6[r].lo >> 20 : t->start4[r];
		u64 e = v6 ? t->end6[r].lo >> 20 : t->end4[r];
		u64 prev = r ? (v6 ? t->end6[r - 1].lo >> 20 : t->end4[r - 1]) + 1 : 0;

		if (hit)
			a[i] = s + xorshift() % (e - s + 1);
		else
			a[i] = s > prev ? prev + xorshift() % (s - prev) : s - 1;
	}
}

static volatile u32 sink;

#define TIME(expr) ({							\
	double t0 = now_ns();						\
	u32 acc = 0, i;							\
	for (i = 0; i < LOOKUPS; i++)					\
		acc += (expr);						\
	sink = acc;							\
	(now_ns() - t0) / LOOKUPS;					\
})

int main(void)
{
	static const u32 sizes[] = { 10, 100, 1000, 10000, 100000, 1000000 };
	u32 *a = malloc(LOOKUPS * sizeof(*a));
	size_t s;

	printf("# range lookup on the host CPU, ns per packet (%u lookups)\n\n",
	       LOOKUPS);
	printf("| ranges | packets | v4 branch-free | v4 branchy | v4 eytzinger | v6 branch-free |\n");
	printf("|---:|---|---:|---:|---:|---:|\n");
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		struct hishape_table *t4 = build(sizes[s], false);
		struct hishape_table *t6 = build(sizes[s], true);
		struct eytz z = { .n = t4->n4 };
		int hit;

		z.e = calloc(z.n + 1 + 16 * (z.n + 1), sizeof(u32));
		z.idx = calloc(z.n + 1, sizeof(u32));
		eytz_fill(&z, t4->start4, 0, 1);
		for (hit = 1; hit >= 0; hit--) {
			double bf, br, ey, v6;

			addresses(t4, a, hit, false);
			/* the three v4 searches agree, or the timing means nothing */
			for (u32 i = 0; i < LOOKUPS; i += 97) {
				u32 want = hishape_lookup4(t4, a[i]);

				if (branchy4(t4, a[i]) != want || eytz4(&z, t4, a[i]) != want) {
					printf("searches disagree at %u\n", a[i]);
					return 1;
				}
			}
			bf = TIME(hishape_lookup4(t4, a[i]));
			br = TIME(branchy4(t4, a[i]));
			ey = TIME(eytz4(&z, t4, a[i]));
			addresses(t6, a, hit, true);
			v6 = TIME(({ struct hishape_in6 x = { 0x20010db800000000ULL,
							      (u64)a[i] << 20 };
				     hishape_lookup6(t6, &x); }));
			printf("| %u | %s | %.1f | %.1f | %.1f | %.1f |\n", sizes[s],
			       hit ? "in a range" : "in no range", bf, br, ey, v6);
		}
		free(z.e);
		free(z.idx);
		hishape_table_free(t4);
		hishape_table_free(t6);
	}
	free(a);
	return 0;
}
