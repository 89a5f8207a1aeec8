/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DFS decisions, free of sk_buff: Eq. (1) weighted fair share, its EWMA,
 * per-flow bitrates, the count of active flows, the fair bitrate, and
 * Algorithm 3 (ProcessPacketAndDecide) of the paper.  Everything is
 * integer arithmetic: p_m, the thresholds, the deltas and beta are
 * fractions of TC_DFS_ONE, times are nanoseconds, rates bytes per second.
 *
 * What runs for every packet is here, static inline, as the kernel's
 * codel_impl.h is: out of line, its dozen calls a packet were a sizeable
 * part of what DFS adds to a packet's path (doc/benchmark.md).  The qdisc
 * and the userspace tests and fuzzers compile the same code; dfs_decide.c
 * keeps what runs once.
 */
#ifndef _DFS_DECIDE_H
#define _DFS_DECIDE_H

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/pkt_sched_dfs.h>
#include "dfs_flow.h"

struct dfs_params {
	u32	limit;		/* b: buffer size, bytes */
	u32	max_th;		/* TC_DFS_ONE = 1.0 */
	u32	min_th;
	u32	delta_i;
	u32	delta_d;
	u32	tolerance;
	u32	beta;
	u64	freeze_ns;
	u64	rate_interval_ns;
	u64	bandwidth;	/* bytes/s, 0: measure the dequeue rate */
};

/*
 * Activity and rate meter, driven by arrivals and departures.  Time is cut
 * into epochs of rate_interval.  A flow is active when it sent two packets
 * within the current and the previous epoch, so n follows the flows that
 * really compete for the link within one measurement window (a lone packet,
 * such as a spoofed source hitting a known flow, does not count), and is
 * kept in O(1) per packet with no walk over the flows.  n is a sum of
 * weights in 1/DFS_METER_ONE of a flow: a flow that sends under its share
 * counts for less than one (dfs_flow_weight()).
 */
#define DFS_METER_ONE	256U

/*
 * What the meter counts in an epoch, DFS_METER_ONE a flow: the flows each
 * whole (the paper's n), then weighed by the rate that gives, then by the
 * rate that gives in turn (dfs_flow_weight()); each count for the flows
 * let in, and with the flows DFS drops let in again (_r).
 */
struct dfs_meter_counts {
	u64	n;		/* flows let in, each whole */
	u64	n_dropped;	/* flows DFS drops (malicious), each whole */
	u64	step;		/* flows let in, weighed by link / n */
	u64	step_r;		/* the same, by link / (n + n_dropped) */
	u64	step_dropped;	/* flows DFS drops, by that rate too */
	u64	active;		/* flows let in, weighed by link / step */
	u64	active_r;	/* the same, by link / (step_r + step_dropped) */
	u64	dropped;	/* flows DFS drops, by that rate too */
};

struct dfs_meter {
	u64	epoch_start;	/* ns */
	u32	epoch;
	struct dfs_meter_counts cur;	/* this epoch */
	struct dfs_meter_counts prev;	/* the previous one */
	/* The rates of the counts, as of the last dfs_meter_update(). */
	u64	paper;		/* link / n */
	u64	paper_r;	/* link / (n + n_dropped) */
	u64	step;		/* link / step */
	u64	step_r;		/* link / (step_r + step_dropped) */
	u64	fair;		/* dfs_fair_rate() */
	u64	fair_r;		/* dfs_fair_rate_readmitted() */
	bool	stale;		/* a count or the link changed since */
	bool	busy;		/* the queue holds a packet, since busy_start */
	u64	busy_start;	/* ns */
	u64	busy_ns;	/* time with a backlog in this epoch */
	u64	deq_bytes;	/* bytes sent in this epoch */
	u64	deq_rate;	/* link rate: bytes/s sent while busy */
	u64	refused_bytes;	/* refused by a verdict in this epoch */
	u64	refused_last;	/* ... in the last */
	u64	last_ns;	/* the last epoch's length */
	u32	busy_part;	/* of the last epoch with a backlog, METER_ONE */
	u32	link_part;	/* of bandwidth the queue sends, LINK_ONE */
	u32	link_part_r;	/* ... if the flows DFS drops were let in */
	bool	one_queue;	/* sched fifo: the flows share one queue */
};

