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
#include "dfs_btree.h"

struct dfs_btree_node {
	u16		nkeys;
	u16		leaf;
	/* 2t - 1 items, then (internal nodes only) 2t children */
	struct dfs_flow	*item[];
};

static inline u32 dfs_btree_max(const struct dfs_btree *bt)
{
	return 2 * bt->order - 1;
}

static inline struct dfs_btree_node **
dfs_btree_child(const struct dfs_btree *bt, const struct dfs_btree_node *n)
{
	return (struct dfs_btree_node **)&n->item[dfs_btree_max(bt)];
}

static size_t dfs_btree_node_size(const struct dfs_btree *bt, bool leaf)
{
	size_t ptrs = dfs_btree_max(bt) + (leaf ? 0 : 2 * bt->order);

	return sizeof(struct dfs_btree_node) + ptrs * sizeof(void *);
}

static struct dfs_btree_node *dfs_btree_node_alloc(struct dfs_btree *bt,
						   bool leaf)
{
	size_t size = dfs_btree_node_size(bt, leaf);
	struct dfs_btree_node *n;

	/* Called from the enqueue path: atomic, and failure is handled. */
	n = kzalloc(size, GFP_ATOMIC | __GFP_NOWARN);
	if (!n)
		return NULL;
	n->leaf = leaf;
	bt->nodes++;
	bt->mem += size;
	return n;
}

static void dfs_btree_node_free(struct dfs_btree *bt, struct dfs_btree_node *n)
{
	bt->nodes--;
	bt->mem -= dfs_btree_node_size(bt, n->leaf);
	kfree(n);
}

/*
 * Binary search of one node.  Returns true if @key is at *@pos, otherwise
 * *@pos is the index of the first item greater than @key (the child to
 * descend into).
 */
