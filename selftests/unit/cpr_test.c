// SPDX-License-Identifier: GPL-2.0
/*
 * DFS's CPR core: adaptive tau's shape (the paper's Fig. 8: down to
 * tau_min within 10 congested periods, back once congestion ends), the
 * CPR of a flow that sends only in congested periods (tends to 1) and of
 * one that sends evenly (tends to the CSR), the two told apart under an
 * attack's bursts, and the edges: idle gaps of any length, periods too
 * old for the ring, the counts' halving, the judging threshold.
 */
#include "dfs_cpr.h"
#include "unit.h"
#include "xorshift.h"

#define MS	NSEC_PER_MSEC
#define ONE	TC_DFS_ONE

static const struct dfs_cpr_params paper = {
	.period_ns = MS, .tau = 600000, .alpha = 60000, .beta = 15000,
	.tau_min = 200000, .tau_max = 800000, .min_packets = 16,
	.adaptive = true,
};

/* One period: congested or not, then the clock moves into the next. */
static u64 period(struct dfs_cpr_clock *c, const struct dfs_cpr_params *p,
		  u64 now, bool congested)
{
	dfs_cpr_tick(c, p, now);
	if (congested)
		dfs_cpr_congest(c);
	now += p->period_ns;
	dfs_cpr_tick(c, p, now);
	return now;
}

/* @n packets of @len bytes of flow @f come, none held, as the qdisc
 * counts them: the packet, then its bytes.
 */
static void came(struct dfs_cpr_clock *c, struct dfs_cpr_flow *f, int n,
		 u32 len)
{
	for (; n > 0; n--) {
		dfs_cpr_packet(c, f);
		dfs_cpr_arrive(c, f, len);
	}
}

/* cpr_signal surges with 10 ms periods, the clock started at 0 on a
 * 10 Mbit/s link: 12500 bytes a period, a surge over 18750.
 */
static struct dfs_cpr_params surges_at_10mbit(struct dfs_cpr_clock *c)
{
	struct dfs_cpr_params p = paper;

	p.signal = TC_DFS_CPR_SIGNAL_SURGES;
	p.period_ns = 10 * MS;
	dfs_cpr_init(c, &p, 0);
	dfs_cpr_link(c, &p, 1250000);
	return p;
}

static void test_tau_falls_and_climbs(void)
{
	struct dfs_cpr_clock c;
	u64 now = 5 * MS;
	int i;

	dfs_cpr_init(&c, &paper, now);
	CHECK(c.tau == 800000, "adaptive tau starts at tau_max: %u", c.tau);
	for (i = 1; i <= 10; i++) {
		now = period(&c, &paper, now, true);
		if (i == 9)
			CHECK(c.tau == 260000, "after 9 congested: %u", c.tau);
	}
	CHECK(c.tau == 200000, "tau_min within 10 congested periods: %u", c.tau);
	now = period(&c, &paper, now, true);
	CHECK(c.tau == 200000, "not under tau_min: %u", c.tau);
	for (i = 1; i <= 40; i++) {
		now = period(&c, &paper, now, false);
		if (i == 20)
			CHECK(c.tau == 500000, "20 calm periods: %u", c.tau);
	}
	CHECK(c.tau == 800000, "back at tau_max after 40 calm: %u", c.tau);
	now = period(&c, &paper, now, false);
	CHECK(c.tau == 800000, "not over tau_max: %u", c.tau);
	CHECK(c.periods == 52 && c.congested == 11, "periods %llu, congested %llu",
	      (unsigned long long)c.periods, (unsigned long long)c.congested);
	CHECK(dfs_cpr_csr(&c) == 11 * ONE / 52, "CSR %u", dfs_cpr_csr(&c));
}

/* An idle gap closes any number of periods in one step, as calm ones. */
static void test_idle_gap(void)
{
	struct dfs_cpr_clock a, b;
	u64 now = 0;
	int i;

	dfs_cpr_init(&a, &paper, now);
	for (i = 0; i < 10; i++)
		now = period(&a, &paper, now, true);
	b = a;
	/* 17 calm periods one by one, or 17 at once */
	for (i = 0; i < 17; i++)
		now = period(&a, &paper, now, false);
	dfs_cpr_tick(&b, &paper, now + MS / 2);
	CHECK(a.tau == b.tau && a.cur == b.cur && a.periods == b.periods,
	      "one step: tau %u/%u cur %u/%u", a.tau, b.tau, a.cur, b.cur);
	/* a day of silence: no overflow, tau at its cap, the ring clear */
	dfs_cpr_congest(&b);
	dfs_cpr_tick(&b, &paper, now + 86400ULL * NSEC_PER_SEC);
	CHECK(b.tau == paper.tau_max, "tau after a day: %u", b.tau);
	for (i = 1; i < DFS_CPR_RING; i++)
		if (dfs_cpr_was_congested(&b, b.cur - i))
			break;
	CHECK(i == DFS_CPR_RING, "period %d ago still congested", i);
	/* within a period, nothing moves */
	a = b;
	dfs_cpr_tick(&b, &paper, b.cur_start + MS - 1);
	CHECK(b.cur == a.cur && b.periods == a.periods, "a tick inside a period");
}

static void test_fixed_tau(void)
{
	struct dfs_cpr_params p = paper;
	struct dfs_cpr_clock c;
	u64 now = 0;
	int i;

	p.adaptive = false;
	dfs_cpr_init(&c, &p, now);
	for (i = 0; i < 30; i++)
		now = period(&c, &p, now, i % 2);
	CHECK(c.tau == 600000, "fixed tau moved: %u", c.tau);
}

