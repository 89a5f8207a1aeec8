/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/math.h>: see ../kernel_shim.h. */
#include <kernel_shim.h>