static bool dfs_btree_search(const struct dfs_btree_node *n,
			     const struct flowkey *key, u32 *pos)
{
	u32 lo = 0, hi = n->nkeys;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		int c = dfs_key_cmp(key, &n->item[mid]->key);

		if (c == 0) {
			*pos = mid;
			return true;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*pos = lo;
	return false;
}

void dfs_btree_init(struct dfs_btree *bt, u32 order)
{
	memset(bt, 0, sizeof(*bt));
	bt->order = clamp_t(u32, order, DFS_BTREE_ORDER_MIN,
			    DFS_BTREE_ORDER_MAX);
}

struct dfs_flow *dfs_btree_lookup(const struct dfs_btree *bt,
				  const struct flowkey *key)
{
	const struct dfs_btree_node *n = bt->root;
	u32 i;

	while (n) {
		if (dfs_btree_search(n, key, &i))
			return n->item[i];
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
	memcpy(z->item, &y->item[t], (t - 1) * sizeof(z->item[0]));
	if (!y->leaf)
		memcpy(dfs_btree_child(bt, z), &dfs_btree_child(bt, y)[t],
		       t * sizeof(z));
	y->nkeys = t - 1;

	memmove(&xc[i + 2], &xc[i + 1], (x->nkeys - i) * sizeof(z));
	memmove(&x->item[i + 1], &x->item[i],
		(x->nkeys - i) * sizeof(x->item[0]));
	xc[i + 1] = z;
	x->item[i] = y->item[t - 1];
	x->nkeys++;
	return 0;
}

int dfs_btree_insert(struct dfs_btree *bt, struct dfs_flow *flow)
{
	const struct flowkey *key = &flow->key;
	struct dfs_btree_node *x;
	u32 i;

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

		if (dfs_btree_search(x, key, &i))
			return -EEXIST;
		if (x->leaf)
			break;
		c = dfs_btree_child(bt, x)[i];
		if (c->nkeys == dfs_btree_max(bt)) {
			int cmp;

			if (dfs_btree_split_child(bt, x, i))
				return -ENOMEM;
			cmp = dfs_key_cmp(key, &x->item[i]->key);
			if (cmp == 0)
				return -EEXIST;
			if (cmp > 0)
				i++;
		}
		x = dfs_btree_child(bt, x)[i];
	}

	memmove(&x->item[i + 1], &x->item[i],
		(x->nkeys - i) * sizeof(x->item[0]));
	x->item[i] = flow;
	x->nkeys++;
	bt->count++;
	return 0;
}

/* Merge child @i + 1 of @x and the separator item @i into child @i. */
static void dfs_btree_merge(struct dfs_btree *bt, struct dfs_btree_node *x,
			    u32 i)
{
	struct dfs_btree_node **xc = dfs_btree_child(bt, x);
	struct dfs_btree_node *y = xc[i], *z = xc[i + 1];

	y->item[y->nkeys] = x->item[i];
	memcpy(&y->item[y->nkeys + 1], z->item, z->nkeys * sizeof(z->item[0]));
	if (!y->leaf)
		memcpy(&dfs_btree_child(bt, y)[y->nkeys + 1],
		       dfs_btree_child(bt, z), (z->nkeys + 1) * sizeof(z));
	y->nkeys += z->nkeys + 1;

	memmove(&x->item[i], &x->item[i + 1],
		(x->nkeys - i - 1) * sizeof(x->item[0]));
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

	memmove(&c->item[1], &c->item[0], c->nkeys * sizeof(c->item[0]));
	c->item[0] = x->item[i - 1];
	if (!c->leaf) {
		struct dfs_btree_node **cc = dfs_btree_child(bt, c);

		memmove(&cc[1], &cc[0], (c->nkeys + 1) * sizeof(c));
		cc[0] = dfs_btree_child(bt, l)[l->nkeys];
	}
	x->item[i - 1] = l->item[l->nkeys - 1];
	l->nkeys--;
	c->nkeys++;
}

/* Move one item from the right sibling of child @i, through @x, into it. */
static void dfs_btree_borrow_right(struct dfs_btree *bt,
				   struct dfs_btree_node *x, u32 i)
{
	struct dfs_btree_node **xc = dfs_btree_child(bt, x);
	struct dfs_btree_node *c = xc[i], *r = xc[i + 1];

	c->item[c->nkeys] = x->item[i];
	x->item[i] = r->item[0];
	memmove(&r->item[0], &r->item[1], (r->nkeys - 1) * sizeof(r->item[0]));
	if (!c->leaf) {
		struct dfs_btree_node **rc = dfs_btree_child(bt, r);

		dfs_btree_child(bt, c)[c->nkeys + 1] = rc[0];
		memmove(&rc[0], &rc[1], r->nkeys * sizeof(r));
	}
	r->nkeys--;
	c->nkeys++;
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

/* Remove @key from the subtree of @x, which holds at least t items or is
 * the root.
 */
static struct dfs_flow *dfs_btree_delete(struct dfs_btree *bt,
					 struct dfs_btree_node *x,
					 const struct flowkey *key)
{
	u32 t = bt->order;

	for (;;) {
		struct dfs_btree_node **xc;
		struct dfs_flow *found;
		u32 i;

		if (!dfs_btree_search(x, key, &i)) {
			if (x->leaf)
				return NULL;
			i = dfs_btree_fill(bt, x, i);
			x = dfs_btree_child(bt, x)[i];
			continue;
		}

		found = x->item[i];
		if (x->leaf) {
			memmove(&x->item[i], &x->item[i + 1],
				(x->nkeys - i - 1) * sizeof(x->item[0]));
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
			struct dfs_flow *repl;

			while (!n->leaf)
				n = dfs_btree_child(bt, n)[left ? n->nkeys : 0];
			repl = n->item[left ? n->nkeys - 1 : 0];
			dfs_btree_delete(bt, xc[left ? i : i + 1], &repl->key);
			x->item[i] = repl;
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
	struct dfs_flow *found;

	if (!root)
		return NULL;

	found = dfs_btree_delete(bt, root, key);
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
	u32 i;

	while (n) {
		if (!key)
			i = 0;
		else if (dfs_btree_search(n, key, &i))
			i++;
		if (i < n->nkeys)
			best = n->item[i];
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
			err = fn(n->item[i], arg);
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
			fn(n->item[i], arg);
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
/* The full invariant walk is for the unit tests and fuzzers only. */
static int dfs_btree_check_node(const struct dfs_btree *bt,
				const struct dfs_btree_node *n, u32 depth,
				const struct flowkey *lo,
				const struct flowkey *hi, u32 *count)
{
	u32 i;

	if (n != bt->root && n->nkeys < bt->order - 1)
		return -EINVAL;
	if (n->nkeys > dfs_btree_max(bt) || (n == bt->root && !n->nkeys))
		return -EINVAL;
	if (n->leaf ? depth != bt->height : depth >= bt->height)
		return -EINVAL;
	for (i = 0; i < n->nkeys; i++) {
		const struct flowkey *k = &n->item[i]->key;

		if ((i == 0 && lo && dfs_key_cmp(lo, k) >= 0) ||
		    (i > 0 && dfs_key_cmp(&n->item[i - 1]->key, k) >= 0) ||
		    (hi && dfs_key_cmp(k, hi) >= 0))
			return -EINVAL;
	}
	*count += n->nkeys;
	if (n->leaf)
		return 0;
	for (i = 0; i <= n->nkeys; i++) {
		int err = dfs_btree_check_node(bt, dfs_btree_child(bt, n)[i],
					       depth + 1,
					       i ? &n->item[i - 1]->key : lo,
					       i < n->nkeys ? &n->item[i]->key : hi,
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
