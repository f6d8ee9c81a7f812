// SPDX-License-Identifier: MIT
/*
 * --op write, the default: RDMA Write with immediate.
 *
 * The receiver registers its ring writable by the peer and answers
 * HELLO with an MR message carrying the ring's address and rkey. For
 * each chunk, the sender posts one RDMA Write with immediate from its
 * own slot n % window into the same slot of the receiver's ring. The
 * receiver's CPU takes no part in moving the bytes: its NIC puts them
 * in place, then consumes one of the zero-length receives the receiver
 * keeps posted on the QP and raises a completion carrying the
 * immediate (the chunk's number, with RP_IMM_END on a file's last
 * chunk) and the byte count. The receiver posts that receive again at
 * once, then hands the chunk on. The slot stays writable by the peer,
 * so each chunk is copied out of the ring before it is hashed and
 * written to disk: the bytes hashed are exactly the bytes written, and
 * the slot can be credited as soon as it is copied. The sender's slot
 * is free once its Write has completed and the receiver's credit (a
 * zero-length Send with the number of chunks taken) covers it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "session_int.h"

static void write_trace_path(const struct xfer *x)
{
	rp_op_trace_into_slot(x, "an RDMA Write with immediate");
}

/* Into the receiver's slot: its ring's address and rkey came in its MR. */
static int write_send_chunk(struct xfer *x, uint64_t seq, size_t off,
			    uint32_t len, bool last)
{
	return rp_verbs_post_write_imm(x->v, xfer_chunk_qp(x, seq), seq, off,
				       len, x->ost.raddr + off, x->ost.rkey,
				       xfer_chunk_imm(seq, last));
}

/* A Write with immediate landed: its receive goes back on its QP, and
 * the chunk is the next one on that QP. */
static int write_recv_wc(struct xfer *x, struct recv_state *r,
			 const struct rp_wc *wc)
{
	int rc;

	if (wc->op != RP_WC_RECV_WRITE_IMM)
		return rp_op_unexpected_wc(x, wc);
	rc = rp_verbs_post_recv(x->v, wc->qp, wc->wr_id);
	if (rc)
		return rc;
	return rp_op_recv_arrive(x, r, rp_op_recv_next_on(r, wc->qp),
				 wc->imm, wc->byte_len);
}

const struct rp_data_ops rp_data_op_write = {
	.op = RP_OP_WRITE,
	.send_access = 0,
	.recv_access = RP_ACCESS_LOCAL_WRITE | RP_ACCESS_REMOTE_WRITE,
	.reads = false,
	.recv_copies = true,
	.sent_wc = RP_WC_WRITE,
	.trace_path = write_trace_path,
	.send_chunk = write_send_chunk,
	.recv_arm = rp_op_arm_zero_recvs,
	.recv_refill = NULL,
	.recv_wc = write_recv_wc,
};