/*
 * The part of "bandwidth" a queue of dfs_mq sends, in 1/DFS_LINK_ONE: the
 * queues share the link that bandwidth gives (dfs_mq_link_part()).  A
 * dfs on its own sends all of it.
 */
#define DFS_LINK_ONE	BIT(16)

enum dfs_verdict {
	DFS_ALLOW,
	DFS_MARK,	/* ECN-Mark(p): CE mark, or drop if not ECT */
	DFS_DROP,	/* the flow is marked malicious */
};

void dfs_meter_init(struct dfs_meter *m, u64 now);
void dfs_params_init(struct dfs_params *p);
void dfs_flow_init(struct dfs_flow *f, const struct dfs_params *p, u64 now);

/* A packet of @f was dropped or CE marked to signal congestion. */
static inline void dfs_flow_congested(struct dfs_flow *f)
{
	f->flags |= DFS_F_LOSS;
}

/*
 * Eq. (1): wfs = (b / n) * (100 / q_p - 1), with q_p = 100 * q / b the
 * queue length in percent.  Written without the percentage, so no
 * precision is lost to it:  wfs = b * (b - q) / (n * q).
 * An empty queue makes the scaling factor unbounded; the whole buffer is
 * the most any flow can use, so wfs is capped at b.
 */
static inline u32 dfs_wfs(u32 limit, u32 backlog, u32 nflows)
{
	u64 wfs;

	if (backlog >= limit)
		return 0;
	if (!backlog)
		return limit;
	wfs = div64_u64((u64)limit * (limit - backlog),
			(u64)max_t(u32, nflows, 1) * backlog);
	return min_t(u64, wfs, limit);
}

static inline u32 dfs_wfs_ewma(u32 ewma, u32 wfs, u32 beta)
{
	return div_u64((u64)ewma * (TC_DFS_ONE - beta) + (u64)wfs * beta,
		       TC_DFS_ONE);
}

/*
 * The link rate is what the queue sends while it holds packets: bytes sent
 * over the time with a backlog.  Over the whole epoch it would fall with
 * the load, to nothing when the only flow left is one DFS drops, and a
 * fair rate of nothing would keep that flow marked for good (with no other
 * traffic, nothing is sent).  An epoch with too little backlog to measure
 * the link (an eighth of it) keeps the last rate: the link is not
 * congested then, and its rate has not changed.
 */
static inline void dfs_meter_tick(struct dfs_meter *m, u64 now,
				  u64 interval)
{
	u64 elapsed = now - m->epoch_start;
	u64 busy = m->busy_ns;

	if (elapsed < interval)
		return;
	if (m->busy) {
		busy += now - m->busy_start;
		m->busy_start = now;
	}
	/* deq_bytes * NSEC_PER_SEC overflows 64 bits past 18 GB in one
	 * epoch (rate_interval 10s at 15 Gbit/s): 128-bit intermediate.
	 */
	if (busy && busy >= interval / 8)
		m->deq_rate = mul_u64_u64_div_u64(m->deq_bytes, NSEC_PER_SEC,
						  busy);
	m->busy_part = div64_u64(min(busy, elapsed) * DFS_METER_ONE, elapsed);
	m->refused_last = m->refused_bytes;
	m->refused_bytes = 0;
	m->last_ns = elapsed;
	m->busy_ns = 0;
	/* After an idle gap the previous epoch saw nobody. */
	m->prev = elapsed < 2 * interval ? m->cur :
		  (struct dfs_meter_counts){};
	m->cur = (struct dfs_meter_counts){};
	m->stale = true;
	m->deq_bytes = 0;
	m->epoch++;
	m->epoch_start = now;
}

