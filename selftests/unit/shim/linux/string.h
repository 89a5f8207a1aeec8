/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/string.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/string.h>)
#include_next <linux/string.h>
#endif
#include <kernel_shim.h>
