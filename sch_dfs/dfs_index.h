/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hash index over the B-tree of flows, so that a packet of a known flow
 * reads one line of the index and its flow, not a node a level of the
 * tree: at 1M flows a lookup in the tree descends four levels, each a
 * DRAM access or two, where the index is one.
 *
 * The tree stays the repository (the prune walks it in order, a change
 * of order rebuilds it); the index holds pointers to some of its flows,
 * by the tree's own keyed tag (dfs_btree_tag()): flows never move, so a
 * pointer stays good until its flow leaves the tree, and the caller takes
 * it out of the index then.  When the index holds every flow of the tree
 * (held == the tree's count) a miss in it is a miss in the tree too, and
 * a packet of a new or spoofed source costs one or two lines; otherwise
 * (no room yet, a resize under way) the caller looks in the tree as well.
 *
 * Buckets of DFS_INDEX_WAYS tags and flow pointers, a 64-byte line each,
 * two buckets a tag as in cuckoo hashing: the first by the tag's low
 * bits, the second that one XOR a hash of the tag, so either is found
 * from the other and the tag alone.  A full pair moves a resident to its
 * other bucket, a few times at most; a flow that finds no room stays in
 * the tree only.  A bucket says when a flow whose first bucket it is went
 * to its second, so that a lookup reads the second line only then.
 *
 * The tag is keyed (strongly universal, seeded a tree), so a spoofed
 * flood can not aim its keys at one bucket pair.
 */
#ifndef _DFS_INDEX_H
#define _DFS_INDEX_H

#include <linux/bits.h>
#include <linux/types.h>
#include "dfs_flow.h"

#define DFS_INDEX_WAYS		5
/* Residents moved to make room for one flow, at most. */
#define DFS_INDEX_KICKS		32
/* Sizes, in buckets: a power of two, from 4 KiB up. */
#define DFS_INDEX_MIN		64
#define DFS_INDEX_MAX		BIT(24)

struct dfs_index_bucket {
	u32		tag[DFS_INDEX_WAYS];
	u32		spill;		/* a flow of this first bucket is in its second */
	struct dfs_flow	*flow[DFS_INDEX_WAYS];	/* NULL: a free way */
};

struct dfs_index {
	struct dfs_index_bucket	*b;	/* NULL: no memory yet */
	u32			mask;	/* buckets - 1 */
	u32			held;	/* flows in it */
	u32			kick;	/* the way a full pair moves next */
};

/* Bytes of an index of @buckets buckets, for the caller's allocation. */
static inline size_t dfs_index_size(u32 buckets)
{
	return (size_t)buckets * sizeof(struct dfs_index_bucket);
}

static inline u32 dfs_index_buckets(const struct dfs_index *x)
{
	return x->b ? x->mask + 1 : 0;
}

static inline u32 dfs_index_first(const struct dfs_index *x, u32 tag)
{
	return tag & x->mask;
}

/* The other bucket of a tag in bucket @i, either of its two. */
static inline u32 dfs_index_other(const struct dfs_index *x, u32 i, u32 tag)
{
	return (i ^ ((tag * 0x9e3779b1U) >> 7)) & x->mask;
}

/* Way of @flow (tag @tag) in bucket @bk, or -1. */
static inline int dfs_index_way(const struct dfs_index_bucket *bk, u32 tag,
				const struct flowkey *key)
{
	int w;

	for (w = 0; w < DFS_INDEX_WAYS; w++)
		if (bk->tag[w] == tag && bk->flow[w] &&
		    flowkey_eq(key, &bk->flow[w]->key))
			return w;
	return -1;
}

/* The flow of @key, of tag @tag, if the index holds it. */
static inline struct dfs_flow *dfs_index_find(const struct dfs_index *x,
					      u32 tag,
					      const struct flowkey *key)
{
	const struct dfs_index_bucket *bk;
	u32 i;
	int w;

	if (!x->held)
		return NULL;
	i = dfs_index_first(x, tag);
	bk = &x->b[i];
	w = dfs_index_way(bk, tag, key);
	if (w >= 0)
		return bk->flow[w];
	if (!bk->spill)
		return NULL;
	bk = &x->b[dfs_index_other(x, i, tag)];
	w = dfs_index_way(bk, tag, key);
	return w >= 0 ? bk->flow[w] : NULL;
}

/*
 * @mem: dfs_index_size(@buckets) zeroed bytes (a power of two from
 * DFS_INDEX_MIN to DFS_INDEX_MAX buckets), or NULL for none.  The index
 * is empty after; the caller frees the memory it had.
 */
void dfs_index_set(struct dfs_index *x, void *mem, u32 buckets);
/* Forget every flow, keeping the memory. */
void dfs_index_clear(struct dfs_index *x);
/*
 * Add @flow, not in the index, of tag @tag.  False when it, or a resident
 * it moved, found no room: that flow is then in the tree only.
 */
bool dfs_index_add(struct dfs_index *x, u32 tag, struct dfs_flow *flow);
/* Take @flow out if it is in; true if it was. */
bool dfs_index_del(struct dfs_index *x, u32 tag, const struct dfs_flow *flow);
bool dfs_index_has(const struct dfs_index *x, u32 tag,
		   const struct dfs_flow *flow);
/*
 * The size, in buckets, for an index of @flows flows: 0 when the present
 * one will do (from a sixteenth to seven eighths full, or at the bounds).
 * Cuckoo moves fill two choices of five ways past 95%: the bound is one
 * of memory (15 to 29 bytes a flow as the flows grow), not of room.
 */
u32 dfs_index_want(const struct dfs_index *x, u32 flows);
#ifndef __KERNEL__
/*
 * For the unit tests and fuzzers: every flow held is in the bucket pair
 * of its tag, @tag_of() of it, the first bucket's spill set when it is
 * in the second, no flow twice, and held the count.  0, or the line.
 */
int dfs_index_check(const struct dfs_index *x,
		    u32 (*tag_of)(const struct dfs_flow *flow, void *arg),
		    void *arg);
#endif

#endif /* _DFS_INDEX_H */
