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

/* The key of @skb under @mode (FLOWKEY_*); non-IP packets all share the
 * zero key.
 */
static inline void flowkey_from_skb(const struct sk_buff *skb, u32 mode,
				    struct flowkey *key)
{
	bool src = mode != FLOWKEY_DST, dst = mode != FLOWKEY_SRC;
	struct flow_keys keys;

	memset(key, 0, sizeof(*key));
	if (!skb_flow_dissect_flow_keys(skb, &keys, 0))
		return;

	switch (keys.control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		key->family = AF_INET;
		if (src)
			memcpy(key->src, &keys.addrs.v4addrs.src, 4);
		if (dst)
			memcpy(key->dst, &keys.addrs.v4addrs.dst, 4);
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		key->family = AF_INET6;
		if (src)
			memcpy(key->src, &keys.addrs.v6addrs.src, 16);
		if (dst)
			memcpy(key->dst, &keys.addrs.v6addrs.dst, 16);
		break;
	default:
		return;
	}

	if (mode == FLOWKEY_5TUPLE) {
		key->proto = keys.basic.ip_proto;
		/* Later fragments carry no ports: keep every fragment of a
		 * datagram in one flow by ignoring ports on all of them.
		 */
		if (!(keys.control.flags & FLOW_DIS_IS_FRAGMENT)) {
			key->sport = keys.ports.src;
			key->dport = keys.ports.dst;
		}
	}
}

#endif /* _NET_FLOWKEY_SKB_H */
