/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A packet's flow key (net/flowkey.h), as the kernel's flow dissector
 * sees the packet: one function for sch_dfs and cls_lrufq, so a flow is
 * the same thing to both.  Plain IPv4 and IPv6 take a fast path that
 * builds the same key without the dissector's general walk.
 */
#ifndef _NET_FLOWKEY_SKB_H
#define _NET_FLOWKEY_SKB_H

#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <net/flow_dissector.h>
#include <net/flowkey.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/sock.h>

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

/* The key of @skb under @mode (enum tc_flowkey_mode) from the dissector:
 * every packet, whatever it carries; non-IP packets all share the zero key.
 */
static inline void flowkey_from_skb_dissect(const struct sk_buff *skb,
					    u32 mode, struct flowkey *key)
{
	bool src = mode != TC_FLOWKEY_DST, dst = mode != TC_FLOWKEY_SRC;
	struct flowkey_dissected d;

	memset(key, 0, sizeof(*key));
	memset(&d, 0, sizeof(d));
	if (!__skb_flow_dissect(NULL, skb, mode == TC_FLOWKEY_5TUPLE ?
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

	if (mode == TC_FLOWKEY_5TUPLE) {
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

/*
 * The fast path: most packets are plain IPv4 or IPv6 with TCP, UDP or the
 * like right behind the IP header, and for those the dissector's general
 * walk, a real part of a packet's cost, comes down to two header reads.
 * flowkey_from_skb_fast() takes only such a packet and builds the key
 * __skb_flow_dissect() would, to the bit: anything else, and anything it
 * is unsure of, is left to the dissector (it returns false).
 * selftests/drivers/fkcheck compares the two on every packet of
 * parse_frames.sh.
 *
 * The transport protocols after which the dissector stops, reading at
 * most the ports (proto_ports_offset(): TCP, UDP, UDP-Lite, SCTP, DCCP,
 * and the SPI of ESP and AH) or keys a flow key does not use (ICMP).
 * Not here: GRE, IP-in-IP, IPv6-in-IP and MPLS, which it follows to the
 * inner header, IPv6 extension headers, which it walks (and may reject),
 * and any protocol a later kernel might learn to walk.
 */
static inline bool flowkey_l4_plain(u8 ip_proto)
{
	switch (ip_proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
	case IPPROTO_ESP:
	case IPPROTO_AH:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return true;
	}
	return false;
}

/* A BPF flow dissector attached to the packet's namespace (or to
 * init_net, which overrides them all) replaces the kernel's walk: the
 * dissector must run it.
 */
static inline bool flowkey_bpf_dissector(const struct sk_buff *skb)
{
	const struct net *net = NULL;

	if (rcu_access_pointer(init_net.bpf.run_array[NETNS_BPF_FLOW_DISSECTOR]))
		return true;
	if (skb->dev)
		net = dev_net(skb->dev);
	else if (skb->sk)
		net = sock_net(skb->sk);
	return net &&
	       rcu_access_pointer(net->bpf.run_array[NETNS_BPF_FLOW_DISSECTOR]);
}

/* The ports the dissector stores for @ip_proto at @thoff
 * (__skb_flow_get_ports(), later skb_flow_get_ports()): none for a
 * protocol without them, none if they are past the packet's end.
 */
static inline void flowkey_ports(const struct sk_buff *skb, int thoff,
				 u8 ip_proto, struct flowkey *key)
{
	int poff = proto_ports_offset(ip_proto);
	__be16 _ports[2];
	const __be16 *ports;

	if (poff < 0)
		return;
	ports = skb_header_pointer(skb, thoff + poff, sizeof(_ports), _ports);
	if (ports) {
		key->sport = ports[0];
		key->dport = ports[1];
	}
}

/* The key of a plain IPv4 or IPv6 packet into @key (zeroed by the
 * caller); false, @key undefined, if the dissector must decide.
 */
static inline bool flowkey_from_skb_fast(const struct sk_buff *skb, u32 mode,
					 struct flowkey *key)
{
	bool src = mode != TC_FLOWKEY_DST, dst = mode != TC_FLOWKEY_SRC;
	int nhoff = skb_network_offset(skb), thoff;
	bool frag = false;
	u8 ip_proto;

	/* The dissector starts at skb->vlan_proto when a tag was taken off
	 * into the skb: let it.  A network header in the headroom (a
	 * negative offset) is odd enough to leave to it too; so is a
	 * transport offset its key_control->thoff cannot hold, where it
	 * fails (a zero key).
	 */
	if (unlikely(skb_vlan_tag_present(skb) || nhoff < 0 ||
		     flowkey_bpf_dissector(skb)))
		return false;

	switch (skb->protocol) {
	case htons(ETH_P_IP): {
		const struct iphdr *iph;
		struct iphdr _iph;

		/* The dissector checks only the IHL, and reads the ports
		 * wherever it points: a header that is not IPv4 or that the
		 * packet cuts short is not the plain case; let it decide.
		 */
		iph = skb_header_pointer(skb, nhoff, sizeof(_iph), &_iph);
		if (unlikely(!iph || iph->version != 4 || iph->ihl < 5))
			return false;
		thoff = nhoff + iph->ihl * 4;
		if (unlikely((unsigned int)thoff > skb->len || thoff > U16_MAX))
			return false;
		ip_proto = iph->protocol;
		/* The dissector stops at any fragment, first or not, with the
		 * outer addresses and the protocol, and stores no ports: what
		 * it carries (even another IP header) is not looked at.
		 */
		frag = ip_is_fragment(iph);
		if (!frag && !flowkey_l4_plain(ip_proto))
			return false;
		key->family = AF_INET;
		if (src)
			memcpy(key->src, &iph->saddr, 4);
		if (dst)
			memcpy(key->dst, &iph->daddr, 4);
		break;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6h;
		struct ipv6hdr _ip6h;

		ip6h = skb_header_pointer(skb, nhoff, sizeof(_ip6h), &_ip6h);
		if (unlikely(!ip6h || ip6h->version != 6))
			return false;
		thoff = nhoff + sizeof(*ip6h);
		if (unlikely(thoff > U16_MAX))
			return false;
		ip_proto = ip6h->nexthdr;
		if (!flowkey_l4_plain(ip_proto))
			return false;
		key->family = AF_INET6;
		if (src)
			memcpy(key->src, &ip6h->saddr, 16);
		if (dst)
			memcpy(key->dst, &ip6h->daddr, 16);
		break;
	}
	default:
		return false;
	}

	if (mode == TC_FLOWKEY_5TUPLE) {
		key->proto = ip_proto;
		/* Later fragments carry no ports: keep every fragment of a
		 * datagram in one flow by ignoring ports on all of them.
		 */
		if (!frag)
			flowkey_ports(skb, thoff, ip_proto, key);
	}
	return true;
}

/* The key of @skb under @mode (enum tc_flowkey_mode); non-IP packets all
 * share the zero key.
 */
static inline void flowkey_from_skb(const struct sk_buff *skb, u32 mode,
				    struct flowkey *key)
{
	memset(key, 0, sizeof(*key));
	if (likely(flowkey_from_skb_fast(skb, mode, key)))
		return;
	flowkey_from_skb_dissect(skb, mode, key);
}

#endif /* _NET_FLOWKEY_SKB_H */