/* A shrew flow: it sends only in the periods its bursts congest. */
static void test_cpr_bursts_tend_to_one(void)
{
	struct dfs_cpr_flow f = {};
	struct dfs_cpr_clock c;
	u64 now = 0;
	int i, k;

	dfs_cpr_init(&c, &paper, now);
	dfs_cpr_flow_init(&c, &f);
	for (i = 0; i < 300; i++) {
		bool burst = i % 3 == 0;

		dfs_cpr_tick(&c, &paper, now);
		if (burst) {
			for (k = 0; k < 5; k++)
				dfs_cpr_packet(&c, &f);
			dfs_cpr_congest(&c);
		}
		now += MS;
		if (i < 3)	/* 5 packets counted: under min_packets */
			CHECK(!dfs_cpr_suspect(&c, &paper, &f, false),
			      "judged after %u packets", f.packets);
	}
	dfs_cpr_tick(&c, &paper, now);
	dfs_cpr_packet(&c, &f);
	CHECK(f.packets == 500 && f.congested == 500, "%u of %u",
	      f.congested, f.packets);
	CHECK(dfs_cpr_value(&f) == ONE, "CPR %u, not 1", dfs_cpr_value(&f));
	CHECK(dfs_cpr_suspect(&c, &paper, &f, false), "not suspect at CPR 1");
	/* its packets in calm periods bring it down, 500 / (500 + n), while
	 * tau climbs back to 0.8: released once the CPR is under it, after
	 * 125 calm packets
	 */
	for (i = 0; i < 200 && dfs_cpr_suspect(&c, &paper, &f, false); i++) {
		now += MS;
		dfs_cpr_tick(&c, &paper, now);
		dfs_cpr_packet(&c, &f);
	}
	CHECK(c.tau == 800000, "tau %u", c.tau);
	/* 500 / 625 is not over 0.8 */
	CHECK(i == 125, "released after %d calm packets, CPR %u", i,
	      dfs_cpr_value(&f));
}

/* A flow that sends evenly: its CPR hovers around the CSR. */
static void test_cpr_even_tends_to_csr(void)
{
	struct dfs_cpr_flow f = {};
	struct dfs_cpr_clock c;
	u64 now = 0, sum = 0;
	int i, n = 0;

	dfs_cpr_init(&c, &paper, now);
	dfs_cpr_flow_init(&c, &f);
	for (i = 0; i < 20000; i++) {
		dfs_cpr_tick(&c, &paper, now);
		dfs_cpr_packet(&c, &f);
		if (xorshift() % 100 < 30)
			dfs_cpr_congest(&c);
		if (i >= 1000) {
			sum += dfs_cpr_value(&f);
			n++;
		}
		CHECK(f.packets <= DFS_CPR_PACKETS_MAX, "%u packets", f.packets);
		now += MS;
	}
	CHECK(llabs((long long)(sum / n) - (long long)dfs_cpr_csr(&c)) < 20000,
	      "mean CPR %llu, CSR %u", (unsigned long long)(sum / n),
	      dfs_cpr_csr(&c));
	CHECK(dfs_cpr_csr(&c) > 280000 && dfs_cpr_csr(&c) < 320000, "CSR %u",
	      dfs_cpr_csr(&c));
}

/*
 * The case that chose counts over a short moving average: bursts that
 * congest a third of the time (100 ms every 300 ms), a TCP-like flow
 * sending a packet every 10 ms throughout, an attacker only in the
 * bursts.  After its first second the TCP flow's CPR stays near the CSR
 * (a third), under the attacker's (1) and never near it, packet by packet.
 */
static void test_cpr_separates_bursts(void)
{
	struct dfs_cpr_flow tcp, atk;
	u32 lo = ONE, hi = 0;
	struct dfs_cpr_clock c;
	u64 now = 0;
	int i;

	dfs_cpr_init(&c, &paper, now);
	dfs_cpr_flow_init(&c, &tcp);
	dfs_cpr_flow_init(&c, &atk);
	for (i = 0; i < 120000; i++) {	/* 2 minutes of 1 ms */
		bool burst = i % 300 < 100;

		dfs_cpr_tick(&c, &paper, now);
		if (burst)
			dfs_cpr_congest(&c);
		if (i % 10 == 0) {
			dfs_cpr_packet(&c, &tcp);
			if (burst)
				dfs_cpr_packet(&c, &atk);
			if (i >= 1000) {
				lo = min(lo, dfs_cpr_value(&tcp));
				hi = max(hi, dfs_cpr_value(&tcp));
			}
		}
		now += MS;
	}
	CHECK(lo > 250000 && hi < 420000, "TCP's CPR from %u to %u", lo, hi);
	CHECK(dfs_cpr_value(&atk) == ONE, "the attacker's %u",
	      dfs_cpr_value(&atk));
}

/* Packets are counted once their period ends; too old a period (out of
 * the ring) counts as calm; more than DFS_CPR_PENDING_MAX in a period count as that many; the
 * counts are halved past DFS_CPR_PACKETS_MAX.
 */
