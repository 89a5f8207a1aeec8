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

#include "dfs_vring.h"

struct sk_buff;
struct netlink_callback;
struct net;

/* Events the worker takes from the ring at a time. */
#define DFS_VERDICT_BATCH	24

struct dfs_verdicts {
	spinlock_t		lock;	/* producers hold the qdisc's too */
	struct dfs_vring	ring;
	struct dfs_verdict_event out[DFS_VERDICT_BATCH]; /* the worker's */
};

/*
 * Who a message is from: the device, the qdisc's handle, and under dfs_mq
 * the tx queue (-1 otherwise), whose qdiscs have no handle of their own:
 * they are named by the root's.
 */
struct dfs_verdict_from {
	int	ifindex;
	u32	handle;
	int	queue;
};

int dfs_verdict_register(void);
void dfs_verdict_unregister(void);
/* Send @n events of a qdisc, and a LOST of @lost if not 0; returns how
 * many events found no memory, to be told as lost.
 */
u64 dfs_verdict_send(struct net *net, const struct dfs_verdict_from *from,
		     const struct dfs_verdict_event *ev, u32 n, u64 lost);
/* One key of a dump into @skb; -EMSGSIZE when it is full. */
int dfs_verdict_fill(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     const struct dfs_verdict_from *from,
		     const struct dfs_verdict_event *ev);
/* The dump of one qdisc's flagged keys (of every queue's, for a dfs_mq
 * root), in dfs_qdisc.c.
 */
int dfs_qdisc_verdict_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   struct net *net, int ifindex, u32 handle);

#endif /* _DFS_VERDICT_H */
