/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stfq_tags.c is plain C with no sk_buff in sight, so that the same file
 * builds into the module and into the userspace unit tests.  This header
 * is the only place that knows which of the two it is.
 */
#ifndef _STFQ_COMPAT_H
#define _STFQ_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#else
#include <dfs_user.h>	/* selftests/unit: the same names for userspace */
#endif

#endif /* _STFQ_COMPAT_H */
