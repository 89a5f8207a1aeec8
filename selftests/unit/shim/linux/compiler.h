/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/compiler.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/compiler.h>)
#include_next <linux/compiler.h>
#endif
#include <kernel_shim.h>
