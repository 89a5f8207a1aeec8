/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict stream of sch_dfs (linux/dfs_verdict.h): a qdisc queues an
 * event in its ring when a key is flagged or released, under its lock and
 * with no allocation; a worker of the qdisc drains the ring a batch at a
 * time and dfs_verdict_send() multicasts it.  This file is the generic
 * netlink family's side: the messages, and the qdiscs a dump can name
 * (sources), each of which walks its own flows for it (its ops);
 * dfs_events.c is the qdisc's side.  The family calls nothing of the
 * qdisc's but through a source's ops.
 */
#ifndef _DFS_VERDICT_H
#define _DFS_VERDICT_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/spinlock.h>

#include "dfs_vring.h"

struct sk_buff;
struct netlink_callback;
struct net;
struct Qdisc;

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

/*
 * A qdisc a dump can name: its device and handle, or under dfs_mq its
 * root's handle and its tx queue (queue >= 0), whose qdiscs have no
 * handle of their own.
 */
struct dfs_verdict_source {
	struct list_head			list;	 /* dfs_verdict_lock */
	u32					readers; /* dumps in it, ditto */
	struct Qdisc				*sch;
	int					queue;
	const struct dfs_verdict_source_ops	*ops;
};

/* Where a dump is, across its calls (the callback's ctx). */
struct dfs_verdict_cursor {
	struct flowkey	key;		/* the last flow of the tree read */
	u8		phase;		/* enum dfs_verdict_phase */
	u8		key_set;	/* key holds a flow */
	u16		done;		/* the sources of the handle dumped */
	u32		slot;		/* the next slot of the cache */
};

/* A source's walk: its own; DONE when it has no more to give. */
enum dfs_verdict_phase {
	DFS_VERDICT_DUMP_OVERFLOW,
	DFS_VERDICT_DUMP_CACHE,
	DFS_VERDICT_DUMP_TREE,
	DFS_VERDICT_DUMP_DONE,
};

/* Flows a source's dump_batch reads under its lock at a time. */
#define DFS_VERDICT_DUMP_BATCH	1024
/* Flows a call of a dump reads, once it has a key to send: a walk of a
 * large tree that finds few flagged keys goes out in many calls.
 */
#define DFS_VERDICT_DUMP_CALL	(16 * DFS_VERDICT_DUMP_BATCH)

struct dfs_verdict_source_ops {
	/*
	 * Put the next of its flagged keys into @skb from @c on, reading at
	 * most DFS_VERDICT_DUMP_BATCH flows under its own lock; -EMSGSIZE
	 * when @skb is full.  Called with no lock held.
	 */
	int (*dump_batch)(struct dfs_verdict_source *src, struct sk_buff *skb,
			  struct netlink_callback *cb,
			  struct dfs_verdict_cursor *c);
};

/* A qdisc that a dump can name from now, or no longer: del waits for the
 * dumps in it, each in one batch at most.
 */
void dfs_verdict_source_add(struct dfs_verdict_source *src);
void dfs_verdict_source_del(struct dfs_verdict_source *src);
void dfs_verdict_source_queue(struct dfs_verdict_source *src, int queue);
void dfs_verdict_from_of(const struct dfs_verdict_source *src,
			 struct dfs_verdict_from *from);

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

#endif /* _DFS_VERDICT_H */
