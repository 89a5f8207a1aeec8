// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs's generic netlink family "dfs_verdict": the multicast group
 * "verdicts", to which each qdisc's worker sends its events, and the dump
 * of the keys a qdisc flags now (linux/dfs_verdict.h).
 *
 * Generic netlink and not RTM_NEWTCLASS notifications on the qdisc: a
 * verdict is not a class, the flagged keys outnumber the cache slots tc
 * lists, and a listener of rtnetlink's tc group would get every qdisc
 * change of the host besides.
 *
 * For CAP_NET_ADMIN in the user namespace that owns the netns alone,
 * dump and group both: a verdict names a flow's addresses and ports and
 * when it was judged, and what the queue judges is an oracle for an
 * attack tuned to stay just under its judgement.  conntrack asks the
 * same of its table.
 */
#include <linux/kernel.h>
#include <linux/if_ether.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sch_generic.h>
#include <net/sock.h>
#include <linux/pkt_sched_dfs.h>
#include <linux/dfs_verdict.h>

#include "dfs_verdict.h"

enum dfs_verdict_groups {
	DFS_VERDICT_GRP_VERDICTS,
};

static const struct nla_policy dfs_verdict_policy[DFS_VERDICT_A_MAX + 1] = {
	[DFS_VERDICT_A_IFINDEX]	= { .type = NLA_U32 },
	[DFS_VERDICT_A_HANDLE]	= { .type = NLA_U32 },
};

/*
 * The qdiscs a dump may name.  A dump takes the lock to find its source
 * and count itself a reader of it, and again to let it go, around each
 * batch; dfs_verdict_source_del() takes a source off the list, then
 * waits for its readers, each in one batch at most.  No mutex: a dump
 * holds nothing a qdisc change, and RTNL with it, would wait on longer
 * than a batch.  Process context only (dumps, init, destroy).
 */
static LIST_HEAD(dfs_verdict_sources);
static DEFINE_SPINLOCK(dfs_verdict_lock);

void dfs_verdict_from_of(const struct dfs_verdict_source *src,
			 struct dfs_verdict_from *from)
{
	from->ifindex = qdisc_dev(src->sch)->ifindex;
	from->handle = src->queue >= 0 ? TC_H_MAJ(src->sch->parent) :
					 src->sch->handle;
	from->queue = src->queue;
}

void dfs_verdict_source_add(struct dfs_verdict_source *src)
{
	spin_lock(&dfs_verdict_lock);
	list_add(&src->list, &dfs_verdict_sources);
	spin_unlock(&dfs_verdict_lock);
}

/* Under dfs_mq, the queue a source is (-1 for none), once it joins. */
void dfs_verdict_source_queue(struct dfs_verdict_source *src, int queue)
{
	spin_lock(&dfs_verdict_lock);
	src->queue = queue;
	spin_unlock(&dfs_verdict_lock);
}

void dfs_verdict_source_del(struct dfs_verdict_source *src)
{
	spin_lock(&dfs_verdict_lock);
	list_del_init(&src->list);
	spin_unlock(&dfs_verdict_lock);
	wait_var_event(&src->readers, !READ_ONCE(src->readers));
}

/*
 * The @skip-th source of a dump, counted a reader of, or NULL: a dfs, or
 * one of the queues of a dfs_mq root, by the handle their messages carry.
 */
static struct dfs_verdict_source *dfs_verdict_get(struct net *net,
						  int ifindex, u32 handle,
						  u32 skip)
{
	struct dfs_verdict_source *src, *found = NULL;
	struct dfs_verdict_from from;

	spin_lock(&dfs_verdict_lock);
	list_for_each_entry(src, &dfs_verdict_sources, list) {
		struct net_device *dev = qdisc_dev(src->sch);

		dfs_verdict_from_of(src, &from);
		if (dev->ifindex == ifindex && from.handle == handle &&
		    net_eq(dev_net(dev), net) && !skip--) {
			found = src;
			found->readers++;
			break;
		}
	}
	spin_unlock(&dfs_verdict_lock);
	return found;
}

static void dfs_verdict_put(struct dfs_verdict_source *src)
{
	bool last;

	spin_lock(&dfs_verdict_lock);
	last = !--src->readers;
	spin_unlock(&dfs_verdict_lock);
	if (last) {
		/* the store of readers before wake_up_var()'s lockless look
		 * at the waiters, as wait_var_event()'s check pairs with it
		 */
		smp_mb();
		wake_up_var(&src->readers);
	}
}

static_assert(sizeof(struct dfs_verdict_cursor) <=
	      sizeof_field(struct netlink_callback, ctx));

