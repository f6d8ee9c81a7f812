// SPDX-License-Identifier: MIT
/* The receiver's server: listen, accept, one forked child per connection,
 * admission (a transfer slot only once the sender has passed its
 * handshake, and caps on connections), reap, refuse when busy, stop on a
 * signal. A child serves exactly one connection (session_recv.c) and
 * returns its result to main; the server itself never opens a device. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rdmapush/admit.h"
#include "rdmapush/auth.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/forks.h"
#include "rdmapush/server.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

/* As many as admission entries: evicted ones stay until reaped. */
#define MAX_KIDS	RP_ADMIT_SLOTS
/* accept() out of descriptors or memory: retry after this long. */
#define BACKOFF_S	0.1
/* Connections taken per wake-up at most. */
#define ACCEPT_BURST	16
struct server {
	const struct rp_config *o;
	int lfd;
	int dirfd;
	const uint8_t *psk;
	uint8_t key[RP_PSK_LEN];
	struct rp_admit adm;
	struct rp_kid kids[MAX_KIDS];
	struct rp_forks forks;	/* of kids */
	sigset_t old_mask;	/* as we found it: children get it back */
	sigset_t wait_mask;	/* inside ppoll(): ours unblocked */
	double backoff_end;	/* accept() starved: not before this; or 0 */
	double next_sweep;	/* old partials and stale temporaries */
	bool starved;		/* said so; cleared once the queue is empty */
	bool drained;		/* accept() found the queue empty */
	int once_fd;		/* --once: the connection to serve here */
	char once_peer[80];
	/* --once: the session's config, without the report hooks until its
	 * connection has passed its handshake: what is no push reports
	 * nothing (no summary, no JSON object). */
	struct rp_config once_cfg;
	bool once_pushed;	/* the connection served passed it */
	/* The lines of connections that failed before their handshake. */
	struct rp_quota quota;
	/* In a forked child: */
	bool is_child;
	bool refused;		/* refused a slot; the server said why */
	bool asked;		/* for a slot: past its handshake */
	int chan;		/* its end of the admission socket */
	struct rp_outcome *out;
};

static volatile sig_atomic_t child_exited;

static void on_sigchld(int sig)
{
	(void)sig;
	child_exited = 1;
}

/*
 * Our signals are delivered only inside ppoll(), which unblocks them
 * atomically for its wait: a stop signal can no longer land between the
 * check of the stop flag and the wait, and be missed until the next
 * connection. SIGCHLD wakes us to reap at once.
 */
static void block_signals(struct server *sv)
{
	struct sigaction sa = {
		.sa_handler = on_sigchld,
		.sa_flags = SA_NOCLDSTOP,
	};
	sigset_t ours;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&ours);
	sigaddset(&ours, SIGINT);
	sigaddset(&ours, SIGTERM);
	sigaddset(&ours, SIGCHLD);
	sigprocmask(SIG_BLOCK, &ours, &sv->old_mask);
	/* Not an empty mask: what our parent blocked stays blocked. */
	sv->wait_mask = sv->old_mask;
	sigdelset(&sv->wait_mask, SIGINT);
	sigdelset(&sv->wait_mask, SIGTERM);
	sigdelset(&sv->wait_mask, SIGCHLD);
}

/* As we found them: a session relies on signals interrupting its waits. */
static void restore_signals(struct server *sv)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, NULL);
	sigprocmask(SIG_SETMASK, &sv->old_mask, NULL);
}

/* --------------------------------------------------------------------
 * In a child
 */

/* The admission hook: ask the server for a transfer slot, and wait for
 * its answer. */
static int ask_slot(void *ctx, const char *peer)
{
	struct server *sv = ctx;
	int rc;

	sv->asked = true;
	rc = rp_forks_ask(sv->chan, "transfer slot", "the server",
			  "a transfer slot", peer);
	if (rc && rc != RP_EBUSY)
		return rc;
	rp_ctrl_close(&sv->chan);
	sv->refused = rc == RP_EBUSY;
	return rc;
}

