// SPDX-License-Identifier: MIT
/* The receiver's server: listen, accept, one forked child per transfer
 * (capped by -m), reap, refuse when busy, stop on a signal. A child
 * serves exactly one transfer (session_recv.c) and returns its result
 * to main; the server itself never opens a device. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmapush/auth.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/server.h"
#include "rdmapush/trace.h"

struct server {
	const struct rp_opts *o;
	int lfd;
	int dirfd;
	const uint8_t *psk;
	uint8_t key[RP_PSK_LEN];
	pid_t kids[RP_MAX_XFERS];
	int nkids;
	bool is_child;		/* a forked child, done with its transfer */
	struct rp_outcome *out;
};

static void reap(struct server *sv, bool block)
{
	for (int i = 0; i < sv->nkids;) {
		pid_t p = waitpid(sv->kids[i], NULL, block ? 0 : WNOHANG);

		if (p == sv->kids[i] || (p < 0 && errno != EINTR)) {
			sv->kids[i] = sv->kids[--sv->nkids];
			continue;
		}
		if (p < 0)
			continue;	/* interrupted: wait for it again */
		i++;
	}
}

/* Over the cap: say so at once rather than leave the sender waiting. */
static void refuse_busy(struct server *sv, int fd, const char *peer)
{
	RP_INFO("refusing %s: %d transfers in progress (-m %d)", peer,
		sv->nkids, sv->o->max_transfers);
	rp_session_refuse(sv->o, fd, peer, RP_EBUSY);
}

static int serve(struct server *sv, int fd, const char *peer)
{
	return rp_session_recv_one(sv->o, sv->psk, sv->dirfd, fd, peer,
				   sv->out);
}

/*
 * Serve one connection in a child process, so transfers run side by side
 * and whatever one of them holds (device context, registered memory,
 * files) is gone with it. In the parent: 0. In the child: sets
 * sv->is_child and returns the transfer's result for main to exit with.
 */
static int spawn(struct server *sv, int fd, const char *peer)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		RP_ERR("fork: %s", strerror(errno));
		refuse_busy(sv, fd, peer);
		return 0;
	}
	if (pid == 0) {
		sv->is_child = true;
		rp_ctrl_close(&sv->lfd);
		return serve(sv, fd, peer);
	}
	rp_ctrl_close(&fd);
	sv->kids[sv->nkids++] = pid;
	return 0;
}

static int serve_loop(struct server *sv)
{
	while (!rp_session_stop) {
		char peer[80];
		int fd, rc;

		rc = rp_ctrl_accept(sv->lfd, &fd, peer, sizeof(peer));
		if (rc == -EINTR)
			continue;
		if (rc)
			return rc;
		if (sv->o->once)
			return serve(sv, fd, peer);
		reap(sv, false);
		if (sv->nkids >= sv->o->max_transfers) {
			refuse_busy(sv, fd, peer);
			continue;
		}
		rc = spawn(sv, fd, peer);
		if (sv->is_child)
			return rc;
	}
	return 0;
}

/* Stop: tell each transfer to abort (it removes its temporary file). */
static void stop_children(struct server *sv)
{
	reap(sv, false);
	if (!sv->nkids)
		return;
	RP_INFO("signal %d: stopping %d transfer(s)", (int)rp_session_stop,
		sv->nkids);
	for (int i = 0; i < sv->nkids; i++)
		kill(sv->kids[i], SIGTERM);
	reap(sv, true);
}

int rp_server_run(const struct rp_opts *o, struct rp_outcome *out)
{
	struct server sv = { .o = o, .lfd = -1, .dirfd = -1, .out = out };
	int rc;

	rp_session_signals();
	if (o->psk_file) {
		rc = rp_auth_load(o->psk_file, sv.key);
		if (rc)
			return rc;
		sv.psk = sv.key;
	}
	rc = rp_fileio_dir_open(o->dir, &sv.dirfd);
	if (rc)
		return rc;
	/* Fail now, naming -o, not when the first sender arrives. */
	rc = rp_fileio_dir_probe(sv.dirfd, o->dir);
	if (rc)
		goto out_dir;
	rp_fileio_clean_stale(sv.dirfd);
	rc = rp_ctrl_listen(o->bind_addr, o->port, &sv.lfd);
	if (rc)
		goto out_dir;
	RP_INFO("listening on port %u, writing into %s", o->port, o->dir);
	rc = serve_loop(&sv);
	if (sv.is_child)
		goto out_dir;	/* its one transfer's result, for main */
	if (rp_session_stop && !o->once) {
		stop_children(&sv);
		RP_INFO("stopped by signal %d", (int)rp_session_stop);
		rc = 0;
	}
	reap(&sv, true);
	rp_ctrl_close(&sv.lfd);
out_dir:
	close(sv.dirfd);
	return rc;
}
