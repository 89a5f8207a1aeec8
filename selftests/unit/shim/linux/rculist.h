/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/rculist.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/rculist.h>)
#include_next <linux/rculist.h>
#endif
#include <kernel_shim.h>
