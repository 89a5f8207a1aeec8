// SPDX-License-Identifier: GPL-2.0
/*
 * dfs_fq.h's CoDel against the kernel's own: the include/net/codel_impl.h
 * of an installed kernel (CODEL_IMPL, which the Makefile picks) is
 * compiled here behind stand-ins for what it uses of codel.h, sk_buff and
 * inet_ecn.h, and dfs_codel_dequeue() and codel_dequeue() run on the same
 * random traces of one queue, each on its own copy of the packets.  After
 * every dequeue, the packet returned, every packet dropped (in order),
 * the CE marks, the drop and mark counts and CoDel's state must be the
 * kernel's.
 *
 * Three kinds of trace, each from a fixed seed:
 * - mixed: arrivals of any size, ECN capable or not, idle gaps of up to
 *   seconds, the clock starting anywhere (across its wrap too), and other
 *   flows' bytes in the backlog (the MTU rule);
 * - stalled: a deep standing queue of small packets, then the link stops
 *   for up to seconds while CoDel drops, so that a dequeue is far behind
 *   the drop schedule: the cap on drops per call;
 * - deep: both start in a dropping episode of a million drops or more,
 *   where interval / sqrt(count) truncates to no tick: the control law's
 *   floor of one tick.
 * Sojourns stay far below 2^31 ticks (36 minutes), where the kernel's
 * "disabled" ce_threshold (INT_MAX) would start to mark.
 *
 * A header older than mainline's two guards (6.1's) is compared too: a
 * trace is then followed up to the first dequeue in which the kernel
 * went past one of them (more than DFS_CODEL_MAX_DROPS drops, or a step
 * of zero ticks), where the two part by design, and the test says how
 * many traces stopped there.
 */
#include <limits.h>
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>

#include "dfs_fq.h"
#include "unit.h"
#include "xorshift.h"

#ifdef CODEL_IMPL

/* The packet, the same on both sides: codel_impl.h's and inet_ecn.h's. */
struct sk_buff {
	struct sk_buff	*next;
	u32		len;
	u32		time;		/* enqueue time, CoDel's ticks */
	u32		id;		/* order of arrival */
	bool		ect;
	bool		ce;
};

/* What codel_impl.h uses of include/net/codel.h, as codel.h has it. */
typedef u32 codel_time_t;
typedef s32 codel_tdiff_t;
#define CODEL_SHIFT			10
#define MS2TIME(a)			(((a) * NSEC_PER_MSEC) >> CODEL_SHIFT)
#define codel_time_after(a, b)		((s32)((a) - (b)) > 0)
#define codel_time_before(a, b)		codel_time_after(b, a)
#define codel_time_after_eq(a, b)	((s32)((a) - (b)) >= 0)
#define codel_time_before_eq(a, b)	codel_time_after_eq(b, a)

struct codel_params {
	codel_time_t	target;
	codel_time_t	ce_threshold;
	codel_time_t	interval;
	u32		mtu;
	bool		ecn;
	u8		ce_threshold_selector;
	u8		ce_threshold_mask;
};

struct codel_vars {
	u32		count;
	u32		lastcount;
	bool		dropping;
	u16		rec_inv_sqrt;
	codel_time_t	first_above_time;
	codel_time_t	drop_next;
	codel_time_t	ldelay;
};

#define REC_INV_SQRT_BITS		(8 * sizeof(u16))
#define REC_INV_SQRT_SHIFT		(32 - REC_INV_SQRT_BITS)
#define CODEL_MAX_DROPS_PER_DEQUEUE	256	/* unused by a header without it */
#define CODEL_DISABLED_THRESHOLD	INT_MAX

struct codel_stats {
	u32		maxpacket;
	u32		drop_count;
	u32		drop_len;
	u32		ecn_mark;
	u32		ce_mark;
};

typedef u32 (*codel_skb_len_t)(const struct sk_buff *skb);
typedef codel_time_t (*codel_skb_time_t)(const struct sk_buff *skb);
typedef void (*codel_skb_drop_t)(struct sk_buff *skb, void *ctx);
typedef struct sk_buff *(*codel_skb_dequeue_t)(struct codel_vars *vars,
					       void *ctx);

