// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the flow scheduler of "sched fq" (dfs_fq.h),
 * driven as sch_dfs drives it: packets of any size, ECN capable or not,
 * arrive on W_FLOWS flows, the clock moves on by anything from nothing to
 * seconds (and starts anywhere, so runs cross the wrap of CoDel's u32
 * clock), and the link dequeues.
 *
 * The reference is written apart from dfs_fq.h: flows in an array with
 * their packets in rings, the two lists as arrays of flow numbers, and
 * CoDel in RFC 8289's form (dodequeue() says ok_to_drop, dequeue() runs
 * the state machine), with the kernel's choices where the RFC leaves
 * room: one Newton step of 1/sqrt(count) a drop, an MTU of backlog
 * that is never dropped into, ECN marks in place of drops, drops at
 * least a tick apart and at most 256 of them in one dequeue.  Bursts of
 * up to 256 packets fill a flow past that in a few bytes of input.
 *
 * Checked after every step: the packet sent, every packet dropped and
 * every CE mark are the reference's, and the backlogs, queue lengths and
 * the count of scheduled flows agree.
 */
#include "fq_world.h"
#include "fuzz_input.h"

#define RQ	1024

struct rpkt {
	u32	id, len, time;
	bool	ect;
};

/* each flow's ring, apart so that resetting a flow is cheap */
static struct rpkt rq[W_FLOWS][RQ];

struct rflow {
	u32		head, len, bytes;
	bool		listed;
	s32		deficit;
	/* CoDel */
	u32		first_above, drop_next, count, lastcount;
	u16		rec_inv_sqrt;
	bool		dropping;
};

static struct rflow rf[W_FLOWS];
static int rnew[W_FLOWS + 1], rold[W_FLOWS + 1];
static int nnew, nold;
static u32 rbacklog;
static u32 rdrops[W_PKTS], nrdrops;

struct rres {
	struct rpkt	p;
	bool		valid, ok_to_drop;
};

static void lpush(int *l, int *n, int f)
{
	l[(*n)++] = f;
}

static int lpop(int *l, int *n)
{
	int f = l[0];

	memmove(l, l + 1, --(*n) * sizeof(*l));
	return f;
}

static void rnewton(struct rflow *f)
{
	u32 invsqrt = (u32)f->rec_inv_sqrt << 16;
	u32 invsqrt2 = ((u64)invsqrt * invsqrt) >> 32;
	u64 val = (3ULL << 32) - (u64)f->count * invsqrt2;

	val = ((val >> 2) * invsqrt) >> 31;
	f->rec_inv_sqrt = val >> 16;
}

/* the step is at least a tick, or the drop loop would stall */
static u32 rlaw(u32 t, u32 interval, u16 ris)
{
	u32 step = ((u64)interval * ((u32)ris << 16)) >> 32;

	return t + (step ? step : 1);
}

static struct rres rdodequeue(struct world *w, struct rflow *f, u32 now)
{
	struct rres r = {};

	if (!f->len) {
		f->first_above = 0;
		return r;
	}
	r.valid = true;
	r.p = rq[f - rf][f->head];
	f->head = (f->head + 1) % RQ;
	f->len--;
	f->bytes -= r.p.len;
	rbacklog -= r.p.len;

	if ((s32)(now - r.p.time - w->p.target) < 0 || rbacklog <= w->p.mtu)
		f->first_above = 0;
	else if (!f->first_above)
		f->first_above = now + w->p.interval;
	else if ((s32)(now - f->first_above) > 0)
		r.ok_to_drop = true;
	return r;
}

static void rdrop(struct rpkt *p)
{
	if (nrdrops < W_PKTS)
		rdrops[nrdrops] = p->id;
	nrdrops++;
}

/* CoDel's dequeue on one flow; *ce says the packet returned got CE. */
static struct rres rcodel(struct world *w, struct rflow *f, u32 now, bool *ce)
{
	struct rres r = rdodequeue(w, f, now);
	u32 drops = 0;

	*ce = false;
	if (!r.valid) {
		f->dropping = false;
		return r;
	}
	if (f->dropping) {
		if (!r.ok_to_drop)
			f->dropping = false;
		while (f->dropping && (s32)(now - f->drop_next) >= 0) {
			/* a bounded catch-up: then the schedule restarts */
			if (drops++ == 256) {
				f->drop_next = rlaw(now, w->p.interval,
						    f->rec_inv_sqrt);
				break;
			}
			f->count++;
			rnewton(f);
			if (w->p.ecn && r.p.ect) {
				*ce = true;
				f->drop_next = rlaw(f->drop_next, w->p.interval,
						    f->rec_inv_sqrt);
				return r;
			}
			rdrop(&r.p);
			r = rdodequeue(w, f, now);
			if (!r.ok_to_drop)
				f->dropping = false;
			else
				f->drop_next = rlaw(f->drop_next, w->p.interval,
						    f->rec_inv_sqrt);
		}
	} else if (r.ok_to_drop) {
		u32 delta;

		if (w->p.ecn && r.p.ect) {
			*ce = true;
		} else {
			rdrop(&r.p);
			r = rdodequeue(w, f, now);
		}
		f->dropping = true;
		delta = f->count - f->lastcount;
		if (delta > 1 &&
		    (s32)(now - f->drop_next - 16 * w->p.interval) < 0) {
			f->count = delta;
			rnewton(f);
		} else {
			f->count = 1;
			f->rec_inv_sqrt = 0xffff;
		}
		f->lastcount = f->count;
		f->drop_next = rlaw(now, w->p.interval, f->rec_inv_sqrt);
	}
	return r;
}

