// SPDX-License-Identifier: GPL-2.0
/*
 * B-tree of DFS flows (CLRS, chapter 18): insertion splits full nodes and
 * deletion refills thin nodes on the way down, so both run in one
 * top-down pass with no parent pointers and no recursion deeper than the
 * height of the tree.
 *
 * Nodes hold pointers to flows, not the flows themselves, so a flow never
 * moves in memory: the qdisc keeps a flow pointer in each queued skb, and
 * moving a flow to the cache and back costs no copy.
 *
 * An allocation failure during insert leaves a valid tree (every split
 * done so far is itself a valid B-tree transformation) and returns
 * -ENOMEM; deletion never allocates.
 */
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dfs_btree.h"

/*
 * A node is one allocation: its header and 2t - 1 tags, then 2t - 1 flow
 * pointers, then (internal nodes only) 2t children.  The header and the
 * tags take 8t bytes, so the pointers are aligned; a binary search reads
 * the tags and dereferences the one flow whose tag matches.
 */
struct dfs_btree_node {
	u16		nkeys;
	u16		leaf;
	u32		tag[];
};

/* A key being searched for, with its tag computed once. */
struct dfs_btree_key {
	const struct flowkey	*key;
	u32			tag;
};

static inline u32 dfs_btree_max(const struct dfs_btree *bt)
{
	return 2 * bt->order - 1;
}

static inline struct dfs_flow **
dfs_btree_items(const struct dfs_btree *bt, const struct dfs_btree_node *n)
{
	return (struct dfs_flow **)&n->tag[dfs_btree_max(bt)];
}

static inline struct dfs_btree_node **
dfs_btree_child(const struct dfs_btree *bt, const struct dfs_btree_node *n)
{
	return (struct dfs_btree_node **)&dfs_btree_items(bt, n)[dfs_btree_max(bt)];
}

static size_t dfs_btree_node_size(const struct dfs_btree *bt, bool leaf)
{
	size_t size = sizeof(struct dfs_btree_node) +
		      dfs_btree_max(bt) * (sizeof(u32) + sizeof(void *));

	return size + (leaf ? 0 : 2 * bt->order * sizeof(void *));
}

/* What a node takes from kmalloc, its bucket: memory_usage counts this. */
static size_t dfs_btree_node_mem(const struct dfs_btree *bt, bool leaf)
{
	return kmalloc_size_roundup(dfs_btree_node_size(bt, leaf));
}

static struct dfs_btree_node *dfs_btree_node_alloc(struct dfs_btree *bt,
						   bool leaf)
{
	struct dfs_btree_node *n;

	/* Called from the enqueue path: atomic, and failure is handled. */
	n = kzalloc(dfs_btree_node_size(bt, leaf), GFP_ATOMIC | __GFP_NOWARN);
	if (!n)
		return NULL;
	n->leaf = leaf;
	bt->nodes++;
	bt->mem += dfs_btree_node_mem(bt, leaf);
	return n;
}

static void dfs_btree_node_free(struct dfs_btree *bt, struct dfs_btree_node *n)
{
	bt->nodes--;
	bt->mem -= dfs_btree_node_mem(bt, n->leaf);
	kfree(n);
}

/* Move @cnt items (tags and flows) from @src at @si to @dst at @di. */
static void dfs_btree_move(const struct dfs_btree *bt,
			   struct dfs_btree_node *dst, u32 di,
			   const struct dfs_btree_node *src, u32 si, u32 cnt)
{
	memmove(&dst->tag[di], &src->tag[si], cnt * sizeof(u32));
	memmove(&dfs_btree_items(bt, dst)[di], &dfs_btree_items(bt, src)[si],
		cnt * sizeof(void *));
}

static void dfs_btree_set(const struct dfs_btree *bt,
			  struct dfs_btree_node *dst, u32 di,
			  const struct dfs_btree_node *src, u32 si)
{
	dst->tag[di] = src->tag[si];
	dfs_btree_items(bt, dst)[di] = dfs_btree_items(bt, src)[si];
}

/* @k against item @i of @n, in the tree's order. */
static int dfs_btree_cmp_at(const struct dfs_btree *bt,
			    const struct dfs_btree_key *k,
			    const struct dfs_btree_node *n, u32 i)
{
	if (k->tag != n->tag[i])
		return k->tag < n->tag[i] ? -1 : 1;
	return dfs_key_cmp(k->key, &dfs_btree_items(bt, n)[i]->key);
}

