// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the flow scheduler of "sched fq" (dfs_fq.h): deficit round
 * robin by bytes, new flows first, the pass through the old flows, the
 * release of emptied flows, and CoDel's drops, their spacing and ECN
 * marks, and its bounds after a stall, driven by a synthetic clock; the
 * two levels: sparse flows first inside a key and ahead of other keys,
 * keys fair whatever their flows or boosts, and a full pool that never
 * mixes keys.
 */
#include "fq_world.h"
#include "unit.h"

#define US	NSEC_PER_USEC
#define MS	NSEC_PER_MSEC

/* The flow of the next packet out at time 0, which is freed; -1: none. */
static int w_next_flow(struct world *w)
{
	struct w_pkt *pkt = w_dequeue(w, 0);
	int flow = pkt ? pkt->flow : -1;

	free(pkt);
	return flow;
}

/* Both flows always backlogged: bytes served differ by a quantum at most. */
static void test_drr_bytes(void)
{
	u64 served[2] = {};
	struct world w;
	int i, k;

	w_init(&w, 1514, 5000, 100000, false);
	for (i = 0; i < 40; i++) {
		w_enqueue(&w, 0, 1500, 0, false);
		for (k = 0; k < 5; k++)
			w_enqueue(&w, 1, 300, 0, false);
	}
	for (i = 0; i < 100; i++) {
		struct w_pkt *pkt = w_dequeue(&w, 0);

		CHECK(pkt, "packet %d", i);
		if (!pkt)
			break;
		served[pkt->flow] += pkt->len;
		free(pkt);
		/* sample only while both are backlogged */
		if (w.f[0].qlen && w.f[1].qlen && i > 10)
			CHECK(served[0] > served[1] ?
			      served[0] - served[1] <= 2 * 1514 :
			      served[1] - served[0] <= 2 * 1514,
			      "bytes %llu vs %llu", (unsigned long long)served[0],
			      (unsigned long long)served[1]);
	}
	w_destroy(&w);
}

/* A sparse flow's packet goes before the backlog of an old flow. */
static void test_new_flow_first(void)
{
	struct world w;
	int i, f;

	w_init(&w, 1514, 5000, 100000, false);
	for (i = 0; i < 10; i++)
		w_enqueue(&w, 0, 1500, 0, false);
	/* flow 0 spends its first quantum and becomes old */
	free(w_dequeue(&w, 0));
	free(w_dequeue(&w, 0));
	w_enqueue(&w, 1, 100, 0, false);
	f = w_next_flow(&w);
	CHECK(f == 1, "the new flow first (got flow %d)", f);
	f = w_next_flow(&w);
	CHECK(f == 0, "then the old flow (got flow %d)", f);
	CHECK(w.st.new_flows == 2, "two new flows: %llu",
	      (unsigned long long)w.st.new_flows);
	w_destroy(&w);
}

/*
 * A new flow that empties passes through the old flows once: a packet it
 * sends at once joins its queue there, it is not new again.
 */
static void test_new_flow_passes_old(void)
{
	struct world w;
	int i, f;

	/* two packets a quantum: flow 0 keeps a deficit across a turn */
	w_init(&w, 3000, 5000, 100000, false);
	for (i = 0; i < 10; i++)
		w_enqueue(&w, 0, 1500, 0, false);
	free(w_dequeue(&w, 0));
	free(w_dequeue(&w, 0));		/* flow 0 spent its quantum */
	w_enqueue(&w, 1, 100, 0, false);
	f = w_next_flow(&w);		/* flow 0 turns old, flow 1 goes */
	CHECK(f == 1, "flow 1 first (got flow %d)", f);
	f = w_next_flow(&w);		/* flow 1, empty, moves behind 0 */
	CHECK(f == 0, "then flow 0 (got flow %d)", f);
	w_enqueue(&w, 1, 100, 0, false);
	/* flow 1 is old now, behind flow 0 which has half a quantum left */
	f = w_next_flow(&w);
	CHECK(f == 0, "old flow 0 before flow 1 (got %d)", f);
	CHECK(w.st.new_flows == 2, "flow 1 was not new again");
	CHECK(!w.released, "nothing released while queued");
	w_destroy(&w);
}

/* An emptied flow is released on its next turn, and the count follows. */
static void test_release(void)
{
	struct world w;
	int i;

	w_init(&w, 1514, 5000, 100000, false);
	for (i = 0; i < 3; i++)
		w_enqueue(&w, 2, 500, 0, false);
	CHECK(w.s.count == 1, "one flow scheduled");
	for (i = 0; i < 3; i++)
		free(w_dequeue(&w, 0));
	CHECK(w.k[2].fk, "still scheduled before its next turn");
	CHECK(!w_dequeue(&w, 0), "nothing left");
	CHECK(!w.k[2].fk && w.released == 1 && w.s.count == 0,
	      "released: %u, count %u", w.released, w.s.count);
	w_destroy(&w);
}

