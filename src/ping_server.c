// SPDX-License-Identifier: MIT
/* The ping server's loop: listen, accept, one forked child per client
 * (so an idle connection delays nobody), the receiver's admission caps
 * (admit.c) on connections in their handshake, a slot for each client
 * past its HELLO (RP_PING_MAX_CLIENTS at once), a safety net for
 * children past their deadlines, and --once, which only a real ping
 * ends. The ping itself: ping.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmapush/admit.h"
#include "rdmapush/auth.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/forks.h"
#include "rdmapush/ping.h"
#include "rdmapush/session.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

#define MAX_KIDS	(RP_MAX_PENDING + RP_PING_MAX_CLIENTS)
/* The longest wait between two looks at the stop flag and the
 * children's deadlines. */
#define TICK_MS		1000
/* accept() out of descriptors or memory: retry after this long. */
#define BACKOFF_MS	100
/* Connections taken per wake-up at most. */
#define ACCEPT_BURST	16

/* On a child's admission socket (SOCK_SEQPACKET: one message each):
 * the child asks for a slot once its client is past its HELLO (forks.h);
 * the server grants or refuses; the child ends with a report. */
#define REPORT		'R'

/* What came of a child's client: its first error held (the cause) with
 * its hint, for the server to log, or, with --once, to fail with. */
struct report {
	char tag;		/* REPORT */
	bool hello;		/* a real ping: past AUTH and HELLO */
	int32_t rc;
	char text[1024];
	char hint[RP_HELD_HINT_MAX];
};

struct psrv {
	const struct rp_config *o;
	int lfd;
	uint8_t key[RP_PSK_LEN];
	const uint8_t *psk;
	struct rp_admit adm;
	struct rp_kid kids[MAX_KIDS];
	struct rp_forks forks;	/* of kids */
	/* Rate limit of the log of failed handshakes and refusals. */
	struct rp_quota quota;
	/* --once: the client with the slot, and its result once known. */
	pid_t one;
	bool one_done;
	struct report one_rep;
	/* In a forked child: */
	bool is_child;
	int chan;
};

/* Nothing to do but be there: the poll it interrupts reaps. */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* SIGCHLD interrupts our poll (no SA_RESTART): a child's place is free
 * at once, not at the next tick. */
