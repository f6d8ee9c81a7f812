/* SPDX-License-Identifier: MIT */
/*
 * The in-memory fabric: a second implementation of rdmapush/verbs.h,
 * chosen at link time (tests/fakes/fabric_mem.c in place of
 * src/verbs*.c), for the in-process session tests and the native
 * benchmark. This header is its test-facing side: faults to inject and
 * what is still open.
 *
 * What it models, after rxe:
 *   - An endpoint (a context) has cfg.qps RC QPs (1..RP_QPS_MAX, 0 taken
 *     as 1). Each has its own QPN (allocated sequentially), PSN, state,
 *     pairing, receive queue and send queue; the CQ (rp_verbs_next()
 *     returns every QP's completions, rp_wc.qp naming the QP's index),
 *     the ring and its rkey and the access bits are the context's.
 *   - QPs pair by QPN at rp_verbs_connect(): our QP i with the QP whose
 *     address is peer[i], which must name ours back (the peer's QP i
 *     when both pass their addresses in order). Either side may connect
 *     first; the pairing holds once both have connected. A request on
 *     QP i goes to the QP paired with it, and a Write or a Send consumes
 *     a receive posted on that QP only. A request to a QP that is not
 *     (or no longer) paired with us, or is in ERROR, completes with
 *     "transport retry counter exceeded", as to a dead host.
 *   - Access: cfg.access is both the ring's MR access and the QP's.
 *     rp_verbs_reg_ring() refuses REMOTE_WRITE without LOCAL_WRITE
 *     (-EINVAL, reported), as ibv_reg_mr does. Every post with a ring
 *     range needs a registered ring and a range inside it
 *     (rp_verbs_check_write(); RP_EINTERNAL, reported); the access bits
 *     are checked only when bytes move, as on a NIC.
 *   - Write with immediate checks the responder's REMOTE_WRITE, the rkey
 *     and bounds against its registered ring, copies the bytes, consumes
 *     a receive posted on the paired QP (of any length: its buffer is
 *     not used) and
 *     completes on both sides. No REMOTE_WRITE, a bad rkey, an
 *     out-of-bounds access or no posted receive fails the writer's
 *     completion (reported with the status rxe would give: remote
 *     invalid request, remote access error, RNR retry exceeded) and
 *     moves the responder's QP to ERROR, so everything it has posted is
 *     flushed ("Work Request Flushed Error").
 *   - A plain RDMA Write (rp_verbs_post_write()) is checked as a Write
 *     with immediate, lands in the ring with its last byte stored last
 *     (release order: a poller of that byte sees the whole message),
 *     consumes no receive and completes only on the writer, and not
 *     at all when unsignaled unless it fails.
 *   - RDMA Read checks the responder's REMOTE_READ, the rkey and bounds
 *     the same way (the same statuses; the responder goes to ERROR),
 *     then copies the peer's bytes into our ring and completes only on
 *     the requester (RP_WC_READ, byte_len = len); it consumes no receive
 *     and the responder sees no completion. Our ring without LOCAL_WRITE
 *     fails our completion with "local protection error" (the responder
 *     is untouched, as with rxe, which checks as the response lands).
 *   - Send with immediate (a credit of zero length, or ring bytes)
 *     consumes the peer's next posted receive. Its bytes are copied into
 *     that receive's buffer (rp_verbs_post_recv_buf(); a zero-length
 *     receive has none): RP_WC_RECV_SEND_IMM with byte_len = the bytes
 *     sent, and RP_WC_SEND here. A Send longer than the buffer fails
 *     both: the receiver's completion with "local length error", ours
 *     with "remote invalid request error". A Send with bytes into a
 *     receive whose ring lacks LOCAL_WRITE (or was deregistered since)
 *     fails the receiver's completion with "local protection error" and
 *     ours with "remote operation error" (the post itself succeeds: a
 *     NIC finds out only when the bytes land). Either way the receiver's
 *     QP goes to ERROR. No receive posted: RNR retry exceeded, as for a
 *     Write.
 *   - Completions of our Writes, Sends and Reads on one QP come in post
 *     order. Across QPs nothing is promised, as with rxe and NICs, but a
 *     request executes as it is posted, so they come in post order too,
 *     unless RP_FAB_CROSS_QP is armed to mix them.
 *   - Any failed completion moves the QP it came on to ERROR as well,
 *     that QP only: the context's other QPs go on, as with rxe. On a QP
 *     in ERROR every later post is accepted and completes flushed. A
 *     Send, Write or Read before rp_verbs_connect() fails to post
 *     (EINVAL, RP_EVERBS), as ibv_post_send does before RTS.
 *   - Queue depths, per QP: at most max_send_wr sends/writes/reads and
 *     max_recv_wr receives outstanding, a slot being freed when its
 *     completion is returned by rp_verbs_next(); one more post fails
 *     (ENOMEM, RP_EVERBS, reported). The CQ holds every QP's.
 *   - A post on a QP the context does not have is a bug: RP_EINTERNAL,
 *     reported, as from the real backend. So is rp_verbs_connect() with
 *     a number of peer addresses other than our number of QPs.
 *   - A request to a peer QP that exists but has not connected to us
 *     yet (still in INIT) waits, parked in post order, and is delivered
 *     once that QP connects: an RC requester retries until the
 *     responder reaches RTR. rp_verbs_relink() gives every QP a fresh
 *     QPN and PSN in INIT, with its receives, completions and parked
 *     requests dropped.
 *   - rp_verbs_next() keeps the real contract: deadline, watch_fd, signal
 *     (RP_EINTERRUPTED), RP_EWC for a failed completion, no busy polling;
 *     rp_verbs_poll() looks once and returns.
 * Thread-safe: a sender and a receiver may run as two threads (each
 * endpoint used by one thread at a time); rp_fab_*() from any thread.
 * Build: link libfabric_mem.a before librdmapush.a, with -pthread.
 */