/* A quantum smaller than a packet: a flow waits rounds, still fair. */
static void test_small_quantum(void)
{
	u32 served[2] = {};
	struct world w;
	int i;

	w_init(&w, 300, 5000, 100000, false);
	for (i = 0; i < 50; i++) {
		w_enqueue(&w, 0, 1500, 0, false);
		w_enqueue(&w, 1, 1500, 0, false);
	}
	for (i = 0; i < 40; i++) {
		struct w_pkt *pkt = w_dequeue(&w, 0);

		CHECK(pkt, "packet %d", i);
		if (!pkt)
			break;
		served[pkt->flow]++;
		free(pkt);
	}
	CHECK(served[0] == 20 && served[1] == 20, "%u / %u", served[0],
	      served[1]);
	w_destroy(&w);
}

/*
 * A standing queue of @depth 1500-byte packets from @base ns, one sent
 * and one arriving every 1.2 ms (10 Mbit/s), until @ms milliseconds after
 * @base; drop times (from @base) in @drops.
 */
static u32 standing_queue_at(struct world *w, u64 base, int depth, u32 ms,
			     bool ect, u64 *drops, u32 ndrops)
{
	u32 seen = 0;
	u64 t = 0;
	bool ce;
	int i;

	for (i = 0; i < depth; i++)
		w_enqueue(w, 0, 1500, base, ect);
	for (t = (u64)depth * 1200 * US; t < (u64)ms * MS; t += 1200 * US) {
		u32 before = w->dropped;
		struct w_pkt *pkt;

		w_enqueue(w, 0, 1500, base + t, ect);
		pkt = w_dequeue(w, base + t);
		ce = pkt && pkt->ce;
		free(pkt);
		if ((w->dropped > before || ce) && seen < ndrops)
			drops[seen++] = t;
	}
	return seen;
}

static u32 standing_queue(struct world *w, int depth, u32 ms, bool ect,
			  u64 *drops, u32 ndrops)
{
	return standing_queue_at(w, 0, depth, ms, ect, drops, ndrops);
}

/* Under target: CoDel never drops. */
static void test_codel_below_target(void)
{
	u64 drops[4];
	struct world w;

	w_init(&w, 1514, 5000, 100000, false);
	CHECK(standing_queue(&w, 3, 2000, false, drops, 4) == 0,
	      "no drop at 3.6 ms sojourn: %u", w.dropped);
	w_destroy(&w);
}

/*
 * Above target for an interval: the first drop an interval after the
 * sojourn went above, then interval / sqrt(count) as codel_impl.h's one
 * Newton step a drop approximates it from 1/sqrt(1): 100 ms, 50 (for
 * 70.7), 56.3 (for 57.7).
 */
static void test_codel_drop_spacing(void)
{
	u64 drops[4] = {};
	struct world w;
	u32 n;

	w_init(&w, 1514, 5000, 100000, false);
	n = standing_queue(&w, 20, 400, false, drops, 4);
	CHECK(n == 4, "four drops in 400 ms: %u", n);
	/* above target from the first dequeue at 24 ms */
	CHECK(drops[0] > 124 * MS && drops[0] <= 127 * MS, "first at %llu us",
	      (unsigned long long)drops[0] / US);
	CHECK(drops[1] - drops[0] >= 99 * MS && drops[1] - drops[0] <= 102 * MS,
	      "second after %llu us",
	      (unsigned long long)(drops[1] - drops[0]) / US);
	CHECK(drops[2] - drops[1] >= 49 * MS && drops[2] - drops[1] <= 52 * MS,
	      "third after %llu us",
	      (unsigned long long)(drops[2] - drops[1]) / US);
	CHECK(drops[3] - drops[2] >= 55 * MS && drops[3] - drops[2] <= 59 * MS,
	      "fourth after %llu us",
	      (unsigned long long)(drops[3] - drops[2]) / US);
	w_destroy(&w);
}

/* With ecn, ECT packets are marked where they would be dropped. */
static void test_codel_ecn(void)
{
	u64 t[16];
	struct world w;
	u32 drops, marks;

	/* not ECT: dropped even with ecn on */
	w_init(&w, 1514, 5000, 100000, true);
	drops = standing_queue(&w, 20, 400, false, t, 16);
	CHECK(drops >= 4 && w.st.codel_drops == drops && !w.st.codel_marks,
	      "%u drops", drops);
	w_destroy(&w);

	/* a mark leaves the queue as long: at least as many marks */
	w_init(&w, 1514, 5000, 100000, true);
	marks = standing_queue(&w, 20, 400, true, t, 16);
	CHECK(marks >= drops && w.dropped == 0 && w.st.codel_marks == marks,
	      "%u marks, %u drops", marks, w.dropped);
	w_destroy(&w);
}