/* The queue got its first packet. */
static inline void dfs_meter_busy(struct dfs_meter *m, u64 now)
{
	m->busy = true;
	m->busy_start = now;
}

/* The queue went empty. */
static inline void dfs_meter_idle(struct dfs_meter *m, u64 now)
{
	if (m->busy && now > m->busy_start)
		m->busy_ns += now - m->busy_start;
	m->busy = false;
}

/*
 * What a flow weighs in n, against the rate @fair_rate.  Link / n is a
 * fair share only if every one of the n flows wants that much; a ping, a
 * DNS exchange, a stream of ACKs or a UDP stream at a set rate under it
 * does not, and counted whole they lower everyone's fair rate until the
 * flows that take what is left look unfair.  So n takes two steps of
 * max-min fairness's water-filling from the paper's fair rate, link / n
 * with every flow whole: a flow measured under it counts br / rate of a
 * flow, and again under the rate that gives.  Each step raises the fair
 * rate towards max-min's and none takes it past (repeated on its own
 * result the step would: once every flow gets what it sends, any rate
 * over the largest solves it, and the meter would stay at the link's
 * whole rate after an idle spell).  Counted whole, flows at a steady
 * rate under their share lower the fair rate of those that take the rest
 * until the fastest of these looks unfair (the lab's scenario 2,
 * lab_classify.sh, doc/dfs.md); with two steps it does not.
 *
 * In one queue (sched fifo), a flow that loses packets wants more than it
 * gets and counts whole, however little it sends: TCP squeezed by a flood
 * in one FIFO must keep the flood's fair rate down, or the flood would
 * never be over it.  With a queue per flow (sched fq) nobody is squeezed,
 * every backlogged flow gets its share, and a loss says only that the
 * flow sent more than that: counted whole, TCP hosts backing off after an
 * attack's burst (one packet an RTO) lowered the fair rate of the one
 * that took the link they left idle, until Algorithm 3 marked it (the
 * lab's scenario 6).  A flow not measured yet counts whole.
 *
 * A key that dfs_mq's queues share (@split of them, sched fq) takes 1/split
 * of a key's share of each one's round (dfs_fq_key_split()), so it counts
 * at most 1/split of a flow in each queue's n: then each queue's fair rate
 * is the share its round gives a whole key, and the key's is that over
 * split (dfs_fair_split()).  Its rate on the queue against the fair rate
 * weighs it as before, br / rate, now capped at 1/split.
 */
static inline u32 dfs_flow_weight(const struct dfs_meter *m,
				  const struct dfs_flow *f, u64 fair_rate,
				  u32 split)
{
	u32 whole = DFS_METER_ONE / max(split, 1U);
	u64 br = dfs_flow_bitrate(f);

	if (!br || br >= fair_rate ||
	    (m->one_queue && (f->flags & (DFS_F_LOSS | DFS_F_LOSS_PREV))))
		return whole;
	/* the quotient is under DFS_METER_ONE: no overflow */
	return min_t(u64, mul_u64_u64_div_u64(br, DFS_METER_ONE, fair_rate),
		     whole);
}

/*
 * A flow counts as active from its second packet within two epochs: a
 * lone packet does not make a flow compete for the link.  Without this a
 * spoofed flood, whose random sources now and then hit flows already
 * known, keeps hundreds of them "active" in every epoch, n soars, the fair
 * rate collapses and the real flows look unfair.  f->epoch holds the
 * epoch of the flow's last packet, shifted left by one, and in bit 0
 * whether the flow is already counted in it.  It is counted with its
 * weights at that moment, once per epoch: four divisions per flow and
 * epoch at most, none per packet.  True when the flow is to be counted
 * now.
 */
