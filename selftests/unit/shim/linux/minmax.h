/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/minmax.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/minmax.h>)
#include_next <linux/minmax.h>
#endif
#include <kernel_shim.h>
