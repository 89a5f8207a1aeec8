/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow scheduler of DFS's "sched fq" mode, free of sk_buff: deficit
 * round robin on two levels, new (sparse) before old as in fq_codel at
 * each, and CoDel (RFC 8289) on each flow queue.  The outer round is over
 * the keys (DFS's flows: hosts, by default) that have packets, so keys
 * share the link by bytes as DFS shares the buffer; the inner round, a
 * key's turn, is over that key's flow queues, one per 5-tuple flow, so a
 * host's ping or DNS goes before its own bulk transfers, as in cake.
 *
 * It is a header of static inline functions that take the caller's packet
 * operations, as the kernel's codel_impl.h is, so the qdisc's callbacks
 * are inlined into its dequeue, and the userspace unit tests and fuzzer
 * drive the very same code with packets of their own.  Packets are opaque
 * here: the caller links them in dfs_fq.head and dfs_fq.tail.
 *
 * A struct dfs_fq_key exists only while its key is in one of the outer
 * lists: the caller allocates it when an idle key gets a packet
 * (dfs_fq_activate()), and the scheduler hands it back (ops->release)
 * when the key, empty, leaves the lists.  Known keys that have nothing
 * queued, the vast majority under a spoofed flood, cost no scheduling
 * state.  It embeds one flow queue, all that a key with one flow at a
 * time needs; a key's further flows take queues from a pool of fixed size
 * that the caller allocates once (dfs_fq_queue()), and give them back
 * when they empty.  CoDel's memory of the last dropping episode goes with
 * a queue; a flow that empties and comes back may start a new episode,
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

struct dfs_fq_key;

/*
 * A flow queue: one 5-tuple flow (by its hash, the tag) of a key, or
 * several when its set of the pool was full.  It holds packets of one key
 * only.  ->key is set while the queue is in its key's lists.
 */
struct dfs_fq {
	struct dfs_fq	*next;		/* in its key's new or old list */
	void		*head;		/* the caller's packets, oldest first */
	void		*tail;
	struct dfs_fq_key *key;		/* NULL: in no list */
	u32		tag;		/* flow hash of its packets */
	s32		deficit;	/* bytes it may still send this round */
	struct dfs_codel cv;
	bool		tagged;		/* tag is set (the embedded queue) */
};

struct dfs_fq_list {
	struct dfs_fq	*head;
	struct dfs_fq	*tail;
};

/*
 * The scheduling state of a key (a DFS flow) with packets, or just
 * emptied: its place in the round over keys, and the round over its own
 * flow queues.  Most keys hold one flow at a time (one host's single
 * download, a spoofed source): they use the embedded queue only.
 */
struct dfs_fq_key {
	struct dfs_fq_key *next;	/* in the new or the old keys */
	void		*owner;		/* the caller's flow */
	s32		deficit;
	u32		pooled;		/* queues of the pool it holds */
	struct dfs_fq_list new_q;	/* its flow queues, new first */
	struct dfs_fq_list old_q;
	struct dfs_fq	q;		/* embedded */
};

struct dfs_fq_klist {
	struct dfs_fq_key *head;
	struct dfs_fq_key *tail;
};

struct dfs_fq_params {
	u32	quantum;	/* bytes per round */
	u32	target;		/* CoDel target, dfs_codel_time() units */
	u32	interval;	/* CoDel interval, same units */
	u32	mtu;		/* no drop with at most this much queued */
	bool	ecn;		/* CE mark ECT packets instead of dropping */
};

/*
 * The pool of flow queues for keys with more than one flow, as cake's
 * set-associative table: a flow hash picks a set of DFS_FQ_WAYS queues,
 * and its tags sit side by side so that a probe reads one cache line.
 */
#define DFS_FQ_WAYS	8

struct dfs_fq_pool {
	struct dfs_fq	*q;		/* sets * DFS_FQ_WAYS */
	u32		*tag;		/* q[i].tag, while busy */
	u8		*busy;		/* a bit per way of each set */
	u32		sets;
};

struct dfs_fq_sched {
	struct dfs_fq_klist	new_keys;
	struct dfs_fq_klist	old_keys;
	u32			count;		/* keys in the lists */
	u32			pooled;		/* queues of the pool in use */
	struct dfs_fq_pool	pool;
};

/* What one dequeue dropped, for qdisc_tree_reduce_backlog(), and totals. */
struct dfs_fq_stats {
	u32	drop_count;
	u32	drop_len;
	u64	codel_drops;
	u64	codel_marks;
	u64	new_flows;	/* keys that joined the new keys */
	u64	overflow;	/* packets that found their set full */
};

/*
 * The caller's packet operations.  pop() unlinks the oldest packet of a
 * queue and takes it out of every backlog the caller keeps (NULL when the
 * queue has none); time() is its enqueue time in dfs_codel_time() units;
 * mark() sets CE and says whether it could; drop() frees a packet pop()
 * returned; release() frees a struct dfs_fq_key that left the lists;
 * hash() is the hash of a packet's connection (a 5-tuple flow).
 */
struct dfs_fq_ops {
	void	*(*pop)(void *ctx, struct dfs_fq *fq);
	u32	(*len)(const void *pkt);
	u32	(*time)(const void *pkt);
	bool	(*mark)(void *pkt);
	void	(*drop)(void *ctx, void *pkt);
	void	(*release)(void *ctx, struct dfs_fq_key *k);
	u32	(*hash)(void *ctx, void *pkt);
};

/* Bytes of a pool of @sets sets, for the caller's one allocation. */
static inline size_t dfs_fq_pool_size(u32 sets)
{
	return (size_t)sets * DFS_FQ_WAYS *
	       (sizeof(struct dfs_fq) + sizeof(u32)) + sets;
}

/*
 * @mem: dfs_fq_pool_size(@sets) zeroed bytes, or NULL with @sets 0 (no
 * pool: every key has its embedded queue only).  Only while no key is
 * in the lists.
 */
static inline void dfs_fq_pool_set(struct dfs_fq_sched *s, void *mem,
				   u32 sets)
{
	u32 n = sets * DFS_FQ_WAYS;

	memset(&s->pool, 0, sizeof(s->pool));
	if (!mem)
		return;
	s->pool.q = mem;
	s->pool.tag = (u32 *)(s->pool.q + n);
	s->pool.busy = (u8 *)(s->pool.tag + n);
	s->pool.sets = sets;
}

static inline void dfs_fq_sched_init(struct dfs_fq_sched *s, void *mem,
				     u32 sets)
{
	memset(s, 0, sizeof(*s));
	dfs_fq_pool_set(s, mem, sets);
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

static inline void dfs_fq_klist_add(struct dfs_fq_klist *l,
				    struct dfs_fq_key *k)
{
	k->next = NULL;
	if (l->tail)
		l->tail->next = k;
	else
		l->head = k;
	l->tail = k;
}

static inline struct dfs_fq_key *dfs_fq_klist_pop(struct dfs_fq_klist *l)
{
	struct dfs_fq_key *k = l->head;

	if (k) {
		l->head = k->next;
		if (!l->head)
			l->tail = NULL;
		k->next = NULL;
	}
	return k;
}

/* An idle key got a packet: it joins the new keys with a full quantum.
 * @k is zeroed, its owner set by the caller; dfs_fq_queue() then gives
 * the packet its queue.
 */
static inline void dfs_fq_activate(struct dfs_fq_sched *s,
				   const struct dfs_fq_params *p,
				   struct dfs_fq_stats *st,
				   struct dfs_fq_key *k)
{
	k->deficit = p->quantum;
	dfs_fq_klist_add(&s->new_keys, k);
	s->count++;
	st->new_flows++;
}

static inline struct dfs_fq *dfs_fq_join(struct dfs_fq_key *k,
					 struct dfs_fq *fq,
					 const struct dfs_fq_params *p)
{
	if (!fq->key) {
		fq->key = k;
		fq->deficit = p->quantum;
		dfs_fq_list_add(&k->new_q, fq);
	}
	return fq;
}

/*
 * The queue of key @k for @pkt, put in @k's new list if it was in none;
 * the caller links the packet at its tail.  The embedded queue when it
 * has the packets of @pkt's connection (by ops->hash()) or none; else
 * the pool queue of @k that has them, else a free way of the hash's set;
 * when all of the set's ways are busy, the embedded queue, where the
 * connection shares CoDel and the round with the one there: a queue
 * never holds two keys' packets.
 *
 * A key with one connection at a time needs no hash: its packets take
 * the embedded queue whatever it is.  The embedded queue's tag is only
 * taken, from its oldest packet, when a packet comes while it has some:
 * the same choice as tagging every first packet, without hashing a
 * packet that finds its key idle (most, on a link that keeps up).
 */
static inline struct dfs_fq *dfs_fq_queue(struct dfs_fq_sched *s,
					  const struct dfs_fq_params *p,
					  struct dfs_fq_stats *st,
					  struct dfs_fq_key *k, void *pkt,
					  const struct dfs_fq_ops *ops,
					  void *ctx)
{
	struct dfs_fq_pool *pool = &s->pool;
	struct dfs_fq *e = &k->q;
	u32 h, set, base, busy, i;

	if (!e->head && !k->pooled) {
		e->tagged = false;
		return dfs_fq_join(k, e, p);
	}
	h = ops->hash(ctx, pkt);
	if (!e->tagged && e->head) {
		e->tag = ops->hash(ctx, e->head);
		e->tagged = true;
	}
	if (e->tagged && e->tag == h)
		return dfs_fq_join(k, e, p);
	if (!pool->sets)
		goto mix;
	set = ((u64)h * pool->sets) >> 32;
	base = set * DFS_FQ_WAYS;
	busy = pool->busy[set];
	if (k->pooled) {
		for (i = 0; i < DFS_FQ_WAYS; i++)
			if ((busy & (1U << i)) && pool->tag[base + i] == h &&
			    pool->q[base + i].key == k)
				return dfs_fq_join(k, &pool->q[base + i], p);
		if (!e->head) {
			e->tag = h;
			e->tagged = true;
			return dfs_fq_join(k, e, p);
		}
	}
	for (i = 0; i < DFS_FQ_WAYS; i++) {
		if (!(busy & (1U << i))) {
			struct dfs_fq *fq = &pool->q[base + i];

			pool->busy[set] = busy | (1U << i);
			pool->tag[base + i] = h;
			fq->tag = h;
			memset(&fq->cv, 0, sizeof(fq->cv));
			k->pooled++;
			s->pooled++;
			return dfs_fq_join(k, fq, p);
		}
	}
mix:
	st->overflow++;
	return dfs_fq_join(k, e, p);
}

/* An emptied queue leaves its key's lists; a pool queue is free again. */
static inline void dfs_fq_leave(struct dfs_fq_sched *s, struct dfs_fq *fq)
{
	struct dfs_fq_key *k = fq->key;
	u32 i;

	fq->key = NULL;
	if (fq == &k->q)
		return;
	i = fq - s->pool.q;
	s->pool.busy[i / DFS_FQ_WAYS] &= ~(1U << (i % DFS_FQ_WAYS));
	k->pooled--;
	s->pooled--;
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
 * The next packet of key @k, fq_codel_dequeue()'s deficit round robin
 * over its flow queues: the first new queue, else the first old one,
 * sends while its deficit lasts, then goes to the tail of the old queues
 * with another quantum.  A new queue that empties goes through the old
 * queues once before it can be new again, so a flow can not stay "new"
 * by sending a packet a round.  NULL once every queue of @k left.
 */
static inline void *dfs_fq_key_dequeue(struct dfs_fq_sched *s,
				       struct dfs_fq_key *k,
				       const struct dfs_fq_params *p,
				       struct dfs_fq_stats *st,
				       const struct dfs_fq_ops *ops, void *ctx,
				       const u32 *backlog, u32 now)
{
	struct dfs_fq_list *head;
	struct dfs_fq *fq;
	void *pkt;

	for (;;) {
		head = &k->new_q;
		if (!head->head) {
			head = &k->old_q;
			if (!head->head)
				return NULL;
		}
		fq = head->head;
		if (fq->deficit <= 0) {
			fq->deficit += p->quantum;
			dfs_fq_list_pop(head);
			dfs_fq_list_add(&k->old_q, fq);
			continue;
		}
		pkt = dfs_codel_dequeue(fq, p, st, ops, ctx, backlog, now);
		if (pkt) {
			fq->deficit -= ops->len(pkt);
			return pkt;
		}
		dfs_fq_list_pop(head);
		if (head == &k->new_q && k->old_q.head)
			dfs_fq_list_add(&k->old_q, fq);
		else
			dfs_fq_leave(s, fq);
	}
}

/*
 * The next packet to send: the same round over the keys, each sending
 * from its own round while its deficit lasts, so that keys share the
 * link by bytes whatever the flows each has, and a key that just got a
 * packet goes first, once.  A key whose queues all left goes through the
 * old keys once, as a queue does, then is released.
 */
static inline void *dfs_fq_dequeue(struct dfs_fq_sched *s,
				   const struct dfs_fq_params *p,
				   struct dfs_fq_stats *st,
				   const struct dfs_fq_ops *ops, void *ctx,
				   const u32 *backlog, u32 now)
{
	struct dfs_fq_klist *head;
	struct dfs_fq_key *k;
	void *pkt;

	for (;;) {
		head = &s->new_keys;
		if (!head->head) {
			head = &s->old_keys;
			if (!head->head)
				return NULL;
		}
		k = head->head;
		if (k->deficit <= 0) {
			k->deficit += p->quantum;
			dfs_fq_klist_pop(head);
			dfs_fq_klist_add(&s->old_keys, k);
			continue;
		}
		pkt = dfs_fq_key_dequeue(s, k, p, st, ops, ctx, backlog, now);
		if (pkt) {
			k->deficit -= ops->len(pkt);
			return pkt;
		}
		dfs_fq_klist_pop(head);
		if (head == &s->new_keys && s->old_keys.head) {
			dfs_fq_klist_add(&s->old_keys, k);
		} else {
			s->count--;
			ops->release(ctx, k);
		}
	}
}

/* Empty the queues of @k through ops->drop; they leave its lists. */
static inline void dfs_fq_key_purge(struct dfs_fq_sched *s,
				    struct dfs_fq_key *k,
				    const struct dfs_fq_ops *ops, void *ctx)
{
	struct dfs_fq_list *l[] = { &k->new_q, &k->old_q };
	struct dfs_fq *fq;
	void *pkt;
	int i;

	for (i = 0; i < 2; i++) {
		while ((fq = dfs_fq_list_pop(l[i]))) {
			while ((pkt = ops->pop(ctx, fq)))
				ops->drop(ctx, pkt);
			dfs_fq_leave(s, fq);
		}
	}
}

/*
 * Empty every key through ops->drop, for reset and destroy, and release
 * them: the scheduler is empty after.
 */
static inline void dfs_fq_purge(struct dfs_fq_sched *s,
				const struct dfs_fq_ops *ops, void *ctx)
{
	struct dfs_fq_klist *l[] = { &s->new_keys, &s->old_keys };
	struct dfs_fq_key *k;
	int i;

	for (i = 0; i < 2; i++) {
		while ((k = dfs_fq_klist_pop(l[i]))) {
			dfs_fq_key_purge(s, k, ops, ctx);
			s->count--;
			ops->release(ctx, k);
		}
	}
}

/*
 * The caller holds no packet in the scheduler: release the keys left in
 * the lists, emptied and waiting for their turn, without a round.  Only
 * a key that holds queues of the pool has queues to free.
 */
static inline void dfs_fq_release_idle(struct dfs_fq_sched *s,
				       const struct dfs_fq_ops *ops, void *ctx)
{
	struct dfs_fq_key *k, *next;

	for (k = s->new_keys.head; k || s->old_keys.head; k = next) {
		if (!k) {
			k = s->old_keys.head;
			s->old_keys.head = NULL;
		}
		next = k->next;
		if (unlikely(k->pooled))
			dfs_fq_key_purge(s, k, ops, ctx);
		s->count--;
		ops->release(ctx, k);
	}
	memset(&s->new_keys, 0, sizeof(s->new_keys));
	memset(&s->old_keys, 0, sizeof(s->old_keys));
}

#endif /* _DFS_FQ_H */
