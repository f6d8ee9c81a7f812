/* SPDX-License-Identifier: MIT */
/* Internal to the public API (api.c, api_recv.c): what a push and a
 * receiver share, from struct rp_params to the results they hand back. */
#ifndef RDMAPUSH_API_INT_H
#define RDMAPUSH_API_INT_H

#include <stdbool.h>

#include "rdmapush.h"
#include "rdmapush/config.h"
#include "rdmapush/session.h"

/* One handle's session: its settings, callbacks and results. */
struct api_run {
	struct rp_params p;	/* the caller's, completed with defaults */
	struct rp_config cfg;	/* what the session reads */
	struct rp_hooks hooks;	/* cfg.hooks: into the callbacks below */
	double last_progress;	/* rp_now() of the last on_progress */
	struct rp_summary sum;
	struct rp_entry *entries;	/* names owned (strdup) */
	size_t nentries, cap;
	bool ran;
};

/*
 * Read p (its size's worth: see rdmapush.h) into run, for side "send" or
 * "recv": 0, or -EINVAL (said on stderr, naming the field).
 */
int rp_api_run_init(struct api_run *run, const struct rp_params *p,
		 const char *role);
/* Before the session: trace settings and the event callback. */
void rp_api_run_start(struct api_run *run, const char *role);
/* After it: the summary from rc and out, the event callback removed. */
int rp_api_run_end(struct api_run *run, int rc, const struct rp_outcome *out);
void rp_api_run_free(struct api_run *run);

#endif
