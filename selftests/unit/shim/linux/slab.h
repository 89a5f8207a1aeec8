/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/slab.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/slab.h>)
#include_next <linux/slab.h>
#endif
#include <kernel_shim.h>
