// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs: what the tx queues of a dfs_mq root share (dfs_mq_shared.h).
 *
 * Each queue's DFS judges the flows it sees, by its own share of the
 * link.  What one queue judges, all apply: a key a queue flags
 * (malicious, or held for its CPR) is marked in the root's table
 * (dfs_marks.c), and every other queue refuses the key's packets before
 * they take state or buffer space, so a flood spread over the queues by
 * its ports is refused on all of them once one has judged it.  The table
 * is read without a lock (RCU), and skipped while empty, which is nearly
 * always; marks and unmarks, as rare as verdicts, take its lock.  A mark
 * holds the others only while its queue still sees the key's packets
 * (DFS_MQ_MARK_HOLD): a key that now sends on other queues only is
 * judged there afresh, as a key a queue has never seen is.
 *
 * And what one key gets, it gets over all queues: a device spreads a
 * host's connections over its tx queues by their hash, and a host with a
 * share on each queue would get as many shares as it has queues.  So the
 * queues keep a sketch of the queues each key is active on (a bitmap a
 * slot, two epochs of rate_interval, set without a lock), and "sched fq"
 * gives a key on k queues 1/k of a key's share of the round on each.  A
 * slot two keys share counts the queues of both: those keys get less,
 * never more.  The queues share "bandwidth" too: each takes the link
 * over the number of queues busy beside it (dfs_mq_link_part()).  Each
 * queue's n is its own: its round divides its part of the link among its
 * keys, and a key is judged by what that round gives it.
 */
#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "dfs_decide.h"
#include "dfs_marks.h"
#include "dfs_mq_shared.h"

/* How long a mark holds the other queues after its queue last saw one of
 * the key's packets.
 */
#define DFS_MQ_MARK_HOLD	HZ

/* Slots of the sketch of the queues keys are active on. */
#define DFS_MQ_SPREAD_SLOTS	8192

/* The queues a slot's keys were active on (a bit a queue, modulo
 * BITS_PER_LONG) in the epoch of each parity.
 */
struct dfs_mq_spread {
	unsigned long	queues[2];
	u32		epoch[2];
};

/* What a queue last told of its load: the part of its last epoch it held
 * a backlog, and would have with what it refused let in (DFS_METER_ONE
 * all of it), and when (jiffies).
 */
struct dfs_mq_load {
	unsigned long	stamp;
	u32		busy;
	u32		busy_r;
};

/*
 * What the queues of a root share.  Not the root's private data: when a
 * root is replaced by one with ->attach (mq, mqprio, another dfs_mq),
 * qdisc_graft() destroys the old root before it puts the old queues, and
 * a queue may still be reset, dequeued or destroyed after its root is
 * gone.  So each queue holds a reference, as the root does, and the last
 * one frees it.
 */
struct dfs_mq {
	refcount_t		refs;
	spinlock_t		marks_lock;	/* writers of marks */
	struct dfs_marks	marks;
	u64			seed[FLOWKEY_HASH_SEEDS];	/* spread's */
	struct dfs_mq_spread	*spread;	/* DFS_MQ_SPREAD_SLOTS */
	u32			epoch_jiffies;	/* the queues' rate_interval */
	u16			queues;		/* of load */
	struct dfs_mq_load	*load;		/* a queue each, its own to write */
};

void dfs_mq_get(struct dfs_mq *mq)
{
	refcount_inc(&mq->refs);
}

/* After the last queue is destroyed: no reader is left. */
void dfs_mq_put(struct dfs_mq *mq)
{
	if (!mq || !refcount_dec_and_test(&mq->refs))
		return;
	WARN_ON_ONCE(mq->marks.count);
	dfs_marks_destroy(&mq->marks);
	kvfree(mq->spread);
	kvfree(mq->load);
	kfree(mq);
}

struct dfs_mq *dfs_mq_alloc(unsigned int queues)
{
	struct dfs_mq *mq = kzalloc(sizeof(*mq), GFP_KERNEL_ACCOUNT);

	if (!mq)
		return NULL;
	refcount_set(&mq->refs, 1);
	spin_lock_init(&mq->marks_lock);
	dfs_marks_init(&mq->marks);
	flowkey_hash_init(mq->seed);
	mq->spread = kvcalloc(DFS_MQ_SPREAD_SLOTS, sizeof(*mq->spread),
			      GFP_KERNEL_ACCOUNT);
	mq->load = kvcalloc(queues, sizeof(*mq->load), GFP_KERNEL_ACCOUNT);
	mq->queues = queues;
	if (!mq->spread || !mq->load) {
		dfs_mq_put(mq);
		return NULL;
	}
	return mq;
}

/* Under the qdisc lock of @queue: a flow's flags changed. */
bool dfs_mq_flags(struct dfs_mq *mq, u16 queue, const struct flowkey *key,
		  u32 old, u32 new)
{
	int err;

	spin_lock_bh(&mq->marks_lock);
	err = dfs_marks_flags(&mq->marks, queue, key, old, new, jiffies);
	spin_unlock_bh(&mq->marks_lock);
	return !err;
}