static void catch_children(bool on)
{
	struct sigaction sa = {
		.sa_handler = on ? on_sigchld : SIG_DFL,
		.sa_flags = SA_NOCLDSTOP,
	};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

/* ---- in a child ---- */

/* The admission hook: ask the server for a slot, and wait for it. */
static int ask_slot(void *ctx, const char *peer)
{
	struct psrv *sv = ctx;

	return rp_forks_ask(sv->chan, "ping slot", "the ping server",
			    "a slot", peer);
}

/* Serve the one client on fd; then tell the server what came of it. */
static void child(struct psrv *sv, int chan, int fd, const char *peer)
{
	struct rp_admission adm = { .admit = ask_slot, .ctx = sv };
	struct rp_ping_serve s = {
		.psk = sv->psk, .adm = &adm, .max_secs = RP_PING_MAX_SECS,
	};
	struct report r = { .tag = REPORT };
	const char *held, *hint;

	sv->is_child = true;
	sv->chan = chan;
	catch_children(false);
	rp_ctrl_close(&sv->lfd);
	r.rc = rp_ping_serve_fd(sv->o, &s, fd, peer);
	r.hello = s.hello;
	/* A process forked by a server holds its own first error (trace.h):
	 * the server says it, once and rate-limited where it should be. */
	held = rp_trace_held_error();
	hint = rp_trace_held_hint();
	snprintf(r.text, sizeof(r.text), "%s", held ? held : "");
	snprintf(r.hint, sizeof(r.hint), "%s", hint ? hint : "");
	/* If the server is gone, nobody is left to tell. */
	(void)!send(chan, &r, sizeof(r), MSG_NOSIGNAL);
	rp_ctrl_close(&sv->chan);
}

/* ---- in the server ---- */

/* The line after a window of failed handshakes and refusals not all
 * shown. */
static void say_hidden(int n)
{
	RP_INFO("%d more failed ping handshake%s or refusal%s not shown", n,
		rp_s(n), rp_s(n));
}

/* A child is reaped: --once's one gone without its report (killed) has
 * no result to give. */
static void gone(void *ctx, struct rp_kid *k)
{
	struct psrv *sv = ctx;

	if (k->pid == sv->one && !sv->one_done) {
		sv->one_done = true;
		sv->one_rep.rc = RP_EINTERNAL;
		snprintf(sv->one_rep.text, sizeof(sv->one_rep.text),
			 "the process serving %s ended without a result",
			 k->peer);
	}
}

/* Stop taking connections: --once has its ping. */
static void stop_listening(struct psrv *sv)
{
	rp_ctrl_close(&sv->lfd);
}

/* A child's client is past its HELLO: a slot, or a refusal. */
static void grant(struct psrv *sv, struct rp_kid *k)
{
	enum rp_admit_verdict v = rp_admit_promote(&sv->adm, k->pid);
	char c = v ? RP_SLOT_BUSY : RP_SLOT_GRANTED;
	char why[160];

	if (v) {
		k->refused = true;
		if (rp_quota_ok(&sv->quota))
			RP_INFO("refusing %s: %s", k->peer,
				rp_admit_why(&sv->adm, v,
					     rp_admit_addr_of(&sv->adm, k->pid),
					     why, sizeof(why)));
	} else {
		RP_EV("server", "server.admit", "{peer} passed its "
		      "handshake: ping {n} of {max}", EV_S("peer", k->peer),
		      EV_I("n", rp_admit_xfers(&sv->adm)),
		      EV_I("max", sv->adm.max_xfers));
		k->kill_at = rp_now() + RP_PING_MAX_SECS + sv->o->timeout +
			     RP_FORKS_GRACE_S;
		if (sv->o->once) {
			sv->one = k->pid;
			stop_listening(sv);
		}
	}
	/* If it is gone, it is reaped soon; nothing to undo. */
	(void)!send(k->chan, &c, 1, MSG_NOSIGNAL);
}

/* What came of a child's client. */
static void take_report(struct psrv *sv, struct rp_kid *k,
			const struct report *r)
{
	if (k->pid == sv->one) {
		sv->one_rep = *r;
		sv->one_done = true;
	} else if (!r->hello) {
		/* A probe, garbage, a failed AUTH: no ping, and no
		 * flood of lines either. */
		if (r->rc && r->text[0] && rp_quota_ok(&sv->quota))
			RP_INFO("no ping: %s", r->text);
		else if (r->rc && rp_quota_ok(&sv->quota))
			RP_INFO("no ping from %s: %s", k->peer,
				rp_strerror(r->rc));
	} else if (r->rc && !k->refused) {
		if (r->hint[0])
			RP_ERR_HINT(r->hint, "%s", r->text[0] ? r->text :
				    rp_strerror(r->rc));
		else
			RP_ERR("%s", r->text[0] ? r->text :
			       rp_strerror(r->rc));
	}
}

/* A message on k's admission socket, or its end. */
static void hear(struct psrv *sv, struct rp_kid *k)
{
	struct report r;
	ssize_t n = recv(k->chan, &r, sizeof(r), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 1 && r.tag == RP_SLOT_ASK) {
		grant(sv, k);
		return;
	}
	if (n == (ssize_t)sizeof(r) && r.tag == REPORT) {
		r.text[sizeof(r.text) - 1] = '\0';
		r.hint[sizeof(r.hint) - 1] = '\0';
		take_report(sv, k, &r);
	}
	/* Its end, or nothing it should have said: its place is freed
	 * when it is reaped. */
	rp_ctrl_close(&k->chan);
}

/* The safety net's line: each child ends itself at its deadline; one
 * that has not, well after it, is killed. */
static void say_stale(const struct rp_kid *k, double now)
{
	(void)now;
	RP_INFO("%s: still connected well past its deadline; killing its "
		"process %d", k->peer, (int)k->pid);
}

/* Over a cap: say so at once, rather than leave the client waiting. */
static void refuse(struct psrv *sv, int fd, const char *peer,
		   const char *why)
{
	if (rp_quota_ok(&sv->quota))
		RP_INFO("refusing %s: %s", peer, why);
	rp_session_refuse(sv->o, fd, peer, RP_EBUSY);
}

/* Serve fd in a child. In the child: true (it is done); else false. */
static bool spawn(struct psrv *sv, int fd, const char *peer,
		  const char *addr)
{
	char why[96];
	pid_t pid;
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp)) {
		snprintf(why, sizeof(why), "socketpair: %s", strerror(errno));
		refuse(sv, fd, peer, why);
		return false;
	}
	pid = rp_forks_spawn(&sv->forks, &fd, sp, peer, addr, rp_now(), why,
			     sizeof(why));
	if (pid < 0)
		refuse(sv, fd, peer, why);
	if (pid)
		return false;
	child(sv, sp[1], fd, peer);
	return true;
}

/* One queued connection, if any: *more says whether to look again. 0,
 * or a fatal accept() failure (reported). */
static int take(struct psrv *sv, bool *more)
{
	char peer[80], addr[RP_ADMIT_ADDR_MAX], why[160];
	enum rp_admit_verdict v;
	int fd = -1;
	int rc = rp_ctrl_accept(sv->lfd, &fd, peer, sizeof(peer));

	*more = false;
	if (rc == -EAGAIN)
		return 0;
	if (rc) {
		RP_ERR("accept: %s", strerror(-rc));
		if (rc != -EMFILE && rc != -ENFILE && rc != -ENOBUFS &&
		    rc != -ENOMEM)
			return rc;
		/* Transient: the queue waits meanwhile. */
		(void)poll(NULL, 0, BACKOFF_MS);
		return 0;
	}
	*more = true;
	RP_EV("ctrl", "accept", "ping client {peer} connected",
	      EV_S("peer", peer));
	rp_admit_addr(peer, addr, sizeof(addr));
	v = rp_admit_check(&sv->adm, addr);
	if (!v && sv->forks.n >= MAX_KIDS)
		v = RP_ADMIT_PENDING_FULL;
	if (v) {
		refuse(sv, fd, peer,
		       rp_admit_why(&sv->adm, v, addr, why, sizeof(why)));
		return 0;
	}
	if (spawn(sv, fd, peer, addr))
		sv->is_child = true;
	return 0;
}

