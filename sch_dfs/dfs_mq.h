/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the dfs_mq root (dfs_mq.c) asks of the dfs qdiscs of its queues:
 * it alone configures them, and sums their counters.
 */
#ifndef _DFS_MQ_H
#define _DFS_MQ_H

#include <net/netlink.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_dfs.h>

struct dfs_mq;

extern struct Qdisc_ops dfs_qdisc_ops;
extern struct Qdisc_ops dfs_mq_qdisc_ops;

/* dfs_netlink.c: a queue takes the root's options, all or nothing. */
int dfs_configure(struct Qdisc *sch, struct nlattr *opt,
		  struct netlink_ext_ack *extack);
/*
 * Before the root attaches it: queue @queue of @queues, the device's tx
 * queues in use, over which the limit is split; it holds a reference to
 * what the queues share, @mq.
 */
void dfs_join_mq(struct Qdisc *sch, struct dfs_mq *mq, u16 queue,
		 u16 queues);
/* The device now uses @queues tx queues (RTNL held). */
void dfs_split_limit(struct Qdisc *sch, u16 queues);
void dfs_qd_stats(struct Qdisc *sch, struct tc_dfs_qd_stats *st);
/* The queues' rate_interval, which the sketch's epochs are. */
u64 dfs_rate_interval_ns(struct Qdisc *sch);

#endif /* _DFS_MQ_H */
