/* SPDX-License-Identifier: MIT */
/*
 * One transfer's state machines. Sender: prepare -> connect -> AUTH ->
 * HELLO/MR -> RTR/RTS -> chunked writes under credit -> FIN -> ACK.
 * Receiver: AUTH -> HELLO -> checks -> file, verbs, ring -> MR -> land
 * chunks, give credit -> FIN -> verify, fsync, rename -> ACK. Owns
 * ordering and teardown. The server (accept, fork) is server.h.
 */
#ifndef RDMAPUSH_SESSION_H
#define RDMAPUSH_SESSION_H

#include "rdmapush/export.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdmapush/config.h"
#include "rdmapush/proto.h"

/* Where a transfer is; named in errors, traces and --json. */
#define RP_PHASE_MAP(XX)						\
	XX(PREPARE, "PREPARE")	/* sender: source file, key */		\
	XX(CONNECT, "CONNECT")	/* sender: TCP connect */		\
	XX(AUTH, "AUTH")	/* --psk challenge and proofs */	\
	XX(HELLO, "HELLO")	/* HELLO out, MR back */		\
	XX(SETUP, "SETUP")	/* file, verbs, ring, RTR/RTS */	\
	XX(DATA, "DATA")	/* chunks under credit */		\
	XX(FIN, "FIN")		/* FIN, checksum, the receiver's commit */ \
	XX(ACK, "ACK")		/* receiver: telling the sender */	\
	XX(DONE, "DONE")

enum rp_phase {
#define RP_PHASE_ENUM(name, text) RP_PHASE_##name,
	RP_PHASE_MAP(RP_PHASE_ENUM)
#undef RP_PHASE_ENUM
	RP_PHASE_MAX
};

/* "DATA", ...; never NULL. */
const char *rp_phase_name(enum rp_phase p);

/*
 * One host of a chain push, as the sender heard of it: hosts[0] is the
 * first receiver (the session's own result), the others as their HOST
 * messages said, or not reached.
 */
struct rp_host_result {
	const char *host;	/* as the chain names it */
	uint16_t port;
	bool reached;		/* false: no word of it (one before failed) */
	int rc;			/* 0, or why it failed */
	uint64_t files;		/* entries stored */
	uint64_t failed;	/* entries that failed */
	uint64_t bytes;		/* bytes stored */
	const char *why;	/* its failure in its own words (raw peer
				 * text), or "" */
};

/*
 * What a transfer reports at its end, to the rp_hooks report hook (the
 * tool prints it as a summary line or as --json).
 */
struct rp_report {
	const char *role;	/* "send" or "recv" */
	const char *name;	/* the one entry's path, NULL for several */
	const char *peer;	/* "addr:port" */
	uint64_t bytes;		/* in the files stored */
	uint64_t files;		/* entries stored */
	uint64_t failed;	/* entries that failed */
	uint64_t skipped;	/* entries not sent (symlinks, devices...) */
	uint64_t up_to_date;	/* --update: entries the receiver had */
	/* Data bytes moved in this session (a resumed file's rest only). */
	uint64_t data_bytes;
	double seconds;		/* the whole session, connecting included */
	/* The data alone: the sender's first chunk posted to the receiver's
	 * credit for its last (on the receiver, first chunk landed to last):
	 * what perftest's bandwidth covers. 0 without data. */
	double data_seconds;
	uint8_t csum[RP_CSUM_LEN];
	bool have_csum;
	int rc;			/* 0 or the error */
	int exit_code;		/* the process's exit status for rc */
	const char *phase;	/* where it ended: "DONE", "DATA", ... */
	uint32_t local_qpn;
	uint32_t remote_qpn;
	const char *gid;	/* GID used, text */
	int gid_index;
	uint32_t chunk;
	uint32_t window;
	uint32_t reconnects;	/* link outages ridden out (--retry-for) */
	/* A chain push's sender: every host's result, in chain order
	 * (NULL, 0 for one host). */
	const struct rp_host_result *hosts;
	uint32_t nhosts;
};

