// SPDX-License-Identifier: MIT
/* The TCP control channel: sockets, deadlines, whole messages. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/err.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

/* Milliseconds left until deadline, at least 0; -1 means no deadline. */
static int ms_left(double deadline)
{
	return deadline <= 0 ? -1 : rp_sys_poll_ms(deadline, INT_MAX);
}

/* Wait until fd is ready for events or the deadline passes. */
static int wait_fd(int fd, short events, double deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int rc;

	for (;;) {
		int ms = ms_left(deadline);

		if (ms == 0)
			return RP_ETIMEOUT;
		rc = poll(&pfd, 1, ms);
		if (rc > 0)
			return 0;
		if (rc == 0)
			return RP_ETIMEOUT;
		if (errno == EINTR)
			return RP_EINTERRUPTED;
		RP_ERR("poll(control socket): %s", strerror(errno));
		return -errno;
	}
}

/* One socket bound and listening on ai. 0 or -errno (not reported). */
static int listen_one(const struct addrinfo *ai, int *out)
{
	int fd, one = 1, zero = 0;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
		int e = errno;

		close(fd);
		return -e;
	}
	*out = fd;
	return 0;
}

/*
 * Every failure here is RP_ELISTEN (exit 7): port in use, no permission,
 * an address not of this host, or one that does not resolve, all mean
 * "this receiver cannot start where asked", not a disk or network fault.
 */
int rp_ctrl_listen(const char *bind_addr, uint16_t port, int *lfd)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	};
	const char *where = bind_addr ? bind_addr : "*";
	struct addrinfo *res, *ai;
	char serv[8];
	int fd = -1, rc;

	snprintf(serv, sizeof(serv), "%u", port);
	/* With no address, prefer one IPv6 socket that also takes IPv4. */
	if (!bind_addr)
		hints.ai_family = AF_INET6;
	rc = getaddrinfo(bind_addr, serv, &hints, &res);
	if (rc) {
		/* A name that gives no address: not one of this host. */
		RP_ERR_WHY(EADDRNOTAVAIL, "cannot listen on %s port %u: "
			   "cannot resolve %s: %s", where, port, where,
			   gai_strerror(rc));
		return RP_ELISTEN;
	}
	rc = -EADDRNOTAVAIL;	/* should getaddrinfo return an empty list */
	for (ai = res; ai; ai = ai->ai_next) {
		rc = listen_one(ai, &fd);
		if (!rc)
			break;
	}
	freeaddrinfo(res);
	if (rc) {
		/* In use, privileged, not this host's: each its own hint. */
		RP_ERR_WHY(-rc, "cannot listen on %s port %u: %s", where,
			   port, strerror(-rc));
		return RP_ELISTEN;
	}
	RP_EV("ctrl", "listen", "listening on {addr} port {port} (TCP)",
	      EV_S("addr", where), EV_U("port", port));
	*lfd = fd;
	return 0;
}

static void addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo(sa, sa->sa_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
			host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, len, "?");
		return;
	}
	/* Show IPv4 clients of a dual-stack socket as plain IPv4. */
	snprintf(buf, len, "%s:%s",
		 strncmp(host, "::ffff:", 7) ? host : host + 7, serv);
}

/*
 * Nothing to take now, but nothing wrong with us either: a signal, an
 * empty queue, or a network error of a connection that died in the
 * queue, which Linux reports from accept() (accept(2): treat these like
 * EAGAIN and retry).
 */
static bool accept_retry(int err)
{
	switch (err) {
	case EINTR:
	case EAGAIN:
#if EWOULDBLOCK != EAGAIN
	case EWOULDBLOCK:
#endif
	case ECONNABORTED:
	case EPROTO:
	case ENETDOWN:
	case ENOPROTOOPT:
	case EHOSTDOWN:
	case ENONET:
	case EHOSTUNREACH:
	case EOPNOTSUPP:
	case ENETUNREACH:
		return true;
	default:
		return false;
	}
}

int rp_ctrl_accept(int lfd, int *fd, char *peer, size_t peer_len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int c = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);

	if (c < 0) {
		int err = errno;

		if (!accept_retry(err))
			return -err;
		if (err != EAGAIN && err != EWOULDBLOCK && err != EINTR)
			RP_EV("ctrl", "accept.failed", "accept: {reason} (a "
			      "connection that died in the queue); going on",
			      EV_S("reason", strerror(err)));
		return -EAGAIN;
	}
	addr_str((struct sockaddr *)&ss, peer, peer_len);
	RP_EV("ctrl", "accept", "accepted control connection from {peer}",
	      EV_S("peer", peer));
	*fd = c;
	return 0;
}

/* Non-blocking connect, so the handshake deadline covers it too. */
static int connect_one(const struct addrinfo *ai, double deadline, int *out)
{
	int fd, rc, err = 0;
	socklen_t el = sizeof(err);

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = rp_sys_nonblock(fd, "control socket");
	if (rc)
		goto err_close;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		rc = -errno;
		goto err_close;
	}
	rc = wait_fd(fd, POLLOUT, deadline);
	if (rc)
		goto err_close;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
		rc = err ? -err : -errno;
		goto err_close;
	}
	*out = fd;
	return 0;
err_close:
	close(fd);
	return rc;
}

int rp_ctrl_resolve(const char *host, uint16_t port, int socktype,
		    struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = socktype,
		.ai_flags = AI_NUMERICSERV,
	};
	char serv[8];
	int rc;

	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, res);
	if (rc) {
		RP_ERR("cannot resolve %s: %s", host, gai_strerror(rc));
		return RP_ERESOLVE;
	}
	return 0;
}