/*
 * Search of one node.  Returns true if @k is at *@pos, otherwise *@pos is
 * the index of the first item greater than @k (the child to descend into).
 *
 * The first item whose tag is not below @k's is found by a branch-free
 * binary search on the tags alone: its steps depend on data the CPU can
 * not predict, and a mispredicted branch a step costs more than the
 * comparison.  Only items with @k's tag are compared by key: one when @k
 * is there, and with 32-bit keyed tags almost never another (a run of
 * equal tags, a collision nobody can aim at, is walked in key order).
 */
static __always_inline bool dfs_btree_search(const struct dfs_btree *bt,
					     const struct dfs_btree_node *n,
					     const struct dfs_btree_key *k,
					     u32 *pos)
{
	struct dfs_flow **items = dfs_btree_items(bt, n);
	u32 base = 0, len = n->nkeys, i;

	while (len > 1) {
		u32 half = len / 2;

		base += (n->tag[base + half - 1] < k->tag) * half;
		len -= half;
	}
	i = base + (len && n->tag[base] < k->tag);
	for (; i < n->nkeys && n->tag[i] == k->tag; i++) {
		/* a tag's match is nearly always the key's */
		if (flowkey_eq(k->key, &items[i]->key)) {
			*pos = i;
			return true;
		}
		if (dfs_key_cmp(k->key, &items[i]->key) < 0)
			break;
	}
	*pos = i;
	return false;
}

static void dfs_btree_key(const struct dfs_btree *bt,
			  const struct flowkey *key, struct dfs_btree_key *k)
{
	k->key = key;
	k->tag = dfs_btree_tag(bt, key);
}

void dfs_btree_init(struct dfs_btree *bt, u32 order)
{
	memset(bt, 0, sizeof(*bt));
	bt->order = clamp_t(u32, order, DFS_BTREE_ORDER_MIN,
			    DFS_BTREE_ORDER_MAX);
	flowkey_hash_init(bt->seed);
}

struct dfs_flow *dfs_btree_lookup(const struct dfs_btree *bt,
				  const struct flowkey *key)
{
	const struct dfs_btree_node *n = bt->root;
	struct dfs_btree_key k;
	u32 i;

	dfs_btree_key(bt, key, &k);
	while (n) {
		if (dfs_btree_search(bt, n, &k, &i))
			return dfs_btree_items(bt, n)[i];
		if (n->leaf)
			break;
		n = dfs_btree_child(bt, n)[i];
	}
	return NULL;
}

/* Split the full child @i of @x around its median, which moves up into @x. */
static int dfs_btree_split_child(struct dfs_btree *bt,
				 struct dfs_btree_node *x, u32 i)
{
	struct dfs_btree_node **xc = dfs_btree_child(bt, x);
	struct dfs_btree_node *y = xc[i], *z;
	u32 t = bt->order;

	z = dfs_btree_node_alloc(bt, y->leaf);
	if (!z)
		return -ENOMEM;

	z->nkeys = t - 1;
	dfs_btree_move(bt, z, 0, y, t, t - 1);
	if (!y->leaf)
		memcpy(dfs_btree_child(bt, z), &dfs_btree_child(bt, y)[t],
		       t * sizeof(z));
	y->nkeys = t - 1;

	memmove(&xc[i + 2], &xc[i + 1], (x->nkeys - i) * sizeof(z));
	dfs_btree_move(bt, x, i + 1, x, i, x->nkeys - i);
	xc[i + 1] = z;
	dfs_btree_set(bt, x, i, y, t - 1);
	x->nkeys++;
	return 0;
}

/* Merge child @i + 1 of @x and the separator item @i into child @i. */
static void dfs_btree_merge(struct dfs_btree *bt, struct dfs_btree_node *x,
			    u32 i)
{
	struct dfs_btree_node **xc = dfs_btree_child(bt, x);
	struct dfs_btree_node *y = xc[i], *z = xc[i + 1];

	dfs_btree_set(bt, y, y->nkeys, x, i);
	dfs_btree_move(bt, y, y->nkeys + 1, z, 0, z->nkeys);
	if (!y->leaf)
		memcpy(&dfs_btree_child(bt, y)[y->nkeys + 1],
		       dfs_btree_child(bt, z), (z->nkeys + 1) * sizeof(z));
	y->nkeys += z->nkeys + 1;

	dfs_btree_move(bt, x, i, x, i + 1, x->nkeys - i - 1);
	memmove(&xc[i + 1], &xc[i + 2], (x->nkeys - i - 1) * sizeof(z));
	x->nkeys--;
	dfs_btree_node_free(bt, z);
}

