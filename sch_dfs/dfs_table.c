// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs: the flow table's upkeep.  Idle flows are pruned by a timer, a
 * bounded batch at a time, under the qdisc root lock (Algorithm 2); the
 * hash index over the B-tree is sized and filled by a worker, so the
 * data path never allocates it; a large table is freed by a worker, not
 * under the lock; a new order or cache size moves every flow.  And the
 * flows' memory: their slab caches.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/sch_generic.h>

#include "dfs_sched.h"

struct kmem_cache *dfs_flow_cachep __read_mostly;
struct kmem_cache *dfs_flow_fq_cachep __read_mostly;
struct kmem_cache *dfs_fq_cachep __read_mostly;

void dfs_flow_free(struct dfs_sched_data *q, struct dfs_flow *flow)
{
	dfs_count_flags(q, flow->flags, -1);
	q->nflows--;
	kmem_cache_free(q->flow_cachep, flow);
}

/*
 * The index wants another size, or has a fill to go on with: index_work
 * does either.  Asked at each new flow and after a prune round, so that
 * a flood of new sources resizes it as soon as it is seven eighths full,
 * and the data path never allocates it.
 */
void dfs_index_check_size(struct dfs_sched_data *q)
{
	if ((q->index_fill ||
	     dfs_index_want(&q->index, q->btree.count)) &&
	    time_after_eq(jiffies, READ_ONCE(q->index_retry)))
		queue_work(system_unbound_wq, &q->index_work);
}

static void dfs_free_flow_cb(struct dfs_flow *flow, void *arg)
{
	dfs_flow_free(arg, flow);
}

/*
 * A B-tree of flows to free, taken from a qdisc being reset or destroyed:
 * up to "flows" (16M) flows and their nodes, which reset would otherwise
 * free under the qdisc lock with BH off, for a second or more.  The
 * flows hold no packets by then (sched fq's queues are purged first).
 */
struct dfs_grave {
	struct work_struct	work;
	struct dfs_btree	tree;
	void			*index;		/* the index's memory */
	struct kmem_cache	*cachep;	/* of its flows */
	u32			freed;
};

/* Drained by module exit before the flow caches go. */
static struct workqueue_struct *dfs_free_wq;

static void dfs_grave_free_flow(struct dfs_flow *flow, void *arg)
{
	struct dfs_grave *g = arg;

	kmem_cache_free(g->cachep, flow);
	if (!(++g->freed % DFS_FREE_INLINE))
		cond_resched();
}

static void dfs_grave_work(struct work_struct *work)
{
	struct dfs_grave *g = container_of(work, struct dfs_grave, work);

	dfs_btree_destroy(&g->tree, dfs_grave_free_flow, g);
	kvfree(g->index);
	kfree(g);
}

/* Hand a large B-tree, and its index, to the worker; a small one, or one
 * without memory for the hand-over, is freed here, the index emptied.
 * An index handed over is replaced by none: index_work sizes the next.
 */
void dfs_btree_bury(struct dfs_sched_data *q)
{
	struct dfs_grave *g;

	q->index_fill = false;
	q->index_cursor_set = false;
	if (q->btree.count > DFS_FREE_INLINE ||
	    dfs_index_buckets(&q->index) > DFS_INDEX_INLINE) {
		g = kzalloc(sizeof(*g), GFP_ATOMIC | __GFP_NOWARN);
		if (g) {
			INIT_WORK(&g->work, dfs_grave_work);
			g->tree = q->btree;
			g->index = q->index.b;
			g->cachep = q->flow_cachep;
			q->nflows -= q->btree.count;
			dfs_btree_init(&q->btree, q->btree.order);
			dfs_index_set(&q->index, NULL, 0);
			queue_work(dfs_free_wq, &g->work);
			return;
		}
	}
	dfs_btree_destroy(&q->btree, dfs_free_flow_cb, q);
	dfs_index_clear(&q->index);
}