static codel_time_t k_now;

static codel_time_t codel_get_time(void)
{
	return k_now;
}

/* Control-law steps that truncated to zero ticks, as the kernel computed
 * them: a header without the one-tick floor parts from dfs_fq.h there.
 */
static unsigned long k_zero_steps;

/* linux/kernel.h's, the only caller being codel_control_law() */
static inline u32 reciprocal_scale(u32 val, u32 ep_ro)
{
	u32 r = ((u64)val * ep_ro) >> 32;

	if (!r)
		k_zero_steps++;
	return r;
}

#include CODEL_IMPL

#define MAXP	4096		/* packets a trace */

/* One side's queue: one flow's packets, the backlog of all flows. */
struct side {
	struct sk_buff	pk[MAXP];
	struct sk_buff	*head, *tail;
	u32		backlog;	/* this queue's bytes and others' */
	u32		dropped[MAXP];	/* ids, in order */
	u32		ndropped;
};

static struct side K, D;

static void side_reset(struct side *s, u32 other)
{
	s->head = s->tail = NULL;
	s->backlog = other;
	s->ndropped = 0;
}

static void side_push(struct side *s, u32 id, u32 len, u32 t, bool ect)
{
	struct sk_buff *p = &s->pk[id];

	*p = (struct sk_buff){ .len = len, .time = t, .id = id, .ect = ect };
	if (s->tail)
		s->tail->next = p;
	else
		s->head = p;
	s->tail = p;
	s->backlog += len;
}

static struct sk_buff *side_pop(struct side *s)
{
	struct sk_buff *p = s->head;

	if (!p)
		return NULL;
	s->head = p->next;
	if (!s->head)
		s->tail = NULL;
	s->backlog -= p->len;
	return p;
}

static void side_drop(struct side *s, struct sk_buff *p)
{
	s->dropped[s->ndropped++] = p->id;
}

/* The kernel's callbacks, as fq_codel's */
static struct sk_buff *k_dequeue(struct codel_vars *vars, void *ctx)
{
	return side_pop(ctx);
}

static u32 k_len(const struct sk_buff *p)
{
	return p->len;
}

static codel_time_t k_time(const struct sk_buff *p)
{
	return p->time;
}

static void k_drop(struct sk_buff *p, void *ctx)
{
	side_drop(ctx, p);
}

/* dfs_fq.h's, as sch_dfs's */
static void *d_pop(void *ctx, struct dfs_fq *fq)
{
	struct sk_buff *p = side_pop(ctx);

	fq->head = ((struct side *)ctx)->head;
	return p;
}

static u32 d_len(const void *p)
{
	return ((const struct sk_buff *)p)->len;
}

static u32 d_time(const void *p)
{
	return ((const struct sk_buff *)p)->time;
}

static bool d_mark(void *p)
{
	return INET_ECN_set_ce(p);
}

static void d_drop(void *ctx, void *p)
{
	side_drop(ctx, p);
}

static void d_release(void *ctx, struct dfs_fq_key *k)
{
}

static const struct dfs_fq_ops d_ops = {
	.pop = d_pop, .len = d_len, .time = d_time, .mark = d_mark,
	.drop = d_drop, .release = d_release,
};

enum kind { MIXED, STALLED, DEEP, KINDS };

static const char *const kind_name[KINDS] = { "mixed", "stalled", "deep" };

/* Traces of each kind: a few seconds under ASan and UBSan in all. */
static const u32 ntraces[KINDS] = { 10000, 2000, 1000 };

/* One trace's two CoDels, fed alike. */
struct trace {
	struct codel_params	kp;
	struct codel_vars	kv;
	struct codel_stats	ks;
	struct dfs_fq_params	dp;
	struct dfs_fq_key	dk;	/* its embedded queue, dk.q */
	struct dfs_fq_stats	dst;
	u32			npk;
	u32			ndeq;		/* dequeues so far */
	u32			now;
};

