/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow scheduler of DFS's "sched fq" mode, free of sk_buff: deficit
 * round robin over the flows that have packets, new (sparse) flows before
 * old ones as in fq_codel, and CoDel (RFC 8289) on each flow's queue.
 *
 * It is a header of static inline functions that take the caller's packet
 * operations, as the kernel's codel_impl.h is, so the qdisc's callbacks
 * are inlined into its dequeue, and the userspace unit tests and fuzzer
 * drive the very same code with packets of their own.  Packets are opaque
 * here: the caller links them in dfs_fq.head and dfs_fq.tail.
 *
 * A struct dfs_fq exists only while its flow is in one of the two lists:
 * the caller allocates it when an idle flow gets a packet
 * (dfs_fq_activate()), and the scheduler hands it back (ops->release)
 * when the flow, empty, leaves the lists.  Known flows that have nothing
 * queued, the vast majority under a spoofed flood, cost no scheduling
 * state.  CoDel's memory of the last dropping episode (count, lastcount)
 * goes with it; a flow that empties and comes back starts a new episode,
 * as a flow that fq_codel's hash puts in a fresh bucket does.
 */
#ifndef _DFS_FQ_H
#define _DFS_FQ_H

#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/types.h>

/* CoDel's clock: nanoseconds >> 10 in a u32, as the kernel's codel.h. */
#define DFS_CODEL_SHIFT	10

static inline u32 dfs_codel_time(u64 ns)
{
	return ns >> DFS_CODEL_SHIFT;
}

static inline u32 dfs_codel_from_us(u32 us)
{
	return dfs_codel_time((u64)us * NSEC_PER_USEC);
}

