// SPDX-License-Identifier: GPL-2.0
/*
 * The mark table of dfs_mq (dfs_marks.c): a mark is set on the edge to
 * flagged and cleared on the edge back, never twice for one (queue, key);
 * a queue's lookup renews its own mark before it weighs the others'; a
 * full table tells the queue what it could not share.
 */
#include "dfs_marks.h"
#include "unit.h"

#define HOLD	100	/* jiffies a mark holds after its queue's last packet */

static struct dfs_marks t;

static struct flowkey key_of(u32 n)
{
	struct flowkey k = { .family = AF_INET };

	k.w[0] = n;
	k.w[1] = n * 2654435761u;
	return k;
}

/* How many marks hold @key, for any queue. */
static u32 marks_of(const struct flowkey *key)
{
	struct dfs_mark *m;
	u32 i, n = 0;

	for (i = 0; i < DFS_MARKS_BUCKETS; i++)
		hlist_for_each_entry(m, &t.hash[i], node)
			n += flowkey_eq(&m->key, key);
	return n;
}

/*
 * CPR, then CPR and malicious, then malicious alone, then neither: one
 * mark while flagged, none after.  A mark a change of a flow's flags
 * made would be three, and the release would leave two.
 */
static void test_flag_sequence_leaves_no_mark(void)
{
	static const u32 seq[] = {
		DFS_F_CPR, DFS_F_CPR | DFS_F_MALICIOUS, DFS_F_MALICIOUS, 0,
	};
	struct flowkey k = key_of(1);
	u32 old = 0, i;

	dfs_marks_init(&t);
	for (i = 0; i < ARRAY_SIZE(seq); i++) {
		dfs_marks_flags(&t, 0, &k, old, seq[i] | DFS_F_STORE_BR, 10);
		old = seq[i] | DFS_F_STORE_BR;
		CHECK(marks_of(&k) == (seq[i] ? 1 : 0),
		      "step %u: %u marks", i, marks_of(&k));
	}
	CHECK(t.count == 0, "count %u", t.count);
	CHECK(!dfs_marks_refused(&t, 1, &k, 11, HOLD),
	      "released: another queue takes the key");
	dfs_marks_destroy(&t);
}

/* Flags the table is not told of the change of (a caller that marks each
 * change, as the old code did) still make one mark a (queue, key).
 */
static void test_mark_again_renews(void)
{
	struct flowkey k = key_of(2);

	dfs_marks_init(&t);
	dfs_marks_flags(&t, 3, &k, 0, DFS_F_CPR, 10);
	dfs_marks_flags(&t, 3, &k, 0, DFS_F_MALICIOUS, 50);
	CHECK(marks_of(&k) == 1, "%u marks", marks_of(&k));
	CHECK(dfs_marks_refused(&t, 4, &k, 50 + HOLD - 1, HOLD),
	      "renewed at 50: holds until 50 + HOLD");
	CHECK(!dfs_marks_refused(&t, 4, &k, 50 + HOLD, HOLD), "and no longer");
	dfs_marks_clear(&t, 3, &k);
	CHECK(t.count == 0, "one clear removes it");
	dfs_marks_destroy(&t);
}

/* The seen time of @queue's mark of @key, or 0 if it has none. */
static unsigned long seen_of(u16 queue, const struct flowkey *key)
{
	struct dfs_mark *m;
	u32 i;

	for (i = 0; i < DFS_MARKS_BUCKETS; i++)
		hlist_for_each_entry(m, &t.hash[i], node)
			if (m->queue == queue && flowkey_eq(&m->key, key))
				return m->seen;
	return 0;
}

/*
 * Two queues flag one key and both keep seeing it: each renews its own
 * mark at every packet, so a third queue is refused all along; and
 * neither is refused by the other's mark, its own verdict holds it (and
 * lets it go).  A lookup that returned on the other's mark before
 * renewing its own lets that mark lapse; one that let the other's mark
 * refuse a queue with its own keeps the key refused on both for good,
 * neither flow seeing a packet to be released by.
 */
