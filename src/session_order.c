// SPDX-License-Identifier: MIT
/*
 * The receiver's reorder stage for --qps: chunk n of a session goes on
 * QP n % qps, and each QP keeps its own order but the QPs do not keep
 * one between them, so chunks can complete out of the session's order.
 * This puts them back in it. With one QP every chunk is the next.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "rdmapush/sys.h"
#include "session_int.h"

struct rp_arrival {
	bool here;
	uint32_t imm;
	uint32_t len;
};

int rp_order_init(struct rp_order *o, uint32_t window, uint32_t qps)
{
	*o = (struct rp_order){ .window = window, .qps = qps };
	return rp_sys_calloc(&o->a, window, sizeof(*o->a), "arrivals");
}

void rp_order_free(struct rp_order *o)
{
	free(o->a);
	o->a = NULL;
}

uint64_t rp_order_next_on(struct rp_order *o, uint32_t qp)
{
	return qp + (uint64_t)o->qps * o->seen[qp]++;
}

/*
 * Chunks in flight are fewer than window (the credit), so two never
 * share an entry unless the peer broke the order.
 */
bool rp_order_put(struct rp_order *o, uint64_t n, uint32_t imm,
		  uint32_t len)
{
	struct rp_arrival *a = &o->a[n % o->window];

	if (a->here)
		return false;
	*a = (struct rp_arrival){ .here = true, .imm = imm, .len = len };
	return true;
}

bool rp_order_take(struct rp_order *o, uint64_t n, uint32_t *imm,
		   uint32_t *len)
{
	struct rp_arrival *a = &o->a[n % o->window];

	if (!a->here)
		return false;
	a->here = false;
	*imm = a->imm;
	*len = a->len;
	return true;
}

void rp_order_restart(struct rp_order *o, uint64_t next)
{
	for (uint32_t i = 0; i < o->window; i++)
		o->a[i].here = false;
	/* The first chunk at or after next that goes on QP q. */
	for (uint32_t q = 0; q < o->qps; q++)
		o->seen[q] = next > q ? (next - q + o->qps - 1) / o->qps : 0;
}
