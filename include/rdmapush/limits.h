/* SPDX-License-Identifier: MIT */
/*
 * Sizes and caps enforced on what a peer sends and on the command line:
 * one place, shared by proto (message bounds), opts (option ranges) and
 * session (what a receiver agrees to). Nothing a peer says can make us
 * allocate or reserve beyond these.
 */
#ifndef RDMAPUSH_LIMITS_H
#define RDMAPUSH_LIMITS_H

#include <stdint.h>

#define RP_PROTO_MAX_PAYLOAD	4224	/* bytes: a FILE with the longest path */
#define RP_NAME_MAX		255	/* bytes of a file name, like NAME_MAX */
#define RP_TEXT_MAX		255	/* bytes of error text */
/* Bytes of a relative path in a session (dir/sub/name), like PATH_MAX. */
#define RP_PATH_MAX		4095
/* The size of a stream (standard input): known only at its end. */
#define RP_SIZE_UNKNOWN		UINT64_MAX

#define RP_MIN_CHUNK		4096u	/* one page: the ring's granule */
#define RP_MAX_CHUNK		(64u << 20)
#define RP_MAX_WINDOW		64u
#define RP_MAX_RING		(256ull << 20)	/* chunk * window cap */
#define RP_MAX_XFERS		64	/* concurrent transfers per receiver */
#define RP_MAX_THREADS		64	/* --threads: worker threads per transfer */
/* Worker scratch per transfer: each worker that copies holds one chunk,
 * whose size the peer chose; past this, fewer workers (rp_pool_new). */
#define RP_MAX_SCRATCH		(256ull << 20)
/* --qps: RC QPs a session stripes its chunks over (HELLO, MR). */
#define RP_QPS_MAX		8

/* Before AUTH (with --psk) or HELLO: connections hold no transfer slot. */
#define RP_HANDSHAKE_SECS	5	/* deadline from accept to a valid HELLO */
#define RP_MAX_PENDING		64	/* connections still in their handshake */
#define RP_DEFAULT_PER_ADDR	8	/* connections from one address */
#define RP_DEFAULT_PER_PREFIX	16	/* in their handshake, per /24 or /64 */
/* After HELLO: a sender that moves less than --min-rate over this many
 * seconds of the receiver waiting for it loses its slot. */
#define RP_MIN_RATE_SECS	60
/* A stopped file's partial is kept this long (--partial-max-age). */
#define RP_DEFAULT_PARTIAL_AGE	(7 * 86400.0)
#define RP_MAX_MIN_RATE		(1ull << 30)	/* --min-rate: bytes a second */

#endif
