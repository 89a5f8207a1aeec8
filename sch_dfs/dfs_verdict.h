/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict stream of sch_dfs (linux/dfs_verdict.h): a qdisc queues an
 * event in its ring when a key is flagged or released, under its lock and
 * with no allocation; a worker of the qdisc drains the ring a batch at a
 * time and dfs_verdict_send() multicasts it.  This file is the generic
 * netlink family's side; dfs_qdisc.c owns the rings and the dump's walk.
 */
#ifndef _DFS_VERDICT_H
#define _DFS_VERDICT_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <net/flowkey.h>

struct sk_buff;
struct netlink_callback;
struct net;

/*
 * Pending events a qdisc keeps: more are lost and counted.  With the
 * worker's batch, one allocation of 16 KB a qdisc (dfs_init()).
 */
#define DFS_VERDICT_RING	224
/* Events the worker copies out of the ring at a time. */
#define DFS_VERDICT_BATCH	24

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

struct dfs_verdicts {
	spinlock_t		lock;	/* producers hold the qdisc's too */
	u32			head;
	u32			count;
	u64			lost;	/* since the last LOST sent */
	struct dfs_verdict_event ring[DFS_VERDICT_RING];
	struct dfs_verdict_event out[DFS_VERDICT_BATCH]; /* the worker's */
};

int dfs_verdict_register(void);
void dfs_verdict_unregister(void);
/* Send @n events of a qdisc, and a LOST of @lost if not 0; returns how
 * many events found no memory, to be told as lost.
 */
u64 dfs_verdict_send(struct net *net, int ifindex, u32 handle,
		     const struct dfs_verdict_event *ev, u32 n, u64 lost);
/* One key of a dump into @skb; -EMSGSIZE when it is full. */
int dfs_verdict_fill(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     int ifindex, u32 handle,
		     const struct dfs_verdict_event *ev);
/* The dump of one qdisc's flagged keys, in dfs_qdisc.c. */
int dfs_qdisc_verdict_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   struct net *net, int ifindex, u32 handle);

#endif /* _DFS_VERDICT_H */