static void test_lazy_settling(void)
{
	struct dfs_cpr_flow f;
	struct dfs_cpr_clock c;
	u64 now = 0;
	int i;

	dfs_cpr_init(&c, &paper, now);
	dfs_cpr_flow_init(&c, &f);
	for (i = 0; i < 300; i++)
		dfs_cpr_packet(&c, &f);
	dfs_cpr_congest(&c);
	CHECK(f.pending == DFS_CPR_PENDING_MAX && f.packets == 0 &&
	      f.congested == 0,
	      "pending %u packets %u", f.pending, f.packets);
	now += MS;
	dfs_cpr_tick(&c, &paper, now);
	dfs_cpr_packet(&c, &f);
	CHECK(f.packets == 127 && f.congested == 127 && f.pending == 1,
	      "settled: %u of %u", f.congested, f.packets);
	/* congested period, then silent past the ring: counted calm */
	dfs_cpr_congest(&c);
	dfs_cpr_tick(&c, &paper, now + (DFS_CPR_RING + 1) * MS);
	CHECK(!dfs_cpr_was_congested(&c, f.period), "out of the ring, known");
	dfs_cpr_packet(&c, &f);
	CHECK(f.packets == 128 && f.congested == 127, "an old period: %u of %u",
	      f.congested, f.packets);
	/* the current period is not known yet */
	dfs_cpr_congest(&c);
	CHECK(!dfs_cpr_was_congested(&c, c.cur), "the current period known");
	CHECK(dfs_cpr_was_congested(&c, c.cur - DFS_CPR_RING) == false,
	      "a period RING ago");

	/* 127 a period, every other congested: halved as it passes 4095 */
	now = c.cur_start;
	for (i = 0; i < 80; i++) {
		u32 before = f.packets;

		now += MS;
		dfs_cpr_tick(&c, &paper, now);
		if (i % 2)
			dfs_cpr_congest(&c);
		dfs_cpr_packet(&c, &f);
		f.pending = DFS_CPR_PENDING_MAX;
		CHECK(f.packets <= DFS_CPR_PACKETS_MAX && f.congested <= f.packets,
		      "%u of %u", f.congested, f.packets);
		if (before + 127 > DFS_CPR_PACKETS_MAX)
			CHECK(f.packets == before / 2 + 127, "halved: %u -> %u",
			      before, f.packets);
	}
	CHECK(dfs_cpr_value(&f) > 450000 && dfs_cpr_value(&f) < 550000,
	      "half congested: %u", dfs_cpr_value(&f));
}

/* A surge: more bytes came in a period than the link sends in 1.5. */
static void test_surge(void)
{
	struct dfs_cpr_flow a, b;
	struct dfs_cpr_clock c;
	u64 now = 0;

	dfs_cpr_init(&c, &paper, now);
	dfs_cpr_flow_init(&c, &a);
	dfs_cpr_flow_init(&c, &b);
	came(&c, &a, 1, 1000000);
	now += MS;
	dfs_cpr_tick(&c, &paper, now);
	CHECK(!dfs_cpr_was_surge(&c, c.cur - 1), "a surge on an unknown link");
	/* 10 Mbit/s: 1250 bytes a period, a surge past 1875 */
	dfs_cpr_link(&c, &paper, 1250000);
	CHECK(c.surge_bytes == 1875, "surge over %llu bytes",
	      (unsigned long long)c.surge_bytes);
	came(&c, &a, 1, 1875);
	now += MS;
	dfs_cpr_tick(&c, &paper, now);
	CHECK(!dfs_cpr_was_surge(&c, c.cur - 1), "1875 bytes a surge");
	came(&c, &a, 1, 1000);
	came(&c, &b, 1, 876);
	now += 3 * MS;		/* two idle periods after it */
	dfs_cpr_tick(&c, &paper, now);
	CHECK(dfs_cpr_was_surge(&c, c.cur - 3), "1876 bytes not a surge");
	CHECK(!dfs_cpr_was_surge(&c, c.cur - 2) &&
	      !dfs_cpr_was_surge(&c, c.cur - 1), "idle periods surged");
	CHECK(!dfs_cpr_was_congested(&c, c.cur - 3), "a surge is congestion");
	CHECK(c.surges == 1 && c.congested == 0, "surges %llu",
	      (unsigned long long)c.surges);
	/* a period twice as long: twice the bytes */
	{
		struct dfs_cpr_params p2 = paper;

		p2.period_ns = 2 * MS;
		dfs_cpr_retune(&c, &paper, &p2);
		CHECK(c.surge_bytes == 3750, "after a change: %llu",
		      (unsigned long long)c.surge_bytes);
	}
}

/*
 * A held flow's packets count as congested in a surge, and only a held
 * flow's: the others count what the qdisc dropped or marked.
 */
static void test_held_counts_surges(void)
{
	struct dfs_cpr_flow held, free, other;
	struct dfs_cpr_clock c;
	u64 now = 0;
	int i;

	dfs_cpr_init(&c, &paper, now);
	dfs_cpr_link(&c, &paper, 1250000);
	dfs_cpr_flow_init(&c, &held);
	dfs_cpr_flow_init(&c, &free);
	dfs_cpr_flow_init(&c, &other);
	for (i = 0; i < 4; i++) {	/* surge, calm, surge, calm */
		dfs_cpr_tick(&c, &paper, now);
		dfs_cpr_packet(&c, &held);
		dfs_cpr_hold(&held);
		dfs_cpr_packet(&c, &free);
		if (i % 2 == 0)
			came(&c, &other, 1, 3000);
		now += MS;
	}
	dfs_cpr_tick(&c, &paper, now);
	dfs_cpr_packet(&c, &held);
	dfs_cpr_packet(&c, &free);
	CHECK(held.packets == 4 && held.congested == 2, "held: %u of %u",
	      held.congested, held.packets);
	CHECK(free.packets == 4 && free.congested == 0, "not held: %u of %u",
	      free.congested, free.packets);
	CHECK(!held.held, "held carried into a new period");
}

/*
 * Why surges count: the attack of test_cpr_separates_bursts, with the
 * flows over tau held as the qdisc holds them.  A held flow's packets
 * congest nothing, so the link is calm while the attacker is held and
 * tau climbs to tau_max: counted as congestion alone, the attacker's CPR
 * would fall under it within a burst and let it go.  Counted in surges,
 * it stays held for as long as it bursts; the even flow, held along with
 * it while tau was low, goes free once tau is back over its CPR.
 */
