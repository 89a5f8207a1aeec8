// SPDX-License-Identifier: GPL-2.0
/*
 * B-tree unit tests: basic operations, then random operations checked
 * against a reference (a presence bitmap over a small key space), with the
 * full invariant check after every step, ordered walks, "next" iteration
 * and injected allocation failures.
 */
#include "dfs_btree.h"
#include "unit.h"

#define NKEYS	3000

static struct dfs_flow flows[NKEYS];
static bool present[NKEYS];

/* Keys spread over all five words so every comparison word matters. */
static void make_key(struct flowkey *k, unsigned int i)
{
	memset(k, 0, sizeof(*k));
	k->w[0] = i % 7;
	k->w[1] = (i / 7) % 5;
	k->w[2] = i / 35;
	k->w[4] = i & 1;
}

static int key_index(const struct dfs_flow *f)
{
	return (int)(f - flows);
}

static void setup(void)
{
	unsigned int i;

	for (i = 0; i < NKEYS; i++)
		make_key(&flows[i].key, i);
	memset(present, 0, sizeof(present));
}

static int collect(struct dfs_flow *f, void *arg)
{
	struct dfs_flow ***out = arg;

	*(*out)++ = f;
	return 0;
}

/* Ordered walk and next() both give exactly the present keys, in the
 * tree's (tag, key) order.
 */
static void check_order(struct dfs_btree *bt)
{
	static struct dfs_flow *seen[NKEYS];
	struct dfs_flow **out = seen, *f = NULL;
	unsigned int n, i, expect = 0;

	dfs_btree_walk(bt, collect, &out);
	n = out - seen;
	for (i = 0; i < NKEYS; i++)
		expect += present[i];
	CHECK(n == expect, "walk saw %u of %u", n, expect);
	for (i = 1; i < n; i++)
		CHECK(dfs_btree_cmp(bt, &seen[i - 1]->key, &seen[i]->key) < 0,
		      "walk out of order at %u", i);
	for (i = 0; i < n; i++) {
		f = dfs_btree_next(bt, i ? &f->key : NULL);
		CHECK(f == seen[i], "next() differs from walk at %u", i);
	}
	CHECK(!dfs_btree_next(bt, n ? &seen[n - 1]->key : NULL),
	      "next() past the last key");
}

static void test_basic(void)
{
	unsigned int order;

	for (order = 2; order <= 17; order += 5) {
		struct dfs_btree bt;
		unsigned int i;

		setup();
		dfs_btree_init(&bt, order);
		CHECK(!dfs_btree_lookup(&bt, &flows[0].key), "empty lookup");
		CHECK(!dfs_btree_remove(&bt, &flows[0].key), "empty remove");
		for (i = 0; i < 500; i++) {
			CHECK(!dfs_btree_insert(&bt, &flows[i]), "insert %u", i);
			present[i] = true;
		}
		CHECK(dfs_btree_insert(&bt, &flows[7]) == -EEXIST, "dup");
		CHECK(!dfs_btree_check(&bt), "invariants, order %u", order);
		CHECK(bt.count == 500, "count %u", bt.count);
		for (i = 0; i < 600; i++)
			CHECK(dfs_btree_lookup(&bt, &flows[i].key) ==
			      (i < 500 ? &flows[i] : NULL), "lookup %u", i);
		check_order(&bt);
		for (i = 0; i < 500; i += 2) {
			CHECK(dfs_btree_remove(&bt, &flows[i].key) == &flows[i],
			      "remove %u", i);
			present[i] = false;
		}
		CHECK(!dfs_btree_check(&bt), "invariants after removes");
		check_order(&bt);
		for (i = 1; i < 500; i += 2)
			CHECK(dfs_btree_remove(&bt, &flows[i].key) == &flows[i],
			      "remove %u", i);
		CHECK(!bt.root && !bt.height && !bt.count && !bt.nodes &&
		      !bt.mem, "empty tree keeps nothing");
		dfs_btree_destroy(&bt, NULL, NULL);
	}
}