/* Serve the one connection fd; only what it needs stays open. */
static int child(struct server *sv, int chan, int fd, const char *peer)
{
	struct rp_admission adm = { .admit = ask_slot, .ctx = sv };
	int rc;

	sv->is_child = true;
	sv->chan = chan;
	restore_signals(sv);
	rp_ctrl_close(&sv->lfd);
	rc = rp_session_recv_one(sv->o, sv->psk, sv->dirfd, fd, peer, &adm,
				 sv->out);
	/* Failed before its handshake (a probe, garbage, a wrong key): said
	 * only as the server's rate limit allows, so that a crowd of them
	 * cannot flood the log. Not when stopping: nobody answers then. */
	if (rc && !sv->asked && rc != RP_EINTERRUPTED && !rp_session_stop &&
	    !rp_forks_may_say(sv->chan)) {
		rp_trace_hold_forget();
		rc = 0;
	}
	rp_ctrl_close(&sv->chan);
	/* Refused as busy: the server said why and the sender was told;
	 * no failure of this receiver. */
	return sv->refused ? 0 : rc;
}

/* --------------------------------------------------------------------
 * In the server: children and their slots
 */

/* The line after a window of refused, evicted or failed connections not
 * all said. */
static void say_hidden(int n)
{
	RP_INFO("%d more connection%s refused or failed before the handshake "
		"not shown", n, rp_s(n));
}

/* A child has passed its handshake (or closed its socket on exiting):
 * grant it a slot or refuse it. One request per child. */
static void answer(struct server *sv, struct rp_kid *k)
{
	enum rp_admit_verdict v;
	char c, why[160];
	ssize_t n = recv(k->chan, &c, 1, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == 1 && c == RP_SLOT_ASK) {
		v = rp_admit_promote(&sv->adm, k->pid);
		if (v)
			RP_INFO("refusing %s: %s", k->peer,
				rp_admit_why(&sv->adm, v,
					     rp_admit_addr_of(&sv->adm, k->pid),
					     why, sizeof(why)));
		else
			RP_EV("server", "server.admit", "{peer} passed its "
			      "handshake: transfer {n} of {max}",
			      EV_S("peer", k->peer),
			      EV_I("n", rp_admit_xfers(&sv->adm)),
			      EV_I("max", sv->adm.max_xfers));
		/* Past its handshake: the safety net lets it be. */
		if (!v)
			k->kill_at = 0;
		c = v ? RP_SLOT_BUSY : RP_SLOT_GRANTED;
		/* If it is gone, it is reaped soon; nothing to undo. */
		(void)!send(k->chan, &c, 1, MSG_NOSIGNAL);
	} else if (n == 1 && c == RP_SAY_ASK) {
		/* Failed before its handshake: it says so if we allow. */
		c = rp_quota_ok(&sv->quota) ? RP_SLOT_GRANTED : RP_SLOT_BUSY;
		(void)!send(k->chan, &c, 1, MSG_NOSIGNAL);
	}
	/* Else closed without asking: its process is exiting; it counts
	 * until it is reaped (rp_forks_forget). */
	rp_ctrl_close(&k->chan);
}

/* The safety net's line: each child closes itself at its handshake
 * deadline; one that has not, well after it, is killed. */
static void say_stale(const struct rp_kid *k, double now)
{
	RP_INFO("%s: still in its handshake %.0f s after connecting; "
		"killing its process %d", k->peer, now - k->since,
		(int)k->pid);
}

/* How long ppoll() may sleep: until the next kill or the end of a
 * back-off; NULL: until something happens. */
static struct timespec *next_wake(const struct server *sv, double now,
				  struct timespec *ts)
{
	double t = sv->backoff_end;
	double kill = rp_forks_next_kill(&sv->forks);

	if (kill > 0 && (t <= 0 || kill < t))
		t = kill;
	if (sv->next_sweep > 0 && (t <= 0 || sv->next_sweep < t))
		t = sv->next_sweep;
	if (t <= 0)
		return NULL;
	t = t > now ? t - now : 0;
	ts->tv_sec = (time_t)t;
	ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
	return ts;
}

/* While serving, as at start-up: partials past --partial-max-age go
 * (those a transfer writes now are locked, and young). Every hour, or
 * every --partial-max-age if shorter, but not more than once a minute. */
static void sweep_if_due(struct server *sv)
{
	double every = sv->o->partial_max_age;

	if (sv->next_sweep <= 0 || rp_now() < sv->next_sweep)
		return;
	rp_fileio_clean_stale(sv->dirfd, sv->o->partial_max_age);
	every = every < 60 ? 60 : every > 3600 ? 3600 : every;
	sv->next_sweep = rp_now() + every;
}