/* Move one item from the left sibling of child @i, through @x, into it. */
static void dfs_btree_borrow_left(struct dfs_btree *bt,
				  struct dfs_btree_node *x, u32 i)
{
	struct dfs_btree_node **xc = dfs_btree_child(bt, x);
	struct dfs_btree_node *c = xc[i], *l = xc[i - 1];

	dfs_btree_move(bt, c, 1, c, 0, c->nkeys);
	dfs_btree_set(bt, c, 0, x, i - 1);
	if (!c->leaf) {
		struct dfs_btree_node **cc = dfs_btree_child(bt, c);

		memmove(&cc[1], &cc[0], (c->nkeys + 1) * sizeof(c));
		cc[0] = dfs_btree_child(bt, l)[l->nkeys];
	}
	dfs_btree_set(bt, x, i - 1, l, l->nkeys - 1);
	l->nkeys--;
	c->nkeys++;
}

/* Move one item from the right sibling of child @i, through @x, into it. */
static void dfs_btree_borrow_right(struct dfs_btree *bt,
				   struct dfs_btree_node *x, u32 i)
{
	struct dfs_btree_node **xc = dfs_btree_child(bt, x);
	struct dfs_btree_node *c = xc[i], *r = xc[i + 1];

	dfs_btree_set(bt, c, c->nkeys, x, i);
	dfs_btree_set(bt, x, i, r, 0);
	dfs_btree_move(bt, r, 0, r, 1, r->nkeys - 1);
	if (!c->leaf) {
		struct dfs_btree_node **rc = dfs_btree_child(bt, r);

		dfs_btree_child(bt, c)[c->nkeys + 1] = rc[0];
		memmove(&rc[0], &rc[1], r->nkeys * sizeof(r));
	}
	r->nkeys--;
	c->nkeys++;
}

/*
 * Child @i of @x is full and @k goes below it: pass one of its items to a
 * sibling with room, through @x, or else split it.  Splits leave two half
 * full nodes, so with splits alone nodes are ln 2 full on average; passing
 * items on first fills them more, and memory per flow is the nodes'.
 * Returns the child to descend into, or -EEXIST (@k is now in @x) or
 * -ENOMEM.
 */
static int dfs_btree_make_room(struct dfs_btree *bt, struct dfs_btree_node *x,
			       u32 i, const struct dfs_btree_key *k)
{
	struct dfs_btree_node **xc = dfs_btree_child(bt, x);
	u32 max = dfs_btree_max(bt), sep;
	int cmp;

	/* Each way leaves a new separator in @x at @sep, between the child
	 * at @sep and the one after it, which @k goes by.
	 */
	if (i > 0 && xc[i - 1]->nkeys < max - 1) {
		dfs_btree_borrow_right(bt, x, i - 1);
		sep = i - 1;
	} else if (i < x->nkeys && xc[i + 1]->nkeys < max - 1) {
		dfs_btree_borrow_left(bt, x, i + 1);
		sep = i;
	} else {
		if (dfs_btree_split_child(bt, x, i))
			return -ENOMEM;
		sep = i;
	}
	cmp = dfs_btree_cmp_at(bt, k, x, sep);
	if (cmp == 0)
		return -EEXIST;
	return cmp < 0 ? sep : sep + 1;
}

int dfs_btree_insert(struct dfs_btree *bt, struct dfs_flow *flow)
{
	struct dfs_btree_node *x;
	struct dfs_btree_key k;
	u32 i;

	dfs_btree_key(bt, &flow->key, &k);
	if (!bt->root) {
		bt->root = dfs_btree_node_alloc(bt, true);
		if (!bt->root)
			return -ENOMEM;
		bt->height = 1;
	}

	if (bt->root->nkeys == dfs_btree_max(bt)) {
		struct dfs_btree_node *s = dfs_btree_node_alloc(bt, false);

		if (!s)
			return -ENOMEM;
		dfs_btree_child(bt, s)[0] = bt->root;
		if (dfs_btree_split_child(bt, s, 0)) {
			dfs_btree_node_free(bt, s);
			return -ENOMEM;
		}
		bt->root = s;
		bt->height++;
	}

	x = bt->root;
	for (;;) {
		struct dfs_btree_node *c;

		if (dfs_btree_search(bt, x, &k, &i))
			return -EEXIST;
		if (x->leaf)
			break;
		c = dfs_btree_child(bt, x)[i];
		if (c->nkeys == dfs_btree_max(bt)) {
			int room = dfs_btree_make_room(bt, x, i, &k);

			if (room < 0)
				return room;
			i = room;
		}
		x = dfs_btree_child(bt, x)[i];
	}

	dfs_btree_move(bt, x, i + 1, x, i, x->nkeys - i);
	x->tag[i] = k.tag;
	dfs_btree_items(bt, x)[i] = flow;
	x->nkeys++;
	bt->count++;
	return 0;
}

