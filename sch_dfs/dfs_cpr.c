// SPDX-License-Identifier: GPL-2.0
/*
 * CPR: a flow's congestion participation rate and the adaptive threshold
 * it is judged by (dfs_cpr.h says how, and why lazily).
 */
#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "dfs_cpr.h"

static bool dfs_cpr_bit(const u64 *ring, u32 period)
{
	u32 i = period % DFS_CPR_RING;

	return ring[i / 64] >> (i % 64) & 1;
}

static void dfs_cpr_set_bit(u64 *ring, u32 period)
{
	u32 i = period % DFS_CPR_RING;

	ring[i / 64] |= 1ULL << (i % 64);
}

/* Forget the periods first..first+n-1 of @ring: they begin now, calm so
 * far.  Returns how many of the slots were set.
 */
static u32 dfs_cpr_clear(u64 *ring, u32 first, u64 n)
{
	u32 i = first % DFS_CPR_RING, set = 0;

	if (n >= DFS_CPR_RING) {
		for (i = 0; i < DFS_CPR_WORDS; i++)
			set += hweight64(ring[i]);
		memset(ring, 0, DFS_CPR_WORDS * sizeof(*ring));
		return set;
	}
	while (n) {
		u32 bits = min_t(u64, n, 64 - i % 64);
		u64 mask = (bits == 64 ? ~0ULL : (1ULL << bits) - 1) << (i % 64);

		set += hweight64(ring[i / 64] & mask);
		ring[i / 64] &= ~mask;
		n -= bits;
		i = (i + bits) % DFS_CPR_RING;
	}
	return set;
}

/*
 * The defaults (dfs_cpr.h says why each): adaptive tau as Kieu et al.'s
 * but for its floor, surges as the signal, the period from the link's
 * rate.  tau, the fixed one, is the paper's 0.6 (Fig. 7).
 */
void dfs_cpr_params_init(struct dfs_cpr_params *p)
{
	*p = (struct dfs_cpr_params){
		.period_ns	= 0,
		.tau		= TC_DFS_ONE * 3 / 5,
		.alpha		= TC_DFS_ONE * 6 / 100,
		.beta		= TC_DFS_ONE * 15 / 1000,
		.tau_min	= TC_DFS_ONE * 3 / 5,
		.tau_max	= TC_DFS_ONE * 4 / 5,
		.min_packets	= 64,
		.signal		= TC_DFS_CPR_SIGNAL_SURGES,
		.adaptive	= true,
	};
}

/*
 * The period for a link of @rate bytes/s: DFS_CPR_PERIOD_FRAMES
 * full-sized frames at that rate, rounded up to a whole millisecond,
 * within DFS_CPR_PERIOD_MIN_NS and DFS_CPR_PERIOD_MAX_NS (the shortest
 * while the rate is not known).
 */
u64 dfs_cpr_derive_period(u64 rate)
{
	u64 ms;

	if (!rate)
		return DFS_CPR_PERIOD_MIN_NS;
	ms = div64_u64((u64)DFS_CPR_PERIOD_FRAMES * DFS_CPR_FRAME *
		       MSEC_PER_SEC + rate - 1, rate);
	return clamp_t(u64, ms * NSEC_PER_MSEC, DFS_CPR_PERIOD_MIN_NS,
		       DFS_CPR_PERIOD_MAX_NS);
}

void dfs_cpr_init(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		  u64 now)
{
	memset(c, 0, sizeof(*c));
	c->cur_start = now;
	c->period_ns = p->period_ns ? p->period_ns : dfs_cpr_derive_period(0);
	c->period_next = c->period_ns;
	c->tau = p->adaptive ? p->tau_max : p->tau;
	c->surge_bytes = U64_MAX;
}

/*
 * A period is a surge when more than DFS_CPR_SURGE_HALVES / 2 periods'
 * worth of the link's rate come in it (and, as the signal, more than
 * DFS_CPR_SURGE_MIN_BYTES).  Unknown (0), nothing is a surge.
 */