/* One MTU or less left behind the packet: never a drop. */
static void test_codel_last_packet(void)
{
	struct world w;
	u64 t;

	w_init(&w, 1514, 5000, 100000, false);
	/* one packet at a time, each waiting 50 ms */
	for (t = 0; t < 2000 * MS; t += 50 * MS) {
		w_enqueue(&w, 0, 1500, t, false);
		free(w_dequeue(&w, t + 50 * MS));
	}
	CHECK(w.dropped == 0, "drops: %u", w.dropped);
	w_destroy(&w);
}

/* Back above target soon after an episode: resume near its drop rate. */
static void test_codel_reentry(void)
{
	u64 drops[16] = {};
	struct world w;
	u32 count;

	w_init(&w, 1514, 5000, 100000, false);
	standing_queue(&w, 20, 1000, false, drops, 16);
	count = w_key(&w, 0)->cv.count;
	CHECK(count > 2, "episode count %u", count);
	w_destroy(&w);
}

/* Purge drops every packet and releases every flow (ASan: no leak). */
static void test_purge(void)
{
	struct world w;
	int i;

	w_init(&w, 1514, 5000, 100000, false);
	for (i = 0; i < 100; i++)
		w_enqueue(&w, i % W_FLOWS, 64 + i, 0, false);
	free(w_dequeue(&w, 0));
	w_destroy(&w);
	CHECK(w.qlen == 0 && w.backlog == 0 && w.s.count == 0,
	      "qlen %u backlog %u count %u", w.qlen, w.backlog, w.s.count);
	CHECK(w.released == W_FLOWS && w.dropped == 99, "released %u dropped %u",
	      w.released, w.dropped);
	CHECK(!w.s.new_keys.tail && !w.s.old_keys.tail, "lists empty");
}

/* The clock wraps every 73 minutes: CoDel works across it. */
static void test_codel_wrap(void)
{
	u64 base = ((1ULL << 32) << DFS_CODEL_SHIFT) - 200 * MS;
	u64 drops[16];
	struct world w;

	w_init(&w, 1514, 5000, 100000, false);
	standing_queue_at(&w, base, 20, 600, false, drops, 16);
	CHECK(w.dropped >= 4 && w.dropped < 12, "drops across the wrap: %u",
	      w.dropped);
	w_destroy(&w);
}

/*
 * A link that stalls (a throttled parent) while CoDel drops: the next
 * dequeue is far behind the drop schedule, and would drop all the deep
 * queue of small packets at once.  It drops DFS_CODEL_MAX_DROPS, starts
 * the schedule again from now, and a dequeue right after drops nothing.
 */
static void test_codel_stall_cap(void)
{
	struct w_pkt *pkt;
	struct world w;
	u32 before, now;
	int i;

	w_init(&w, 1514, 500, 5000, false);
	for (i = 0; i < 2000; i++)
		w_enqueue(&w, 0, 64, 0, false);
	free(w_dequeue(&w, 6 * MS));	/* above target from here */
	free(w_dequeue(&w, 12 * MS));	/* an interval later: drops */
	CHECK(w.dropped == 1 && w_key(&w, 0)->cv.dropping, "dropping, %u drops",
	      w.dropped);
	before = w.dropped;
	pkt = w_dequeue(&w, 12 * MS + 5000 * MS);
	CHECK(pkt, "a packet after the stall");
	free(pkt);
	now = dfs_codel_time(12 * MS + 5000 * MS);
	CHECK(w.dropped - before == DFS_CODEL_MAX_DROPS, "%u drops in one call",
	      w.dropped - before);
	CHECK(w_key(&w, 0)->cv.dropping &&
	      dfs_codel_after(w_key(&w, 0)->cv.drop_next, now) &&
	      !dfs_codel_after(w_key(&w, 0)->cv.drop_next, now + w.p.interval),
	      "next drop within an interval of now: %d",
	      (s32)(w_key(&w, 0)->cv.drop_next - now));
	before = w.dropped;
	free(w_dequeue(&w, 12 * MS + 5000 * MS));
	CHECK(w.dropped == before, "no drop before the new schedule: %u",
	      w.dropped - before);
	w_destroy(&w);
}

/*
 * interval / sqrt(count) truncates to zero ticks once count is large
 * (here 1 ms after about a million drops in the episode): the drops are
 * still a tick apart, so a dequeue 10 ticks behind the schedule drops 11
 * packets, not all it may.
 */
