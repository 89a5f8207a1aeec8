// SPDX-License-Identifier: GPL-2.0
/*
 * STFQ tag unit tests: weighted shares of backlogged classes, a class
 * joining late gets no credit, idle periods, wrap-around of the tags,
 * the staleness guard of long idle classes, and a class passed over
 * while its child holds its packets.
 */
#include "stfq_tags.h"
#include "unit.h"

#define NCLS	4

struct sim {
	struct stfq_clock	clock;
	struct stfq_tags	tags[NCLS];
	u32			weight[NCLS];
	bool			active[NCLS];
	bool			held[NCLS];	/* its child holds its packets */
	u64			bytes[NCLS];
	u32			seed;
};

static u32 sim_rand(struct sim *s)
{
	s->seed = s->seed * 1103515245u + 12345u;
	return s->seed >> 8;
}

/* Mixed sizes: mostly full frames, some ACK-sized, some in between. */
static u32 sim_len(struct sim *s)
{
	u32 r = sim_rand(s) % 10;

	return r < 5 ? 1514 : r < 8 ? 66 : 100 + sim_rand(s) % 1400;
}

static void sim_init(struct sim *s, u64 v0)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->seed = 42;
	stfq_clock_init(&s->clock);
	s->clock.v = v0;
	s->clock.vmax = v0;
	for (i = 0; i < NCLS; i++) {
		s->weight[i] = 1;
		stfq_tags_init(&s->clock, &s->tags[i]);
	}
}

static void sim_activate(struct sim *s, int i)
{
	stfq_activate(&s->clock, &s->tags[i]);
	s->active[i] = true;
}

/* Serve the active class with the smallest start tag whose child has a
 * packet (ties: lowest index, as the rbtree keeps the first inserted
 * first).
 */
static int sim_serve(struct sim *s)
{
	int i, best = -1;
	u32 len;

	for (i = 0; i < NCLS; i++)
		if (s->active[i] && !s->held[i] && (best < 0 ||
		    stfq_before(s->tags[i].start, s->tags[best].start)))
			best = i;
	if (best < 0)
		return -1;
	len = sim_len(s);
	stfq_serve(&s->clock, &s->tags[best], len, s->weight[best]);
	s->bytes[best] += len;
	return best;
}

static double share(const struct sim *s, int a, int b)
{
	return (double)s->bytes[a] / (double)s->bytes[b];
}

static void run_weights(u32 wa, u32 wb, u64 v0, double tol)
{
	struct sim s;
	double r, want = (double)wb / wa;
	int n;

	sim_init(&s, v0);
	s.weight[0] = wa;
	s.weight[1] = wb;
	sim_activate(&s, 0);
	sim_activate(&s, 1);
	for (n = 0; n < 10000; n++)
		sim_serve(&s);
	r = share(&s, 1, 0);
	CHECK(r > want * (1 - tol) && r < want * (1 + tol),
	      "weights %u:%u: bytes %llu:%llu ratio %.4f want %.4f", wa, wb,
	      (unsigned long long)s.bytes[0], (unsigned long long)s.bytes[1],
	      r, want);
	printf("     %u:%u over 10000 packets: bytes %llu:%llu = 1:%.4f\n",
	       wa, wb, (unsigned long long)s.bytes[0],
	       (unsigned long long)s.bytes[1], r);
}

static void test_weights(void)
{
	run_weights(1, 3, 0, 0.02);
	run_weights(1, 4, 0, 0.02);
	run_weights(1, 1, 0, 0.02);
	run_weights(100, 300, 0, 0.02);
	run_weights(7, 13, 0, 0.02);
}

/* The same with the tags about to wrap: nothing changes. */
static void test_wrap(void)
{
	run_weights(1, 3, (u64)-1000000, 0.02);
	run_weights(1, 3, (u64)-1, 0.02);
	CHECK(stfq_before((u64)-1, 0), "-1 before 0 modulo 2^64");
	CHECK(!stfq_before(0, (u64)-1), "0 not before -1");
}

/* A class that joins a busy period starts at v: it gets no credit for the
 * time it was idle, and the class already served keeps going.
 */
static void test_join(void)
{
	struct sim s;
	int n, served1 = 0;

	sim_init(&s, 0);
	sim_activate(&s, 0);
	for (n = 0; n < 1000; n++)
		sim_serve(&s);
	sim_activate(&s, 1);
	CHECK(s.tags[1].start == s.clock.v, "joins at v");
	for (n = 0; n < 20; n++)
		served1 += sim_serve(&s) == 1;
	CHECK(served1 >= 8 && served1 <= 12, "late class gets a fair share, not a burst: %d of 20",
	      served1);
}

/* A class that stops sending and comes back within a busy period does not
 * get its idle time back, but keeps the debt of a packet just served.
 */