/* What the traces went through, over all of them. */
static struct {
	unsigned long	dequeues, drops, marks;
	unsigned long	at_cap;		/* calls with DFS_CODEL_MAX_DROPS drops */
	unsigned long	past_guard;	/* traces stopped where the header has none */
	unsigned long	bad[KINDS];
} tot;

static bool has_floor;		/* the header's control law: a tick at least */
static bool has_cap;		/* and CODEL_MAX_DROPS_PER_DEQUEUE a call */

static u32 rnd(u32 n)
{
	return xorshift() % n;
}

static u32 isqrt(u32 x)
{
	u32 r = 0, b;

	for (b = 1U << 15; b; b >>= 1)
		if ((r + b) * (r + b) <= x)
			r += b;
	return r;
}

static void arrive(struct trace *t, u32 len, bool ect)
{
	if (t->npk == MAXP)
		return;
	side_push(&K, t->npk, len, t->now, ect);
	side_push(&D, t->npk, len, t->now, ect);
	t->npk++;
	t->dk.q.head = D.head;
}

static void set_params(struct trace *t, u32 target, u32 interval, bool ecn)
{
	codel_params_init(&t->kp);
	t->kp.target = target;
	t->kp.interval = interval;
	t->kp.mtu = 1514;
	t->kp.ecn = ecn;
	t->dp = (struct dfs_fq_params){ .quantum = 1514, .target = target,
		.interval = interval, .mtu = 1514, .ecn = ecn };
}

static void trace_init(struct trace *t, enum kind kind, u32 n)
{
	memset(t, 0, sizeof(*t));
	codel_vars_init(&t->kv);
	codel_stats_init(&t->ks);
	xorshift_state = ((u64)n + 1) * 0x9E3779B97F4A7C15ULL + kind;
	/* anywhere on CoDel's u32 clock, now and then just before its wrap */
	t->now = rnd(4) ? (u32)xorshift() : 0xffffffffu - rnd(1000000);
	side_reset(&K, 0);
	side_reset(&D, 0);
}

static void say_state(const struct trace *t)
{
	fprintf(stderr,
		"  kernel: count %u lastcount %u dropping %d rec_inv_sqrt %u first_above %u drop_next %u drops %u marks %u\n"
		"  dfs:    count %u lastcount %u dropping %d rec_inv_sqrt %u first_above %u drop_next %u drops %u marks %llu\n",
		t->kv.count, t->kv.lastcount, t->kv.dropping, t->kv.rec_inv_sqrt,
		t->kv.first_above_time, t->kv.drop_next, K.ndropped,
		t->ks.ecn_mark, t->dk.cv.count, t->dk.cv.lastcount,
		t->dk.cv.dropping, t->dk.cv.rec_inv_sqrt, t->dk.q.first_above,
		t->dk.cv.drop_next, D.ndropped,
		(unsigned long long)t->dst.codel_marks);
}

/*
 * One dequeue on both sides at t->now.  Returns 0 when they agree, 1 when
 * they differ, -1 when they differ where the header lacks a guard.
 */
static int dequeue_both(struct trace *t)
{
	u32 k0 = K.ndropped, d0 = D.ndropped;
	unsigned long z0 = k_zero_steps;
	struct sk_buff *kpkt, *dpkt;
	bool same;

	k_now = t->now;
	kpkt = codel_dequeue(&K, &K.backlog, &t->kp, &t->kv, &t->ks, k_len,
			     k_time, k_drop, k_dequeue);
	dpkt = dfs_codel_dequeue(&t->dk, &t->dk.q, &t->dp, &t->dst, &d_ops, &D,
				 &D.backlog, t->now);
	tot.dequeues++;
	t->ndeq++;
	if (D.ndropped - d0 == DFS_CODEL_MAX_DROPS)
		tot.at_cap++;

	same = (kpkt ? kpkt->id : ~0U) == (dpkt ? dpkt->id : ~0U) &&
	       (!kpkt || kpkt->ce == dpkt->ce) &&
	       K.ndropped == D.ndropped &&
	       !memcmp(K.dropped + k0, D.dropped + d0,
		       (K.ndropped - k0) * sizeof(u32)) &&
	       t->ks.drop_count == t->dst.drop_count &&
	       t->ks.drop_len == t->dst.drop_len &&
	       t->ks.ecn_mark == t->dst.codel_marks && !t->ks.ce_mark &&
	       t->kv.count == t->dk.cv.count &&
	       t->kv.lastcount == t->dk.cv.lastcount &&
	       t->kv.dropping == t->dk.cv.dropping &&
	       t->kv.rec_inv_sqrt == t->dk.cv.rec_inv_sqrt &&
	       t->kv.first_above_time == t->dk.q.first_above &&
	       t->kv.drop_next == t->dk.cv.drop_next;
	if (same)
		return 0;
	if (!has_cap && K.ndropped - k0 > CODEL_MAX_DROPS_PER_DEQUEUE)
		return -1;
	if (!has_floor && k_zero_steps != z0)
		return -1;
	return 1;
}