static struct rres rdequeue(struct world *w, u32 now, bool *ce)
{
	struct rres r;
	bool is_new;
	int i;

	for (;;) {
		struct rflow *f;

		if (nnew) {
			i = rnew[0];
			is_new = true;
		} else if (nold) {
			i = rold[0];
			is_new = false;
		} else {
			r.valid = false;
			return r;
		}
		f = &rf[i];
		if (f->deficit <= 0) {
			f->deficit += w->p.quantum;
			is_new ? lpop(rnew, &nnew) : lpop(rold, &nold);
			lpush(rold, &nold, i);
			continue;
		}
		r = rcodel(w, f, now, ce);
		if (r.valid) {
			f->deficit -= r.p.len;
			return r;
		}
		is_new ? lpop(rnew, &nnew) : lpop(rold, &nold);
		if (is_new && nold) {
			lpush(rold, &nold, i);
		} else {
			/* released: CoDel's state goes with it */
			memset(f, 0, sizeof(*f));
		}
	}
}

static void check(struct world *w)
{
	u32 listed = 0, i;

	FUZZ_ASSERT(w->backlog == rbacklog);
	for (i = 0; i < W_FLOWS; i++) {
		FUZZ_ASSERT(w->f[i].qlen == rf[i].len);
		FUZZ_ASSERT(w->f[i].backlog == rf[i].bytes);
		FUZZ_ASSERT(!w->f[i].fq == !rf[i].listed);
		listed += rf[i].listed;
	}
	FUZZ_ASSERT(w->s.count == listed);
	FUZZ_ASSERT(w->dropped == nrdrops);
	for (i = 0; i < nrdrops && i < W_PKTS; i++)
		FUZZ_ASSERT(w->dropped_ids[i] == rdrops[i]);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	static struct world w;
	u64 now;
	int i;

	w_init(&w, 64 + get(&in, 2) % 9000, 1 + get(&in, 3) % 20000,
	       1 + get(&in, 3) % 1000000, get(&in, 1) & 1);
	memset(rf, 0, sizeof(rf));
	nnew = nold = 0;
	rbacklog = 0;
	nrdrops = 0;
	/* a clock that has run for long: CoDel's u32 time anywhere */
	now = get(&in, 6) << 10;

	while (in.left) {
		u8 op = get(&in, 1);

		i = op % W_FLOWS;
		switch (op / W_FLOWS % 4) {
		case 0:
		case 1: {	/* a packet of 1 to 9000 bytes, or a burst */
			u32 n = op / W_FLOWS % 4 ? 1 + get(&in, 1) : 1;
			u32 len = 1 + get(&in, 2) % 9000;
			bool ect = op & 0x80;
			struct rflow *f = &rf[i];
			struct w_pkt *pkt;

			while (n-- && f->len < RQ && w.next_id < W_PKTS) {
				pkt = w_enqueue(&w, i, len, now, ect);
				rq[i][(f->head + f->len++) % RQ] = (struct rpkt){
					pkt->id, len, pkt->time, ect };
				f->bytes += len;
				rbacklog += len;
				if (!f->listed) {
					f->listed = true;
					f->deficit = w.p.quantum;
					lpush(rnew, &nnew, i);
				}
			}
			break;
		}
		case 2: {	/* the link sends */
			struct w_pkt *pkt = w_dequeue(&w, now);
			struct rres r;
			bool ce;

			r = rdequeue(&w, dfs_codel_time(now), &ce);
			FUZZ_ASSERT(!pkt == !r.valid);
			if (pkt) {
				FUZZ_ASSERT(pkt->id == r.p.id);
				FUZZ_ASSERT(pkt->ce == ce);
			}
			free(pkt);
			break;
		}
		case 3:		/* time passes: up to ~1 s, often little */
			now += get(&in, 1) % 4 == 0 ?
			       get(&in, 3) * 64 : get(&in, 2) * 16;
			break;
		}
		check(&w);
	}
	w_destroy(&w);
	return 0;
}