#ifndef RDMAPUSH_FABRIC_MEM_H
#define RDMAPUSH_FABRIC_MEM_H

#include <stdbool.h>
#include <stdint.h>

/* Which endpoint a fault applies to: the one opened with cfg.receiver
 * (the receiver) or without (the sender). */
enum rp_fab_side {
	RP_FAB_SENDER = 0,
	RP_FAB_RECEIVER,
	RP_FAB_SIDE_MAX,
};

enum rp_fab_fault {
	RP_FAB_NONE = 0,
	/* The nth post (1-based, any kind) on that side returns an error. */
	RP_FAB_FAIL_POST,
	/* The nth completion (1-based) on that side is delivered failed:
	 * rp_verbs_next() returns RP_EWC and its QP goes to ERROR. */
	RP_FAB_FAIL_COMPLETION,
	/* From the nth post on, that side's posts are accepted but nothing
	 * is delivered or completed: the peer waits until its deadline. */
	RP_FAB_STALL,
	/* At the nth post, that side dies: its QPs go to ERROR, and the
	 * peer's next operations fail as a dead peer's would
	 * (retry exceeded). */
	RP_FAB_KILL,
	/* Not counted: every endpoint of that side opened while it is
	 * armed gets its own Send, Write and Read completions (on any QP) nth
	 * milliseconds late, as when ACKs are slow on a real link (rxe
	 * completes a request only when the responder's ACK or Read
	 * response arrives). Stays armed until disarmed or reset. */
	RP_FAB_SLOW_ACK,
	/* Not counted: rp_verbs_next() on that side's contexts of several
	 * QPs returns completions out of order across QPs, each QP's in
	 * its own order, as rxe and NICs may (QPs are independent; only
	 * each QP's send queue and receive queue keep an order). It takes
	 * effect at once on contexts open now; its nth is a time, see
	 * below. Stays armed until disarmed or reset. */
	RP_FAB_CROSS_QP,
	/* The nth completion (1-based) on that side, if it succeeded, comes
	 * back as a Write with immediate that landed (RDMA_WITH_IMM), as
	 * if the peer had written into this side's ring: a protocol
	 * violation for a sender, which never takes one. */
	RP_FAB_STRAY_WC,
	/* At the nth post on that side, the link goes down: every QP of
	 * that endpoint loses its peer QP (both stay alive), and every
	 * request either side makes on them from then on, that post
	 * included, fails with "transport retry counter exceeded" (its
	 * QP goes to ERROR). Receives stay posted. Fresh QPs from
	 * rp_verbs_relink() on both sides pair and work again. */
	RP_FAB_LINK_DOWN,
	/* The nth rp_verbs_connect() on that side (1: the session's own,
	 * 2: the first after an outage), and with rp_fab_unreach() every
	 * one for some time after, fails as RTR does on RoCE when the
	 * peer's Ethernet address does not resolve (ETIMEDOUT), and no QP
	 * moves: with rp_verbs_set_relink() on, traced, RP_EWC and
	 * rp_verbs_link_down(); off, one RP_ERR line and RP_EVERBS. */
	RP_FAB_CONNECT_UNREACH,
};

/* RP_FAB_CONNECT_UNREACH at the nth connect on side, and every connect
 * of that endpoint in the ms milliseconds after it: an address that
 * stays unresolved while a link outage goes on. */
void rp_fab_unreach(enum rp_fab_side side, uint64_t nth, unsigned int ms);

