/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/build_bug.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/build_bug.h>)
#include_next <linux/build_bug.h>
#endif
#include <kernel_shim.h>
