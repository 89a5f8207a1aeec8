// SPDX-License-Identifier: GPL-2.0
/*
 * B-tree order sweep: lookup and insert cost and node memory per flow, for
 * 1k, 64k and 1M flows with IPv4 source/destination keys, at each order.
 * The same dfs_btree.c as the module, built with -O2 and no sanitizers.
 * It measures and prints; it does not pass or fail.
 */
#include <stdio.h>
#include <time.h>
#include "dfs_btree.h"


static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static u64 rng = 88172645463325252ULL;

static u64 xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(void)
{
	static const u32 sizes[] = { 1000, 65536, 1000000 };
	static const u32 orders[] = { 2, 4, 8, 16, 32, 64, 128 };
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
		free(flows);
		free(probe);
	}
	return 0;
}
