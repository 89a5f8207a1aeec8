/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/errno.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/errno.h>)
#include_next <linux/errno.h>
#endif
#include <kernel_shim.h>