static void test_height(void)
{
	struct dfs_btree bt;
	unsigned int i;

	setup();
	dfs_btree_init(&bt, 2);
	for (i = 0; i < NKEYS; i++)
		dfs_btree_insert(&bt, &flows[i]);
	/* A B-tree of minimum degree t holding n keys is at most
	 * log_t((n + 1) / 2) + 1 levels high; for t = 2, n = 3000: 11.
	 */
	CHECK(bt.height <= 11, "height %u", bt.height);
	dfs_btree_destroy(&bt, NULL, NULL);
	CHECK(!bt.nodes && !bt.mem, "destroy frees every node");
}

/*
 * Tags that collide: every tag equal (the tree is then ordered by key
 * alone), or a few distinct values; random tags otherwise.
 */
enum { TAGS_RANDOM, TAGS_EQUAL, TAGS_FEW };

static void set_tags(struct dfs_btree *bt, int tags)
{
	if (tags == TAGS_RANDOM)
		return;
	memset(bt->seed, 0, sizeof(bt->seed));
	if (tags == TAGS_FEW)
		bt->seed[1] = 1ULL << 62;	/* tag: w[0] % 4 << 30 */
}

static void test_random_tags(int tags)
{
	static const unsigned int orders[] = { 2, 3, 4, 8, 16, 64 };
	unsigned int o;

	srand(1);
	for (o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
		struct dfs_btree bt;
		unsigned int step, bad = 0;

		setup();
		dfs_btree_init(&bt, orders[o]);
		set_tags(&bt, tags);
		for (step = 0; step < 40000; step++) {
			unsigned int i = rand() % NKEYS;
			int op = rand() % 3;

			if (op == 0) {
				int err = dfs_btree_insert(&bt, &flows[i]);

				bad += err != (present[i] ? -EEXIST : 0);
				present[i] = true;
			} else if (op == 1) {
				struct dfs_flow *f = dfs_btree_remove(&bt,
								&flows[i].key);

				bad += f != (present[i] ? &flows[i] : NULL);
				present[i] = false;
			} else {
				bad += dfs_btree_lookup(&bt, &flows[i].key) !=
				       (present[i] ? &flows[i] : NULL);
			}
			if (step % 97 == 0)
				bad += dfs_btree_check(&bt) != 0;
		}
		CHECK(!bad, "order %u tags %d: %u mismatches", orders[o], tags,
		      bad);
		CHECK(!dfs_btree_check(&bt), "order %u tags %d invariants",
		      orders[o], tags);
		check_order(&bt);
		dfs_btree_destroy(&bt, NULL, NULL);
	}
}

static void test_random(void)
{
	test_random_tags(TAGS_RANDOM);
}

static void test_equal_tags(void)
{
	test_random_tags(TAGS_EQUAL);
	test_random_tags(TAGS_FEW);
}

/* Each tree draws its own seeds: an attacker who learns one tree's tag
 * order (by timing) has learnt nothing of the next.
 */