/* Stop: tell each child to abort (it removes its temporary file), and
 * wait for all of them. */
static void stop_children(struct server *sv)
{
	rp_forks_reap(&sv->forks);
	if (!sv->forks.n)
		return;
	RP_INFO("signal %d: stopping %d connection(s)", (int)rp_session_stop,
		sv->forks.n);
	rp_forks_stop(&sv->forks);
}

/* --------------------------------------------------------------------
 * In the server: connections
 */

/* Over a cap, or out of resources: say so at once, rather than leave
 * the sender waiting. */
static void refuse(struct server *sv, int fd, const char *peer,
		   const char *why)
{
	/* A crowd is refused by the dozen: said as failures are, at most
	 * RP_QUOTA_BURST lines a window. */
	if (rp_quota_ok(&sv->quota))
		RP_INFO("refusing %s: %s", peer, why);
	rp_session_refuse(sv->o, fd, peer, RP_EBUSY);
}

/* Serve fd in a child, which asks for its slot on sp[1] (both ends
 * owned). In the child: its result, with sv->is_child set. In the
 * server: 0. */
static int spawn(struct server *sv, int fd, const int sp[2],
		 const char *peer, const char *addr, double since)
{
	char why[96];
	pid_t pid = rp_forks_spawn(&sv->forks, &fd, sp, peer, addr, since,
				   why, sizeof(why));

	if (pid < 0)
		refuse(sv, fd, peer, why);
	if (pid == 0)
		return child(sv, sp[1], fd, peer);
	return 0;
}

/*
 * accept() or the socketpair before it failed: out of descriptors or
 * memory is transient (new connections wait in the queue meanwhile, and
 * we say so once, not once per retry); anything else stops the server.
 */
static int take_failed(struct server *sv, const char *call, int rc)
{
	switch (-rc) {
	case EMFILE:
	case ENFILE:
	case ENOBUFS:
	case ENOMEM:
		if (!sv->starved)
			RP_INFO("%s: %s; new connections wait until some "
				"close (retrying every %.0f ms)", call,
				strerror(-rc), BACKOFF_S * 1000);
		sv->starved = true;
		sv->backoff_end = rp_now() + BACKOFF_S;
		return 0;
	default:
		RP_ERR("%s: %s", call, strerror(-rc));
		return rc;
	}
}

/* Every connection in its handshake has its place taken by peer's: the
 * oldest of the largest group is ended (and released once reaped). */
static void evict(struct server *sv, pid_t pid, const char *peer)
{
	struct rp_kid *k = rp_forks_kid_of(&sv->forks, pid);

	if (!k)
		return;
	if (rp_quota_ok(&sv->quota))
		RP_INFO("%s: still in its handshake after %.0f s, from the "
			"prefix with the most such connections; ending it for "
			"%s", k->peer, rp_now() - k->since, peer);
	kill(k->pid, SIGKILL);
	k->killed = true;
}

/* A connection: its child's admission socket first, so that running
 * out of descriptors leaves the connection queued rather than refused. */
static int accept_one(struct server *sv, int *fd, int sp[2], char *peer,
		      size_t len)
{
	int rc;

	if (!sv->o->once &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp))
		return take_failed(sv, "socketpair", -errno);
	rc = rp_ctrl_accept(sv->lfd, fd, peer, len);
	if (rc && !sv->o->once) {
		close(sp[0]);
		close(sp[1]);
	}
	if (rc && rc != -EAGAIN)
		return take_failed(sv, "accept", rc);
	/* Caught up with the queue: the shortage is over. */
	if (rc == -EAGAIN && sv->starved)
		RP_INFO("accepting connections again");
	if (rc == -EAGAIN) {
		sv->starved = false;
		sv->drained = true;
	}
	return 0;
}

/* Take one connection: check the caps, then serve it in a child (or,
 * with --once, keep it to serve here). */