/* Arrivals, time and dequeues at random, as a busy link sees them. */
static int run_mixed(struct trace *t)
{
	u32 other = rnd(2) ? 0 : 3000 + rnd(100000);
	int step, i, n, r;

	set_params(t, dfs_codel_from_us(1 + rnd(20000)),
		   dfs_codel_from_us(1000 + rnd(300000)), rnd(2));
	if (t->kp.interval <= t->kp.target)
		set_params(t, t->kp.target, t->kp.target + 1, t->kp.ecn);
	K.backlog = D.backlog = other;
	for (step = 0; step < 400 && t->npk < MAXP; step++) {
		if (rnd(16) < 7) {
			n = 1 + rnd(8);
			for (i = 0; i < n; i++)
				arrive(t, rnd(2) ? 64 + rnd(1451) : 1514, rnd(2));
		}
		r = rnd(32);
		if (!r)
			t->now += dfs_codel_from_us(rnd(3000000));
		else if (r >= 4)
			t->now += dfs_codel_from_us(rnd(20000));
		for (n = rnd(4); n; n--) {
			r = dequeue_both(t);
			if (r)
				return r;
		}
	}
	return 0;
}

/*
 * A standing queue of small packets, then stalls of the link (a throttled
 * parent) between dequeues: after one, CoDel is far behind its drop
 * schedule.  ECN now and then, which ends a catch-up with a mark.
 */
static int run_stalled(struct trace *t)
{
	bool ecn = !rnd(4);
	int step, i, n, r;

	set_params(t, dfs_codel_from_us(1 + rnd(500)),
		   dfs_codel_from_us(1000 + rnd(9000)), ecn);
	for (i = 0; i < MAXP - 256; i++)
		arrive(t, 64, ecn && rnd(2));
	for (step = 0; step < 8; step++) {
		if (step < 2 || rnd(2))
			t->now += 2 * t->kp.interval;
		else
			t->now += dfs_codel_from_us(200000 + rnd(2000000));
		for (n = rnd(4); n; n--)
			arrive(t, 64, ecn && rnd(2));
		for (n = 1 + rnd(3); n; n--) {
			r = dequeue_both(t);
			if (r)
				return r;
		}
	}
	return 0;
}

/*
 * Both in a dropping episode of a million drops or more, a few ticks
 * behind the schedule: interval / sqrt(count) is zero ticks for the
 * smaller intervals, and the control law's floor sets the pace.
 */
static int run_deep(struct trace *t)
{
	u32 count = (1U << 20) + rnd(1U << 31);
	int step, i, n, r;
	bool ecn = rnd(2);

	set_params(t, dfs_codel_from_us(1 + rnd(500)),
		   dfs_codel_from_us(1000 + rnd(9000)), ecn);
	for (i = 0; i < 600; i++)
		arrive(t, 64 + rnd(1451), ecn && rnd(2));
	t->now += 2 * t->kp.interval;
	t->kv.count = t->dk.cv.count = count;
	t->kv.lastcount = t->dk.cv.lastcount = count - rnd(1000);
	/* 1/sqrt(count) in Q0.16, as Newton's steps keep it */
	t->kv.rec_inv_sqrt = t->dk.cv.rec_inv_sqrt = 65536 / isqrt(count);
	t->kv.dropping = t->dk.cv.dropping = true;
	t->kv.first_above_time = t->dk.q.first_above = t->now - 1 - rnd(100);
	t->dk.q.ok_to_drop = true;
	t->dk.droppable = 1;
	t->kv.drop_next = t->dk.cv.drop_next = t->now - rnd(64);
	for (step = 0; step < 40; step++) {
		t->now += rnd(8);
		if (!rnd(4))
			arrive(t, 64 + rnd(1451), ecn && rnd(2));
		for (n = 1 + rnd(3); n; n--) {
			r = dequeue_both(t);
			if (r)
				return r;
		}
	}
	return 0;
}

