// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict ring (dfs_vring.h): events come out in order across the
 * wrap, a full ring counts what it refuses, and the take after a loss
 * drops what the ring held and reports it all as one loss.
 */
#include "dfs_vring.h"
#include "unit.h"

static struct dfs_vring ring;
static struct dfs_verdict_event out[DFS_VERDICT_RING];

/* Add an event numbered @seq (in its time); true if it was taken. */
static bool add(u64 seq, bool *idle)
{
	struct dfs_verdict_event *ev = dfs_vring_add(&ring, idle);

	if (ev)
		ev->time = seq;
	return ev;
}

static void test_order_across_wrap(void)
{
	u64 seq = 0, next = 0, lost;
	bool idle;
	u32 n, i, round;

	memset(&ring, 0, sizeof(ring));
	CHECK(add(seq++, &idle) && idle, "the first event wakes the worker");
	CHECK(add(seq++, &idle) && !idle, "the second does not");
	/* in and out in uneven steps, past the end of the array many times */
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 100 + round % 7; i++)
			CHECK(add(seq++, &idle), "room at %u", round);
		while ((n = dfs_vring_take(&ring, out, 24, &lost))) {
			CHECK(!lost, "no loss");
			for (i = 0; i < n; i++)
				CHECK(out[i].time == next++, "in order");
		}
		CHECK(!dfs_vring_pending(&ring), "empty");
	}
	CHECK(next == seq, "every event out: %llu of %llu",
	      (unsigned long long)next, (unsigned long long)seq);
	CHECK(add(seq++, &idle) && idle, "empty again: the worker is woken");
}

static void test_full_ring_loses(void)
{
	u64 lost;
	bool idle;
	u32 i;

	memset(&ring, 0, sizeof(ring));
	ring.head = DFS_VERDICT_RING - 3;	/* full across the wrap */
	for (i = 0; i < DFS_VERDICT_RING; i++)
		CHECK(add(i, &idle), "room for %u", i);
	for (i = 0; i < 1000; i++)
		CHECK(!add(i, &idle) && !idle, "full: refused, no wakeup");
	CHECK(ring.lost == 1000, "lost %llu", (unsigned long long)ring.lost);
	/* the take after a loss: nothing, and one count of it all */
	CHECK(dfs_vring_take(&ring, out, 24, &lost) == 0, "no events");
	CHECK(lost == 1000 + DFS_VERDICT_RING, "lost %llu",
	      (unsigned long long)lost);
	CHECK(!dfs_vring_pending(&ring), "nothing left");
	CHECK(dfs_vring_take(&ring, out, 24, &lost) == 0 && !lost,
	      "a loss is told once");
	CHECK(add(7, &idle) && idle, "after it, the next event wakes");
	CHECK(dfs_vring_take(&ring, out, 24, &lost) == 1 && !lost &&
	      out[0].time == 7, "and comes out");
}

static void test_unsent_become_lost(void)
{
	u64 lost;
	bool idle;

	memset(&ring, 0, sizeof(ring));
	CHECK(add(1, &idle) && add(2, &idle), "two events");
	CHECK(dfs_vring_take(&ring, out, 1, &lost) == 1, "one taken");
	/* the worker found no memory for it */
	dfs_vring_lose(&ring, 1);
	CHECK(dfs_vring_pending(&ring), "pending: the loss");
	CHECK(!add(3, &idle) || !idle, "no second wakeup while pending");
	CHECK(dfs_vring_take(&ring, out, 24, &lost) == 0 && lost == 3,
	      "the unsent one and the two held: lost %llu",
	      (unsigned long long)lost);
}

static void test_zeroed(void)
{
	struct dfs_verdict_event *ev;
	bool idle;

	memset(&ring, 0xa5, sizeof(ring));
	ring.head = 0;
	ring.count = 0;
	ring.lost = 0;
	ev = dfs_vring_add(&ring, &idle);
	CHECK(ev && !ev->overflow && !ev->key.family && !ev->reason,
	      "a new event starts zeroed");
}

int main(void)
{
	TEST(test_order_across_wrap);
	TEST(test_full_ring_loses);
	TEST(test_unsent_become_lost);
	TEST(test_zeroed);
	return unit_summary("vring_test");
}
