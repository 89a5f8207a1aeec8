/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow repository of Algorithm 1 as one: the cache of malicious flows,
 * searched first, and the B-tree of the others, and the moves between
 * them.  Inline, for the qdisc's enqueue and for the userspace benchmark of
 * that path (selftests/unit/path_bench.c), which then time the same code.
 */
#ifndef _DFS_REPO_H
#define _DFS_REPO_H

#include "dfs_btree.h"
#include "dfs_cache.h"
#include "dfs_decide.h"

/* The flow of @key, in the cache first (Algorithm 1, line 4), or NULL. */
static inline struct dfs_flow *dfs_repo_find(const struct dfs_cache *c,
					     const struct dfs_btree *bt,
					     const struct flowkey *key)
{
	struct dfs_flow *flow = dfs_cache_lookup(c, key);

	return flow ? flow : dfs_btree_lookup(bt, key);
}

/* Algorithm 1, lines 10-13.  A move that can not be made now (cache full,
 * no memory for a B-tree node) is tried again on the next packet; the
 * malicious mark is in the flow, so it is honoured wherever the flow is.
 */
static inline void dfs_repo_place(const struct dfs_params *p,
				  struct dfs_cache *c, struct dfs_btree *bt,
				  struct dfs_flow *flow)
{
	if (flow->flags & DFS_F_CACHED) {
		if (!dfs_flow_wants_btree(p, flow) || dfs_btree_insert(bt, flow))
			return;
		dfs_cache_remove(c, flow);
		flow->flags &= ~DFS_F_CACHED;
	} else if (dfs_flow_wants_cache(p, flow)) {
		if (dfs_cache_insert(c, flow))
			return;
		dfs_btree_remove(bt, &flow->key);
		flow->flags |= DFS_F_CACHED;
	}
}

#endif /* _DFS_REPO_H */
