/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/bitops.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/bitops.h>)
#include_next <linux/bitops.h>
#endif
#include <kernel_shim.h>
