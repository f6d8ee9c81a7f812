/* SPDX-License-Identifier: MIT */
/*
 * The two state machines. Sender: connect -> open verbs -> HELLO -> MR ->
 * RTR/RTS -> chunked writes under credit -> FIN -> ACK. Receiver: accept
 * -> HELLO -> checks -> open verbs, ring, file -> MR -> land chunks, give
 * credit -> FIN -> verify, fsync, rename -> ACK. Owns ordering and teardown.
 */
#ifndef RDMAPUSH_SESSION_H
#define RDMAPUSH_SESSION_H

#include "rdmapush/opts.h"

/* Push o->file to o->host. 0 or an error (already reported). */
int rp_session_send(const struct rp_opts *o);
/*
 * Serve transfers until SIGINT/SIGTERM (0), or once with --once (the
 * transfer's result). Failures of one transfer never stop the server.
 */
int rp_session_recv(const struct rp_opts *o);

#endif
