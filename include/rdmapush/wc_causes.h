/* SPDX-License-Identifier: MIT */
/*
 * What a failed work completion means: one table, keyed by the numbers
 * of libibverbs' enum ibv_wc_status, with each status's words (those of
 * ibv_wc_status_str()), what it says happened, its usual causes on RoCE
 * and on InfiniBand, and what to check. Both verbs backends (src/verbs*.c
 * and the in-memory fabric) report a failed completion through it, and
 * the manual's COMPLETION ERRORS table is the same rows. It never sees
 * <infiniband/verbs.h>: src/verbs_wait.c checks that the numbers below
 * are IBV_WC_*'s.
 */
#ifndef RDMAPUSH_WC_CAUSES_H
#define RDMAPUSH_WC_CAUSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* XX(name, value): IBV_WC_<name> is value. */
#define RP_WC_STATUS_MAP(XX)						\
	XX(SUCCESS, 0)							\
	XX(LOC_LEN_ERR, 1)						\
	XX(LOC_QP_OP_ERR, 2)						\
	XX(LOC_EEC_OP_ERR, 3)						\
	XX(LOC_PROT_ERR, 4)						\
	XX(WR_FLUSH_ERR, 5)						\
	XX(MW_BIND_ERR, 6)						\
	XX(BAD_RESP_ERR, 7)						\
	XX(LOC_ACCESS_ERR, 8)						\
	XX(REM_INV_REQ_ERR, 9)						\
	XX(REM_ACCESS_ERR, 10)						\
	XX(REM_OP_ERR, 11)						\
	XX(RETRY_EXC_ERR, 12)						\
	XX(RNR_RETRY_EXC_ERR, 13)					\
	XX(LOC_RDD_VIOL_ERR, 14)					\
	XX(REM_INV_RD_REQ_ERR, 15)					\
	XX(REM_ABORT_ERR, 16)						\
	XX(INV_EECN_ERR, 17)						\
	XX(INV_EEC_STATE_ERR, 18)					\
	XX(FATAL_ERR, 19)						\
	XX(RESP_TIMEOUT_ERR, 20)					\
	XX(GENERAL_ERR, 21)						\
	XX(TM_ERR, 22)							\
	XX(TM_RNDV_INCOMPLETE, 23)

enum rp_wc_status {
#define RP_WC_STATUS_ENUM(name, val) RP_WCS_##name = (val),
	RP_WC_STATUS_MAP(RP_WC_STATUS_ENUM)
#undef RP_WC_STATUS_ENUM
	RP_WCS_MAX
};

/* One status a push or a ping can meet on an RC QP. */
struct rp_wc_cause {
	enum rp_wc_status status;
	const char *means;	/* what happened, a phrase */
	const char *roce;	/* its usual causes on RoCE */
	const char *ib;		/* and on InfiniBand */
	const char *check;	/* what to check, a phrase */
};

/* The table, one row per status it explains (SUCCESS and the statuses
 * of other QP types are not in it); *n gets its length. */
const struct rp_wc_cause *rp_wc_causes(size_t *n);
/* The row of status, or NULL when the table has none. */
const struct rp_wc_cause *rp_wc_cause(int status);
/* ibv_wc_status_str()'s words for status ("remote access error");
 * "unknown completion status" for a number it does not know. */
const char *rp_wc_status_name(int status);
/* The enum's name without its prefix ("REM_ACCESS_ERR"), or "?". */
const char *rp_wc_status_id(int status);

/*
 * The "hint:" line for status, into buf: its usual causes on RoCE (roce)
 * or InfiniBand, then what to check. Returns buf, or NULL (buf empty)
 * when the table has no row for status.
 */
const char *rp_wc_hint(char *buf, size_t len, int status, bool roce);

/* A failed completion, as a backend polled it. */
struct rp_wc_failure {
	int status;		/* enum ibv_wc_status */
	uint32_t vendor_err;
	uint64_t wr_id;
	uint32_t qpn;
	const char *which;	/* " (QP 1 of 2)", " (none of ours)" or "" */
	bool roce;		/* the port's link layer is Ethernet */
};

/*
 * The first failed completion of an endpoint: one error line naming the
 * status and what it means, with the hint (rp_wc_hint) held for main's
 * "hint:" line, and the "wc.failed" trace event carrying the status,
 * its meaning, causes and what to check. Prints nothing else.
 */
void rp_wc_report_first(const struct rp_wc_failure *f);
/* A later one: a "wc.failed" event only (traced, not an error). */
void rp_wc_trace_too(const struct rp_wc_failure *f);
/* One the caller rides out as a link outage (--retry-for): the
 * "wc.link" event. */
void rp_wc_trace_link(const struct rp_wc_failure *f);

#endif