/*
 * One call of a dump of the keys a qdisc flags: of each of its sources
 * (the queues of a dfs_mq root one after the other) a batch at a time,
 * no lock held between batches.  A source added or deleted between two
 * calls may be listed twice or not at all, as any dump's objects may;
 * the events after it say what changed.
 */
static int dfs_verdict_dump(struct sk_buff *skb, struct netlink_callback *cb,
			    struct net *net, int ifindex, u32 handle)
{
	struct dfs_verdict_cursor *c = (void *)cb->ctx;
	u32 batches = DFS_VERDICT_DUMP_CALL / DFS_VERDICT_DUMP_BATCH;
	struct dfs_verdict_source *src;
	bool found = false;
	int err = 0;

	/* A source is held for one batch at a time, so its deletion waits
	 * for one batch at most, however long the walk.
	 */
	while ((src = dfs_verdict_get(net, ifindex, handle, c->done))) {
		found = true;
		/* A call has read enough: what it holds goes, and the next
		 * goes on.  One that holds nothing yet goes on: the walk
		 * ends, or finds a key.
		 */
		if (!batches && skb->len) {
			dfs_verdict_put(src);
			break;
		}
		batches -= !!batches;
		if (c->phase != DFS_VERDICT_DUMP_DONE)
			err = src->ops->dump_batch(src, skb, cb, c);
		dfs_verdict_put(src);
		if (err)
			break;
		if (c->phase == DFS_VERDICT_DUMP_DONE) {
			c->done++;
			c->phase = DFS_VERDICT_DUMP_OVERFLOW;
			c->key_set = 0;
			c->slot = 0;
		}
		cond_resched();
	}
	if (!found && !c->done && c->phase == DFS_VERDICT_DUMP_OVERFLOW &&
	    !skb->len) {
		NL_SET_ERR_MSG(cb->extack, "no dfs qdisc of that handle");
		return -ENOENT;
	}
	/* full, or read enough, or done: what it holds goes, and the next
	 * call goes on (or, empty, ends the dump)
	 */
	return skb->len;
}

static int dfs_verdict_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **tb = genl_info_dump(cb)->attrs;

	if (!tb[DFS_VERDICT_A_IFINDEX] || !tb[DFS_VERDICT_A_HANDLE]) {
		NL_SET_ERR_MSG(cb->extack, "ifindex and handle are required");
		return -EINVAL;
	}
	return dfs_verdict_dump(skb, cb, sock_net(skb->sk),
				nla_get_u32(tb[DFS_VERDICT_A_IFINDEX]),
				nla_get_u32(tb[DFS_VERDICT_A_HANDLE]));
}

