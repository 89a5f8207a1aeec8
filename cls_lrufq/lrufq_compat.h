/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lrufq_lru.c is plain C with no sk_buff in sight, so that the same file
 * builds into the module and into the userspace unit tests.  This header
 * is the only place that knows which of the two it is.
 */
#ifndef _LRUFQ_COMPAT_H
#define _LRUFQ_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#else
#include <dfs_user.h>	/* selftests/unit: the same names for userspace */
#endif

#endif /* _LRUFQ_COMPAT_H */
