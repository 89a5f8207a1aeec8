// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the DFS flow repository: the B-tree (dfs_btree.c),
 * its index (dfs_index.c) and the malicious-flow cache (dfs_cache.c), as
 * dfs_repo.h puts them together, driven by a sequence of operations
 * decoded from the input and checked against a reference, a presence
 * array over a small key space, after every step:
 *
 *   - lookup, insert (with injected allocation failures), remove, next()
 *     and the ordered walk agree with the reference;
 *   - dfs_btree_check() (node fill, the tags and the (tag, key) order,
 *     equal leaf depth, the counters) holds after every operation;
 *   - a flow moved to the cache is found there and not in the tree, as
 *     the qdisc moves flows that become malicious, and back;
 *   - the index holds only flows of the tree, each in the bucket pair of
 *     its tag (dfs_index_check()), whatever its size (1 to 64 buckets,
 *     so that full pairs, moves and flows left out happen), through
 *     resizes and the fill that follows them; a miss in the repository
 *     is a miss in the tree;
 *   - destroy visits every flow once, and ASan sees no leak.
 *
 * Input: byte 0 the order (2..33), byte 1 the cache size (0..15) and in
 * its high nibble the tags: 0 all equal, 1 a few distinct values (so
 * searches run through equal tags to the keys), else random; then
 * operations of two bytes (op, key).
 */
#include "dfs_repo.h"
#include "fuzz_input.h"

#define NKEYS	256

enum { IN_NONE, IN_TREE, IN_CACHE };

static struct dfs_flow flows[NKEYS];
static u8 where[NKEYS];
static struct dfs_btree bt;
static struct dfs_index ix;
static void *ix_mem;


/* Keys differ in every word, top bits included, so every word of the
 * comparison and the sign of each 64-bit compare are exercised.
 */
static void make_key(struct flowkey *k, unsigned int i)
{
	memset(k, 0, sizeof(*k));
	k->w[0] = (u64)(i % 3) << 62;
	k->w[1] = (i / 3) % 5;
	k->w[2] = ((u64)(i & 8) << 60) | (i / 15);
	k->w[3] = ~0ULL * (i & 1);
	k->w[4] = i & 0x40;
}

static u32 idx(const struct dfs_flow *f)
{
	return (u32)(f - flows);
}

/* The smallest key in the tree above @after (NULL: the smallest). */
static struct dfs_flow *ref_next(const struct flowkey *after)
{
	struct dfs_flow *best = NULL;
	u32 i;

	for (i = 0; i < NKEYS; i++) {
		if (where[i] != IN_TREE)
			continue;
		if (after && dfs_btree_cmp(&bt, &flows[i].key, after) <= 0)
			continue;
		if (!best || dfs_btree_cmp(&bt, &flows[i].key, &best->key) < 0)
			best = &flows[i];
	}
	return best;
}

static u32 ref_count(u8 state)
{
	u32 i, n = 0;

	for (i = 0; i < NKEYS; i++)
		n += where[i] == state;
	return n;
}

struct walk_state {
	struct dfs_flow	*prev;
	u32		n;
	u32		stop;
};

static int walk_fn(struct dfs_flow *f, void *arg)
{
	struct walk_state *w = arg;

	FUZZ_ASSERT(where[idx(f)] == IN_TREE);
	FUZZ_ASSERT(!w->prev || dfs_btree_cmp(&bt, &w->prev->key, &f->key) < 0);
	w->prev = f;
	return ++w->n == w->stop;
}

static void destroy_fn(struct dfs_flow *f, void *arg)
{
	FUZZ_ASSERT(where[idx(f)] == IN_TREE);
	where[idx(f)] = IN_NONE;
	(*(u32 *)arg)++;
}

static u32 tag_of(const struct dfs_flow *f, void *arg)
{
	FUZZ_ASSERT(where[idx(f)] == IN_TREE);
	return dfs_btree_tag(&bt, &f->key);
}

/* A new index of 2^(@k % 7) buckets, filled a step at a time after. */
static void index_resize(u8 k)
{
	u32 buckets = 1U << (k % 7);

	free(ix_mem);
	ix_mem = calloc(buckets, sizeof(struct dfs_index_bucket));
	dfs_index_set(&ix, ix_mem, buckets);
}

