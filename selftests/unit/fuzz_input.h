/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libFuzzer harnesses' input: a byte string read as big-endian
 * numbers of a few bytes each, zeros once it runs out, so that every
 * input decodes into a whole sequence of operations.
 */
#ifndef _FUZZ_INPUT_H
#define _FUZZ_INPUT_H

#define FUZZ_ASSERT(c) do { if (!(c)) __builtin_trap(); } while (0)

struct input {
	const u8	*p;
	size_t		left;
};

static inline u64 get(struct input *in, int bytes)
{
	u64 v = 0;

	while (bytes--) {
		v <<= 8;
		if (in->left) {
			v |= *in->p++;
			in->left--;
		}
	}
	return v;
}

static inline u64 range(struct input *in, int bytes, u64 lo, u64 hi)
{
	return lo + get(in, bytes) % (hi - lo + 1);
}

#endif /* _FUZZ_INPUT_H */
