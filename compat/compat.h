/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernels the modules support (Debian's 6.1, 6.12 and 7.x, and
 * the stable kernels between) spell differently, for out-of-tree builds
 * only.  Kbuild force-includes this header before every source file of the
 * four modules (compat/Kbuild.include), so the modules are written against
 * the newest kernel's API and carry no #if of their own.
 *
 * Where stable kernels backport an API, a version number cannot tell
 * whether a kernel has it: Kbuild probes the headers of the kernel being
 * built against and defines COMPAT_HAVE_<NAME> for what it finds, as
 * WireGuard's compat tree does.  In-tree none of this exists.
 */
#ifndef _SCH_DFS_COMPAT_H
#define _SCH_DFS_COMPAT_H

#include <linux/module.h>
#include <linux/timer.h>
#include <net/sch_generic.h>
#include <net/pkt_cls.h>

/* 6.1's struct nla_policy points at a range it does not declare const
 * (6.12's does): the modules' ranges are const, as in-tree.
 */
#ifndef COMPAT_HAVE_CONST_NLA_RANGE
#include <net/netlink.h>
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

/* 6.16 renamed from_timer(). */
#ifndef COMPAT_HAVE_TIMER_CONTAINER_OF
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)
#endif

/* 6.2 added timer_delete_sync() (also in later 6.1.y); 6.15 removed
 * del_timer_sync().
 */
#ifndef COMPAT_HAVE_TIMER_DELETE_SYNC
#define timer_delete_sync(timer) del_timer_sync(timer)
#endif

/* 6.13 added hrtimer_setup(), which sets the callback with the rest;
 * 6.15 removed hrtimer_init().
 */
#ifndef COMPAT_HAVE_HRTIMER_SETUP
#include <linux/hrtimer.h>
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/* 7.0 exported mq's helpers (net/sch_priv.h) in namespace
 * NET_SCHED_INTERNAL, which a module imports by a string (6.13's form).
 * Before, compat/include/net/sch_priv.h carries them, and there is
 * nothing to import.
 */
#ifndef COMPAT_HAVE_MQ_INIT_COMMON
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)
#endif

/* 6.9 moved the module aliases that autoload qdiscs and classifiers to
 * these names ("net-sch-dfs"); before, "sch_<kind>" was asked for: the
 * module's file name for dfs, an alias for dfs_mq.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id) MODULE_ALIAS("sch_" id)
#endif
#ifndef MODULE_ALIAS_NET_CLS
#define MODULE_ALIAS_NET_CLS(id) MODULE_ALIAS("net-cls-" id)
#endif

/* Classification from a qdisc's filter chain.  2025's stable kernels
 * (and mainline) added tcf_classify_qdisc(), which refuses TC_ACT_REDIRECT:
 * a qdisc must not let a filter steal a packet it is enqueueing.  Older
 * kernels get the same here.
 */
#ifndef COMPAT_HAVE_TCF_CLASSIFY_QDISC
static inline int tcf_classify_qdisc(struct sk_buff *skb,
				     const struct tcf_proto *tp,
				     struct tcf_result *res, bool compat_mode)
{
	int ret = tcf_classify(skb, NULL, tp, res, compat_mode);

	if (unlikely(ret == TC_ACT_REDIRECT))
		ret = TC_ACT_SHOT;
	return ret;
}
#endif

/* Later kernels (6.12 has it) give a generic netlink dump its parsed
 * request as a struct genl_info, genl_info_dump(); 6.1's struct
 * genl_dumpit_info holds the attributes under the same name.
 */
#ifndef COMPAT_HAVE_GENL_INFO_DUMP
#include <net/genetlink.h>
#define genl_info_dump(cb) genl_dumpit_info(cb)
#endif

/*
 * A multicast group of a generic netlink family that only CAP_NET_ADMIN
 * in the netns's user namespace may join: 6.7, and stable 6.1.69, 6.6.8
 * (Debian 12's 6.1 has it).  Before it genetlink has no way to refuse a
 * listener: the verdict group is open there, and the build says so
 * (Kbuild.include).
 */
#ifndef COMPAT_HAVE_GENL_MCAST_CAP_NET_ADMIN
#define GENL_MCAST_CAP_NET_ADMIN	0
#endif

#endif /* _SCH_DFS_COMPAT_H */