/* A flow still in sched fq's lists (empty, until its turn) is not idle. */
static bool dfs_flow_idle(const struct dfs_sched_data *q,
			  struct dfs_flow *flow)
{
	return !flow->backlog &&
	       dfs_cpr_idle_before(&flow->cpr, q->prune_before) &&
	       !(dfs_fq_mode(q) && dfs_flow_fq(flow)->fk);
}

/* One batch of Algorithm 2; returns true while the round goes on. */
static bool dfs_prune_batch(struct dfs_sched_data *q, u64 now)
{
	u32 budget = DFS_PRUNE_BATCH;
	struct dfs_flow *flow;

	while (budget--) {
		flow = dfs_btree_next(&q->btree, q->prune_cursor_set ?
				      &q->prune_cursor : NULL);
		if (!flow)
			return false;
		q->prune_cursor = flow->key;
		q->prune_cursor_set = true;
		if (dfs_flow_idle(q, flow)) {
			dfs_verdict_pruned(q, flow, now);
			dfs_repo_remove(&q->index, &q->btree, flow);
			dfs_flow_free(q, flow);
			q->stats.pruned++;
		}
	}
	return true;
}

static void dfs_prune_start(struct dfs_sched_data *q, u64 now)
{
	u32 i;

	dfs_cpr_tick(&q->cpr_clock, &q->cpr_params, now);
	q->prune_before = q->last_prune_period;
	q->last_prune = now;
	q->last_prune_period = q->cpr_clock.cur;
	for (i = 0; i < q->cache.size; i++) {
		struct dfs_flow *flow = dfs_cache_at(&q->cache, i);

		if (flow && dfs_flow_idle(q, flow)) {
			dfs_verdict_pruned(q, flow, now);
			dfs_cache_remove(&q->cache, flow);
			dfs_flow_free(q, flow);
			q->stats.pruned++;
		}
	}
	q->prune_cursor_set = false;
	q->prune_active = true;
}

void dfs_prune_timer(struct timer_list *t)
{
	struct dfs_sched_data *q = timer_container_of(q, t, prune_timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock;	/* the root qdisc's, found under RCU */
	unsigned long next;
	u64 now = ktime_get_ns();

	/* The root qdisc pointer is RCU protected (as in sch_red.c and
	 * sch_pie.c's timers): lockdep's RCU checking says so otherwise.
	 */
	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);
	if (!q->prune_active &&
	    now - q->last_prune >= (u64)q->prune_ms * NSEC_PER_MSEC)
		dfs_prune_start(q, now);
	if (q->prune_active) {
		q->prune_active = dfs_prune_batch(q, now);
		if (!q->prune_active)
			dfs_index_check_size(q);	/* fewer flows */
	}
	/* Go on at once while a round is under way, else check again in a
	 * tenth of the interval (at most a second late).
	 */
	if (q->prune_active)
		next = 1;
	else
		next = min_t(unsigned long,
			     msecs_to_jiffies(q->prune_ms) / 10 + 1, HZ);
	spin_unlock(root_lock);
	rcu_read_unlock();

	mod_timer(&q->prune_timer, jiffies + next);
}

/*
 * index_work: a new index of the size the flows want, put in place of the
 * old under the qdisc lock, then filled from the tree a batch at a time,
 * each under the lock (as the prune walks it), while packets look in the
 * tree for what it lacks.  The memory is allocated here, where it may
 * sleep: vmalloc's, past a few pages.
 */
