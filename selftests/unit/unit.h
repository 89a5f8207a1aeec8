/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal test harness: CHECK() counts, the summary line is what CI reads. */
#ifndef _UNIT_H
#define _UNIT_H

#include <stdio.h>

extern int unit_passed, unit_failed;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		unit_passed++;						\
	} else {							\
		unit_failed++;						\
		fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, "\n");					\
	}								\
} while (0)

#define TEST(fn) do {							\
	int f0 = unit_failed;						\
	fn();								\
	printf("%s %s\n", unit_failed == f0 ? "ok  " : "FAIL", #fn);	\
} while (0)

static inline int unit_summary(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif /* _UNIT_H */
