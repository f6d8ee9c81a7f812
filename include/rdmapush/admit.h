/* SPDX-License-Identifier: MIT */
/*
 * The receiver's admission bookkeeping: each connection the server serves
 * (by an id, the child's pid), the address it came from, and whether it
 * has passed its handshake and holds a transfer slot; the caps on each.
 * A connection holds no slot while it is still in its handshake, so idle
 * connections cannot lock real senders out. Pure: no sockets, no
 * processes, no clock.
 */
#ifndef RDMAPUSH_ADMIT_H
#define RDMAPUSH_ADMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rdmapush/limits.h"

/* An address as text (IPv6 with a scope fits), without the port. */
#define RP_ADMIT_ADDR_MAX	64

/* Why a connection or a transfer is refused; OK (0) when it is not. */
enum rp_admit_verdict {
	RP_ADMIT_OK = 0,
	RP_ADMIT_PENDING_FULL,	/* too many connections in their handshake */
	RP_ADMIT_ADDR_FULL,	/* too many connections from that address */
	RP_ADMIT_XFERS_FULL,	/* every transfer slot (-m) is taken */
	RP_ADMIT_UNKNOWN,	/* no such id: a bug of the caller */
	RP_ADMIT_MAX
};

struct rp_admit_entry {
	long id;
	bool xfer;			/* holds a transfer slot */
	char addr[RP_ADMIT_ADDR_MAX];
};

struct rp_admit {
	int max_xfers;
	int max_pending;
	int max_per_addr;
	int n;				/* entries in use */
	int xfers;			/* of them, holding a slot */
	struct rp_admit_entry e[RP_MAX_PENDING + RP_MAX_XFERS];
};

/*
 * Empty bookkeeping with these caps: transfers at once (-m), connections
 * in their handshake, connections (handshaking or transferring) from one
 * address. Caps are clamped to 1..RP_MAX_XFERS and 1..RP_MAX_PENDING.
 */
void rp_admit_init(struct rp_admit *a, int max_xfers, int max_pending,
		   int max_per_addr);
/*
 * The address part of a peer text "ADDR:PORT" (IPv6 too: the port
 * follows the last colon; "[v6]:port" loses its brackets) into addr
 * (len bytes, truncated to fit). Text without a colon is kept whole.
 */
void rp_admit_addr(const char *peer, char *addr, size_t len);
/* Whether a new connection from addr may be taken: OK or the cap it hits. */
enum rp_admit_verdict rp_admit_check(const struct rp_admit *a,
				     const char *addr);
/* Take it (id not yet known): it is handshaking. OK or the cap it hits. */
enum rp_admit_verdict rp_admit_add(struct rp_admit *a, long id,
				   const char *addr);
/*
 * id has passed its handshake: give it a transfer slot. OK,
 * RP_ADMIT_XFERS_FULL (it stays handshaking, to be refused), or
 * RP_ADMIT_UNKNOWN. Promoting a slot holder again is OK and changes
 * nothing.
 */
enum rp_admit_verdict rp_admit_promote(struct rp_admit *a, long id);
/* id is gone (its child exited): its place and slot are free. False if
 * it was not known. */
bool rp_admit_release(struct rp_admit *a, long id);
/* Whether id holds a transfer slot (false if unknown). */
bool rp_admit_has_slot(const struct rp_admit *a, long id);
/* Connections in their handshake; holding a slot; from addr. */
int rp_admit_pending(const struct rp_admit *a);
int rp_admit_xfers(const struct rp_admit *a);
int rp_admit_from(const struct rp_admit *a, const char *addr);
/*
 * Why v refused a connection from addr, for the receiver's info line:
 * "2 transfers in progress (-m 2)". Returns buf.
 */
const char *rp_admit_why(const struct rp_admit *a, enum rp_admit_verdict v,
			 const char *addr, char *buf, size_t len);

#endif