/* How far a transfer got, for the caller's one-line verdict. */
struct rp_outcome {
	enum rp_phase phase;	/* the phase it ended in (DONE on success) */
	uint64_t done;		/* chunks the receiver has taken (credit) */
	uint64_t failed;	/* entries that failed */
	char peer[80];		/* "addr:port" of the peer, "" before one */
	/* A chain push that got through: of its nhosts hosts, how many
	 * failed or were not reached, and their "host:port"s. */
	uint32_t nhosts;
	uint32_t hosts_failed;
	char failed_hosts[200];
};

/*
 * A push's checks that need nothing remote, for before the device probe
 * and the connection: the sources' usage (rp_walk_open), that at least
 * one source can be sent (rp_walk_check) and the --psk key file. 0 or
 * an error (already reported): RP_EUSAGE, RP_ECONFIG, -ENOMEM.
 * rp_session_send makes them again, before it connects.
 */
int rp_session_send_check(const struct rp_config *o)
	__attribute__((warn_unused_result));
/*
 * Push o->file to o->host:o->port. 0 or an error (already reported);
 * *out (may be NULL) says where it stopped.
 */
int rp_session_send(const struct rp_config *o, struct rp_outcome *out)
	__attribute__((warn_unused_result));
/*
 * The same over a control connection that is already open (fd, owned
 * from here on and closed), to the peer named peer (for messages).
 */
int rp_session_send_fd(const struct rp_config *o, int fd, const char *peer,
		       struct rp_outcome *out)
	__attribute__((warn_unused_result));
/*
 * The receiver's admission hook, asked once per connection when the
 * sender has passed its handshake (AUTH with --psk, then a HELLO) and
 * before anything is opened for it (file, device, ring). admit returns
 * 0 to go on with a transfer slot, or an error already reported:
 * RP_EBUSY (the sender is told the receiver is busy), RP_EINTERRUPTED.
 */
struct rp_admission {
	int (*admit)(void *ctx, const char *peer);
	void *ctx;
};

/*
 * Receive exactly one transfer on an accepted control connection (fd,
 * owned and closed), into the directory dirfd (borrowed). psk is the
 * loaded --psk key (RP_PSK_LEN bytes) or NULL. adm is asked for a
 * transfer slot after the handshake (NULL: always granted). Until then
 * the handshake deadline applies: min(--timeout, RP_HANDSHAKE_SECS) from
 * the call, not per message. 0 or an error (already reported, and told
 * to the peer where it can still hear it); nothing but a complete,
 * verified file is ever left in the directory.
 */
int rp_session_recv_one(const struct rp_config *o, const uint8_t *psk,
			int dirfd, int fd, const char *peer,
			const struct rp_admission *adm,
			struct rp_outcome *out)
	__attribute__((warn_unused_result));

/*
 * Tell the peer on fd (owned, closed) why we will not serve it, or stop
 * (rc): an ERR, best effort and briefly: a busy server must not wait on
 * anyone.
 */
void rp_session_refuse(const struct rp_config *o, int fd, const char *peer,
		       int rc);

/*
 * Seconds a receiver's connection has, from accept, to finish its
 * handshake (AUTH with --psk, a valid HELLO): RP_HANDSHAKE_SECS, or
 * --timeout if shorter.
 */
int rp_session_handshake_secs(const struct rp_config *o);

/*
 * The exit status for a result rc: 128 + the signal when a stop signal
 * interrupted it (130, 143), else rp_err_exit_code(rc).
 */
int rp_session_exit_code(int rc);

/* Set by SIGINT/SIGTERM (the signal number); polled by every wait, on
 * any thread. Atomic, not volatile sig_atomic_t: that is safe against a
 * signal handler on the same thread only, and a store on one thread (a
 * test's hook, the handler run wherever the kernel chose) read on
 * another is a data race. Every plain read is an atomic load. */
extern _Atomic int rp_session_stop;
/* Install the SIGINT/SIGTERM handlers that set rp_session_stop. */
void rp_session_signals(void);

#endif
