/* SPDX-License-Identifier: MIT */
/*
 * rdmapush ping: a round-trip latency ping-pong for learners, over the
 * same handshake (TCP control connection, HELLO marked RP_HELLO_PING,
 * MR) and the same hand-driven RC QP (verbs.h) as a push.
 *
 *   client                                   server
 *   AUTH challenge, proofs (--psk, as a push's sender and receiver)
 *   HELLO (PING, op, total = N, chunk = S) ->
 *                                         <- MR (its buffer, rkey for write)
 *   MR (our buffer, --op write only)     ->
 *   N round trips over the QP, timed by the client
 *   FIN (files = N round trips done)     ->
 *                                         <- ACK (bytes = N answered)
 *
 * --op send: SEND/RECV with receives posted ahead; the server answers
 * each receive's completion with a Send. --op write: each side RDMA-Writes
 * S bytes into the other's buffer (no immediate: no receive, no
 * completion at the target) with the round trip's tag in the last byte,
 * and the other side spins on that byte in its own memory, as perftest's
 * ib_write_lat does. Both sides busy-poll (rp_verbs_poll) and check
 * between polls the stop flag (SIGINT/SIGTERM), --timeout (no progress
 * for that long) and the control socket (a peer that died or sent ERR).
 */
#ifndef RDMAPUSH_PING_H
#define RDMAPUSH_PING_H

#include "rdmapush/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmapush/config.h"
#include "rdmapush/proto.h"

#define RP_PING_DEFAULT_PORT	18501	/* the receiver's 18500 + 1 */
#define RP_PING_DEFAULT_ITERS	1000
#define RP_PING_MAX_ITERS	1000000
#define RP_PING_DEFAULT_SIZE	2	/* bytes, as perftest's *_lat */
#define RP_PING_MAX_SIZE	(1u << 20)

/* Round-trip statistics in microseconds. */
struct rp_ping_stats {
	double min;
	double median;		/* the middle one, or the mean of the two */
	double p99;		/* nearest rank: ceil(0.99 n)-th smallest */
	double max;
};

/*
 * Sort rtt[0..n) in place and summarise it. 0, or RP_EINTERNAL for n == 0
 * or NULL arguments (not reported: a caller's bug it can name).
 */
int rp_ping_stats(double *rtt, size_t n, struct rp_ping_stats *out)
	__attribute__((warn_unused_result));

/* What a client measured. */
struct rp_ping_result {
	uint8_t op;		/* RP_OP_SEND or RP_OP_WRITE */
	uint32_t size;		/* bytes each way */
	uint32_t iterations;	/* round trips timed */
	struct rp_ping_stats rtt;	/* microseconds */
	char peer[80];
	/* Set as soon as the handshake passed, kept when a round trip
	 * then fails (rdmapush doctor tells the two apart): */
	bool connected;
	struct rp_qp_addr remote;	/* the server's QP, from its MR */
};

/*
 * The client: connect to o->host:o->port, ping o->ping_iters times (with
 * o->psk_file, after the AUTH exchange a push's sender runs). 0 (res
 * filled) or an error, already reported.
 */
int rp_ping_client(const struct rp_config *o, struct rp_ping_result *res)
	__attribute__((warn_unused_result));
/* The same over an open control connection (fd, owned and closed). */
int rp_ping_client_fd(const struct rp_config *o, int fd, const char *peer,
		      struct rp_ping_result *res)
	__attribute__((warn_unused_result));

/* The longest a ping server lets one client ping, from its HELLO on. */
#define RP_PING_MAX_SECS	60
/* Pings (clients past their handshake) a ping server answers at once:
 * each busy-polls a core. */
#define RP_PING_MAX_CLIENTS	4

struct rp_admission;

/* How a ping server answers one client, and what came of it. */
struct rp_ping_serve {
	const uint8_t *psk;	/* --psk's key (RP_PSK_LEN bytes) or NULL:
				 * with it the client must prove it first
				 * (AUTH, as a push's sender does) */
	const struct rp_admission *adm;	/* asked for a slot once the
					 * client is past its HELLO, or NULL */
	int max_secs;		/* the whole ping ends this long after the
				 * HELLO (RP_ELIMIT, told), or 0: no cap */
	bool hello;		/* out: the client passed AUTH and HELLO */
};

/*
 * Answer one client on an accepted control connection (fd, owned and
 * closed), as s says; s->hello tells whether it was a real ping (past
 * its handshake). 0 or an error (reported, and told to the peer by ERR
 * while it can hear it). A push's HELLO is refused with RP_ENOTPUSH;
 * a client the admission hook refuses, with RP_EBUSY.
 */
int rp_ping_serve_fd(const struct rp_config *o, struct rp_ping_serve *s,
		     int fd, const char *peer)
	__attribute__((warn_unused_result));

/*
 * The server: listen on o->bind_addr:o->port and answer each client in
 * a process of its own, up to RP_PING_MAX_CLIENTS pings at once, with
 * the receiver's admission caps on connections still in their
 * handshake (each dropped at its deadline), until SIGINT/SIGTERM.
 * With --once, until one client has passed its handshake and been
 * answered: its result is the server's; probes and failed handshakes
 * are logged (rate-limited) and do not end it. With o->psk_file, the
 * key is loaded first (RP_ECONFIG if it will not do) and every client
 * must prove it. In a forked child this returns 0 once its client is
 * served (what came of it went to the server), and main exits.
 */
int rp_ping_server(const struct rp_config *o)
	__attribute__((warn_unused_result));

/* The client's result: a few lines, or one JSON object with --json.
 * 0 or -errno (write or allocation failure). */
int rp_ping_report(FILE *f, const struct rp_ping_result *r, bool json)
	__attribute__((warn_unused_result));

#endif
