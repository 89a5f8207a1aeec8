// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the DFS decisions (dfs_decide.c): Eq. (1), the
 * EWMA of wfs, the activity and rate meter, per-flow bitrates and
 * Algorithm 3, each checked against a reference written with 128-bit
 * arithmetic and no shortcuts:
 *
 *   - wfs = min(b, b (b - q) / (n q)), 0 on a full buffer, b when empty;
 *   - the EWMA stays between its old value and the new sample;
 *   - rates are bytes * 10^9 / elapsed ns, exactly;
 *   - a flow counts in n with the weight of its rate and its losses, at
 *     most 1/split for a key dfs_mq's queues share, and is judged by
 *     1/split of the fair rate; a window's loss moves to the last
 *     window's when the window closes;
 *   - p_m, the verdict and the flags of every decision are those of the
 *     reference, p_m never leaves [min_th, max_th];
 *   - no division by zero, no overflow (UBSan), and no 128-by-64-bit
 *     division whose quotient does not fit in 64 bits, which faults on
 *     x86 (the userspace mul_u64_u64_div_u64() aborts on it).
 *
 * Parameters are decoded within the ranges of the netlink policy, except
 * "bandwidth", which takes any 64-bit value: the core must be safe even
 * for values the policy refuses.
 */
#include "dfs_decide.h"
#include "fuzz_input.h"


typedef unsigned __int128 u128;
typedef __int128 s128;


/*
 * Algorithm 3 as the paper states it, exact arithmetic, p_m clamped.  The
 * flow's clock is the module's own 32-bit p_time (dfs_flow.h): a property
 * of the flow's storage, not of the algorithm.
 */
static enum dfs_verdict ref_decide(const struct dfs_params *p,
				   struct dfs_flow *f, u64 now, u32 wfs,
				   u64 fair)
{
	s128 trend_th = p->min_th + (s128)p->tolerance * p->delta_i;
	u32 windows = (f->flags & DFS_F_WINDOWS) >> DFS_F_WINDOWS_SHIFT;
	bool thawed = dfs_ptime_after(f, now, p->freeze_ns);
	u64 br = (u64)f->bitrate * 8;	/* stored in 8 bytes/s */
	enum dfs_verdict v = DFS_ALLOW;
	s128 pm = f->pm;

	if (pm <= trend_th) {
		if (f->backlog > wfs) {
			v = DFS_MARK;
			if (thawed) {
				f->flags |= DFS_F_STORE_BR;
				pm += p->delta_i;
				f->ptime = dfs_ptime(now);
			}
		} else if (!f->backlog) {
			pm -= p->delta_d;
			f->ptime = dfs_ptime(now);
			if (pm <= p->min_th) {
				f->pm = p->min_th;
				f->flags &= ~(DFS_F_MALICIOUS | DFS_F_STORE_BR |
					      DFS_F_TRENDING);
				return DFS_ALLOW;
			}
		}
	} else {
		/* held to its share; cut off only once malicious */
		if (f->flags & DFS_F_MALICIOUS)
			v = DFS_DROP;
		else if (f->backlog > wfs)
			v = DFS_MARK;
		/* once per sample, a step per interval it spans; over 1.5
		 * times the fair rate a rise proportional to the difference
		 * to it, else a fall
		 */
		if (thawed && (f->flags & DFS_F_STORE_BR) && windows &&
		    br && fair) {
			if ((u128)br * 2 > (u128)fair * 3)
				pm += (u128)windows * p->delta_i *
				      (br - fair) / fair;
			else
				pm -= (u128)windows * p->delta_d * fair / br;
			f->flags &= ~DFS_F_WINDOWS;
			f->ptime = dfs_ptime(now);
		}
		if (pm >= p->max_th)
			f->flags |= DFS_F_MALICIOUS;
	}
	if (pm < p->min_th)
		pm = p->min_th;
	if (pm > p->max_th)
		pm = p->max_th;
	f->pm = (u32)pm;
	if (pm > trend_th)
		f->flags |= DFS_F_TRENDING;
	else	/* judged by its backlog again: its packets pass */
		f->flags &= ~(DFS_F_TRENDING | DFS_F_MALICIOUS);
	return v;
}

