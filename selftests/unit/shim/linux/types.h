/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/types.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/types.h>)
#include_next <linux/types.h>
#endif
#include <kernel_shim.h>
