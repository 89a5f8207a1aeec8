/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stand-in of include/net/inet_ecn.h for codel_ref_test: the kernel's
 * codel_impl.h includes it for the two calls below, made here on
 * codel_ref_test's struct sk_buff (an ECN capable flag and a CE flag).
 */
#ifndef _CODEL_REF_INET_ECN_H
#define _CODEL_REF_INET_ECN_H

static inline int INET_ECN_set_ce(struct sk_buff *skb)
{
	if (!skb->ect)
		return 0;
	skb->ce = true;
	return 1;
}

/* only read with a ce_threshold_mask, which the test never sets */
static inline int skb_get_dsfield(struct sk_buff *skb)
{
	return -1;
}

#endif /* _CODEL_REF_INET_ECN_H */
