/* SPDX-License-Identifier: MIT */
/*
 * The in-memory fabric: a second implementation of rdmapush/verbs.h,
 * chosen at link time (src/fabric_mem.c in place of src/verbs*.c), for
 * the in-process session tests and the native benchmark. This header is
 * its test-facing side: faults to inject and what is still open.
 *
 * What it models, after rxe:
 *   - Endpoints pair by QPN at rp_verbs_connect(). Either side may open
 *     first; the pairing holds once both have connected.
 *   - Write with immediate checks the rkey and bounds against the peer's
 *     registered ring, copies the bytes, consumes a posted receive and
 *     completes on both sides. A bad rkey, an out-of-bounds access or no
 *     posted receive fails the writer's completion (reported with the
 *     status rxe would give: remote access error, RNR retry exceeded)
 *     and moves the responder's QP to ERROR, so everything it has posted
 *     is flushed.
 *   - Zero-length Send with immediate consumes a posted receive.
 *   - rp_verbs_next() keeps the real contract: deadline, watch_fd, signal
 *     (RP_EINTERRUPTED), RP_EWC for a failed completion, no busy polling.
 * Thread-safe: a sender and a receiver may run as two threads.
 */
#ifndef RDMAPUSH_FABRIC_MEM_H
#define RDMAPUSH_FABRIC_MEM_H

#include <stdbool.h>
#include <stdint.h>

/* Which endpoint a fault applies to: the one opened with remote_write
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
	 * rp_verbs_next() returns RP_EWC and the QP goes to ERROR. */
	RP_FAB_FAIL_COMPLETION,
	/* From the nth post on, that side's posts are accepted but nothing
	 * is delivered or completed: the peer waits until its deadline. */
	RP_FAB_STALL,
	/* At the nth post, that side dies: its QP goes to ERROR, and the
	 * peer's next operations fail as a dead peer's would
	 * (retry exceeded). */
	RP_FAB_KILL,
};

/*
 * Arm one fault for the next transfer (one per side at a time; arming
 * RP_FAB_NONE disarms). Takes effect on endpoints opened afterwards and
 * on those open now.
 */
void rp_fab_fault(enum rp_fab_side side, enum rp_fab_fault what,
		  uint64_t nth);

/*
 * Called (outside the fabric's locks) after every successful post on
 * either side, with the 1-based count of posts on that side. Lets a test
 * act mid-data (raise a stop flag, close a socket) at a chosen point
 * without sleeping. NULL removes it.
 */
typedef void (*rp_fab_hook)(enum rp_fab_side side, uint64_t nth, void *arg);
void rp_fab_set_hook(rp_fab_hook hook, void *arg);

/* What the fabric holds right now, to assert that a transfer released
 * everything. */
struct rp_fab_stats {
	int open;		/* contexts opened and not yet closed */
	int rings;		/* rings registered and not deregistered */
	uint64_t writes;	/* Write-with-immediate delivered */
	uint64_t sends;		/* Send-with-immediate delivered */
	uint64_t bytes;		/* bytes copied by writes */
};
void rp_fab_stats(struct rp_fab_stats *out);

/* Disarm faults and hook, zero the counters. Endpoints still open are
 * kept (their count stays visible in rp_fab_stats().open). */
void rp_fab_reset(void);

#endif
