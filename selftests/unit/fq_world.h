/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A userspace world for the flow scheduler (dfs_fq.h), shared by its unit
 * tests and its fuzzer: packets are small structs linked through the
 * scheduler's head and tail, as sch_dfs links sk_buffs, and the callbacks
 * keep the backlogs and record what was dropped and marked.
 */
#ifndef _FQ_WORLD_H
#define _FQ_WORLD_H

#include "dfs_fq.h"

/*
 * Flows are 5-tuple flows: flow i is of key f[i].key (DFS's flow: a host)
 * and hashes to f[i].hash.  By default each flow is a key of its own, as
 * with "key 5tuple"; the tests of the inner round give keys several.
 */
#define W_KEYS	32
#define W_FLOWS	32
#define W_PKTS	4096

struct w_pkt {
	struct w_pkt	*next;
	u32		len;
	u32		time;		/* dfs_codel_time() at enqueue */
	u32		id;		/* order of arrival */
	int		flow;
	int		key;
	bool		ect;		/* ECN capable: mark() may set CE */
	bool		ce;
};

struct w_flow {
	int		key;
	u32		hash;
	u32		backlog;	/* bytes */
	u32		qlen;
};

struct w_key {
	struct dfs_fq_key *fk;		/* NULL: idle */
	u32		backlog;
	u32		qlen;
};

struct world {
	struct dfs_fq_sched	s;
	struct dfs_fq_params	p;
	struct dfs_fq_stats	st;
	struct w_flow		f[W_FLOWS];
	struct w_key		k[W_KEYS];
	void			*pool;
	u32			backlog;	/* bytes, every flow */
	u32			qlen;
	u32			next_id;
	u32			dropped;	/* by CoDel and w_enqueue_signal() */
	u32			released;	/* keys */
	u32			keys;		/* struct dfs_fq_key held */
	u32			dropped_ids[W_PKTS];
};

static void *w_pop(void *ctx, struct dfs_fq *fq)
{
	struct world *w = ctx;
	struct w_pkt *pkt = fq->head;
	struct w_flow *f;

	if (!pkt)
		return NULL;
	fq->head = pkt->next;
	if (!fq->head)
		fq->tail = NULL;
	pkt->next = NULL;
	f = &w->f[pkt->flow];
	f->backlog -= pkt->len;
	f->qlen--;
	w->k[pkt->key].backlog -= pkt->len;
	w->k[pkt->key].qlen--;
	w->backlog -= pkt->len;
	w->qlen--;
	return pkt;
}

static u32 w_len(const void *pkt)
{
	return ((const struct w_pkt *)pkt)->len;
}

static u32 w_time(const void *pkt)
{
	return ((const struct w_pkt *)pkt)->time;
}

static bool w_mark(void *pkt)
{
	struct w_pkt *p = pkt;

	if (!p->ect)
		return false;
	p->ce = true;
	return true;
}

static void w_drop(void *ctx, void *pkt)
{
	struct world *w = ctx;
	struct w_pkt *p = pkt;

	if (w->dropped < W_PKTS)
		w->dropped_ids[w->dropped] = p->id;
	w->dropped++;
	free(p);
}

static void w_release(void *ctx, struct dfs_fq_key *k)
{
	struct world *w = ctx;
	struct w_key *wk = k->owner;

	wk->fk = NULL;
	w->released++;
	w->keys--;
	free(k);
}

static const struct dfs_fq_ops w_ops = {
	.pop = w_pop, .len = w_len, .time = w_time, .mark = w_mark,
	.drop = w_drop, .release = w_release,
};

/* A pool of @sets sets (0: none, every key's embedded queue only). */
static void w_init_pool(struct world *w, u32 quantum, u32 target_us,
			u32 interval_us, bool ecn, u32 sets)
{
	int i;

	memset(w, 0, sizeof(*w));
	if (sets)
		w->pool = calloc(1, dfs_fq_pool_size(sets));
	dfs_fq_sched_init(&w->s, w->pool, sets);
	w->p.quantum = quantum;
	w->p.target = dfs_codel_time((u64)target_us * NSEC_PER_USEC);
	w->p.interval = dfs_codel_time((u64)interval_us * NSEC_PER_USEC);
	w->p.mtu = 1514;
	w->p.ecn = ecn;
	for (i = 0; i < W_FLOWS; i++) {
		w->f[i].key = i % W_KEYS;
		w->f[i].hash = (i + 1) * 0x9E3779B9U;
	}
}

static inline void w_init(struct world *w, u32 quantum, u32 target_us,
		   u32 interval_us, bool ecn)
{
	w_init_pool(w, quantum, target_us, interval_us, ecn, 4);
}

static struct w_pkt *w_new_pkt(struct world *w, int flow, u32 len,
				u64 now_ns, bool ect)
{
	struct w_pkt *pkt = calloc(1, sizeof(*pkt));

	pkt->len = len;
	pkt->time = dfs_codel_time(now_ns);
	pkt->id = w->next_id++;
	pkt->flow = flow;
	pkt->key = w->f[flow].key;
	pkt->ect = ect;
	return pkt;
}