void dfs_index_work(struct work_struct *work)
{
	struct dfs_sched_data *q = container_of(work, struct dfs_sched_data,
						index_work);
	spinlock_t *root_lock;	/* the root qdisc's, found under RCU */
	void *mem = NULL;
	bool more;
	u32 want;

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(q->sch));
	spin_lock_bh(root_lock);
	want = dfs_index_want(&q->index, q->btree.count);
	spin_unlock_bh(root_lock);
	rcu_read_unlock();

	if (want) {
		mem = kvzalloc(dfs_index_size(want), GFP_KERNEL | __GFP_NOWARN);
		if (!mem) {
			WRITE_ONCE(q->index_retry, jiffies + HZ);
			return;
		}
	}
	do {
		rcu_read_lock();
		root_lock = qdisc_lock(qdisc_root_sleeping(q->sch));
		spin_lock_bh(root_lock);
		/* the flows may have come or gone meanwhile: then not now */
		if (mem && dfs_index_want(&q->index, q->btree.count) == want) {
			swap(mem, q->index.b);
			dfs_index_set(&q->index, q->index.b, want);
			q->index_cursor_set = false;
			q->index_fill = true;
		}
		more = q->index_fill &&
		       dfs_repo_fill(&q->index, &q->btree, &q->index_cursor,
				     &q->index_cursor_set, DFS_INDEX_BATCH);
		q->index_fill = more;
		spin_unlock_bh(root_lock);
		rcu_read_unlock();
		kvfree(mem);	/* the old index's, or the one not put in */
		mem = NULL;
		cond_resched();
	} while (more);
}

/*
 * Move every flow into a B-tree of @order and the cache @nc; cached flows
 * that do not fit in @nc go back to the tree.  All or nothing: on failure
 * the old structures are untouched.  The new tree keeps the old one's
 * order of flows, so a prune round under way goes on where it was.
 */
int dfs_rebuild(struct dfs_sched_data *q, u32 order,
		struct dfs_cache *nc)
{
	struct dfs_flow *flow = NULL;
	struct dfs_btree nb;
	u32 i;

	dfs_btree_init_as(&nb, order, &q->btree);
	while ((flow = dfs_btree_next(&q->btree, flow ? &flow->key : NULL))) {
		if (dfs_btree_insert(&nb, flow))
			goto fail;
	}
	for (i = 0; i < q->cache.size; i++) {
		flow = dfs_cache_at(&q->cache, i);
		if (flow && dfs_cache_insert(nc, flow) &&
		    dfs_btree_insert(&nb, flow))
			goto fail;
	}

	for (i = 0; i < q->cache.size; i++) {
		flow = dfs_cache_at(&q->cache, i);
		if (flow && !dfs_cache_lookup(nc, &flow->key))
			flow->flags &= ~DFS_F_CACHED;
	}
	dfs_btree_destroy(&q->btree, NULL, NULL);
	dfs_cache_free(&q->cache);
	q->btree = nb;
	q->cache = *nc;
	/* same flows, same tags: the index holds, but for those */
	q->index_fill = q->index.held < nb.count;
	q->index_cursor_set = false;
	dfs_index_check_size(q);
	return 0;

fail:
	dfs_btree_destroy(&nb, NULL, NULL);
	return -ENOMEM;
}

/* The flows' memory, and the worker that frees a large table. */
int __init dfs_table_init(void)
{
	dfs_flow_cachep = KMEM_CACHE(dfs_flow, 0);
	dfs_flow_fq_cachep = KMEM_CACHE(dfs_flow_fq, 0);
	dfs_fq_cachep = KMEM_CACHE(dfs_fq_key, 0);
	dfs_free_wq = alloc_workqueue("dfs_free", WQ_UNBOUND, 0);
	if (!dfs_flow_cachep || !dfs_flow_fq_cachep || !dfs_fq_cachep ||
	    !dfs_free_wq) {
		dfs_table_exit();
		return -ENOMEM;
	}
	return 0;
}

void dfs_table_exit(void)
{
	if (dfs_free_wq)
		destroy_workqueue(dfs_free_wq);	/* the last flows freed */
	kmem_cache_destroy(dfs_fq_cachep);
	kmem_cache_destroy(dfs_flow_fq_cachep);
	kmem_cache_destroy(dfs_flow_cachep);
}
