/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/bits.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/bits.h>)
#include_next <linux/bits.h>
#endif
#include <kernel_shim.h>
