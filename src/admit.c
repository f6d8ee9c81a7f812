// SPDX-License-Identifier: MIT
/* The receiver's admission bookkeeping: who is connected, from where, and
 * who holds a transfer slot, against the caps on each (admit.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/admit.h"
#include "rdmapush/trace.h"

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
	if (max_per_addr <= 0)
		max_per_addr = RP_DEFAULT_PER_ADDR;
	a->max_per_addr = clamp(max_per_addr, 1, RP_MAX_PENDING);
	a->max_per_prefix = RP_DEFAULT_PER_PREFIX;
	rp_admit_set_addr_xfer_cap(a, 0);
}

void rp_admit_set_prefix_cap(struct rp_admit *a, int max_per_prefix)
{
	a->max_per_prefix = clamp(max_per_prefix, 1, RP_MAX_PENDING);
}

void rp_admit_set_addr_xfer_cap(struct rp_admit *a, int max_xfers_per_addr)
{
	if (max_xfers_per_addr <= 0)
		max_xfers_per_addr = (a->max_xfers + 1) / 2;
	a->max_xfers_per_addr = clamp(max_xfers_per_addr, 1, a->max_xfers);
}

/* The first bits of an address kept, the others cleared. */
static void mask(uint8_t *b, size_t len, size_t keep)
{
	for (size_t i = keep; i < len; i++)
		b[i] = 0;
}

void rp_admit_prefix(const char *addr, char *prefix, size_t len)
{
	static const uint8_t v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	char text[RP_ADMIT_ADDR_MAX], out[INET6_ADDRSTRLEN];
	uint8_t b[16];

	/* A scope (fe80::1%eth0) is no part of the prefix. */
	snprintf(text, sizeof(text), "%s", addr);
	text[strcspn(text, "%")] = '\0';
	if (inet_pton(AF_INET, text, b) == 1) {
		mask(b, 4, 3);
		inet_ntop(AF_INET, b, out, sizeof(out));
		snprintf(prefix, len, "%s/24", out);
	} else if (inet_pton(AF_INET6, text, b) == 1 &&
		   !memcmp(b, v4mapped, sizeof(v4mapped))) {
		mask(b + 12, 4, 3);
		inet_ntop(AF_INET, b + 12, out, sizeof(out));
		snprintf(prefix, len, "%s/24", out);
	} else if (inet_pton(AF_INET6, text, b) == 1) {
		mask(b, 16, 8);
		inet_ntop(AF_INET6, b, out, sizeof(out));
		snprintf(prefix, len, "%s/64", out);
	} else {
		snprintf(prefix, len, "%s", addr);
	}
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
	return a->n - a->xfers - a->gone;
}

int rp_admit_xfers(const struct rp_admit *a)
{
	return a->xfers;
}

int rp_admit_from(const struct rp_admit *a, const char *addr)
{
	int k = 0;

	for (int i = 0; i < a->n; i++)
		k += !a->e[i].gone &&
		     !strncmp(a->e[i].addr, addr, RP_ADMIT_ADDR_MAX - 1);
	return k;
}

int rp_admit_xfers_from(const struct rp_admit *a, const char *addr)
{
	int k = 0;

	for (int i = 0; i < a->n; i++)
		k += a->e[i].xfer && !a->e[i].gone &&
		     !strcmp(a->e[i].addr, addr);
	return k;
}

static bool handshaking(const struct rp_admit_entry *e)
{
	return !e->xfer && !e->gone;
}

/* In their handshake from the prefix pfx. */
static int pending_in(const struct rp_admit *a, const char *pfx)
{
	int k = 0;

	for (int i = 0; i < a->n; i++)
		k += handshaking(&a->e[i]) && !strcmp(a->e[i].prefix, pfx);
	return k;
}

int rp_admit_pending_from_prefix(const struct rp_admit *a, const char *addr)
{
	char pfx[RP_ADMIT_ADDR_MAX];

	rp_admit_prefix(addr, pfx, sizeof(pfx));
	return pending_in(a, pfx);
}

/* The caps that eviction does not lift: the address's, the prefix's,
 * and the table's own size (evicted entries wait there to be reaped). */
static enum rp_admit_verdict check_own(const struct rp_admit *a,
				       const char *addr)
{
	if (a->n >= RP_ADMIT_SLOTS)
		return RP_ADMIT_PENDING_FULL;
	if (rp_admit_from(a, addr) >= a->max_per_addr)
		return RP_ADMIT_ADDR_FULL;
	if (rp_admit_pending_from_prefix(a, addr) >= a->max_per_prefix)
		return RP_ADMIT_PREFIX_FULL;
	return RP_ADMIT_OK;
}

