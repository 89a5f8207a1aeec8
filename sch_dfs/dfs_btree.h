/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DFS flow repository: a B-tree of flows ordered by a 32-bit keyed
 * hash of their exact key (the tag), then by the key itself.  The tags
 * sit in the nodes, so a search compares them in a few cache lines of the
 * node and follows a pointer to a flow only where tags are equal: once
 * per lookup, almost always.  Ordering by (tag, key) is a total order on
 * keys, all the prune walk needs; equal tags only cost key comparisons.
 *
 * The hash is flowkey_hash(), strongly universal, with seeds drawn for each
 * tree: a spoofed flood can not choose keys whose tags collide, which
 * would bring back a pointer chase per comparison.
 *
 * lib/btree.c is not used: its keys are at most 128 bits, while an IPv6
 * address pair with ports is 296, and it has no ordered "next" walk for
 * incremental pruning.
 */
#ifndef _DFS_BTREE_H
#define _DFS_BTREE_H

#include <linux/string.h>
#include <linux/types.h>
#include "dfs_flow.h"

/* Minimum degree t: a node holds t - 1 to 2t - 1 flows. */
#define DFS_BTREE_ORDER_MIN	2
#define DFS_BTREE_ORDER_MAX	256

struct dfs_btree_node;

/* flowkey_hash()'s: a constant and a multiplier a 32-bit word. */
#define DFS_BTREE_SEEDS	FLOWKEY_HASH_SEEDS

struct dfs_btree {
	struct dfs_btree_node	*root;
	u32			order;		/* t */
	u32			height;		/* levels; 0 when empty */
	u32			count;		/* flows held */
	u32			nodes;
	u64			mem;		/* bytes of node memory, as allocated */
	u64			seed[DFS_BTREE_SEEDS];	/* of the tags */
};

/* The tag of @key in @bt: its keyed hash, strongly universal. */
static inline u32 dfs_btree_tag(const struct dfs_btree *bt,
				const struct flowkey *key)
{
	return flowkey_hash(key, bt->seed);
}

/* The order of the tree: by tag, then by key. */
static inline int dfs_btree_cmp(const struct dfs_btree *bt,
				const struct flowkey *a,
				const struct flowkey *b)
{
	u32 ta = dfs_btree_tag(bt, a), tb = dfs_btree_tag(bt, b);

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return dfs_key_cmp(a, b);
}

/* An empty tree with new random tag seeds. */
void dfs_btree_init(struct dfs_btree *bt, u32 order);

/* An empty tree of @order in the order of @like: a walk over @like by
 * dfs_btree_next() (the prune's) goes on in it where it stopped.
 */
static inline void dfs_btree_init_as(struct dfs_btree *bt, u32 order,
				     const struct dfs_btree *like)
{
	dfs_btree_init(bt, order);
	memcpy(bt->seed, like->seed, sizeof(bt->seed));
}

struct dfs_flow *dfs_btree_lookup(const struct dfs_btree *bt,
				  const struct flowkey *key);
int dfs_btree_insert(struct dfs_btree *bt, struct dfs_flow *flow);
struct dfs_flow *dfs_btree_remove(struct dfs_btree *bt,
				  const struct flowkey *key);
/* The first flow after @key in the tree's order (NULL: the first). */
struct dfs_flow *dfs_btree_next(const struct dfs_btree *bt,
				const struct flowkey *key);
int dfs_btree_walk(const struct dfs_btree *bt,
		   int (*fn)(struct dfs_flow *flow, void *arg), void *arg);
void dfs_btree_destroy(struct dfs_btree *bt,
		       void (*fn)(struct dfs_flow *flow, void *arg), void *arg);
#ifndef __KERNEL__
/* Full invariant check, for the unit tests and fuzzers (userspace only). */
int dfs_btree_check(const struct dfs_btree *bt);
#endif

#endif /* _DFS_BTREE_H */
