// SPDX-License-Identifier: MIT
/* One forked child per connection, for both servers (forks.h): the
 * table of children, their admission sockets, reaping and the safety
 * net. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/forks.h"
#include "rdmapush/trace.h"

/* How long a child waits for the server to answer its slot request. */
#define ANSWER_WAIT_MS	5000

struct rp_kid *rp_forks_kid_of(struct rp_forks *f, pid_t pid)
{
	for (int i = 0; i < f->n; i++)
		if (f->kids[i].pid == pid)
			return &f->kids[i];
	return NULL;
}

void rp_forks_forget(struct rp_forks *f, pid_t pid)
{
	struct rp_kid *k = rp_forks_kid_of(f, pid);

	if (!k)
		return;
	rp_ctrl_close(&k->chan);
	(void)rp_admit_release(f->adm, pid);
	if (f->gone)
		f->gone(f->ctx, k);
	*k = f->kids[--f->n];
}

void rp_forks_reap(struct rp_forks *f)
{
	for (;;) {
		pid_t p = waitpid(-1, NULL, WNOHANG);

		if (p <= 0)
			break;
		rp_forks_forget(f, p);
	}
}

void rp_forks_wait(struct rp_forks *f)
{
	while (f->n) {
		pid_t p = waitpid(-1, NULL, 0);

		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			break;
		rp_forks_forget(f, p);
	}
}

void rp_forks_stop(struct rp_forks *f)
{
	for (int i = 0; i < f->n; i++)
		kill(f->kids[i].pid, SIGTERM);
}

static bool due(const struct rp_kid *k)
{
	return !k->killed && k->kill_at > 0;
}

/* Each child ends itself at its deadline; one that has not, well after
 * it, is killed. */
void rp_forks_kill_stale(struct rp_forks *f, double now)
{
	for (int i = 0; i < f->n; i++) {
		struct rp_kid *k = &f->kids[i];

		if (!due(k) || now < k->kill_at)
			continue;
		if (f->say_stale)
			f->say_stale(k, now);
		kill(k->pid, SIGKILL);
		k->killed = true;
	}
}

double rp_forks_next_kill(const struct rp_forks *f)
{
	double t = 0;

	for (int i = 0; i < f->n; i++) {
		const struct rp_kid *k = &f->kids[i];

		if (due(k) && (t <= 0 || k->kill_at < t))
			t = k->kill_at;
	}
	return t;
}

int rp_forks_watch(struct rp_forks *f, int lfd, struct pollfd *pfd,
		   struct rp_kid **who)
{
	int n = 0;

	if (lfd >= 0) {
		pfd[n] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		who[n++] = NULL;
	}
	for (int i = 0; i < f->n; i++) {
		if (f->kids[i].chan < 0)
			continue;
		pfd[n] = (struct pollfd){ .fd = f->kids[i].chan,
					  .events = POLLIN };
		who[n++] = &f->kids[i];
	}
	return n;
}

/* In a new child: what the server holds for the others is not ours. */
static void in_child(struct rp_forks *f, const int sp[2])
{
	close(sp[0]);
	for (int i = 0; i < f->n; i++)
		rp_ctrl_close(&f->kids[i].chan);
	f->n = 0;
}

pid_t rp_forks_spawn(struct rp_forks *f, int *fd, const int sp[2],
		     const char *peer, const char *addr, double since,
		     char *why, size_t why_len)
{
	struct rp_kid *k;
	pid_t pid, parent = getpid();

	if (f->n >= f->max) {
		snprintf(why, why_len, "no place left for another "
			 "connection");
		pid = -1;
	} else {
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		if (pid < 0)
			snprintf(why, why_len, "fork: %s", strerror(errno));
	}
	if (pid < 0) {
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	if (pid == 0) {
		/* A server killed takes its children with it: their peers
		 * see the connection close, not an orphan's answers. */
		if (f->die_with_server &&
		    (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent))
			_exit(1);
		in_child(f, sp);
		return 0;
	}
	close(sp[1]);
	rp_ctrl_close(fd);
	k = &f->kids[f->n++];
	*k = (struct rp_kid){
		.pid = pid, .chan = sp[0], .since = since,
		.kill_at = since + f->kill_after,
	};
	snprintf(k->peer, sizeof(k->peer), "%s", peer);
	/* Checked before the fork, and nothing came in since. */
	(void)rp_admit_add(f->adm, pid, addr);
	return pid;
}

/* Send request c on chan and wait for the one-byte answer. */
static int request(int chan, char c, char *answer, const char *req)
{
	struct pollfd pfd = { .fd = chan, .events = POLLIN };
	int rc;

	if (send(chan, &c, 1, MSG_NOSIGNAL) != 1) {
		rc = -errno;
		if (req)
			RP_ERR("send(%s request): %s", req, strerror(-rc));
		return rc;
	}
	rc = poll(&pfd, 1, ANSWER_WAIT_MS);
	if (rc < 0 && errno == EINTR)
		return RP_EINTERRUPTED;
	if (rc == 1 && recv(chan, answer, 1, 0) == 1 &&
	    (*answer == RP_SLOT_GRANTED || *answer == RP_SLOT_BUSY))
		return 0;
	return RP_EINTERNAL;
}

int rp_forks_ask(int chan, const char *req, const char *who,
		 const char *what, const char *peer)
{
	char c;
	int rc = request(chan, RP_SLOT_ASK, &c, req);

	if (!rc)
		return c == RP_SLOT_BUSY ? RP_EBUSY : 0;
	if (rc == RP_EINTERNAL)
		RP_ERR("%s did not answer the request for %s for %s", who,
		       what, peer);
	return rc;
}

bool rp_forks_may_say(int chan)
{
	char c;

	return request(chan, RP_SAY_ASK, &c, NULL) || c != RP_SLOT_BUSY;
}

void rp_quota_init(struct rp_quota *q, void (*say_hidden)(int n))
{
	*q = (struct rp_quota){ .start = rp_now(), .say_hidden = say_hidden };
}

bool rp_quota_ok(struct rp_quota *q)
{
	double now = rp_now();

	if (now - q->start >= RP_QUOTA_WINDOW_S) {
		if (q->hidden)
			q->say_hidden(q->hidden);
		q->start = now;
		q->logged = 0;
		q->hidden = 0;
	}
	if (q->logged < RP_QUOTA_BURST) {
		q->logged++;
		return true;
	}
	q->hidden++;
	return false;
}