static int take(struct server *sv)
{
	char peer[80], addr[RP_ADMIT_ADDR_MAX], why[160];
	enum rp_admit_verdict v;
	long victim;
	double now = rp_now();
	int fd = -1, sp[2] = { -1, -1 };
	int rc = accept_one(sv, &fd, sp, peer, sizeof(peer));

	if (rc || fd < 0)
		return rc;
	if (sv->o->once) {
		sv->once_fd = fd;
		snprintf(sv->once_peer, sizeof(sv->once_peer), "%s", peer);
		return 0;
	}
	rp_admit_addr(peer, addr, sizeof(addr));
	v = rp_admit_make_room(&sv->adm, addr, &victim);
	if (v) {
		close(sp[0]);
		close(sp[1]);
		refuse(sv, fd, peer,
		       rp_admit_why(&sv->adm, v, addr, why, sizeof(why)));
		return 0;
	}
	if (victim >= 0)
		evict(sv, (pid_t)victim, peer);
	return spawn(sv, fd, sp, peer, addr, now);
}

/* What is queued, up to a burst (children wait for their answers). */
static int take_queued(struct server *sv)
{
	int rc = 0;

	sv->drained = false;
	for (int i = 0; i < ACCEPT_BURST && !rc && !sv->drained &&
	     sv->backoff_end <= 0 && !sv->is_child && sv->once_fd < 0; i++)
		rc = take(sv);
	return rc;
}

/* One wait, and what it woke us for. 0 or a fatal error (reported). */
static int serve_step(struct server *sv)
{
	struct pollfd pfd[1 + MAX_KIDS];
	struct rp_kid *who[1 + MAX_KIDS];
	struct timespec ts;
	bool incoming = false;
	int n = rp_forks_watch(&sv->forks, sv->backoff_end <= 0 ? sv->lfd :
			       -1, pfd, who), rc;

	rc = ppoll(pfd, (nfds_t)n, next_wake(sv, rp_now(), &ts),
		   &sv->wait_mask);
	if (rc < 0 && errno != EINTR) {
		rc = -errno;
		RP_ERR("ppoll: %s", strerror(-rc));
		return rc;
	}
	for (int i = 0; rc > 0 && i < n; i++) {
		if (!pfd[i].revents)
			continue;
		if (who[i])
			answer(sv, who[i]);
		else
			incoming = true;
	}
	if (child_exited) {
		child_exited = 0;
		rp_forks_reap(&sv->forks);
	}
	rp_forks_kill_stale(&sv->forks, rp_now());
	if (sv->backoff_end > 0 && rp_now() >= sv->backoff_end)
		sv->backoff_end = 0;
	sweep_if_due(sv);
	if (incoming && !rp_session_stop)
		return take_queued(sv);
	return 0;
}

/* --once's admission hook: the connection has passed its handshake, so
 * it is the one push; from here it reports as any transfer does. */
static int once_admit(void *ctx, const char *peer)
{
	struct server *sv = ctx;

	(void)peer;
	sv->once_pushed = true;
	sv->once_cfg.hooks = sv->o->hooks;
	return 0;
}

/* --once: a connection that was no push (a probe, garbage, a failed
 * handshake) is said, rate-limited as any failed connection, and
 * forgotten. */
static void once_ignored(struct server *sv, int rc)
{
	const char *held = rp_trace_held_error();
	char cause[RP_TEXT_MAX + 1];

	snprintf(cause, sizeof(cause), "%s", held ? held : rp_strerror(rc));
	/* Not the cause of this receiver's verdict: the push's will be. */
	rp_trace_hold_forget();
	if (rp_quota_ok(&sv->quota))
		RP_INFO("%s: no push, ignored (%s); waiting for a push",
			sv->once_peer, cause);
}

/*
 * --once: serve the connection taken here, not in a child (no slot to
 * ask for). True when it was the push (its result in *rc); false when
 * it did not pass its handshake, and we go on listening.
 */
static bool once_serve(struct server *sv, int *rc)
{
	struct rp_outcome before;
	int fd = sv->once_fd;

	if (sv->out)
		before = *sv->out;
	sv->once_fd = -1;
	sv->once_cfg = *sv->o;
	sv->once_cfg.hooks = NULL;
	sv->once_pushed = false;
	/* A session relies on signals interrupting its waits. */
	restore_signals(sv);
	*rc = rp_session_recv_one(&sv->once_cfg, sv->psk, sv->dirfd, fd,
				  sv->once_peer,
				  &(struct rp_admission){ .admit = once_admit,
							  .ctx = sv },
				  sv->out);
	if (sv->once_pushed)
		return true;
	if (sv->out)
		*sv->out = before;
	once_ignored(sv, *rc);
	*rc = 0;
	block_signals(sv);
	return false;
}

