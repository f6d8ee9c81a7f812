/* SPDX-License-Identifier: MIT */
/*
 * Packet capture with libpcap: --capture FILE.pcap writes one session's
 * RoCE v2 packets (UDP 4791, kept when their BTH's destination QP is one
 * of the session's), and rp_pcapfile_*() read a capture back (render
 * --packets). A service beside verbs: the session (send, recv) and ping
 * start it once they know their QPs, before the first packet can flow,
 * and stop it as they end, failed or not; it knows of them nothing but a
 * netdev's name and QP numbers. Text from a capture is never printed:
 * rp_roce_decode() turns frames into numbers.
 */
#ifndef RDMAPUSH_CAPTURE_H
#define RDMAPUSH_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rp_capture;

/*
 * Before connecting: may this process capture? Needs CAP_NET_RAW (a
 * packet socket is opened and closed to find out) and libpcap, loaded
 * here (it is loaded only by what uses it). 0, or RP_ECONFIG (reported,
 * with a hint: root, or setcap cap_net_raw+ep; or how to get libpcap),
 * or -errno for another failure (reported).
 */
int rp_capture_check(void) __attribute__((warn_unused_result));

/*
 * Start capturing "udp dst port 4791" on netdev into a new file beside
 * path, in a thread; packets are kept once their QPs are watched
 * (rp_capture_watch). *out is NULL on failure. 0, or RP_ECONFIG for a
 * capture libpcap refuses (no permission, no such netdev), -errno for
 * the file or the thread; reported.
 */
int rp_capture_start(struct rp_capture **out, const char *path,
		     const char *netdev) __attribute__((warn_unused_result));

/*
 * Keep the packets whose destination QP is one of qpn[0..n) from now
 * on, besides those already watched (a session's own and its peer's;
 * after a reconnect, the new ones too). NULL c: nothing. At most
 * RP_CAPTURE_QPS in all; more are traced and ignored.
 */
#define RP_CAPTURE_QPS	64
void rp_capture_watch(struct rp_capture *c, const uint32_t *qpn, size_t n);

/*
 * What a session (or ping) does before each rp_verbs_connect(): with
 * path (--capture) given, start *c on the netdev of v's GID unless
 * started, then watch qpn[0..n) (its QPs and its peer's). Nothing when
 * path is NULL. 0, or the error of rp_verbs_netdev / rp_capture_start
 * (reported).
 */
struct rp_verbs;
int rp_capture_session(struct rp_capture **c, const char *path,
		       const struct rp_verbs *v, const uint32_t *qpn,
		       size_t n) __attribute__((warn_unused_result));

/*
 * Stop: take the last packets, write and close the file, rename it to
 * its path, say how many packets it holds (and that the session failed
 * when failed: it ends there) and whether the kernel dropped any.
 * NULL-safe. 0, or -errno when the file could not be completed
 * (reported: it is then removed).
 */
int rp_capture_stop(struct rp_capture *c, bool failed);

/* ---- reading a capture back ---- */

struct rp_pcapfile;

/*
 * Open path, a pcap file of Ethernet frames. 0, or -errno when it
 * cannot be read (exit 5), RP_EPROTO when it is not a pcap file or not
 * one of Ethernet frames (exit 3); reported with the file's name.
 */
int rp_pcapfile_open(struct rp_pcapfile **out, const char *path)
	__attribute__((warn_unused_result));

/*
 * The next frame: *data (valid until the next call), *len captured
 * bytes, *ts its time in seconds. 1 for a frame, 0 at the end, or
 * RP_EPROTO for a file cut short or garbled (reported).
 */
int rp_pcapfile_next(struct rp_pcapfile *f, const uint8_t **data,
		     size_t *len, double *ts)
	__attribute__((warn_unused_result));

/* Close; NULL-safe. */
void rp_pcapfile_close(struct rp_pcapfile *f);

#endif
