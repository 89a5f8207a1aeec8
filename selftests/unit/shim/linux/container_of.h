/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/container_of.h>: see ../kernel_shim.h. */
#include <kernel_shim.h>
