/* SPDX-License-Identifier: MIT */
/*
 * The TCP control channel: listen/accept/connect, and whole messages in
 * and out with deadlines. A message is read as its 12-byte header, which
 * is validated (rp_proto_parse_hdr) before the payload length is trusted.
 * Deadlines are absolute rp_now() seconds and bound the whole message, so
 * a peer sending one byte at a time cannot hold us past it.
 */
#ifndef RDMAPUSH_CTRL_H
#define RDMAPUSH_CTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rdmapush/proto.h"

/*
 * Listen on bind_addr (NULL: all, IPv6 dual-stack) port. 0, or
 * RP_ELISTEN (reported with the cause: in use, no permission, ...).
 */
int rp_ctrl_listen(const char *bind_addr, uint16_t port, int *lfd)
	__attribute__((warn_unused_result));
/*
 * Take one client from the listening socket lfd (blocking or not); *fd
 * is blocking and close-on-exec, peer gets "addr:port". Returns 0,
 * -EAGAIN when there is nothing to take now (none queued, a signal, or
 * a connection that died in the queue: poll and call again), or another
 * -errno, not reported: the caller decides whether it is transient
 * (EMFILE, ENFILE, ENOBUFS, ENOMEM) or fatal.
 */
int rp_ctrl_accept(int lfd, int *fd, char *peer, size_t peer_len)
	__attribute__((warn_unused_result));
struct addrinfo;
/*
 * getaddrinfo(3) of host and port for socktype (SOCK_STREAM, SOCK_DGRAM),
 * any family: *res in the order to try (freeaddrinfo() it). 0, or
 * RP_ERESOLVE (reported).
 */
int rp_ctrl_resolve(const char *host, uint16_t port, int socktype,
		    struct addrinfo **res) __attribute__((warn_unused_result));
/* Resolve host and connect, trying each address, by deadline. */
int rp_ctrl_connect(const char *host, uint16_t port, double deadline, int *fd)
	__attribute__((warn_unused_result));
/*
 * What each end asks of the control socket's send and receive buffers
 * at the least (the kernel doubles it, within net.core.wmem_max and
 * rmem_max): room for every FACK a receiver may owe its sender.
 */
#define RP_CTRL_SOCKBUF		(256u << 10)
/*
 * Keepalive and TCP_USER_TIMEOUT so a dead peer is noticed; buffers of
 * RP_CTRL_SOCKBUF at the least. outage_s: how long a link outage the
 * connection must outlast on top of timeout_s (--retry-for), 0 for none:
 * TCP gives up on data unacknowledged for their sum.
 */
void rp_ctrl_tune(int fd, int timeout_s, int outage_s);
/* getsockname() of a connected socket. 0 or -errno. */
int rp_ctrl_local_addr(int fd, struct sockaddr_storage *ss, socklen_t *len);

/* Write all len bytes by deadline. 0, RP_ETIMEOUT, RP_ECTRLCLOSED, -errno. */
int rp_ctrl_send(int fd, const uint8_t *buf, size_t len, double deadline)
	__attribute__((warn_unused_result));
/*
 * Read one message: header into *h (h->raw: the 12 bytes as received, also
 * on failure once they are in), payload into payload (cap bytes, at least
 * RP_PROTO_MAX_PAYLOAD). Returns 0, RP_ECTRLCLOSED (peer closed, even
 * mid-message), RP_ETIMEOUT, -errno (reported), or the error of
 * rp_proto_parse_hdr() for a bad header (RP_ENOTPEER, RP_EVERSION,
 * RP_EPROTO), NOT reported here: the caller knows whom to name, and
 * rp_proto_parse_hdr(h->raw) says why. RP_EPROTO also when the payload
 * exceeds cap.
 */
int rp_ctrl_recv(int fd, struct rp_msg_hdr *h, uint8_t *payload, size_t cap,
		 double deadline) __attribute__((warn_unused_result));
/*
 * Bytes read ahead from a control connection. One recv() takes in what
 * has arrived, often several messages (FILE and FEND, a batch of FACKs),
 * instead of two reads per message.
 */
struct rp_ctrl_in {
	uint8_t buf[8192];
	size_t off, len;	/* buf[off..len) not yet taken */
};
/*
 * rp_ctrl_recv() through in (zeroed before the first call). Bytes held
 * in it do not make the fd poll readable: ask rp_ctrl_pending() first.
 */
int rp_ctrl_recv_in(int fd, struct rp_ctrl_in *in, struct rp_msg_hdr *h,
		    uint8_t *payload, size_t cap, double deadline)
	__attribute__((warn_unused_result));
/* Whether in holds bytes not yet taken (part of a message at least). */
bool rp_ctrl_pending(const struct rp_ctrl_in *in);

void rp_ctrl_close(int *fd);

#endif
