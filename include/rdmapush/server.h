/* SPDX-License-Identifier: MIT */
/* The receiver's server: listen, accept, one forked child per transfer
 * (capped by -m), reap, refuse when busy, stop on a signal. */
#ifndef RDMAPUSH_SERVER_H
#define RDMAPUSH_SERVER_H

#include "rdmapush/export.h"

#include "rdmapush/config.h"
#include "rdmapush/session.h"

/*
 * A receiver's checks that need nothing remote, for before the device
 * probe: the --psk key file, and the directory (-o) exists and files can
 * be made in it. 0 or an error (already reported). rp_server_run makes
 * them again as it starts.
 */
int rp_server_check(const struct rp_config *o)
	__attribute__((warn_unused_result));
/*
 * Serve until SIGINT/SIGTERM (0), or one transfer with --once (its
 * result). Failures of one transfer never stop the server. In a forked
 * child this returns that child's one transfer result, with *out filled,
 * and main exits with it. 0 or an error (already reported).
 */
int rp_server_run(const struct rp_config *o, struct rp_outcome *out)
	__attribute__((warn_unused_result));

#endif
