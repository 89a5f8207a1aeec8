/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DFS flow repository: a B-tree of flows ordered by their exact key.
 *
 * lib/btree.c is not used: its keys are at most 128 bits, while an IPv6
 * address pair with ports is 296, and it has no ordered "next" walk for
 * incremental pruning.
 */
#ifndef _DFS_BTREE_H
#define _DFS_BTREE_H

#include "dfs_flow.h"

/* Minimum degree t: a node holds t - 1 to 2t - 1 flows. */
#define DFS_BTREE_ORDER_MIN	2
#define DFS_BTREE_ORDER_MAX	256

struct dfs_btree_node;

struct dfs_btree {
	struct dfs_btree_node	*root;
	u32			order;		/* t */
	u32			height;		/* levels; 0 when empty */
	u32			count;		/* flows held */
	u32			nodes;
	u64			mem;		/* bytes of node memory */
};

void dfs_btree_init(struct dfs_btree *bt, u32 order);
struct dfs_flow *dfs_btree_lookup(const struct dfs_btree *bt,
				  const struct flowkey *key);
int dfs_btree_insert(struct dfs_btree *bt, struct dfs_flow *flow);
struct dfs_flow *dfs_btree_remove(struct dfs_btree *bt,
				  const struct flowkey *key);
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
