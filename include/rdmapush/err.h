/* SPDX-License-Identifier: MIT */
/* Error codes of rdmapush: one table, expanded into the enum, the names,
 * the messages and the exit code each error maps to. */
#ifndef RDMAPUSH_ERR_H
#define RDMAPUSH_ERR_H

#include "rdmapush/export.h"

#include <stdbool.h>

/* Process exit codes, documented in rdmapush(1) and README. */
enum rp_exit {
	RP_EXIT_OK = 0,
	RP_EXIT_INTERNAL = 1,	/* a bug or an unexpected local failure */
	RP_EXIT_USAGE = 2,	/* bad command line */
	RP_EXIT_PROTO = 3,	/* peer refused, or spoke the protocol wrongly */
	RP_EXIT_TRANSPORT = 4,	/* peer died, network/RDMA failure, timeout */
	RP_EXIT_IO = 5,		/* local file or disk error */
	RP_EXIT_POLICY = 6,	/* refused by policy: existing file, bad name, too big */
	RP_EXIT_LISTEN = 7,	/* receiver cannot bind or listen on its port */
	/* Stopped by SIGINT or SIGTERM: 128 + the signal (130, 143). */
	RP_EXIT_SIGNAL_BASE = 128,
};

/*
 * XX(name, value, exit code, message). Values live in a reserved negative
 * range (as libuv does) so they never collide with -errno.
 */
#define RP_ERR_MAP(XX)							\
	XX(USAGE,	-2001, RP_EXIT_USAGE,	  "invalid usage")		\
	XX(PROTO,	-2002, RP_EXIT_PROTO,	  "malformed control message")	\
	XX(VERSION,	-2003, RP_EXIT_PROTO,	  "unsupported protocol version")	\
	XX(UNEXPECTED,	-2004, RP_EXIT_PROTO,	  "unexpected control message")	\
	XX(REFUSED,	-2005, RP_EXIT_PROTO,	  "refused by peer")		\
	XX(BUSY,	-2006, RP_EXIT_PROTO,	  "receiver is busy")		\
	XX(CHECKSUM,	-2007, RP_EXIT_PROTO,	  "checksum or size mismatch")	\
	XX(AUTH,	-2008, RP_EXIT_PROTO,	  "authentication failed")	\
	XX(NOTPEER,	-2009, RP_EXIT_PROTO,	  "not an rdmapush peer")	\
	XX(TAMPERED,	-2010, RP_EXIT_PROTO,	  "control message failed its integrity check") \
	XX(NOTPING,	-2011, RP_EXIT_PROTO,	  "this is an rdmapush file receiver, not a ping server") \
	XX(NOTPUSH,	-2012, RP_EXIT_PROTO,	  "this is an rdmapush ping server, not a file receiver") \
	XX(CTRLCLOSED,	-2101, RP_EXIT_TRANSPORT, "peer closed the control connection") \
	XX(TIMEOUT,	-2102, RP_EXIT_TRANSPORT, "timed out")			\
	XX(WC,		-2103, RP_EXIT_TRANSPORT, "RDMA work completion failed") \
	XX(NODEV,	-2104, RP_EXIT_TRANSPORT, "no usable RDMA device")	\
	XX(NOGID,	-2105, RP_EXIT_TRANSPORT, "no GID matches the local address") \
	XX(VERBS,	-2106, RP_EXIT_TRANSPORT, "RDMA verbs call failed")	\
	XX(RESOLVE,	-2107, RP_EXIT_TRANSPORT, "cannot resolve host")	\
	XX(PEERIO,	-2108, RP_EXIT_TRANSPORT, "peer failed to store the file") \
	XX(INTERRUPTED,	-2109, RP_EXIT_TRANSPORT, "interrupted by signal")	\
	XX(PEERRDMA,	-2110, RP_EXIT_TRANSPORT, "RDMA failure on the peer") \
	XX(PEERABORT,	-2111, RP_EXIT_TRANSPORT, "the peer aborted the transfer") \
	XX(EXIST,	-2201, RP_EXIT_POLICY,	  "file exists (use --force on the receiver)") \
	XX(BADNAME,	-2202, RP_EXIT_POLICY,	  "file name not allowed")	\
	XX(NOSPACE,	-2203, RP_EXIT_POLICY,	  "not enough free space")	\
	XX(LIMIT,	-2204, RP_EXIT_POLICY,	  "request exceeds a limit")	\
	XX(NOTREG,	-2205, RP_EXIT_IO,	  "not a regular file")		\
	XX(INTERNAL,	-2301, RP_EXIT_INTERNAL,  "internal error")		\
	XX(CONFIG,	-2401, RP_EXIT_USAGE,	  "configuration error")	\
	XX(LISTEN,	-2402, RP_EXIT_LISTEN,	  "cannot listen on the port")

enum rp_err {
#define RP_ERR_ENUM(name, val, ex, msg) RP_E##name = (val),
	RP_ERR_MAP(RP_ERR_ENUM)
#undef RP_ERR_ENUM
};

/* Message for rc (an RP_E* value or -errno); never NULL. Public, as is
 * rp_err_name(): rdmapush.h declares both. */
RP_EXPORT const char *rp_strerror(int rc);
/* Symbolic name ("RP_ETIMEOUT", "ENOENT", ...); never NULL. */
RP_EXPORT const char *rp_err_name(int rc);
/* Exit code for rc: 0 for rc >= 0, else an enum rp_exit value. */
int rp_err_exit_code(int rc);
/*
 * What to do about rc, one short sentence for a "hint:" line after the
 * error, or NULL where there is nothing general to say. Not a column of
 * RP_ERR_MAP: most errors have none, and some errno values have one.
 */
const char *rp_err_hint(int rc);
/*
 * The same, for rc whose cause is known: the errno value of the call
 * that failed, as its detection site gave it with RP_ERR_WHY (main
 * reads it back with rp_trace_held_cause()). A cause with no row of its
 * own gets rc's general hint; cause 0 is rp_err_hint(rc).
 */
const char *rp_err_hint_for(int rc, int cause);
/*
 * The same for a push of nsources SOURCEs, a tree if recursive (0: not
 * a push, the receiver's side): --as NAME names one SOURCE that is not
 * a tree, so only such a push is told to use it.
 */
const char *rp_err_hint_push(int rc, int cause, int nsources,
			     bool recursive);

#endif