static void test_codel_law_min_tick(void)
{
	u32 before, now = dfs_codel_time(20 * MS);
	struct dfs_codel *cv;
	struct world w;
	int i;

	CHECK(dfs_codel_control_law(now, dfs_codel_from_us(1000), 1) == now + 1,
	      "a step of at least a tick");
	w_init(&w, 1514, 500, 1000, false);
	for (i = 0; i < 1000; i++)
		w_enqueue(&w, 0, 64, 0, false);
	free(w_dequeue(&w, 2 * MS));
	free(w_dequeue(&w, 4 * MS));
	cv = &w_key(&w, 0)->cv;
	CHECK(cv->dropping, "dropping");
	cv->count = 1U << 30;
	cv->rec_inv_sqrt = 1;
	cv->drop_next = now - 10;
	before = w.dropped;
	free(w_dequeue(&w, 20 * MS));
	CHECK(w.dropped - before == 11, "%u drops", w.dropped - before);
	CHECK(cv->drop_next == now + 1, "next drop %d ticks from now",
	      (s32)(cv->drop_next - now));
	w_destroy(&w);
}

/*
 * Two hosts (keys), each with a bulk flow and, once the bulk flows are
 * old, a sparse one: each sparse packet goes before its host's bulk
 * backlog, not behind it as in one queue a key.
 */
static void test_sparse_in_key_first(void)
{
	int sent[2] = { -1, -1 }, n, i;
	struct world w;

	w_init(&w, 1514, 5000, 100000, false);
	w.f[0].key = 0;		/* bulk of A */
	w.f[1].key = 0;		/* sparse of A */
	w.f[2].key = 1;		/* bulk of B */
	w.f[3].key = 1;		/* sparse of B */
	for (i = 0; i < 20; i++) {
		w_enqueue(&w, 0, 1500, 0, false);
		w_enqueue(&w, 2, 1500, 0, false);
	}
	for (i = 0; i < 6; i++)
		free(w_dequeue(&w, 0));
	w_enqueue(&w, 1, 100, 0, false);
	w_enqueue(&w, 3, 100, 0, false);
	CHECK(w.s.pooled == 2, "a pool queue each: %u", w.s.pooled);
	for (n = 0; n < 6; n++) {
		struct w_pkt *pkt = w_dequeue(&w, 0);

		CHECK(pkt, "packet %d", n);
		if (!pkt)
			break;
		if (pkt->flow == 1 || pkt->flow == 3)
			sent[pkt->key] = n;
		else if (sent[pkt->key] < 0)
			CHECK(0, "bulk of key %d before its sparse flow",
			      pkt->key);
		free(pkt);
	}
	CHECK(sent[0] >= 0 && sent[1] >= 0 && sent[0] < 3 && sent[1] < 3,
	      "sparse packets at %d and %d", sent[0], sent[1]);
	w_destroy(&w);
}

/*
 * A key's embedded queue that emptied waits in the old list for its
 * turn to leave: a new connection of the key (a ping) takes a queue of
 * its own and goes first, not into that one behind the bulk queue.
 */
static void test_new_conn_skips_emptied_queue(void)
{
	struct dfs_fq_key *k;
	struct w_pkt *pkt;
	struct world w;
	int i, f, sent0 = 0;

	w_init(&w, 1514, 5000, 100000, false);
	w.f[0].key = 0;		/* a short flow: the embedded queue */
	w.f[1].key = 0;		/* the ping */
	w.f[2].key = 0;		/* bulk: a pool queue */
	for (i = 0; i < 3; i++)
		w_enqueue(&w, 0, 1500, 0, false);
	for (i = 0; i < 20; i++)
		w_enqueue(&w, 2, 1500, 0, false);
	while (sent0 < 3 && (pkt = w_dequeue(&w, 0))) {
		sent0 += pkt->flow == 0;
		free(pkt);
	}
	k = w_key(&w, 0);
	CHECK(sent0 == 3 && k && !k->q.head && k->q.key == k,
	      "flow 0 sent %d, its queue empty and listed", sent0);
	w_enqueue(&w, 1, 100, 0, false);
	f = w_next_flow(&w);
	CHECK(f == 1, "the ping first (got flow %d)", f);
	CHECK(w.s.pooled == 2, "the ping in a pool queue: %u pooled",
	      w.s.pooled);
	CHECK(w_queues_own_keys(&w), "queues");
	w_destroy(&w);
}

/*
 * Algorithm 3 signals a key whose bulk flow fills its share, on a SYN of
 * a new connection of the same key: the SYN goes in, ahead of the bulk,
 * and the bulk queue's head is dropped (or CE marked where it is ECN
 * capable); on the bulk flow's own packet, that packet is dropped; on a
 * key of one connection, its packet too.
 */
