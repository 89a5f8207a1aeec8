/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the dfs qdiscs of the tx queues of a dfs_mq root share
 * (dfs_mq_shared.c): the marks of the keys they flag, the sketch of the
 * queues keys are active on, and their loads.
 */
#ifndef _DFS_MQ_SHARED_H
#define _DFS_MQ_SHARED_H

#include <linux/types.h>
#include <net/flowkey.h>

struct dfs_mq;

/*
 * Made by the root for @queues tx queues; each queue holds a reference
 * from dfs_join_mq(), which it drops when it is destroyed, and the root
 * holds one: when a root is replaced by one with ->attach (mq, mqprio,
 * another dfs_mq), qdisc_graft() destroys it before it puts its queues.
 */
struct dfs_mq *dfs_mq_alloc(unsigned int queues);
void dfs_mq_get(struct dfs_mq *mq);
void dfs_mq_put(struct dfs_mq *mq);
/* The sketch's epochs: the queues' rate_interval, @ns. */
void dfs_mq_set_epoch(struct dfs_mq *mq, u64 ns);

/*
 * The keys the queues flag, for all of them (dfs_marks.h).  A queue
 * tells of each change of a flow's flags, under its qdisc lock: a key
 * that became flagged (malicious, or held for its CPR) is marked, one
 * that no longer is unmarked; a key it forgets is unmarked.
 * dfs_mq_flags() is false when a mark was wanted and found no room.
 * Every queue refuses the packets of a key another queue marked, while
 * that queue still sees the key's packets.  Marks and unmarks take the
 * table's lock; a lookup takes none.
 */
bool dfs_mq_flags(struct dfs_mq *mq, u16 queue, const struct flowkey *key,
		  u32 old, u32 new);
void dfs_mq_unmark(struct dfs_mq *mq, u16 queue, const struct flowkey *key);
void dfs_mq_unmark_queue(struct dfs_mq *mq, u16 queue);
bool dfs_mq_refused(struct dfs_mq *mq, u16 queue, const struct flowkey *key);

/*
 * On how many tx queues @key is active, this one counted: a queue tells
 * it of a key's packets at least once a rate_interval, and "sched fq"
 * gives the key 1/spread of a key's share of its round
 * (dfs_fq_key_split()), so a host whose flows the device spreads over
 * several queues gets one host's share over all of them.
 */
u32 dfs_mq_spread(struct dfs_mq *mq, u16 queue, const struct flowkey *key);

/*
 * A queue's part of the link, in 1/DFS_LINK_ONE, at each of its meter's
 * epochs: @busy is the part of the last it held a backlog, @busy_r with
 * what it refused let in (dfs_meter_load()); @part_r is the part with
 * every queue's refused let in.
 */
void dfs_mq_link_part(struct dfs_mq *mq, u16 queue, u32 busy, u32 busy_r,
		      u32 *part, u32 *part_r);

#endif /* _DFS_MQ_SHARED_H */