/*
 * Does the header cap the drops of one call?  A queue of small packets in
 * a dropping state far behind its schedule tells: without the cap, the
 * call drops all but the last MTU of it.
 */
static bool probe_cap(struct trace *t)
{
	int i;

	trace_init(t, KINDS, 0);
	set_params(t, 1, dfs_codel_from_us(1000), false);
	for (i = 0; i < 1000; i++)
		arrive(t, 64, false);
	t->now += 1U << 20;
	t->kv.dropping = true;
	t->kv.count = 1;
	t->kv.rec_inv_sqrt = ~0U >> REC_INV_SQRT_SHIFT;
	t->kv.first_above_time = t->now - 1;
	t->kv.drop_next = t->now - (1U << 20);
	k_now = t->now;
	codel_dequeue(&K, &K.backlog, &t->kp, &t->kv, &t->ks, k_len, k_time,
		      k_drop, k_dequeue);
	return K.ndropped <= CODEL_MAX_DROPS_PER_DEQUEUE;
}

static int (*const run[KINDS])(struct trace *t) = {
	run_mixed, run_stalled, run_deep,
};

int main(void)
{
	static struct trace t;
	enum kind kind;
	u32 n;
	int r;

	/* a step of interval 1 and 1/sqrt(count) 0 truncates to zero */
	has_floor = codel_control_law(0, 1, 0) == 1;
	has_cap = probe_cap(&t);
	k_zero_steps = 0;
	printf("codel_ref_test: %s: drop cap %s, one-tick floor %s\n",
	       CODEL_IMPL, has_cap ? "yes" : "no", has_floor ? "yes" : "no");

	for (kind = 0; kind < KINDS; kind++) {
		for (n = 0; n < ntraces[kind]; n++) {
			trace_init(&t, kind, n);
			r = run[kind](&t);
			tot.drops += K.ndropped;
			tot.marks += t.ks.ecn_mark;
			if (r < 0) {
				tot.past_guard++;
			} else if (r && tot.bad[kind]++ < 3) {
				fprintf(stderr, "codel_ref_test: %s trace %u differs at its dequeue %u\n",
					kind_name[kind], n, t.ndeq);
				say_state(&t);
			}
		}
		CHECK(!tot.bad[kind], "%lu of %u %s traces differ from %s",
		      tot.bad[kind], ntraces[kind], kind_name[kind], CODEL_IMPL);
	}
	printf("codel_ref_test: %u traces, %lu dequeues, %lu drops, %lu ECN marks, %lu dequeues at the drop cap, %lu zero steps; %lu traces stopped where the header lacks a guard\n",
	       ntraces[MIXED] + ntraces[STALLED] + ntraces[DEEP], tot.dequeues,
	       tot.drops, tot.marks, tot.at_cap, k_zero_steps,
	       tot.past_guard);
	/* the traces reach what they are there for */
	CHECK(tot.drops && tot.marks, "drops and marks");
	CHECK(tot.at_cap, "no dequeue reached the drop cap");
	CHECK(k_zero_steps, "no control-law step truncated to zero");
	return unit_summary("codel_ref_test");
}

#else /* !CODEL_IMPL */

int main(void)
{
	printf("codel_ref_test: skipped: no kernel's include/net/codel_impl.h to compare with (neither the mainline tree of the matrix nor the test kernel's headers: make deps)\n");
	printf("codel_ref_test: 0 passed, 0 failed, 1 skipped\n");
	return 0;
}

#endif /* CODEL_IMPL */
