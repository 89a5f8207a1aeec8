/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPR, free of sk_buff: the congestion participation rate of a flow
 * (Zhang et al. 2012; adaptive threshold: Kieu et al., SoICT 2017).
 *
 * Time is cut into sampling periods; a period is congested when the qdisc
 * dropped (or marked) a packet in it, or (cpr_signal surges, below) when
 * more came in it than the link can send.  A flow's CPR is the share of its
 * packets that arrived in congested periods.  A low-rate ("shrew")
 * attacker sends only in the bursts that congest the link, so its CPR
 * tends to 1, while a flow that sends evenly has about the link's
 * congested share of periods (its CSR).  A flow whose CPR is over tau is
 * suspect; adaptive tau falls by alpha in each congested period, to
 * tau_min, and climbs by beta in each other one, to tau_max: it is low
 * while an attack's bursts last, and high again when the link is calm.
 *
 * Everything is settled lazily, O(1) per packet and with no timer: the
 * clock closes the periods that ended when the next packet or drop comes
 * (any number at once, the idle ones in one step), and a flow keeps the
 * period of its last packets and how many they were, which are counted
 * once that period has ended, at the flow's next packet.  Whether it was
 * congested comes from a ring of the last DFS_CPR_RING periods' bits; the
 * packets of an older period count as sent in a calm one, since nothing
 * says otherwise.
 *
 * The CPR is the paper's count, congested packets over all packets, with
 * one change: both counts are halved when the count of packets would pass
 * DFS_CPR_PACKETS_MAX, so a flow is judged on its last 2048 to 4095
 * packets.  A count from the flow's start would let a flow that has sent
 * for hours drift with the long-run CSR and never shed an old judgement;
 * a short moving average (tried first: 16 packets) swings a TCP flow's
 * CPR with every attack burst, above tau_min, while an attacker's packets
 * all come in bursts: its CPR is high however long it is measured
 * (cpr_test's test_cpr_separates_bursts is that case).
 *
 * A held flow (its CPR over tau: the qdisc drops its packets before they
 * are queued) can no longer congest the link, so counted as above it
 * would look calm, and be let go within the burst that got it held: a
 * throttle, not a block.  Its packets are counted as the link would have
 * seen them instead: as congested in a period that was congested, or a
 * surge, in which more bytes came (held ones included) than the link
 * sends in DFS_CPR_SURGE_HALVES / 2 periods.  An attacker held in step
 * with the others stays held for as long as their bursts go on; a flow
 * held by mistake that sends evenly counts its packets as the surges
 * fall, and goes free as soon as tau climbs back over its CPR, which it
 * does once the attackers are held and the link is calm.  With the
 * paper's signal (cpr_signal drops), surges count for held flows only:
 * for the others, and for tau, congestion is what the qdisc dropped or
 * marked.
 *
 * With cpr_signal surges, a period is congested when what came in it,
 * held packets too, less what the flow that brought most in it brought,
 * was a surge: for every flow and for tau; drops and marks do not count.
 * The drops of a qdisc that shares the link fall on the flows over
 * their share, in the periods they send most in: a TCP flow's own drops
 * make its CPR where a busy link is congested in many periods (at 10 ms
 * periods, in a third of them with TCP alone).  A surge is the attack's
 * own footprint: TCP, clocked by its ACKs, sends about what the link
 * takes.  A surge then also needs more than DFS_CPR_SURGE_MIN_BYTES, so
 * that in a period too short for a few packets at the link's rate, two
 * packets back to back are not one.
 *
 * Less the top flow, because a flow's own burst must not make its surge:
 * a TCP flow in slow start, a flood Algorithm 3 has not caught yet, a
 * lone host pulsing; each would be counted congested in the periods it
 * alone swamped, and the flows beside it with it.  The bursts of
 * attackers in step are a surge without any one of them.  Held packets
 * count: once most attackers are held, what the rest send beside TCP is
 * seldom a surge of its own, and counted as admitted only, the rest went
 * free and the attack came back, where with held packets counted none of
 * it got through (the lab's low-rate attack).  A flow's bytes in
 * the period are taken as its packets in it times the length of its
 * latest, O(1) and no more state; the packets stop at
 * DFS_CPR_PENDING_MAX, so where a period holds more of them at the
 * link's rate (1 ms periods from about 1 Gbit/s), a lone flow's burst
 * past that is a surge again.  A lone pulsing host is left to Algorithm
 * 3: to hurt TCP its bursts alone must pass the link's rate, so its mean
 * rate is over a fair share wherever a few flows share the link; the
 * paper's signal (cpr_signal drops) still sees it.
 *
 * By surges, a flow over tau is also judged against the link: it is a
 * suspect only if the share of its packets sent in calm periods is under
 * half the share of calm periods among the busy ones (in which anything
 * came) of the last DFS_CPR_RING - 1 (the ring's; they are counted as
 * the ring fills and empties, no walk).  A flood of many sources makes
 * every period a surge until DFS finds it, and every flow's CPR nears 1
 * with it: the CPR tells an attacker only where the link is calm between
 * its bursts, and an attacker sends nothing there.  A flow that sends
 * evenly has the link's share of calm periods, and TCP, which gets the
 * link between the bursts, more.  Busy ones, because no flow sends in a
 * period in which nothing came: counted among the calm ones, the idle
 * periods before the traffic began (the ring spans 10 s at 10 ms
 * periods) made the link look calm, and TCP flows starting together,
 * whose slow starts surge, were held as attackers (the lab's scenario
 * 2 through sched fifo).
 *
 * Where the link stays congested without an attack (a busy TCP link at
 * 10 ms periods), tau stays at tau_min, and a TCP flow held there would
 * stay held: it backs off to a packet an RTO, so its CPR barely moves.
 * That is how it differs from an attacker, which sends on whatever is
 * dropped: a held flow that sends no more than two full-sized packets
 * over a second of its hold is let go and judged afresh, its counts
 * forgotten (dfs_cpr_backed_off(), dfs_cpr_forget()).  A count of bytes,
 * not a rate: an attacker whose bursts come seconds apart averages a
 * low rate too, but a hold closes only on a packet, so each second of
 * it holds at least one whole burst.  A rate (under an eighth of a fair
 * rate) let attackers 1 to 2 s apart go (the lab's sweep).
 *
 * The defaults hold on any link without tuning because the one setting
 * that belongs to the link, the period, is derived from its rate
 * (cpr_period auto, dfs_cpr_derive_period()): DFS_CPR_PERIOD_FRAMES
 * full-sized frames at the rate DFS is given or measures, in whole
 * milliseconds, so that a period is the same unit of the link's work at
 * 10 Mbit/s (10 ms) as at 100 Mbit/s (1 ms), and a surge the same
 * excess of it.  Shorter, a period holds under a frame, and a few
 * packets back to back are a surge; longer, an attack's burst fills
 * fewer periods and TCP's calm ones between them blur in.  It is
 * floored at 1 ms, so the ring spans a second, as a hold does, and the
 * period count wraps only after weeks; from about 100 Mbit/s on, a
 * period holds more frames, and a surge is a larger and surer excess.
 * Until the rate is known (nothing sent from a backlog yet) the period is
 * 1 ms and nothing is a surge: nothing is judged, and an attack, which
 * congests the link, makes DFS measure it.  The others are the flow's,
 * not the link's: a period of eight frames makes the surge statistics
 * the same everywhere, and the verdict is about a flow's packets.
 * Surges as the signal, since drops fall on TCP wherever TCP alone keeps
 * the link busy (above).  tau_min 0.6: over half, so an even flow,
 * whose CPR is the share of periods that are surges, is not judged
 * unless an attack surges in more than half of them, which no attack
 * under a fair rate does beside a few flows (and the calm share test
 * holds TCP, which sends more between the bursts).  64 packets before a
 * verdict: a CPR of a third over 64 packets is within 0.06 of it (one
 * standard deviation), clear of 0.6, where over 16 it is 0.12; and an
 * attacker of scenario 6 (ten packets a burst) is judged within seven
 * bursts, before Algorithm 3, which counts the attackers in n until
 * they are held, takes TCP's share for too much.  A period the operator
 * sets is kept whatever the rate.
 *
 * Eight bytes a flow.  The period of a flow's last packet is also when it
 * was last seen, which prune asks (dfs_cpr_idle_before()).
 */
#ifndef _DFS_CPR_H
#define _DFS_CPR_H

#include <linux/pkt_sched_dfs.h>
#include <linux/compiler.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include <linux/types.h>

#define DFS_CPR_RING	1024	/* periods remembered: 1 s of 1 ms periods */
#define DFS_CPR_WORDS	(DFS_CPR_RING / 64)
#define DFS_CPR_PENDING_MAX	127	/* packets a period counts, at most */
#define DFS_CPR_PACKETS_MAX	4095	/* halved past this */
/* A surge: a period's arrivals over what the link sends in this many
 * periods (numerator over 2): half as much again as it can send, so a
 * link that TCP alone keeps full does not surge.
 */
#define DFS_CPR_SURGE_HALVES	3
/* A full-sized Ethernet frame, as qdisc_pkt_len() counts it */
#define DFS_CPR_FRAME		1514
/* and, with cpr_signal surges, more than eight of them */
#define DFS_CPR_SURGE_MIN_BYTES	(8 * DFS_CPR_FRAME)
/* A period derived from the link (cpr_period auto) holds this many
 * full-sized frames at its rate, in whole milliseconds, from
 * DFS_CPR_PERIOD_MIN_NS (the ring then spans a second) to
 * DFS_CPR_PERIOD_MAX_NS; DFS_CPR_PERIOD_MIN_NS until the rate is known.
 */
#define DFS_CPR_PERIOD_FRAMES	8
#define DFS_CPR_PERIOD_MIN_NS	NSEC_PER_MSEC
#define DFS_CPR_PERIOD_MAX_NS	NSEC_PER_SEC
/* By surges, a suspect sends under 1 / this of the link's calm share of
 * periods in calm ones (dfs_cpr_suspect()).
 */
#define DFS_CPR_CALM_RATIO	2
/* A held flow goes free when its CPR is this much under tau: a burst's
 * first and last periods are seldom surges, so a held attacker's CPR
 * sits a little over tau_max, and with no margin it came and went with
 * each burst.
 */
#define DFS_CPR_RELEASE_MARGIN	(TC_DFS_ONE / 10)
/* A held flow that sent no more than this over a hold of
 * DFS_CPR_HOLD_NS has backed off: two full-sized retransmissions, TCP's
 * after its first timeouts (200 ms, then 400, 800, ...).
 */
#define DFS_CPR_BACKOFF_BYTES	(2 * DFS_CPR_FRAME)
#define DFS_CPR_HOLD_NS		NSEC_PER_SEC

struct dfs_cpr_params {
	u64	period_ns;	/* sampling period; 0: from the link's rate */
	u32	tau;		/* fixed tau; TC_DFS_ONE = 1.0 */
	u32	alpha;		/* adaptive tau's fall per congested period */
	u32	beta;		/* its climb per calm period */
	u32	tau_min;
	u32	tau_max;	/* and its start */
	u32	min_packets;	/* a flow is judged from this many on */
	u32	signal;		/* enum tc_dfs_cpr_signal */
	bool	adaptive;
};

struct dfs_cpr_clock {
	u64	cur_start;	/* ns: start of period cur */
	u64	period_ns;	/* the length of period cur */
	u64	period_next;	/* and of the periods after it */
	u64	period_rate;	/* the link rate period_next is derived from */
	u32	cur;		/* index of the current period */
	u32	tau;		/* TC_DFS_ONE = 1.0 */
	u64	periods;	/* periods closed */
	u64	congested;	/* of them, congested */
	u64	surges;		/* of them, surges */
	u32	recent;		/* congested of the ring's ended periods */
	u32	busy;		/* of the ring's ended periods, busy ones */
	u64	arrived;	/* bytes come in period cur, held ones too */
	u64	top;		/* the most of them one flow brought */
	u64	link_rate;	/* bytes/s the link sends; 0: not known */
	u64	surge_bytes;	/* a period's arrivals over this: a surge */
	u64	ring[DFS_CPR_WORDS];	/* bit i % RING: period i congested */
	u64	surge[DFS_CPR_WORDS];	/* bit i % RING: period i a surge */
	u64	came[DFS_CPR_WORDS];	/* bit i % RING: period i busy */
};

/* A flow's part: eight bytes. */
struct dfs_cpr_flow {
	u32	period;		/* the period of its last packets */
	u32	pending:7;	/* packets in it, not counted yet */
	u32	held:1;		/* and it was held in it (dfs_cpr_hold()) */
	u32	congested:12;	/* counted packets of congested periods */
	u32	packets:12;	/* counted packets */
};

void dfs_cpr_params_init(struct dfs_cpr_params *p);
u64 dfs_cpr_derive_period(u64 rate);
void dfs_cpr_init(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		  u64 now);
void dfs_cpr_retune(struct dfs_cpr_clock *c, const struct dfs_cpr_params *old,
		    const struct dfs_cpr_params *p);
void dfs_cpr_advance(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		     u64 now);
void dfs_cpr_congest(struct dfs_cpr_clock *c);
void dfs_cpr_set_link(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		      u64 rate);
bool dfs_cpr_was_congested(const struct dfs_cpr_clock *c, u32 period);
bool dfs_cpr_was_surge(const struct dfs_cpr_clock *c, u32 period);
void dfs_cpr_new_period(const struct dfs_cpr_clock *c,
			struct dfs_cpr_flow *f);
bool dfs_cpr_suspect(const struct dfs_cpr_clock *c,
		     const struct dfs_cpr_params *p,
		     const struct dfs_cpr_flow *f, bool held);

/* Every packet asks; one in hundreds ends a period (dfs_cpr_advance()). */
static inline void dfs_cpr_tick(struct dfs_cpr_clock *c,
				const struct dfs_cpr_params *p, u64 now)
{
	if (now >= c->cur_start + c->period_ns)
		dfs_cpr_advance(c, p, now);
}

/* A packet of flow @f arrives (after dfs_cpr_tick()): counted in its
 * period, the flow's last period settled first if this is a new one.
 */
static inline void dfs_cpr_packet(const struct dfs_cpr_clock *c,
				  struct dfs_cpr_flow *f)
{
	if (f->period != c->cur)
		dfs_cpr_new_period(c, f);
	if (f->pending < DFS_CPR_PENDING_MAX)
		f->pending++;
}

/* The link sends @rate bytes/s (0: not known yet); after dfs_cpr_tick(). */
static inline void dfs_cpr_link(struct dfs_cpr_clock *c,
				const struct dfs_cpr_params *p, u64 rate)
{
	if (unlikely(rate != c->link_rate))
		dfs_cpr_set_link(c, p, rate);
}

/* A packet of @len bytes of flow @f came, to be queued or held (not one
 * the qdisc drops for its rate: such a flow cannot reach the link, held
 * or not); after dfs_cpr_packet() has counted it.
 */
static inline void dfs_cpr_arrive(struct dfs_cpr_clock *c,
				  const struct dfs_cpr_flow *f, u32 len)
{
	u64 brought = (u64)f->pending * len;

	c->arrived += len;
	if (brought > c->top)
		c->top = brought;
}

/* The flow's packet of this period is held: dropped before the queue. */
static inline void dfs_cpr_hold(struct dfs_cpr_flow *f)
{
	f->held = 1;
}

/* A held flow that sent @bytes over a hold of DFS_CPR_HOLD_NS or more
 * (to the packet that closes it) has backed off.
 */
static inline bool dfs_cpr_backed_off(u64 bytes)
{
	return bytes <= DFS_CPR_BACKOFF_BYTES;
}

/* Judge the flow afresh: nothing counted (it keeps its last period). */
static inline void dfs_cpr_forget(struct dfs_cpr_flow *f)
{
	f->pending = 0;
	f->held = 0;
	f->congested = 0;
	f->packets = 0;
}

/* A new flow, seen now. */
static inline void dfs_cpr_flow_init(const struct dfs_cpr_clock *c,
				     struct dfs_cpr_flow *f)
{
	*f = (struct dfs_cpr_flow){ .period = c->cur };
}

/*
 * Was the flow last seen before @period?  A signed difference: right for
 * 2^31 periods, 24 days of the shortest (1 ms), twice the longest prune
 * interval.
 */
static inline bool dfs_cpr_idle_before(const struct dfs_cpr_flow *f,
				       u32 period)
{
	return (s32)(f->period - period) < 0;
}

/* The flow's CPR as TC_DFS_ONE = 1.0, for dumps; 0 before it is counted. */
static inline u32 dfs_cpr_value(const struct dfs_cpr_flow *f)
{
	return f->packets ? f->congested * TC_DFS_ONE / f->packets : 0;
}

/* The congested share of periods (CSR), TC_DFS_ONE = 1.0. */
static inline u32 dfs_cpr_csr(const struct dfs_cpr_clock *c)
{
	return c->periods ? div64_u64(c->congested * TC_DFS_ONE, c->periods) : 0;
}

#endif /* _DFS_CPR_H */