static inline bool dfs_meter_count(struct dfs_meter *m, struct dfs_flow *f)
{
	u32 tag = m->epoch << 1;

	if ((f->epoch | 1) == (tag | 1)) {
		if (f->epoch & 1)
			return false;
		f->epoch |= 1;			/* second packet this epoch */
		m->stale = true;
		return true;
	}
	if ((f->epoch | 1) == (((m->epoch - 1) << 1) | 1)) {
		f->epoch = tag | 1;		/* sent in the previous epoch too */
		m->stale = true;
		return true;
	}
	f->epoch = tag;				/* one packet: not yet */
	return false;
}

/*
 * A packet of a flow let in: it is one of the n that share the link.  It
 * is weighed for dfs_fair_rate(), and for dfs_fair_rate_readmitted() as
 * if the dropped flows were let in, by the meter's rates of the last
 * dfs_meter_update().
 */
static inline void dfs_meter_seen(struct dfs_meter *m, struct dfs_flow *f,
				  u32 split)
{
	if (dfs_meter_count(m, f)) {
		m->cur.n += DFS_METER_ONE / max(split, 1U);
		m->cur.step += dfs_flow_weight(m, f, m->paper, split);
		m->cur.step_r += dfs_flow_weight(m, f, m->paper_r, split);
		m->cur.active += dfs_flow_weight(m, f, m->step, split);
		m->cur.active_r += dfs_flow_weight(m, f, m->step_r, split);
	}
}

/*
 * A packet of a flow DFS drops (malicious): the flow takes no part of the
 * link, so it is not one of the n that share it, but it is counted apart
 * for dfs_fair_rate_readmitted().
 */
static inline void dfs_meter_seen_dropped(struct dfs_meter *m,
					  struct dfs_flow *f, u32 split)
{
	if (dfs_meter_count(m, f)) {
		m->cur.n_dropped += DFS_METER_ONE / max(split, 1U);
		m->cur.step_dropped += dfs_flow_weight(m, f, m->paper_r, split);
		m->cur.dropped += dfs_flow_weight(m, f, m->step_r, split);
	}
}

/*
 * The counts of this or the last epoch, the larger of each: the weight of
 * the flows let in, at least one flow.
 */
static inline u64 dfs_meter_weight(const struct dfs_meter *m)
{
	return max_t(u64, max(m->cur.active, m->prev.active), DFS_METER_ONE);
}

/*
 * The link's rate: "bandwidth", of which a queue of dfs_mq sends its
 * @part, or else the rate the queue measured, which is its part.
 */
static inline u64 dfs_link_part_rate(const struct dfs_params *p,
				     const struct dfs_meter *m, u32 part)
{
	if (!p->bandwidth)
		return m->deq_rate;
	if (part >= DFS_LINK_ONE)
		return p->bandwidth;
	return mul_u64_u64_div_u64(p->bandwidth, part, DFS_LINK_ONE);
}

static inline u64 dfs_link_rate(const struct dfs_params *p,
				const struct dfs_meter *m)
{
	return dfs_link_part_rate(p, m, m->link_part);
}

/* @rate shared by flows of weight @weight (at least one flow). */
static inline u64 dfs_rate_share(u64 rate, u64 weight)
{
	return mul_u64_u64_div_u64(rate, DFS_METER_ONE,
				   max_t(u64, weight, DFS_METER_ONE));
}

/* The link rate shared by flows of weight @weight (at least one flow). */
static inline u64 dfs_link_share(const struct dfs_params *p,
				 const struct dfs_meter *m, u64 weight)
{
	return dfs_rate_share(dfs_link_rate(p, m), weight);
}

/*
 * The same, as if the flows DFS drops were let in: under dfs_mq the
 * queues they arrive at would then be busy, and each queue's part of
 * bandwidth less (link_part_r, dfs_meter_load()).
 */
static inline u64 dfs_link_share_r(const struct dfs_params *p,
				   const struct dfs_meter *m, u64 weight)
{
	return dfs_rate_share(dfs_link_part_rate(p, m, m->link_part_r),
			      weight);
}

