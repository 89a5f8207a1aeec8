/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/log2.h>: see ../kernel_shim.h. */
#include <kernel_shim.h>
