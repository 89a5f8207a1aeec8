// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of sch_hishape's cores, in two parts; an input's
 * first byte picks one:
 *
 * - A table of IPv4 and IPv6 ranges built from the input (bounds, gaps,
 *   lengths up to the whole space, rates and bursts in and out of range,
 *   ranges out of order): every add must be refused exactly when a range
 *   is reversed, overlaps or follows no previous end, or its rate or
 *   burst is out of range, and a refusal must leave the table as it was.
 *   Then lookups (at the bounds of ranges, one past them, and anywhere)
 *   against a linear search.
 * - One range's token bucket driven by packets up to 1 MB long, at any
 *   rate and burst, with gaps up to days: each packet leaves at the
 *   earliest time it fits, and that time is checked to be the earliest
 *   (a nanosecond before, it does not fit); after each, the bucket never
 *   owes more than its depth (tat - now <= the cost of max(burst, len)),
 *   computed with 128-bit integers.
 */
#include "hishape_table.h"
#include "fuzz_input.h"

typedef unsigned __int128 u128;

#define NMAX	64
/*
 * Packets up to 1 MB (a GSO packet is at most 512 KB).  Beyond, at 1 B/s
 * a few packets would take the clock past 2^64 ns: the qdisc's clock is
 * the uptime, and tat stays within a packet's cost of it.
 */
#define LEN_MAX	(1U << 20)

static u128 to128(const struct hishape_in6 *a)
{
	return ((u128)a->hi << 64) | a->lo;
}

static struct hishape_in6 from128(u128 v)
{
	struct hishape_in6 a = { .hi = v >> 64, .lo = (u64)v };

	return a;
}

/* An address near a range's bound, or anywhere: a tenth of the time. */
static u128 pick(struct input *in, const u128 *s, const u128 *e, u32 n,
		 u128 space)
{
	u32 k = get(in, 1);
	u128 base, d = get(in, 1) % 3;

	if (!n || k % 10 == 9)
		return (((u128)get(in, 8) << 64) | get(in, 8)) & space;
	base = k & 1 ? e[k % n] : s[k % n];
	/* base - 1, base, base + 1, wrapping within the family's space */
	return (base + d - 1) & space;
}

/*
 * A reload of @old (complete as far as it got): each range kept, kept at
 * another rate, narrowed or dropped, as the input says.  The map must
 * name, for each old range, the new one of the same bounds, and only a
 * range of the same rate may carry its bucket.
 */
static void fuzz_carry(struct input *in, struct hishape_table *old, u32 n4,
		       u32 n6)
{
	enum { KEEP, BURST, NARROW, DROP };
	u32 map[2 * NMAX], want[2 * NMAX], i, m4 = 0, m6 = 0;
	struct hishape_table *t;
	u8 how[2 * NMAX];

	for (i = 0; i < n4 + n6; i++) {
		bool one = i < n4 ? old->start4[i] == old->end4[i] :
			   !memcmp(&old->start6[i - n4], &old->end6[i - n4],
				   sizeof(struct hishape_in6));

		how[i] = get(in, 1) % 4;
		if (how[i] == NARROW && one)
			how[i] = DROP;
		hishape_range(old, i)->rate.tat = i + 1;
		if (how[i] != DROP)
			i < n4 ? m4++ : m6++;
	}
	t = hishape_table_alloc(m4, m6, GFP_KERNEL);
	FUZZ_ASSERT(t);
	for (i = 0; i < n4 + n6; i++) {
		const struct hishape_range *r = hishape_range(old, i);
		struct hishape_range *nr;
		u32 j;

		want[i] = HISHAPE_NONE;
		if (how[i] == DROP)
			continue;
		if (i < n4) {
			u32 e = old->end4[i] - (how[i] == NARROW);

			j = t->n4;
			FUZZ_ASSERT(!hishape_table_add4(t, old->start4[i], e,
							1000, 0));
			nr = &t->range4[j];
		} else {
			struct hishape_in6 e = old->end6[i - n4];

			if (how[i] == NARROW && !e.lo--)
				e.hi--;
			j = m4 + t->n6;
			FUZZ_ASSERT(!hishape_table_add6(t, &old->start6[i - n4],
							&e, 1000, 0));
			nr = &t->range6[t->n6 - 1];
		}
		/* the old rate exactly, or its burst one byte off */
		nr->rate = r->rate;
		nr->rate.tat = 0;
		if (how[i] == BURST)
			nr->rate.burst = r->rate.burst ? r->rate.burst - 1 : 1;
		if (how[i] != NARROW)
			want[i] = j;
	}
	FUZZ_ASSERT(hishape_table_complete(t));
	hishape_table_carry(old, t, map);
	for (i = 0; i < n4 + n6; i++) {
		FUZZ_ASSERT(map[i] == want[i]);
		if (want[i] != HISHAPE_NONE)
			FUZZ_ASSERT(hishape_range(t, want[i])->rate.tat ==
				    (how[i] == KEEP ? i + 1 : 0));
	}
	hishape_table_free(t);
}

