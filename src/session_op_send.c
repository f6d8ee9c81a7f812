// SPDX-License-Identifier: MIT
/*
 * --op send: two-sided Send/Receive.
 *
 * Neither ring is exposed: no rkey goes on the wire, and no peer can
 * touch either side's memory. Instead the receiver posts, on each
 * chunk's QP and in the order the chunks come, a receive pointing into
 * the chunk's own slot n % window of its ring. The sender posts a Send
 * with immediate of the chunk from the same slot of its ring; the
 * receiver's NIC puts the bytes where the next receive on that QP
 * points, and raises a completion with the immediate (the chunk's
 * number, with RP_IMM_END on a file's last chunk) and the byte count. A
 * slot's receive is posted again only once the chunk in it is written,
 * just before the credit that lets the sender fill it: until then no
 * Send can land in it, so the receiver hashes and writes each chunk
 * straight from its slot. The sender's slot is free once its Send has
 * completed and the credit covers it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "session_int.h"

static void send_trace_path(const struct xfer *x)
{
	rp_op_trace_into_slot(x, "a Send with immediate, landing in the "
			      "receive it posted");
}

static int send_send_chunk(struct xfer *x, uint64_t seq, size_t off,
			   uint32_t len, bool last)
{
	return rp_verbs_post_send_data(x->v, xfer_chunk_qp(x, seq), seq, off,
				       len, xfer_chunk_imm(seq, last));
}

/*
 * A Send's bytes land where its receive points, so each slot has one
 * posted into it, first up to the window, then again once credited,
 * before the credit that lets the sender fill it; in slot order, as
 * receives are used, each on its chunk's QP.
 */
static int post_slot_recvs(struct xfer *x)
{
	uint64_t *recvs = &x->ost.recvs;

	while (*recvs < x->done + x->window) {
		int rc = rp_verbs_post_recv_buf(x->v, xfer_chunk_qp(x, *recvs),
						*recvs % x->window,
						xfer_slot_off(x, *recvs),
						x->chunk);

		if (rc)
			return rc;
		(*recvs)++;
	}
	return 0;
}

/* A Send landed in its slot: the next chunk on its QP. Its receive is
 * posted again before its slot's credit (post_slot_recvs). */
static int send_recv_wc(struct xfer *x, struct recv_state *r,
			const struct rp_wc *wc)
{
	if (wc->op != RP_WC_RECV_SEND_IMM)
		return rp_op_unexpected_wc(x, wc);
	return rp_op_recv_arrive(x, r, rp_op_recv_next_on(r, wc->qp),
				 wc->imm, wc->byte_len);
}

const struct rp_data_ops rp_data_op_send = {
	.op = RP_OP_SEND,
	.send_access = 0,
	.recv_access = RP_ACCESS_LOCAL_WRITE,
	.reads = false,
	.recv_copies = false,
	.sent_wc = RP_WC_SEND,
	.trace_path = send_trace_path,
	.send_chunk = send_send_chunk,
	.recv_arm = post_slot_recvs,
	.recv_refill = post_slot_recvs,
	.recv_wc = send_recv_wc,
};
