/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The algorithm cores of sch_dfs (B-tree, cache, decisions) are plain C
 * with no sk_buff in sight, so that the very same files build into the
 * module and into the userspace unit tests and fuzzers.  This header is the
 * only place that knows which of the two it is.
 */
#ifndef _DFS_COMPAT_H
#define _DFS_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#else
#include <dfs_user.h>	/* selftests/unit: the same names for userspace */
#endif

#endif /* _DFS_COMPAT_H */