static inline bool dfs_codel_after(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

static inline bool dfs_codel_after_eq(u32 a, u32 b)
{
	return (s32)(a - b) >= 0;
}

/* 1/sqrt(count) in Q0.16, as codel_vars.rec_inv_sqrt */
#define DFS_REC_INV_SQRT_SHIFT	16

/*
 * At most this many drops in one dfs_codel_dequeue(), as the kernel's
 * CODEL_MAX_DROPS_PER_DEQUEUE: the dropping loop catches up with a drop
 * schedule that a stalled link (a throttled parent) left behind, and so
 * does as much work as the gap is long and the queue deep, under the
 * qdisc lock.  Past it, the schedule starts again from now.
 */
#define DFS_CODEL_MAX_DROPS	256

struct dfs_codel {
	u32	first_above;	/* time the sojourn may drop from; 0: below */
	u32	drop_next;	/* time of the next drop in dropping state */
	u32	count;		/* drops in this dropping episode */
	u32	lastcount;	/* count when the last episode began */
	u16	rec_inv_sqrt;
	bool	dropping;
};

/* The scheduling state of a flow with packets (or just emptied). */
struct dfs_fq {
	struct dfs_fq	*next;		/* in the new or the old list */
	void		*head;		/* the caller's packets, oldest first */
	void		*tail;
	void		*owner;		/* the caller's flow */
	s32		deficit;	/* bytes it may still send this round */
	struct dfs_codel cv;
};

struct dfs_fq_list {
	struct dfs_fq	*head;
	struct dfs_fq	*tail;
};

struct dfs_fq_params {
	u32	quantum;	/* bytes per round */
	u32	target;		/* CoDel target, dfs_codel_time() units */
	u32	interval;	/* CoDel interval, same units */
	u32	mtu;		/* no drop with at most this much queued */
	bool	ecn;		/* CE mark ECT packets instead of dropping */
};

struct dfs_fq_sched {
	struct dfs_fq_list	new_flows;
	struct dfs_fq_list	old_flows;
	u32			count;		/* struct dfs_fq in the lists */
};

/* What one dequeue dropped, for qdisc_tree_reduce_backlog(), and totals. */
struct dfs_fq_stats {
	u32	drop_count;
	u32	drop_len;
	u64	codel_drops;
	u64	codel_marks;
	u64	new_flows;
};

/*
 * The caller's packet operations.  pop() unlinks the oldest packet of a
 * flow and takes it out of every backlog the caller keeps (NULL when the
 * flow has none); time() is its enqueue time in dfs_codel_time() units;
 * mark() sets CE and says whether it could; drop() frees a packet pop()
 * returned; release() frees a struct dfs_fq that left the lists.
 */
struct dfs_fq_ops {
	void	*(*pop)(void *ctx, struct dfs_fq *fq);
	u32	(*len)(const void *pkt);
	u32	(*time)(const void *pkt);
	bool	(*mark)(void *pkt);
	void	(*drop)(void *ctx, void *pkt);
	void	(*release)(void *ctx, struct dfs_fq *fq);
};

static inline void dfs_fq_sched_init(struct dfs_fq_sched *s)
{
	memset(s, 0, sizeof(*s));
}

static inline void dfs_fq_list_add(struct dfs_fq_list *l, struct dfs_fq *fq)
{
	fq->next = NULL;
	if (l->tail)
		l->tail->next = fq;
	else
		l->head = fq;
	l->tail = fq;
}

static inline struct dfs_fq *dfs_fq_list_pop(struct dfs_fq_list *l)
{
	struct dfs_fq *fq = l->head;

	if (fq) {
		l->head = fq->next;
		if (!l->head)
			l->tail = NULL;
		fq->next = NULL;
	}
	return fq;
}

/* An idle flow got a packet: it joins the new flows with a full quantum.
 * @fq is zeroed, its owner and first packet set by the caller.
 */
static inline void dfs_fq_activate(struct dfs_fq_sched *s,
				   const struct dfs_fq_params *p,
				   struct dfs_fq_stats *st, struct dfs_fq *fq)
{
	fq->deficit = p->quantum;
	dfs_fq_list_add(&s->new_flows, fq);
	s->count++;
	st->new_flows++;
}

/* new_invsqrt = invsqrt / 2 * (3 - count * invsqrt^2), in Q0.32 */
static inline void dfs_codel_newton_step(struct dfs_codel *cv)
{
	u32 invsqrt = (u32)cv->rec_inv_sqrt << DFS_REC_INV_SQRT_SHIFT;
	u32 invsqrt2 = ((u64)invsqrt * invsqrt) >> 32;
	u64 val = (3ULL << 32) - ((u64)cv->count * invsqrt2);

	val >>= 2;	/* no overflow in the multiply below */
	val = (val * invsqrt) >> (32 - 2 + 1);
	cv->rec_inv_sqrt = val >> DFS_REC_INV_SQRT_SHIFT;
}

/*
 * t + interval / sqrt(count), at least a tick later: a small interval and
 * a large count truncate the step to zero, and the dropping loop would
 * then drop every packet while the sojourn stays above target.
 */
static inline u32 dfs_codel_control_law(u32 t, u32 interval, u16 rec_inv_sqrt)
{
	return t + max_t(u32, 1,
			 ((u64)interval *
			  ((u32)rec_inv_sqrt << DFS_REC_INV_SQRT_SHIFT)) >> 32);
}

/*
 * Is the sojourn of @pkt, the packet about to go, above target for an
 * interval?  @backlog is the queue after it left: with an MTU or less
 * left, dropping would only starve the link.
 */
static inline bool dfs_codel_should_drop(struct dfs_codel *cv,
					 const struct dfs_fq_params *p,
					 const struct dfs_fq_ops *ops,
					 const void *pkt, u32 backlog, u32 now)
{
	if (!pkt) {
		cv->first_above = 0;
		return false;
	}
	if (!dfs_codel_after_eq(now - ops->time(pkt), p->target) ||
	    backlog <= p->mtu) {
		cv->first_above = 0;
		return false;
	}
	if (!cv->first_above) {
		/* may be 0 itself once the clock wraps: one interval late */
		cv->first_above = now + p->interval;
		return false;
	}
	return dfs_codel_after(now, cv->first_above);
}

/*
 * CoDel on one flow's queue, codel_dequeue() of codel_impl.h: returns the
 * packet to send, or NULL once the flow is empty.  Drops go through
 * ops->drop and are counted in @st.  @backlog points at the caller's
 * total backlog, which ops->pop keeps.
 */
static inline void *dfs_codel_dequeue(struct dfs_fq *fq,
				      const struct dfs_fq_params *p,
				      struct dfs_fq_stats *st,
				      const struct dfs_fq_ops *ops, void *ctx,
				      const u32 *backlog, u32 now)
{
	struct dfs_codel *cv = &fq->cv;
	void *pkt = ops->pop(ctx, fq);
	unsigned int drops = 0;
	bool drop;

	if (!pkt) {
		cv->first_above = 0;
		cv->dropping = false;
		return NULL;
	}
	drop = dfs_codel_should_drop(cv, p, ops, pkt, *backlog, now);
	if (cv->dropping) {
		if (!drop) {
			cv->dropping = false;	/* below target: leave */
			return pkt;
		}
		/* A large backlog may call for several drops at once. */
		while (cv->dropping && dfs_codel_after_eq(now, cv->drop_next)) {
			if (++drops > DFS_CODEL_MAX_DROPS) {
				/* far behind the schedule: resync */
				cv->drop_next = dfs_codel_control_law(now,
								      p->interval,
								      cv->rec_inv_sqrt);
				break;
			}
			cv->count++;
			dfs_codel_newton_step(cv);
			if (p->ecn && ops->mark(pkt)) {
				st->codel_marks++;
				cv->drop_next = dfs_codel_control_law(cv->drop_next,
								      p->interval,
								      cv->rec_inv_sqrt);
				return pkt;
			}
			st->drop_count++;
			st->drop_len += ops->len(pkt);
			st->codel_drops++;
			ops->drop(ctx, pkt);
			pkt = ops->pop(ctx, fq);
			if (!dfs_codel_should_drop(cv, p, ops, pkt, *backlog,
						   now))
				cv->dropping = false;
			else
				cv->drop_next = dfs_codel_control_law(cv->drop_next,
								      p->interval,
								      cv->rec_inv_sqrt);
		}
	} else if (drop) {
		u32 delta;

		if (p->ecn && ops->mark(pkt)) {
			st->codel_marks++;
		} else {
			st->drop_count++;
			st->drop_len += ops->len(pkt);
			st->codel_drops++;
			ops->drop(ctx, pkt);
			pkt = ops->pop(ctx, fq);
			dfs_codel_should_drop(cv, p, ops, pkt, *backlog, now);
		}
		cv->dropping = true;
		/* Back above target soon after the last episode: start from
		 * the drop rate that controlled the queue then.
		 */
		delta = cv->count - cv->lastcount;
		if (delta > 1 &&
		    !dfs_codel_after_eq(now - cv->drop_next, 16 * p->interval)) {
			cv->count = delta;
			dfs_codel_newton_step(cv);
		} else {
			cv->count = 1;
			cv->rec_inv_sqrt = ~0U >> DFS_REC_INV_SQRT_SHIFT;
		}
		cv->lastcount = cv->count;
		cv->drop_next = dfs_codel_control_law(now, p->interval,
						      cv->rec_inv_sqrt);
	}
	return pkt;
}

/*
 * The next packet to send, fq_codel_dequeue()'s deficit round robin: the
 * first new flow, else the first old flow, sends while its deficit lasts,
 * then goes to the tail of the old flows with another quantum.  A new
 * flow that empties goes through the old flows once before it can be new
 * again, so a flow can not stay "new" by sending a packet a round.
 */
static inline void *dfs_fq_dequeue(struct dfs_fq_sched *s,
				   const struct dfs_fq_params *p,
				   struct dfs_fq_stats *st,
				   const struct dfs_fq_ops *ops, void *ctx,
				   const u32 *backlog, u32 now)
{
	struct dfs_fq_list *head;
	struct dfs_fq *fq;
	void *pkt;

	for (;;) {
		head = &s->new_flows;
		if (!head->head) {
			head = &s->old_flows;
			if (!head->head)
				return NULL;
		}
		fq = head->head;
		if (fq->deficit <= 0) {
			fq->deficit += p->quantum;
			dfs_fq_list_pop(head);
			dfs_fq_list_add(&s->old_flows, fq);
			continue;
		}
		pkt = dfs_codel_dequeue(fq, p, st, ops, ctx, backlog, now);
		if (pkt) {
			fq->deficit -= ops->len(pkt);
			return pkt;
		}
		dfs_fq_list_pop(head);
		if (head == &s->new_flows && s->old_flows.head) {
			dfs_fq_list_add(&s->old_flows, fq);
		} else {
			s->count--;
			ops->release(ctx, fq);
		}
	}
}

/*
 * Empty every flow through ops->drop, for reset and destroy, and release
 * them: the scheduler is empty after.
 */
static inline void dfs_fq_purge(struct dfs_fq_sched *s,
				const struct dfs_fq_ops *ops, void *ctx)
{
	struct dfs_fq_list *l[] = { &s->new_flows, &s->old_flows };
	struct dfs_fq *fq;
	void *pkt;
	int i;

	for (i = 0; i < 2; i++) {
		while ((fq = dfs_fq_list_pop(l[i]))) {
			while ((pkt = ops->pop(ctx, fq)))
				ops->drop(ctx, pkt);
			s->count--;
			ops->release(ctx, fq);
		}
	}
}

#endif /* _DFS_FQ_H */