static void fuzz_table(struct input *in)
{
	u32 max4 = get(in, 1) % (NMAX + 1), max6 = get(in, 1) % (NMAX + 1);
	struct hishape_table *t = hishape_table_alloc(max4, max6, GFP_KERNEL);
	u128 s4[NMAX], e4[NMAX], s6[NMAX], e6[NMAX];
	u32 n4 = 0, n6 = 0, i, tries;
	u128 next4 = 0, next6 = 0;
	bool done4 = false, done6 = false;

	FUZZ_ASSERT(t);
	for (tries = 0; tries < 3 * NMAX; tries++) {
		bool v6 = get(in, 1) & 1;
		u32 op = get(in, 1);
		u64 rate = op & 1 ? get(in, 8) : range(in, 4, 1, 1U << 31);
		u32 burst = op & 2 ? get(in, 4) : get(in, 2);
		u128 space = v6 ? ~(u128)0 : U32_MAX;
		u128 start, end, len, *next = v6 ? &next6 : &next4;
		bool done = v6 ? done6 : done4;
		u32 n = v6 ? n6 : n4, max = v6 ? max6 : max4;
		enum hishape_add_err want, got;

		/* mostly after the last end, sometimes anywhere */
		start = op & 4 ? (((u128)get(in, 8) << 64) | get(in, 8)) & space :
			*next + get(in, 1) % 4;
		len = op & 8 ? (((u128)get(in, 8) << 64) | get(in, 8)) & space :
		      get(in, 1) % 16;
		start &= space;
		end = start + len > space || start + len < start ? space :
		      start + len;
		if (op & 16)		/* reversed */
			end = start ? start - 1 : 0;

		if (n == max)
			want = HISHAPE_ADD_FULL;
		else if (start > end)
			want = HISHAPE_ADD_REVERSED;
		else if (n && (done || start < *next))
			want = HISHAPE_ADD_UNSORTED;
		else if (rate < HISHAPE_RATE_MIN || rate > HISHAPE_RATE_MAX)
			want = HISHAPE_ADD_RATE;
		else if (burst > HISHAPE_BURST_MAX)
			want = HISHAPE_ADD_BURST;
		else
			want = HISHAPE_ADD_OK;

		if (v6) {
			struct hishape_in6 a = from128(start), b = from128(end);

			got = hishape_table_add6(t, &a, &b, rate, burst);
		} else {
			got = hishape_table_add4(t, start, end, rate, burst);
		}
		FUZZ_ASSERT(got == want);
		if (got != HISHAPE_ADD_OK)
			continue;
		if (v6) {
			s6[n6] = start;
			e6[n6++] = end;
			done6 = end == space;
		} else {
			s4[n4] = start;
			e4[n4++] = end;
			done4 = end == space;
		}
		*next = end + 1;
	}
	FUZZ_ASSERT(t->n4 == n4 && t->n6 == n6);
	for (i = 0; i < n4; i++)
		FUZZ_ASSERT(t->start4[i] == s4[i] && t->end4[i] == e4[i] &&
			    hishape_range(t, i)->slot == HISHAPE_NONE);
	for (i = 0; i < n6; i++)
		FUZZ_ASSERT(to128(&t->start6[i]) == s6[i] &&
			    to128(&t->end6[i]) == e6[i]);

	for (i = 0; i < 64; i++) {
		u32 a4 = pick(in, s4, e4, n4, U32_MAX), want4 = HISHAPE_NONE, k;
		u128 a6 = pick(in, s6, e6, n6, ~(u128)0);
		struct hishape_in6 x = from128(a6);
		u32 want6 = HISHAPE_NONE;

		for (k = 0; k < n4; k++)
			if (s4[k] <= a4 && a4 <= e4[k])
				want4 = k;
		for (k = 0; k < n6; k++)
			if (s6[k] <= a6 && a6 <= e6[k])
				want6 = n4 + k;
		FUZZ_ASSERT(hishape_lookup4(t, a4) == want4);
		FUZZ_ASSERT(hishape_lookup6(t, &x) == want6);
	}
	fuzz_carry(in, t, n4, n6);
	hishape_table_free(t);
}

static void fuzz_rate(struct input *in)
{
	struct hishape_rate r;
	u64 rate = range(in, 8, HISHAPE_RATE_MIN, HISHAPE_RATE_MAX);
	u32 burst = get(in, 4) % (HISHAPE_BURST_MAX + 1);
	u64 now = get(in, 5);	/* up to 12 days in */
	u32 steps = get(in, 1), i;

	hishape_rate_init(&r, rate, burst);
	for (i = 0; i < steps; i++) {
		u32 op = get(in, 1);
		u32 len = 1 + (op & 1 ? get(in, 3) % LEN_MAX : get(in, 2) % 9000);
		u64 gap = op & 2 ? get(in, 6) : get(in, 3);
		u64 t, e, tat0 = r.tat;
		u128 owed, depth;

		/* about the depth of the bucket, where the slack changes sign */
		if ((op & 12) == 12)
			len = max_t(s64, 1, (s64)r.burst + (s64)(get(in, 1) % 3) - 1);
		now += gap;
		e = hishape_rate_eligible(&r, len);
		t = max(now, e);
		FUZZ_ASSERT(hishape_rate_fits(&r, t, len));
		/* the earliest: a nanosecond before it, the packet waits */
		if (e && e > now)
			FUZZ_ASSERT(!hishape_rate_fits(&r, e - 1, len));
		hishape_rate_charge(&r, t, len);
		now = t;
		FUZZ_ASSERT(r.tat >= tat0 && r.tat >= now);
		owed = r.tat - now;
		depth = max(hishape_rate_ns(&r, r.burst) + 1, hishape_rate_ns(&r, len));
		FUZZ_ASSERT(owed <= depth);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { .p = data, .left = size };

	/* one part per input: each gets the whole input, not the leftovers */
	if (get(&in, 1) & 1)
		fuzz_table(&in);
	else
		fuzz_rate(&in);
	return 0;
}
