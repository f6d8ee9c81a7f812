/* SPDX-License-Identifier: MIT */
/*
 * The receiver's admission bookkeeping: each connection the server serves
 * (by an id, the child's pid), the address it came from, and whether it
 * has passed its handshake and holds a transfer slot; the caps on each.
 * A connection holds no slot while it is still in its handshake, and
 * connections in their handshake are capped per network prefix (IPv4
 * /24, IPv6 /64): when their table is full, a newcomer from a prefix
 * with fewer of them than the most represented one takes the place of
 * that prefix's oldest, so no crowd from a few prefixes can lock a
 * sender from another one out. Pure: no sockets, no processes, no clock.
 */
#ifndef RDMAPUSH_ADMIT_H
#define RDMAPUSH_ADMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rdmapush/limits.h"

/* An address as text (IPv6 with a scope fits), without the port. */
#define RP_ADMIT_ADDR_MAX	64
/* Entries: the caps' sum, plus as many evicted ones awaiting their
 * release (their processes are killed, then reaped). */
#define RP_ADMIT_SLOTS		(2 * RP_MAX_PENDING + RP_MAX_XFERS)

/* Why a connection or a transfer is refused; OK (0) when it is not. */
enum rp_admit_verdict {
	RP_ADMIT_OK = 0,
	RP_ADMIT_PENDING_FULL,	/* too many connections in their handshake */
	RP_ADMIT_ADDR_FULL,	/* too many connections from that address */
	RP_ADMIT_PREFIX_FULL,	/* too many in their handshake from its prefix */
	RP_ADMIT_XFERS_FULL,	/* every transfer slot (-m) is taken */
	RP_ADMIT_ADDR_XFERS_FULL, /* its address holds its share of them */
	RP_ADMIT_UNKNOWN,	/* no such id: a bug of the caller */
	RP_ADMIT_MAX
};

struct rp_admit_entry {
	long id;
	unsigned long seq;		/* order of arrival: lower is older */
	bool xfer;			/* holds a transfer slot */
	bool gone;			/* evicted: counts against no cap */
	char addr[RP_ADMIT_ADDR_MAX];
	char prefix[RP_ADMIT_ADDR_MAX];	/* rp_admit_prefix of addr */
};

struct rp_admit {
	int max_xfers;
	int max_pending;
	int max_per_addr;
	int max_per_prefix;		/* in their handshake, per prefix */
	int max_xfers_per_addr;		/* slots held from one address */
	int n;				/* entries in use, evicted ones too */
	int xfers;			/* of them, holding a slot */
	int gone;			/* of them, evicted */
	unsigned long seq;		/* the next entry's */
	struct rp_admit_entry e[RP_ADMIT_SLOTS];
};

/*
 * Empty bookkeeping with these caps: transfers at once (-m), connections
 * in their handshake, connections (handshaking or transferring) from one
 * address. Caps are clamped to 1..RP_MAX_XFERS and 1..RP_MAX_PENDING;
 * max_per_addr 0 (or less) is the default, RP_DEFAULT_PER_ADDR: not
 * bounded by max_xfers, since it also counts a sender's own connections
 * still in their handshake (two idle ones would lock out its push on a
 * -m 2 receiver). The per-prefix cap starts at RP_DEFAULT_PER_PREFIX.
 */
void rp_admit_init(struct rp_admit *a, int max_xfers, int max_pending,
		   int max_per_addr);
/* Connections in their handshake from one prefix, clamped to
 * 1..RP_MAX_PENDING. */
void rp_admit_set_prefix_cap(struct rp_admit *a, int max_per_prefix);
/*
 * Transfer slots one address may hold at once, clamped to 1..max_xfers;
 * 0 (or less) is the default, half of max_xfers rounded up: with -m 2
 * or more, no one address can take every slot and keep the others out.
 * Counted at promotion only, so a sender's connections still in their
 * handshake never lock out its own push.
 */
void rp_admit_set_addr_xfer_cap(struct rp_admit *a, int max_xfers_per_addr);
/*
 * The network prefix of an address text, as rp_admit_addr writes it:
 * "10.1.2.0/24" (IPv4, IPv4-mapped IPv6 too), "2001:db8:1:2::/64"
 * (IPv6, whatever its scope). Text that is no address is its own prefix.
 */
void rp_admit_prefix(const char *addr, char *prefix, size_t len);
/*
 * The address part of a peer text "ADDR:PORT" (IPv6 too: the port
 * follows the last colon; "[v6]:port" loses its brackets) into addr
 * (len bytes, truncated to fit). Text without a colon is kept whole.
 */
void rp_admit_addr(const char *peer, char *addr, size_t len);
/* Whether a new connection from addr may be taken as things are, with
 * no eviction: OK or the cap it hits. */
enum rp_admit_verdict rp_admit_check(const struct rp_admit *a,
				     const char *addr);
/*
 * Make room for a new connection from addr: OK with *victim -1 when
 * there is room already, or with *victim the id evicted for it: the
 * oldest in its handshake of the prefix most represented among them, if
 * addr's prefix has fewer there (else that cap's verdict). The evicted
 * entry counts against no cap from now on; its caller ends it, and
 * releases it once it is gone, as any other.
 */
enum rp_admit_verdict rp_admit_make_room(struct rp_admit *a,
					 const char *addr, long *victim);
/* Take it (id not yet known): it is handshaking. OK or the cap it hits
 * (rp_admit_check's; no eviction). */
enum rp_admit_verdict rp_admit_add(struct rp_admit *a, long id,
				   const char *addr);
/*
 * id has passed its handshake: give it a transfer slot. OK,
 * RP_ADMIT_XFERS_FULL or RP_ADMIT_ADDR_XFERS_FULL (it stays
 * handshaking, to be refused), or RP_ADMIT_UNKNOWN. Promoting a slot holder again is OK and changes
 * nothing.
 */
enum rp_admit_verdict rp_admit_promote(struct rp_admit *a, long id);
/* id is gone (its child exited and was reaped): its place and slot are
 * free. False if it was not known. */
bool rp_admit_release(struct rp_admit *a, long id);
/* id's address, "" if unknown. */
const char *rp_admit_addr_of(const struct rp_admit *a, long id);
/* Whether id holds a transfer slot (false if unknown). */
bool rp_admit_has_slot(const struct rp_admit *a, long id);
/* Whether id was evicted (false if unknown). */
bool rp_admit_evicted(const struct rp_admit *a, long id);
/* Connections in their handshake; holding a slot; from addr; in their
 * handshake from addr's prefix. Evicted ones are not counted. */
int rp_admit_pending(const struct rp_admit *a);
int rp_admit_xfers(const struct rp_admit *a);
int rp_admit_from(const struct rp_admit *a, const char *addr);
int rp_admit_xfers_from(const struct rp_admit *a, const char *addr);
int rp_admit_pending_from_prefix(const struct rp_admit *a, const char *addr);
/*
 * Why v refused a connection from addr, for the receiver's info line:
 * "2 transfers in progress (-m 2)". Returns buf.
 */
const char *rp_admit_why(const struct rp_admit *a, enum rp_admit_verdict v,
			 const char *addr, char *buf, size_t len);

#endif
