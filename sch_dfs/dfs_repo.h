/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow repository of Algorithm 1 as one: the cache of malicious flows,
 * searched first, and the B-tree of the others with its index, and the
 * moves between them.  Inline, for the qdisc's enqueue and for the
 * userspace benchmark of that path (selftests/unit/path_bench.c), which
 * then time the same code.
 */
#ifndef _DFS_REPO_H
#define _DFS_REPO_H

#include "dfs_btree.h"
#include "dfs_cache.h"
#include "dfs_decide.h"
#include "dfs_index.h"

/*
 * The flow of @key: in the cache first (Algorithm 1, line 4), then in the
 * index over the tree, and in the tree itself only while the index lacks
 * some of its flows (one found there then goes into the index).
 */
static inline struct dfs_flow *dfs_repo_find(const struct dfs_cache *c,
					     struct dfs_index *x,
					     const struct dfs_btree *bt,
					     const struct flowkey *key)
{
	struct dfs_flow *flow = dfs_cache_lookup(c, key);
	u32 tag;

	if (flow)
		return flow;
	tag = dfs_btree_tag(bt, key);
	flow = dfs_index_find(x, tag, key);
	if (flow || x->held == bt->count)
		return flow;
	flow = dfs_btree_lookup(bt, key);
	if (flow)
		dfs_index_add(x, tag, flow);
	return flow;
}

/* A flow into the tree, and the index. */
static inline int dfs_repo_insert(struct dfs_index *x, struct dfs_btree *bt,
				  struct dfs_flow *flow)
{
	int err = dfs_btree_insert(bt, flow);

	if (!err)
		dfs_index_add(x, dfs_btree_tag(bt, &flow->key), flow);
	return err;
}

/* A flow of the tree out of it, and out of the index. */
static inline void dfs_repo_remove(struct dfs_index *x, struct dfs_btree *bt,
				   struct dfs_flow *flow)
{
	dfs_index_del(x, dfs_btree_tag(bt, &flow->key), flow);
	dfs_btree_remove(bt, &flow->key);
}

/*
 * Fill the index @x from the tree: up to @budget flows in the tree's
 * order from the one after *@cursor (from the first when !*@set), each
 * added unless it is in.  False once the walk is over, or the index has
 * no room: an index of a new size (dfs_index_want()) is filled from the
 * start so, a batch at a time under the qdisc's lock, while packets find
 * what it lacks in the tree.
 */
static inline bool dfs_repo_fill(struct dfs_index *x,
				 const struct dfs_btree *bt,
				 struct flowkey *cursor, bool *set, u32 budget)
{
	struct dfs_flow *flow;
	u32 tag;

	while (budget--) {
		flow = dfs_btree_next(bt, *set ? cursor : NULL);
		if (!flow)
			return false;
		*cursor = flow->key;
		*set = true;
		tag = dfs_btree_tag(bt, &flow->key);
		if (!dfs_index_has(x, tag, flow) && !dfs_index_add(x, tag, flow))
			return false;
	}
	return true;
}

/* Algorithm 1, lines 10-13.  A move that can not be made now (cache full,
 * no memory for a B-tree node) is tried again on the next packet; the
 * malicious mark is in the flow, so it is honoured wherever the flow is.
 */
static inline void dfs_repo_place(const struct dfs_params *p,
				  struct dfs_cache *c, struct dfs_index *x,
				  struct dfs_btree *bt, struct dfs_flow *flow)
{
	if (flow->flags & DFS_F_CACHED) {
		if (!dfs_flow_wants_btree(p, flow) ||
		    dfs_repo_insert(x, bt, flow))
			return;
		dfs_cache_remove(c, flow);
		flow->flags &= ~DFS_F_CACHED;
	} else if (dfs_flow_wants_cache(p, flow)) {
		if (dfs_cache_insert(c, flow))
			return;
		dfs_repo_remove(x, bt, flow);
		flow->flags |= DFS_F_CACHED;
	}
}

#endif /* _DFS_REPO_H */
