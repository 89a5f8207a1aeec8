/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the few kernel names the algorithm cores of the
 * four modules use, so the same .c files build into the unit tests and
 * fuzzers of selftests/unit.  The cores include the kernel's headers by
 * name, as in-tree code does; shim/linux/ holds a header of each of those
 * names that forwards here, and shim/ comes first on the tests' include
 * path, as the kernel's tools/include does for its tools.  Where the
 * system has a uapi header of the same name (<linux/types.h>,
 * <linux/errno.h>, ...), the forwarding header takes it in first: glibc
 * and the uapi headers of include/uapi/ ask for those by that name.
 */
#ifndef _SCH_DFS_KERNEL_SHIM_H
#define _SCH_DFS_KERNEL_SHIM_H

#include <assert.h>
/* The kernel's static_assert(), whose message is optional. */
#undef static_assert
#define static_assert(expr, ...) _Static_assert(expr, #expr)
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>	/* AF_INET */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef uint16_t __be16;
typedef unsigned int gfp_t;

#define GFP_ATOMIC	0u
#define GFP_KERNEL	0u
#define GFP_KERNEL_ACCOUNT	0u
#define __GFP_NOWARN	0u
#define U32_MAX		0xffffffffU
#define U64_MAX		0xffffffffffffffffULL
#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define MSEC_PER_SEC	1000L

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

#ifndef __always_inline		/* glibc's sys/cdefs.h has it */
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define BIT(n)		(1UL << (n))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

static inline u64 roundup_pow_of_two(u64 n)
{
	return n <= 1 ? 1 : 1ULL << (64 - __builtin_clzll(n - 1));
}

/* Fault injection for the allocation-failure paths of the tests. */
extern unsigned long dfs_user_alloc_fail_every;
extern unsigned long dfs_user_allocs;	/* counts allocations */
void *dfs_user_zalloc(size_t size);

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return dfs_user_zalloc(size);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kzalloc(n * size, gfp);
}

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	return kzalloc(size, gfp);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kcalloc(n, size, gfp);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/* The bucket kmalloc() takes @size from (SLUB's, no debug). */
static inline size_t kmalloc_size_roundup(size_t size)
{
	size_t b = 8;

	if (size > 64 && size <= 96)
		return 96;
	if (size > 128 && size <= 192)
		return 192;
	while (b < size)
		b <<= 1;
	return b;
}

/* splitmix64 from a fixed start: the tests are reproducible, and their
 * seeds differ from one tree to the next, as the kernel's do.
 */
static inline u64 get_random_u64(void)
{
	static u64 state = 0x243f6a8885a308d3ULL;
	u64 z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

/* As on x86, where this is mulq; divq: a quotient past 64 bits faults
 * (#DE, a kernel oops), so here it aborts instead of truncating.
 */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	unsigned __int128 q = ((unsigned __int128)a * b) / c;

	if (q >> 64)
		__builtin_trap();
	return (u64)q;
}

static inline unsigned int hweight64(u64 w)
{
	return __builtin_popcountll(w);
}

/* jiffies and their comparison across a wrap */
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)

/*
 * hlist, as <linux/list.h> has it, and its RCU forms, which are the same
 * here: the tests run one thread, and a grace period is over at once.
 */
struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct rcu_head {
	void *unused;
};

#define INIT_HLIST_HEAD(h)	((h)->first = NULL)

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	n->next = h->first;
	if (n->next)
		n->next->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void hlist_del(struct hlist_node *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	n->next = NULL;
	n->pprev = NULL;
}

#define hlist_add_head_rcu	hlist_add_head
#define hlist_del_rcu		hlist_del
#define kfree_rcu(p, field)	kfree(p)

#define hlist_entry_safe(ptr, type, member) ({ \
	__typeof__(ptr) ____ptr = (ptr); \
	____ptr ? container_of(____ptr, type, member) : NULL; })

#define hlist_for_each_entry(pos, head, member) \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); \
	     pos; \
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), \
				    member))

#define hlist_for_each_entry_rcu(pos, head, member) \
	hlist_for_each_entry(pos, head, member)

#define hlist_for_each_entry_safe(pos, n, head, member) \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*pos), member); \
	     pos && ({ n = pos->member.next; 1; }); \
	     pos = hlist_entry_safe(n, __typeof__(*pos), member))

#endif /* _SCH_DFS_KERNEL_SHIM_H */
