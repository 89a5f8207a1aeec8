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

#define W_FLOWS	8
#define W_PKTS	4096

struct w_pkt {
	struct w_pkt	*next;
	u32		len;
	u32		time;		/* dfs_codel_time() at enqueue */
	u32		id;		/* order of arrival */
	int		flow;
	bool		ect;		/* ECN capable: mark() may set CE */
	bool		ce;
};

struct w_flow {
	struct dfs_fq	*fq;		/* NULL: idle */
	u32		backlog;	/* bytes */
	u32		qlen;
};

struct world {
	struct dfs_fq_sched	s;
	struct dfs_fq_params	p;
	struct dfs_fq_stats	st;
	struct w_flow		f[W_FLOWS];
	u32			backlog;	/* bytes, every flow */
	u32			qlen;
	u32			next_id;
	u32			dropped;	/* packets dropped by CoDel */
	u32			released;
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

static void w_release(void *ctx, struct dfs_fq *fq)
{
	struct world *w = ctx;
	int i;

	for (i = 0; i < W_FLOWS; i++) {
		if (w->f[i].fq == fq) {
			w->f[i].fq = NULL;
			break;
		}
	}
	w->released++;
	free(fq);
}

static const struct dfs_fq_ops w_ops = {
	.pop = w_pop, .len = w_len, .time = w_time, .mark = w_mark,
	.drop = w_drop, .release = w_release,
};

static void w_init(struct world *w, u32 quantum, u32 target_us,
		   u32 interval_us, bool ecn)
{
	memset(w, 0, sizeof(*w));
	dfs_fq_sched_init(&w->s);
	w->p.quantum = quantum;
	w->p.target = dfs_codel_time((u64)target_us * NSEC_PER_USEC);
	w->p.interval = dfs_codel_time((u64)interval_us * NSEC_PER_USEC);
	w->p.mtu = 1514;
	w->p.ecn = ecn;
}

/* As sch_dfs's enqueue: link the packet, activate an idle flow. */
static struct w_pkt *w_enqueue(struct world *w, int flow, u32 len, u64 now_ns,
			       bool ect)
{
	struct w_pkt *pkt = calloc(1, sizeof(*pkt));
	struct w_flow *f = &w->f[flow];
	struct dfs_fq *fq = f->fq;

	pkt->len = len;
	pkt->time = dfs_codel_time(now_ns);
	pkt->id = w->next_id++;
	pkt->flow = flow;
	pkt->ect = ect;
	if (!fq) {
		fq = calloc(1, sizeof(*fq));
		fq->owner = f;
		f->fq = fq;
		dfs_fq_activate(&w->s, &w->p, &w->st, fq);
	}
	if (fq->tail)
		((struct w_pkt *)fq->tail)->next = pkt;
	else
		fq->head = pkt;
	fq->tail = pkt;
	f->backlog += len;
	f->qlen++;
	w->backlog += len;
	w->qlen++;
	return pkt;
}

/* The next packet, or NULL; the caller frees it. */
static struct w_pkt *w_dequeue(struct world *w, u64 now_ns)
{
	return dfs_fq_dequeue(&w->s, &w->p, &w->st, &w_ops, w, &w->backlog,
			      dfs_codel_time(now_ns));
}

static void w_destroy(struct world *w)
{
	dfs_fq_purge(&w->s, &w_ops, w);
}

#endif /* _FQ_WORLD_H */
