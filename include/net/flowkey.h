/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow key shared by sch_dfs and cls_lrufq: what makes a flow, as
 * exact bytes.  Addresses are kept as 16 bytes (IPv4 in the first four),
 * so IPv4 and IPv6 share one key type; the fields a key mode does not use
 * stay zero.  The key modes are the uapi's enum tc_flowkey_mode, which the
 * modules' key attributes take: a mode from netlink is used as it is.
 * The union lets comparisons and hashing run on machine words.
 *
 * No sk_buff here: the algorithm cores (the B-tree, the LRU) and their
 * userspace tests use this header; the dissector that fills a key from a
 * packet is flowkey_skb.h, for the modules only.
 */
#ifndef _NET_FLOWKEY_H
#define _NET_FLOWKEY_H

#include <linux/build_bug.h>
#include <linux/pkt_flowkey.h>
#include <linux/random.h>
#include <linux/socket.h>
#include <linux/types.h>

struct flowkey {
	union {
		struct {
			u8	src[16];
			u8	dst[16];
			__be16	sport;
			__be16	dport;
			u8	proto;
			u8	family;		/* AF_INET, AF_INET6, 0: not IP */
			u8	pad[2];
		};
		u64	w[5];
		u32	w32[10];	/* for jhash2() */
	};
};

static_assert(sizeof(struct flowkey) == 40);

/*
 * A keyed hash of a key, for the tables and orders an attacker must not
 * aim at (DFS's B-tree tags, lrufq's buckets): multilinear over the key's
 * ten 32-bit words with eleven random 64-bit seeds, the high half of the
 * 64-bit sum kept, which is strongly universal (Lemire and Kaser,
 * "Strongly universal string hashing is fast", 2014): two keys collide
 * with probability 2^-32 whoever chose them.  Over 64-bit words it is
 * not: keys that differ in the top bits of two words (an IPv6 source's
 * bytes 7 and 15) differ in their sum only by a multiple of 2^56, and
 * 65,536 of them share 256 values.  Ten multiplies (four for IPv4), far
 * less work than jhash2()'s mixing rounds over the same words.
 */
#define FLOWKEY_HASH_SEEDS	11

static inline u32 flowkey_hash(const struct flowkey *k, const u64 *seed)
{
	const u32 *w = k->w32;
	u64 h;

	h = seed[0] + w[0] * seed[1] + w[4] * seed[5] + w[8] * seed[9] +
	    w[9] * seed[10];
	/* An IPv4 key's address words 1-3 and 5-7 are zero (flowkey_skb.h
	 * zeroes every key), and so are their terms: the sum is the same
	 * without them.  A key that broke this would only hash differently,
	 * the same way each time.
	 */
	if (k->family != AF_INET)
		h += w[1] * seed[2] + w[2] * seed[3] + w[3] * seed[4] +
		     w[5] * seed[6] + w[6] * seed[7] + w[7] * seed[8];
	return h >> 32;
}

static inline void flowkey_hash_init(u64 *seed)
{
	int i;

	for (i = 0; i < FLOWKEY_HASH_SEEDS; i++)
		seed[i] = get_random_u64();
}

static inline bool flowkey_eq(const struct flowkey *a, const struct flowkey *b)
{
	return !((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1]) |
		 (a->w[2] ^ b->w[2]) | (a->w[3] ^ b->w[3]) |
		 (a->w[4] ^ b->w[4]));
}

#endif /* _NET_FLOWKEY_H */