static void test_two_queues_both_renew(void)
{
	struct flowkey k = key_of(3);
	u32 stale = 0, refused = 0, lapses = 0;
	unsigned long now;

	dfs_marks_init(&t);
	dfs_marks_flags(&t, 0, &k, 0, DFS_F_MALICIOUS, 1);
	dfs_marks_flags(&t, 1, &k, 0, DFS_F_MALICIOUS, 1);
	for (now = 2; now < 20 * HOLD; now++) {
		refused += dfs_marks_refused(&t, 0, &k, now, HOLD);
		refused += dfs_marks_refused(&t, 1, &k, now, HOLD);
		stale += seen_of(0, &k) != now;
		stale += seen_of(1, &k) != now;
		lapses += !dfs_marks_refused(&t, 2, &k, now, HOLD);
	}
	CHECK(stale == 0, "%u lookups left their own mark unrenewed", stale);
	CHECK(refused == 0, "%u lookups refused a queue with its own mark",
	      refused);
	CHECK(lapses == 0, "%u lookups let the key through a third queue",
	      lapses);
	/* 0 lets the key go: 1's mark, renewed by its own flow, holds it
	 * everywhere else until 1 lets it go too
	 */
	dfs_marks_flags(&t, 0, &k, DFS_F_MALICIOUS, 0, now);
	CHECK(!dfs_marks_refused(&t, 1, &k, now, HOLD), "1 judges it itself");
	CHECK(dfs_marks_refused(&t, 0, &k, now, HOLD), "1's mark holds on 0");
	CHECK(dfs_marks_refused(&t, 2, &k, now, HOLD), "and on 2");
	dfs_marks_flags(&t, 1, &k, DFS_F_MALICIOUS, 0, now);
	CHECK(!dfs_marks_refused(&t, 0, &k, now, HOLD) &&
	      !dfs_marks_refused(&t, 2, &k, now, HOLD), "released by both");
	dfs_marks_destroy(&t);
}

/* A mark holds other queues only while its own queue sees the key. */
static void test_mark_lapses_without_its_queue(void)
{
	struct flowkey k = key_of(4);

	dfs_marks_init(&t);
	dfs_marks_flags(&t, 0, &k, 0, DFS_F_MALICIOUS, 1000);
	CHECK(!dfs_marks_refused(&t, 0, &k, 1001, HOLD),
	      "its own mark does not refuse its queue");
	CHECK(dfs_marks_refused(&t, 1, &k, 1001 + HOLD - 1, HOLD), "held");
	CHECK(!dfs_marks_refused(&t, 1, &k, 1001 + HOLD, HOLD), "lapsed");
	CHECK(t.count == 1, "kept until its queue clears it");
	dfs_marks_clear_queue(&t, 0);
	CHECK(t.count == 0, "cleared with its queue");
	dfs_marks_destroy(&t);
}

/* Jiffies wrap: a mark renewed just before still holds after. */
static void test_wrap(void)
{
	struct flowkey k = key_of(5);
	unsigned long start = (unsigned long)-10;

	dfs_marks_init(&t);
	dfs_marks_flags(&t, 0, &k, 0, DFS_F_CPR, start);
	CHECK(dfs_marks_refused(&t, 1, &k, start + HOLD / 2, HOLD),
	      "held across the wrap");
	CHECK(!dfs_marks_refused(&t, 1, &k, start + HOLD, HOLD), "lapsed");
	dfs_marks_destroy(&t);
}

/* Past DFS_MARKS_MAX a verdict is not shared, and that is counted. */
static void test_full_table_counts(void)
{
	u32 i, refused = 0;

	dfs_marks_init(&t);
	for (i = 0; i < DFS_MARKS_MAX + 10; i++) {
		struct flowkey k = key_of(100 + i);

		refused += dfs_marks_flags(&t, i % 4, &k, 0, DFS_F_MALICIOUS,
					   1) == -ENOSPC;
	}
	CHECK(t.count == DFS_MARKS_MAX, "count %u", t.count);
	CHECK(refused == 10, "%u told the queue", refused);
	for (i = 0; i < 4; i++)
		dfs_marks_clear_queue(&t, i);
	CHECK(t.count == 0, "count %u after every queue cleared", t.count);
	dfs_marks_destroy(&t);
}

/* No memory for a mark: not shared, counted, nothing else changes. */
static void test_no_memory(void)
{
	struct flowkey k = key_of(6);

	dfs_marks_init(&t);
	dfs_user_alloc_fail_every = 1;
	CHECK(dfs_marks_flags(&t, 0, &k, 0, DFS_F_MALICIOUS, 1) == -ENOSPC,
	      "the queue is told");
	dfs_user_alloc_fail_every = 0;
	CHECK(t.count == 0, "count %u", t.count);
	dfs_marks_flags(&t, 0, &k, DFS_F_MALICIOUS, 0, 2);
	CHECK(t.count == 0, "the release of a mark not made is a no-op");
	dfs_marks_destroy(&t);
}

int main(void)
{
	TEST(test_flag_sequence_leaves_no_mark);
	TEST(test_mark_again_renews);
	TEST(test_two_queues_both_renew);
	TEST(test_mark_lapses_without_its_queue);
	TEST(test_wrap);
	TEST(test_full_table_counts);
	TEST(test_no_memory);
	return unit_summary("marks_test");
}
