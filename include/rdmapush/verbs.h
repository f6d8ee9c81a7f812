/* SPDX-License-Identifier: MIT */
/*
 * The RDMA data plane over libibverbs: device and GID selection, PD, CQ
 * with a completion channel, one or more RC QPs (cfg.qps, --qps) each
 * driven RESET->INIT->RTR->RTS by hand, one registered ring buffer that
 * all of them share, posting (RDMA Write, Send, RDMA Read, receives) on
 * a chosen QP and polling the one CQ they share. src/verbs*.c are
 * the only files that include <infiniband/verbs.h>; this interface uses
 * plain values so the session and its unit tests never see ibverbs types.
 * Every step is a trace event (RP_EV("verbs", ...)) for --trace and
 * --trace-json.
 */
#ifndef RDMAPUSH_VERBS_H
#define RDMAPUSH_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rdmapush/proto.h"

struct rp_verbs;

struct rp_verbs_cfg {
	const char *dev_name;	/* NULL: pick the device whose GID matches */
	int ib_port;		/* 0: any active port */
	int gid_index;		/* < 0: the RoCE v2 GID equal to local_addr */
	/* Local address of the control connection, used to choose the GID. */
	const struct sockaddr *local_addr;
	socklen_t local_addr_len;
	/* The receiving side of the transfer (the fabric's RP_FAB_RECEIVER;
	 * traces say "receiver"/"sender"). Says nothing about access. */
	bool receiver;
	/*
	 * RP_ACCESS_* the ring is registered with. Its REMOTE_* bits are
	 * also the QP's access flags at INIT: a peer may do to us only what
	 * both the QP and the MR allow. 0: local only (a source the NIC
	 * reads from our side).
	 */
	unsigned int access;
	/*
	 * RDMA Reads in flight: as requester (max_rd_atomic at RTS) and as
	 * responder (max_dest_rd_atomic at RTR), capped by the device's
	 * max_qp_init_rd_atom / max_qp_rd_atom (traced when it is). 0 is
	 * taken as 1, the verbs' minimum.
	 */
	uint32_t rd_atomic;
	uint32_t max_send_wr;	/* outstanding sends/writes/reads, per QP */
	uint32_t max_recv_wr;	/* outstanding receives, per QP */
	/*
	 * RC QPs to open, 1..RP_QPS_MAX (0 taken as 1). They share the PD,
	 * the CQ and the ring; QP i connects to the peer's QP i, and a post
	 * names the QP it goes on (0..qps-1).
	 */
	uint32_t qps;
	/* The local ACK timeout's exponent (RP_QP_TIMEOUT_*); 0, which the
	 * verbs take as "never", is taken as RP_QP_TIMEOUT_DATA. */
	unsigned int ack_timeout;
};

/* Ring access bits (mapped to IBV_ACCESS_*). REMOTE_WRITE needs
 * LOCAL_WRITE, as ibv_reg_mr(3) requires. */
#define RP_ACCESS_LOCAL_WRITE	0x1u	/* receives and Read responses land */
#define RP_ACCESS_REMOTE_WRITE	0x2u	/* the peer RDMA-Writes into it */
#define RP_ACCESS_REMOTE_READ	0x4u	/* the peer RDMA-Reads from it */

/*
 * Open device, pick port and GID, allocate PD, completion channel, CQ and
 * cfg->qps RC QPs, and move each RESET->INIT. Returns 0 or a negative RP_E* /
 * -errno code (already reported). *out is NULL on failure.
 */
int rp_verbs_open(struct rp_verbs **out, const struct rp_verbs_cfg *cfg)
	__attribute__((warn_unused_result));

/*
 * Startup check, before any connection: is there a device (dev_name, or
 * any when NULL) with an ACTIVE port (ib_port, or any when 0)? Opens and
 * closes the devices it looks at, nothing else. 0, or RP_ENODEV
 * (reported, naming what it found: no device, which devices there are,
 * or each port's state), or -errno for a local failure (reported).
 */