void dfs_mq_unmark(struct dfs_mq *mq, u16 queue, const struct flowkey *key)
{
	spin_lock_bh(&mq->marks_lock);
	dfs_marks_clear(&mq->marks, queue, key);
	spin_unlock_bh(&mq->marks_lock);
}

/* The queue forgets every flow (reset, destroy). */
void dfs_mq_unmark_queue(struct dfs_mq *mq, u16 queue)
{
	spin_lock_bh(&mq->marks_lock);
	dfs_marks_clear_queue(&mq->marks, queue);
	spin_unlock_bh(&mq->marks_lock);
}

/*
 * A packet of @key on @queue (its qdisc lock held, under the RCU of the
 * transmit path): whether another queue's verdict refuses it.  The key's
 * own mark on @queue is kept alive by it.
 */
bool dfs_mq_refused(struct dfs_mq *mq, u16 queue, const struct flowkey *key)
{
	return dfs_marks_refused(&mq->marks, queue, key, jiffies,
				 DFS_MQ_MARK_HOLD);
}

/*
 * A key's packet on @queue: on how many queues it is active, @queue
 * counted.  The first queue to see a slot in a new epoch starts its
 * bitmap with its own bit; another queue's bit set in the instant
 * between the two writes is lost, and that key counted on one queue less
 * until that queue tells of it again.
 */
u32 dfs_mq_spread(struct dfs_mq *mq, u16 queue, const struct flowkey *key)
{
	u32 e = jiffies / READ_ONCE(mq->epoch_jiffies), i = e & 1, old;
	struct dfs_mq_spread *s = &mq->spread[flowkey_hash(key, mq->seed) %
					      DFS_MQ_SPREAD_SLOTS];
	unsigned int nr = queue % BITS_PER_LONG;
	unsigned long seen;

	old = READ_ONCE(s->epoch[i]);
	if (old != e && cmpxchg(&s->epoch[i], old, e) == old)
		xchg(&s->queues[i], BIT(nr));
	else if (!test_bit(nr, &s->queues[i]))
		set_bit(nr, &s->queues[i]);
	seen = READ_ONCE(s->queues[i]) | BIT(nr);
	if (READ_ONCE(s->epoch[i ^ 1]) == e - 1)
		seen |= READ_ONCE(s->queues[i ^ 1]);
	return hweight_long(seen);
}

/*
 * A new epoch of @queue's meter, which held a backlog @busy of its last,
 * and would have held one @busy_r with what it refused let in
 * (DFS_METER_ONE all of it): the part of "bandwidth" it sends now, in
 * 1/DFS_LINK_ONE, into @part, and the part it would send with every
 * queue's refused let in into @part_r (the rate a flagged key is judged
 * by: a flood that the queues refuse leaves them idle, and each would
 * take the whole link).  While it has a backlog the device serves it in
 * turn with the queues that have one too, so it gets the link over their
 * number: 1 for its own, and each other queue counted by the part of its
 * epoch it was busy, as of its last epoch if that ended within two epochs
 * (an idle queue ticks no epoch, and its last word goes stale).  A queue
 * whose traffic comes in bursts is counted by the time it is busy, not
 * whole as cake_mq counts an active queue: a ping's queue does not halve
 * the part of a queue that sends all the time.  Read without a lock, once
 * an epoch; a value a moment old only moves the part a little.
 */
void dfs_mq_link_part(struct dfs_mq *mq, u16 queue, u32 busy, u32 busy_r,
		      u32 *part, u32 *part_r)
{
	unsigned long now = jiffies, fresh = 2 * READ_ONCE(mq->epoch_jiffies);
	u64 busy_queues = DFS_METER_ONE, busy_queues_r = DFS_METER_ONE;
	unsigned int i;

	WRITE_ONCE(mq->load[queue].busy, busy);
	WRITE_ONCE(mq->load[queue].busy_r, busy_r);
	WRITE_ONCE(mq->load[queue].stamp, now);
	for (i = 0; i < mq->queues; i++) {
		const struct dfs_mq_load *l = &mq->load[i];

		if (i == queue || !time_before(now, READ_ONCE(l->stamp) + fresh))
			continue;
		busy_queues += min(READ_ONCE(l->busy), DFS_METER_ONE);
		busy_queues_r += min(READ_ONCE(l->busy_r), DFS_METER_ONE);
	}
	*part = div64_u64((u64)DFS_LINK_ONE * DFS_METER_ONE, busy_queues);
	*part_r = div64_u64((u64)DFS_LINK_ONE * DFS_METER_ONE, busy_queues_r);
}

/* The spread's epochs: the queues' rate_interval, @ns. */
void dfs_mq_set_epoch(struct dfs_mq *mq, u64 ns)
{
	WRITE_ONCE(mq->epoch_jiffies,
		   max_t(unsigned long, 1, nsecs_to_jiffies(ns)));
}
