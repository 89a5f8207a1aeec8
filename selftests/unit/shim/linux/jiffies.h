/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/jiffies.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/jiffies.h>)
#include_next <linux/jiffies.h>
#endif
#include <kernel_shim.h>
