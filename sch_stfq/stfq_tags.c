// SPDX-License-Identifier: GPL-2.0
/*
 * Start-time Fair Queuing tag arithmetic and virtual time, see stfq_tags.h.
 *
 * The qdisc keeps one stfq_tags per class, not per packet: a packet that
 * arrives to a backlogged class gets S = F_prev (v, the start tag of a
 * packet in service, can not pass F_prev while the packet before it waits),
 * so the start tag of a class's head is the finish tag of the packet served
 * before it, or max(v, F_prev) when it arrived to an empty class.  Tagging
 * at dequeue gives the same order as tagging at enqueue for a FIFO child,
 * uses the real length of whatever packet the child hands out, and lets
 * any qdisc (which may use the skb control block itself) be the child.
 */
#include "stfq_tags.h"

void stfq_clock_init(struct stfq_clock *c)
{
	c->v = 0;
	c->vmax = 0;
	c->era = 0;
}

void stfq_tags_init(const struct stfq_clock *c, struct stfq_tags *t)
{
	t->start = c->v;
	t->finish = c->v;
	t->era = c->era;
}

/* The class gets a packet while empty: S = max(v, F_prev). */
void stfq_activate(const struct stfq_clock *c, struct stfq_tags *t)
{
	if (c->era - t->era >= 2 || stfq_before(t->finish, c->v))
		t->start = c->v;
	else
		t->start = t->finish;
}

/* Serve the head of the class: v = S, F = S + len / weight, and the next
 * packet of the class, if any, starts at F.  Returns F.
 */
u64 stfq_serve(struct stfq_clock *c, struct stfq_tags *t, u32 len,
	       u32 weight)
{
	u64 f = t->start + stfq_cost(len, weight ? weight : 1);

	if ((t->start >> STFQ_ERA_SHIFT) != (c->v >> STFQ_ERA_SHIFT))
		c->era++;
	c->v = t->start;
	t->finish = f;
	t->start = f;
	t->era = c->era;
	if (stfq_before(c->vmax, f))
		c->vmax = f;
	return f;
}

/* Nothing queued: the busy period ends, v jumps to the largest finish tag
 * served, so the next packets start together and no class keeps credit.
 */
void stfq_idle(struct stfq_clock *c)
{
	if ((c->vmax >> STFQ_ERA_SHIFT) != (c->v >> STFQ_ERA_SHIFT))
		c->era++;
	c->v = c->vmax;
}