static void test_held_attacker_stays_held(void)
{
	const u32 link = 1250000;	/* bytes/s: 1250 a period */
	struct dfs_cpr_flow tcp, atk;
	bool tcp_held = false, atk_held = false;
	int i, atk_held_ms = 0, tcp_held_late = 0, bursts_late = 0;
	struct dfs_cpr_clock c;
	u64 now = 0;

	dfs_cpr_init(&c, &paper, now);
	dfs_cpr_link(&c, &paper, link);
	dfs_cpr_flow_init(&c, &tcp);
	dfs_cpr_flow_init(&c, &atk);
	for (i = 0; i < 30000; i++) {	/* 30 s of 1 ms */
		bool burst = i % 300 < 100;
		u32 admitted = 0;

		dfs_cpr_tick(&c, &paper, now);
		/* TCP: a 1000-byte packet a period */
		dfs_cpr_packet(&c, &tcp);
		tcp_held = dfs_cpr_suspect(&c, &paper, &tcp, tcp_held);
		dfs_cpr_arrive(&c, &tcp, 1000);
		if (tcp_held)
			dfs_cpr_hold(&tcp);
		else
			admitted += 1000;
		/* the attacker: 2500 bytes a period in its bursts */
		if (burst) {
			dfs_cpr_packet(&c, &atk);
			atk_held = dfs_cpr_suspect(&c, &paper, &atk, atk_held);
			dfs_cpr_arrive(&c, &atk, 2500);
			if (atk_held)
				dfs_cpr_hold(&atk);
			else
				admitted += 2500;
		}
		/* what is admitted past the link's rate is dropped */
		if (admitted > 1250)
			dfs_cpr_congest(&c);
		if (i >= 3000) {
			atk_held_ms += burst && atk_held;
			bursts_late += burst;
			tcp_held_late += tcp_held;
		}
		now += MS;
	}
	CHECK(atk_held_ms > bursts_late * 95 / 100,
	      "attacker held %d of its %d burst periods", atk_held_ms,
	      bursts_late);
	CHECK(tcp_held_late == 0, "the even flow held %d periods after 3 s",
	      tcp_held_late);
	CHECK(c.tau == paper.tau_max, "tau %u under an attack held", c.tau);
}

/*
 * cpr_signal surges: a period is congested when what came in it, held
 * packets too, less the top flow's bytes, is a surge, for tau and every
 * flow, held or not; a drop alone is not congestion.  A surge needs more
 * than DFS_CPR_SURGE_MIN_BYTES where the period is short.
 */
static void test_surge_signal(void)
{
	struct dfs_cpr_params p = paper;
	struct dfs_cpr_flow f, g[3];
	struct dfs_cpr_clock c;
	u64 now = 0;
	int i, j;

	p.signal = TC_DFS_CPR_SIGNAL_SURGES;
	dfs_cpr_init(&c, &p, now);
	dfs_cpr_link(&c, &p, 1250000);
	CHECK(c.surge_bytes == DFS_CPR_SURGE_MIN_BYTES,
	      "1 ms at 10 Mbit/s: a surge over %llu bytes",
	      (unsigned long long)c.surge_bytes);
	{
		struct dfs_cpr_params p10 = p;

		p10.period_ns = 10 * MS;
		dfs_cpr_retune(&c, &p, &p10);
		CHECK(c.surge_bytes == 18750, "10 ms: over %llu bytes",
		      (unsigned long long)c.surge_bytes);
		dfs_cpr_retune(&c, &p10, &p);
	}
	dfs_cpr_flow_init(&c, &f);
	for (j = 0; j < 3; j++)
		dfs_cpr_flow_init(&c, &g[j]);
	for (i = 0; i < 10; i++) {	/* drops, no surge: calm */
		dfs_cpr_tick(&c, &p, now);
		came(&c, &f, 1, 3000);
		dfs_cpr_congest(&c);
		now += MS;
	}
	for (i = 0; i < 10; i++) {	/* surges, no drop: congested */
		dfs_cpr_tick(&c, &p, now);
		came(&c, &f, 1, 1000);
		/* 13200 bytes less the top flow's 6100, one of them held */
		for (j = 0; j < 3; j++)
			came(&c, &g[j], 1, 6100);
		dfs_cpr_hold(&g[2]);
		now += MS;
	}
	dfs_cpr_tick(&c, &p, now);
	dfs_cpr_packet(&c, &f);
	CHECK(c.congested == 10 && c.surges == 10, "%llu congested, %llu surges",
	      (unsigned long long)c.congested, (unsigned long long)c.surges);
	CHECK(!dfs_cpr_was_congested(&c, c.cur - 11) &&
	      dfs_cpr_was_congested(&c, c.cur - 10) &&
	      dfs_cpr_was_congested(&c, c.cur - 1), "the ring by drops");
	CHECK(f.packets == 20 && f.congested == 10, "not held: %u of %u",
	      f.congested, f.packets);
	CHECK(c.tau == p.tau_min, "tau %u after 10 surges", c.tau);
}

/*
 * Why the surge signal: a TCP flow over its share sends most in the
 * periods that end in its own drops (here 15 packets in one period of
 * three, 10 in the others, and a drop in the big one; 10 ms periods at
 * 10 Mbit/s, 12500 bytes a period).  By drops its CPR is its share of
 * packets in those periods, over a tau_min a little lower; by surges
 * it is only its share in the attack's bursts, as it never sends more
 * than the link takes in 1.5 periods.  An attack of five hosts in step,
 * bursting twice the link's rate together one period in five, is caught
 * by either.
 */