/*
 * Make sure child @i of @x holds at least t items before descending into
 * it; returns the index of the child to descend into (a merge with the
 * left sibling moves it one to the left).
 */
static u32 dfs_btree_fill(struct dfs_btree *bt, struct dfs_btree_node *x,
			  u32 i)
{
	struct dfs_btree_node **xc = dfs_btree_child(bt, x);
	u32 t = bt->order;

	if (xc[i]->nkeys >= t)
		return i;
	if (i > 0 && xc[i - 1]->nkeys >= t) {
		dfs_btree_borrow_left(bt, x, i);
		return i;
	}
	if (i < x->nkeys && xc[i + 1]->nkeys >= t) {
		dfs_btree_borrow_right(bt, x, i);
		return i;
	}
	if (i < x->nkeys) {
		dfs_btree_merge(bt, x, i);
		return i;
	}
	dfs_btree_merge(bt, x, i - 1);
	return i - 1;
}

/* Remove @k from the subtree of @x, which holds at least t items or is
 * the root.
 */
static struct dfs_flow *dfs_btree_delete(struct dfs_btree *bt,
					 struct dfs_btree_node *x,
					 const struct dfs_btree_key *k)
{
	u32 t = bt->order;

	for (;;) {
		struct dfs_btree_node **xc;
		struct dfs_flow *found;
		u32 i;

		if (!dfs_btree_search(bt, x, k, &i)) {
			if (x->leaf)
				return NULL;
			i = dfs_btree_fill(bt, x, i);
			x = dfs_btree_child(bt, x)[i];
			continue;
		}

		found = dfs_btree_items(bt, x)[i];
		if (x->leaf) {
			dfs_btree_move(bt, x, i, x, i + 1, x->nkeys - i - 1);
			x->nkeys--;
			return found;
		}

		xc = dfs_btree_child(bt, x);
		if (xc[i]->nkeys >= t || xc[i + 1]->nkeys >= t) {
			/* Replace by the predecessor or successor, which is
			 * in a leaf, and delete that from the child.
			 */
			bool left = xc[i]->nkeys >= t;
			struct dfs_btree_node *n = xc[left ? i : i + 1];
			struct dfs_btree_key rk;
			struct dfs_flow *repl;
			u32 j;

			while (!n->leaf)
				n = dfs_btree_child(bt, n)[left ? n->nkeys : 0];
			j = left ? n->nkeys - 1 : 0;
			repl = dfs_btree_items(bt, n)[j];
			rk.key = &repl->key;
			rk.tag = n->tag[j];
			dfs_btree_delete(bt, xc[left ? i : i + 1], &rk);
			x->tag[i] = rk.tag;
			dfs_btree_items(bt, x)[i] = repl;
			return found;
		}

		/* Both neighbours are thin: merge them around the key. */
		dfs_btree_merge(bt, x, i);
		x = xc[i];
	}
}

struct dfs_flow *dfs_btree_remove(struct dfs_btree *bt,
				  const struct flowkey *key)
{
	struct dfs_btree_node *root = bt->root;
	struct dfs_btree_key k;
	struct dfs_flow *found;

	if (!root)
		return NULL;

	dfs_btree_key(bt, key, &k);
	found = dfs_btree_delete(bt, root, &k);
	if (found)
		bt->count--;

	if (root->nkeys == 0) {
		if (root->leaf) {
			bt->root = NULL;
			bt->height = 0;
		} else {
			bt->root = dfs_btree_child(bt, root)[0];
			bt->height--;
		}
		dfs_btree_node_free(bt, root);
	}
	return found;
}