static void test_signal_falls_on_bulk(bool ecn)
{
	struct world w;
	enum w_signal r;
	u32 id, first;
	int i, f;

	w_init(&w, 1514, 5000, 100000, ecn);
	w.f[0].key = 0;		/* bulk */
	w.f[1].key = 0;		/* a new connection's SYN */
	for (i = 0; i < 20; i++)
		w_enqueue(&w, 0, 1500, 0, ecn);
	/* the bulk has had its turn: in the key's old list */
	for (i = 0; i < 3; i++)
		free(w_dequeue(&w, 0));
	first = w.next_id - 17;
	/* a key of one connection: its own packet takes the signal */
	r = w_enqueue_signal(&w, 0, 1500, 0, false, &id);
	CHECK(r == W_DROPPED && id == w.next_id - 1 && w.dropped == 1,
	      "one connection: its packet dropped (%d)", r);
	r = w_enqueue_signal(&w, 1, 60, 0, false, &id);
	CHECK(r == (ecn ? W_BULK_MARKED : W_BULK_DROPPED) && id == first,
	      "the SYN in, the bulk's head signalled (%d, id %u)", r, id);
	CHECK(w.f[1].qlen == 1 && w.f[0].qlen == (ecn ? 17u : 16u),
	      "the SYN queued, the bulk %u", w.f[0].qlen);
	f = w_next_flow(&w);
	CHECK(f == 1, "the SYN first out (flow %d)", f);
	/* the SYN's connection has packets now: they take the signal */
	w_enqueue(&w, 1, 1500, 0, false);
	r = w_enqueue_signal(&w, 1, 1500, 0, false, &id);
	CHECK(r == W_DROPPED && w.f[1].qlen == 1, "a queued connection: %d",
	      r);
	CHECK(w_queues_own_keys(&w), "queues");
	w_destroy(&w);
}

static void test_signal_falls_on_bulk_drop(void)
{
	test_signal_falls_on_bulk(false);
}

static void test_signal_falls_on_bulk_mark(void)
{
	test_signal_falls_on_bulk(true);
}

/*
 * Flows 0 to @nflows - 1 of key 0, each kept @depth packets deep (topped
 * up after every send, as senders that do not back off), the link
 * sending a 1500-byte packet every 1.2 ms for @ms: CoDel's drops.
 */
static u32 key_standing_queues(int nflows, int depth, u32 ms)
{
	struct world w;
	u32 drops;
	u64 t;
	int i;

	w_init_pool(&w, 1514, 5000, 100000, false, 64);
	for (i = 0; i < nflows; i++)
		w.f[i].key = 0;
	for (t = 0; t < (u64)ms * MS; t += 1200 * US) {
		for (i = 0; i < nflows; i++)
			while (w.f[i].qlen < (u32)depth)
				w_enqueue(&w, i, 1500, t, false);
		free(w_dequeue(&w, t));
		CHECK(w_queues_own_keys(&w), "queues and above at %llu us",
		      (unsigned long long)t / US);
	}
	CHECK(!w.st.overflow, "a pool queue a flow: %llu overflows",
	      (unsigned long long)w.st.overflow);
	drops = w.dropped;
	w_destroy(&w);
	return drops;
}

/*
 * One control law a key: a host's 16 flows, each a standing queue, are
 * dropped from at the rate of one queue as deep as all of them, not 16
 * times it (a law a flow took the lab's scenario 3b host, at the bottom
 * of its connections' windows, over its share by retransmissions).
 */
static void test_codel_one_law_a_key(void)
{
	u32 one = key_standing_queues(1, 64, 3000);
	u32 many = key_standing_queues(16, 4, 3000);

	CHECK(one >= 10, "one deep queue: %u drops", one);
	CHECK(many >= one / 2 && many <= one + one / 4 + 2,
	      "16 flows: %u drops, one queue as deep: %u", many, one);
}

/*
 * A sparse flow of a key whose bulk flows CoDel is dropping from: its
 * packets are never dropped, and sending them does not end the key's
 * dropping episode (its queue is below target, the others are not).
 */
static void test_codel_sparse_in_dropping_key(void)
{
	u32 sparse_in = 0, sparse_out = 0, in_episode = 0;
	struct world w;
	u64 t;
	int i;

	w_init_pool(&w, 1514, 5000, 100000, false, 64);
	for (i = 0; i < 5; i++)
		w.f[i].key = 0;
	for (t = 0; t < 3000 * MS; t += 1200 * US) {
		struct w_pkt *pkt;

		for (i = 0; i < 4; i++)
			while (w.f[i].qlen < 10)
				w_enqueue(&w, i, 1500, t, false);
		if (t % (50 * MS) < 1200 * US) {
			w_enqueue(&w, 4, 100, t, false);
			sparse_in++;
		}
		pkt = w_dequeue(&w, t);
		if (pkt && pkt->flow == 4) {
			sparse_out++;
			if (t > 500 * MS) {
				CHECK(w_key(&w, 4)->cv.dropping,
				      "still dropping at %llu ms",
				      (unsigned long long)t / MS);
				in_episode++;
			}
		}
		free(pkt);
	}
	CHECK(sparse_out + w.f[4].qlen == sparse_in,
	      "sparse: %u in, %u out, %u queued", sparse_in, sparse_out,
	      w.f[4].qlen);
	CHECK(in_episode >= 40 && w.dropped >= 20,
	      "%u sparse packets in the episode, %u drops", in_episode,
	      w.dropped);
	w_destroy(&w);
}