/*
 * A flow's weight in n against a rate: whole when not measured, in one
 * queue when it lost a packet to congestion in this window or the last,
 * or from that rate on; else br / rate of a flow, rounded down.  A key
 * dfs_mq's queues share, @split of them, weighs at most 1/split.
 */
static u64 ref_weight(const struct dfs_flow *f, u64 fair, bool one_queue,
		      u32 split)
{
	u64 br = (u64)f->bitrate * 8;	/* stored in 8 bytes/s */
	u64 whole = DFS_METER_ONE / (split ? split : 1);

	if (!br || (one_queue && (f->flags & (DFS_F_LOSS | DFS_F_LOSS_PREV))) ||
	    br >= fair)
		return whole;
	return min((u64)((u128)br * DFS_METER_ONE / fair), whole);
}

/* The link shared by flows of weight @w, as dfs_link_share() has it. */
static u64 ref_share(const struct dfs_params *p, const struct dfs_meter *m,
		     u64 w)
{
	return (u128)(p->bandwidth ? p->bandwidth : m->deq_rate) *
	       DFS_METER_ONE / max(w, (u64)DFS_METER_ONE);
}

#define ref_max(m, field)	max((m)->cur.field, (m)->prev.field)

static void check_wfs(u32 limit, u32 backlog, u32 n)
{
	u32 w = dfs_wfs(limit, backlog, n);
	u128 ref;

	if (backlog >= limit)
		ref = 0;
	else if (!backlog)
		ref = limit;
	else
		ref = (u128)limit * (limit - backlog) /
		      ((u128)(n ? n : 1) * backlog);
	if (ref > limit)
		ref = limit;
	FUZZ_ASSERT(w == ref);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct dfs_params p = {};
	struct dfs_flow f = {}, rf;
	struct dfs_meter m;
	u64 now, interval, deq_ref = 0, fair, rfair, elapsed;
	struct dfs_meter_counts c, old_c;
	u64 busy_start = 0, busy_ns = 0;
	bool busy = false;
	u32 ewma, old, wfs, n, was, split;
	u64 whole;
	u128 rate;

	p.limit = range(&in, 4, 1024, 1U << 30);
	p.max_th = range(&in, 3, 1, TC_DFS_ONE);
	p.min_th = range(&in, 3, 0, p.max_th - 1);
	p.delta_i = range(&in, 3, 1, TC_DFS_ONE);
	p.delta_d = range(&in, 3, 1, TC_DFS_ONE);
	p.tolerance = range(&in, 2, 0, 1000);
	/* the rule dfs_config_check() enforces */
	if (p.min_th + (u64)p.tolerance * p.delta_i >= p.max_th)
		p.tolerance = 0;
	p.beta = range(&in, 3, 1, TC_DFS_ONE);
	p.freeze_ns = range(&in, 3, 0, 10 * 1000000) * NSEC_PER_USEC;
	p.rate_interval_ns = range(&in, 3, 1000, 10 * 1000000) * NSEC_PER_USEC;
	p.bandwidth = get(&in, 1) & 1 ? get(&in, 8) : 0;
	interval = p.rate_interval_ns;

	now = get(&in, 6);
	dfs_meter_init(&m, now);
	m.one_queue = get(&in, 1) & 1;
	dfs_flow_init(&f, &p, now);
	ewma = p.limit;

	while (in.left) {
		u8 op = get(&in, 1);
		u32 len;

		/* time moves on: up to ~4 s, or up to 2^40 ns (~18 min) */
		now += op & 0x80 ? get(&in, 5) : get(&in, 2) * get(&in, 2);

		switch (op % 6) {
		case 0:		/* an arrival of the flow */
			len = get(&in, 4);
			if (op & 0x40)	/* it lost a packet to congestion */
				dfs_flow_congested(&f);
			rf = f;
			dfs_flow_arrival(&f, now, len, interval);
			if (now - rf.win_start >= interval) {
				u64 w = (now - rf.win_start) / interval;

				rate = (u128)rf.win_bytes * NSEC_PER_SEC /
				       (now - rf.win_start);
				/* kept in 8 bytes/s, rounded up, saturated */
				rate = (rate + 7) / 8;
				FUZZ_ASSERT(f.bitrate == min(rate, (u64)U32_MAX));
				FUZZ_ASSERT((f.flags & DFS_F_WINDOWS) >>
					    DFS_F_WINDOWS_SHIFT ==
					    min(w, (u64)DFS_F_WINDOWS_MAX));
				/* this window's loss becomes the last's */
				FUZZ_ASSERT(!(f.flags & DFS_F_LOSS));
				FUZZ_ASSERT(!!(f.flags & DFS_F_LOSS_PREV) ==
					    !!(rf.flags & DFS_F_LOSS));
				rf.win_bytes = 0;
			} else {
				FUZZ_ASSERT((f.flags & (DFS_F_LOSS |
							DFS_F_LOSS_PREV)) ==
					    (rf.flags & (DFS_F_LOSS |
							 DFS_F_LOSS_PREV)));
			}
			FUZZ_ASSERT(f.win_bytes ==
				    ((u64)rf.win_bytes + len > U32_MAX ?
				     U32_MAX : rf.win_bytes + len));
			/* counted with the weights of its rate and losses, by
			 * the meter's rates: updated as enqueue does, or any
			 */
			if (op & 0x20) {
				m.paper = get(&in, 8);
				m.paper_r = get(&in, 8);
				m.step = get(&in, 8);
				m.step_r = get(&in, 8);
			} else {
				dfs_meter_update(&p, &m);
			}
			old_c = m.cur;
			was = f.epoch;
			/* the queues of dfs_mq the key is on: mostly one */
			split = op & 0x08 ? get(&in, 1) % 65 : 1;
			/* admitted, or dropped as malicious: counted apart */
			if (op & 0x10)
				dfs_meter_seen_dropped(&m, &f, split);
			else
				dfs_meter_seen(&m, &f, split);
			whole = DFS_METER_ONE / (split ? split : 1);
			c = old_c;
			if ((f.epoch & 1) && f.epoch != was) {
				FUZZ_ASSERT(m.stale);
				if (op & 0x10) {
					c.n_dropped += whole;
					c.step_dropped += ref_weight(&f, m.paper_r,
								     m.one_queue,
								     split);
					c.dropped += ref_weight(&f, m.step_r,
								m.one_queue,
								split);
				} else {
					c.n += whole;
					c.step += ref_weight(&f, m.paper,
							     m.one_queue, split);
					c.step_r += ref_weight(&f, m.paper_r,
							       m.one_queue,
							       split);
					c.active += ref_weight(&f, m.step,
							       m.one_queue,
							       split);
					c.active_r += ref_weight(&f, m.step_r,
								 m.one_queue,
								 split);
				}
			}
			FUZZ_ASSERT(!memcmp(&c, &m.cur, sizeof(c)));
			if (op & 0x20)	/* the rates were not the meter's */
				m.stale = true;
			break;
		case 1:		/* a departure: bytes for the meter */
			len = get(&in, 4);
			m.deq_bytes += len;
			deq_ref += len;
			break;
		case 2:		/* the meter's epoch, as enqueue ticks it */
			rate = m.deq_rate;
			if (now - m.epoch_start >= interval) {
				/* the link's rate while the queue was busy */
				if (busy)
					busy_ns += now - busy_start;
				if (busy_ns && busy_ns >= interval / 8)
					rate = (u128)deq_ref * NSEC_PER_SEC /
					       busy_ns;
				busy_ns = 0;
				busy_start = now;
			}
			old_c = m.cur;
			was = m.epoch;
			elapsed = now - m.epoch_start;
			dfs_meter_tick(&m, now, interval);
			FUZZ_ASSERT(m.deq_rate == rate);
			if (m.epoch != was) {	/* a new epoch: this one's last */
				memset(&c, 0, sizeof(c));
				FUZZ_ASSERT(!memcmp(&m.cur, &c, sizeof(c)));
				if (elapsed < 2 * interval)
					c = old_c;
				FUZZ_ASSERT(!memcmp(&m.prev, &c, sizeof(c)));
				FUZZ_ASSERT(m.stale);
			}
			if (!m.deq_bytes)
				deq_ref = 0;
			break;
		case 5:		/* the queue fills or empties */
			if (busy) {
				dfs_meter_idle(&m, now);
				if (now > busy_start)
					busy_ns += now - busy_start;
			} else {
				dfs_meter_busy(&m, now);
				busy_start = now;
			}
			busy = !busy;
			break;
		case 3:		/* Eq. (1) and the EWMA, for any queue */
			n = get(&in, 3);
			wfs = get(&in, 4) % (p.limit + 1);
			check_wfs(p.limit, wfs, n);
			check_wfs(get(&in, 4), get(&in, 4), n);
			wfs = dfs_wfs(p.limit, wfs, n);
			old = ewma;
			ewma = dfs_wfs_ewma(ewma, wfs, p.beta);
			FUZZ_ASSERT(ewma >= min(old, wfs) &&
				    ewma <= max(old, wfs));
			break;
		case 4:		/* Algorithm 3, for a backlog and a wfs */
			f.backlog = get(&in, 4) % (p.limit + 1);
			wfs = get(&in, 4) % (p.limit + 1);
			/* a measured bitrate of any size, now and then */
			if (op & 0x40)
				f.bitrate = get(&in, 4);
			fair = dfs_fair_rate(&p, &m);
			FUZZ_ASSERT(fair == ref_share(&p, &m, ref_max(&m, active)));
			/* with the dropped flows let in again */
			rfair = ref_share(&p, &m, ref_max(&m, active_r) +
					  ref_max(&m, dropped));
			FUZZ_ASSERT(dfs_fair_rate_readmitted(&p, &m) == rfair);
			/* and the rates enqueue reads, once updated */
			dfs_meter_update(&p, &m);
			FUZZ_ASSERT(!m.stale && m.fair == fair &&
				    m.fair_r == rfair);
			FUZZ_ASSERT(m.paper == ref_share(&p, &m, ref_max(&m, n)));
			FUZZ_ASSERT(m.paper_r ==
				    ref_share(&p, &m, ref_max(&m, n) +
					      ref_max(&m, n_dropped)));
			FUZZ_ASSERT(m.step ==
				    ref_share(&p, &m, ref_max(&m, step)));
			FUZZ_ASSERT(m.step_r ==
				    ref_share(&p, &m, ref_max(&m, step_r) +
					      ref_max(&m, step_dropped)));
			if (f.flags & DFS_F_MALICIOUS && op & 0x10)
				fair = rfair;	/* as enqueue judges it */
			if (op & 0x20)	/* or any fair rate at all */
				fair = get(&in, 8);
			/* a key on split queues of dfs_mq: its share of it */
			if (op & 0x08) {
				split = get(&in, 1) % 65;
				rfair = dfs_fair_split(fair, split);
				FUZZ_ASSERT(rfair == (split > 1 ? fair / split :
						      fair));
				fair = rfair;
			}
			rf = f;
			FUZZ_ASSERT(dfs_decide(&p, &f, now, wfs, fair) ==
				    ref_decide(&p, &rf, now, wfs, fair));
			FUZZ_ASSERT(f.pm == rf.pm && f.flags == rf.flags &&
				    f.ptime == rf.ptime);
			FUZZ_ASSERT(f.pm >= p.min_th && f.pm <= p.max_th);
			break;
		}
		FUZZ_ASSERT(dfs_meter_active(&m) >= 1);
	}
	return 0;
}