struct dfs_flow *dfs_btree_next(const struct dfs_btree *bt,
				const struct flowkey *key)
{
	const struct dfs_btree_node *n = bt->root;
	struct dfs_flow *best = NULL;
	struct dfs_btree_key k;
	u32 i;

	if (key)
		dfs_btree_key(bt, key, &k);
	while (n) {
		if (!key)
			i = 0;
		else if (dfs_btree_search(bt, n, &k, &i))
			i++;
		if (i < n->nkeys)
			best = dfs_btree_items(bt, n)[i];
		if (n->leaf)
			break;
		n = dfs_btree_child(bt, n)[i];
	}
	return best;
}

static int dfs_btree_walk_node(const struct dfs_btree *bt,
			       const struct dfs_btree_node *n,
			       int (*fn)(struct dfs_flow *flow, void *arg),
			       void *arg)
{
	u32 i;
	int err;

	for (i = 0; i <= n->nkeys; i++) {
		if (!n->leaf) {
			err = dfs_btree_walk_node(bt, dfs_btree_child(bt, n)[i],
						  fn, arg);
			if (err)
				return err;
		}
		if (i < n->nkeys) {
			err = fn(dfs_btree_items(bt, n)[i], arg);
			if (err)
				return err;
		}
	}
	return 0;
}

int dfs_btree_walk(const struct dfs_btree *bt,
		   int (*fn)(struct dfs_flow *flow, void *arg), void *arg)
{
	return bt->root ? dfs_btree_walk_node(bt, bt->root, fn, arg) : 0;
}

static void dfs_btree_destroy_node(struct dfs_btree *bt,
				   struct dfs_btree_node *n,
				   void (*fn)(struct dfs_flow *flow, void *arg),
				   void *arg)
{
	u32 i;

	if (!n->leaf)
		for (i = 0; i <= n->nkeys; i++)
			dfs_btree_destroy_node(bt, dfs_btree_child(bt, n)[i],
					       fn, arg);
	if (fn)
		for (i = 0; i < n->nkeys; i++)
			fn(dfs_btree_items(bt, n)[i], arg);
	dfs_btree_node_free(bt, n);
}

void dfs_btree_destroy(struct dfs_btree *bt,
		       void (*fn)(struct dfs_flow *flow, void *arg), void *arg)
{
	if (bt->root)
		dfs_btree_destroy_node(bt, bt->root, fn, arg);
	bt->root = NULL;
	bt->height = 0;
	bt->count = 0;
}

#ifndef __KERNEL__
/* The full invariant walk is for the unit tests and fuzzers only: node
 * fill, equal leaf depth, every tag that of its key, and the (tag, key)
 * order within and across nodes.
 */
static int dfs_btree_check_node(const struct dfs_btree *bt,
				const struct dfs_btree_node *n, u32 depth,
				const struct flowkey *lo,
				const struct flowkey *hi, u32 *count)
{
	struct dfs_flow **items = dfs_btree_items(bt, n);
	u32 i;

	if (n != bt->root && n->nkeys < bt->order - 1)
		return -EINVAL;
	if (n->nkeys > dfs_btree_max(bt) || (n == bt->root && !n->nkeys))
		return -EINVAL;
	if (n->leaf ? depth != bt->height : depth >= bt->height)
		return -EINVAL;
	for (i = 0; i < n->nkeys; i++) {
		const struct flowkey *k = &items[i]->key;

		if (n->tag[i] != dfs_btree_tag(bt, k))
			return -EINVAL;
		if ((i == 0 && lo && dfs_btree_cmp(bt, lo, k) >= 0) ||
		    (i > 0 && dfs_btree_cmp(bt, &items[i - 1]->key, k) >= 0) ||
		    (hi && dfs_btree_cmp(bt, k, hi) >= 0))
			return -EINVAL;
	}
	*count += n->nkeys;
	if (n->leaf)
		return 0;
	for (i = 0; i <= n->nkeys; i++) {
		int err = dfs_btree_check_node(bt, dfs_btree_child(bt, n)[i],
					       depth + 1,
					       i ? &items[i - 1]->key : lo,
					       i < n->nkeys ? &items[i]->key : hi,
					       count);
		if (err)
			return err;
	}
	return 0;
}

int dfs_btree_check(const struct dfs_btree *bt)
{
	u32 count = 0;
	int err;

	if (!bt->root)
		return bt->height || bt->count ? -EINVAL : 0;
	err = dfs_btree_check_node(bt, bt->root, 1, NULL, NULL, &count);
	if (err)
		return err;
	return count == bt->count ? 0 : -EINVAL;
}
#endif /* !__KERNEL__ */
