/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' <linux/socket.h>: see ../kernel_shim.h. */
#if __has_include_next(<linux/socket.h>)
#include_next <linux/socket.h>
#endif
#include <kernel_shim.h>