int rp_ctrl_connect(const char *host, uint16_t port, double deadline, int *fd)
{
	struct addrinfo *res, *ai;
	char where[NI_MAXHOST + NI_MAXSERV + 2];
	int rc = rp_ctrl_resolve(host, port, SOCK_STREAM, &res);

	if (rc)
		return rc;
	rc = -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		addr_str(ai->ai_addr, where, sizeof(where));
		RP_EV("ctrl", "connect", "connecting to {addr} (TCP)",
		      EV_S("addr", where));
		rc = connect_one(ai, deadline, fd);
		if (!rc)
			break;
	}
	freeaddrinfo(res);
	if (rc == RP_ETIMEOUT)
		RP_ERR("connect(%s port %u): timed out", host, port);
	else if (rc && rc != RP_EINTERRUPTED)
		RP_ERR("connect(%s port %u): %s", host, port, rp_strerror(rc));
	else if (!rc)
		RP_EV("ctrl", "connected", "control connection up to {addr}",
		      EV_S("addr", where));
	return rc;
}

/* The socket's buffer opt raised to RP_CTRL_SOCKBUF, never lowered:
 * Linux reports twice what was asked, and autotuning may have grown it
 * further. Best effort, as the rest of the tuning: the deadlines still
 * bound every wait. */
static void at_least(int fd, int opt)
{
	int have = 0, want = (int)RP_CTRL_SOCKBUF;
	socklen_t len = sizeof(have);

	if (getsockopt(fd, SOL_SOCKET, opt, &have, &len) == 0 &&
	    have >= 2 * want)
		return;
	setsockopt(fd, SOL_SOCKET, opt, &want, sizeof(want));
}

void rp_ctrl_tune(int fd, int timeout_s, int outage_s)
{
	int one = 1, idle = timeout_s > 3 ? timeout_s / 3 : 1, cnt = 3;
	unsigned int uto = ((unsigned int)timeout_s +
			    (unsigned int)(outage_s > 0 ? outage_s : 0)) *
			   1000u;

	/* Best effort: a failure here only delays noticing a dead peer. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &uto, sizeof(uto));
	at_least(fd, SO_SNDBUF);
	at_least(fd, SO_RCVBUF);
	/* Already reported; the deadlines still bound every wait. */
	(void)!rp_sys_nonblock(fd, "control socket");
}

int rp_ctrl_local_addr(int fd, struct sockaddr_storage *ss, socklen_t *len)
{
	*len = sizeof(*ss);
	if (getsockname(fd, (struct sockaddr *)ss, len)) {
		RP_ERR("getsockname: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int rp_ctrl_send(int fd, const uint8_t *buf, size_t len, double deadline)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		int rc;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			if (errno == EPIPE || errno == ECONNRESET)
				return RP_ECTRLCLOSED;
			RP_ERR("send(control): %s", strerror(errno));
			return -errno;
		}
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

/* What one recv() brings, 1 to len bytes, into *got; waits for the first
 * byte until deadline. 0 from the peer means closed. */
static int recv_some(int fd, uint8_t *buf, size_t len, size_t *got,
		     double deadline)
{
	for (;;) {
		ssize_t n = recv(fd, buf, len, 0);
		int e = errno;
		int rc;

		if (n > 0) {
			*got = (size_t)n;
			return 0;
		}
		if (n == 0 || e == ECONNRESET)
			return RP_ECTRLCLOSED;
		if (e == EINTR)
			continue;
		if (e != EAGAIN && e != EWOULDBLOCK) {
			RP_ERR("recv(control): %s", strerror(e));
			return -e;
		}
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
}

/*
 * Exactly len bytes into dst (iperf's Nrecv): with in, from what it holds
 * first, refilling it with as much as each recv() brings; without, read
 * straight into dst.
 */
static int take(int fd, struct rp_ctrl_in *in, uint8_t *dst, size_t len,
		double deadline)
{
	while (len) {
		size_t n;
		int rc;

		if (!in) {
			rc = recv_some(fd, dst, len, &n, deadline);
		} else if (in->off == in->len) {
			in->off = 0;
			in->len = 0;
			rc = recv_some(fd, in->buf, sizeof(in->buf), &in->len,
				       deadline);
			n = 0;
		} else {
			n = in->len - in->off < len ? in->len - in->off : len;
			memcpy(dst, in->buf + in->off, n);
			in->off += n;
			rc = 0;
		}
		if (rc)
			return rc;
		dst += n;
		len -= n;
	}
	return 0;
}

int rp_ctrl_recv_in(int fd, struct rp_ctrl_in *in, struct rp_msg_hdr *h,
		    uint8_t *payload, size_t cap, double deadline)
{
	uint8_t hdr[RP_PROTO_HDR_LEN];
	int rc;

	rc = take(fd, in, hdr, sizeof(hdr), deadline);
	if (rc)
		return rc;
	/* The caller, who knows the peer's name, reports a bad header. */
	memcpy(h->raw, hdr, sizeof(hdr));
	rc = rp_proto_parse_hdr(hdr, sizeof(hdr), h, NULL);
	if (rc)
		return rc;
	if (h->length > cap)
		return RP_EPROTO;
	return take(fd, in, payload, h->length, deadline);
}

int rp_ctrl_recv(int fd, struct rp_msg_hdr *h, uint8_t *payload, size_t cap,
		 double deadline)
{
	return rp_ctrl_recv_in(fd, NULL, h, payload, cap, deadline);
}

bool rp_ctrl_pending(const struct rp_ctrl_in *in)
{
	return in->off < in->len;
}

void rp_ctrl_close(int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
}