static void dfs_cpr_set_surge(struct dfs_cpr_clock *c,
			      const struct dfs_cpr_params *p)
{
	u64 bytes;

	if (!c->link_rate) {
		c->surge_bytes = U64_MAX;
		return;
	}
	bytes = mul_u64_u64_div_u64(c->link_rate,
				    c->period_ns * DFS_CPR_SURGE_HALVES,
				    2 * NSEC_PER_SEC);
	if (p->signal == TC_DFS_CPR_SIGNAL_SURGES)
		bytes = max_t(u64, bytes, DFS_CPR_SURGE_MIN_BYTES);
	c->surge_bytes = bytes;
}

/* Whether @rate is a quarter or more off @from (0: nothing yet). */
static bool dfs_cpr_rate_moved(u64 from, u64 rate)
{
	return !from || rate * 4 <= from * 3 || rate * 4 >= from * 5;
}

/*
 * The link sends @rate bytes/s: the surge threshold follows, and a
 * derived period (cpr_period auto) from the next period on, if the rate
 * moved a quarter or more from the one it was derived from: a measured
 * rate jitters, and a period that changed with it would judge a TCP
 * flow's packets against a moving scale.  An unknown rate keeps the
 * period.  One division when the rate changes, another when the period
 * does.
 */
void dfs_cpr_set_link(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		      u64 rate)
{
	c->link_rate = rate;
	if (!p->period_ns && rate && dfs_cpr_rate_moved(c->period_rate, rate)) {
		c->period_rate = rate;
		c->period_next = dfs_cpr_derive_period(rate);
	}
	dfs_cpr_set_surge(c, p);
}

/*
 * New parameters @p, where @old were: a fixed tau is taken as it is, an
 * adaptive one kept within its new bounds, or started at tau_max if it
 * was fixed.  The clock and the flows' counts go on; the period in
 * progress (closed by @old, dfs_cpr_tick()) takes the new length, the
 * operator's or derived from the link's rate.
 */
void dfs_cpr_retune(struct dfs_cpr_clock *c, const struct dfs_cpr_params *old,
		    const struct dfs_cpr_params *p)
{
	if (!p->adaptive)
		c->tau = p->tau;
	else if (!old->adaptive)
		c->tau = p->tau_max;
	else
		c->tau = clamp_t(u32, c->tau, p->tau_min, p->tau_max);
	if (p->period_ns) {
		c->period_next = p->period_ns;
	} else if (old->period_ns) {
		c->period_rate = 0;
		c->period_next = dfs_cpr_derive_period(0);
	}
	dfs_cpr_set_link(c, p, c->link_rate);
	c->period_ns = c->period_next;
	dfs_cpr_set_surge(c, p);
}

static u32 dfs_cpr_tau_step(u32 tau, const struct dfs_cpr_params *p,
			    bool congested, u64 calm)
{
	if (congested)
		tau = tau > p->tau_min + p->alpha ? tau - p->alpha : p->tau_min;
	else
		calm++;
	/* calm periods, however many: each climbs beta, up to tau_max */
	if (calm && p->beta) {
		u64 up = min_t(u64, calm, TC_DFS_ONE) * p->beta;

		tau = min_t(u64, (u64)tau + up, p->tau_max);
	}
	return max(tau, p->tau_min);
}

/*
 * Close the periods that ended by now (dfs_cpr_tick() asks): the current
 * one, a surge or not, congested or not (by the signal), and the ones
 * after it in which nothing happened (calm).  One division, and only when
 * a period has ended.
 */
