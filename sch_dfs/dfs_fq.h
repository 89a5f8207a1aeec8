/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow scheduler of DFS's "sched fq" mode, free of sk_buff: deficit
 * round robin on two levels, new (sparse) before old as in fq_codel at
 * each, and CoDel (RFC 8289).  The outer round is over the keys (DFS's
 * flows: hosts, by default) that have packets, so keys share the link by
 * bytes as DFS shares the buffer; the inner round, a key's turn, is over
 * that key's flow queues, one per 5-tuple flow, so a host's ping or DNS
 * goes before its own bulk transfers, as in cake.
 *
 * CoDel is split between the two levels.  Each flow queue says whether
 * its packets have sat above target for an interval (ok_to_drop); the
 * key runs one control law, whose drops fall on packets of the queues
 * that say so, and leaves its dropping state when none of them does.  A
 * key with one flow is plain CoDel (codel_ref_test.c holds it to the
 * kernel's codel_impl.h).  A key with many flows is signalled at one
 * CoDel's rate, as a host is by its own: with a control law a flow, a
 * host's many connections at the bottom of their windows, whose queue
 * drops cannot shrink, took a law's drops each, and their
 * retransmissions took the host's arrival rate, which Algorithm 3
 * judges, over its share.  A sparse flow's queue is never above target,
 * so it is never dropped, however its host's bulk flows fare, and does
 * not end their episode.
 *
 * A connection that starts, or comes back from idle, in a key that has
 * other queues goes ahead of the round over keys, not only ahead of its
 * own key's bulk: its key joins a third list, the boosted keys, served
 * before the new ones, where only the key's new queues send.  A ping
 * from a host that is downloading then waits for no other host's turn,
 * as under cake, whose round is over connections.  A boosted packet is
 * taken off the key's deficit, so its next turns are shorter by as much
 * and bytes stay fair between keys; and a key sends at most two quanta
 * boosted between two of its turns (boost_credit), so a host that opens
 * a connection a packet gains two quanta a round of precedence, and no
 * more.  Two, not one: the key's new queues send in the order they came,
 * and a download whose queue drained and refilled is new in its key too;
 * with one quantum its packet took the whole credit, and the ping behind
 * it, its key's deficit spent, waited a round of every key.
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

#include <linux/container_of.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/types.h>

/* Quanta a key may send boosted between two of its turns. */
#define DFS_FQ_BOOST_QUANTA	2

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

/*
 * A member of a deficit round: a flow queue in its key's round, a key in
 * the round over keys.
 */
struct dfs_drr {
	struct dfs_drr	*next;		/* in its new or old list */
	s32		deficit;	/* bytes it may still send this round */
	u32		split;		/* it gets quantum / split a round; 0
					 * or 1: all of it (dfs_fq_key_split())
					 */
};

/* A list of them, a ring: its tail's next is its head. */
struct dfs_drr_list {
	struct dfs_drr	*tail;
};

/* A key's CoDel control law, codel_vars but first_above_time. */
struct dfs_codel {
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
	struct dfs_drr	drr;
	void		*head;		/* the caller's packets, oldest first */
	void		*tail;
	struct dfs_fq_key *key;		/* NULL: in no list */
	u32		tag;		/* flow hash of its packets, while
					 * listed
					 */
	u32		first_above;	/* time the sojourn may drop from */
	bool		ok_to_drop;	/* at its last dequeue */
};

/*
 * The scheduling state of a key (a DFS flow) with packets, or just
 * emptied: its place in the round over keys, the round over its own flow
 * queues, and its CoDel control law.  Most keys hold one flow at a time
 * (one host's single download, a spoofed source): they use the embedded
 * queue only.
 */
struct dfs_fq_key {
	struct dfs_drr	drr;		/* in the new or the old keys */
	struct dfs_fq_key *boost_next;	/* in the boosted keys, a ring as
					 * a struct dfs_drr_list; NULL: not
					 */
	void		*owner;		/* the caller's flow */
	u16		pooled;		/* queues of the pool it holds */
	u16		droppable;	/* its queues ok to drop */
	struct dfs_codel cv;
	s32		boost_credit;	/* bytes it may still send boosted */
	struct dfs_drr_list new_q;	/* its flow queues, new first */
	struct dfs_drr_list old_q;
	struct dfs_fq	q;		/* embedded */
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
	struct dfs_fq_key	*boost_tail;	/* keys with a new queue, in
						 * new_keys or old_keys too
						 */
	struct dfs_drr_list	new_keys;
	struct dfs_drr_list	old_keys;
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
	u64	boosts;		/* packets sent ahead of the round */
	u64	overflow;	/* packets that found their set full */
};

/*
 * The caller's packet operations.  pop() unlinks the oldest packet of a
 * queue and takes it out of every backlog the caller keeps (NULL when the
 * queue has none); time() is its enqueue time in dfs_codel_time() units;
 * mark() sets CE and says whether it could; drop() frees a packet pop()
 * returned; release() frees a struct dfs_fq_key that left the lists.
 */
struct dfs_fq_ops {
	void	*(*pop)(void *ctx, struct dfs_fq *fq);
	u32	(*len)(const void *pkt);
	u32	(*time)(const void *pkt);
	bool	(*mark)(void *pkt);
	void	(*drop)(void *ctx, void *pkt);
	void	(*release)(void *ctx, struct dfs_fq_key *k);
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

static inline struct dfs_drr *dfs_drr_head(const struct dfs_drr_list *l)
{
	return l->tail ? l->tail->next : NULL;
}

static inline void dfs_drr_add(struct dfs_drr_list *l, struct dfs_drr *d)
{
	if (l->tail) {
		d->next = l->tail->next;
		l->tail->next = d;
	} else {
		d->next = d;
	}
	l->tail = d;
}

static inline struct dfs_drr *dfs_drr_pop(struct dfs_drr_list *l)
{
	struct dfs_drr *d = dfs_drr_head(l);

	if (d) {
		if (d == l->tail)
			l->tail = NULL;
		else
			l->tail->next = d->next;
		d->next = NULL;
	}
	return d;
}

/*
 * The member whose turn it is, fq_codel_dequeue()'s round: the first new
 * one, else the first old one; one whose deficit is spent goes to the
 * tail of the old ones with another @quantum.  *@l is the list it heads.
 * NULL when both lists are empty.
 */
static inline struct dfs_drr *dfs_drr_next(struct dfs_drr_list *new_l,
					   struct dfs_drr_list *old_l,
					   u32 quantum,
					   struct dfs_drr_list **l)
{
	struct dfs_drr *d;

	for (;;) {
		*l = new_l->tail ? new_l : old_l;
		d = dfs_drr_head(*l);
		if (!d || d->deficit > 0)
			return d;
		d->deficit += d->split > 1 ? quantum / d->split : quantum;
		dfs_drr_pop(*l);
		dfs_drr_add(old_l, d);
	}
}

/*
 * The head of @l had nothing to send.  A new member goes through the old
 * ones once before it can be new again, so that nobody stays new by
 * sending a packet a round; true when it leaves the round instead.
 */
static inline bool dfs_drr_retire(struct dfs_drr_list *new_l,
				  struct dfs_drr_list *old_l,
				  struct dfs_drr_list *l)
{
	struct dfs_drr *d = dfs_drr_pop(l);

	if (l == new_l && old_l->tail) {
		dfs_drr_add(old_l, d);
		return false;
	}
	return true;
}

/* Any member of the round, for a purge: new first. */
static inline struct dfs_drr *dfs_drr_pop_any(struct dfs_drr_list *new_l,
					      struct dfs_drr_list *old_l)
{
	struct dfs_drr *d = dfs_drr_pop(new_l);

	return d ? d : dfs_drr_pop(old_l);
}

/*
 * An idle key got a packet: @k, the caller's memory in any state (a
 * recycled key's), becomes @owner's and joins the new keys with a full
 * quantum; dfs_fq_queue() then gives the packet its queue.  Only what is
 * read before it is written is set: a key is taken and given back for
 * every packet that finds its key idle, most packets on a link that
 * keeps up, where a memset of the whole key was the larger part of that.
 */
static inline void dfs_fq_activate(struct dfs_fq_sched *s,
				   const struct dfs_fq_params *p,
				   struct dfs_fq_stats *st,
				   struct dfs_fq_key *k, void *owner)
{
	k->owner = owner;
	k->pooled = 0;
	k->droppable = 0;
	memset(&k->cv, 0, sizeof(k->cv));
	k->new_q.tail = NULL;
	k->old_q.tail = NULL;
	k->q.head = NULL;
	k->q.tail = NULL;
	k->q.key = NULL;		/* in no list: dfs_fq_join() */
	k->q.first_above = 0;
	k->q.ok_to_drop = false;
	k->drr.deficit = p->quantum;
	k->drr.split = 0;
	k->boost_next = NULL;
	k->boost_credit = DFS_FQ_BOOST_QUANTA * p->quantum;
	dfs_drr_add(&s->new_keys, &k->drr);
	s->count++;
	st->new_flows++;
}

/* The boosted keys' ring, as dfs_drr_add() and dfs_drr_pop()'s. */
static inline void dfs_fq_boost_add(struct dfs_fq_sched *s,
				    struct dfs_fq_key *k)
{
	struct dfs_fq_key *t = s->boost_tail;

	k->boost_next = t ? t->boost_next : k;
	if (t)
		t->boost_next = k;
	s->boost_tail = k;
}

static inline struct dfs_fq_key *dfs_fq_boost_pop(struct dfs_fq_sched *s)
{
	struct dfs_fq_key *t = s->boost_tail, *k;

	if (!t)
		return NULL;
	k = t->boost_next;
	if (k == t)
		s->boost_tail = NULL;
	else
		t->boost_next = k->boost_next;
	k->boost_next = NULL;
	return k;
}

/*
 * @fq, of key @k, gets a packet: a queue in none of @k's lists joins its
 * new queues, and @k the boosted keys if it has other queues (any of the
 * pool: dfs_fq_queue() gives a key's only connection the embedded one)
 * and some of its boost credit left.
 */
static inline struct dfs_fq *dfs_fq_join(struct dfs_fq_sched *s,
					 struct dfs_fq_key *k,
					 struct dfs_fq *fq,
					 const struct dfs_fq_params *p)
{
	if (!fq->key) {
		fq->key = k;
		fq->drr.deficit = p->quantum;
		fq->drr.split = 0;
		dfs_drr_add(&k->new_q, &fq->drr);
		if (k->pooled && k->boost_credit > 0 && !k->boost_next)
			dfs_fq_boost_add(s, k);
	}
	return fq;
}

/*
 * @k's share of the round over keys is 1/@split of a key's: under dfs_mq
 * a key active on @split tx queues takes a share on each, and so gets
 * what one key gets over all of them.
 */
static inline void dfs_fq_key_split(struct dfs_fq_key *k, u32 split)
{
	k->drr.split = split;
}

/*
 * The queue of key @k for a packet of the connection of hash @h, put in
 * @k's new list if it was in none; the caller links the packet at its
 * tail.  The embedded queue when it is the connection's, or free: no
 * packets and, once @k holds queues of the pool, in none of @k's lists;
 * else the pool queue of @k that has the connection, else a free way of
 * the hash's set; when all of the set's ways are busy, the embedded
 * queue, where the connection shares CoDel and the round with the one
 * there: a queue never holds two keys' packets.  A queue that emptied
 * stays in the old list until its turn comes, as in fq_codel, where only
 * its own flow finds it: a new connection (a ping, an ACK stream that
 * went quiet) given it would wait out a round of the key's bulk queues,
 * where a queue of its own goes first.
 *
 * Every packet's @h is needed, so it must be at hand: sch_dfs takes it
 * as it reads the packet's key.  The embedded queue's tag is its first
 * packet's, so that once it drained, while it waits in the old list,
 * another connection of its key is told from its own.
 */
static inline struct dfs_fq *dfs_fq_queue(struct dfs_fq_sched *s,
					  const struct dfs_fq_params *p,
					  struct dfs_fq_stats *st,
					  struct dfs_fq_key *k, u32 h)
{
	struct dfs_fq_pool *pool = &s->pool;
	struct dfs_fq *e = &k->q;
	u32 set, base, busy, i;

	if (!e->head && !k->pooled) {
		if (!e->key) {
			e->tag = h;
			return dfs_fq_join(s, k, e, p);
		}
		/* Emptied, the key's only queue waits in its lists for its
		 * turn to leave: its connection's packet keeps that place,
		 * another connection takes a queue of the pool, below, and
		 * is new.
		 */
		if (e->tag == h)
			return e;
		goto pool;
	}
	if (e->tag == h)
		return dfs_fq_join(s, k, e, p);
pool:
	if (!pool->sets)
		goto mix;
	set = ((u64)h * pool->sets) >> 32;
	base = set * DFS_FQ_WAYS;
	busy = pool->busy[set];
	if (k->pooled) {
		for (i = 0; i < DFS_FQ_WAYS; i++)
			if ((busy & (1U << i)) && pool->tag[base + i] == h &&
			    pool->q[base + i].key == k)
				return dfs_fq_join(s, k, &pool->q[base + i], p);
		/* Emptied but still in the old list, the embedded queue
		 * waits for its turn to leave: another connection's packet
		 * would wait there a round of the key's bulk queues.
		 */
		if (!e->head && !e->key) {
			e->tag = h;
			return dfs_fq_join(s, k, e, p);
		}
	}
	for (i = 0; i < DFS_FQ_WAYS; i++) {
		if (!(busy & (1U << i))) {
			struct dfs_fq *fq = &pool->q[base + i];

			pool->busy[set] = busy | (1U << i);
			pool->tag[base + i] = h;
			fq->tag = h;
			fq->first_above = 0;
			k->pooled++;
			s->pooled++;
			return dfs_fq_join(s, k, fq, p);
		}
	}
mix:
	st->overflow++;
	return dfs_fq_join(s, k, e, p);
}

/*
 * DFS's Algorithm 3 finds key @k over its share of the buffer, on a
 * packet that cannot carry the signal (not ECN capable) of the connection
 * whose queue is @fq (dfs_fq_queue()'s).  Where @fq has nothing queued,
 * the packet is a SYN, a ping, the ACK of a quiet stream: dropped, it
 * would cost a connection that made none of the key's backlog a timeout,
 * where fq_codel and cake drop from the queues that hold the backlog.
 * The signal goes instead to the head of the queue whose turn is next
 * among @k's old ones, else its new ones, if that queue has packets: a
 * connection that has been sending (O(1), two heads).  NULL: @fq has
 * packets, so its own packet takes the signal, or neither head has any.
 */
static inline struct dfs_fq *dfs_fq_key_bulk(struct dfs_fq_key *k,
					     const struct dfs_fq *fq)
{
	struct dfs_drr_list *l[2] = { &k->old_q, &k->new_q };
	struct dfs_drr *d;
	struct dfs_fq *b;
	int i;

	if (fq->head)
		return NULL;
	for (i = 0; i < 2; i++) {
		d = dfs_drr_head(l[i]);
		if (!d)
			continue;
		b = container_of(d, struct dfs_fq, drr);
		if (b != fq && b->head)
			return b;
	}
	return NULL;
}

/* CoDel's verdict on @fq, counted in its key. */
static inline void dfs_codel_set_ok(struct dfs_fq_key *k, struct dfs_fq *fq,
				    bool ok)
{
	if (fq->ok_to_drop != ok) {
		fq->ok_to_drop = ok;
		if (ok)
			k->droppable++;
		else
			k->droppable--;
	}
}

/* @fq's packets are below target, or it has none. */
static inline void dfs_codel_below(struct dfs_fq_key *k, struct dfs_fq *fq)
{
	fq->first_above = 0;
	dfs_codel_set_ok(k, fq, false);
}

/* An emptied queue leaves its key's lists; a pool queue is free again. */
static inline void dfs_fq_leave(struct dfs_fq_sched *s, struct dfs_fq *fq)
{
	struct dfs_fq_key *k = fq->key;
	u32 i;

	dfs_codel_below(k, fq);
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
 * Is the sojourn of @pkt, the packet of @fq about to go, above target for
 * an interval?  @backlog is the queue after it left: with an MTU or less
 * left, dropping would only starve the link.  The verdict is kept in @fq
 * and counted in its key.
 */
static inline bool dfs_codel_should_drop(struct dfs_fq_key *k,
					 struct dfs_fq *fq,
					 const struct dfs_fq_params *p,
					 const struct dfs_fq_ops *ops,
					 const void *pkt, u32 backlog, u32 now)
{
	bool ok = false;

	if (!pkt || !dfs_codel_after_eq(now - ops->time(pkt), p->target) ||
	    backlog <= p->mtu)
		fq->first_above = 0;
	else if (!fq->first_above)
		/* may be 0 itself once the clock wraps: one interval late */
		fq->first_above = now + p->interval;
	else
		ok = dfs_codel_after(now, fq->first_above);
	dfs_codel_set_ok(k, fq, ok);
	return ok;
}

/*
 * CoDel's dequeue, codel_dequeue() of codel_impl.h, on queue @fq of key
 * @k with @k's control law: returns the packet to send, or NULL once the
 * queue is empty.  The law drops only packets @fq says are ok to drop,
 * and its dropping state ends when no queue of @k is: for a key of one
 * queue, when that queue is not.  Drops
 * go through ops->drop and are counted in @st.  @backlog points at the
 * caller's total backlog, which ops->pop keeps.  Inlined at both of its
 * calls (dfs_fq_key_dequeue()), and ops->pop in it: a call each was
 * what sched fq cost beyond fq_codel on a packet's way out.
 */
static __always_inline void *
dfs_codel_dequeue(struct dfs_fq_key *k, struct dfs_fq *fq,
		  const struct dfs_fq_params *p, struct dfs_fq_stats *st,
		  const struct dfs_fq_ops *ops, void *ctx, const u32 *backlog,
		  u32 now)
{
	struct dfs_codel *cv = &k->cv;
	void *pkt = ops->pop(ctx, fq);
	unsigned int drops = 0;
	bool drop;

	drop = dfs_codel_should_drop(k, fq, p, ops, pkt, *backlog, now);
	if (!k->droppable)
		cv->dropping = false;	/* none is ok to drop: leave */
	if (!pkt)
		return NULL;
	if (cv->dropping) {
		if (!drop)
			return pkt;
		/* A large backlog may call for several drops at once. */
		while (dfs_codel_after_eq(now, cv->drop_next)) {
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
			drop = dfs_codel_should_drop(k, fq, p, ops, pkt,
						     *backlog, now);
			if (!k->droppable) {
				cv->dropping = false;
				break;
			}
			cv->drop_next = dfs_codel_control_law(cv->drop_next,
							      p->interval,
							      cv->rec_inv_sqrt);
			/* the next drop is for a queue that is ok to drop */
			if (!drop)
				break;
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
			dfs_codel_should_drop(k, fq, p, ops, pkt, *backlog,
					      now);
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
 * The next packet of key @k: the round over its flow queues, each
 * sending through CoDel while its deficit lasts.  NULL once every queue
 * of @k left.  Inlined into dfs_fq_dequeue(), its one caller: the
 * compiler's own choice moves with any change to the boost's path, and
 * a call of its own on every packet's way out cost 30 to 40 instructions
 * a packet (make bench, load, 1k flows).
 */
static __always_inline void *
dfs_fq_key_dequeue(struct dfs_fq_sched *s, struct dfs_fq_key *k,
		   const struct dfs_fq_params *p, struct dfs_fq_stats *st,
		   const struct dfs_fq_ops *ops, void *ctx, const u32 *backlog,
		   u32 now)
{
	struct dfs_drr_list *l;
	struct dfs_drr *d;
	struct dfs_fq *fq;
	void *pkt;

	/*
	 * A key that holds no queue of the pool has one queue, the
	 * embedded one, alone in its round: the round below, unrolled for
	 * it, as most keys are (fuzz_fq holds the two to the same packets).
	 */
	if (!k->pooled) {
		fq = &k->q;
		if (!fq->key)
			return NULL;
		if (fq->drr.deficit <= 0) {
			do
				fq->drr.deficit += p->quantum;
			while (fq->drr.deficit <= 0);
			k->new_q.tail = NULL;
			k->old_q.tail = &fq->drr;
		}
		pkt = dfs_codel_dequeue(k, fq, p, st, ops, ctx, backlog, now);
		if (pkt) {
			fq->drr.deficit -= ops->len(pkt);
			return pkt;
		}
		k->new_q.tail = NULL;
		k->old_q.tail = NULL;
		dfs_fq_leave(s, fq);
		return NULL;
	}
	while ((d = dfs_drr_next(&k->new_q, &k->old_q, p->quantum, &l))) {
		fq = container_of(d, struct dfs_fq, drr);
		pkt = dfs_codel_dequeue(k, fq, p, st, ops, ctx, backlog, now);
		if (pkt) {
			d->deficit -= ops->len(pkt);
			return pkt;
		}
		if (dfs_drr_retire(&k->new_q, &k->old_q, l))
			dfs_fq_leave(s, fq);
	}
	return NULL;
}

/*
 * The boosted keys' new queues, each key while its boost credit lasts:
 * the head of its new queues sends, as in its own round
 * (dfs_fq_key_dequeue()) but ahead of the round over keys, and the key
 * pays for it from its deficit.  A key with credit and new queues left
 * goes back to the tail, so that boosted keys take turns.  Every key is
 * in new_keys or old_keys as well: this list is empty whenever the round
 * over keys runs, and so whenever that round releases a key.  NULL once
 * it is empty.
 */
static inline void *dfs_fq_boost_dequeue(struct dfs_fq_sched *s,
					 const struct dfs_fq_params *p,
					 struct dfs_fq_stats *st,
					 const struct dfs_fq_ops *ops,
					 void *ctx, const u32 *backlog,
					 u32 now)
{
	struct dfs_fq_key *k;
	struct dfs_drr *d;
	struct dfs_fq *fq;
	void *pkt;
	u32 len;

	while ((k = dfs_fq_boost_pop(s))) {
		while (k->boost_credit > 0 && (d = dfs_drr_head(&k->new_q))) {
			fq = container_of(d, struct dfs_fq, drr);
			if (d->deficit <= 0) {
				d->deficit += p->quantum;
				dfs_drr_pop(&k->new_q);
				dfs_drr_add(&k->old_q, d);
				continue;
			}
			pkt = dfs_codel_dequeue(k, fq, p, st, ops, ctx,
						backlog, now);
			if (pkt) {
				len = ops->len(pkt);
				d->deficit -= len;
				k->drr.deficit -= len;
				k->boost_credit -= len;
				if (k->boost_credit > 0 && k->new_q.tail)
					dfs_fq_boost_add(s, k);
				st->boosts++;
				return pkt;
			}
			if (dfs_drr_retire(&k->new_q, &k->old_q, &k->new_q))
				dfs_fq_leave(s, fq);
		}
	}
	return NULL;
}

/*
 * The next packet to send: the boosted keys' new queues first, then the
 * same round over the keys, each sending from its own round while its
 * deficit lasts, so that keys share the link by bytes whatever the flows
 * each has, and a key that just got a packet goes first, once.  A key
 * that sends in the round has its boost credit back.  A key whose queues all left goes through the
 * old keys once, as a queue does, then is released.
 */
static inline void *dfs_fq_dequeue(struct dfs_fq_sched *s,
				   const struct dfs_fq_params *p,
				   struct dfs_fq_stats *st,
				   const struct dfs_fq_ops *ops, void *ctx,
				   const u32 *backlog, u32 now)
{
	struct dfs_drr_list *l;
	struct dfs_fq_key *k;
	struct dfs_drr *d;
	void *pkt;

	if (unlikely(s->boost_tail)) {
		pkt = dfs_fq_boost_dequeue(s, p, st, ops, ctx, backlog, now);
		if (pkt)
			return pkt;
	}
	while ((d = dfs_drr_next(&s->new_keys, &s->old_keys, p->quantum,
				 &l))) {
		k = container_of(d, struct dfs_fq_key, drr);
		pkt = dfs_fq_key_dequeue(s, k, p, st, ops, ctx, backlog, now);
		if (pkt) {
			d->deficit -= ops->len(pkt);
			k->boost_credit = DFS_FQ_BOOST_QUANTA * p->quantum;
			return pkt;
		}
		if (dfs_drr_retire(&s->new_keys, &s->old_keys, l)) {
			s->count--;
			ops->release(ctx, k);
		}
	}
	return NULL;
}

/* Empty the queues of @k through ops->drop; they leave its lists. */
static inline void dfs_fq_key_purge(struct dfs_fq_sched *s,
				    struct dfs_fq_key *k,
				    const struct dfs_fq_ops *ops, void *ctx)
{
	struct dfs_drr *d;
	struct dfs_fq *fq;
	void *pkt;

	while ((d = dfs_drr_pop_any(&k->new_q, &k->old_q))) {
		fq = container_of(d, struct dfs_fq, drr);
		while ((pkt = ops->pop(ctx, fq)))
			ops->drop(ctx, pkt);
		dfs_fq_leave(s, fq);
	}
}

/*
 * Empty every key through ops->drop, for reset and destroy, and release
 * them: the scheduler is empty after.
 */
static inline void dfs_fq_purge(struct dfs_fq_sched *s,
				const struct dfs_fq_ops *ops, void *ctx)
{
	struct dfs_fq_key *k;
	struct dfs_drr *d;

	s->boost_tail = NULL;	/* every key is in the other lists */
	while ((d = dfs_drr_pop_any(&s->new_keys, &s->old_keys))) {
		k = container_of(d, struct dfs_fq_key, drr);
		dfs_fq_key_purge(s, k, ops, ctx);
		s->count--;
		ops->release(ctx, k);
	}
}

/* Release the keys of @l, emptied and waiting for their turn. */
static __always_inline void
dfs_fq_release_list(struct dfs_fq_sched *s, struct dfs_drr_list *l,
		    const struct dfs_fq_ops *ops, void *ctx)
{
	struct dfs_drr *d, *next;
	struct dfs_fq_key *k;

	if (!l->tail)
		return;
	d = l->tail->next;
	l->tail->next = NULL;	/* the ring, opened after its tail */
	l->tail = NULL;
	for (; d; d = next) {
		next = d->next;
		k = container_of(d, struct dfs_fq_key, drr);
		if (unlikely(k->pooled))
			dfs_fq_key_purge(s, k, ops, ctx);
		s->count--;
		ops->release(ctx, k);
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
	s->boost_tail = NULL;
	dfs_fq_release_list(s, &s->new_keys, ops, ctx);
	dfs_fq_release_list(s, &s->old_keys, ops, ctx);
}

#endif /* _DFS_FQ_H */
