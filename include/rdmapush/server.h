/* SPDX-License-Identifier: MIT */
/* The receiver's server: listen, accept, one forked child per transfer
 * (capped by -m), reap, refuse when busy, stop on a signal. */
#ifndef RDMAPUSH_SERVER_H
#define RDMAPUSH_SERVER_H

#include "rdmapush/export.h"

#include "rdmapush/config.h"
#include "rdmapush/session.h"

/*
 * Serve until SIGINT/SIGTERM (0), or one transfer with --once (its
 * result). Failures of one transfer never stop the server. In a forked
 * child this returns that child's one transfer result, with *out filled,
 * and main exits with it. 0 or an error (already reported).
 */
int rp_server_run(const struct rp_config *o, struct rp_outcome *out)
	__attribute__((warn_unused_result));

#endif
