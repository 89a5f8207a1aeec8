// SPDX-License-Identifier: GPL-2.0
/*
 * B-tree order sweep: lookup and insert cost and node memory per flow, for
 * 1k, 64k and 1M flows with IPv4 source/destination keys, at each order.
 * Then, for flood traffic, lookups in the cache against lookups in the tree.
 * The same dfs_btree.c as the module, built with -O2 and no sanitizers.
 * It measures and prints; it does not pass or fail.
 */
#include <stdio.h>
#include <time.h>
#include "dfs_btree.h"
#include "dfs_cache.h"
#include "xorshift.h"


static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}


/*
 * Flood traffic: @c malicious flows in the cache, the others in a tree of
 * @n flows of the default order, 43.  A packet of a cached flow costs a
 * scan to its slot; the same flow in the tree (cache 0) a tree lookup; a
 * packet of any other flow first pays a scan of every used slot.
 */
static void cache_bench(struct dfs_flow *flows, u32 n, const u32 *probe,
			u32 lookups)
{
	static const u32 sizes[] = { 4, 32, 256, 1024 };
	/* Keys of other flows, as the packets' keys would be: on the stack,
	 * hot, so the scan is what is timed.
	 */
	static struct flowkey other[4096];
	struct dfs_btree bt;
	unsigned int s;
	u32 i;

	dfs_btree_init(&bt, 43);
	for (i = 0; i < n; i++)
		dfs_btree_insert(&bt, &flows[i]);
	for (i = 0; i < 4096; i++)
		other[i] = flows[(probe[i] | 1) % n].key;

	printf("\n| cached flows | cache hit ns | same flows in the tree ns | other flow: cache miss ns |\n");
	printf("|---:|---:|---:|---:|\n");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		u32 c = sizes[s], found = 0;
		struct dfs_cache cache;
		double t0, t1, t2, t3;

		dfs_cache_init(&cache, c);
		/* Spread over the key space, like real flood sources. */
		for (i = 0; i < c; i++)
			dfs_cache_insert(&cache, &flows[(u64)i * n / c]);
		t0 = now_ns();
		for (i = 0; i < lookups; i++)
			found += !!dfs_cache_lookup(&cache,
				&flows[(u64)(probe[i] % c) * n / c].key);
		t1 = now_ns();
		for (i = 0; i < lookups; i++)
			found += !!dfs_btree_lookup(&bt,
				&flows[(u64)(probe[i] % c) * n / c].key);
		t2 = now_ns();
		for (i = 0; i < lookups; i++)
			found += !dfs_cache_lookup(&cache, &other[i % 4096]);
		t3 = now_ns();
		printf("| %u | %.0f | %.0f | %.0f |\n", c, (t1 - t0) / lookups,
		       (t2 - t1) / lookups, (t3 - t2) / lookups);
		if (found < 2 * lookups)
			printf("lookup failed\n");
		dfs_cache_free(&cache);
	}
	dfs_btree_destroy(&bt, NULL, NULL);
}

int main(void)
{
	static const u32 sizes[] = { 1000, 65536, 1000000 };
	static const u32 orders[] = { 4, 8, 16, 21, 32, 43, 64, 85, 128 };
	const u32 lookups = 2000000;
	unsigned int s, o;

	printf("| flows | order | lookup ns | insert ns | node bytes/flow | height |\n");
	printf("|---:|---:|---:|---:|---:|---:|\n");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		u32 n = sizes[s], i;
		struct dfs_flow *flows = calloc(n, sizeof(*flows));
		u32 *probe = malloc(lookups * sizeof(*probe));

		/* The heap layout of real flows: one allocation each would
		 * scatter them; a shuffled probe order defeats the caches.
		 */
		for (i = 0; i < n; i++) {
			u64 r = xorshift();

			memcpy(flows[i].key.src, &r, 4);
			memcpy(flows[i].key.dst, (char *)&r + 4, 4);
			flows[i].key.family = 2;
		}
		for (i = 0; i < lookups; i++)
			probe[i] = xorshift() % n;

		for (o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
			struct dfs_btree bt;
			double t0, t1, t2;
			u32 found = 0;

			dfs_btree_init(&bt, orders[o]);
			t0 = now_ns();
			for (i = 0; i < n; i++)
				dfs_btree_insert(&bt, &flows[i]);
			t1 = now_ns();
			for (i = 0; i < lookups; i++)
				found += !!dfs_btree_lookup(&bt,
						&flows[probe[i]].key);
			t2 = now_ns();
			printf("| %u | %u | %.0f | %.0f | %.1f | %u |\n", n,
			       orders[o], (t2 - t1) / lookups, (t1 - t0) / n,
			       (double)bt.mem / bt.count, bt.height);
			if (found != lookups)
				printf("lookup failed\n");
			dfs_btree_destroy(&bt, NULL, NULL);
		}
		if (n == sizes[sizeof(sizes) / sizeof(sizes[0]) - 1])
			cache_bench(flows, n, probe, lookups);
		free(flows);
		free(probe);
	}
	return 0;
}