static void test_own_drops_are_not_surges(void)
{
	struct dfs_cpr_params p = paper;
	int sig;

	p.period_ns = 10 * MS;
	for (sig = TC_DFS_CPR_SIGNAL_DROPS; sig <= TC_DFS_CPR_SIGNAL_SURGES;
	     sig++) {
		struct dfs_cpr_flow tcp, atk[5];
		struct dfs_cpr_clock c;
		u64 now = 0;
		int i, j;

		p.signal = sig;
		dfs_cpr_init(&c, &p, now);
		dfs_cpr_link(&c, &p, 1250000);
		dfs_cpr_flow_init(&c, &tcp);
		for (j = 0; j < 5; j++)
			dfs_cpr_flow_init(&c, &atk[j]);
		for (i = 0; i < 3000; i++) {	/* 30 s */
			int n = i % 3 ? 10 : 15;

			dfs_cpr_tick(&c, &p, now);
			came(&c, &tcp, n, 1000);
			if (n == 15)
				dfs_cpr_congest(&c);
			if (i % 5 == 0 && i % 3) {
				for (j = 0; j < 5; j++)
					came(&c, &atk[j], 5, 1000);
				dfs_cpr_congest(&c);
			}
			now += p.period_ns;
		}
		dfs_cpr_tick(&c, &p, now);
		dfs_cpr_packet(&c, &tcp);
		if (sig == TC_DFS_CPR_SIGNAL_DROPS)
			CHECK(dfs_cpr_value(&tcp) > ONE * 2 / 5,
			      "by drops, TCP's CPR %u", dfs_cpr_value(&tcp));
		else	/* its packets in the attack's bursts: 0.11 */
			CHECK(dfs_cpr_value(&tcp) < p.tau_min,
			      "by surges, TCP's CPR %u", dfs_cpr_value(&tcp));
		for (j = 0; j < 5; j++) {
			dfs_cpr_packet(&c, &atk[j]);
			CHECK(dfs_cpr_value(&atk[j]) == ONE,
			      "signal %d: attacker %d's CPR %u", sig, j,
			      dfs_cpr_value(&atk[j]));
		}
	}
}

/*
 * By surges, a flow is judged against the link's calm periods: a flood
 * of many sources that makes every period a surge makes no flow a
 * suspect, however high its CPR; attackers whose bursts are the link's
 * only surges are, and a flow that sends evenly beside them is not.  The
 * link's count forgets what the ring forgets.
 */
static void test_surge_judged_against_link(void)
{
	struct dfs_cpr_flow f[10], atk[5], even;
	struct dfs_cpr_clock c;
	struct dfs_cpr_params p = surges_at_10mbit(&c);
	u64 now = 0;
	int i, j;

	for (j = 0; j < 10; j++)
		dfs_cpr_flow_init(&c, &f[j]);
	for (i = 0; i < 300; i++) {	/* 3 s of a flood: every period */
		dfs_cpr_tick(&c, &p, now);
		for (j = 0; j < 10; j++)
			came(&c, &f[j], 1, 3000);
		now += p.period_ns;
	}
	dfs_cpr_tick(&c, &p, now);
	dfs_cpr_packet(&c, &f[0]);
	CHECK(dfs_cpr_value(&f[0]) == ONE && c.tau == p.tau_min,
	      "CPR %u, tau %u", dfs_cpr_value(&f[0]), c.tau);
	CHECK(c.recent == 300, "%u recent congested", c.recent);
	CHECK(!dfs_cpr_suspect(&c, &p, &f[0], false), "a suspect under a flood");
	/* 20 s on, the flood has left the ring: no period congested */
	now += 20 * NSEC_PER_SEC;
	dfs_cpr_tick(&c, &p, now);
	CHECK(c.recent == 0, "%u congested after the ring's span", c.recent);

	/* a shrew attack of five hosts bursting one period in three, an
	 * even flow beside it
	 */
	for (j = 0; j < 5; j++)
		dfs_cpr_flow_init(&c, &atk[j]);
	dfs_cpr_flow_init(&c, &even);
	for (i = 0; i < 1500; i++) {
		dfs_cpr_tick(&c, &p, now);
		came(&c, &even, 1, 1000);
		for (j = 0; i % 3 == 0 && j < 5; j++)
			came(&c, &atk[j], 1, 5000);
		now += p.period_ns;
	}
	dfs_cpr_tick(&c, &p, now);
	for (j = 0; j < 5; j++) {
		dfs_cpr_packet(&c, &atk[j]);
		CHECK(dfs_cpr_suspect(&c, &p, &atk[j], false),
		      "attacker %d, CPR %u, not one", j,
		      dfs_cpr_value(&atk[j]));
	}
	dfs_cpr_packet(&c, &even);
	CHECK(!dfs_cpr_suspect(&c, &p, &even, false), "the even flow, CPR %u, one",
	      dfs_cpr_value(&even));
	CHECK(c.busy == DFS_CPR_RING - 1, "%u busy periods of %u", c.busy,
	      DFS_CPR_RING - 1);
}

/*
 * The link's calm share is of its busy periods: the idle ones before
 * traffic starts are not calm ones any flow could have sent in.  Eight
 * seconds idle, then five flows that start together and surge in step
 * two periods in three (slow starts into a busy link), each sending half
 * as much in the calm third: CPR 0.8, over tau, but none is a suspect,
 * where with the idle periods counted as calm (the ring's share 0.95)
 * every one was.  Attackers that
 * send in no calm period are, at once.
 */
static void test_idle_is_not_calm(void)
{
	struct dfs_cpr_flow f[5], atk[5];
	struct dfs_cpr_clock c;
	struct dfs_cpr_params p = surges_at_10mbit(&c);
	u64 now = 8 * NSEC_PER_SEC;
	int i, j;

	dfs_cpr_tick(&c, &p, now);
	CHECK(c.busy == 0 && c.periods == 800, "%u busy of %llu", c.busy,
	      (unsigned long long)c.periods);
	for (j = 0; j < 5; j++) {
		dfs_cpr_flow_init(&c, &f[j]);
		dfs_cpr_flow_init(&c, &atk[j]);
	}
	for (i = 0; i < 60; i++) {	/* 0.6 s */
		dfs_cpr_tick(&c, &p, now);
		for (j = 0; j < 5; j++)
			came(&c, &f[j], i % 3 ? 4 : 2, 1500);
		now += p.period_ns;
	}
	dfs_cpr_tick(&c, &p, now);
	CHECK(c.busy == 60 && c.recent == 40, "%u busy, %u congested", c.busy,
	      c.recent);
	for (j = 0; j < 5; j++) {
		dfs_cpr_packet(&c, &f[j]);
		CHECK(dfs_cpr_value(&f[j]) > c.tau &&
		      !dfs_cpr_suspect(&c, &p, &f[j], false),
		      "flow %d: CPR %u, tau %u, a suspect", j,
		      dfs_cpr_value(&f[j]), c.tau);
	}
	for (i = 0; i < 60; i++) {	/* the same, attackers in the surges */
		dfs_cpr_tick(&c, &p, now);
		for (j = 0; j < 5; j++) {
			came(&c, &f[j], i % 3 ? 4 : 2, 1500);
			if (i % 3)
				came(&c, &atk[j], 2, 1500);
		}
		now += p.period_ns;
	}
	dfs_cpr_tick(&c, &p, now);
	for (j = 0; j < 5; j++) {
		dfs_cpr_packet(&c, &atk[j]);
		CHECK(dfs_cpr_suspect(&c, &p, &atk[j], false),
		      "attacker %d: CPR %u, not a suspect", j,
		      dfs_cpr_value(&atk[j]));
	}
}

