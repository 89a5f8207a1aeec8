// SPDX-License-Identifier: GPL-2.0
/* Cache unit tests: fill, overflow, lookup by exact key, removal. */
#include "dfs_cache.h"
#include "unit.h"

static struct dfs_flow flows[40];

static void test_cache(void)
{
	struct dfs_cache c;
	unsigned int i;

	for (i = 0; i < 40; i++) {
		memset(&flows[i].key, 0, sizeof(flows[i].key));
		flows[i].key.src[3] = i;
		flows[i].key.family = 2;
	}
	CHECK(!dfs_cache_init(&c, 32), "init");
	CHECK(!dfs_cache_lookup(&c, &flows[0].key), "empty lookup");
	for (i = 0; i < 32; i++)
		CHECK(!dfs_cache_insert(&c, &flows[i]), "insert %u", i);
	CHECK(dfs_cache_insert(&c, &flows[32]) == -ENOSPC, "full cache");
	for (i = 0; i < 40; i++)
		CHECK(dfs_cache_lookup(&c, &flows[i].key) ==
		      (i < 32 ? &flows[i] : NULL), "lookup %u", i);
	CHECK(dfs_cache_remove(&c, &flows[31]) && c.high == 31, "high shrinks");
	CHECK(dfs_cache_remove(&c, &flows[3]) && c.high == 31, "hole");
	CHECK(!dfs_cache_remove(&c, &flows[3]), "double remove");
	CHECK(!dfs_cache_lookup(&c, &flows[3].key), "removed lookup");
	CHECK(!dfs_cache_insert(&c, &flows[35]) && dfs_cache_at(&c, 3) ==
	      &flows[35], "reuses the first hole");
	CHECK(c.count == 31, "count %u", c.count);
	dfs_cache_free(&c);

	CHECK(!dfs_cache_init(&c, 0), "cache 0");
	CHECK(dfs_cache_insert(&c, &flows[0]) == -ENOSPC, "cache 0 is full");
	CHECK(!dfs_cache_at(&c, 0), "no slot 0");
	dfs_cache_free(&c);
}

int main(void)
{
	TEST(test_cache);
	return unit_summary("cache_test");
}