int rp_verbs_probe(const char *dev_name, int ib_port)
	__attribute__((warn_unused_result));

/* Release everything in reverse order; NULL-safe; continues past failures. */
void rp_verbs_close(struct rp_verbs *v);

/* Number of QPs opened (cfg.qps, at least 1). */
uint32_t rp_verbs_qps(const struct rp_verbs *v);
/*
 * QP qp's QPN and starting PSN (random 24 bits), and the LID, active MTU
 * and GID all our QPs share. All zero for a qp we do not have.
 */
void rp_verbs_local(const struct rp_verbs *v, uint32_t qp,
		    struct rp_qp_addr *out);

/*
 * A link outage to ride out (the caller keeps the control connection
 * and can exchange new QP addresses): with on, rp_verbs_next() and
 * rp_verbs_poll() do not report a completion that failed with "transport
 * retry counter exceeded" or was flushed, nor our port going down; they
 * trace it and return RP_EWC, and rp_verbs_link_down() says so. Off (the
 * default): every failure is reported, as ever.
 */
void rp_verbs_set_relink(struct rp_verbs *v, bool on);
/* Since the last rp_verbs_relink(): the link went away (see above), and
 * no other failure was reported. */
bool rp_verbs_link_down(const struct rp_verbs *v);
/*
 * Local ACK timeouts, the exponent t of 4.096 us * 2^t per try, by kind
 * of session (rp_verbs_cfg.ack_timeout).
 *
 * A transfer's: 17, 537 ms. An ACK can wait behind the peer's own
 * outgoing data in its NIC's or a switch's queue; on a slow link a
 * relay's ACKs queue behind all it forwards. At 14 (67 ms) a chain of
 * three in the lab, 10 Mbit/s a guest, resent data never lost (go-back-N)
 * and moved 1.9 times the data over its first link.
 *
 * A ping's: 14, 67 ms. A ping moves no bulk data, so nothing queues ahead
 * of its ACKs, and a server of many clients (and doctor) should know a
 * vanished client or a dropped path soon.
 */
#define RP_QP_TIMEOUT_DATA	17
#define RP_QP_TIMEOUT_PING	14
#define RP_QP_RETRY_CNT		6
/*
 * How long a QP keeps resending an unanswered request before it fails
 * "retry exceeded": the first try and RP_QP_RETRY_CNT retries, each of
 * the local ACK timeout (3.8 s for a transfer, 0.47 s for a ping). A
 * request posted before the peer's fresh QPs were ready can fail that
 * long after a relink that worked.
 */
static inline double rp_qp_give_up_secs(unsigned int ack_timeout)
{
	return 4.096e-6 * (double)(1u << ack_timeout) * (RP_QP_RETRY_CNT + 1);
}
/*
 * Tear down every QP and the CQ (dropping the old QPs' completions) and
 * make them anew, each QP in INIT with a fresh QPN and PSN
 * (rp_verbs_local()); the PD and the ring's MR stay. Then
 * rp_verbs_connect() against the peer's new QPs, as after open. 0, or
 * an error (reported; rp_verbs_close() is still the way out).
 */
int rp_verbs_relink(struct rp_verbs *v) __attribute__((warn_unused_result));

/* Text form of the GID in use and its index, for reports. */
const char *rp_verbs_gid_str(const struct rp_verbs *v);
int rp_verbs_gid_index(const struct rp_verbs *v);
/*
 * The network device the GID in use belongs to (RoCE), for --capture:
 * its name in buf (len >= IF_NAMESIZE, 16). 0, or RP_ECONFIG for a GID
 * on no netdev (InfiniBand, the in-memory fabric), or -errno; reported.
 */
int rp_verbs_netdev(const struct rp_verbs *v, char *buf, size_t len)
	__attribute__((warn_unused_result));

/*
 * Allocate a page-aligned ring of len bytes and register it with
 * cfg.access (traced with the reason for each bit). Returns 0 or an
 * error; *addr is the ring's address, *rkey its remote key (meaningful to
 * a peer only with a REMOTE_* bit).
 */