/*
 * By surges, what the top flow of a period brought is not counted: a
 * flow's own burst makes no surge.  At 10 Mbit/s and 10 ms periods
 * (12500 bytes a period, a surge over 18750): a lone flow at three times
 * the link's rate makes none, nor does a flood at twice it beside TCP at
 * the link's rate; sixteen hosts in step at an eighth of it each, twice
 * the link together, make one in each of their bursts, and are suspects
 * beside a flow that sends a packet every period.  Exactly
 * surge_bytes beside the top flow is no surge, a byte more is one; and
 * a top flow whose packets grew counts no more than came.
 */
static void test_surge_without_top_flow(void)
{
	struct dfs_cpr_flow lone, flood, tcp, victim, atk[16], a, b;
	struct dfs_cpr_clock c;
	struct dfs_cpr_params p = surges_at_10mbit(&c);
	u64 now = 0;
	int i, j;

	dfs_cpr_flow_init(&c, &lone);
	for (i = 0; i < 300; i++) {	/* 3 s, 25 x 1500 bytes a period */
		dfs_cpr_tick(&c, &p, now);
		came(&c, &lone, 25, 1500);
		now += p.period_ns;
	}
	dfs_cpr_tick(&c, &p, now);
	dfs_cpr_packet(&c, &lone);
	CHECK(c.surges == 300 && c.congested == 0,
	      "a lone flow: %llu surges, %llu congested",
	      (unsigned long long)c.surges, (unsigned long long)c.congested);
	CHECK(dfs_cpr_value(&lone) == 0 && c.tau == p.tau_max,
	      "a lone flow's CPR %u, tau %u", dfs_cpr_value(&lone), c.tau);

	dfs_cpr_flow_init(&c, &flood);
	dfs_cpr_flow_init(&c, &tcp);
	for (i = 0; i < 300; i++) {	/* 25000 and 12500 a period */
		dfs_cpr_tick(&c, &p, now);
		came(&c, &flood, 20, 1250);
		came(&c, &tcp, 10, 1250);
		now += p.period_ns;
	}
	dfs_cpr_tick(&c, &p, now);
	dfs_cpr_packet(&c, &tcp);
	CHECK(c.congested == 0, "a flood beside TCP: %llu congested",
	      (unsigned long long)c.congested);
	CHECK(dfs_cpr_value(&tcp) == 0 && tcp.packets == 3000,
	      "TCP beside a flood: CPR %u of %u", dfs_cpr_value(&tcp),
	      tcp.packets);

	for (j = 0; j < 16; j++)
		dfs_cpr_flow_init(&c, &atk[j]);
	dfs_cpr_flow_init(&c, &victim);
	for (i = 0; i < 1500; i++) {	/* a burst one period in three */
		dfs_cpr_tick(&c, &p, now);
		for (j = 0; i % 3 == 0 && j < 16; j++)
			came(&c, &atk[j], 1, 1562);
		came(&c, &victim, 1, 1250);
		now += p.period_ns;
	}
	dfs_cpr_tick(&c, &p, now);
	CHECK(c.congested == 500, "16 hosts in step: %llu congested",
	      (unsigned long long)c.congested);
	for (j = 0; j < 16; j++) {
		dfs_cpr_packet(&c, &atk[j]);
		CHECK(dfs_cpr_value(&atk[j]) == ONE &&
		      dfs_cpr_suspect(&c, &p, &atk[j], false),
		      "host %d of 16: CPR %u, not a suspect", j,
		      dfs_cpr_value(&atk[j]));
	}

	dfs_cpr_flow_init(&c, &a);
	dfs_cpr_flow_init(&c, &b);
	came(&c, &a, 1, 18750);
	came(&c, &b, 1, 20000);
	now += p.period_ns;
	dfs_cpr_tick(&c, &p, now);
	CHECK(!dfs_cpr_was_congested(&c, c.cur - 1), "surge_bytes a surge");
	came(&c, &a, 1, 18751);
	came(&c, &b, 1, 20000);
	now += p.period_ns;
	dfs_cpr_tick(&c, &p, now);
	CHECK(dfs_cpr_was_congested(&c, c.cur - 1), "a byte more, no surge");
	/* a's second packet is long: 2 x 30000 against 30100 that came */
	came(&c, &a, 1, 100);
	came(&c, &a, 1, 30000);
	now += p.period_ns;
	dfs_cpr_tick(&c, &p, now);
	CHECK(!dfs_cpr_was_congested(&c, c.cur - 1) &&
	      dfs_cpr_was_surge(&c, c.cur - 1), "a grown top flow");
}

/*
 * cpr_period auto: eight full-sized frames at the link's rate, in whole
 * milliseconds, from 1 ms (the ring's second) to 1 s; 1 ms while the
 * rate is not known.
 */
