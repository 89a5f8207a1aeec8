// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the hash index over the B-tree (dfs_index.c) and of the
 * repository's use of it (dfs_repo.h): flows found by tag and key, equal
 * tags told apart by the key, full bucket pairs that move residents and
 * at last leave a flow out, the spill bit that sends a lookup to the
 * second bucket, the sizes an index wants, and a repository whose index
 * lacks flows, after a resize, finding them in the tree and filling.
 */
#include "dfs_repo.h"
#include "unit.h"

#define NFLOWS	5000

static struct dfs_flow flows[NFLOWS];
static struct dfs_btree bt;

static void make_key(struct flowkey *k, unsigned int i)
{
	memset(k, 0, sizeof(*k));
	k->w[0] = i;
	k->w[3] = (u64)i << 32;
}

static u32 tag_of(const struct dfs_flow *f, void *arg)
{
	return *(const u32 *)arg ? *(const u32 *)arg :
	       dfs_btree_tag(&bt, &f->key);
}

static struct dfs_index *new_index(u32 buckets)
{
	static struct dfs_index x;
	static void *mem;

	free(mem);
	mem = calloc(buckets, sizeof(struct dfs_index_bucket));
	dfs_index_set(&x, mem, buckets);
	return &x;
}

static void test_add_find_del(void)
{
	struct dfs_index *x = new_index(64);
	u32 i, tag, zero = 0;

	CHECK(sizeof(struct dfs_index_bucket) == 64, "a bucket is %zu bytes",
	      sizeof(struct dfs_index_bucket));
	dfs_btree_init(&bt, 8);
	for (i = 0; i < 160; i++) {
		tag = dfs_btree_tag(&bt, &flows[i].key);
		CHECK(dfs_index_add(x, tag, &flows[i]), "add %u at half full", i);
	}
	CHECK(x->held == 160, "held %u", x->held);
	CHECK(!dfs_index_check(x, tag_of, &zero), "check %d",
	      dfs_index_check(x, tag_of, &zero));
	for (i = 0; i < 200; i++) {
		tag = dfs_btree_tag(&bt, &flows[i].key);
		CHECK(dfs_index_find(x, tag, &flows[i].key) ==
		      (i < 160 ? &flows[i] : NULL), "find %u", i);
		CHECK(dfs_index_has(x, tag, &flows[i]) == (i < 160), "has %u", i);
	}
	for (i = 0; i < 160; i += 2) {
		tag = dfs_btree_tag(&bt, &flows[i].key);
		CHECK(dfs_index_del(x, tag, &flows[i]), "del %u", i);
		CHECK(!dfs_index_del(x, tag, &flows[i]), "del %u twice", i);
	}
	for (i = 0; i < 160; i++) {
		tag = dfs_btree_tag(&bt, &flows[i].key);
		CHECK(dfs_index_find(x, tag, &flows[i].key) ==
		      (i % 2 ? &flows[i] : NULL), "find %u after del", i);
	}
	CHECK(x->held == 80 && !dfs_index_check(x, tag_of, &zero),
	      "held %u", x->held);
	dfs_index_clear(x);
	CHECK(!x->held && !dfs_index_find(x, dfs_btree_tag(&bt, &flows[1].key),
					   &flows[1].key), "clear");
}

/* One tag for every flow: one bucket pair, the key tells them apart. */
static void test_equal_tags(void)
{
	struct dfs_index *x = new_index(64);
	u32 i, tag = 0x12345678, n = 0;

	for (i = 0; i < 2 * DFS_INDEX_WAYS + 3; i++)
		n += dfs_index_add(x, tag, &flows[i]);
	CHECK(n == 2 * DFS_INDEX_WAYS ||
	      (n == DFS_INDEX_WAYS &&
	       dfs_index_other(x, tag & x->mask, tag) == (tag & x->mask)),
	      "%u of one tag fit", n);
	CHECK(x->held == n, "held %u of %u", x->held, n);
	CHECK(!dfs_index_check(x, tag_of, &tag), "check");
	for (i = 0; i < 2 * DFS_INDEX_WAYS + 3; i++) {
		struct dfs_flow *f = dfs_index_find(x, tag, &flows[i].key);

		CHECK(!f || f == &flows[i], "equal tags, key %u", i);
	}
}

