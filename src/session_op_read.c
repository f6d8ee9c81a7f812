// SPDX-License-Identifier: MIT
/*
 * --op read: the receiver pulls each chunk with an RDMA Read.
 *
 * Here the sender's ring is the one a peer may touch: the sender
 * registers it readable and, once its QPs are connected, follows the
 * receiver's MR with an MR of its own (its ring's address and rkey).
 * The receiver exposes nothing. For each chunk read into its slot
 * n % window, the sender posts a zero-length Send with immediate, an
 * announcement: the immediate is the chunk's length, with RP_IMM_END on
 * a file's last chunk. It consumes one of the zero-length receives the
 * receiver keeps posted on the QP; the receiver posts that receive
 * again and answers with an RDMA Read of that many bytes from the
 * sender's slot into the same slot of its own ring, on the same QP.
 * When the Read completes, the bytes are in, and the chunk goes on as a
 * Write's would. Each QP allows a window of Reads in flight, and the
 * receiver's send queue holds them besides its credits. Nothing remote
 * can write into the receiver's ring, so it hashes and writes each
 * chunk straight from its slot, and credits the slot once it is
 * written. The sender's slot is free once its announcement has
 * completed and the credit covers it: only then has the Read finished
 * with it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>

#include "rdmapush/err.h"
#include "rdmapush/trace.h"
#include "session_int.h"

static void read_trace_path(const struct xfer *x)
{
	RP_EV("data", "data.path", "chunk n waits in slot n % {window} "
	      "of our ring; a zero-length Send with imm = its length "
	      "(+ {imm_end} on a file's last chunk) tells the "
	      "receiver to RDMA-Read it into the same slot of its ring",
	      EV_U("window", x->window), EV_X("imm_end", RP_IMM_END, 8),
	      EV_S("op", rp_proto_op_name(x->op)));
}

/* The announcement: the length goes in the immediate, since the
 * receiver must know how much to read. */
static int read_send_chunk(struct xfer *x, uint64_t seq, size_t off,
			   uint32_t len, bool last)
{
	(void)off;	/* the receiver reads the same slot of ours */
	return rp_verbs_post_send_imm(x->v, xfer_chunk_qp(x, seq), seq,
				      len | (last ? RP_IMM_END : 0));
}

/*
 * The sender says its next chunk on this QP is in its slot, imm = its
 * length and RP_IMM_END; read it, on the same QP, into the same slot of
 * ours. announced[] keeps imm until the Read completes: announcements
 * stay within window of the credit, and a chunk is credited only once
 * its Read has completed, so no two share an entry.
 */
static int on_announce(struct xfer *x, struct recv_state *r,
		       const struct rp_wc *wc)
{
	uint32_t len = wc->imm & ~RP_IMM_END;
	uint64_t n = rp_op_recv_next_on(r, wc->qp);
	size_t off = xfer_slot_off(x, n);
	int rc;

	if (wc->byte_len || len > x->chunk || n >= x->done + x->window) {
		RP_ERR("chunk announcement from %s out of bounds: %u bytes "
		       "(chunk %u), chunk #%" PRIu64 ", %" PRIu64
		       " credited", x->peer, len, x->chunk, n, x->done);
		return RP_EPROTO;
	}
	rc = rp_verbs_post_recv(x->v, wc->qp, wc->wr_id);
	if (!rc)
		rc = rp_verbs_post_read(x->v, wc->qp, n, off, len,
					x->ost.raddr + off, x->ost.rkey);
	if (rc)
		return rc;
	x->ost.announced[n % x->window] = wc->imm;
	return 0;
}

/* A Read done: wr_id is its chunk's number; the announcement says the
 * rest, as a Write's immediate would. */
static int land_read(struct xfer *x, struct recv_state *r,
		     const struct rp_wc *wc)
{
	uint32_t imm = x->ost.announced[wc->wr_id % x->window];

	return rp_op_recv_arrive(x, r, wc->wr_id, (imm & RP_IMM_END) |
				 ((uint32_t)wc->wr_id & RP_IMM_SEQ),
				 imm & ~RP_IMM_END);
}

static int read_recv_wc(struct xfer *x, struct recv_state *r,
			const struct rp_wc *wc)
{
	switch (wc->op) {
	case RP_WC_RECV_SEND_IMM:
		return on_announce(x, r, wc);
	case RP_WC_READ:
		return land_read(x, r, wc);
	default:
		return rp_op_unexpected_wc(x, wc);
	}
}

const struct rp_data_ops rp_data_op_read = {
	.op = RP_OP_READ,
	.send_access = RP_ACCESS_REMOTE_READ,
	.recv_access = RP_ACCESS_LOCAL_WRITE,
	.reads = true,
	.recv_copies = false,
	.sent_wc = RP_WC_SEND,
	.trace_path = read_trace_path,
	.send_chunk = read_send_chunk,
	.recv_arm = rp_op_arm_zero_recvs,
	.recv_refill = NULL,
	.recv_wc = read_recv_wc,
};
