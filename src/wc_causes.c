// SPDX-License-Identifier: MIT
/*
 * Failed work completions explained: the one table from each completion
 * status a push or a ping can meet to what it means, its usual causes
 * on RoCE and on InfiniBand and what to check, and the report both
 * verbs backends make of a failed completion with it (the error line,
 * its hint and the trace event). man/rdmapush.1's COMPLETION ERRORS
 * section is the same rows (tests/unit/test_wc_causes.c checks both).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>

#include "rdmapush/trace.h"
#include "rdmapush/wc_causes.h"

/* ibv_wc_status_str()'s words, so that both backends read as rxe's. */
static const char *const names[RP_WCS_MAX] = {
	[RP_WCS_SUCCESS] = "success",
	[RP_WCS_LOC_LEN_ERR] = "local length error",
	[RP_WCS_LOC_QP_OP_ERR] = "local QP operation error",
	[RP_WCS_LOC_EEC_OP_ERR] = "local EE context operation error",
	[RP_WCS_LOC_PROT_ERR] = "local protection error",
	[RP_WCS_WR_FLUSH_ERR] = "Work Request Flushed Error",
	[RP_WCS_MW_BIND_ERR] = "memory management operation error",
	[RP_WCS_BAD_RESP_ERR] = "bad response error",
	[RP_WCS_LOC_ACCESS_ERR] = "local access error",
	[RP_WCS_REM_INV_REQ_ERR] = "remote invalid request error",
	[RP_WCS_REM_ACCESS_ERR] = "remote access error",
	[RP_WCS_REM_OP_ERR] = "remote operation error",
	[RP_WCS_RETRY_EXC_ERR] = "transport retry counter exceeded",
	[RP_WCS_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
	[RP_WCS_LOC_RDD_VIOL_ERR] = "local RDD violation error",
	[RP_WCS_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
	[RP_WCS_REM_ABORT_ERR] = "aborted error",
	[RP_WCS_INV_EECN_ERR] = "invalid EE context number",
	[RP_WCS_INV_EEC_STATE_ERR] = "invalid EE context state",
	[RP_WCS_FATAL_ERR] = "fatal error",
	[RP_WCS_RESP_TIMEOUT_ERR] = "response timeout error",
	[RP_WCS_GENERAL_ERR] = "general error",
	[RP_WCS_TM_ERR] = "TM error",
	[RP_WCS_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
};

static const char *const ids[RP_WCS_MAX] = {
#define RP_WC_STATUS_ID(name, val) [val] = #name,
	RP_WC_STATUS_MAP(RP_WC_STATUS_ID)
#undef RP_WC_STATUS_ID
};

/*
 * What an RC QP moving Writes, Reads and Sends can meet. Not here: the
 * statuses of RD (EE contexts, RDD), memory windows and tag matching,
 * which rdmapush never uses. Each hint ("usually " + causes + "; check "
 * + check) stays one short line: about 200 bytes at most.
 */
static const struct rp_wc_cause causes[] = {
	{ RP_WCS_RETRY_EXC_ERR,
	  "no acknowledgement from the peer after every retry",
	  "the peer is gone, a wrong GID index (-g) or route, UDP port "
	  "4791 blocked, or an MTU mismatch",
	  "the peer is gone, a wrong LID or SL, or a port down",
	  "the peer runs, 'rdmapush devices --for HOST' on both hosts, "
	  "firewalls, MTUs" },
	{ RP_WCS_RNR_RETRY_EXC_ERR,
	  "the peer had no receive posted for our message after every "
	  "retry",
	  "the peer stopped posting receives (stalled, exiting) or has "
	  "fewer than we sent",
	  "the peer stopped posting receives (stalled, exiting) or has "
	  "fewer than we sent",
	  "the peer's own error line; the same rdmapush version on both "
	  "hosts" },
	{ RP_WCS_REM_ACCESS_ERR,
	  "the peer refused our RDMA access",
	  "a wrong or stale rkey, an address outside its registered ring, "
	  "or no REMOTE_WRITE/READ access on it",
	  "a wrong or stale rkey, an address outside its registered ring, "
	  "or no REMOTE_WRITE/READ access on it",
	  "the peer's own error line; the same rdmapush version on both "
	  "hosts" },
	{ RP_WCS_REM_INV_REQ_ERR,
	  "the peer's QP rejected the request as invalid",
	  "no REMOTE_WRITE or REMOTE_READ access on its QP, or a Send "
	  "longer than its posted receive",
	  "no REMOTE_WRITE or REMOTE_READ access on its QP, or a Send "
	  "longer than its posted receive",
	  "the same rdmapush version and --op on both hosts" },
	{ RP_WCS_REM_OP_ERR,
	  "the peer could not complete our request",
	  "its receive buffer not writable (no LOCAL_WRITE, deregistered) "
	  "or its QP failed",
	  "its receive buffer not writable (no LOCAL_WRITE, deregistered) "
	  "or its QP failed",
	  "the peer's own error line and its kernel log (dmesg)" },
	{ RP_WCS_REM_ABORT_ERR,
	  "the peer aborted the operation",
	  "the peer's QP was destroyed or reset mid-transfer (it exited or "
	  "was killed)",
	  "the peer's QP was destroyed or reset mid-transfer (it exited or "
	  "was killed)",
	  "whether the peer still runs, and its own error line" },
	{ RP_WCS_LOC_LEN_ERR,
	  "a message was longer than the buffer it was to land in",
	  "the two hosts disagree on a message's size (versions, "
	  "settings), or a bug",
	  "the two hosts disagree on a message's size (versions, "
	  "settings), or a bug",
	  "the same rdmapush version on both hosts" },
	{ RP_WCS_LOC_PROT_ERR,
	  "a local buffer is not covered by a valid memory registration",
	  "the ring deregistered or without LOCAL_WRITE, a wrong lkey, or "
	  "another protection domain",
	  "the ring deregistered or without LOCAL_WRITE, a wrong lkey, or "
	  "another protection domain",
	  "the kernel log (dmesg) and 'ulimit -l'; report it with the "
	  "--trace output" },
	{ RP_WCS_LOC_ACCESS_ERR,
	  "a local buffer refused the bytes meant for it",
	  "the ring registered without LOCAL_WRITE, or deregistered while "
	  "in use",
	  "the ring registered without LOCAL_WRITE, or deregistered while "
	  "in use",
	  "the kernel log (dmesg); report it with the --trace output" },
	{ RP_WCS_LOC_QP_OP_ERR,
	  "our QP could not execute the work request",
	  "a request beyond the QP's limits (SGEs, inline data), or a "
	  "provider bug (rxe of an old kernel)",
	  "a request beyond the QP's limits (SGEs, inline data), or a "
	  "driver or firmware issue",
	  "the kernel log (dmesg); the kernel and rdma-core versions" },
	{ RP_WCS_WR_FLUSH_ERR,
	  "the QP was already in the error state: flushed, not executed",
	  "an earlier failure on this QP, or on the peer's",
	  "an earlier failure on this QP, or on the peer's",
	  "the first failure (an earlier line, the peer's error, or "
	  "--trace)" },
	{ RP_WCS_BAD_RESP_ERR,
	  "the peer's responder sent an unexpected response",
	  "a different MTU or a buggy provider on the peer, or corrupted "
	  "packets",
	  "a faulty HCA or firmware, or corrupted packets",
	  "the active MTU on both hosts ('rdmapush devices'), the kernel "
	  "and firmware" },
	{ RP_WCS_RESP_TIMEOUT_ERR,
	  "the peer's response did not come in time",
	  "the peer is gone or overloaded, or packets are lost on the path",
	  "the peer is gone or overloaded, or packets are lost on the "
	  "fabric",
	  "the peer, the path and the link's error counters" },
	{ RP_WCS_FATAL_ERR,
	  "the device hit a fatal error",
	  "the rxe module or the NIC's driver failed, or its network "
	  "interface went away",
	  "an HCA firmware or hardware failure",
	  "the kernel log (dmesg), 'rdma link' and 'ibv_devinfo'" },
	{ RP_WCS_GENERAL_ERR,
	  "the provider reported a failure it does not classify",
	  "a driver-specific failure (vendor_err says which), e.g. a "
	  "resource exhausted",
	  "a driver-specific failure (vendor_err says which), e.g. a "
	  "resource exhausted",
	  "the kernel log (dmesg) and the vendor_err value" },
};

const struct rp_wc_cause *rp_wc_causes(size_t *n)
{
	*n = sizeof(causes) / sizeof(causes[0]);
	return causes;
}

const struct rp_wc_cause *rp_wc_cause(int status)
{
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if ((int)causes[i].status == status)
			return &causes[i];
	return NULL;
}

const char *rp_wc_status_name(int status)
{
	if (status < 0 || status >= RP_WCS_MAX || !names[status])
		return "unknown completion status";
	return names[status];
}

const char *rp_wc_status_id(int status)
{
	if (status < 0 || status >= RP_WCS_MAX || !ids[status])
		return "?";
	return ids[status];
}

const char *rp_wc_hint(char *buf, size_t len, int status, bool roce)
{
	const struct rp_wc_cause *c = rp_wc_cause(status);

	if (len)
		buf[0] = '\0';
	if (!c)
		return NULL;
	snprintf(buf, len, "usually %s; check %s", roce ? c->roce : c->ib,
		 c->check);
	return buf;
}

void rp_wc_report_first(const struct rp_wc_failure *f)
{
	const struct rp_wc_cause *c = rp_wc_cause(f->status);
	const char *name = rp_wc_status_name(f->status);
	char hint[RP_HELD_HINT_MAX];

	/* The opcode of a failed completion is undefined (ibv_poll_cq(3)):
	 * the caller's wr_id says which request it was. */
	RP_ERR_HINT(rp_wc_hint(hint, sizeof(hint), f->status, f->roce),
		    "work completion failed: %s (status %d, vendor_err "
		    "0x%x) wr_id=%" PRIu64 " opcode=n/a qp=0x%x%s%s%s", name,
		    f->status, f->vendor_err, f->wr_id, f->qpn, f->which,
		    c ? "; " : "", c ? c->means : "");
	if (!c)
		return;
	RP_EV("verbs", "wc.failed", "completion failed: {status} (status "
	      "{code}) wr_id={wr_id}: {means}; usual causes on {link}: "
	      "{causes}; check {check}", EV_S("status", name),
	      EV_I("code", f->status), EV_U("wr_id", f->wr_id),
	      EV_U("qpn", f->qpn), EV_U("vendor_err", f->vendor_err),
	      EV_S("means", c->means),
	      EV_S("link", f->roce ? "RoCE" : "InfiniBand"),
	      EV_S("causes", f->roce ? c->roce : c->ib),
	      EV_S("check", c->check), EV_B("first", true));
}

void rp_wc_trace_too(const struct rp_wc_failure *f)
{
	RP_EV("verbs", "wc.failed", "completion failed too: {status} "
	      "wr_id={wr_id}", EV_S("status", rp_wc_status_name(f->status)),
	      EV_U("wr_id", f->wr_id), EV_U("qpn", f->qpn));
}

void rp_wc_trace_link(const struct rp_wc_failure *f)
{
	RP_EV("verbs", "wc.link", "completion failed: {status} wr_id={wr_id} "
	      "qp={qpn}: the link may be down",
	      EV_S("status", rp_wc_status_name(f->status)),
	      EV_U("wr_id", f->wr_id), EV_X("qpn", f->qpn, 0));
}
