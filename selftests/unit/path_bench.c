// SPDX-License-Identifier: GPL-2.0
/*
 * The per-packet path of sch_dfs on the host CPU: for 1 to 1M flows, the
 * nanoseconds a packet costs from its key to the verdict, in the order
 * dfs_enqueue() runs the cores: the meter and CPR clocks, the cache, the
 * index over the B-tree (lookup, or a new flow inserted in both; the
 * index resized as the module's worker does, here at once), the bitrate
 * window, wfs and Algorithm 3, the move between cache and tree; in sched
 * fq also the packet's queue and one dequeue by the flow scheduler (DRR
 * and CoDel), so the queue stays at a constant length.  The flood row:
 * packets of four sources already marked malicious, found in the cache
 * and dropped.
 * The spoofed row: every packet a source never seen, with the table at
 * its cap of 1M flows, so each misses the cache and the index (which
 * holds every flow of the tree, so the tree is not searched) and is
 * counted in the overflow flow, as dfs_flow_get() does past "flows".
 * The tree-alone row: 1M flows with no index, every lookup a descent of
 * the tree, as before the index.
 * For scale, one random DRAM access on the same machine in the same
 * run: a dependent walk over a random cycle through 256 MiB, far past
 * the caches (its TLB misses included, as the B-tree's are).
 *
 * The same dfs_btree.c, dfs_index.c, dfs_cache.c, dfs_decide.c, dfs_cpr.c
 * and dfs_fq.h as the module, -O2, no sanitizers.  What the kernel adds is
 * not here: the flow dissector, the clock read, the skb's own handling.
 * Flows are 88-byte objects in one array (a slab's neighbours), keys are
 * random IPv4 source/destination pairs, each packet picks a flow at
 * random (the cache's worst case; the packets' keys are laid out in
 * their order before a round, as headers come, so that fetching the key
 * is not counted as the path's), the clock advances 100 ns a packet
 * (10 Mpps) and the link is set to 10 Gbit/s.  Each figure is the median
 * of ROUNDS rounds, with their spread, (max - min) / median.  It measures
 * and prints; it does not pass or fail.
 */
#include <stdio.h>
#include <time.h>
#include "dfs_repo.h"
#include "dfs_fq.h"
#include "xorshift.h"

#define ROUNDS	5
#define PACKETS	1000000		/* a round */
#define PKT_LEN	64
#define QLEN	64		/* packets kept queued in sched fq */
#define TICK_NS	100

/* As sch_dfs's struct dfs_flow_fq: the flow and its queues. */
struct bflow {
	struct dfs_flow		flow;
	struct dfs_fq_key	*fk;
};

#define POOL_SETS	(1024 / DFS_FQ_WAYS)	/* as sch_dfs's */

struct bpkt {
	struct bpkt	*next;
	struct bflow	*owner;
	u32		len;
	u32		time;
};

struct bench {
	struct dfs_params	p;
	struct dfs_meter	meter;
	struct dfs_cpr_params	cp;
	struct dfs_cpr_clock	clock;
	struct dfs_btree	bt;
	struct dfs_index	index;
	void			*index_mem;
	struct dfs_cache	cache;
	u32			wfs_ewma;
	u32			backlog;	/* bytes queued */
	bool			fq_mode;
	struct dfs_fq_sched	fq;
	struct dfs_fq_params	fq_params;
	struct dfs_fq_stats	fq_stats;
	void			*pool;
	struct bpkt		*free_pkts;
	struct bflow		*flows;
	u32			used;		/* flows taken from the array */
	u32			cap;		/* "flows": past it, the overflow */
	bool			no_index;	/* the tree alone, for comparison */
	struct bflow		overflow;
	u32			overflowed;	/* packets counted there */
	u64			now;
	u32			dropped;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *b_pop(void *ctx, struct dfs_fq *fq)
{
	struct bench *b = ctx;
	struct bpkt *pkt = fq->head;

	if (!pkt)
		return NULL;
	fq->head = pkt->next;
	if (!fq->head)
		fq->tail = NULL;
	pkt->owner->flow.backlog -= pkt->len;
	b->backlog -= pkt->len;
	return pkt;
}

static u32 b_len(const void *pkt)
{
	return ((const struct bpkt *)pkt)->len;
}

static u32 b_time(const void *pkt)
{
	return ((const struct bpkt *)pkt)->time;
}

static bool b_mark(void *pkt)
{
	return false;
}

static void b_free(struct bench *b, struct bpkt *pkt)
{
	pkt->next = b->free_pkts;
	b->free_pkts = pkt;
}

static void b_drop(void *ctx, void *pkt)
{
	b_free(ctx, pkt);
}

static void b_release(void *ctx, struct dfs_fq_key *k)
{
	((struct bflow *)k->owner)->fk = NULL;
	free(k);
}

static const struct dfs_fq_ops b_ops = {
	.pop = b_pop, .len = b_len, .time = b_time, .mark = b_mark,
	.drop = b_drop, .release = b_release,
};

/*
 * What sch_dfs's index worker does when the flows outgrow the index: a new
 * one of the size it wants, filled from the tree (here at once).
 */
static void index_resize(struct bench *b)
{
	u32 want = dfs_index_want(&b->index, b->bt.count);
	struct flowkey cursor;
	bool set = false;

	if (!want || b->no_index)
		return;
	free(b->index_mem);
	if (posix_memalign(&b->index_mem, 64, dfs_index_size(want)))
		abort();
	memset(b->index_mem, 0, dfs_index_size(want));
	dfs_index_set(&b->index, b->index_mem, want);
	while (dfs_repo_fill(&b->index, &b->bt, &cursor, &set, 1024))
		;
}

/* As dfs_flow_get(): the cache, the index or tree, or a new flow. */
static struct dfs_flow *flow_get(struct bench *b, const struct flowkey *key)
{
	struct dfs_flow *flow;