/* Past the spill: a flow in its second bucket is found there. */
static void test_spill_and_full(void)
{
	struct dfs_index *x = new_index(2);
	u32 i, tag, ok = 0;

	dfs_btree_init(&bt, 8);
	for (i = 0; i < 40; i++) {
		tag = dfs_btree_tag(&bt, &flows[i].key);
		ok += dfs_index_add(x, tag, &flows[i]);
	}
	/* 10 ways: at most 10 in, and kicks fill it to the last way */
	CHECK(x->held <= 2 * DFS_INDEX_WAYS, "held %u", x->held);
	CHECK(x->held >= 2 * DFS_INDEX_WAYS - 1, "held %u of 10", x->held);
	CHECK(ok >= x->held, "%u adds said yes", ok);
	for (i = 0; i < 40; i++) {
		tag = dfs_btree_tag(&bt, &flows[i].key);
		if (dfs_index_has(x, tag, &flows[i]))
			CHECK(dfs_index_find(x, tag, &flows[i].key) == &flows[i],
			      "held flow %u found", i);
	}
	i = 0;
	CHECK(!dfs_index_check(x, tag_of, &i), "check");

	/* at seven eighths, where it grows: moves place every flow */
	x = new_index(1024);
	for (i = 0, ok = 0; i < 4480; i++) {
		tag = dfs_btree_tag(&bt, &flows[i].key);
		ok += dfs_index_add(x, tag, &flows[i]);
	}
	CHECK(ok == 4480 && x->held == 4480, "%u of 4480 at 7/8", ok);
	for (i = 0; i < 4480; i++) {
		tag = dfs_btree_tag(&bt, &flows[i].key);
		CHECK(dfs_index_find(x, tag, &flows[i].key) == &flows[i],
		      "flow %u at 7/8", i);
	}
	i = 0;
	CHECK(!dfs_index_check(x, tag_of, &i), "check at 7/8");
}

static void test_want(void)
{
	struct dfs_index *x = new_index(DFS_INDEX_MIN);
	struct dfs_index none = { 0 };

	CHECK(dfs_index_want(&none, 0) == DFS_INDEX_MIN, "a first index");
	CHECK(dfs_index_want(x, 0) == 0, "the smallest stays");
	CHECK(dfs_index_want(x, DFS_INDEX_MIN * DFS_INDEX_WAYS * 7 / 8) == 0,
	      "7/8 full stays");
	CHECK(dfs_index_want(x, DFS_INDEX_MIN * DFS_INDEX_WAYS * 7 / 8 + 1) ==
	      2 * DFS_INDEX_MIN, "past 7/8: double");
	CHECK(dfs_index_want(x, 1000000) == 1U << 18, "1M flows: %u",
	      dfs_index_want(x, 1000000));
	x = new_index(1U << 18);
	CHECK(dfs_index_want(x, 1000000) == 0, "1M flows in 2^18 buckets");
	CHECK(dfs_index_want(x, 81920) == 0, "a sixteenth stays");
	CHECK(dfs_index_want(x, 81000) == 1U << 16, "under a sixteenth: %u",
	      dfs_index_want(x, 81000));
	CHECK(dfs_index_want(x, 10) == DFS_INDEX_MIN, "down to the least");
	CHECK(dfs_index_want(x, 0xffffffffU) == DFS_INDEX_MAX,
	      "at most DFS_INDEX_MAX");
}

/* The repository with an index that lacks flows, as after a resize. */
static void test_repo(void)
{
	struct dfs_index *x = new_index(DFS_INDEX_MIN);
	struct dfs_cache cache;
	struct flowkey cursor;
	bool set = false;
	u32 i, zero = 0, want;

	dfs_btree_init(&bt, 8);
	CHECK(!dfs_cache_init(&cache, 4), "cache");
	for (i = 0; i < NFLOWS; i++)
		CHECK(!dfs_repo_insert(x, &bt, &flows[i]), "insert %u", i);
	CHECK(x->held < bt.count, "a small index lacks flows: %u of %u",
	      x->held, bt.count);
	for (i = 0; i < NFLOWS; i++)
		CHECK(dfs_repo_find(&cache, x, &bt, &flows[i].key) == &flows[i],
		      "found %u through the tree", i);
	want = dfs_index_want(x, bt.count);
	CHECK(want == 2048, "want %u", want);
	x = new_index(want);
	CHECK(!dfs_repo_find(&cache, x, &bt, &flows[NFLOWS - 1].key) ||
	      x->held == 1, "empty index: the tree answers, the flow goes in");
	while (dfs_repo_fill(x, &bt, &cursor, &set, 100))
		;
	CHECK(x->held == bt.count, "filled: %u of %u", x->held, bt.count);
	CHECK(!dfs_index_check(x, tag_of, &zero), "check filled");
	for (i = 0; i < NFLOWS; i += 2)
		dfs_repo_remove(x, &bt, &flows[i]);
	CHECK(x->held == bt.count && bt.count == NFLOWS / 2, "removed: %u %u",
	      x->held, bt.count);
	for (i = 0; i < NFLOWS; i++)
		CHECK(dfs_repo_find(&cache, x, &bt, &flows[i].key) ==
		      (i % 2 ? &flows[i] : NULL), "find %u after remove", i);
	dfs_btree_destroy(&bt, NULL, NULL);
	dfs_cache_free(&cache);
}

int main(void)
{
	u32 i;

	for (i = 0; i < NFLOWS; i++)
		make_key(&flows[i].key, i);
	TEST(test_add_find_del);
	TEST(test_equal_tags);
	TEST(test_spill_and_full);
	TEST(test_want);
	TEST(test_repo);
	new_index(1);
	return unit_summary("index_test");
}
