// SPDX-License-Identifier: GPL-2.0
/*
 * Start-time Fair Queuing: the virtual clock and a new class's tags; the
 * arithmetic of every packet is inline in stfq_tags.h.
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
