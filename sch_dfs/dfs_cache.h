/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DFS cache: a fixed-size array of the flows whose p_m reached max_th.
 * It is searched before the B-tree, so a flood is recognised in a scan of
 * a few cache lines: each slot holds a 64-bit tag of the key beside the
 * flow pointer, and only a tag match dereferences the flow.
 */
#ifndef _DFS_CACHE_H
#define _DFS_CACHE_H

#include <linux/types.h>
#include "dfs_flow.h"

#define DFS_CACHE_MAX	1024

struct dfs_cache_slot {
	u64		tag;
	struct dfs_flow	*flow;		/* NULL: free */
};

struct dfs_cache {
	u32			size;	/* slots */
	u32			count;	/* slots in use */
	u32			high;	/* 1 + highest slot ever used */
	struct dfs_cache_slot	*slot;
};

int dfs_cache_init(struct dfs_cache *c, u32 size);
void dfs_cache_free(struct dfs_cache *c);
int dfs_cache_insert(struct dfs_cache *c, struct dfs_flow *flow);
bool dfs_cache_remove(struct dfs_cache *c, const struct dfs_flow *flow);
/* The flow of @key, or NULL: inline, as every packet asks, and nearly
 * always of an empty cache.
 */
static inline struct dfs_flow *dfs_cache_lookup(const struct dfs_cache *c,
						const struct flowkey *key)
{
	u64 tag;
	u32 i;

	if (!c->count)
		return NULL;
	tag = dfs_key_tag(key);
	for (i = 0; i < c->high; i++) {
		const struct dfs_cache_slot *s = &c->slot[i];

		if (s->tag == tag && s->flow && flowkey_eq(key, &s->flow->key))
			return s->flow;
	}
	return NULL;
}

/* The flow in slot @i, or NULL. */
static inline struct dfs_flow *dfs_cache_at(const struct dfs_cache *c, u32 i)
{
	return i < c->size ? c->slot[i].flow : NULL;
}

#endif /* _DFS_CACHE_H */