/* As sch_dfs's dfs_fq_slot(): the packet's queue, an idle key activated. */
static struct dfs_fq *w_slot(struct world *w, struct w_pkt *pkt)
{
	struct w_key *wk = &w->k[pkt->key];
	struct dfs_fq_key *k = wk->fk;

	if (!k) {
		/* garbage, as a recycled key's: activate must set what counts */
		k = malloc(sizeof(*k));
		memset(k, 0xa5, sizeof(*k));
		wk->fk = k;
		w->keys++;
		dfs_fq_activate(&w->s, &w->p, &w->st, k, wk);
	}
	return dfs_fq_queue(&w->s, &w->p, &w->st, k, w->f[pkt->flow].hash);
}

static void w_link(struct world *w, struct dfs_fq *fq, struct w_pkt *pkt)
{
	struct w_flow *f = &w->f[pkt->flow];
	struct w_key *wk = &w->k[pkt->key];

	if (fq->tail)
		((struct w_pkt *)fq->tail)->next = pkt;
	else
		fq->head = pkt;
	fq->tail = pkt;
	f->backlog += pkt->len;
	f->qlen++;
	wk->backlog += pkt->len;
	wk->qlen++;
	w->backlog += pkt->len;
	w->qlen++;
}

/* As sch_dfs's enqueue: link the packet, activate an idle key. */
static struct w_pkt *w_enqueue(struct world *w, int flow, u32 len, u64 now_ns,
			       bool ect)
{
	struct w_pkt *pkt = w_new_pkt(w, flow, len, now_ns, ect);

	w_link(w, w_slot(w, pkt), pkt);
	return pkt;
}

/* Where Algorithm 3's signal fell (w_enqueue_signal()). */
enum w_signal {
	W_MARKED,		/* the packet itself, CE */
	W_DROPPED,		/* the packet itself */
	W_BULK_MARKED,		/* the head of the key's bulk queue, CE */
	W_BULK_DROPPED,		/* the head of the key's bulk queue */
};

/*
 * As sch_dfs's enqueue of a packet of @flow, whose key is busy, when
 * DFS's Algorithm 3 signals the key: a CE mark where the packet is ECN
 * capable; else, where its connection has nothing queued, the packet goes
 * in and the head of the key's bulk queue (dfs_fq_key_bulk()) takes the
 * signal, a CE mark if it can; else the packet is dropped.  *@id: the
 * packet the signal fell on.
 */
static inline enum w_signal w_enqueue_signal(struct world *w, int flow,
					     u32 len, u64 now_ns, bool ect,
					     u32 *id)
{
	struct w_pkt *pkt = w_new_pkt(w, flow, len, now_ns, ect);
	struct dfs_fq *fq = w_slot(w, pkt), *bulk;

	*id = pkt->id;
	if (w->p.ecn && w_mark(pkt)) {
		w_link(w, fq, pkt);
		return W_MARKED;
	}
	bulk = dfs_fq_key_bulk(w->k[pkt->key].fk, fq);
	if (!bulk) {
		w_drop(w, pkt);
		return W_DROPPED;
	}
	*id = ((struct w_pkt *)bulk->head)->id;
	if (w->p.ecn && w_mark(bulk->head)) {
		w_link(w, fq, pkt);
		return W_BULK_MARKED;
	}
	w_link(w, fq, pkt);
	w_drop(w, w_pop(w, bulk));
	return W_BULK_DROPPED;
}

/* The next packet, or NULL; the caller frees it. */
static struct w_pkt *w_dequeue(struct world *w, u64 now_ns)
{
	return dfs_fq_dequeue(&w->s, &w->p, &w->st, &w_ops, w, &w->backlog,
			      dfs_codel_time(now_ns));
}

/* The key of @flow, while it has one. */
static inline struct dfs_fq_key *w_key(struct world *w, int flow)
{
	return w->k[w->f[flow].key].fk;
}

/*
 * Every queue's packets are of the key that holds it, and a key counts
 * in ->droppable the queues it holds that CoDel may drop from.
 */
static bool w_queues_own_keys(struct world *w)
{
	struct dfs_drr_list *l[2];
	int i, j;

	for (i = 0; i < W_KEYS; i++) {
		struct dfs_fq_key *k = w->k[i].fk;
		struct dfs_drr *d;
		u32 droppable = 0;

		if (!k)
			continue;
		l[0] = &k->new_q;
		l[1] = &k->old_q;
		for (j = 0; j < 2; j++) {
			for (d = dfs_drr_head(l[j]); d;
			     d = d == l[j]->tail ? NULL : d->next) {
				struct dfs_fq *fq = container_of(d, struct dfs_fq,
								 drr);
				struct w_pkt *pkt;

				if (fq->key != k)
					return false;
				droppable += fq->ok_to_drop;
				for (pkt = fq->head; pkt; pkt = pkt->next)
					if (pkt->key != i)
						return false;
			}
		}
		if (droppable != k->droppable)
			return false;
	}
	return true;
}

static void w_destroy(struct world *w)
{
	dfs_fq_purge(&w->s, &w_ops, w);
	free(w->pool);
	w->pool = NULL;
}

#endif /* _FQ_WORLD_H */
