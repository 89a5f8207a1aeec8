// SPDX-License-Identifier: GPL-2.0
/* Allocation with fault injection for the allocation-failure paths. */
#include <kernel_shim.h>

unsigned long dfs_user_alloc_fail_every;
unsigned long dfs_user_allocs;

void *dfs_user_zalloc(size_t size)
{
	if (dfs_user_alloc_fail_every &&
	    ++dfs_user_allocs % dfs_user_alloc_fail_every == 0)
		return NULL;
	return calloc(1, size);
}

int unit_passed, unit_failed;
