/* SPDX-License-Identifier: GPL-2.0 */
/* The tests' and benchmarks' random numbers: xorshift64, fixed seed, so
 * every run of a test or benchmark sees the same sequence.
 */
#ifndef _XORSHIFT_H
#define _XORSHIFT_H

static u64 xorshift_state = 88172645463325252ULL;

static inline u64 xorshift(void)
{
	xorshift_state ^= xorshift_state << 13;
	xorshift_state ^= xorshift_state >> 7;
	xorshift_state ^= xorshift_state << 17;
	return xorshift_state;
}

#endif /* _XORSHIFT_H */