/*
 * Key A has ten backlogged flows, key B one: the keys get the same bytes,
 * and A's flows share A's.  A's second flow finds A busy and boosts it,
 * so A may lead by its boost credit and a quantum.
 */
#define KEY_LEAD ((DFS_FQ_BOOST_QUANTA + 1) * 1514)
static void test_key_fairness(void)
{
	u64 bytes[2] = {}, fb[11] = {};
	struct world w;
	int i, k;

	w_init(&w, 1514, 5000, 100000, false);
	for (i = 0; i <= 10; i++)
		w.f[i].key = i < 10 ? 0 : 1;
	for (i = 0; i < 60; i++) {
		for (k = 0; k < 10; k++)
			w_enqueue(&w, k, 1000 + 50 * k, 0, false);
		for (k = 0; k < 10; k++)
			w_enqueue(&w, 10, 1500, 0, false);
	}
	CHECK(w.s.pooled + w.st.overflow / 60 == 9, "pooled %u", w.s.pooled);
	for (i = 0; i < 500; i++) {
		struct w_pkt *pkt = w_dequeue(&w, 0);

		CHECK(pkt, "packet %d", i);
		if (!pkt)
			break;
		bytes[pkt->key] += pkt->len;
		fb[pkt->flow] += pkt->len;
		free(pkt);
		CHECK(bytes[0] > bytes[1] ? bytes[0] - bytes[1] <= KEY_LEAD :
		      bytes[1] - bytes[0] <= KEY_LEAD,
		      "key bytes %llu vs %llu", (unsigned long long)bytes[0],
		      (unsigned long long)bytes[1]);
	}
	for (k = 0; k < 10; k++)
		CHECK(fb[k] * 10 >= bytes[0] - 2 * 1514 * 10 &&
		      fb[k] * 10 <= bytes[0] + 2 * 1514 * 10,
		      "flow %d: %llu of %llu", k, (unsigned long long)fb[k],
		      (unsigned long long)bytes[0]);
	w_destroy(&w);
}

/*
 * Key A split over two tx queues (dfs_fq_key_split(), as dfs_mq sets it)
 * gets half of what key B gets a round, within a quantum; split 0 and 1
 * are a whole share.
 */
static void test_key_split(void)
{
	u64 bytes[2] = {};
	struct world w;
	int i, split;

	for (split = 0; split <= 2; split++) {
		w_init(&w, 1514, 5000, 100000, false);
		w.f[0].key = 0;
		w.f[1].key = 1;
		for (i = 0; i < 200; i++) {
			w_enqueue(&w, 0, 1000, 0, false);
			w_enqueue(&w, 1, 1000, 0, false);
		}
		dfs_fq_key_split(w_key(&w, 0), split);
		bytes[0] = bytes[1] = 0;
		for (i = 0; i < 300; i++) {
			struct w_pkt *pkt = w_dequeue(&w, 0);

			CHECK(pkt, "split %d: packet %d", split, i);
			if (!pkt)
				break;
			bytes[pkt->key] += pkt->len;
			free(pkt);
		}
		if (split < 2)
			CHECK(bytes[0] + 2 * 1514 >= bytes[1] &&
			      bytes[1] + 2 * 1514 >= bytes[0],
			      "split %d: %llu vs %llu", split,
			      (unsigned long long)bytes[0],
			      (unsigned long long)bytes[1]);
		else
			CHECK(2 * bytes[0] + 2 * 1514 >= bytes[1] &&
			      bytes[1] + 2 * 1514 >= 2 * bytes[0],
			      "split 2: %llu vs %llu, not 1:2",
			      (unsigned long long)bytes[0],
			      (unsigned long long)bytes[1]);
		w_destroy(&w);
	}
}

/*
 * A pool of one set: key A's first flow takes its embedded queue, the
 * next eight the eight ways, the rest share the embedded queue; key B's
 * second flow finds the set full too and shares B's embedded queue, never
 * one of A's.  Drained, every way is free and every key released.
 */
