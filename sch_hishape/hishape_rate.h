/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A range's rate limit: a token bucket of "burst" bytes refilled at "rate"
 * bytes per second, kept as one timestamp (the generic cell rate
 * algorithm of ATM, RFC 2697's bucket in its virtual-time form).
 *
 * tat is the time at which the bucket will be full again.  The bucket
 * holds burst - (tat - now) * rate bytes when tat > now, burst otherwise,
 * so a packet of len bytes fits when tat - now <= (burst - len) / rate,
 * and sending it moves tat to max(tat, now) + len / rate.  Against the
 * paper's counter reset by a periodic timer, this needs no timer over the
 * ranges (100,000 of them, mostly idle), refills continuously rather than
 * in steps that let a range send twice its rate across a reset, and tells
 * the qdisc's watchdog exactly when a queued packet may leave.
 *
 * Time is in nanoseconds.  The cost of a byte, 1e9 / rate ns, is held in
 * fixed point (mult >> shift), computed once when the table is loaded, so
 * the data path multiplies and shifts and never divides.
 */
#ifndef _HISHAPE_RATE_H
#define _HISHAPE_RATE_H

#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include <linux/types.h>

/* The largest bucket (bytes): burst shares a word with the cost's shift. */
#define HISHAPE_BURST_MAX	((1U << 27) - 1)
/* Rates in bytes per second: 1 B/s (8 bit/s) up to 100 Gbit/s. */
#define HISHAPE_RATE_MIN	1ULL
#define HISHAPE_RATE_MAX	12500000000ULL

struct hishape_rate {
	u64	tat;		/* theoretical arrival time: bucket full again */
	u32	mult;		/* ns per byte, << shift */
	u32	burst : 27,	/* bucket depth, bytes */
		shift : 5;
};

/*
 * mult and shift for a rate: the largest shift (most precision) for which
 * (1e9 << shift) / rate still fits in 32 bits: 32 bits of precision up
 * to 2^31 * 1e9 / 2^32 B/s (4 Gbit/s); above, shift stays at its largest,
 * 31, and at 100 Gbit/s mult is about 1.7e8, 27 bits.  Rounded to
 * nearest, mult is within 1/2 of (1e9 << shift) / rate, so a byte's cost
 * is off by 2^-(shift + 1) ns at most: up to 4 Gbit/s, where mult is at
 * least 2^31, that is 2^-32 of the cost; above, 2^-32 ns, which is
 * rate / (2^32 * 1e9 B/s) of the cost (2.9e-9 at 100 Gbit/s).  A whole
 * number of bytes per second up to 11 Gbit/s reads back exactly.
 */
static inline void hishape_rate_init(struct hishape_rate *r, u64 rate,
				     u32 burst)
{
	u32 shift = 31;
	u64 mult;

	rate = clamp_t(u64, rate, HISHAPE_RATE_MIN, HISHAPE_RATE_MAX);
	for (;;) {
		mult = div64_u64((NSEC_PER_SEC << shift) + rate / 2, rate);
		if (mult <= U32_MAX || !shift)
			break;
		shift--;
	}
	r->tat = 0;
	r->mult = mult;
	r->shift = shift;
	r->burst = min_t(u32, burst, HISHAPE_BURST_MAX);
}

/* The rate these hold, bytes per second, rounded to nearest (for dumps). */
static inline u64 hishape_rate_bps(const struct hishape_rate *r)
{
	return div64_u64((NSEC_PER_SEC << r->shift) + r->mult / 2, r->mult);
}

/* Time to send len bytes at the range's rate, ns.  len < 2^32 and
 * mult < 2^32: the product fits in 64 bits.
 */
static inline u64 hishape_rate_ns(const struct hishape_rate *r, u32 len)
{
	return ((u64)len * r->mult) >> r->shift;
}

/*
 * The earliest time a packet of len bytes fits in the bucket.  A packet
 * larger than the bucket waits for a full one (tat <= now) rather than
 * forever: the range is then paced at its rate, with no burst.
 */
static inline u64 hishape_rate_eligible(const struct hishape_rate *r, u32 len)
{
	u64 slack = len < r->burst ? hishape_rate_ns(r, r->burst - len) : 0;

	return r->tat > slack ? r->tat - slack : 0;
}

static inline bool hishape_rate_fits(const struct hishape_rate *r, u64 now,
				     u32 len)
{
	return hishape_rate_eligible(r, len) <= now;
}

/* Take len bytes from the bucket: the caller checked they fit.  tat is
 * written once: a reload reads it beside the data path
 * (hishape_table_carry()).
 */
static inline void hishape_rate_charge(struct hishape_rate *r, u64 now,
				       u32 len)
{
	WRITE_ONCE(r->tat, max(r->tat, now) + hishape_rate_ns(r, len));
}

#endif /* _HISHAPE_RATE_H */