/*
 * The part of its last epoch the queue would have held a backlog had it
 * let in what it refused by a verdict (DFS's, CPR's, another queue's of
 * dfs_mq): the time it was busy, and the time its link would have taken
 * to send those bytes, DFS_METER_ONE all of it.  A flood dfs_mq's queues
 * refuse leaves them idle, but it is judged by what it would get let in.
 */
static inline u32 dfs_meter_load(const struct dfs_params *p,
				 const struct dfs_meter *m)
{
	u64 sendable;

	if (!m->refused_last)
		return m->busy_part;
	sendable = mul_u64_u64_div_u64(dfs_link_rate(p, m), m->last_ns,
				       NSEC_PER_SEC);
	if (m->refused_last >= sendable)
		return DFS_METER_ONE;
	return min_t(u64, m->busy_part +
		     div64_u64(m->refused_last * DFS_METER_ONE, sendable),
		     DFS_METER_ONE);
}

/* n, rounded to the nearest whole flow, at least one (Eq. 1, the dump). */
static inline u32 dfs_meter_active(const struct dfs_meter *m)
{
	u64 n = (dfs_meter_weight(m) + DFS_METER_ONE / 2) / DFS_METER_ONE;

	return min_t(u64, n, U32_MAX);
}

/* fair_bitrate of Algorithm 3: the link rate shared by the active flows. */
static inline u64 dfs_fair_rate(const struct dfs_params *p,
				const struct dfs_meter *m)
{
	return dfs_link_share(p, m, dfs_meter_weight(m));
}

/*
 * The fair rate a malicious flow is judged by: the link shared by the
 * active flows and by the flows DFS drops, as if they were let in again.
 * Judged by the active flows' fair rate alone, attackers cut together
 * leave n, the fair rate rises by their share, and each is let go as soon
 * as it sends under 1.5 times that: attackers at twice their fair rate
 * come under 1.5 times the others' once cut, are let in again, and are
 * marked again, in turn (the lab's scenario 2, doc/dfs.md).  Let in,
 * they would be at twice it.  A lone flood is judged by the fair rate it
 * was marked at, n + 1.  Here every flow is weighed by the rates with
 * the dropped flows in (step_r, active_r): weighed by the active flows'
 * own, a flow under its share would count for less than it does with the
 * attackers let in, and the attackers be judged nearer their fair rate
 * than they are.
 */
static inline u64 dfs_fair_rate_readmitted(const struct dfs_params *p,
					   const struct dfs_meter *m)
{
	return dfs_link_share_r(p, m, max(m->cur.active_r, m->prev.active_r) +
				      max(m->cur.dropped, m->prev.dropped));
}

/*
 * The fair rate of a key that @split queues of dfs_mq share: each queue's
 * round gives it 1/split of a key's share (dfs_flow_weight()).
 */
static inline u64 dfs_fair_split(u64 fair_rate, u32 split)
{
	return split > 1 ? div_u64(fair_rate, split) : fair_rate;
}

/*
 * The meter's rates change only when a flow is counted, an epoch ends or
 * the link's rate is set: enqueue reads them from the meter, and pays
 * their divisions only then, not for every packet.
 */
static inline void dfs_meter_update(const struct dfs_params *p,
				    struct dfs_meter *m)
{
	const struct dfs_meter_counts *c = &m->cur, *l = &m->prev;
	u64 n;

	if (!m->stale)
		return;
	n = max(c->n, l->n);
	m->paper = dfs_link_share(p, m, n);
	m->paper_r = dfs_link_share_r(p, m,
				      n + max(c->n_dropped, l->n_dropped));
	m->step = dfs_link_share(p, m, max(c->step, l->step));
	m->step_r = dfs_link_share_r(p, m, max(c->step_r, l->step_r) +
				     max(c->step_dropped, l->step_dropped));
	m->fair = dfs_fair_rate(p, m);
	m->fair_r = dfs_fair_rate_readmitted(p, m);
	m->stale = false;
}

