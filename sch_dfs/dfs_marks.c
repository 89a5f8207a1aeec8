// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs: the table of marked keys of a dfs_mq root (dfs_marks.h).
 */
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "dfs_marks.h"

void dfs_marks_init(struct dfs_marks *t)
{
	unsigned int i;

	t->count = 0;
	flowkey_hash_init(t->seed);
	for (i = 0; i < DFS_MARKS_BUCKETS; i++)
		INIT_HLIST_HEAD(&t->hash[i]);
}

static struct hlist_head *dfs_marks_bucket(struct dfs_marks *t,
					   const struct flowkey *key)
{
	return &t->hash[flowkey_hash(key, t->seed) % DFS_MARKS_BUCKETS];
}

static struct dfs_mark *dfs_marks_find(struct dfs_marks *t, u16 queue,
				       const struct flowkey *key)
{
	struct dfs_mark *m;

	hlist_for_each_entry(m, dfs_marks_bucket(t, key), node)
		if (m->queue == queue && flowkey_eq(&m->key, key))
			return m;
	return NULL;
}

static void dfs_marks_unlink(struct dfs_marks *t, struct dfs_mark *m)
{
	hlist_del_rcu(&m->node);
	WRITE_ONCE(t->count, t->count - 1);
	kfree_rcu(m, rcu);
}

/* @queue's mark of @key, made or renewed. */
static int dfs_marks_set(struct dfs_marks *t, u16 queue,
			 const struct flowkey *key, unsigned long now)
{
	struct dfs_mark *m = dfs_marks_find(t, queue, key);

	if (m) {
		WRITE_ONCE(m->seen, now);
		return 0;
	}
	if (t->count < DFS_MARKS_MAX)
		m = kmalloc(sizeof(*m), GFP_ATOMIC | __GFP_NOWARN);
	if (!m)
		return -ENOSPC;
	m->key = *key;
	m->queue = queue;
	m->seen = now;
	hlist_add_head_rcu(&m->node, dfs_marks_bucket(t, key));
	WRITE_ONCE(t->count, t->count + 1);
	return 0;
}

void dfs_marks_clear(struct dfs_marks *t, u16 queue,
		     const struct flowkey *key)
{
	struct dfs_mark *m = dfs_marks_find(t, queue, key);

	if (m)
		dfs_marks_unlink(t, m);
}

int dfs_marks_flags(struct dfs_marks *t, u16 queue,
		    const struct flowkey *key, u32 old, u32 new,
		    unsigned long now)
{
	bool was = old & DFS_F_FLAGGED, is = new & DFS_F_FLAGGED;

	if (!was && is)
		return dfs_marks_set(t, queue, key, now);
	if (was && !is)
		dfs_marks_clear(t, queue, key);
	return 0;
}

void dfs_marks_clear_queue(struct dfs_marks *t, u16 queue)
{
	struct hlist_node *tmp;
	struct dfs_mark *m;
	unsigned int i;

	for (i = 0; i < DFS_MARKS_BUCKETS && t->count; i++)
		hlist_for_each_entry_safe(m, tmp, &t->hash[i], node)
			if (m->queue == queue)
				dfs_marks_unlink(t, m);
}

void dfs_marks_destroy(struct dfs_marks *t)
{
	struct hlist_node *tmp;
	struct dfs_mark *m;
	unsigned int i;

	for (i = 0; i < DFS_MARKS_BUCKETS; i++)
		hlist_for_each_entry_safe(m, tmp, &t->hash[i], node) {
			hlist_del(&m->node);
			kfree(m);
		}
	t->count = 0;
}

bool dfs_marks_refused(struct dfs_marks *t, u16 queue,
		       const struct flowkey *key, unsigned long now,
		       unsigned long hold)
{
	bool refused = false, own = false;
	struct dfs_mark *m;

	if (!READ_ONCE(t->count))
		return false;
	/* The whole bucket: the key's own mark may come after another's. */
	hlist_for_each_entry_rcu(m, dfs_marks_bucket(t, key), node) {
		if (!flowkey_eq(&m->key, key))
			continue;
		if (m->queue == queue) {
			own = true;
			if (READ_ONCE(m->seen) != now)
				WRITE_ONCE(m->seen, now);
		} else if (time_before(now, READ_ONCE(m->seen) + hold)) {
			refused = true;
		}
	}
	/* A queue that flags the key itself judges it itself: refused by
	 * another's mark, its flow would never see a packet again, never
	 * be released, and keep its mark, and so the other's, alive.
	 */
	return refused && !own;
}
