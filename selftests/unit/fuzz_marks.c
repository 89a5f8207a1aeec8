// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of dfs_mq's mark table (dfs_marks.c), against a
 * reference that keeps, for each (queue, key), whether its flow is
 * flagged and when the queue last saw the key:
 *
 *   - a (queue, key) holds a mark exactly when its flow is flagged and
 *     the table had room and memory when it became so; never two;
 *   - a lookup refuses a key on a queue exactly when another queue's mark
 *     of it was renewed (made, or the key seen on that queue) within the
 *     hold and the asking queue has none of its own, and renews that;
 *   - clearing a queue removes its marks and no other's;
 *   - the count is the marks in the table, and never over DFS_MARKS_MAX
 *     (made small by the few keys and queues here, so the test of the
 *     full table is marks_test's);
 *   - jiffies wrap (the clock starts just before), no leak (ASan), no
 *     overflow (UBSan).
 */
#include "dfs_marks.h"
#include "fuzz_input.h"

#define QUEUES	4
#define KEYS	6
#define HOLD	8

struct ref {
	bool		flagged;	/* the queue's flow of the key */
	bool		marked;		/* and its mark was made */
	unsigned long	seen;
};

static struct flowkey key_of(u32 n)
{
	struct flowkey k = { .family = AF_INET6 };

	k.w[3] = n;
	return k;
}

static u32 count(struct dfs_marks *t, u16 queue, const struct flowkey *key)
{
	struct dfs_mark *m;
	u32 i, n = 0;

	for (i = 0; i < DFS_MARKS_BUCKETS; i++)
		hlist_for_each_entry(m, &t->hash[i], node)
			n += m->queue == queue && flowkey_eq(&m->key, key);
	return n;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct ref ref[QUEUES][KEYS];
	struct input in = { data, size };
	unsigned long now = (unsigned long)-50;
	static struct dfs_marks t;
	u32 q, k, marks;

	memset(ref, 0, sizeof(ref));
	dfs_marks_init(&t);
	while (in.left) {
		u32 op = get(&in, 1);
		struct flowkey key;

		q = range(&in, 1, 0, QUEUES - 1);
		k = range(&in, 1, 0, KEYS - 1);
		key = key_of(k);
		now += get(&in, 1) % (2 * HOLD);
		switch (op % 4) {
		case 0: {	/* the flow's flags change */
			static const u32 f[] = {
				0, DFS_F_CPR, DFS_F_MALICIOUS,
				DFS_F_CPR | DFS_F_MALICIOUS,
			};
			u32 old = ref[q][k].flagged ? f[1 + get(&in, 1) % 3] :
				  f[0];
			u32 new = f[get(&in, 1) % 4];
			bool fail = get(&in, 1) == 0xff;
			int err;

			dfs_user_alloc_fail_every = fail;
			err = dfs_marks_flags(&t, q, &key, old,
					      new | DFS_F_LOSS, now);
			dfs_user_alloc_fail_every = 0;
			/* told exactly when a mark was wanted and not made */
			FUZZ_ASSERT(err == (!old && new && fail ? -ENOSPC : 0));
			if (!old && new) {
				ref[q][k].flagged = true;
				ref[q][k].marked = !fail;
				ref[q][k].seen = now;
			} else if (old && !new) {
				ref[q][k].flagged = false;
				ref[q][k].marked = false;
			}
			break;
		}
		case 1: {	/* a packet of the key on queue q */
			bool want = false;
			u32 o;

			for (o = 0; o < QUEUES; o++)
				if (o != q && ref[o][k].marked &&
				    time_before(now, ref[o][k].seen + HOLD))
					want = true;
			/* its own mark: its own verdict decides */
			if (ref[q][k].marked)
				want = false;
			FUZZ_ASSERT(dfs_marks_refused(&t, q, &key, now, HOLD) ==
				    want);
			if (ref[q][k].marked)
				ref[q][k].seen = now;
			break;
		}
		case 2:		/* the queue is reset */
			dfs_marks_clear_queue(&t, q);
			for (k = 0; k < KEYS; k++)
				ref[q][k].flagged = ref[q][k].marked = false;
			break;
		case 3:		/* the queue forgets the key (pruned) */
			dfs_marks_clear(&t, q, &key);
			ref[q][k].flagged = ref[q][k].marked = false;
			break;
		}
		marks = 0;
		for (q = 0; q < QUEUES; q++)
			for (k = 0; k < KEYS; k++) {
				struct flowkey kk = key_of(k);

				FUZZ_ASSERT(count(&t, q, &kk) ==
					    ref[q][k].marked);
				marks += ref[q][k].marked;
			}
		FUZZ_ASSERT(t.count == marks);
	}
	dfs_marks_destroy(&t);
	return 0;
}
