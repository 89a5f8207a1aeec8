/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The environment of the algorithm cores (dfs_btree.c, dfs_cache.c,
 * dfs_decide.c, stfq_tags.c, lrufq_lru.c): plain C with no sk_buff in
 * sight, built into the modules and, unchanged, into the userspace unit
 * tests and fuzzers.  This header is the only place that knows which of
 * the two it is: in the kernel it is the kernel's own headers, in
 * userspace the shim of the same names (compat/user/kernel_shim.h, on the
 * include path of the unit tests only).
 */
#ifndef _SCH_DFS_CORE_ENV_H
#define _SCH_DFS_CORE_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/time64.h>
#else
#include <kernel_shim.h>
#endif

#endif /* _SCH_DFS_CORE_ENV_H */
