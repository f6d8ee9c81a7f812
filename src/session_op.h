/* SPDX-License-Identifier: MIT */
/*
 * The data ops table: how the chunks of a push move (--op write, read,
 * send), one descriptor per op, each defined with its functions in its
 * own file (session_op_write.c, session_op_read.c, session_op_send.c).
 * The session's state machines (session_send.c, session_recv.c) and its
 * handshake know no op: they read the descriptor and call its hooks.
 * ping.c takes the access flags from it, and keys its own round trips
 * by it.
 *
 * The descriptor is called struct rp_data_ops (as the kernel's struct
 * file_operations) because enum rp_data_op (proto.h, the wire's values)
 * already owns the tag rp_data_op.
 */
#ifndef RDMAPUSH_SESSION_OP_H
#define RDMAPUSH_SESSION_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmapush/limits.h"
#include "rdmapush/proto.h"
#include "rdmapush/verbs.h"

struct xfer;
struct recv_state;

/*
 * What an op keeps through one session (in struct xfer), on whichever
 * side uses it; unused fields stay 0.
 */
struct rp_op_state {
	/*
	 * The peer's ring, where this side reaches into it: the sender's
	 * into the receiver's (write), the receiver's into the sender's
	 * (read), from the peer's MR.
	 */
	uint64_t raddr;
	uint32_t rkey;
	/* The receiver, send: receives posted into slots so far. */
	uint64_t recvs;
	/* The receiver, read: chunk n's announcement (its immediate) in
	 * announced[n % window], from its Send until its Read completes. */
	uint32_t announced[RP_MAX_WINDOW];
};

struct rp_data_ops {
	uint8_t op;		/* enum rp_data_op: its row in the table */
	/*
	 * RP_ACCESS_* each side's ring and QPs are opened with: only what
	 * the peer must do to them. A side whose access has a REMOTE_* bit
	 * exposes its ring: its MR message carries the ring's address and
	 * rkey (rp_op_exposes()); the receiver's MR answers HELLO, the
	 * sender's follows once its QPs are connected.
	 */
	unsigned int send_access;
	unsigned int recv_access;
	/*
	 * The receiver RDMA-Reads the chunks, a window at a time: every QP
	 * allows a window of Reads in flight (max_rd_atomic as requester,
	 * max_dest_rd_atomic as responder, else 1), and its send queue holds
	 * them besides the credits (rp_xfer_queue_depth()).
	 */
	bool reads;
	/*
	 * The receiver copies each chunk out of its slot before hashing and
	 * writing it (each worker gets a chunk of scratch), because the peer
	 * can write into the slot; else it hashes and writes straight from
	 * the slot.
	 */
	bool recv_copies;
	/* The sender: the completion its post of a chunk gives
	 * (RP_WC_WRITE or RP_WC_SEND); the slot then waits for credit. */
	enum rp_wc_op sent_wc;

	/* The sender: the data.path trace, once, as the data phase starts. */
	void (*trace_path)(const struct xfer *x);
	/*
	 * The sender: move chunk seq, len bytes (0 for an empty last chunk)
	 * in its slot at off of our ring, to the same slot of the
	 * receiver's, on QP xfer_chunk_qp(x, seq), with wr_id seq; last:
	 * its file's last chunk (RP_IMM_END). 0 or an error (reported).
	 */
	int (*send_chunk)(struct xfer *x, uint64_t seq, size_t off,
			  uint32_t len, bool last);
	/*
	 * The receiver, before its QPs connect: the receives the first
	 * window of chunks needs. 0 or an error (reported).
	 */
	int (*recv_arm)(struct xfer *x);
	/*
	 * The receiver, before each credit it gives (NULL: nothing to do):
	 * the receives the credited slots need. 0 or an error (reported).
	 */
	int (*recv_refill)(struct xfer *x);
	/*
	 * The receiver: a completion other than its own credit Sends'. A
	 * chunk whose bytes are in its slot goes to rp_op_recv_arrive();
	 * whatever the op does not expect is rp_op_unexpected_wc(). 0 or an
	 * error (reported).
	 */
	int (*recv_wc)(struct xfer *x, struct recv_state *r,
		       const struct rp_wc *wc);
};

/* The rows, one per op file. */
extern const struct rp_data_ops rp_data_op_write;
extern const struct rp_data_ops rp_data_op_read;
extern const struct rp_data_ops rp_data_op_send;

/* The descriptor of op (enum rp_data_op), or NULL for none. */
const struct rp_data_ops *rp_data_op_get(uint8_t op);

/* Whether a side with this access exposes its ring to the peer. */
static inline bool rp_op_exposes(unsigned int access)
{
	return access & (RP_ACCESS_REMOTE_WRITE | RP_ACCESS_REMOTE_READ);
}

/* ---- for the op files: what the session offers them ---- */

/*
 * Every QP, a window of zero-length receives: for ops whose chunks
 * consume a receive but put no bytes in it (a Write's or an
 * announcement's immediate). 0 or an error (reported).
 */
int rp_op_arm_zero_recvs(struct xfer *x);
/*
 * The data.path trace of an op that puts each chunk into the
 * receiver's slot, how (e.g. "an RDMA Write with immediate").
 */
void rp_op_trace_into_slot(const struct xfer *x, const char *how);
/*
 * A completion the op does not expect: reported as the peer breaking
 * the protocol. Returns RP_EPROTO.
 */
int rp_op_unexpected_wc(const struct xfer *x, const struct rp_wc *wc);
/*
 * The receiver: the session number of the next chunk to arrive on QP
 * qp (chunk n goes on QP n % qps, in order there; counted).
 */
uint64_t rp_op_recv_next_on(struct recv_state *r, uint32_t qp);
/*
 * The receiver: chunk n's bytes are in its slot, len of them; imm its
 * number and RP_IMM_END, as a Write's or Send's immediate says. 0 or an
 * error (reported).
 */
int rp_op_recv_arrive(struct xfer *x, struct recv_state *r, uint64_t n,
		      uint32_t imm, uint32_t len);

#endif