void dfs_cpr_advance(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		     u64 now)
{
	bool congested, surge;
	u64 k;

	k = div64_u64(now - c->cur_start, c->period_ns);
	if (c->arrived) {
		dfs_cpr_set_bit(c->came, c->cur);
		c->busy++;
	}
	surge = c->arrived > c->surge_bytes;
	if (surge) {
		dfs_cpr_set_bit(c->surge, c->cur);
		c->surges++;
	}
	/* the ring holds the signal's verdict: by surges, drops are undone
	 * and what came less the top flow's bytes decides (top may pass
	 * arrived: its packets' lengths vary, or Algorithm 3 dropped some)
	 */
	if (p->signal == TC_DFS_CPR_SIGNAL_SURGES) {
		dfs_cpr_clear(c->ring, c->cur, 1);
		if (c->arrived - min(c->top, c->arrived) > c->surge_bytes)
			dfs_cpr_set_bit(c->ring, c->cur);
	}
	c->arrived = 0;
	c->top = 0;
	congested = dfs_cpr_bit(c->ring, c->cur);
	c->periods += k;
	c->congested += congested;
	c->recent += congested;
	if (p->adaptive)
		c->tau = dfs_cpr_tau_step(c->tau, p, congested, k - 1);
	else
		c->tau = p->tau;
	c->recent -= dfs_cpr_clear(c->ring, c->cur + 1, k);
	c->busy -= dfs_cpr_clear(c->came, c->cur + 1, k);
	dfs_cpr_clear(c->surge, c->cur + 1, k);
	c->cur += (u32)k;
	c->cur_start += k * c->period_ns;
	/* a new derived length starts with a period (dfs_cpr_set_link()) */
	if (unlikely(c->period_next != c->period_ns)) {
		c->period_ns = c->period_next;
		dfs_cpr_set_surge(c, p);
	}
}

/* The qdisc dropped or marked a packet in the current period (undone at
 * its end if the signal is surges).
 */
void dfs_cpr_congest(struct dfs_cpr_clock *c)
{
	dfs_cpr_set_bit(c->ring, c->cur);
}

/* Whether a period that has ended was congested; false if it is too old
 * for the ring to tell, or has not ended.
 */
static bool dfs_cpr_ended_bit(const struct dfs_cpr_clock *c, const u64 *ring,
			      u32 period)
{
	u32 age = c->cur - period;

	return age && age < DFS_CPR_RING && dfs_cpr_bit(ring, period);
}

bool dfs_cpr_was_congested(const struct dfs_cpr_clock *c, u32 period)
{
	return dfs_cpr_ended_bit(c, c->ring, period);
}

/* The same for a surge (dfs_cpr_set_link()). */
bool dfs_cpr_was_surge(const struct dfs_cpr_clock *c, u32 period)
{
	return dfs_cpr_ended_bit(c, c->surge, period);
}

/* Count the packets of the flow's last period, halving both counts
 * first if the packets would pass DFS_CPR_PACKETS_MAX: once is enough,
 * as a period holds at most DFS_CPR_PENDING_MAX of them.
 */
static void dfs_cpr_settle(struct dfs_cpr_flow *f, bool congested)
{
	if (f->packets + f->pending > DFS_CPR_PACKETS_MAX) {
		f->packets >>= 1;
		f->congested >>= 1;
	}
	f->packets += f->pending;
	if (congested)
		f->congested += f->pending;
}

/* The first packet of flow f in a new period: the packets of its last
 * period count as congested if that period was, or if the flow was held
 * in it and it was a surge (dfs_cpr.h).
 */
void dfs_cpr_new_period(const struct dfs_cpr_clock *c,
			struct dfs_cpr_flow *f)
{
	if (f->pending)
		dfs_cpr_settle(f, dfs_cpr_was_congested(c, f->period) ||
			       (f->held && dfs_cpr_was_surge(c, f->period)));
	f->period = c->cur;
	f->pending = 0;
	f->held = 0;
}

/*
 * Over tau (less DFS_CPR_RELEASE_MARGIN if @held), with enough packets
 * counted to be judged; by surges, also with under half the link's calm
 * share of its busy periods in calm ones (dfs_cpr.h).
 */
bool dfs_cpr_suspect(const struct dfs_cpr_clock *c,
		     const struct dfs_cpr_params *p,
		     const struct dfs_cpr_flow *f, bool held)
{
	u32 tau = c->tau, calm;

	if (held)
		tau = tau > DFS_CPR_RELEASE_MARGIN ?
		      tau - DFS_CPR_RELEASE_MARGIN : 0;
	if (f->packets < p->min_packets ||
	    (u64)f->congested * TC_DFS_ONE <= (u64)tau * f->packets)
		return false;
	if (p->signal != TC_DFS_CPR_SIGNAL_SURGES)
		return true;
	/* by surges, a congested period is busy: recent <= busy */
	calm = c->busy - min(c->recent, c->busy);
	return (u64)(f->packets - f->congested) * DFS_CPR_CALM_RATIO *
	       c->busy < (u64)calm * f->packets;
}
