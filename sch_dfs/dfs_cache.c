// SPDX-License-Identifier: GPL-2.0
/*
 * Fixed-size array cache of malicious flows (section 3.2 of the paper).
 * Search, insert and remove are O(size) scans; "high" bounds the scan to
 * the slots that were ever used, so a small working set in a large cache
 * stays cheap.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dfs_cache.h"

int dfs_cache_init(struct dfs_cache *c, u32 size)
{
	memset(c, 0, sizeof(*c));
	if (!size)
		return 0;
	c->slot = kcalloc(size, sizeof(c->slot[0]), GFP_KERNEL_ACCOUNT);
	if (!c->slot)
		return -ENOMEM;
	c->size = size;
	return 0;
}

void dfs_cache_free(struct dfs_cache *c)
{
	kfree(c->slot);
	memset(c, 0, sizeof(*c));
}

int dfs_cache_insert(struct dfs_cache *c, struct dfs_flow *flow)
{
	u32 i;

	if (c->count == c->size)
		return -ENOSPC;
	for (i = 0; i < c->size; i++) {
		if (!c->slot[i].flow)
			break;
	}
	c->slot[i].tag = dfs_key_tag(&flow->key);
	/* read without the qdisc lock by the class walk */
	WRITE_ONCE(c->slot[i].flow, flow);
	c->count++;
	if (i >= c->high)
		c->high = i + 1;
	return 0;
}

bool dfs_cache_remove(struct dfs_cache *c, const struct dfs_flow *flow)
{
	u32 i;

	for (i = 0; i < c->high; i++) {
		if (c->slot[i].flow == flow) {
			WRITE_ONCE(c->slot[i].flow, NULL);
			c->slot[i].tag = 0;
			c->count--;
			while (c->high && !c->slot[c->high - 1].flow)
				c->high--;
			return true;
		}
	}
	return false;
}