static void test_derived_period(void)
{
	static const struct { u64 rate, ms; } t[] = {
		{ 0, 1 },			/* not known yet */
		{ 100, 1000 },			/* 800 bit/s: capped */
		{ 125000, 97 },			/* 1 Mbit/s: 96.9 ms */
		{ 1250000, 10 },		/* 10 Mbit/s: 9.69 ms */
		{ 1562500, 8 },			/* 12.5 Mbit/s: 7.75 ms */
		{ 12500000, 1 },		/* 100 Mbit/s: 0.97 ms */
		{ 1250000000, 1 },		/* 10 Gbit/s: floored */
		{ 1250000000000ULL, 1 },	/* 10 Tbit/s */
	};
	struct dfs_cpr_params p;
	u64 rate;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECK(dfs_cpr_derive_period(t[i].rate) == t[i].ms * MS,
		      "%llu bytes/s: %llu ns", (unsigned long long)t[i].rate,
		      (unsigned long long)dfs_cpr_derive_period(t[i].rate));
	/* never under eight frames but where floored, nor a ms over */
	for (rate = 1000; rate < 20000000000ULL; rate += rate / 7 + 1) {
		u64 ns = dfs_cpr_derive_period(rate);
		u64 bytes = rate * ns / NSEC_PER_SEC;

		if ((ns > MS && ns < NSEC_PER_SEC && bytes < 8 * 1514) ||
		    (ns < NSEC_PER_SEC &&
		     rate * (ns - MS) / NSEC_PER_SEC >= 8 * 1514))
			break;
	}
	CHECK(rate >= 20000000000ULL, "%llu bytes/s: %llu ns",
	      (unsigned long long)rate,
	      (unsigned long long)dfs_cpr_derive_period(rate));
	dfs_cpr_params_init(&p);
	CHECK(p.period_ns == 0 && p.adaptive &&
	      p.signal == TC_DFS_CPR_SIGNAL_SURGES && p.tau_min == 600000 &&
	      p.tau_max == 800000 && p.min_packets == 64,
	      "defaults: period %llu signal %u tau_min %u min_packets %u",
	      (unsigned long long)p.period_ns, p.signal, p.tau_min,
	      p.min_packets);
}

/*
 * A derived period follows the link's rate from the next period on, not
 * its jitter (under a quarter); an operator's period stays as set, and
 * going back to auto derives at once.
 */
static void test_period_follows_link(void)
{
	struct dfs_cpr_params p, set;
	struct dfs_cpr_clock c;
	u64 now = 0;

	dfs_cpr_params_init(&p);
	dfs_cpr_init(&c, &p, now);
	CHECK(c.period_ns == MS && c.surge_bytes == U64_MAX,
	      "unknown: %llu ns", (unsigned long long)c.period_ns);
	now += MS / 2;
	dfs_cpr_tick(&c, &p, now);
	dfs_cpr_link(&c, &p, 1250000);		/* 10 Mbit/s */
	CHECK(c.period_ns == MS && c.period_next == 10 * MS &&
	      c.surge_bytes == 8 * 1514, "mid-period: %llu ns, surge %llu",
	      (unsigned long long)c.period_ns,
	      (unsigned long long)c.surge_bytes);
	now += MS / 2;
	dfs_cpr_tick(&c, &p, now);
	CHECK(c.cur == 1 && c.cur_start == MS && c.period_ns == 10 * MS &&
	      c.surge_bytes == 18750, "next period: %u, %llu ns, surge %llu",
	      c.cur, (unsigned long long)c.period_ns,
	      (unsigned long long)c.surge_bytes);
	now += 10 * MS - 1;
	dfs_cpr_tick(&c, &p, now);
	CHECK(c.cur == 1, "a 10 ms period ended after %llu ns",
	      (unsigned long long)(now - MS));
	/* measured a little off: kept, the surge at the rate measured */
	dfs_cpr_link(&c, &p, 1000001);
	dfs_cpr_tick(&c, &p, now += 20 * MS);
	CHECK(c.period_ns == 10 * MS && c.surge_bytes == 15000,
	      "jitter moved it: %llu ns, surge %llu",
	      (unsigned long long)c.period_ns,
	      (unsigned long long)c.surge_bytes);
	dfs_cpr_link(&c, &p, 937500);		/* 7.5 Mbit/s: 12.9 ms */
	dfs_cpr_tick(&c, &p, now += 20 * MS);
	CHECK(c.period_ns == 13 * MS, "at 7.5 Mbit/s: %llu ns",
	      (unsigned long long)c.period_ns);
	dfs_cpr_link(&c, &p, 1250000000);	/* 10 Gbit/s */
	dfs_cpr_tick(&c, &p, now += 20 * MS);
	CHECK(c.period_ns == MS && c.surge_bytes == 1875000,
	      "at 10 Gbit/s: %llu ns, surge %llu",
	      (unsigned long long)c.period_ns,
	      (unsigned long long)c.surge_bytes);
	/* the operator's 10 ms, at once, and kept whatever the link */
	set = p;
	set.period_ns = 10 * MS;
	dfs_cpr_retune(&c, &p, &set);
	CHECK(c.period_ns == 10 * MS, "set: %llu ns",
	      (unsigned long long)c.period_ns);
	dfs_cpr_link(&c, &set, 125000);
	dfs_cpr_tick(&c, &set, now += 20 * MS);
	CHECK(c.period_ns == 10 * MS && c.surge_bytes == 8 * 1514,
	      "set, 1 Mbit/s: %llu ns", (unsigned long long)c.period_ns);
	/* auto again: from the rate now */
	dfs_cpr_retune(&c, &set, &p);
	CHECK(c.period_ns == 97 * MS, "auto again: %llu ns",
	      (unsigned long long)c.period_ns);
}

/*
 * A shrew attack against the defaults, at any rate: @n hosts in step
 * send @ratio / 10 times the link's rate together, @burst ms every
 * @every ms, beside 8 flows that send evenly at 60% of it in all (TCP, clocked
 * by its ACKs).  After @secs each attacker is a suspect and no even
 * flow is.  At 10 Mbit/s and 1 ms periods (the papers') nothing is a
 * surge: a period holds under a frame of the link.
 */
