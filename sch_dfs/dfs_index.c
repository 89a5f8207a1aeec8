// SPDX-License-Identifier: GPL-2.0
/*
 * The hash index over the B-tree of flows: insertion with cuckoo moves,
 * removal, and the size an index of so many flows wants (dfs_index.h).
 */
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "dfs_index.h"

void dfs_index_set(struct dfs_index *x, void *mem, u32 buckets)
{
	memset(x, 0, sizeof(*x));
	if (!mem)
		return;
	x->b = mem;
	x->mask = buckets - 1;
}

void dfs_index_clear(struct dfs_index *x)
{
	if (x->b)
		memset(x->b, 0, dfs_index_size(dfs_index_buckets(x)));
	x->held = 0;
}

static int dfs_index_free_way(const struct dfs_index_bucket *bk)
{
	int w;

	for (w = 0; w < DFS_INDEX_WAYS; w++)
		if (!bk->flow[w])
			return w;
	return -1;
}

static void dfs_index_put(struct dfs_index *x, u32 i, int w, u32 tag,
			  struct dfs_flow *flow)
{
	x->b[i].tag[w] = tag;
	x->b[i].flow[w] = flow;
	/* a lookup starts at the first bucket: tell it to look on */
	if (i != dfs_index_first(x, tag))
		x->b[dfs_index_first(x, tag)].spill = 1;
}

bool dfs_index_add(struct dfs_index *x, u32 tag, struct dfs_flow *flow)
{
	u32 i, k;
	int w;

	if (!x->b)
		return false;
	i = dfs_index_first(x, tag);
	w = dfs_index_free_way(&x->b[i]);
	if (w < 0) {
		i = dfs_index_other(x, i, tag);
		w = dfs_index_free_way(&x->b[i]);
	}
	/*
	 * Both full: take the place of a resident of the second bucket, a
	 * different way each time, and try the resident's other bucket; so
	 * on, a few times.
	 */
	for (k = 0; w < 0 && k < DFS_INDEX_KICKS; k++) {
		struct dfs_flow *out;
		u32 out_tag;

		w = x->kick++ % DFS_INDEX_WAYS;
		out = x->b[i].flow[w];
		out_tag = x->b[i].tag[w];
		dfs_index_put(x, i, w, tag, flow);
		flow = out;
		tag = out_tag;
		i = dfs_index_other(x, i, tag);
		w = dfs_index_free_way(&x->b[i]);
	}
	/* else @flow, the one in hand, is left out: in the tree only */
	if (w < 0)
		return false;
	dfs_index_put(x, i, w, tag, flow);
	x->held++;
	return true;
}

static int dfs_index_find_way(const struct dfs_index_bucket *bk,
			      const struct dfs_flow *flow)
{
	int w;

	for (w = 0; w < DFS_INDEX_WAYS; w++)
		if (bk->flow[w] == flow)
			return w;
	return -1;
}

/*
 * The way of @flow, of tag @tag, with its bucket in *@i; -1 if the index
 * does not hold it.  The second bucket only when the first has spilled,
 * as dfs_index_find() looks.
 */
static int dfs_index_locate(const struct dfs_index *x, u32 tag,
			    const struct dfs_flow *flow, u32 *i)
{
	int w;

	if (!x->held)
		return -1;
	*i = dfs_index_first(x, tag);
	w = dfs_index_find_way(&x->b[*i], flow);
	if (w >= 0 || !x->b[*i].spill)
		return w;
	*i = dfs_index_other(x, *i, tag);
	return dfs_index_find_way(&x->b[*i], flow);
}

bool dfs_index_del(struct dfs_index *x, u32 tag, const struct dfs_flow *flow)
{
	u32 i;
	int w = dfs_index_locate(x, tag, flow, &i);

	if (w < 0)
		return false;
	x->b[i].flow[w] = NULL;
	x->b[i].tag[w] = 0;
	x->held--;
	return true;
}

bool dfs_index_has(const struct dfs_index *x, u32 tag,
		   const struct dfs_flow *flow)
{
	u32 i;

	return dfs_index_locate(x, tag, flow, &i) >= 0;
}

u32 dfs_index_want(const struct dfs_index *x, u32 flows)
{
	u64 slots = (u64)dfs_index_buckets(x) * DFS_INDEX_WAYS;
	u64 want, n = flows;
	bool grow = !x->b || n * 8 > slots * 7;

	if (!grow && (n * 16 >= slots ||
		      slots <= DFS_INDEX_MIN * DFS_INDEX_WAYS))
		return 0;
	/*
	 * Past seven eighths full, the least that holds them at seven
	 * eighths (a doubling, to seven sixteenths); under a sixteenth, the
	 * least that holds them at a quarter, not to grow again soon.
	 */
	want = grow ? DIV_ROUND_UP(n * 8, 7 * DFS_INDEX_WAYS) :
		      DIV_ROUND_UP(n * 4, DFS_INDEX_WAYS);
	want = roundup_pow_of_two(clamp_t(u64, want, DFS_INDEX_MIN,
					  DFS_INDEX_MAX));
	return want == dfs_index_buckets(x) ? 0 : want;
}

#ifndef __KERNEL__
int dfs_index_check(const struct dfs_index *x,
		    u32 (*tag_of)(const struct dfs_flow *flow, void *arg),
		    void *arg)
{
	u32 i, j, k, held = 0;
	int w, v;

	if (!x->b)
		return x->held ? __LINE__ : 0;
	for (i = 0; i <= x->mask; i++) {
		const struct dfs_index_bucket *bk = &x->b[i];

		for (w = 0; w < DFS_INDEX_WAYS; w++) {
			const struct dfs_flow *flow = bk->flow[w];
			u32 tag, first;

			if (!flow)
				continue;
			held++;
			tag = tag_of(flow, arg);
			if (bk->tag[w] != tag)
				return __LINE__;
			first = dfs_index_first(x, tag);
			if (i != first && i != dfs_index_other(x, first, tag))
				return __LINE__;
			if (i != first && !x->b[first].spill)
				return __LINE__;
			/* a flow is only ever in the pair of its tag */
			for (k = 0; k < 2; k++) {
				j = k ? dfs_index_other(x, first, tag) : first;
				for (v = 0; v < DFS_INDEX_WAYS; v++)
					if (x->b[j].flow[v] == flow &&
					    (j != i || v != w))
						return __LINE__;
			}
		}
	}
	return held == x->held ? 0 : __LINE__;
}
#endif