/* One wait, and what it woke us for. 0 or a fatal error (reported). */
static int step(struct psrv *sv)
{
	struct pollfd pfd[1 + MAX_KIDS];
	struct rp_kid *who[1 + MAX_KIDS];
	bool incoming = false, more = true;
	int n = rp_forks_watch(&sv->forks, sv->lfd, pfd, who);
	int rc = poll(pfd, (nfds_t)n, TICK_MS);

	if (rc < 0 && errno != EINTR) {
		rc = -errno;
		RP_ERR("poll: %s", strerror(-rc));
		return rc;
	}
	for (int i = 0; rc > 0 && i < n; i++) {
		if (!pfd[i].revents)
			continue;
		if (who[i])
			hear(sv, who[i]);
		else
			incoming = true;
	}
	rp_forks_reap(&sv->forks);
	rp_forks_kill_stale(&sv->forks, rp_now());
	rc = 0;
	for (int i = 0; incoming && more && !rc && !rp_session_stop &&
	     !sv->is_child && sv->lfd >= 0 && i < ACCEPT_BURST; i++)
		rc = take(sv, &more);
	return rc;
}

/* Until a stop signal, or --once's ping is over; in a child, until its
 * client is served. */
static int serve(struct psrv *sv)
{
	int rc = 0;

	while (!rc && !rp_session_stop && !sv->is_child &&
	       !(sv->one_done && !sv->forks.n))
		rc = step(sv);
	return rc;
}

/* After the loop, in the server: stop every child on a signal, wait for
 * them all, and give --once's result. */
static int finish(struct psrv *sv, int rc)
{
	if (rp_session_stop) {
		rp_forks_reap(&sv->forks);
		if (sv->forks.n)
			RP_INFO("signal %d: stopping %d ping client%s",
				(int)rp_session_stop, sv->forks.n,
				rp_s(sv->forks.n));
		rp_forks_stop(&sv->forks);
	}
	rp_forks_wait(&sv->forks);
	if (rc || !sv->o->once)
		return rc;
	if (!sv->one_done)
		return RP_EINTERRUPTED;	/* stopped before any ping */
	rc = sv->one_rep.rc;
	/* The child held its cause: ours now, for main's failure line. */
	if (rc && sv->one_rep.hint[0])
		RP_ERR_HINT(sv->one_rep.hint, "%s", sv->one_rep.text);
	else if (rc && sv->one_rep.text[0])
		RP_ERR("%s", sv->one_rep.text);
	return rc;
}

int rp_ping_server(const struct rp_config *o)
{
	struct psrv sv = { .o = o, .lfd = -1, .chan = -1 };
	int rc = 0;

	rp_session_signals();
	/* A key file that will not do stops us before we listen. */
	if (o->psk_file)
		rc = rp_auth_load(o->psk_file, sv.key);
	if (rc)
		return rc;
	if (o->psk_file)
		sv.psk = sv.key;
	rc = rp_ctrl_listen(o->bind_addr, o->port, &sv.lfd);
	if (!rc)
		rc = rp_sys_nonblock(sv.lfd, "listening socket");
	if (rc)
		goto out;
	/* --once: one ping only, whoever passes its handshake first. */
	rp_admit_init(&sv.adm, o->once ? 1 : RP_PING_MAX_CLIENTS,
		      RP_MAX_PENDING, o->max_per_addr);
	if (o->once)
		RP_INFO("ping server listening on port %u (once: the first "
			"client past its handshake)", o->port);
	else
		RP_INFO("ping server listening on port %u (up to %d clients "
			"at once)", o->port, sv.adm.max_xfers);
	/* Each client's errors are said as they come (each child holds
	 * its own); with --once, the ping's is the cause main names. */
	if (!o->once)
		rp_trace_hold_stop();
	sv.forks = (struct rp_forks){
		.kids = sv.kids, .max = MAX_KIDS, .adm = &sv.adm,
		.kill_after = rp_session_handshake_secs(o) + RP_FORKS_GRACE_S,
		.die_with_server = true, .say_stale = say_stale, .gone = gone,
		.ctx = &sv,
	};
	rp_quota_init(&sv.quota, say_hidden);
	catch_children(true);
	rc = serve(&sv);
	if (sv.is_child)
		goto out;	/* its client is served; main exits */
	rc = finish(&sv, rc);
	catch_children(false);
	/* A stop signal ends a server of many clients well. */
	if (rp_session_stop && !o->once) {
		RP_INFO("stopped by signal %d", (int)rp_session_stop);
		rc = 0;
	}
out:
	rp_ctrl_close(&sv.lfd);
	sodium_memzero(sv.key, sizeof(sv.key));
	return rc;
}
