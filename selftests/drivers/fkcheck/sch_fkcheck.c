// SPDX-License-Identifier: GPL-2.0
/*
 * fkcheck: a test qdisc that checks the flow key's fast path.
 *
 * For the selftests only (selftests/parse_frames.sh), as peekdrop is.  A
 * FIFO that, for every packet it is given, builds the flow key of each
 * key mode twice, with the fast path of net/flowkey_skb.h and with the
 * flow dissector alone, and counts where they differ.  The fast path must
 * give the dissector's key, to the bit, for every packet it takes: a
 * different key would put a packet in another flow of sch_dfs or
 * cls_lrufq than the dissector did before.  The counts are read-only
 * module parameters (/sys/module/sch_fkcheck/parameters/): keys the fast
 * path built ("hits"), packets it left to the dissector ("fallbacks"),
 * keys that differ ("mismatches", also reported in the kernel log, with
 * a warning the test runner fails on).
 */
#include <linux/module.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/flowkey_skb.h>

#define FKCHECK_LIMIT	1000

/* Updated under the qdisc's lock; the test runs one fkcheck at a time. */
static unsigned long fkcheck_packets;
static unsigned long fkcheck_hits;
static unsigned long fkcheck_fallbacks;
static unsigned long fkcheck_mismatches;
module_param_named(packets, fkcheck_packets, ulong, 0444);
MODULE_PARM_DESC(packets, "packets checked");
module_param_named(hits, fkcheck_hits, ulong, 0444);
MODULE_PARM_DESC(hits, "keys (a packet in a mode) built by the fast path");
module_param_named(fallbacks, fkcheck_fallbacks, ulong, 0444);
MODULE_PARM_DESC(fallbacks, "keys the fast path left to the dissector");
module_param_named(mismatches, fkcheck_mismatches, ulong, 0444);
MODULE_PARM_DESC(mismatches, "keys where the fast path and the dissector differ");

static const char * const fkcheck_mode_names[] = {
	[TC_FLOWKEY_SRCDST]	= "srcdst",
	[TC_FLOWKEY_SRC]	= "src",
	[TC_FLOWKEY_DST]	= "dst",
	[TC_FLOWKEY_5TUPLE]	= "5tuple",
};

static void fkcheck_report(const struct sk_buff *skb, u32 mode,
			   const char *what, const struct flowkey *got,
			   const struct flowkey *want)
{
	int nhoff = skb_network_offset(skb);
	int len = 0;

	if (nhoff >= 0 && nhoff < skb_headlen(skb))
		len = min_t(int, skb_headlen(skb) - nhoff, 64);
	pr_warn_ratelimited("fkcheck: %s key %s differs from the dissector's: proto %04x vlan %d nhoff %d len %u\n",
			    what, fkcheck_mode_names[mode],
			    ntohs(skb->protocol), skb_vlan_tag_present(skb),
			    nhoff, skb->len);
	pr_warn_ratelimited("fkcheck:  got  %*ph\n", (int)sizeof(*got), got);
	pr_warn_ratelimited("fkcheck:  want %*ph\n", (int)sizeof(*want), want);
	if (len)
		pr_warn_ratelimited("fkcheck:  header %*ph\n", len,
				    skb_network_header(skb));
	WARN_ONCE(1, "fkcheck: the flow key's fast path differs from the dissector");
}

static void fkcheck_packet(const struct sk_buff *skb)
{
	struct flowkey fast, full, want;
	u32 mode;

	fkcheck_packets++;
	for (mode = TC_FLOWKEY_SRCDST; mode <= TC_FLOWKEY_MAX; mode++) {
		flowkey_from_skb_dissect(skb, mode, &want);

		/* The fast path alone, as flowkey_from_skb() calls it. */
		memset(&fast, 0, sizeof(fast));
		if (flowkey_from_skb_fast(skb, mode, &fast)) {
			fkcheck_hits++;
			if (!flowkey_eq(&fast, &want)) {
				fkcheck_mismatches++;
				fkcheck_report(skb, mode, "fast", &fast, &want);
			}
		} else {
			fkcheck_fallbacks++;
		}

		/* And what the modules call, fast path or not. */
		flowkey_from_skb(skb, mode, &full);
		if (!flowkey_eq(&full, &want)) {
			fkcheck_mismatches++;
			fkcheck_report(skb, mode, "flowkey_from_skb", &full,
				       &want);
		}
	}
}

static int fkcheck_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	fkcheck_packet(skb);
	if (likely(sch->q.qlen < sch->limit))
		return qdisc_enqueue_tail(skb, sch);
	return qdisc_drop(skb, sch, to_free);
}

static int fkcheck_init(struct Qdisc *sch, struct nlattr *opt,
			struct netlink_ext_ack *extack)
{
	sch->limit = FKCHECK_LIMIT;
	return 0;
}

static struct Qdisc_ops fkcheck_qdisc_ops __read_mostly = {
	.id		= "fkcheck",
	.priv_size	= 0,
	.enqueue	= fkcheck_enqueue,
	.dequeue	= qdisc_dequeue_head,
	.peek		= qdisc_peek_head,
	.init		= fkcheck_init,
	.reset		= qdisc_reset_queue,
	.owner		= THIS_MODULE,
};

static int __init fkcheck_module_init(void)
{
	return register_qdisc(&fkcheck_qdisc_ops);
}

static void __exit fkcheck_module_exit(void)
{
	unregister_qdisc(&fkcheck_qdisc_ops);
}

module_init(fkcheck_module_init);
module_exit(fkcheck_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test qdisc that checks the flow key's fast path against the dissector");
