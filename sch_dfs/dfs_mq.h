/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the dfs qdisc (dfs_qdisc.c) and the dfs_mq root over it (dfs_mq.c)
 * give each other.
 */
#ifndef _DFS_MQ_H
#define _DFS_MQ_H

#include <net/netlink.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_dfs.h>
#include <net/flowkey.h>

/* A dfs_mq root, as the dfs qdiscs of its queues know it. */
struct dfs_mq;

extern struct Qdisc_ops dfs_qdisc_ops;
extern struct Qdisc_ops dfs_mq_qdisc_ops;

/* dfs_qdisc.c: a queue of a dfs_mq root is configured by the root only. */
int dfs_configure(struct Qdisc *sch, struct nlattr *opt,
		  struct netlink_ext_ack *extack);
void dfs_join_mq(struct Qdisc *sch, struct dfs_mq *mq, u16 queue,
		 u16 queues);
void dfs_qd_stats(struct Qdisc *sch, struct tc_dfs_qd_stats *st);
/* dfs_qdisc.c: the device now uses @queues tx queues (RTNL held). */
void dfs_split_limit(struct Qdisc *sch, u16 queues);

/*
 * dfs_mq.c: what the queues share outlives the root: each queue holds a
 * reference from dfs_join_mq() and drops it when it is destroyed.
 */
void dfs_mq_get(struct dfs_mq *mq);
void dfs_mq_put(struct dfs_mq *mq);

/*
 * dfs_mq.c: the keys the queues flag, for all of them (dfs_marks.h).  A
 * queue tells of each change of a flow's flags, under its qdisc lock: a
 * key that became flagged (malicious, or held for its CPR) is marked,
 * one that no longer is unmarked; a key it forgets is unmarked.
 * dfs_mq_flags() is false when a mark was wanted and found no room.  Every
 * queue refuses the packets of a key another queue marked, while that
 * queue still sees the key's packets.  Marks and unmarks take the
 * root's lock; a lookup takes none.
 */
bool dfs_mq_flags(struct dfs_mq *mq, u16 queue, const struct flowkey *key,
		  u32 old, u32 new);
void dfs_mq_unmark(struct dfs_mq *mq, u16 queue, const struct flowkey *key);
void dfs_mq_unmark_queue(struct dfs_mq *mq, u16 queue);
bool dfs_mq_refused(struct dfs_mq *mq, u16 queue, const struct flowkey *key);

/*
 * dfs_mq.c: on how many tx queues @key is active, this one counted: a
 * queue tells it of a key's packets at least once a rate_interval, and
 * "sched fq" gives the key 1/spread of a key's share of its round
 * (dfs_fq_key_split()), so a host whose flows the device spreads over
 * several queues gets one host's share over all of them.
 */
u32 dfs_mq_spread(struct dfs_mq *mq, u16 queue, const struct flowkey *key);

/*
 * dfs_mq.c: a queue's part of the link, in 1/DFS_LINK_ONE, at each of its
 * meter's epochs: @busy is the part of the last it held a backlog,
 * @busy_r with what it refused let in (dfs_meter_load()); @part_r is the
 * part with every queue's refused let in.
 */
void dfs_mq_link_part(struct dfs_mq *mq, u16 queue, u32 busy, u32 busy_r,
		      u32 *part, u32 *part_r);

/* dfs_qdisc.c: the queues' rate_interval, which the spread's epochs are */
u64 dfs_rate_interval_ns(struct Qdisc *sch);

#endif /* _DFS_MQ_H */
