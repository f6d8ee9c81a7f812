// SPDX-License-Identifier: MIT
/*
 * Names and hints for the libibverbs backend's traces and error lines:
 * opcodes, QP states, link layers, GID types, access flags, and what a
 * failed completion or an async event most likely means.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>

#include "rdmapush/trace.h"
#include "verbs_int.h"

/* Data-path WRs and completions traced in full, per kind. */
#define TRACE_FIRST		4

static const char *const post_kind_names[POST_KIND_MAX] = {
	[POST_WRITE_IMM] = "WRITE_WITH_IMM",
	[POST_SEND_IMM] = "SEND_WITH_IMM",
	[POST_RECV] = "RECV",
};

const char *rp_verbs_post_kind_name(enum post_kind kind)
{
	return kind < POST_KIND_MAX ? post_kind_names[kind] : "?";
}

const char *rp_verbs_wc_opcode_name(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND:
		return "SEND";
	case IBV_WC_RDMA_WRITE:
		return "RDMA_WRITE";
	case IBV_WC_RDMA_READ:
		return "RDMA_READ";
	case IBV_WC_COMP_SWAP:
		return "COMP_SWAP";
	case IBV_WC_FETCH_ADD:
		return "FETCH_ADD";
	case IBV_WC_BIND_MW:
		return "BIND_MW";
	case IBV_WC_LOCAL_INV:
		return "LOCAL_INV";
	case IBV_WC_RECV:
		return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return "RECV_RDMA_WITH_IMM";
	default:
		return "?";
	}
}

const char *rp_verbs_qp_state_name(enum ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET:
		return "RESET";
	case IBV_QPS_INIT:
		return "INIT";
	case IBV_QPS_RTR:
		return "RTR";
	case IBV_QPS_RTS:
		return "RTS";
	case IBV_QPS_SQD:
		return "SQD";
	case IBV_QPS_SQE:
		return "SQE";
	case IBV_QPS_ERR:
		return "ERROR";
	default:
		return "?";
	}
}

const char *rp_verbs_link_layer_name(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet (RoCE)";
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	default:
		/* Old kernels report 0 for InfiniBand ports. */
		return "unspecified (InfiniBand)";
	}
}

const char *rp_verbs_gid_type_name(uint32_t type)
{
	switch (type) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	default:
		return "?";
	}
}

int rp_verbs_mtu_bytes(enum ibv_mtu m)
{
	if (m < IBV_MTU_256 || m > IBV_MTU_4096)
		return 0;
	return 128 << m;
}

const char *rp_verbs_access_str(char *buf, size_t len, unsigned int flags)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ IBV_ACCESS_LOCAL_WRITE, "LOCAL_WRITE" },
		{ IBV_ACCESS_REMOTE_WRITE, "REMOTE_WRITE" },
		{ IBV_ACCESS_REMOTE_READ, "REMOTE_READ" },
		{ IBV_ACCESS_REMOTE_ATOMIC, "REMOTE_ATOMIC" },
		{ IBV_ACCESS_MW_BIND, "MW_BIND" },
		{ IBV_ACCESS_ZERO_BASED, "ZERO_BASED" },
		{ IBV_ACCESS_ON_DEMAND, "ON_DEMAND" },
		{ IBV_ACCESS_RELAXED_ORDERING, "RELAXED_ORDERING" },
	};
	size_t used = 0;
	size_t i;

	if (!flags) {
		snprintf(buf, len, "none (local read only)");
		return buf;
	}
	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int n;

		if (!(flags & names[i].bit))
			continue;
		flags &= ~names[i].bit;
		n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
			     names[i].name);
		if (n < 0 || (size_t)n >= len - used)
			return buf;
		used += (size_t)n;
	}
	if (flags)
		snprintf(buf + used, len - used, "%s0x%x", used ? "|" : "",
			 flags);
	return buf;
}

const char *rp_verbs_wc_status_hint(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_REM_ACCESS_ERR:
		return "; the peer refused our RDMA access (wrong rkey, or "
		       "outside its registered ring)";
	case IBV_WC_RETRY_EXC_ERR:
		return "; no acknowledgement from the peer after every retry "
		       "(peer dead or unreachable)";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return "; the peer had no receive posted after every retry";
	case IBV_WC_WR_FLUSH_ERR:
		return "; flushed: the QP had already entered the error state";
	case IBV_WC_LOC_PROT_ERR:
		return "; local buffer not covered by our MR";
	case IBV_WC_REM_INV_REQ_ERR:
		return "; the peer's QP rejected the request (e.g. no "
		       "REMOTE_WRITE access on its QP)";
	default:
		return "";
	}
}

const char *rp_verbs_async_hint(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_QP_ACCESS_ERR:
		return " (a peer's RDMA access was refused: wrong rkey, or "
		       "outside our ring)";
	case IBV_EVENT_QP_REQ_ERR:
		return " (the peer sent a request our QP cannot accept)";
	case IBV_EVENT_PORT_ERR:
		return " (the link went down)";
	default:
		return "";
	}
}

bool rp_verbs_dp_trace(struct rp_verbs *v, uint64_t nth)
{
	if (!rp_trace_on())
		return false;
	if (nth <= TRACE_FIRST)
		return true;
	if (!v->dp_quiet) {
		v->dp_quiet = true;
		RP_TRACE("verbs", "(further data-path work requests and "
			 "completions are counted, not traced: only the first "
			 "%d of each kind are shown)", TRACE_FIRST);
	}
	return false;
}