/* Tags with collisions: searches that must go on to the keys. */
static void set_seeds(u8 mode)
{
	if (mode > 1)
		return;
	memset(bt.seed, 0, sizeof(bt.seed));
	if (mode == 1)
		bt.seed[2] = bt.seed[3] = bt.seed[5] = 1ULL << 31;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct dfs_cache cache;
	struct walk_state w;
	struct flowkey cursor;
	bool cursor_set = false;
	struct dfs_flow *f;
	u32 i, n, bt_count;
	int err;

	if (size < 2)
		return 0;
	memset(where, 0, sizeof(where));
	for (i = 0; i < NKEYS; i++)
		make_key(&flows[i].key, i);
	dfs_btree_init(&bt, DFS_BTREE_ORDER_MIN + data[0] % 32);
	set_seeds(data[1] >> 4);
	if (dfs_cache_init(&cache, data[1] % 16))
		return 0;
	index_resize(data[0] >> 5);

	for (i = 2; i + 1 < size; i += 2) {
		u8 op = data[i], k = data[i + 1];
		struct dfs_flow *fl = &flows[k];

		switch (op % 10) {
		case 0:		/* insert, as a new flow */
		case 1:
			if (where[k] == IN_CACHE)	/* the qdisc never does */
				break;
			if (where[k] == IN_TREE) {
				err = dfs_btree_insert(&bt, fl);
				FUZZ_ASSERT(err == -EEXIST);
				break;
			}
			err = dfs_repo_insert(&ix, &bt, fl);
			FUZZ_ASSERT(!err);
			where[k] = IN_TREE;
			break;
		case 2:		/* insert while the n-th allocation fails */
			if (where[k] == IN_CACHE)
				break;
			if (where[k] == IN_TREE)
				break;
			dfs_user_allocs = 0;
			dfs_user_alloc_fail_every = 1 + op / 16 % 3;
			err = dfs_repo_insert(&ix, &bt, fl);
			dfs_user_alloc_fail_every = 0;
			if (!err)
				where[k] = IN_TREE;
			else
				FUZZ_ASSERT(err == -ENOMEM);
			break;
		case 3:		/* remove (prune, or a flow going to the cache) */
			if (where[k] == IN_TREE) {
				dfs_repo_remove(&ix, &bt, fl);
				where[k] = IN_NONE;
			}
			FUZZ_ASSERT(!dfs_btree_remove(&bt, &fl->key));
			break;
		case 4:		/* lookup, each place, as classify does */
			f = dfs_cache_lookup(&cache, &fl->key);
			FUZZ_ASSERT(f == (where[k] == IN_CACHE ? fl : NULL));
			f = dfs_btree_lookup(&bt, &fl->key);
			FUZZ_ASSERT(f == (where[k] == IN_TREE ? fl : NULL));
			f = dfs_index_find(&ix, dfs_btree_tag(&bt, &fl->key),
					   &fl->key);
			FUZZ_ASSERT(!f || (f == fl && where[k] == IN_TREE));
			if (!f && where[k] == IN_TREE)
				FUZZ_ASSERT(ix.held < bt.count);
			break;
		case 5:		/* next(), as the incremental prune walks */
			f = dfs_btree_next(&bt, op & 0x80 ? NULL : &fl->key);
			FUZZ_ASSERT(f == ref_next(op & 0x80 ? NULL : &fl->key));
			break;
		case 6:		/* tree <-> cache, as a flow turns malicious */
			if (where[k] == IN_TREE) {
				if (dfs_cache_insert(&cache, fl)) {
					FUZZ_ASSERT(cache.count == cache.size);
					break;
				}
				dfs_repo_remove(&ix, &bt, fl);
				where[k] = IN_CACHE;
			} else if (where[k] == IN_CACHE) {
				FUZZ_ASSERT(dfs_cache_remove(&cache, fl));
				where[k] = IN_NONE;
				if (!dfs_repo_insert(&ix, &bt, fl))
					where[k] = IN_TREE;
			} else {
				FUZZ_ASSERT(!dfs_cache_remove(&cache, fl));
			}
			break;
		case 7:		/* ordered walk, stopped early or not */
			memset(&w, 0, sizeof(w));
			w.stop = k;
			dfs_btree_walk(&bt, walk_fn, &w);
			n = ref_count(IN_TREE);
			FUZZ_ASSERT(w.n == (k && k < n ? k : n));
			break;
		case 8:		/* a new index, or a step of its fill */
			if (op & 0x80) {
				index_resize(k);
				cursor_set = false;
			} else {
				dfs_repo_fill(&ix, &bt, &cursor, &cursor_set,
					      1 + k % 8);
			}
			break;
		case 9:		/* the repository's lookup, as enqueue's */
			f = dfs_repo_find(&cache, &ix, &bt, &fl->key);
			FUZZ_ASSERT(f == (where[k] == IN_NONE ? NULL : fl));
			break;
		}
		FUZZ_ASSERT(!dfs_index_check(&ix, tag_of, NULL));
		FUZZ_ASSERT(ix.held <= bt.count);
		FUZZ_ASSERT(!dfs_btree_check(&bt));
		FUZZ_ASSERT(bt.count == ref_count(IN_TREE));
		FUZZ_ASSERT(cache.count == ref_count(IN_CACHE));
		FUZZ_ASSERT(cache.high <= cache.size);
	}

	bt_count = bt.count;
	n = 0;
	dfs_btree_destroy(&bt, destroy_fn, &n);
	FUZZ_ASSERT(n == bt_count && !ref_count(IN_TREE));
	FUZZ_ASSERT(!bt.root && !bt.count && !bt.nodes && !bt.mem);
	dfs_cache_free(&cache);
	free(ix_mem);
	ix_mem = NULL;
	return 0;
}
