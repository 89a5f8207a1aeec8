/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/limits.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/limits.h>)
#include_next <linux/limits.h>
#endif
#include <kernel_shim.h>
