/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A qdisc's ring of pending verdict events (dfs_verdict.h): filled on a
 * flag change under the qdisc's lock, emptied by its worker, which tells
 * the listeners.  Bounded: past a full ring events are lost and counted,
 * and the next take drops what the ring held with them and reports one
 * loss, since the listeners must dump anyway and a dump is newer than any
 * event held.  No lock here and no sk_buff: the caller holds the ring's
 * lock, and selftests/unit/vring_test runs it in userspace.
 */
#ifndef _DFS_VRING_H
#define _DFS_VRING_H

#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>
#include <net/flowkey.h>

/*
 * Pending events a qdisc keeps; with the worker's batch, one allocation
 * of 16 KB a qdisc (dfs_init()).
 */
#define DFS_VERDICT_RING	224

struct dfs_verdict_event {
	struct flowkey	key;
	u64		time;		/* ns, ktime_get_ns() */
	u64		rate;		/* bytes/s */
	u16		reason;		/* TC_DFS_FLOW_MALICIOUS, _CPR */
	u8		cmd;		/* DFS_VERDICT_CMD_* */
	u8		cause;		/* enum dfs_verdict_cause */
	u8		key_mode;	/* enum tc_flowkey_mode */
	u8		overflow;	/* the overflow flow: no key */
};

struct dfs_vring {
	u32			head;
	u32			count;
	u64			lost;	/* since the last take */
	struct dfs_verdict_event ev[DFS_VERDICT_RING];
};

/*
 * A zeroed event at the ring's tail, or NULL, counted lost, if the ring
 * is full.  *@idle: it held nothing, nor a loss, before: the worker is
 * not yet on its way.
 */
static inline struct dfs_verdict_event *dfs_vring_add(struct dfs_vring *r,
						      bool *idle)
{
	struct dfs_verdict_event *ev;

	*idle = !r->count && !r->lost;
	if (r->count == DFS_VERDICT_RING) {
		r->lost++;
		return NULL;
	}
	ev = &r->ev[(r->head + r->count) % DFS_VERDICT_RING];
	r->count++;
	memset(ev, 0, sizeof(*ev));
	return ev;
}

/*
 * Up to @max of the oldest events into @out; returns how many.  After a
 * loss none: *@lost is the events lost and those the ring held, all
 * dropped; else 0.
 */
static inline u32 dfs_vring_take(struct dfs_vring *r,
				 struct dfs_verdict_event *out, u32 max,
				 u64 *lost)
{
	u32 n, i;

	*lost = r->lost;
	if (r->lost) {
		*lost += r->count;
		r->lost = 0;
		r->count = 0;
		return 0;
	}
	n = min(r->count, max);
	for (i = 0; i < n; i++) {
		out[i] = r->ev[r->head];
		r->head = (r->head + 1) % DFS_VERDICT_RING;
	}
	r->count -= n;
	return n;
}

/* @n events taken could not be told: lost after all. */
static inline void dfs_vring_lose(struct dfs_vring *r, u64 n)
{
	r->lost += n;
}

static inline bool dfs_vring_pending(const struct dfs_vring *r)
{
	return r->count || r->lost;
}

#endif /* _DFS_VRING_H */
