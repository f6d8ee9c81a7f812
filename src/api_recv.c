// SPDX-License-Identifier: MIT
/* The public API's receiver (rdmapush.h): rp_server_run() behind a
 * handle, and a stop that another thread or a signal handler can call. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rdmapush.h"
#include "rdmapush/err.h"
#include "rdmapush/preflight.h"
#include "rdmapush/server.h"
#include "api_int.h"

struct rp_recv {
	struct api_run run;
	/* Written by rp_recv_stop(), maybe in a signal handler. */
	volatile sig_atomic_t stopping;
	volatile sig_atomic_t running;	/* rp_recv_run() is in the server */
	pthread_t thread;		/* the one running it */
};

int rp_recv_new(struct rp_recv **out, const struct rp_params *p)
{
	struct rp_recv *h = calloc(1, sizeof(*h));
	int rc;

	if (!h)
		return -ENOMEM;
	rc = rp_api_run_init(&h->run, p, "recv");
	if (rc) {
		free(h);
		return rc;
	}
	*out = h;
	return 0;
}

int rp_recv_run(struct rp_recv *h)
{
	struct rp_outcome out = { .phase = RP_PHASE_MAX };
	pid_t me = getpid();
	int rc;

	if (h->run.ran)
		return -EINVAL;
	rp_api_run_start(&h->run, "recv");
	if (h->stopping)
		return rp_api_run_end(&h->run, RP_EINTERRUPTED, &out);
	/* The handlers first: from here on a stop's SIGTERM only sets the
	 * flag every wait of the server and the session polls. */
	rp_session_signals();
	rp_session_stop = 0;
	h->thread = pthread_self();
	h->running = 1;
	/* A stop that came before running was set: not missed. */
	if (h->stopping)
		rp_session_stop = SIGTERM;
	rc = rp_preflight(&h->run.cfg, RP_PREFLIGHT_RECV);
	if (!rc)
		rc = rp_server_run(&h->run.cfg, &out);
	h->running = 0;
	/* Without once, each transfer runs in a forked child, which comes
	 * back here with its result: it ends as `rdmapush recv`'s do, and
	 * never returns into the caller's code. */
	if (getpid() != me) {
		fflush(NULL);
		_exit(rp_session_exit_code(rc));
	}
	return rp_api_run_end(&h->run, rc, &out);
}

void rp_recv_stop(struct rp_recv *h)
{
	/* Async-signal-safe: flags and pthread_kill() only. The signal
	 * wakes the server's ppoll() or the session's poll() in its thread. */
	h->stopping = 1;
	if (h->running) {
		rp_session_stop = SIGTERM;
		pthread_kill(h->thread, SIGTERM);
	}
}

const struct rp_summary *rp_recv_result(const struct rp_recv *h)
{
	return &h->run.sum;
}

size_t rp_recv_entries(const struct rp_recv *h, const struct rp_entry **list)
{
	*list = h->run.entries;
	return h->run.nentries;
}

void rp_recv_free(struct rp_recv *h)
{
	if (!h)
		return;
	rp_api_run_free(&h->run);
	free(h);
}