/*
 * Bitrate of a flow, measured on arrivals over windows of @interval: a
 * malicious flow has no packet in the buffer, yet its rate must be known
 * to unmark it once it is fair again.  The paper's "one add per packet and
 * one division per period".  0 means not measured yet.
 */
static inline void dfs_flow_arrival(struct dfs_flow *f, u64 now, u32 len,
				    u64 interval)
{
	u64 elapsed = now - f->win_start;

	if (elapsed >= interval) {
		u64 windows = min_t(u64, div64_u64(elapsed, interval),
				    DFS_F_WINDOWS_MAX);

		dfs_flow_set_bitrate(f, div64_u64((u64)f->win_bytes *
						  NSEC_PER_SEC, elapsed));
		f->flags = (f->flags & ~(DFS_F_WINDOWS | DFS_F_LOSS_PREV)) |
			   windows << DFS_F_WINDOWS_SHIFT;
		if (f->flags & DFS_F_LOSS)
			f->flags = (f->flags & ~DFS_F_LOSS) | DFS_F_LOSS_PREV;
		f->win_bytes = 0;
		f->win_start = now;
	}
	dfs_flow_add_bytes(f, len);
}

/* ResetFlow(i) of Table 2; sz_i is zero whenever this is called. */
static inline void dfs_flow_reset(const struct dfs_params *p,
				  struct dfs_flow *f)
{
	f->pm = p->min_th;
	f->flags &= ~(DFS_F_MALICIOUS | DFS_F_STORE_BR | DFS_F_TRENDING);
}

/*
 * A p_m step of @delta * @num / @den (@delta at most DFS_F_WINDOWS_MAX *
 * TC_DFS_ONE), TC_DFS_ONE once @num / @den reaches it: a step that large
 * already takes p_m across all of [min_th, max_th], and the bound keeps the
 * quotient within 64 bits (on x86 mul_u64_u64_div_u64() is a divq, which
 * faults when the quotient overflows, e.g. "bandwidth" of petabits against
 * a flow measured at a few bytes per second).
 */
static inline u64 dfs_pm_step(u32 delta, u64 num, u64 den)
{
	if (div64_u64(num, den) >= TC_DFS_ONE)
		return TC_DFS_ONE;
	return mul_u64_u64_div_u64(delta, num, den);
}

/*
 * Algorithm 3, ProcessPacketAndDecide.  p_m stays within [min_th, max_th]
 * as the paper bounds it, so the flow is marked malicious when an update
 * takes p_m to max_th or beyond.
 *
 * Three readings of the paper hold a responsive flow that sends more than
 * its share (a host with many TCP connections, key src) to its share
 * rather than cut it off, while a flood is still cut within a few
 * windows (a third of a second at the link rate among 8 flows):
 *
 *  - A trending flow is "ECN-Marked" on every packet (line 17): a signal,
 *    its packets still enter the queue.  Dropping every packet of a flow
 *    that is not ECN capable would cut it off before it is judged, so
 *    only its packets over wfs are marked (dropped if not ECT), as before
 *    it was trending.
 *  - p_m moves by the bitrate once per bitrate measured, not once per
 *    freeze_time on the same sample, by a step per rate_interval the
 *    sample spans (DFS_F_WINDOWS): evidence counts by the time it covers,
 *    however the flow's packets cut it into windows.  A flow that backs
 *    off sends rarely, and a rare packet closes a long window.
 *  - The increase is delta_i times (br - fair) / fair, "directly
 *    proportional to difference between the flow's bitrate and the fair
 *    rate" as the text has it, where the pseudocode's br / fair adds a
 *    whole delta_i for a flow measured at its fair rate.  A flood at 8
 *    times the fair rate still gains 7 delta_i per window.  It applies
 *    from 1.5 times the fair rate: in one FIFO, TCP's bias for short RTTs
 *    and the share that flows under their fair rate leave unused give
 *    responsive flows that much more than b / n's fair rate (the lab's
 *    scenario 2).  Under it p_m falls by delta_d times fair / br, at
 *    least 2/3 delta_d, so a flow at or under its fair rate is unmarked
 *    within (max_th - trend_th) / delta_d intervals (2.2 s with the
 *    defaults), the sooner the less it sends.
 */
