/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/random.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/random.h>)
#include_next <linux/random.h>
#endif
#include <kernel_shim.h>
