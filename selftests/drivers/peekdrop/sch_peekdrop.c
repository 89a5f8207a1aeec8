// SPDX-License-Identifier: GPL-2.0
/*
 * peekdrop: a test qdisc that drops at dequeue down to its last packet.
 *
 * For the selftests only (selftests/stfq_child_drops.sh), as pushback is
 * a test device.  A FIFO whose dequeue, when more than one packet is
 * queued, drops all but the last one and hands that one over, then
 * reports the drops with qdisc_tree_reduce_backlog() while its queue is
 * empty.  The parent's qlen_notify() then runs in the middle of the
 * parent's dequeue (the peek of qdisc_peek_dequeued()), for a class whose
 * child is about to return a packet.  codel and fq_codel did that before
 * the stable fixes of 2025 (their peek now puts the packet back before it
 * reports), and any qdisc may; a classful parent must survive it.
 */
#include <linux/module.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#define PEEKDROP_LIMIT	1000

static int peekdrop_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	if (likely(sch->q.qlen < sch->limit))
		return qdisc_enqueue_tail(skb, sch);
	return qdisc_drop(skb, sch, to_free);
}

static struct sk_buff *peekdrop_dequeue(struct Qdisc *sch)
{
	struct sk_buff *skb = __qdisc_dequeue_head(&sch->q);
	unsigned int dropped = 0, len = 0;

	if (!skb)
		return NULL;
	qdisc_qstats_backlog_dec(sch, skb);
	while (sch->q.qlen) {
		dropped++;
		len += qdisc_pkt_len(skb);
		qdisc_qstats_drop(sch);
		kfree_skb(skb);
		skb = __qdisc_dequeue_head(&sch->q);
		qdisc_qstats_backlog_dec(sch, skb);
	}
	qdisc_bstats_update(sch, skb);
	/* Reported once the packet handed over has left the queue too. */
	if (dropped)
		qdisc_tree_reduce_backlog(sch, dropped, len);
	return skb;
}

static int peekdrop_init(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	sch->limit = PEEKDROP_LIMIT;
	return 0;
}

static struct Qdisc_ops peekdrop_qdisc_ops __read_mostly = {
	.id		= "peekdrop",
	.priv_size	= 0,
	.enqueue	= peekdrop_enqueue,
	.dequeue	= peekdrop_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= peekdrop_init,
	.reset		= qdisc_reset_queue,
	.owner		= THIS_MODULE,
};

static int __init peekdrop_module_init(void)
{
	return register_qdisc(&peekdrop_qdisc_ops);
}

static void __exit peekdrop_module_exit(void)
{
	unregister_qdisc(&peekdrop_qdisc_ops);
}

module_init(peekdrop_module_init);
module_exit(peekdrop_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test qdisc that drops at dequeue down to its last packet");
