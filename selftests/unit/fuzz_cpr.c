// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of DFS's CPR (dfs_cpr.c), against a reference that
 * walks every period one by one and remembers every period's congestion:
 *
 *   - the clock closes the same periods, counts the same congested ones
 *     and moves tau the same way as a loop over every period would, over
 *     gaps of any length, in adaptive and fixed mode; tau never leaves
 *     [tau_min, tau_max];
 *   - the ring tells a period's congestion exactly as the full history
 *     does while the period is younger than DFS_CPR_RING, and says calm
 *     for older ones;
 *   - a period is a surge exactly when the bytes that came in it are
 *     over 1.5 periods of the link's rate, known (0: never), and with
 *     cpr_signal surges over DFS_CPR_SURGE_MIN_BYTES, kept across a
 *     change of the parameters;
 *   - with cpr_signal surges, a period is congested exactly when the
 *     bytes that came in it, held ones too, less the most one flow
 *     brought (its packets in the period, at most 127, times the length
 *     of its packet then; no more than came), make a surge, whatever was
 *     dropped;
 *   - each flow's counts are the reference's, packet by packet counted in
 *     the period they came in (at most 127 a period), as congested if the
 *     period was, or was a surge while the flow was held in it; both
 *     halved when the packets would pass 4095; its verdict is the
 *     reference's ratio against tau (0.1 less for a held flow), and the
 *     ratio stays within [0, 1];
 *   - the clock's count of congested periods among the ring's ended ones
 *     is the history's over the last DFS_CPR_RING - 1 periods;
 *   - by surges, a flow over tau is a suspect only with under half the
 *     link's share of calm periods among its busy ones (in which bytes
 *     came) among its packets in calm ones;
 *   - a flow judged afresh (dfs_cpr_forget()) counts from nothing, in the
 *     period it was in;
 *   - the period a flow was last seen is the period of its last packet;
 *   - new parameters (tc change) keep the clock and the flows; adaptive tau
 *     within its new bounds, or at tau_max when it was fixed;
 *   - with cpr_period auto (0), the period is the fewest whole ms, from 1
 *     to 1000, in which the link sends eight full-sized frames, at the
 *     rate it was last derived from: the first known one, then one a
 *     quarter or more off it; it takes effect at the end of the period
 *     in progress (at once on a change of the parameters), 1 ms before
 *     a rate is known, and a period set is never moved by the rate;
 *   - no overflow (UBSan), no out-of-bounds access (ASan).
 *
 * Parameters are decoded within the ranges the netlink policy will allow.
 */
#include "dfs_cpr.h"
#include "fuzz_input.h"

#define FLOWS		4
#define MAX_PERIODS	(1U << 16)	/* the history the reference keeps */

struct ref_flow {
	u32	period;
	u32	pending;
	u32	packets;
	u32	congested;
	bool	held;
};

static bool hist[MAX_PERIODS];
static bool surge_hist[MAX_PERIODS];
static bool came_hist[MAX_PERIODS];

static u64 ref_surge_bytes(u64 rate, u64 len, const struct dfs_cpr_params *p)
{
	u64 b;

	if (!rate)
		return U64_MAX;
	b = (unsigned __int128)rate * len * 3 / (2 * NSEC_PER_SEC);
	if (p->signal == TC_DFS_CPR_SIGNAL_SURGES && b < 8 * 1514)
		b = 8 * 1514;
	return b;
}

/* The reference's packet: the last period's counted, halving the counts
 * first if the packets would pass 4095.
 */
static void ref_packet(struct ref_flow *r, u32 cur)
{
	if (r->period != cur) {
		u32 age = cur - r->period;
		bool cong = age < DFS_CPR_RING &&
			    (hist[r->period] ||
			     (r->held && surge_hist[r->period]));

		if (r->packets + r->pending > 4095) {
			r->packets /= 2;
			r->congested /= 2;
		}
		r->packets += r->pending;
		if (cong)
			r->congested += r->pending;
		r->period = cur;
		r->pending = 0;
		r->held = false;
	}
	if (r->pending < 127)
		r->pending++;
}

/* The period derived from @rate: the fewest whole ms that carry eight
 * full-sized frames, 1 to 1000.
 */
static u64 ref_period(u64 rate)
{
	u64 ms;

	if (!rate)
		return NSEC_PER_MSEC;
	ms = 8 * 1514 * 1000 / rate;
	if ((unsigned __int128)ms * rate < 8 * 1514 * 1000)
		ms++;
	ms = ms < 1 ? 1 : ms > 1000 ? 1000 : ms;
	return ms * NSEC_PER_MSEC;
}