enum rp_admit_verdict rp_admit_check(const struct rp_admit *a,
				     const char *addr)
{
	if (rp_admit_pending(a) >= a->max_pending)
		return RP_ADMIT_PENDING_FULL;
	return check_own(a, addr);
}

/* Index of the oldest entry in its handshake of the prefix with the
 * most of them (*most: how many), or -1 when none is. */
static int crowd_oldest(const struct rp_admit *a, int *most)
{
	int best = -1;

	*most = 0;
	for (int i = 0; i < a->n; i++) {
		int k;

		if (!handshaking(&a->e[i]))
			continue;
		k = pending_in(a, a->e[i].prefix);
		if (k > *most || (k == *most && a->e[i].seq < a->e[best].seq)) {
			*most = k;
			best = i;
		}
	}
	return best;
}

enum rp_admit_verdict rp_admit_make_room(struct rp_admit *a,
					 const char *addr, long *victim)
{
	enum rp_admit_verdict v = check_own(a, addr);
	int most, i;

	*victim = -1;
	if (v || rp_admit_pending(a) < a->max_pending)
		return v;
	/* Full: the crowd gives way to a newcomer from a smaller group,
	 * never to one of its own (who would only replace its like). */
	i = crowd_oldest(a, &most);
	if (i < 0 || rp_admit_pending_from_prefix(a, addr) >= most)
		return RP_ADMIT_PENDING_FULL;
	a->e[i].gone = true;
	a->gone++;
	*victim = a->e[i].id;
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
	e->seq = a->seq++;
	e->xfer = false;
	e->gone = false;
	snprintf(e->addr, sizeof(e->addr), "%s", addr);
	rp_admit_prefix(e->addr, e->prefix, sizeof(e->prefix));
	return RP_ADMIT_OK;
}

enum rp_admit_verdict rp_admit_promote(struct rp_admit *a, long id)
{
	int i = find(a, id);
	struct rp_admit_entry *e;

	if (i < 0 || a->e[i].gone)
		return RP_ADMIT_UNKNOWN;
	e = &a->e[i];
	if (e->xfer)
		return RP_ADMIT_OK;
	if (a->xfers >= a->max_xfers)
		return RP_ADMIT_XFERS_FULL;
	if (rp_admit_xfers_from(a, e->addr) >= a->max_xfers_per_addr)
		return RP_ADMIT_ADDR_XFERS_FULL;
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
	if (a->e[i].gone)
		a->gone--;
	a->e[i] = a->e[--a->n];
	return true;
}

const char *rp_admit_addr_of(const struct rp_admit *a, long id)
{
	int i = find(a, id);

	return i < 0 ? "" : a->e[i].addr;
}

bool rp_admit_has_slot(const struct rp_admit *a, long id)
{
	int i = find(a, id);

	return i >= 0 && a->e[i].xfer;
}

bool rp_admit_evicted(const struct rp_admit *a, long id)
{
	int i = find(a, id);

	return i >= 0 && a->e[i].gone;
}

const char *rp_admit_why(const struct rp_admit *a, enum rp_admit_verdict v,
			 const char *addr, char *buf, size_t len)
{
	char pfx[RP_ADMIT_ADDR_MAX];
	int n;

	switch (v) {
	case RP_ADMIT_OK:
		snprintf(buf, len, "admitted");
		break;
	case RP_ADMIT_PENDING_FULL:
		n = rp_admit_pending(a);
		snprintf(buf, len, "%d connection%s still in their handshake "
			 "(at most %d)", n, rp_s((uint64_t)n), a->max_pending);
		break;
	case RP_ADMIT_ADDR_FULL:
		n = rp_admit_from(a, addr);
		snprintf(buf, len, "%d connection%s from %s "
			 "(--max-per-address %d)", n, rp_s((uint64_t)n), addr,
			 a->max_per_addr);
		break;
	case RP_ADMIT_PREFIX_FULL:
		rp_admit_prefix(addr, pfx, sizeof(pfx));
		n = pending_in(a, pfx);
		snprintf(buf, len, "%d connection%s from %s still in their "
			 "handshake (--max-pending-per-prefix %d)", n,
			 rp_s((uint64_t)n), pfx, a->max_per_prefix);
		break;
	case RP_ADMIT_XFERS_FULL:
		snprintf(buf, len, "%d transfer%s in progress (-m %d)",
			 a->xfers, rp_s((uint64_t)a->xfers), a->max_xfers);
		break;
	case RP_ADMIT_ADDR_XFERS_FULL:
		snprintf(buf, len, "%d transfer%s from %s in progress "
			 "(--max-xfers-per-address %d)",
			 rp_admit_xfers_from(a, addr), rp_s((uint64_t)
			 rp_admit_xfers_from(a, addr)), addr,
			 a->max_xfers_per_addr);
		break;
	default:
		snprintf(buf, len, "not a connection we know");
		break;
	}
	return buf;
}