static void test_pool_full(void)
{
	u32 ids[2] = {};
	struct world w;
	int i, k;

	w_init_pool(&w, 1514, 5000, 100000, false, 1);
	for (i = 0; i < 12; i++)
		w.f[i].key = 0;
	w.f[12].key = 1;
	w.f[13].key = 1;
	for (i = 0; i < 5; i++)
		for (k = 0; k < 14; k++)
			w_enqueue(&w, k, 200 + k, 0, false);
	CHECK(w.s.pooled == 8 && w.s.pool.busy[0] == 0xff, "pooled %u",
	      w.s.pooled);
	CHECK(w.st.overflow == 5 * 4, "overflow %llu",
	      (unsigned long long)w.st.overflow);
	CHECK(w_queues_own_keys(&w), "queues hold one key each");
	CHECK(w.k[1].fk->q.head && !w.k[1].fk->pooled, "B in its own queue");
	/* flows that share a queue keep their order */
	for (i = 0; i < 5 * 14; i++) {
		struct w_pkt *pkt = w_dequeue(&w, 0);

		CHECK(pkt, "packet %d", i);
		if (!pkt)
			break;
		if (pkt->flow == 12 || pkt->flow == 13) {
			CHECK(pkt->id > ids[pkt->flow - 12], "in order");
			ids[pkt->flow - 12] = pkt->id;
		}
		free(pkt);
		if (i % 7 == 0)
			CHECK(w_queues_own_keys(&w), "after %d", i);
	}
	CHECK(!w_dequeue(&w, 0), "empty");
	CHECK(!w.s.pooled && !w.s.pool.busy[0] && !w.s.count && !w.keys &&
	      w.released == 2, "pooled %u busy %#x count %u keys %u",
	      w.s.pooled, w.s.pool.busy[0], w.s.count, w.keys);
	w_destroy(&w);
}

/*
 * Four hosts' bulk flows are backlogged; host A's ping comes just after
 * A's turn: it is the next packet out, not a round of the other hosts
 * later (the boosted keys).
 */
static void test_sparse_ahead_of_keys(void)
{
	struct w_pkt *pkt;
	struct world w;
	int i, k, f, last = -1;

	w_init(&w, 1514, 5000, 100000, false);
	for (k = 0; k < 4; k++) {
		w.f[k].key = k;
		for (i = 0; i < 20; i++)
			w_enqueue(&w, k, 1500, 0, false);
	}
	w.f[4].key = 0;			/* A's ping */
	/* to the end of A's turn in the round of old keys */
	for (i = 0; i < 40; i++) {
		pkt = w_dequeue(&w, 0);
		CHECK(pkt, "packet %d", i);
		if (!pkt)
			break;
		k = pkt->key;
		free(pkt);
		if (i > 8 && last == 0 && k == 1)
			break;
		last = k;
	}
	w_enqueue(&w, 4, 100, 0, false);
	f = w_next_flow(&w);
	CHECK(f == 4, "the ping next (got flow %d)", f);
	CHECK(w.st.boosts == 1, "one packet boosted: %llu",
	      (unsigned long long)w.st.boosts);
	CHECK(w_queues_own_keys(&w), "queues");
	w_destroy(&w);
}

/*
 * Host A sends each packet on a connection that has nothing queued, so
 * that every one of them may be boosted; host B has one bulk flow.  The
 * boost is paid from A's deficit: both get the same bytes, within its
 * credit and two quanta (a turn's and a packet over its credit), however
 * A spreads its packets.
 */
static void test_boost_keeps_keys_fair(void)
{
	u64 bytes[2] = {};
	struct world w;
	int i, f = 0;

	w_init(&w, 1514, 5000, 100000, false);
	for (i = 0; i < 20; i++)
		w.f[i].key = 0;
	w.f[20].key = 1;
	for (i = 0; i < 3000; i++) {
		struct w_pkt *pkt;

		if (!w.f[f].qlen)
			w_enqueue(&w, f, 1000, 0, false);
		f = (f + 1) % 20;
		while (w.f[20].qlen < 50)
			w_enqueue(&w, 20, 1500, 0, false);
		pkt = w_dequeue(&w, 0);
		CHECK(pkt, "packet %d", i);
		if (!pkt)
			break;
		bytes[pkt->key] += pkt->len;
		free(pkt);
		if (i > 100)
			CHECK(bytes[0] > bytes[1] ?
			      bytes[0] - bytes[1] <= KEY_LEAD + 1514 :
			      bytes[1] - bytes[0] <= KEY_LEAD + 1514,
			      "key bytes %llu vs %llu at %d",
			      (unsigned long long)bytes[0],
			      (unsigned long long)bytes[1], i);
	}
	CHECK(w.st.boosts > 100, "boosted %llu",
	      (unsigned long long)w.st.boosts);
	CHECK(w_queues_own_keys(&w), "queues");
	w_destroy(&w);
}

/*
 * Host A's only connection drained, its queue waits in the old list for
 * its turn to leave and A in the old keys, while B and C are backlogged.
 * A packet of that connection takes its place there; A's ping takes a
 * queue of the pool and is the next packet out (boosted).
 */