static inline enum dfs_verdict dfs_decide(const struct dfs_params *p,
					  struct dfs_flow *f, u64 now, u32 wfs,
					  u64 fair_rate)
{
	u32 windows = (f->flags & DFS_F_WINDOWS) >> DFS_F_WINDOWS_SHIFT;
	s64 trend_th = p->min_th + (s64)p->tolerance * p->delta_i;
	enum dfs_verdict verdict = DFS_ALLOW;
	u64 br = dfs_flow_bitrate(f);
	s64 pm = f->pm;
	bool thawed;

	/* A flow DFS drops, with no bitrate window closed since its p_m
	 * last moved (most of its packets: a window closes once a
	 * rate_interval): p_m, the flags and p_time would leave below as
	 * they are, so a flood's packet is refused here.  The bounds are
	 * checked as a change of them may have left p_m outside, for the
	 * clamp below.
	 */
	if ((f->flags & DFS_F_MALICIOUS) && !windows && pm > trend_th &&
	    pm <= p->max_th)
		return DFS_DROP;

	thawed = dfs_ptime_after(f, now, p->freeze_ns);
	if (pm <= trend_th) {
		if (f->backlog > wfs) {
			verdict = DFS_MARK;
			if (thawed) {
				f->flags |= DFS_F_STORE_BR;
				pm += p->delta_i;
				f->ptime = dfs_ptime(now);
			}
		} else if (!f->backlog) {
			pm -= p->delta_d;
			f->ptime = dfs_ptime(now);
			if (pm <= p->min_th) {
				dfs_flow_reset(p, f);
				return DFS_ALLOW;
			}
		}
	} else {
		if (f->flags & DFS_F_MALICIOUS)
			verdict = DFS_DROP;
		else if (f->backlog > wfs)
			verdict = DFS_MARK;
		/* A bitrate of 0 is not measured yet: no evidence either way. */
		if (thawed && (f->flags & DFS_F_STORE_BR) && windows &&
		    br && fair_rate) {
			/* over 1.5 times the fair rate, without overflow */
			if (br > fair_rate && br - fair_rate > fair_rate / 2)
				pm += dfs_pm_step(windows * p->delta_i,
						  br - fair_rate, fair_rate);
			else
				pm -= dfs_pm_step(windows * p->delta_d,
						  fair_rate, br);
			f->flags &= ~DFS_F_WINDOWS;
			f->ptime = dfs_ptime(now);
		}
		if (pm >= p->max_th)
			f->flags |= DFS_F_MALICIOUS;
	}

	pm = clamp_t(s64, pm, p->min_th, p->max_th);
	f->pm = pm;
	/*
	 * Below the trending threshold a flow is judged by its backlog again
	 * and its packets pass: it is no longer malicious either, so that
	 * the mark (and what xstats and the class dump report) means "being
	 * dropped".  It is reset, bitrate and all, at min_th.
	 */
	if (pm > trend_th)
		f->flags |= DFS_F_TRENDING;
	else
		f->flags &= ~(DFS_F_TRENDING | DFS_F_MALICIOUS);
	return verdict;
}

/* Algorithm 1, lines 10-13: where the flow belongs after a decision.  A
 * flow CPR drops is held in the cache too, where it is found first and
 * listed.
 */
static inline bool dfs_flow_wants_cache(const struct dfs_params *p,
					const struct dfs_flow *f)
{
	return f->pm >= p->max_th || (f->flags & DFS_F_CPR);
}

static inline bool dfs_flow_wants_btree(const struct dfs_params *p,
					const struct dfs_flow *f)
{
	return f->pm <= p->min_th && !(f->flags & DFS_F_CPR);
}

#endif /* _DFS_DECIDE_H */
