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
 *   - each flow's CPR is the reference's, packet by packet counted in the
 *     period they came in, and stays within [0, 1];
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
	u32	seen;
	u16	cpr;
};

static bool hist[MAX_PERIODS];

static u16 ref_count(u16 cpr, bool congested)
{
	if (congested)
		return cpr + (DFS_CPR_ONE - cpr + 15) / 16;
	return cpr - (cpr + 15) / 16;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct ref_flow rf[FLOWS] = {};
	struct dfs_cpr_flow f[FLOWS] = {};
	struct dfs_cpr_params p = {};
	struct dfs_cpr_clock c;
	u64 now, start, periods = 0, congested = 0;
	u32 cur = 0, tau, i, j;
	int ops = 0;

	p.period_ns = range(&in, 3, 1000, 10000000);
	p.tau_min = range(&in, 3, 0, TC_DFS_ONE);
	p.tau_max = range(&in, 3, p.tau_min, TC_DFS_ONE);
	p.tau = range(&in, 3, 0, TC_DFS_ONE);
	p.alpha = range(&in, 3, 0, TC_DFS_ONE);
	p.beta = range(&in, 3, 0, TC_DFS_ONE);
	p.min_packets = range(&in, 1, 0, 255);
	p.adaptive = get(&in, 1) & 1;
	now = start = get(&in, 6);
	memset(hist, 0, sizeof(hist));

	dfs_cpr_init(&c, &p, now);
	tau = p.adaptive ? p.tau_max : p.tau;
	FUZZ_ASSERT(c.tau == tau);

	while (in.left && ops++ < 4096) {
		u32 op = get(&in, 1);

		if (op < 96) {		/* time passes: within, or k periods on */
			u64 k, d;

			d = op < 48 ? get(&in, 1) * p.period_ns / 256 :
			    get(&in, 2) * p.period_ns / 16;
			if (cur + (d + now - start) / p.period_ns >= MAX_PERIODS - 1)
				break;
			now += d;
			dfs_cpr_tick(&c, &p, now);
			/* the reference, one period at a time */
			k = (now - start) / p.period_ns;
			for (; k; k--) {
				bool cong = hist[cur];

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
				start += p.period_ns;
			}
			FUZZ_ASSERT(c.cur == cur && c.cur_start == start);
			FUZZ_ASSERT(c.periods == periods &&
				    c.congested == congested);
			FUZZ_ASSERT(c.tau == tau);
			if (p.adaptive)
				FUZZ_ASSERT(c.tau >= p.tau_min &&
					    c.tau <= p.tau_max);
		} else if (op < 128) {	/* a drop */
			dfs_cpr_congest(&c);
			hist[cur] = true;
		} else {		/* a packet of flow op % FLOWS */
			struct ref_flow *r = &rf[op % FLOWS];

			dfs_cpr_packet(&c, &f[op % FLOWS]);
			if (r->period != cur) {
				u32 age = cur - r->period;
				bool cong = age < DFS_CPR_RING && hist[r->period];

				for (j = 0; j < r->pending; j++)
					r->cpr = ref_count(r->cpr, cong);
				r->period = cur;
				r->pending = 0;
			}
			if (r->pending < 255)
				r->pending++;
			if (r->seen < 255)
				r->seen++;
		}
		/* every period the ring still holds, as the history says
		 * (only the clock clears it)
		 */
		for (i = 1; op < 96 && i < DFS_CPR_RING + 2 && i <= cur; i++)
			FUZZ_ASSERT(dfs_cpr_was_congested(&c, cur - i) ==
				    (i < DFS_CPR_RING && hist[cur - i]));
		FUZZ_ASSERT(!dfs_cpr_was_congested(&c, cur));
		for (j = 0; j < FLOWS; j++) {
			FUZZ_ASSERT(f[j].cpr == rf[j].cpr &&
				    f[j].pending == rf[j].pending &&
				    f[j].seen == rf[j].seen &&
				    f[j].period == rf[j].period);
			FUZZ_ASSERT(f[j].cpr <= DFS_CPR_ONE);
			FUZZ_ASSERT(dfs_cpr_suspect(&c, &p, &f[j]) ==
				    (rf[j].seen >= p.min_packets &&
				     (u64)rf[j].cpr * TC_DFS_ONE >
				     (u64)tau * DFS_CPR_ONE));
		}
	}
	return 0;
}