static int shrew_at(u64 rate, u64 period_ns, int n, int ratio, int burst,
		    int every, int secs)
{
	struct dfs_cpr_flow atk[64], even[8];
	s64 acredit[64] = {}, ecredit[8] = {};
	struct dfs_cpr_params p;
	struct dfs_cpr_clock c;
	int j, caught = 0;
	u64 now = 0, t;

	dfs_cpr_params_init(&p);
	p.period_ns = period_ns;
	dfs_cpr_init(&c, &p, now);
	dfs_cpr_link(&c, &p, rate);
	/* the derived period starts with the next one */
	dfs_cpr_tick(&c, &p, now += c.period_ns);
	/* each flow's packets spread over the others' */
	for (j = 0; j < n; j++) {
		dfs_cpr_flow_init(&c, &atk[j]);
		acredit[j] = 1514 * j / n;
	}
	for (j = 0; j < 8; j++) {
		dfs_cpr_flow_init(&c, &even[j]);
		ecredit[j] = 1514 * j / 8;
	}
	for (t = 0; t < (u64)secs * NSEC_PER_SEC; t += c.period_ns) {
		u64 link = rate * c.period_ns / NSEC_PER_SEC;
		bool on = t / NSEC_PER_MSEC % every < (u64)burst;

		dfs_cpr_tick(&c, &p, now);
		for (j = 0; j < 8; j++) {
			ecredit[j] += link * 6 / 80;
			for (; ecredit[j] >= 1514; ecredit[j] -= 1514)
				came(&c, &even[j], 1, 1514);
		}
		for (j = 0; on && j < n; j++) {
			acredit[j] += link * ratio / (10 * n);
			for (; acredit[j] >= 1514; acredit[j] -= 1514)
				came(&c, &atk[j], 1, 1514);
		}
		now += c.period_ns;
	}
	dfs_cpr_tick(&c, &p, now);
	for (j = 0; j < n; j++) {
		dfs_cpr_packet(&c, &atk[j]);
		caught += dfs_cpr_suspect(&c, &p, &atk[j], false);
	}
	for (j = 0; j < 8; j++) {
		dfs_cpr_packet(&c, &even[j]);
		CHECK(!dfs_cpr_suspect(&c, &p, &even[j], false),
		      "%llu bytes/s: even flow %d, CPR %u, a suspect",
		      (unsigned long long)rate, j, dfs_cpr_value(&even[j]));
	}
	return caught;
}

static void test_defaults_scale(void)
{
	int caught;

	/* scenario 6's shape: 16 hosts, twice the link, 100 ms in 300 */
	caught = shrew_at(1250000, 0, 16, 20, 100, 300, 5);
	CHECK(caught == 16, "10 Mbit/s: %d of 16 caught", caught);
	caught = shrew_at(1250000000, 0, 16, 20, 100, 300, 5);
	CHECK(caught == 16, "10 Gbit/s: %d of 16 caught", caught);
	/* another: 24 hosts, three times the link, 50 ms in 500 */
	caught = shrew_at(1250000, 0, 24, 30, 50, 500, 20);
	CHECK(caught == 24, "10 Mbit/s, 24 hosts: %d caught", caught);
	caught = shrew_at(1250000000, 0, 24, 30, 50, 500, 20);
	CHECK(caught == 24, "10 Gbit/s, 24 hosts: %d caught", caught);
	/* the papers' 1 ms at 10 Mbit/s: no period holds a surge */
	caught = shrew_at(1250000, MS, 16, 20, 100, 300, 5);
	CHECK(caught == 0, "1 ms at 10 Mbit/s: %d caught", caught);
}

/* A held flow that backs off is judged afresh: nothing counted. */
static void test_backed_off(void)
{
	struct dfs_cpr_flow f = { .period = 7, .pending = 3, .held = 1,
				  .congested = 900, .packets = 1000 };

	/* two full-sized retransmissions in a second; a shrew's burst is
	 * more however far apart they come (a hold closes on a packet)
	 */
	CHECK(dfs_cpr_backed_off(0), "nothing sent, not backed off");
	CHECK(dfs_cpr_backed_off(2 * 1514), "two retransmissions");
	CHECK(!dfs_cpr_backed_off(2 * 1514 + 1), "more, backed off");
	CHECK(!dfs_cpr_backed_off(10 * 1514), "a burst backed off");
	dfs_cpr_forget(&f);
	CHECK(f.period == 7 && !f.pending && !f.held && !f.congested &&
	      !f.packets, "forget left %u of %u", f.congested, f.packets);
}

/* When a flow was last seen, for prune: across the wrap of the periods. */
static void test_idle_before(void)
{
	struct dfs_cpr_flow f = { .period = U32_MAX - 5 };

	CHECK(dfs_cpr_idle_before(&f, 10), "idle across the wrap");
	CHECK(!dfs_cpr_idle_before(&f, U32_MAX - 5), "seen in that period");
	CHECK(!dfs_cpr_idle_before(&f, U32_MAX - 1000), "seen after it");
	/* two weeks of 1 ms periods later: still idle */
	CHECK(dfs_cpr_idle_before(&f, U32_MAX - 5 + 14 * 86400 * 1000U),
	      "idle two weeks later");
}

int main(void)
{
	TEST(test_tau_falls_and_climbs);
	TEST(test_idle_gap);
	TEST(test_fixed_tau);
	TEST(test_cpr_bursts_tend_to_one);
	TEST(test_cpr_even_tends_to_csr);
	TEST(test_cpr_separates_bursts);
	TEST(test_lazy_settling);
	TEST(test_surge);
	TEST(test_held_counts_surges);
	TEST(test_held_attacker_stays_held);
	TEST(test_surge_signal);
	TEST(test_own_drops_are_not_surges);
	TEST(test_surge_judged_against_link);
	TEST(test_idle_is_not_calm);
	TEST(test_derived_period);
	TEST(test_period_follows_link);
	TEST(test_defaults_scale);
	TEST(test_surge_without_top_flow);
	TEST(test_backed_off);
	TEST(test_idle_before);
	return unit_summary("cpr_test");
}
