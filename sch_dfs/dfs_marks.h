/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keys the tx queues of a dfs_mq root flag, for all of them
 * (dfs_mq_shared.c): a queue that flags a key marks it, every other queue
 * refuses the key's packets while the mark holds, and the mark holds
 * while its own queue still sees the key (DFS_MQ_MARK_HOLD after its last
 * packet there).
 *
 * A mark is one per (queue, key): set on the edge from not flagged to
 * flagged (malicious, held for its CPR, or both), cleared on the edge
 * back, and setting it again only renews it, so no sequence of flag
 * changes leaves one behind.  A lookup renews the asking queue's own mark
 * before it weighs the others', so that two queues that flag one key both
 * keep theirs; and a queue with a mark of its own is not refused by
 * another's: its own verdict holds the key, and lets it go.
 *
 * Writers (set, clear) hold the table's lock (dfs_mq_shared.c); a lookup
 * takes none (RCU)
 * and returns at once while the table is empty, which is nearly always.
 * No sk_buff and no lock here: selftests/unit/marks_test and fuzz_marks
 * run this file in userspace.
 */
#ifndef _DFS_MARKS_H
#define _DFS_MARKS_H

#include <linux/rculist.h>
#include <linux/types.h>
#include <net/flowkey.h>

#include "dfs_flow.h"

#define DFS_MARKS_BUCKETS	256
/* Past it a verdict holds on its own queue only, as without dfs_mq (the
 * queue counts it, mq_unshared).
 */
#define DFS_MARKS_MAX		4096

struct dfs_mark {
	struct hlist_node	node;		/* in hash, the writers' lock */
	struct rcu_head		rcu;
	struct flowkey		key;
	unsigned long		seen;		/* jiffies: its queue's last packet */
	u16			queue;		/* whose verdict */
};

struct dfs_marks {
	u32			count;		/* in hash */
	u64			seed[FLOWKEY_HASH_SEEDS];
	struct hlist_head	hash[DFS_MARKS_BUCKETS];
};

void dfs_marks_init(struct dfs_marks *t);
/* Frees every mark: no reader is left (the root is being freed). */
void dfs_marks_destroy(struct dfs_marks *t);

/*
 * A flow of @queue went from flags @old to @new (DFS_F_*): marks @key if
 * it became flagged, unmarks it if it no longer is, and does nothing
 * else.  The writers' lock held.  -ENOSPC if a mark was wanted and the
 * table had no room or no memory for it, else 0.
 */
int dfs_marks_flags(struct dfs_marks *t, u16 queue,
		    const struct flowkey *key, u32 old, u32 new,
		    unsigned long now);
/* The writers' lock held: @queue forgets @key, or every key (reset). */
void dfs_marks_clear(struct dfs_marks *t, u16 queue,
		     const struct flowkey *key);
void dfs_marks_clear_queue(struct dfs_marks *t, u16 queue);

/*
 * A packet of @key on @queue at @now, under RCU: renews @queue's own mark
 * of it, then tells whether another queue's mark, renewed within @hold,
 * refuses it: never where @queue has a mark of its own.
 */
bool dfs_marks_refused(struct dfs_marks *t, u16 queue,
		       const struct flowkey *key, unsigned long now,
		       unsigned long hold);

#endif /* _DFS_MARKS_H */
