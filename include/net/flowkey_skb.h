/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A packet's flow key (net/flowkey.h), from the kernel's flow dissector:
 * one function for sch_dfs and cls_lrufq, so a flow is the same thing to
 * both.
 */
#ifndef _NET_FLOWKEY_SKB_H
#define _NET_FLOWKEY_SKB_H

#include <linux/skbuff.h>
#include <linux/socket.h>
#include <net/flow_dissector.h>
#include <net/flowkey.h>

/*
 * What a key takes from the dissector.  skb_flow_dissect_flow_keys() walks
 * the packet with flow_keys_dissector, which also stores VLAN, flow label,
 * TIPC and GRE keys and always the ports; these two walk it the same way
 * (the same encapsulations followed: the walk does not depend on the keys)
 * and store only what a key holds, the ports only for the 5-tuple.  A
 * dissector is a table of offsets, set here as skb_flow_dissector_init()
 * would set it; each module has its own copy of these statics.
 */
struct flowkey_dissected {
	struct flow_dissector_key_control	control;
	struct flow_dissector_key_basic		basic;
	union {
		struct flow_dissector_key_ipv4_addrs	v4;
		struct flow_dissector_key_ipv6_addrs	v6;
	} addrs;
	struct flow_dissector_key_ports		ports;
};

static struct flow_dissector flowkey_dissector_addrs __read_mostly = {
	.used_keys = BIT_ULL(FLOW_DISSECTOR_KEY_CONTROL) |
		     BIT_ULL(FLOW_DISSECTOR_KEY_BASIC) |
		     BIT_ULL(FLOW_DISSECTOR_KEY_IPV4_ADDRS) |
		     BIT_ULL(FLOW_DISSECTOR_KEY_IPV6_ADDRS),
	.offset = {
		[FLOW_DISSECTOR_KEY_CONTROL] =
			offsetof(struct flowkey_dissected, control),
		[FLOW_DISSECTOR_KEY_BASIC] =
			offsetof(struct flowkey_dissected, basic),
		[FLOW_DISSECTOR_KEY_IPV4_ADDRS] =
			offsetof(struct flowkey_dissected, addrs),
		[FLOW_DISSECTOR_KEY_IPV6_ADDRS] =
			offsetof(struct flowkey_dissected, addrs),
	},
};

static struct flow_dissector flowkey_dissector_5tuple __read_mostly = {
	.used_keys = BIT_ULL(FLOW_DISSECTOR_KEY_CONTROL) |
		     BIT_ULL(FLOW_DISSECTOR_KEY_BASIC) |
		     BIT_ULL(FLOW_DISSECTOR_KEY_IPV4_ADDRS) |
		     BIT_ULL(FLOW_DISSECTOR_KEY_IPV6_ADDRS) |
		     BIT_ULL(FLOW_DISSECTOR_KEY_PORTS),
	.offset = {
		[FLOW_DISSECTOR_KEY_CONTROL] =
			offsetof(struct flowkey_dissected, control),
		[FLOW_DISSECTOR_KEY_BASIC] =
			offsetof(struct flowkey_dissected, basic),
		[FLOW_DISSECTOR_KEY_IPV4_ADDRS] =
			offsetof(struct flowkey_dissected, addrs),
		[FLOW_DISSECTOR_KEY_IPV6_ADDRS] =
			offsetof(struct flowkey_dissected, addrs),
		[FLOW_DISSECTOR_KEY_PORTS] =
			offsetof(struct flowkey_dissected, ports),
	},
};

/* The key of @skb under @mode (FLOWKEY_*); non-IP packets all share the
 * zero key.
 */
static inline void flowkey_from_skb(const struct sk_buff *skb, u32 mode,
				    struct flowkey *key)
{
	bool src = mode != FLOWKEY_DST, dst = mode != FLOWKEY_SRC;
	struct flowkey_dissected d;

	memset(key, 0, sizeof(*key));
	memset(&d, 0, sizeof(d));
	if (!__skb_flow_dissect(NULL, skb, mode == FLOWKEY_5TUPLE ?
				&flowkey_dissector_5tuple :
				&flowkey_dissector_addrs,
				&d, NULL, 0, 0, 0, 0))
		return;

	switch (d.control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		key->family = AF_INET;
		if (src)
			memcpy(key->src, &d.addrs.v4.src, 4);
		if (dst)
			memcpy(key->dst, &d.addrs.v4.dst, 4);
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		key->family = AF_INET6;
		if (src)
			memcpy(key->src, &d.addrs.v6.src, 16);
		if (dst)
			memcpy(key->dst, &d.addrs.v6.dst, 16);
		break;
	default:
		return;
	}

	if (mode == FLOWKEY_5TUPLE) {
		key->proto = d.basic.ip_proto;
		/* Later fragments carry no ports: keep every fragment of a
		 * datagram in one flow by ignoring ports on all of them.
		 */
		if (!(d.control.flags & FLOW_DIS_IS_FRAGMENT)) {
			key->sport = d.ports.src;
			key->dport = d.ports.dst;
		}
	}
}

#endif /* _NET_FLOWKEY_SKB_H */