static const struct genl_small_ops dfs_verdict_ops[] = {
	{
		.cmd	= DFS_VERDICT_CMD_GET,
		.dumpit	= dfs_verdict_dumpit,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group dfs_verdict_mcgrps[] = {
	[DFS_VERDICT_GRP_VERDICTS] = {
		.name	= DFS_VERDICT_MCGRP_VERDICTS,
		.flags	= GENL_MCAST_CAP_NET_ADMIN,
	},
};

static struct genl_family dfs_verdict_family __ro_after_init = {
	.name		= DFS_VERDICT_GENL_NAME,
	.version	= DFS_VERDICT_GENL_VERSION,
	.maxattr	= DFS_VERDICT_A_MAX,
	.policy		= dfs_verdict_policy,
	.netnsok	= true,
	.parallel_ops	= true,	/* the dump locks what it reads */
	.module		= THIS_MODULE,
	.small_ops	= dfs_verdict_ops,
	.n_small_ops	= ARRAY_SIZE(dfs_verdict_ops),
	.mcgrps		= dfs_verdict_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(dfs_verdict_mcgrps),
};

static int dfs_verdict_put_key(struct sk_buff *skb,
			       const struct dfs_verdict_event *ev)
{
	const struct flowkey *k = &ev->key;
	int alen = k->family == AF_INET6 ? 16 : 4;

	if (ev->overflow)
		return nla_put_flag(skb, DFS_VERDICT_A_OVERFLOW);
	if (nla_put_u8(skb, DFS_VERDICT_A_FAMILY, k->family))
		return -EMSGSIZE;
	if (k->family != AF_INET && k->family != AF_INET6)
		return 0;
	if (ev->key_mode != TC_FLOWKEY_DST &&
	    nla_put(skb, DFS_VERDICT_A_SRC, alen, k->src))
		return -EMSGSIZE;
	if (ev->key_mode != TC_FLOWKEY_SRC &&
	    nla_put(skb, DFS_VERDICT_A_DST, alen, k->dst))
		return -EMSGSIZE;
	if (ev->key_mode == TC_FLOWKEY_5TUPLE &&
	    (nla_put_u8(skb, DFS_VERDICT_A_PROTO, k->proto) ||
	     nla_put_be16(skb, DFS_VERDICT_A_SPORT, k->sport) ||
	     nla_put_be16(skb, DFS_VERDICT_A_DPORT, k->dport)))
		return -EMSGSIZE;
	return 0;
}

static int dfs_verdict_put_from(struct sk_buff *skb,
				const struct dfs_verdict_from *from)
{
	if (nla_put_u32(skb, DFS_VERDICT_A_IFINDEX, from->ifindex) ||
	    nla_put_u32(skb, DFS_VERDICT_A_HANDLE, from->handle))
		return -EMSGSIZE;
	if (from->queue >= 0 &&
	    nla_put_u32(skb, DFS_VERDICT_A_QUEUE, from->queue))
		return -EMSGSIZE;
	return 0;
}

int dfs_verdict_fill(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     const struct dfs_verdict_from *from,
		     const struct dfs_verdict_event *ev)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &dfs_verdict_family, flags,
			  ev->cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (dfs_verdict_put_from(skb, from))
		goto cancel;
	if (ev->cmd == DFS_VERDICT_CMD_FLUSH)
		goto end;
	if (nla_put_u32(skb, DFS_VERDICT_A_KEY_MODE, ev->key_mode) ||
	    dfs_verdict_put_key(skb, ev) ||
	    nla_put_u32(skb, DFS_VERDICT_A_REASON, ev->reason) ||
	    nla_put_u64_64bit(skb, DFS_VERDICT_A_RATE, ev->rate,
			      DFS_VERDICT_A_PAD))
		goto cancel;
	/* A dump says what is, not when it began: the flows have no room
	 * for it (dfs_flow.h), and the event that flagged the key has it.
	 */
	if (ev->time && nla_put_u64_64bit(skb, DFS_VERDICT_A_TIME, ev->time,
					  DFS_VERDICT_A_PAD))
		goto cancel;
	if (ev->cmd == DFS_VERDICT_CMD_RELEASE &&
	    nla_put_u32(skb, DFS_VERDICT_A_CAUSE, ev->cause))
		goto cancel;
end:
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int dfs_verdict_fill_lost(struct sk_buff *skb,
				 const struct dfs_verdict_from *from, u64 lost)
{
	void *hdr;

	hdr = genlmsg_put(skb, 0, 0, &dfs_verdict_family, 0,
			  DFS_VERDICT_CMD_LOST);
	if (!hdr)
		return -EMSGSIZE;
	if (dfs_verdict_put_from(skb, from) ||
	    nla_put_u64_64bit(skb, DFS_VERDICT_A_LOST, lost,
			      DFS_VERDICT_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static void dfs_verdict_multicast(struct net *net, struct sk_buff *skb)
{
	/* -ESRCH: the last listener left meanwhile */
	genlmsg_multicast_netns(&dfs_verdict_family, net, skb, 0,
				DFS_VERDICT_GRP_VERDICTS, GFP_KERNEL);
}

/*
 * A batch's messages go in as few datagrams as hold them: a burst of
 * verdicts wakes a listener once a batch, not once an event
 * (nfnetlink_log batches its packets so).  Nobody listening in the
 * qdisc's netns, nothing is built and nothing counts as lost: a listener
 * that joins later dumps first.
 */
u64 dfs_verdict_send(struct net *net, const struct dfs_verdict_from *from,
		     const struct dfs_verdict_event *ev, u32 n, u64 lost)
{
	struct sk_buff *skb = NULL;
	u32 i = 0;
	int err;

	if (!genl_has_listeners(&dfs_verdict_family, net,
				DFS_VERDICT_GRP_VERDICTS))
		return 0;
	while (i < n || lost) {
		if (!skb) {
			skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
			if (!skb)
				return n - i + lost;
		}
		if (i < n)
			err = dfs_verdict_fill(skb, 0, 0, 0, from, &ev[i]);
		else
			err = dfs_verdict_fill_lost(skb, from, lost);
		/* in, or one that fits no message: next */
		if (!err || !skb->len) {
			if (i < n)
				i++;
			else
				lost = 0;
			continue;
		}
		/* full: send it, and go on in a new one */
		dfs_verdict_multicast(net, skb);
		skb = NULL;
	}
	if (skb)
		dfs_verdict_multicast(net, skb);
	return 0;
}

int __init dfs_verdict_register(void)
{
	return genl_register_family(&dfs_verdict_family);
}

void dfs_verdict_unregister(void)
{
	genl_unregister_family(&dfs_verdict_family);
}