/*
 * Arm one fault for the next transfer (one per side at a time; arming
 * RP_FAB_NONE, or nth 0, disarms). Takes effect on endpoints opened
 * afterwards and on those open now. Counts are kept per endpoint, over
 * all its QPs: each counts its own posts (every rp_verbs_post_*() call,
 * failed ones included) and its own completions (flushed ones included)
 * from 1; with one sender and one receiver open that is the count per
 * side. A fault
 * is one-shot: it fires on the first endpoint of its side to reach nth,
 * then it is disarmed, so the transfer after it runs clean.
 *
 * What each does when it fires:
 *   FAIL_POST        that post returns RP_EVERBS after one RP_ERR line
 *                    ("ibv_post_recv(RECV, ...): Input/output error
 *                    (fault injected by the fabric)"); nothing is posted.
 *   FAIL_COMPLETION  that completion is returned as "general error" (or
 *                    the status of rp_fab_fail_completion()):
 *                    rp_verbs_next() reports it and returns RP_EWC; the
 *                    QP it came on goes to ERROR and its receives are
 *                    flushed.
 *   STALL            that endpoint freezes, every QP of it: its sends
 *                    and writes take a send-queue slot and vanish, the
 *                    peer's requests to it vanish too (never completed);
 *                    receives may still be posted. Both sides wait for
 *                    their deadline or their watch_fd.
 *   LINK_DOWN        that post returns 0 and completes with "transport
 *                    retry counter exceeded"; see the enum.
 *   KILL             that post returns 0, but every QP of the endpoint
 *                    is unpaired and in ERROR: it and the receives still
 *                    posted are flushed (its rp_verbs_next() returns
 *                    RP_EWC); the peer's later requests, on any QP, fail
 *                    with "transport retry counter exceeded".
 *
 * How CROSS_QP mixes them (every poll, deterministic, so a striped
 * transfer reliably sees its chunks complete out of order): a
 * successful completion taken out of the CQ while none is held is held
 * back, and the
 * completions of other QPs queued after it are returned ahead of it
 * (each counts in rp_fab_stats' crossed). The held one is returned
 * right before the next completion of its own QP or a failed one (so
 * each QP keeps its order and a failure is reported as ever), at the
 * end of a batch that returned anything, or after nth
 * milliseconds with nothing else coming (it still holds its queue slot
 * meanwhile; rp_verbs_next() wakes for it as for a new one). Posting
 * writes on QPs 0 1 2 3 0 1 2 3 and polling them at once gives
 * 1 2 3 0 5 6 7 4. A context of one QP is not affected.
 */
void rp_fab_fault(enum rp_fab_side side, enum rp_fab_fault what,
		  uint64_t nth);

/*
 * RP_FAB_FAIL_COMPLETION, armed as rp_fab_fault() arms it, but the nth
 * completion fails with status (an enum ibv_wc_status number:
 * rdmapush/wc_causes.h's enum rp_wc_status) in place of "general
 * error", and is reported as a real one with that status would be.
 * A status out of 1..RP_WCS_MAX-1 gives "general error".
 */
void rp_fab_fail_completion(enum rp_fab_side side, uint64_t nth,
			    int status);

/*
 * Called (outside the fabric's locks, in the posting thread) after every
 * successful post on either side, with that post's 1-based count on its
 * endpoint (as the faults count: a failed post is counted, not hooked).
 * Lets a test act mid-data (raise a stop flag, close a socket) at a
 * chosen point without sleeping. NULL removes it.
 */
typedef void (*rp_fab_hook)(enum rp_fab_side side, uint64_t nth, void *arg);
void rp_fab_set_hook(rp_fab_hook hook, void *arg);

/* What the fabric holds right now, to assert that a transfer released
 * everything. open and rings are live counts; the others count since the
 * last rp_fab_reset(). "Delivered" means it consumed the peer's receive. */
struct rp_fab_stats {
	int open;		/* contexts opened and not yet closed */
	uint64_t opened;	/* contexts opened since the last reset */
	int rings;		/* rings registered and not deregistered */
	uint64_t writes;	/* Write-with-immediate delivered */
	uint64_t plain_writes;	/* plain RDMA Writes landed (no receive) */
	uint64_t sends;		/* Send-with-immediate delivered, with
				 * bytes or none */
	uint64_t bytes;		/* bytes pushed: by writes and sends */
	uint64_t reads;		/* RDMA Reads completed successfully */
	uint64_t read_bytes;	/* bytes pulled by those reads (not in
				 * bytes) */
	uint64_t crossed;	/* completions returned ahead of one of
				 * another QP of their context queued
				 * before them (RP_FAB_CROSS_QP) */
};
void rp_fab_stats(struct rp_fab_stats *out);

/* Disarm faults, hook and discard, zero opened and the data counters (writes,
 * plain_writes, sends, bytes, reads, read_bytes, crossed). Endpoints and rings still open are
 * kept (their counts stay visible in rp_fab_stats()). */
void rp_fab_reset(void);

/*
 * For a benchmark of one side alone (scripts/bench mem's "send alone"):
 * Writes and Sends into that side's contexts opened while it is on are
 * checked, consume receives and complete as ever, but their bytes are
 * not copied, as a NIC's DMA costs the hosts' CPUs nothing. Only for a
 * peer that never reads what lands (the benchmark's synthetic sink).
 * Off again after rp_fab_reset().
 */
void rp_fab_discard(enum rp_fab_side side, bool on);

#endif