	flow = dfs_repo_find(&b->cache, &b->index, &b->bt, key);
	if (flow)
		return flow;
	if (b->used >= b->cap) {
		b->overflowed++;
		return &b->overflow.flow;
	}
	flow = &b->flows[b->used++].flow;
	flow->key = *key;
	dfs_flow_init(flow, &b->p, b->now);
	dfs_cpr_flow_init(&b->clock, &flow->cpr);
	if (dfs_repo_insert(&b->index, &b->bt, flow))
		abort();
	index_resize(b);
	return flow;
}

static void flow_place(struct bench *b, struct dfs_flow *flow)
{
	if (flow != &b->overflow.flow)
		dfs_repo_place(&b->p, &b->cache, &b->index, &b->bt, flow);
}

static void fq_add(struct bench *b, struct dfs_flow *flow, u32 len)
{
	struct bflow *bf = (struct bflow *)flow;
	struct bpkt *pkt = b->free_pkts;
	struct dfs_fq_key *k = bf->fk;
	struct dfs_fq *fq;

	b->free_pkts = pkt->next;
	pkt->next = NULL;
	pkt->owner = bf;
	pkt->len = len;
	pkt->time = dfs_codel_time(b->now);
	if (!k) {
		k = malloc(sizeof(*k));
		bf->fk = k;
		dfs_fq_activate(&b->fq, &b->fq_params, &b->fq_stats, k, bf);
	}
	/* a flow per key (srcdst keys, a flow each) */
	fq = dfs_fq_queue(&b->fq, &b->fq_params, &b->fq_stats, k,
			  (u32)(bf - b->flows) * 0x9E3779B9U);
	if (fq->tail)
		((struct bpkt *)fq->tail)->next = pkt;
	else
		fq->head = pkt;
	fq->tail = pkt;
}

/* One packet through dfs_enqueue()'s cores, and in fq one dequeue. */
static void packet(struct bench *b, const struct flowkey *key, u32 len)
{
	const struct dfs_params *p = &b->p;
	enum dfs_verdict verdict;
	struct dfs_flow *flow;
	u64 fair_rate;
	u32 wfs;

	b->now += TICK_NS;
	dfs_meter_tick(&b->meter, b->now, p->rate_interval_ns);
	dfs_cpr_tick(&b->clock, &b->cp, b->now);
	dfs_cpr_link(&b->clock, &b->cp, p->bandwidth);
	flow = flow_get(b, key);
	dfs_flow_arrival(flow, b->now, len, p->rate_interval_ns);
	dfs_cpr_packet(&b->clock, &flow->cpr);
	wfs = dfs_wfs(p->limit, b->backlog, dfs_meter_active(&b->meter));
	b->wfs_ewma = dfs_wfs_ewma(b->wfs_ewma, wfs, p->beta);
	dfs_meter_update(p, &b->meter);
	fair_rate = flow->flags & DFS_F_MALICIOUS ? b->meter.fair_r :
		    b->meter.fair;
	verdict = dfs_decide(p, flow, b->now, b->wfs_ewma, fair_rate);
	flow_place(b, flow);
	if (verdict == DFS_DROP) {
		dfs_meter_seen_dropped(&b->meter, flow, 1);
		b->dropped++;
		return;
	}
	dfs_cpr_arrive(&b->clock, &flow->cpr, len);
	dfs_meter_seen(&b->meter, flow, 1);
	if (!b->fq_mode)
		return;
	fq_add(b, flow, len);
	flow->backlog += len;
	b->backlog += len;
	if (b->backlog > QLEN * PKT_LEN)
		b_free(b, dfs_fq_dequeue(&b->fq, &b->fq_params, &b->fq_stats,
					 &b_ops, b, &b->backlog,
					 dfs_codel_time(b->now)));
}

static void bench_init(struct bench *b, u32 nflows, bool fq_mode)
{
	u32 i;

	memset(b, 0, sizeof(*b));
	dfs_params_init(&b->p);
	b->p.bandwidth = 10000000000ULL / 8;
	dfs_meter_init(&b->meter, 0);
	dfs_cpr_params_init(&b->cp);
	dfs_cpr_init(&b->clock, &b->cp, 0);
	dfs_btree_init(&b->bt, 43);
	dfs_cache_init(&b->cache, 32);
	b->fq_mode = fq_mode;
	b->pool = calloc(1, dfs_fq_pool_size(POOL_SETS));
	dfs_fq_sched_init(&b->fq, b->pool, POOL_SETS);
	b->fq_params.quantum = 1514;
	b->fq_params.target = dfs_codel_from_us(5000);
	b->fq_params.interval = dfs_codel_from_us(100000);
	b->fq_params.mtu = 1514;
	b->flows = calloc(nflows + 1, sizeof(*b->flows));
	b->cap = nflows;
	dfs_flow_init(&b->overflow.flow, &b->p, 0);
	dfs_cpr_flow_init(&b->clock, &b->overflow.flow.cpr);
	for (i = 0; i < 2 * QLEN; i++)
		b_free(b, calloc(1, sizeof(struct bpkt)));
	if (!fq_mode)
		b->backlog = QLEN * PKT_LEN;
}

static void bench_free(struct bench *b)
{
	struct bpkt *pkt;

	while ((pkt = dfs_fq_dequeue(&b->fq, &b->fq_params, &b->fq_stats,
				     &b_ops, b, &b->backlog, 0)))
		free(pkt);
	while ((pkt = b->free_pkts)) {
		b->free_pkts = pkt->next;
		free(pkt);
	}
	dfs_btree_destroy(&b->bt, NULL, NULL);
	free(b->index_mem);
	dfs_cache_free(&b->cache);
	free(b->flows);
	free(b->pool);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct figure {
	double	median;
	double	spread;		/* (max - min) / median */
};

enum traffic { KNOWN, FLOOD, SPOOFED, TREE_ONLY };

/*
 * @nflows flows of random keys, each known before the rounds start, and
 * packets of them (KNOWN), of four of them marked malicious and cached
 * (FLOOD), or of sources never seen (SPOOFED: @nflows is then the cap);
 * TREE_ONLY is KNOWN with no index.
 */
static struct figure run(u32 nflows, bool fq_mode, enum traffic traffic,
			 const struct flowkey *keys, const u32 *pick,
			 struct flowkey *pk)
{
	bool flood = traffic == FLOOD;
	double t[ROUNDS];
	struct bench b;
	struct figure f;
	u32 r, i;

	bench_init(&b, nflows, fq_mode);
	b.no_index = traffic == TREE_ONLY;
	for (i = 0; i < nflows; i++)
		packet(&b, &keys[i], PKT_LEN);
	if (flood) {
		for (i = 0; i < 4; i++) {
			struct dfs_flow *fl = dfs_btree_lookup(&b.bt, &keys[i]);

			fl->pm = b.p.max_th;
			fl->flags |= DFS_F_MALICIOUS;
			flow_place(&b, fl);
		}
	}
	for (r = 0; r < ROUNDS; r++) {
		double t0;

		/*
		 * The packets' keys, in the order they come, read in turn as
		 * classify reads a header the NIC just wrote: the key's own
		 * fetch is not the path's.
		 */
		for (i = 0; i < PACKETS; i++) {
			pk[i] = keys[flood ? pick[i] % 4 : pick[i] % nflows];
			if (traffic == SPOOFED) {
				u64 x = xorshift();

				memcpy(pk[i].src, &x, 4);
			}
		}
		t0 = now_ns();
		for (i = 0; i < PACKETS; i++) {
			/* the key as classify writes it, on the stack */
			struct flowkey key = pk[i];

			packet(&b, &key, PKT_LEN);
		}
		t[r] = (now_ns() - t0) / PACKETS;
	}
	if (b.used != nflows || (flood && b.cache.count != 4) ||
	    (traffic == SPOOFED) != !!b.overflowed)
		printf("the bench's flows went wrong\n");
	bench_free(&b);
	qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
	f.median = t[ROUNDS / 2];
	f.spread = (t[ROUNDS - 1] - t[0]) / f.median;
	return f;
}

/*
 * ns a step of a dependent walk over a random cycle (Sattolo's shuffle)
 * through 256 MiB: one random DRAM access, the median of ROUNDS walks.
 */
static struct figure dram(void)
{
	const size_t n = (size_t)32 << 20;	/* u64s: 256 MiB */
	const u32 steps = 4000000;
	u64 *next = malloc(n * sizeof(*next)), p = 0;
	double t[ROUNDS];
	struct figure f;
	size_t i, j;
	u32 r, k;

	for (i = 0; i < n; i++)
		next[i] = i;
	for (i = n - 1; i > 0; i--) {
		u64 x;

		j = xorshift() % i;
		x = next[i];
		next[i] = next[j];
		next[j] = x;
	}
	for (r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();

		for (k = 0; k < steps; k++)
			p = next[p];
		t[r] = (now_ns() - t0) / steps;
	}
	if (p >= n)
		printf("the walk went wrong\n");
	free(next);
	qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
	f.median = t[ROUNDS / 2];
	f.spread = (t[ROUNDS - 1] - t[0]) / f.median;
	return f;
}

int main(void)
{
	static const u32 sizes[] = { 1, 1000, 65536, 1000000 };
	u32 nmax = sizes[ARRAY_SIZE(sizes) - 1], i, s;
	struct flowkey *keys = calloc(nmax, sizeof(*keys));
	u32 *pick = malloc(PACKETS * sizeof(*pick));
	struct flowkey *pk = malloc(PACKETS * sizeof(*pk));
	struct figure flood, spoofed, spoofed_fq, walk, tree, tree_fq;
	struct figure fifo[ARRAY_SIZE(sizes)], fq[ARRAY_SIZE(sizes)];

	for (i = 0; i < nmax; i++) {
		u64 r = xorshift();

		memcpy(keys[i].src, &r, 4);
		memcpy(keys[i].dst, (char *)&r + 4, 4);
		keys[i].family = 2;
	}
	for (i = 0; i < PACKETS; i++)
		pick[i] = xorshift();

	walk = dram();
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		fifo[s] = run(sizes[s], false, KNOWN, keys, pick, pk);
		fq[s] = run(sizes[s], true, KNOWN, keys, pick, pk);
	}
	flood = run(nmax, false, FLOOD, keys, pick, pk);
	tree = run(nmax, false, TREE_ONLY, keys, pick, pk);
	tree_fq = run(nmax, true, TREE_ONLY, keys, pick, pk);
	spoofed = run(nmax, false, SPOOFED, keys, pick, pk);
	spoofed_fq = run(nmax, true, SPOOFED, keys, pick, pk);

	printf("one random DRAM access: %.0f ns, spread %.0f%%\n\n",
	       walk.median, 100 * walk.spread);
	printf("| flows | fifo ns/packet | spread | x DRAM | fq ns/packet | spread | x DRAM | fifo 1 flow / N |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (s = 0; s < ARRAY_SIZE(sizes); s++)
		printf("| %u | %.0f | %.0f%% | %.2f | %.0f | %.0f%% | %.2f | %.2f |\n",
		       sizes[s], fifo[s].median, 100 * fifo[s].spread,
		       fifo[s].median / walk.median, fq[s].median,
		       100 * fq[s].spread, fq[s].median / walk.median,
		       fifo[0].median / fifo[s].median);
	printf("| 1000000, the tree alone | %.0f | %.0f%% | %.2f | %.0f | %.0f%% | %.2f | - |\n",
	       tree.median, 100 * tree.spread, tree.median / walk.median,
	       tree_fq.median, 100 * tree_fq.spread,
	       tree_fq.median / walk.median);
	printf("| spoofed, 1M known | %.0f | %.0f%% | %.2f | %.0f | %.0f%% | %.2f | - |\n",
	       spoofed.median, 100 * spoofed.spread,
	       spoofed.median / walk.median, spoofed_fq.median,
	       100 * spoofed_fq.spread, spoofed_fq.median / walk.median);
	printf("\nsched fq: %zu bytes a key with packets (struct dfs_fq_key), %zu a flow queue of the pool, %zu the pool of %u\n",
	       sizeof(struct dfs_fq_key), sizeof(struct dfs_fq),
	       dfs_fq_pool_size(POOL_SETS), POOL_SETS * DFS_FQ_WAYS);
	printf("\nflood (4 cached malicious sources, 1M flows known): %.0f ns/packet, spread %.0f%%, %.2f DRAM accesses\n",
	       flood.median, 100 * flood.spread, flood.median / walk.median);
	free(keys);
	free(pick);
	free(pk);
	return 0;
}
