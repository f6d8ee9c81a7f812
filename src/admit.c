// SPDX-License-Identifier: MIT
/* The receiver's admission bookkeeping: who is connected, from where, and
 * who holds a transfer slot, against the caps on each (admit.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "rdmapush/admit.h"

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void rp_admit_init(struct rp_admit *a, int max_xfers, int max_pending,
		   int max_per_addr)
{
	memset(a, 0, sizeof(*a));
	a->max_xfers = clamp(max_xfers, 1, RP_MAX_XFERS);
	a->max_pending = clamp(max_pending, 1, RP_MAX_PENDING);
	a->max_per_addr = clamp(max_per_addr, 1, RP_MAX_PENDING);
}

void rp_admit_addr(const char *peer, char *addr, size_t len)
{
	const char *colon = strrchr(peer, ':');
	size_t n = colon ? (size_t)(colon - peer) : strlen(peer);

	if (n >= 2 && peer[0] == '[' && peer[n - 1] == ']') {
		peer++;
		n -= 2;
	}
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(addr, peer, n);
	addr[n] = '\0';
}

/* Index of id's entry, or -1. */
static int find(const struct rp_admit *a, long id)
{
	for (int i = 0; i < a->n; i++)
		if (a->e[i].id == id)
			return i;
	return -1;
}

int rp_admit_pending(const struct rp_admit *a)
{
	return a->n - a->xfers;
}

int rp_admit_xfers(const struct rp_admit *a)
{
	return a->xfers;
}

int rp_admit_from(const struct rp_admit *a, const char *addr)
{
	int k = 0;

	for (int i = 0; i < a->n; i++)
		k += !strncmp(a->e[i].addr, addr, RP_ADMIT_ADDR_MAX - 1);
	return k;
}

enum rp_admit_verdict rp_admit_check(const struct rp_admit *a,
				     const char *addr)
{
	if (rp_admit_pending(a) >= a->max_pending)
		return RP_ADMIT_PENDING_FULL;
	if (rp_admit_from(a, addr) >= a->max_per_addr)
		return RP_ADMIT_ADDR_FULL;
	return RP_ADMIT_OK;
}

enum rp_admit_verdict rp_admit_add(struct rp_admit *a, long id,
				   const char *addr)
{
	enum rp_admit_verdict v = rp_admit_check(a, addr);
	struct rp_admit_entry *e;

	/* The caps keep n within the table: pending + transfers. */
	if (v)
		return v;
	e = &a->e[a->n++];
	e->id = id;
	e->xfer = false;
	snprintf(e->addr, sizeof(e->addr), "%s", addr);
	return RP_ADMIT_OK;
}

enum rp_admit_verdict rp_admit_promote(struct rp_admit *a, long id)
{
	int i = find(a, id);
	struct rp_admit_entry *e;

	if (i < 0)
		return RP_ADMIT_UNKNOWN;
	e = &a->e[i];
	if (e->xfer)
		return RP_ADMIT_OK;
	if (a->xfers >= a->max_xfers)
		return RP_ADMIT_XFERS_FULL;
	e->xfer = true;
	a->xfers++;
	return RP_ADMIT_OK;
}

bool rp_admit_release(struct rp_admit *a, long id)
{
	int i = find(a, id);

	if (i < 0)
		return false;
	if (a->e[i].xfer)
		a->xfers--;
	a->e[i] = a->e[--a->n];
	return true;
}

bool rp_admit_has_slot(const struct rp_admit *a, long id)
{
	int i = find(a, id);

	return i >= 0 && a->e[i].xfer;
}

const char *rp_admit_why(const struct rp_admit *a, enum rp_admit_verdict v,
			 const char *addr, char *buf, size_t len)
{
	switch (v) {
	case RP_ADMIT_OK:
		snprintf(buf, len, "admitted");
		break;
	case RP_ADMIT_PENDING_FULL:
		snprintf(buf, len, "%d connections still in their handshake "
			 "(at most %d)", rp_admit_pending(a), a->max_pending);
		break;
	case RP_ADMIT_ADDR_FULL:
		snprintf(buf, len, "%d connections from %s "
			 "(--max-per-address %d)", rp_admit_from(a, addr),
			 addr, a->max_per_addr);
		break;
	case RP_ADMIT_XFERS_FULL:
		snprintf(buf, len, "%d transfers in progress (-m %d)",
			 a->xfers, a->max_xfers);
		break;
	default:
		snprintf(buf, len, "not a connection we know");
		break;
	}
	return buf;
}