static void test_ping_beside_drained_queue(void)
{
	struct dfs_fq_key *k;
	struct w_pkt *pkt;
	struct world w;
	int i, f, a_left = 2;

	w_init(&w, 1514, 5000, 100000, false);
	w.f[0].key = 0;		/* A's bulk */
	w.f[1].key = 0;		/* A's ping */
	w.f[2].key = 1;
	w.f[3].key = 2;
	for (i = 0; i < 20; i++) {
		w_enqueue(&w, 2, 1500, 0, false);
		w_enqueue(&w, 3, 1500, 0, false);
	}
	w_enqueue(&w, 0, 1500, 0, false);
	w_enqueue(&w, 0, 1500, 0, false);	/* tags A's queue */
	while (a_left && (pkt = w_dequeue(&w, 0))) {
		a_left -= pkt->key == 0;
		free(pkt);
	}
	k = w_key(&w, 0);
	CHECK(k && !k->q.head && k->q.key == k,
	      "A's queue drained, listed");
	/* B's turn: A waits at the tail of the old keys */
	pkt = w_dequeue(&w, 0);
	CHECK(pkt && pkt->key != 0, "another key's turn");
	free(pkt);
	w_enqueue(&w, 0, 1500, 0, false);
	CHECK(!w.s.boost_tail && !w.s.pooled,
	      "the same connection in its place, not boosted");
	w_enqueue(&w, 1, 100, 0, false);
	f = w_next_flow(&w);
	CHECK(f == 1, "the ping next (got flow %d)", f);
	CHECK(w.st.boosts == 1, "boosted %llu",
	      (unsigned long long)w.st.boosts);
	CHECK(w_queues_own_keys(&w), "queues");
	w_destroy(&w);
}

/*
 * Host A's download drained and came back: A is a new key, the download
 * new in it.  A's ping comes before A's turn and boosts A, behind the
 * download in A's new queues: the boost sends the download, and the
 * ping still has credit, where with a quantum of it the ping waited for
 * A's next turn, a round of every key.
 */
static void test_ping_beside_refilled_download(void)
{
	struct world w;
	int i, k, f;

	w_init(&w, 1514, 5000, 100000, false);
	for (k = 1; k < 4; k++) {
		w.f[k].key = k;
		for (i = 0; i < 20; i++)
			w_enqueue(&w, k, 1514, 0, false);
	}
	w.f[0].key = 0;			/* A's download */
	w.f[4].key = 0;			/* A's ping */
	for (i = 0; i < 3; i++)		/* B, C and D old keys */
		free(w_dequeue(&w, 0));
	w_enqueue(&w, 0, 1514, 0, false);
	w_enqueue(&w, 4, 100, 0, false);
	f = w_next_flow(&w);
	CHECK(f == 0, "the download, boosted (got flow %d)", f);
	f = w_next_flow(&w);
	CHECK(f == 4, "the ping next (got flow %d)", f);
	CHECK(w.st.boosts == 2, "boosted %llu",
	      (unsigned long long)w.st.boosts);
	CHECK(w_queues_own_keys(&w), "queues");
	w_destroy(&w);
}

/* Purge with pool queues held frees them all. */
static void test_purge_pool(void)
{
	struct world w;
	int i;

	w_init(&w, 1514, 5000, 100000, false);
	for (i = 0; i < W_FLOWS; i++)
		w.f[i].key = i % 3;
	for (i = 0; i < 200; i++)
		w_enqueue(&w, i % W_FLOWS, 100, 0, false);
	CHECK(w.s.pooled > 0, "pooled %u", w.s.pooled);
	dfs_fq_purge(&w.s, &w_ops, &w);
	CHECK(!w.s.pooled && !w.s.count && !w.keys && w.qlen == 0,
	      "pooled %u count %u keys %u", w.s.pooled, w.s.count, w.keys);
	for (i = 0; i < 4; i++)
		CHECK(!w.s.pool.busy[i], "set %d busy %#x", i, w.s.pool.busy[i]);
	w_destroy(&w);
}

int main(void)
{
	TEST(test_drr_bytes);
	TEST(test_new_flow_first);
	TEST(test_new_flow_passes_old);
	TEST(test_release);
	TEST(test_small_quantum);
	TEST(test_codel_below_target);
	TEST(test_codel_drop_spacing);
	TEST(test_codel_ecn);
	TEST(test_codel_last_packet);
	TEST(test_codel_reentry);
	TEST(test_purge);
	TEST(test_codel_wrap);
	TEST(test_codel_stall_cap);
	TEST(test_codel_law_min_tick);
	TEST(test_codel_one_law_a_key);
	TEST(test_codel_sparse_in_dropping_key);
	TEST(test_sparse_in_key_first);
	TEST(test_new_conn_skips_emptied_queue);
	TEST(test_signal_falls_on_bulk_drop);
	TEST(test_signal_falls_on_bulk_mark);
	TEST(test_key_fairness);
	TEST(test_key_split);
	TEST(test_pool_full);
	TEST(test_purge_pool);
	TEST(test_sparse_ahead_of_keys);
	TEST(test_boost_keeps_keys_fair);
	TEST(test_ping_beside_drained_queue);
	TEST(test_ping_beside_refilled_download);
	return unit_summary("fq_test");
}