int rp_verbs_reg_ring(struct rp_verbs *v, size_t len, void **addr,
		      uint32_t *rkey) __attribute__((warn_unused_result));
/* Deregister and free the ring as soon as it is no longer needed. */
void rp_verbs_dereg_ring(struct rp_verbs *v);

/*
 * Each QP i, RTR then RTS against peer[i] (n must be our number of QPs):
 * path MTU = min(ours, peer's), GRH with the peer's GID on RoCE, LID on
 * InfiniBand. Reads the state back after each transition. Returns 0 or
 * an error (reported). With rp_verbs_set_relink() on, an RTR that finds
 * no ARP answer or route for the peer (ETIMEDOUT, EHOSTUNREACH,
 * ENETUNREACH: the link still down) is traced, not reported: RP_EWC and
 * rp_verbs_link_down(); calling again with the same peer tries the QPs
 * not yet up.
 */
int rp_verbs_connect(struct rp_verbs *v, const struct rp_qp_addr *peer,
		     uint32_t n) __attribute__((warn_unused_result));

/*
 * The posts below go on QP qp (0..qps-1; another is RP_EINTERNAL,
 * reported). Work requests on one QP are executed and complete in order;
 * across QPs there is no order.
 *
 * RDMA Write with immediate from ring[off, off+len) to raddr/rkey;
 * signaled.
 */
int rp_verbs_post_write_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off,
			    uint32_t len, uint64_t raddr, uint32_t rkey,
			    uint32_t imm) __attribute__((warn_unused_result));
/*
 * Plain RDMA Write (no immediate) from ring[off, off+len) to raddr/rkey:
 * it consumes no receive and the peer sees no completion, only its
 * memory change (the peer's QP and MR need REMOTE_WRITE). Signaled or
 * not: unsignaled, a successful one gives us no completion either, but
 * a failed one always does; it holds its send-queue slot until a later
 * signaled WR on the QP completes, so a caller that leaves some
 * unsignaled must signal every so often. len >= 1.
 */
int rp_verbs_post_write(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			size_t off, uint32_t len, uint64_t raddr,
			uint32_t rkey, bool signaled)
	__attribute__((warn_unused_result));
/* Zero-length Send with immediate (a credit); signaled. */
int rp_verbs_post_send_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			   uint32_t imm)
	__attribute__((warn_unused_result));
/*
 * Send with immediate of ring[off, off+len) (len may be 0); signaled. It
 * lands in the peer's next posted receive, which must be large enough.
 */
int rp_verbs_post_send_data(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off,
			    uint32_t len, uint32_t imm)
	__attribute__((warn_unused_result));
/*
 * RDMA Read of len bytes from raddr/rkey (the peer's memory) into
 * ring[off, off+len); signaled. The ring needs LOCAL_WRITE, the peer's
 * QP and MR REMOTE_READ.
 */
int rp_verbs_post_read(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
		       size_t off,
		       uint32_t len, uint64_t raddr, uint32_t rkey)
	__attribute__((warn_unused_result));
/* Zero-length receive, consumed by a Write- or Send-with-immediate. */
int rp_verbs_post_recv(struct rp_verbs *v, uint32_t qp, uint64_t wr_id)
	__attribute__((warn_unused_result));
/*
 * Receive into ring[off, off+len) (the ring needs LOCAL_WRITE): a Send
 * of up to len bytes lands there; a longer one fails both sides.
 */
int rp_verbs_post_recv_buf(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			   size_t off,
			   uint32_t len) __attribute__((warn_unused_result));

enum rp_wc_op {
	RP_WC_WRITE,		/* our RDMA Write completed */
	RP_WC_SEND,		/* our Send completed */
	RP_WC_RECV_WRITE_IMM,	/* peer's Write with immediate landed */
	RP_WC_RECV_SEND_IMM,	/* peer's Send with immediate arrived */
	RP_WC_READ,		/* our RDMA Read completed: the bytes are in */
	RP_WC_OTHER,
};

