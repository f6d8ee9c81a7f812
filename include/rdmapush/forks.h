/* SPDX-License-Identifier: MIT */
/* What the receiver's server and the ping server share: one forked child
 * per connection, its admission socket (the child asks for a slot once
 * its peer has passed its handshake), the table of children with their
 * admission entries, reaping, the safety net that kills a child well
 * past its deadline, and the wait for them all. What a child runs and
 * what the server answers it stay with each server. */
#ifndef RDMAPUSH_FORKS_H
#define RDMAPUSH_FORKS_H

#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>

#include "rdmapush/admit.h"

/* On a child's admission socket: its request and the two answers. */
#define RP_SLOT_ASK	'?'
#define RP_SLOT_GRANTED	'Y'
#define RP_SLOT_BUSY	'N'
/* A child whose connection failed before its handshake asks whether to
 * say so (the answers: granted, say it; busy, keep quiet). */
#define RP_SAY_ASK	'L'

/* The safety net: a child this long past its own deadline (it should
 * have ended itself) is killed. */
#define RP_FORKS_GRACE_S	5.0

/* A connection served by a child process. */
struct rp_kid {
	pid_t pid;
	int chan;		/* our end of its admission socket, or -1 */
	double since;		/* forked at (rp_now()) */
	double kill_at;		/* the safety net's time, or 0: never */
	bool killed;		/* by the safety net, or evicted */
	bool refused;		/* refused a slot: said so already */
	char peer[80];
};

struct rp_forks {
	struct rp_kid *kids;	/* max places */
	int max;
	int n;
	struct rp_admit *adm;	/* each child has an entry while it lives */
	/* A child that has not ended itself this long after it was forked
	 * is killed (until granted its slot, which sets its own time). */
	double kill_after;
	/* Children die with the server (PR_SET_PDEATHSIG). */
	bool die_with_server;
	/* The line said before the safety net kills k, if any. */
	void (*say_stale)(const struct rp_kid *k, double now);
	/* k has exited and is reaped, just before its place is freed. */
	void (*gone)(void *ctx, struct rp_kid *k);
	void *ctx;
};

struct rp_kid *rp_forks_kid_of(struct rp_forks *f, pid_t pid);
/* pid has exited and is reaped: its place and its admission entry are
 * freed here and only here (a connection counts against the caps as long
 * as its process lives). */
void rp_forks_forget(struct rp_forks *f, pid_t pid);
/* Every child that has exited, without waiting: no zombies linger. */
void rp_forks_reap(struct rp_forks *f);
/* Wait for every child to end. */
void rp_forks_wait(struct rp_forks *f);
/* SIGTERM to every child (each aborts its connection). */
void rp_forks_stop(struct rp_forks *f);
/* Kill each child past its kill_at, once (reaped as usual). */
void rp_forks_kill_stale(struct rp_forks *f, double now);
/* The earliest kill_at of a child not yet killed, or 0. */
double rp_forks_next_kill(const struct rp_forks *f);
/* The pollfds: lfd if >= 0, then each child's admission socket; who[i]
 * is the child of pfd[i], NULL for the listener. Room: 1 + f->max. */
int rp_forks_watch(struct rp_forks *f, int lfd, struct pollfd *pfd,
		   struct rp_kid **who);
/*
 * Serve fd in a child that asks for its slot on sp[1] (fd and both ends
 * owned; addr: its admission address, checked already). In the server:
 * the child's pid (fd and sp[1] closed, the child in the table). In the
 * child: 0, with sp[0] and the other children's sockets closed and the
 * table empty. On failure: -1 with why filled (nothing forked, all
 * three closed but fd, for the caller's refusal).
 */
pid_t rp_forks_spawn(struct rp_forks *f, int *fd, const int sp[2],
		     const char *peer, const char *addr, double since,
		     char *why, size_t why_len);
/*
 * In a child: ask the server for a slot on chan and wait for its answer.
 * 0 granted, RP_EBUSY refused, or an error (reported; req names the
 * request, who the server and what the slot in the message).
 */
int rp_forks_ask(int chan, const char *req, const char *who,
		 const char *what, const char *peer);

/*
 * In a child whose connection failed before its handshake: whether to
 * say so, as the server's rate limit says (rp_quota_ok). True also when
 * the server does not answer: a line too many beats a lost one.
 */
bool rp_forks_may_say(int chan);

/* Lines of the unauthenticated (failed handshakes, refusals): at most
 * RP_QUOTA_BURST per RP_QUOTA_WINDOW_S, then, once the window is over,
 * one line counting those not shown (say_hidden). */
#define RP_QUOTA_BURST		5
#define RP_QUOTA_WINDOW_S	10.0

struct rp_quota {
	double start;
	int logged;
	int hidden;
	void (*say_hidden)(int n);
};

void rp_quota_init(struct rp_quota *q, void (*say_hidden)(int n));
/* A line of the rate-limited kind: whether to print it now. */
bool rp_quota_ok(struct rp_quota *q);

#endif