static int serve_loop(struct server *sv)
{
	int rc = 0;

	for (;;) {
		while (!rc && !rp_session_stop && !sv->is_child &&
		       sv->once_fd < 0)
			rc = serve_step(sv);
		if (rc || sv->once_fd < 0 || once_serve(sv, &rc))
			return rc;
	}
}

/* After the loop, in the server: --once's push is over, or stop. */
static int finish(struct server *sv, int rc)
{
	if (sv->once_pushed)
		return rc;
	if (rp_session_stop && sv->o->once)
		return RP_EINTERRUPTED;	/* stopped before any transfer */
	if (rp_session_stop) {
		stop_children(sv);
		rp_forks_wait(&sv->forks);
		RP_INFO("stopped by signal %d", (int)rp_session_stop);
		return 0;
	}
	rp_forks_wait(&sv->forks);
	return rc;
}

/*
 * What needs nothing remote: the key file (into key) and the directory,
 * open (into *dirfd, else -1) and writable. The caller's pre-check and
 * the server's own start.
 */
static int open_local(const struct rp_config *o, uint8_t key[RP_PSK_LEN],
		      int *dirfd)
{
	int rc = 0;

	*dirfd = -1;
	if (o->psk_file)
		rc = rp_auth_load(o->psk_file, key);
	if (!rc)
		rc = rp_fileio_dir_open(o->dir, dirfd);
	if (rc)
		return rc;
	/* Fail now, naming -o, not when the first sender arrives. */
	rc = rp_fileio_dir_probe(*dirfd, o->dir);
	if (rc) {
		close(*dirfd);
		*dirfd = -1;
	}
	return rc;
}

int rp_server_check(const struct rp_config *o)
{
	uint8_t key[RP_PSK_LEN];
	int dirfd;
	int rc = open_local(o, key, &dirfd);

	explicit_bzero(key, sizeof(key));
	if (!rc)
		close(dirfd);
	return rc;
}

int rp_server_run(const struct rp_config *o, struct rp_outcome *out)
{
	struct server sv = {
		.o = o, .lfd = -1, .dirfd = -1, .once_fd = -1, .chan = -1,
		.out = out,
	};
	int rc;

	rp_session_signals();
	rc = open_local(o, sv.key, &sv.dirfd);
	if (rc)
		return rc;
	if (o->psk_file)
		sv.psk = sv.key;
	rp_fileio_clean_stale(sv.dirfd, o->partial_max_age);
	sv.next_sweep = rp_now() + 60;
	rc = rp_ctrl_listen(o->bind_addr, o->port, &sv.lfd);
	if (rc)
		goto out_dir;
	rc = rp_sys_nonblock(sv.lfd, "listening socket");
	if (rc)
		goto out_listen;
	rp_admit_init(&sv.adm, o->max_transfers, RP_MAX_PENDING,
		      o->max_per_addr);
	rp_admit_set_prefix_cap(&sv.adm, o->max_pending_per_prefix);
	rp_admit_set_addr_xfer_cap(&sv.adm, o->max_xfers_per_addr);
	rp_quota_init(&sv.quota, say_hidden);
	sv.forks = (struct rp_forks){
		.kids = sv.kids, .max = MAX_KIDS, .adm = &sv.adm,
		.kill_after = rp_session_handshake_secs(o) + RP_FORKS_GRACE_S,
		.say_stale = say_stale,
	};
	RP_INFO("listening on port %u, writing into %s", o->port, o->dir);
	/* The server's own later errors (fork, accept) are no verdict's
	 * cause: print them as they happen. Each child holds its own; with
	 * --once the one transfer runs here, so keep holding. */
	if (!o->once)
		rp_trace_hold_stop();
	/* A stop signal from here on is seen by the loop's first check
	 * (its handler is in place) or wakes its first wait. */
	block_signals(&sv);
	rc = serve_loop(&sv);
	if (sv.is_child)
		goto out_dir;	/* its one connection's result, for main */
	rc = finish(&sv, rc);
	restore_signals(&sv);
out_listen:
	rp_ctrl_close(&sv.lfd);
out_dir:
	close(sv.dirfd);
	return rc;
}
