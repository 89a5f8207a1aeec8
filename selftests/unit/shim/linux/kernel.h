/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/kernel.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/kernel.h>)
#include_next <linux/kernel.h>
#endif
#include <kernel_shim.h>