struct rp_wc {
	uint64_t wr_id;
	enum rp_wc_op op;
	uint32_t byte_len;	/* received (RECV_*) or read (READ) */
	uint32_t imm;		/* host order */
	uint32_t qp;		/* the QP it completed on, 0..qps-1 */
};

/*
 * Return completions, waiting until deadline (rp_now() seconds) with the
 * completion channel (no busy polling). While waiting, also watches
 * watch_fd (the control socket; -1 for none) and the device's async
 * events. Returns:
 *   n > 0        n successful completions stored in wc[0..n)
 *   0            watch_fd became readable (peer sent something or closed)
 *   RP_ETIMEOUT  deadline passed (not reported: the caller names the phase)
 *   RP_EINTERRUPTED  a signal interrupted the wait (not reported: the
 *                caller checks its stop flag and may call again)
 *   RP_EWC       a completion failed (the first one reported with
 *                ibv_wc_status_str; good completions polled in the same
 *                batch are dropped, later flushed ones only traced)
 *   RP_EVERBS    a verbs call or a fatal async event (reported)
 *   -errno       poll(2) itself failed (reported)
 */
int rp_verbs_next(struct rp_verbs *v, struct rp_wc *wc, int max,
		  int watch_fd, double deadline)
	__attribute__((warn_unused_result));

/*
 * Look at the CQ once, without waiting (no completion channel, no
 * poll(2)): for busy-polling loops such as a latency ping-pong, which
 * check their own deadline, stop flag and control socket between calls.
 * Returns n >= 0 successful completions stored in wc[0..n) (0: none
 * yet), RP_EWC (the first failure reported, as rp_verbs_next()),
 * RP_EVERBS or RP_EINTERNAL (reported).
 */
int rp_verbs_poll(struct rp_verbs *v, struct rp_wc *wc, int max)
	__attribute__((warn_unused_result));

/*
 * For backends, at the top of rp_verbs_open(): NULL arguments, empty
 * queues and more than RP_QPS_MAX QPs are refused (RP_EINTERNAL, reported); else *out = NULL and 0.
 */
int rp_verbs_check_open(struct rp_verbs **out, const struct rp_verbs_cfg *cfg)
	__attribute__((warn_unused_result));

/*
 * For the libibverbs backend: the provider library a device probably
 * needs, guessed from the name of the device (driver false: "rxe0" ->
 * "rxe") or of its kernel driver (driver true: "mlx5_core" -> "mlx5"),
 * into out (len bytes). false when there is no guess: empty, too long,
 * or a character other than a letter, a digit or '_'.
 */
bool rp_verbs_provider_guess(const char *name, bool driver, char *out,
			     size_t len);

/* A GID in fe80::/10: an IPv6 link-local address, which RoCE v2 cannot
 * route from or to another host's routable GID. */
static inline bool rp_gid_link_local(const uint8_t gid[RP_GID_LEN])
{
	return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

/* For backends, at the top of rp_verbs_connect(): v and peer given, one
 * peer address per QP of ours (rp_verbs_qps()); else RP_EINTERNAL,
 * reported. */
int rp_verbs_check_connect(const struct rp_verbs *v,
			   const struct rp_qp_addr *peer, uint32_t n)
	__attribute__((warn_unused_result));
/* For backends, in every post and in rp_verbs_local(): qp < qps, else
 * RP_EINTERNAL, reported as verb's. */
int rp_verbs_check_qp(uint32_t qp, uint32_t qps, const char *verb)
	__attribute__((warn_unused_result));

/*
 * For backends, in every post with a ring range (write, send, read,
 * receive): [off, off+len) must lie in the ring and len fit one WR. 0,
 * or RP_EINTERNAL (reported).
 */
int rp_verbs_check_write(size_t ring_len, size_t off, uint32_t len)
	__attribute__((warn_unused_result));

/* "WRITE", "RECV_RDMA_WITH_IMM", ... for traces. */
const char *rp_wc_op_name(enum rp_wc_op op);

#endif
