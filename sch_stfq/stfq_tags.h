/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Start-time Fair Queuing tags (Goyal, Vin, Cheng, SIGCOMM 1996).
 *
 * A packet of a class gets the start tag S = max(v, F_prev) and the finish
 * tag F = S + len / weight; v is the start tag of the packet in service,
 * and the packet with the smallest start tag is served next.  At the end
 * of a busy period v becomes the largest finish tag served.
 *
 * Tags are u64 in units of 2^-STFQ_SHIFT bytes per unit of weight and are
 * compared modulo 2^64, so they may wrap.  A class idle for long could hold
 * a finish tag more than 2^63 behind v, which the modular comparison would
 * take for one ahead: the clock counts eras of 2^STFQ_ERA_SHIFT of virtual
 * time, and a class idle for two eras or more starts at v whatever its tag.
 */
#ifndef _STFQ_TAGS_H
#define _STFQ_TAGS_H

#include <linux/math64.h>
#include <linux/types.h>

#define STFQ_SHIFT	16
#define STFQ_ERA_SHIFT	61

struct stfq_clock {
	u64	v;		/* virtual time */
	u64	vmax;		/* largest finish tag served */
	u64	era;		/* v >> STFQ_ERA_SHIFT, counted past wraps */
};

struct stfq_tags {
	u64	start;		/* start tag of the head packet */
	u64	finish;		/* finish tag of the last packet served */
	u64	era;		/* clock era when finish was set */
};

/* a < b, modulo 2^64 */
static inline bool stfq_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/* Virtual service of len bytes at weight (>= 1). */
static inline u64 stfq_cost(u32 len, u32 weight)
{
	return div_u64((u64)len << STFQ_SHIFT, weight);
}

void stfq_clock_init(struct stfq_clock *c);
void stfq_tags_init(const struct stfq_clock *c, struct stfq_tags *t);

/* What runs per packet is inline, as codel_impl.h is: no call on the
 * qdisc's path.
 */

/* The class gets a packet while empty: S = max(v, F_prev). */
static inline void stfq_activate(const struct stfq_clock *c,
				 struct stfq_tags *t)
{
	if (c->era - t->era >= 2 || stfq_before(t->finish, c->v))
		t->start = c->v;
	else
		t->start = t->finish;
}

/* Serve the head of the class: v = S, F = S + len / weight, and the next
 * packet of the class, if any, starts at F.  Returns F.
 *
 * A class whose child held its packets (a shaper) was passed over while
 * others were served, so its S may be behind v: it starts at v, as a
 * class that was idle would, and v never goes back.
 */
static inline u64 stfq_serve(struct stfq_clock *c, struct stfq_tags *t,
			     u32 len, u32 weight)
{
	u64 f;

	if (stfq_before(t->start, c->v))
		t->start = c->v;
	f = t->start + stfq_cost(len, weight ? weight : 1);

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
static inline void stfq_idle(struct stfq_clock *c)
{
	if ((c->vmax >> STFQ_ERA_SHIFT) != (c->v >> STFQ_ERA_SHIFT))
		c->era++;
	c->v = c->vmax;
}

#endif /* _STFQ_TAGS_H */
