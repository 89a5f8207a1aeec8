// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the flow scheduler of "sched fq" (dfs_fq.h),
 * driven as sch_dfs drives it: packets of any size, ECN capable or not,
 * arrive on NF flows of NK keys, each flow's key and hash from the input
 * (hashes from a few values, so that flows share a hash, inside a key
 * and across keys, and sets of a pool of one or two sets, or none, fill
 * up), the clock moves on by anything from nothing to seconds (and
 * starts anywhere, so runs cross the wrap of CoDel's u32 clock), and the
 * link dequeues.
 *
 * The reference is written apart from dfs_fq.h: queues in an array (the
 * keys' embedded queues, then the pool's ways) with their packets in
 * rings, the lists as arrays of numbers, and CoDel in RFC 8289's form
 * (dodequeue() says ok_to_drop, dequeue() runs the state machine), the
 * state machine a key's, fed by the verdicts of its queues, with
 * the kernel's choices where the RFC leaves room: one Newton step of
 * 1/sqrt(count) a drop, an MTU of backlog that is never dropped into, ECN
 * marks in place of drops, drops at least a tick apart and at most 256
 * of them in one dequeue.  Bursts of up to 256 packets fill a queue past
 * that in a few bytes of input.
 *
 * Checked after every step: the packet sent, every packet dropped and
 * every CE mark are the reference's; the backlogs and queue lengths of
 * every flow and key, the keys scheduled and boosted, the pool's ways in use and the
 * packets that found their set full agree; and every queue holds packets
 * of the key that holds it only.  Emptied, the scheduler now and then
 * lets go of its keys at once, as sch_dfs does when polled empty.  At
 * the end the purge leaves no key and no way held.
 */
#include "fq_world.h"
#include "fuzz_input.h"

#define NK	4			/* keys */
#define NF	16			/* flows */
#define MAXSETS	2
#define NQ	(NK + MAXSETS * DFS_FQ_WAYS)	/* embedded, then ways */
#define RQ	W_PKTS

struct rpkt {
	u32	id, len, time;
	int	flow;
	bool	ect, ce;	/* ce: marked on the way in */
};

static struct rpkt rq[NQ][RQ];

struct rqueue {
	u32		head, len, bytes;
	bool		listed;
	s32		deficit;
	u32		tag;
	int		owner;		/* key, while busy (ways) */
	bool		busy;
	/* CoDel: the queue's verdict */
	u32		first_above;
	bool		ok;
};

struct rkey {
	bool		listed;
	bool		boosted;	/* in rboost */
	s32		deficit;
	s32		credit;		/* boost_credit */
	int		newq[NQ + 1], oldq[NQ + 1];
	int		nnew, nold;
	u32		pooled;
	u32		bytes, len;
	u32		split;		/* dfs_fq_key_split() */
	/* CoDel: the key's control law, and its queues that are ok */
	u32		drop_next, count, lastcount, nok;
	u16		rec_inv_sqrt;
	bool		dropping;
};

static struct rqueue rf[NQ];
static struct rkey rk[NK];
static int rnew[NK + 1], rold[NK + 1], rboost[NK + 1];
static int nnew, nold, nboost;
static u32 rbacklog, rsets;
static u32 rflen[NF], rfbytes[NF];
static u32 rdrops[W_PKTS], nrdrops;
static u64 roverflow;

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

static void rnewton(struct rkey *f)
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

/* A queue's verdict, counted in its key */
static void rsetok(struct rkey *k, struct rqueue *f, bool ok)
{
	if (f->ok && !ok)
		k->nok--;
	else if (!f->ok && ok)
		k->nok++;
	f->ok = ok;
}

static struct rres rdodequeue(struct world *w, struct rkey *k,
			      struct rqueue *f, u32 now)
{
	struct rres r = {};

	if (!f->len) {
		f->first_above = 0;
		rsetok(k, f, false);
		return r;
	}
	r.valid = true;
	r.p = rq[f - rf][f->head];
	f->head = (f->head + 1) % RQ;
	f->len--;
	f->bytes -= r.p.len;
	rbacklog -= r.p.len;
	rflen[r.p.flow]--;
	rfbytes[r.p.flow] -= r.p.len;
	rk[w->f[r.p.flow].key].len--;
	rk[w->f[r.p.flow].key].bytes -= r.p.len;

	if ((s32)(now - r.p.time - w->p.target) < 0 || rbacklog <= w->p.mtu)
		f->first_above = 0;
	else if (!f->first_above)
		f->first_above = now + w->p.interval;
	else if ((s32)(now - f->first_above) > 0)
		r.ok_to_drop = true;
	rsetok(k, f, r.ok_to_drop);
	return r;
}

static void rdrop(struct rpkt *p)
{
	if (nrdrops < W_PKTS)
		rdrops[nrdrops] = p->id;
	nrdrops++;
}

/* Queue @q takes packet @p of flow @i of key @k at its tail. */
static void rpush(int q, int k, int i, struct rpkt p)
{
	struct rqueue *f = &rf[q];

	rq[q][(f->head + f->len++) % RQ] = p;
	f->bytes += p.len;
	rbacklog += p.len;
	rflen[i]++;
	rfbytes[i] += p.len;
	rk[k].len++;
	rk[k].bytes += p.len;
}

/* The head of queue @q of key @k, dropped by Algorithm 3's signal. */
static void rshed(int q, int k)
{
	struct rqueue *f = &rf[q];
	struct rpkt *p = &rq[q][f->head];

	rdrop(p);
	f->head = (f->head + 1) % RQ;
	f->len--;
	f->bytes -= p->len;
	rbacklog -= p->len;
	rflen[p->flow]--;
	rfbytes[p->flow] -= p->len;
	rk[k].len--;
	rk[k].bytes -= p->len;
}

/*
 * The queue of key @k that takes Algorithm 3's signal in place of a packet
 * of a connection whose queue @q is empty: the head of the old ones, else
 * of the new ones, that is not @q and has packets; -1: none.
 */
static int rbulk(int k, int q)
{
	struct rkey *key = &rk[k];

	if (rf[q].len)
		return -1;
	if (key->nold && key->oldq[0] != q && rf[key->oldq[0]].len)
		return key->oldq[0];
	if (key->nnew && key->newq[0] != q && rf[key->newq[0]].len)
		return key->newq[0];
	return -1;
}

/*
 * CoDel's dequeue on queue @f of key @k, with the key's control law: it
 * drops only where the queue is ok to drop, and stops dropping once none
 * of the key's queues is; *ce says the packet returned got CE.
 */
static struct rres rcodel(struct world *w, struct rkey *k, struct rqueue *f,
			  u32 now, bool *ce)
{
	struct rres r = rdodequeue(w, k, f, now);
	u32 drops = 0;

	*ce = false;
	if (!k->nok)
		k->dropping = false;
	if (!r.valid)
		return r;
	if (k->dropping) {
		if (!r.ok_to_drop)
			return r;
		while ((s32)(now - k->drop_next) >= 0) {
			/* a bounded catch-up: then the schedule restarts */
			if (drops++ == 256) {
				k->drop_next = rlaw(now, w->p.interval,
						    k->rec_inv_sqrt);
				break;
			}
			k->count++;
			rnewton(k);
			if (w->p.ecn && r.p.ect) {
				*ce = true;
				k->drop_next = rlaw(k->drop_next, w->p.interval,
						    k->rec_inv_sqrt);
				return r;
			}
			rdrop(&r.p);
			r = rdodequeue(w, k, f, now);
			if (!k->nok) {
				k->dropping = false;
				break;
			}
			k->drop_next = rlaw(k->drop_next, w->p.interval,
					    k->rec_inv_sqrt);
			if (!r.ok_to_drop)
				break;
		}
	} else if (r.ok_to_drop) {
		u32 delta;

		if (w->p.ecn && r.p.ect) {
			*ce = true;
		} else {
			rdrop(&r.p);
			r = rdodequeue(w, k, f, now);
		}
		k->dropping = true;
		delta = k->count - k->lastcount;
		if (delta > 1 &&
		    (s32)(now - k->drop_next - 16 * w->p.interval) < 0) {
			k->count = delta;
			rnewton(k);
		} else {
			k->count = 1;
			k->rec_inv_sqrt = 0xffff;
		}
		k->lastcount = k->count;
		k->drop_next = rlaw(now, w->p.interval, k->rec_inv_sqrt);
	}
	return r;
}

/* The queue that a packet of flow hash @h of key @k joins. */
static int rselect(struct world *w, int k, u32 h)
{
	struct rkey *key = &rk[k];
	struct rqueue *E = &rf[k];
	int e = k, q = -1, i, set;

	if (!E->len && !key->pooled) {
		if (!E->listed) {
			E->tag = h;
			q = e;
			goto join;
		}
		/* emptied, in its old list: another connection is new */
		if (E->tag == h)
			return e;
		goto pool;
	}
	if (E->tag == h) {
		q = e;
		goto join;
	}
pool:
	if (rsets) {
		set = ((u64)h * rsets) >> 32;
		for (i = 0; i < DFS_FQ_WAYS && key->pooled; i++) {
			struct rqueue *f = &rf[NK + set * DFS_FQ_WAYS + i];

			if (f->busy && f->tag == h && f->owner == k) {
				q = f - rf;
				goto join;
			}
		}
		if (key->pooled && !E->len && !E->listed) {
			q = e;
			E->tag = h;
			goto join;
		}
		for (i = 0; i < DFS_FQ_WAYS; i++) {
			struct rqueue *f = &rf[NK + set * DFS_FQ_WAYS + i];

			if (!f->busy) {
				memset(f, 0, sizeof(*f));
				f->busy = true;
				f->tag = h;
				f->owner = k;
				key->pooled++;
				q = f - rf;
				goto join;
			}
		}
	}
	roverflow++;
	q = e;
join:
	if (!rf[q].listed) {
		rf[q].listed = true;
		rf[q].deficit = w->p.quantum;
		lpush(key->newq, &key->nnew, q);
		/* a connection beside others: ahead of the keys' round */
		if (key->pooled && key->credit > 0 && !key->boosted) {
			key->boosted = true;
			lpush(rboost, &nboost, k);
		}
	}
	return q;
}

/* A queue, emptied, leaves its key; a way is free again. */
static void rleave(int k, int q)
{
	rf[q].listed = false;
	if (q >= NK) {
		rf[q].busy = false;
		rk[k].pooled--;
	}
}

static struct rres rkey_dequeue(struct world *w, int k, u32 now, bool *ce)
{
	struct rkey *key = &rk[k];
	struct rres r;
	bool is_new;
	int i;

	for (;;) {
		struct rqueue *f;

		if (key->nnew) {
			i = key->newq[0];
			is_new = true;
		} else if (key->nold) {
			i = key->oldq[0];
			is_new = false;
		} else {
			r.valid = false;
			return r;
		}
		f = &rf[i];
		if (f->deficit <= 0) {
			f->deficit += w->p.quantum;
			is_new ? lpop(key->newq, &key->nnew) :
				 lpop(key->oldq, &key->nold);
			lpush(key->oldq, &key->nold, i);
			continue;
		}
		r = rcodel(w, key, f, now, ce);
		if (r.valid) {
			f->deficit -= r.p.len;
			return r;
		}
		is_new ? lpop(key->newq, &key->nnew) :
			 lpop(key->oldq, &key->nold);
		if (is_new && key->nold)
			lpush(key->oldq, &key->nold, i);
		else
			rleave(k, i);
	}
}

/* The boosted keys' new queues, each while its key has deficit. */
static struct rres rboost_dequeue(struct world *w, u32 now, bool *ce)
{
	struct rres r = { .valid = false };

	while (nboost) {
		int k = lpop(rboost, &nboost);
		struct rkey *key = &rk[k];

		key->boosted = false;
		while (key->credit > 0 && key->nnew) {
			int i = key->newq[0];
			struct rqueue *f = &rf[i];

			if (f->deficit <= 0) {
				f->deficit += w->p.quantum;
				lpop(key->newq, &key->nnew);
				lpush(key->oldq, &key->nold, i);
				continue;
			}
			r = rcodel(w, key, f, now, ce);
			if (r.valid) {
				f->deficit -= r.p.len;
				key->deficit -= r.p.len;
				key->credit -= r.p.len;
				if (key->credit > 0 && key->nnew) {
					key->boosted = true;
					lpush(rboost, &nboost, k);
				}
				return r;
			}
			lpop(key->newq, &key->nnew);
			if (key->nold)
				lpush(key->oldq, &key->nold, i);
			else
				rleave(k, i);
		}
	}
	return r;
}

static struct rres rdequeue(struct world *w, u32 now, bool *ce)
{
	struct rres r;
	bool is_new;
	int k;

	r = rboost_dequeue(w, now, ce);
	if (r.valid)
		return r;
	for (;;) {
		struct rkey *key;

		if (nnew) {
			k = rnew[0];
			is_new = true;
		} else if (nold) {
			k = rold[0];
			is_new = false;
		} else {
			r.valid = false;
			return r;
		}
		key = &rk[k];
		if (key->deficit <= 0) {
			key->deficit += key->split > 1 ?
					w->p.quantum / key->split :
					w->p.quantum;
			is_new ? lpop(rnew, &nnew) : lpop(rold, &nold);
			lpush(rold, &nold, k);
			continue;
		}
		r = rkey_dequeue(w, k, now, ce);
		if (r.valid) {
			key->deficit -= r.p.len;
			key->credit = DFS_FQ_BOOST_QUANTA * w->p.quantum;
			return r;
		}
		is_new ? lpop(rnew, &nnew) : lpop(rold, &nold);
		if (is_new && nold) {
			lpush(rold, &nold, k);
		} else {
			/* released: its embedded queue with it */
			FUZZ_ASSERT(!key->boosted);
			memset(key, 0, sizeof(*key));
			memset(&rf[k], 0, sizeof(rf[k]));
		}
	}
}

/* Empty: every key left in the lists goes, its queues with it. */
static void rrelease_idle(void)
{
	int k, j;

	for (k = 0; k < NK; k++) {
		if (!rk[k].listed)
			continue;
		for (j = 0; j < rk[k].nnew; j++)
			rleave(k, rk[k].newq[j]);
		for (j = 0; j < rk[k].nold; j++)
			rleave(k, rk[k].oldq[j]);
		memset(&rk[k], 0, sizeof(rk[k]));
		memset(&rf[k], 0, sizeof(rf[k]));
	}
	nnew = nold = nboost = 0;
}

static void check(struct world *w)
{
	u32 listed = 0, busy = 0, i;

	FUZZ_ASSERT(w->backlog == rbacklog);
	for (i = 0; i < NF; i++) {
		FUZZ_ASSERT(w->f[i].qlen == rflen[i]);
		FUZZ_ASSERT(w->f[i].backlog == rfbytes[i]);
	}
	for (i = 0; i < NK; i++) {
		FUZZ_ASSERT(w->k[i].qlen == rk[i].len);
		FUZZ_ASSERT(w->k[i].backlog == rk[i].bytes);
		FUZZ_ASSERT(!w->k[i].fk == !rk[i].listed);
		if (w->k[i].fk) {
			FUZZ_ASSERT(w->k[i].fk->pooled == rk[i].pooled);
			FUZZ_ASSERT(!w->k[i].fk->boost_next == !rk[i].boosted);
		}
		listed += rk[i].listed;
	}
	for (i = 0; i < rsets * DFS_FQ_WAYS; i++) {
		bool b = w->s.pool.busy[i / DFS_FQ_WAYS] &
			 (1U << (i % DFS_FQ_WAYS));

		FUZZ_ASSERT(b == rf[NK + i].busy);
		FUZZ_ASSERT(!w->s.pool.q[i].key == !rf[NK + i].listed);
		busy += b;
	}
	FUZZ_ASSERT(w->s.count == listed && w->keys == listed);
	FUZZ_ASSERT(w->s.pooled == busy);
	FUZZ_ASSERT(w->st.overflow == roverflow);
	FUZZ_ASSERT(w->dropped == nrdrops);
	for (i = 0; i < nrdrops && i < W_PKTS; i++)
		FUZZ_ASSERT(w->dropped_ids[i] == rdrops[i]);
	FUZZ_ASSERT(w_queues_own_keys(w));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	static struct world w;
	u32 quantum, target, interval;
	bool ecn;
	u64 now;
	int i;

	quantum = 64 + get(&in, 2) % 9000;
	target = 1 + get(&in, 3) % 20000;
	interval = 1 + get(&in, 3) % 1000000;
	ecn = get(&in, 1) & 1;
	rsets = get(&in, 1) % (MAXSETS + 1);
	w_init_pool(&w, quantum, target, interval, ecn, rsets);
	/* each flow's key and hash: eight hashes over both sets */
	for (i = 0; i < NF; i++) {
		u8 b = get(&in, 1);

		w.f[i].key = b % NK;
		w.f[i].hash = (b / NK % 8) * 0x20000000U + 1;
	}
	memset(rf, 0, sizeof(rf));
	memset(rk, 0, sizeof(rk));
	memset(rflen, 0, sizeof(rflen));
	memset(rfbytes, 0, sizeof(rfbytes));
	nnew = nold = nboost = 0;
	rbacklog = 0;
	nrdrops = 0;
	roverflow = 0;
	/* a clock that has run for long: CoDel's u32 time anywhere */
	now = get(&in, 6) << 10;

	while (in.left) {
		u8 op = get(&in, 1);

		i = op % NF;
		switch (op / NF % 4) {
		case 0:
		case 1: {	/* a packet of 1 to 9000 bytes, or a burst */
			u32 n = op / NF % 4 ? 1 + get(&in, 1) : 1;
			u32 len = 1 + get(&in, 2) % 9000;
			u8 flags = get(&in, 1);
			bool ect = flags & 1;
			int k = w.f[i].key;
			struct w_pkt *pkt;

			/* Algorithm 3 signals a busy key on this packet */
			if (n == 1 && (flags & 0x10) && rk[k].len &&
			    w.next_id < W_PKTS) {
				u32 id = w.next_id, t = dfs_codel_time(now);
				enum w_signal got, want;
				int q = rselect(&w, k, w.f[i].hash), b;

				got = w_enqueue_signal(&w, i, len, now, ect,
						       &id);
				b = rbulk(k, q);
				if (w.p.ecn && ect) {
					want = W_MARKED;
					rpush(q, k, i, (struct rpkt){
					      id, len, t, i, ect, true });
				} else if (b < 0) {
					want = W_DROPPED;
					rdrop(&(struct rpkt){ .id = id });
				} else if (w.p.ecn && rq[b][rf[b].head].ect) {
					want = W_BULK_MARKED;
					rq[b][rf[b].head].ce = true;
					rpush(q, k, i, (struct rpkt){
					      w.next_id - 1, len, t, i, ect,
					      false });
				} else {
					want = W_BULK_DROPPED;
					rpush(q, k, i, (struct rpkt){
					      w.next_id - 1, len, t, i, ect,
					      false });
					rshed(b, k);
				}
				FUZZ_ASSERT(got == want);
				n = 0;
			}
			while (n-- && w.next_id < W_PKTS) {
				int q;

				if (!rk[k].listed) {
					rk[k].listed = true;
					rk[k].deficit = w.p.quantum;
					rk[k].credit = DFS_FQ_BOOST_QUANTA * w.p.quantum;
					lpush(rnew, &nnew, k);
				}
				q = rselect(&w, k, w.f[i].hash);
				pkt = w_enqueue(&w, i, len, now, ect);
				rpush(q, k, i, (struct rpkt){
				      pkt->id, len, pkt->time, i, ect, false });
			}
			/* dfs_mq's share of the round: the queues it is on */
			if ((flags & 2) && w_key(&w, i)) {
				rk[k].split = flags >> 2 & 3;
				dfs_fq_key_split(w_key(&w, i), rk[k].split);
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
				FUZZ_ASSERT(pkt->ce == (ce || r.p.ce));
			}
			free(pkt);
			/* as sch_dfs's poll of an empty qdisc, now and then */
			if (!w.qlen && (op & 0x40)) {
				dfs_fq_release_idle(&w.s, &w_ops, &w);
				rrelease_idle();
			}
			break;
		}
		case 3:		/* time passes: up to ~1 s, often little */
			now += get(&in, 1) % 4 == 0 ?
			       get(&in, 3) * 64 : get(&in, 2) * 16;
			break;
		}
		check(&w);
	}
	dfs_fq_purge(&w.s, &w_ops, &w);
	FUZZ_ASSERT(!w.s.count && !w.s.pooled && !w.keys && !w.qlen);
	for (i = 0; i < (int)rsets; i++)
		FUZZ_ASSERT(!w.s.pool.busy[i]);
	w_destroy(&w);
	return 0;
}