static void test_seeds(void)
{
	struct dfs_btree a, b;
	unsigned int i, same = 0;

	setup();
	dfs_btree_init(&a, 32);
	dfs_btree_init(&b, 32);
	for (i = 0; i < 1000; i++)
		same += dfs_btree_tag(&a, &flows[i].key) ==
			dfs_btree_tag(&b, &flows[i].key);
	CHECK(same < 5, "%u of 1000 tags equal in two trees", same);
	/* A rebuild's tree keeps the order of the one it replaces. */
	dfs_btree_init_as(&b, 8, &a);
	for (i = 0; i < 1000; i++)
		CHECK(dfs_btree_tag(&a, &flows[i].key) ==
		      dfs_btree_tag(&b, &flows[i].key), "init_as tag %u", i);
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A spoofer's keys that differ only in the top bits of two words, here
 * the top byte of an IPv6 source's bytes 7 and 15 (w[0], w[1]): a hash
 * over 64-bit words gives them sums that differ by multiples of 2^56,
 * so the 65,536 of them fell on 256 tags, runs of 256 equal tags that
 * every search walked key by key.  flowkey_hash() over 32-bit words
 * gives them as many tags as random ones would (about one collision).
 */
static void test_tags_spread(void)
{
	static u32 tag[65536];
	struct dfs_btree bt;
	struct flowkey k;
	unsigned int i, round, distinct;

	for (round = 0; round < 4; round++) {
		dfs_btree_init(&bt, 32);
		memset(&k, 0, sizeof(k));
		k.family = 10;		/* AF_INET6 */
		memset(k.src, 0x20, 16);
		memset(k.dst, 0x30, 16);
		for (i = 0; i < 65536; i++) {
			k.src[7] = i & 0xff;
			k.src[15] = i >> 8;
			tag[i] = dfs_btree_tag(&bt, &k);
		}
		qsort(tag, 65536, sizeof(tag[0]), cmp_u32);
		for (i = 1, distinct = 1; i < 65536; i++)
			distinct += tag[i] != tag[i - 1];
		CHECK(distinct >= 65500, "round %u: %u distinct tags of 65536",
		      round, distinct);
	}
}

/* A full node passes an item to a sibling with room before it splits:
 * nodes end up fuller than the ln 2 of splits alone.
 */
static void test_fill(void)
{
	static const unsigned int orders[] = { 4, 8, 43 };
	unsigned int o, i;

	for (o = 0; o < ARRAY_SIZE(orders); o++) {
		struct dfs_btree bt;
		double fill;

		setup();
		dfs_btree_init(&bt, orders[o]);
		for (i = 0; i < NKEYS; i++)
			dfs_btree_insert(&bt, &flows[i]);
		fill = (double)bt.count / bt.nodes / (2 * orders[o] - 1);
		CHECK(fill >= 0.75, "order %u: nodes %.2f full", orders[o],
		      fill);
		dfs_btree_destroy(&bt, NULL, NULL);
	}
}

/* Memory is counted as kmalloc's buckets: a leaf of order 32 (63 tags
 * and pointers, 760 bytes) takes 1024.
 */
static void test_mem(void)
{
	struct dfs_btree bt;

	setup();
	dfs_btree_init(&bt, 32);
	dfs_btree_insert(&bt, &flows[0]);
	CHECK(bt.nodes == 1 && bt.mem == 1024, "one leaf: %u nodes, %llu B",
	      bt.nodes, (unsigned long long)bt.mem);
	dfs_btree_destroy(&bt, NULL, NULL);
	CHECK(!bt.mem, "destroy gives it back");
}

static void test_alloc_failure(void)
{
	struct dfs_btree bt;
	unsigned int i, failed = 0, bad = 0;

	setup();
	dfs_btree_init(&bt, 3);
	dfs_user_alloc_fail_every = 7;
	for (i = 0; i < NKEYS; i++) {
		int err = dfs_btree_insert(&bt, &flows[i]);

		if (err == -ENOMEM)
			failed++;
		else
			present[i] = true;
		bad += dfs_btree_check(&bt) != 0;
	}
	dfs_user_alloc_fail_every = 0;
	CHECK(failed > 0, "no allocation failed");
	CHECK(!bad, "%u invalid trees after failed inserts", bad);
	for (i = 0; i < NKEYS; i++)
		bad += dfs_btree_lookup(&bt, &flows[i].key) !=
		       (present[i] ? &flows[i] : NULL);
	CHECK(!bad, "%u lookups wrong after failed inserts", bad);
	check_order(&bt);
	dfs_btree_destroy(&bt, NULL, NULL);
}

static int freed;

static void count_free(struct dfs_flow *f, void *arg)
{
	(void)arg;
	freed += key_index(f) >= 0;
}

static void test_destroy_callback(void)
{
	struct dfs_btree bt;
	unsigned int i;

	setup();
	dfs_btree_init(&bt, 4);
	for (i = 0; i < 1000; i++)
		dfs_btree_insert(&bt, &flows[i]);
	freed = 0;
	dfs_btree_destroy(&bt, count_free, NULL);
	CHECK(freed == 1000, "destroy visited %d flows", freed);
}

int main(void)
{
	TEST(test_basic);
	TEST(test_height);
	TEST(test_random);
	TEST(test_equal_tags);
	TEST(test_seeds);
	TEST(test_tags_spread);
	TEST(test_fill);
	TEST(test_mem);
	TEST(test_alloc_failure);
	TEST(test_destroy_callback);
	return unit_summary("btree_test");
}
