/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/time64.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/time64.h>)
#include_next <linux/time64.h>
#endif
#include <kernel_shim.h>