static void test_reactivate(void)
{
	struct stfq_clock c;
	struct stfq_tags a, b;

	stfq_clock_init(&c);
	stfq_tags_init(&c, &a);
	stfq_tags_init(&c, &b);
	stfq_activate(&c, &a);
	stfq_activate(&c, &b);
	stfq_serve(&c, &a, 1000, 1);	/* F_a = 1000 << 16 */
	CHECK(c.v == 0 && a.finish == 1000ULL << STFQ_SHIFT, "F = S + len/w");
	stfq_activate(&c, &a);		/* a went empty and got a packet */
	CHECK(a.start == a.finish, "S = F_prev when F_prev > v");
	stfq_serve(&c, &b, 3000, 1);
	stfq_serve(&c, &a, 1000, 1);
	CHECK(c.v == 1000ULL << STFQ_SHIFT, "v = start tag in service");
	stfq_serve(&c, &a, 1000, 1);
	stfq_serve(&c, &b, 1000, 1);	/* b: S = 3000 */
	CHECK(c.v == 3000ULL << STFQ_SHIFT, "v %llu", (unsigned long long)c.v);
	stfq_activate(&c, &a);
	CHECK(a.start == 3000ULL << STFQ_SHIFT, "S = v when F_prev < v");
}

/* End of a busy period: v = the largest finish tag served. */
static void test_idle(void)
{
	struct stfq_clock c;
	struct stfq_tags a, b;

	stfq_clock_init(&c);
	stfq_tags_init(&c, &a);
	stfq_tags_init(&c, &b);
	stfq_activate(&c, &a);
	stfq_activate(&c, &b);
	stfq_serve(&c, &a, 1500, 1);
	stfq_serve(&c, &b, 100, 2);
	stfq_idle(&c);
	CHECK(c.v == 1500ULL << STFQ_SHIFT, "v = max F after idle");
	stfq_activate(&c, &a);
	stfq_activate(&c, &b);
	CHECK(a.start == c.v && b.start == c.v, "all start together");
	/* Idle again with nothing served: v stays. */
	stfq_idle(&c);
	CHECK(c.v == 1500ULL << STFQ_SHIFT, "idle twice");
}

/* A class idle for more than 2^63 of virtual time: the modular comparison
 * alone would take its old finish tag for one in the future.
 */
static void test_stale(void)
{
	struct stfq_clock c;
	struct stfq_tags a, b;
	u64 i;

	stfq_clock_init(&c);
	stfq_tags_init(&c, &a);
	stfq_tags_init(&c, &b);
	stfq_activate(&c, &a);
	stfq_serve(&c, &a, 1000, 1);		/* a: F = 1000 << 16, idle */
	stfq_activate(&c, &b);
	/* b alone moves v by 2^63 + 2^62: a's F is "ahead" modulo 2^64. */
	for (i = 0; i < (3ULL << 15) + 1; i++)
		stfq_serve(&c, &b, 1U << 31, 1);
	CHECK(c.era >= 2, "era %llu", (unsigned long long)c.era);
	CHECK(stfq_before(c.v, a.finish), "the modular trap is set");
	stfq_activate(&c, &a);
	CHECK(a.start == c.v, "stale class starts at v, not at %llu",
	      (unsigned long long)a.finish);
}

/* Weight change under backlog takes effect from the next packet. */
static void test_weight_change(void)
{
	struct sim s;
	double r;
	int n;

	sim_init(&s, 0);
	sim_activate(&s, 0);
	sim_activate(&s, 1);
	for (n = 0; n < 5000; n++)
		sim_serve(&s);
	s.bytes[0] = s.bytes[1] = 0;
	s.weight[1] = 3;
	for (n = 0; n < 10000; n++)
		sim_serve(&s);
	r = share(&s, 1, 0);
	CHECK(r > 3 * 0.98 && r < 3 * 1.02, "after change 1:%.4f", r);
}

/* A class whose child holds its packets (a shaper) is passed over: the
 * others share the link by their weights meanwhile, v never goes back,
 * and once its child lets a packet go the class starts at v, as an idle
 * one would, with no credit for the time it was held.
 */
static void test_held(void)
{
	struct sim s;
	double r;
	u64 v;
	int n, served0 = 0;

	sim_init(&s, 0);
	s.weight[2] = 3;
	sim_activate(&s, 0);
	sim_activate(&s, 1);
	sim_activate(&s, 2);
	for (n = 0; n < 300; n++)
		sim_serve(&s);
	s.held[0] = true;
	s.bytes[1] = s.bytes[2] = 0;
	v = s.clock.v;
	for (n = 0; n < 10000; n++) {
		CHECK(sim_serve(&s) != 0, "a held class was served");
		CHECK(!stfq_before(s.clock.v, v), "v went back");
		v = s.clock.v;
	}
	r = share(&s, 2, 1);
	CHECK(r > 3 * 0.98 && r < 3 * 1.02, "the others 1:%.4f, not 1:3", r);
	CHECK(stfq_before(s.tags[0].start, s.clock.v), "held class behind v");
	s.held[0] = false;
	for (n = 0; n < 50; n++) {
		served0 += sim_serve(&s) == 0;
		CHECK(!stfq_before(s.clock.v, v), "v went back after the hold");
		v = s.clock.v;
	}
	CHECK(served0 >= 6 && served0 <= 14,
	      "released class gets its share (1 of 5), not a burst: %d of 50",
	      served0);
}

int main(void)
{
	TEST(test_weights);
	TEST(test_wrap);
	TEST(test_join);
	TEST(test_reactivate);
	TEST(test_idle);
	TEST(test_stale);
	TEST(test_weight_change);
	TEST(test_held);
	return unit_summary("stfq_test");
}