/* A derived period follows a rate a quarter or more off its own. */
static void ref_link(u64 *next, u64 *prate, u64 rate,
		     const struct dfs_cpr_params *p)
{
	if (p->period_ns || !rate)
		return;
	if (*prate && (unsigned __int128)rate * 4 > (unsigned __int128)*prate * 3 &&
	    (unsigned __int128)rate * 4 < (unsigned __int128)*prate * 5)
		return;
	*prate = rate;
	*next = ref_period(rate);
}

static void decode_params(struct input *in, struct dfs_cpr_params *p)
{
	u32 mode;

	p->period_ns = range(in, 3, 1000, 10000000);
	p->tau_min = range(in, 3, 0, TC_DFS_ONE);
	p->tau_max = range(in, 3, p->tau_min, TC_DFS_ONE);
	p->tau = range(in, 3, 0, TC_DFS_ONE);
	p->alpha = range(in, 3, 0, TC_DFS_ONE);
	p->beta = range(in, 3, 0, TC_DFS_ONE);
	p->min_packets = range(in, 2, 1, 2048);
	mode = get(in, 1);
	p->adaptive = mode & 1;
	p->signal = mode >> 1 & 1;
	if (mode & 4)
		p->period_ns = 0;	/* auto */
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct ref_flow rf[FLOWS] = {};
	struct dfs_cpr_flow f[FLOWS] = {};
	struct dfs_cpr_params p = {};
	struct dfs_cpr_clock c;
	u64 now, start, periods = 0, congested = 0, surges = 0;
	u64 rate = 0, arrived = 0, top = 0, len, next, prate = 0;
	u32 cur = 0, tau, i, j, window, recent, busy, calm;
	int ops = 0;

	decode_params(&in, &p);
	now = start = get(&in, 6);
	memset(hist, 0, sizeof(hist));
	memset(surge_hist, 0, sizeof(surge_hist));
	memset(came_hist, 0, sizeof(came_hist));

	dfs_cpr_init(&c, &p, now);
	len = next = p.period_ns ? p.period_ns : NSEC_PER_MSEC;
	FUZZ_ASSERT(c.period_ns == len && c.period_next == next);
	for (j = 0; j < FLOWS; j++)
		dfs_cpr_flow_init(&c, &f[j]);
	tau = p.adaptive ? p.tau_max : p.tau;
	FUZZ_ASSERT(c.tau == tau);

	while (in.left && ops++ < 4096) {
		u32 op = get(&in, 1);

		if (op < 96) {		/* time passes: within, or k periods on */
			u64 k, d, closed;

			d = op < 48 ? get(&in, 1) * len / 256 :
			    get(&in, 2) * len / 16;
			if (cur + (d + now - start) / len >= MAX_PERIODS - 1)
				break;
			now += d;
			dfs_cpr_tick(&c, &p, now);
			/* the reference, one period at a time, then the
			 * derived length from the next one on
			 */
			k = (now - start) / len;
			closed = k;
			for (; k; k--) {
				bool cong;

				came_hist[cur] = arrived > 0;
				if (arrived > ref_surge_bytes(rate, len, &p)) {
					surge_hist[cur] = true;
					surges++;
				}
				if (p.signal == TC_DFS_CPR_SIGNAL_SURGES)
					hist[cur] = arrived -
						    (top < arrived ? top : arrived) >
						    ref_surge_bytes(rate, len, &p);
				cong = hist[cur];
				arrived = 0;
				top = 0;
				periods++;
				congested += cong;
				if (!p.adaptive)
					tau = p.tau;
				else if (cong)
					tau = tau >= p.tau_min + p.alpha ?
					      tau - p.alpha : p.tau_min;
				else
					tau = tau + p.beta > p.tau_max ?
					      p.tau_max : tau + p.beta;
				if (p.adaptive && tau < p.tau_min)
					tau = p.tau_min;
				cur++;
				start += len;
			}
			if (closed)
				len = next;
			FUZZ_ASSERT(c.cur == cur && c.cur_start == start);
			FUZZ_ASSERT(c.period_ns == len &&
				    c.surge_bytes == ref_surge_bytes(rate, len, &p));
			FUZZ_ASSERT(c.periods == periods &&
				    c.congested == congested &&
				    c.surges == surges && c.arrived == arrived &&
				    c.top == top);
			FUZZ_ASSERT(c.tau == tau);
			if (p.adaptive)
				FUZZ_ASSERT(c.tau >= p.tau_min &&
					    c.tau <= p.tau_max);
		} else if (op < 128) {	/* a drop */
			dfs_cpr_congest(&c);
			hist[cur] = true;
		} else if (op < 132) {	/* tc changes the parameters */
			struct dfs_cpr_params old = p;

			decode_params(&in, &p);
			dfs_cpr_retune(&c, &old, &p);
			if (p.period_ns) {
				next = p.period_ns;
			} else if (old.period_ns) {
				prate = 0;
				next = NSEC_PER_MSEC;
			}
			ref_link(&next, &prate, rate, &p);
			len = next;
			FUZZ_ASSERT(c.period_ns == len && c.period_next == next);
			if (!p.adaptive)
				tau = p.tau;
			else if (!old.adaptive)
				tau = p.tau_max;
			else
				tau = tau < p.tau_min ? p.tau_min :
				      tau > p.tau_max ? p.tau_max : tau;
			FUZZ_ASSERT(c.tau == tau);
			FUZZ_ASSERT(c.surge_bytes ==
				    ref_surge_bytes(rate, len, &p));
		} else if (op < 136) {	/* the link's rate is measured */
			u64 was = rate;

			rate = op == 132 ? 0 : get(&in, 5);
			dfs_cpr_link(&c, &p, rate);
			if (rate != was)
				ref_link(&next, &prate, rate, &p);
			FUZZ_ASSERT(c.period_ns == len && c.period_next == next);
			FUZZ_ASSERT(c.surge_bytes ==
				    ref_surge_bytes(rate, len, &p));
		} else if (op < 148) {	/* bytes of flow op % FLOWS come */
			u32 len = get(&in, 2);
			u64 brought = (u64)rf[op % FLOWS].pending * len;

			dfs_cpr_arrive(&c, &f[op % FLOWS], len);
			arrived += len;
			if (brought > top)
				top = brought;
		} else if (op < 152) {	/* the flow's packet is held */
			dfs_cpr_hold(&f[op % FLOWS]);
			rf[op % FLOWS].held = true;
		} else if (op < 154) {	/* it backed off: judged afresh */
			struct ref_flow *r = &rf[op % FLOWS];

			dfs_cpr_forget(&f[op % FLOWS]);
			*r = (struct ref_flow){ .period = r->period };
		} else {		/* packets of flow op % FLOWS: one, or up
					 * to 256 (then the counts reach their
					 * halving within a few periods)
					 */
			struct ref_flow *r = &rf[op % FLOWS];
			u32 n = op < 176 ? get(&in, 1) + 1 : 1;

			for (; n; n--) {
				dfs_cpr_packet(&c, &f[op % FLOWS]);
				ref_packet(r, cur);
			}
		}
		/* every period the ring still holds, as the history says
		 * (only the clock clears it)
		 */
		for (i = 1; op < 96 && i < DFS_CPR_RING + 2 && i <= cur; i++)
			FUZZ_ASSERT(dfs_cpr_was_congested(&c, cur - i) ==
				    (i < DFS_CPR_RING && hist[cur - i]) &&
				    dfs_cpr_was_surge(&c, cur - i) ==
				    (i < DFS_CPR_RING && surge_hist[cur - i]));
		FUZZ_ASSERT(!dfs_cpr_was_congested(&c, cur));
		window = cur < DFS_CPR_RING - 1 ? cur : DFS_CPR_RING - 1;
		for (recent = busy = 0, i = 1; i <= window; i++) {
			recent += hist[cur - i];
			busy += came_hist[cur - i];
		}
		FUZZ_ASSERT(c.recent == recent && c.busy == busy);
		calm = busy > recent ? busy - recent : 0;
		for (j = 0; j < FLOWS; j++) {
			/* a held flow goes free 0.1 under tau */
			bool held = (ops + j) & 1;
			u32 t = !held ? tau : tau > 100000 ? tau - 100000 : 0;
			bool over = rf[j].packets >= p.min_packets &&
				    (u64)rf[j].congested * TC_DFS_ONE >
				    (u64)t * rf[j].packets;

			if (over && p.signal == TC_DFS_CPR_SIGNAL_SURGES)
				over = (u64)(rf[j].packets - rf[j].congested) *
				       2 * busy <
				       (u64)calm * rf[j].packets;
			FUZZ_ASSERT(f[j].packets == rf[j].packets &&
				    f[j].congested == rf[j].congested &&
				    f[j].pending == rf[j].pending &&
				    f[j].held == rf[j].held &&
				    f[j].period == rf[j].period);
			FUZZ_ASSERT(dfs_cpr_value(&f[j]) <= TC_DFS_ONE);
			FUZZ_ASSERT(!dfs_cpr_idle_before(&f[j], rf[j].period));
			FUZZ_ASSERT(dfs_cpr_suspect(&c, &p, &f[j], held) == over);
		}
	}
	return 0;
}
