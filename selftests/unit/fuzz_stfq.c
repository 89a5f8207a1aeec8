// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the STFQ tags and virtual time (stfq_tags.c),
 * driven as sch_stfq drives them: classes get packets (activate when
 * empty), the class with the smallest start tag whose child has a packet
 * is served (serve: a child may hold its packets, as a shaper does), a
 * class is purged or deleted, weights change under traffic, and the clock
 * idles when nothing is queued.  A reference computes the same tags with
 * 128-bit integers that never wrap: S = max(v, F_prev), F = S + len *
 * 2^16 / w, a class passed over served from max(S, v), v = S of the packet
 * served, v = max F when idle.
 *
 * Checked after every step: the class served is the reference's, and v,
 * the largest finish tag and every class's tags equal the reference's
 * modulo 2^64.  The clock starts anywhere in the 64-bit space, so runs
 * cross the wrap of the tags.
 */
#include <linux/pkt_sched_stfq.h>
#include "stfq_tags.h"
#include "fuzz_input.h"


#define NCL	8
#define QMAX	32

typedef unsigned __int128 u128;

struct ref_class {
	u128	start, finish;
};

struct cls {
	u32	weight;
	u32	q[QMAX];	/* packet lengths, FIFO */
	u32	head, len;
	bool	active;
	bool	held;		/* its child holds its packets */
};

static struct stfq_clock c;
static struct stfq_tags t[NCL];
static struct cls cl[NCL];
static u128 rv, rvmax;
static struct ref_class rc[NCL];


static void check(void)
{
	int i;

	FUZZ_ASSERT(c.v == (u64)rv && c.vmax == (u64)rvmax);
	for (i = 0; i < NCL; i++) {
		FUZZ_ASSERT(t[i].finish == (u64)rc[i].finish);
		if (cl[i].active)
			FUZZ_ASSERT(t[i].start == (u64)rc[i].start);
	}
}

static bool any_active(void)
{
	int i;

	for (i = 0; i < NCL; i++)
		if (cl[i].active)
			return true;
	return false;
}

static void idle_if_empty(void)
{
	if (any_active())
		return;
	stfq_idle(&c);
	rv = rvmax;
}

static void enqueue(int i, u32 len)
{
	if (cl[i].len == QMAX)
		return;
	if (!cl[i].active) {
		stfq_activate(&c, &t[i]);
		rc[i].start = rv > rc[i].finish ? rv : rc[i].finish;
		cl[i].active = true;
	}
	cl[i].q[(cl[i].head + cl[i].len++) % QMAX] = len;
}

static void dequeue(void)
{
	int i, best = -1, rbest = -1;
	u32 len;

	for (i = 0; i < NCL; i++) {
		if (!cl[i].active || cl[i].held)
			continue;
		if (best < 0 || stfq_before(t[i].start, t[best].start))
			best = i;
		if (rbest < 0 || rc[i].start < rc[rbest].start)
			rbest = i;
	}
	FUZZ_ASSERT(best == rbest);
	if (best < 0)
		return;

	len = cl[best].q[cl[best].head];
	cl[best].head = (cl[best].head + 1) % QMAX;
	cl[best].len--;
	stfq_serve(&c, &t[best], len, cl[best].weight);
	if (rc[best].start < rv)
		rc[best].start = rv;
	rv = rc[best].start;
	rc[best].finish = rc[best].start +
			  ((u128)len << STFQ_SHIFT) / cl[best].weight;
	rc[best].start = rc[best].finish;
	if (rc[best].finish > rvmax)
		rvmax = rc[best].finish;
	if (!cl[best].len) {
		cl[best].active = false;
		idle_if_empty();
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	int i;

	memset(cl, 0, sizeof(cl));
	stfq_clock_init(&c);
	/* A clock that has run for long: v anywhere, maybe about to wrap. */
	c.v = c.vmax = get(&in, 8);
	rv = rvmax = c.v;
	for (i = 0; i < NCL; i++) {
		cl[i].weight = 1 + get(&in, 3) % TC_STFQ_WEIGHT_MAX;
		stfq_tags_init(&c, &t[i]);
		rc[i].start = rc[i].finish = rv;
	}

	while (in.left) {
		u8 op = get(&in, 1);

		i = op / 8 % NCL;
		switch (op % 8) {
		case 0:
		case 1:
		case 2:		/* a packet of 1 to 65535 bytes */
			enqueue(i, 1 + get(&in, 2) % 65535);
			break;
		case 3:
		case 4:
			dequeue();
			break;
		case 5:		/* tc class change weight, under traffic */
			if (op & 0x80) {	/* or its child holds, lets go */
				cl[i].held = !cl[i].held;
				break;
			}
			cl[i].weight = 1 + get(&in, 3) % TC_STFQ_WEIGHT_MAX;
			break;
		case 6:		/* the class is purged (tc class del, reset) */
			cl[i].len = 0;
			if (cl[i].active) {
				cl[i].active = false;
				idle_if_empty();
			}
			break;
		case 7:		/* ... and a new class takes its place */
			if (cl[i].active)
				break;
			stfq_tags_init(&c, &t[i]);
			rc[i].start = rc[i].finish = rv;
			break;
		}
		check();
	}
	return 0;
}
