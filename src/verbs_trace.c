// SPDX-License-Identifier: MIT
/*
 * The libibverbs backend's trace text: the educational --trace line of
 * each verbs step, kept here so that the steps in verbs.c, verbs_qp.c,
 * verbs_select.c and verbs_wait.c read as code, and what the traces and
 * error lines need for it: names of opcodes, QP states, link layers, GID
 * types and access flags, and what an async event most likely means
 * (a failed completion's meaning is src/wc_causes.c's table).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "rdmapush/err.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "verbs_int.h"

/* Data-path WRs and completions traced in full, per kind. */
#define TRACE_FIRST		4

/* A trace line's list of reasons or counts, joined by sep ("; " if NULL). */
struct why {
	const char *sep;
	char buf[512];
	size_t len;
};

static void why_add(struct why *w, const char *fmt, ...) RP_PRINTF(2, 3);
static const char *on_qp(const struct rp_verbs *v, uint32_t qp, char *buf,
			 size_t len);

static const char *const post_kind_names[POST_KIND_MAX] = {
	[POST_WRITE_IMM] = "WRITE_WITH_IMM",
	[POST_WRITE] = "RDMA_WRITE",
	[POST_SEND_IMM] = "SEND_WITH_IMM",
	[POST_SEND_DATA] = "SEND_WITH_IMM(data)",
	[POST_READ] = "RDMA_READ",
	[POST_RECV] = "RECV",
	[POST_RECV_BUF] = "RECV(buffer)",
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

/* One table of names, devices.c's, for traces and `rdmapush devices`. */
const char *rp_verbs_gid_type_name(uint32_t type)
{
	return rp_gid_type_name(rp_verbs_gid_type_rp(type));
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
		snprintf(buf, len, "none");
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

/*
 * What an async event is about: "QP 0x12" (or "QP 1 of 2 (0x12)" when
 * there are several), "the CQ", "rxe0 port 1".
 */
const char *rp_verbs_async_element(const struct rp_verbs *v,
				   const struct ibv_async_event *ev,
				   char *buf, size_t len)
{
	int qp;

	switch (ev->event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		qp = rp_verbs_qp_index(v, ev->element.qp->qp_num);
		if (qp < 0)
			snprintf(buf, len, "QP 0x%x (none of ours)",
				 ev->element.qp->qp_num);
		else
			snprintf(buf, len, "%s", v->qp[qp].name);
		break;
	case IBV_EVENT_CQ_ERR:
		snprintf(buf, len, "the CQ");
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_GID_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
		snprintf(buf, len, "%s port %d", v->dev_name,
			 ev->element.port_num);
		break;
	default:
		snprintf(buf, len, "%s", v->dev_name);
		break;
	}
	return buf;
}

bool rp_verbs_dp_trace(struct rp_verbs *v, uint64_t nth)
{
	if (!rp_trace_any())
		return false;
	if (nth <= TRACE_FIRST)
		return true;
	if (!v->dp_quiet) {
		v->dp_quiet = true;
		RP_EV("verbs", "datapath.quiet", "(further data-path work "
		      "requests and completions are counted, not traced: only "
		      "the first {first} of each kind are shown)",
		      EV_I("first", TRACE_FIRST));
	}
	return false;
}

/* ---------------------------------------------------------------------
 * Error reports that explain the likely cause
 */

/* ibv_reg_mr failed with errno e; ENOMEM usually means RLIMIT_MEMLOCK. */
void rp_verbs_report_reg_failure(size_t len, const char *acc, int e)
{
	struct rlimit rl;

	if (e == ENOMEM && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY) {
		RP_ERR("ibv_reg_mr(%zu bytes, %s): %s (pinned memory counts "
		       "against the locked-memory limit, ulimit -l = %llu "
		       "KiB)", len, acc, strerror(e),
		       (unsigned long long)rl.rlim_cur / 1024);
		return;
	}
	RP_ERR("ibv_reg_mr(%zu bytes, %s): %s", len, acc, strerror(e));
}

int rp_verbs_report_post(const struct rp_verbs *v, uint32_t qp,
			 const char *verb, enum post_kind kind,
			 uint64_t wr_id, int rc)
{
	bool recv = kind == POST_RECV || kind == POST_RECV_BUF;
	const char *hint = "";
	char on[QP_NAME_LEN + 4];

	if (rc == ENOMEM)
		hint = recv ? " (receive queue full)" : " (send queue full)";
	else if (rc == EINVAL && v->qp[qp].state != IBV_QPS_RTS && !recv)
		hint = " (QP not in RTS yet)";
	RP_ERR("%s(%s, wr_id %" PRIu64 "%s): %s%s", verb,
	       rp_verbs_post_kind_name(kind), wr_id,
	       on_qp(v, qp, on, sizeof(on)), strerror(rc), hint);
	return RP_EVERBS;
}

/* Append one item to w, after the separator unless first; truncates. */
static void why_add(struct why *w, const char *fmt, ...)
{
	const char *sep = w->sep ? w->sep : "; ";
	size_t seplen = strlen(sep);
	va_list ap;
	int n;

	if (w->len && w->len + seplen < sizeof(w->buf)) {
		memcpy(w->buf + w->len, sep, seplen + 1);
		w->len += seplen;
	}
	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->len, sizeof(w->buf) - w->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		w->len += (size_t)n;
	if (w->len >= sizeof(w->buf))
		w->len = sizeof(w->buf) - 1;
}

/*
 * " on QP 1 of 2 (0x12)" for a data-path line when there are several
 * QPs; "" with one, whose lines read as they always have.
 */
static const char *on_qp(const struct rp_verbs *v, uint32_t qp, char *buf,
			 size_t len)
{
	buf[0] = '\0';
	if (v->nqp > 1 && qp < v->nqp)
		snprintf(buf, len, " on %s", v->qp[qp].name);
	return buf;
}

/* The other side, as a trace names it. */
static const char *peer_name(const struct rp_verbs *v)
{
	return v->receiver ? "sender" : "receiver";
}

/* ---------------------------------------------------------------------
 * The --trace text: one helper per step that explains itself. Each
 * prints nothing when tracing is off. The wording is what the lab's
 * end-to-end tests and the README's walk-through rely on.
 */

/* The link layer as a JSON field: "Ethernet" (RoCE) or "InfiniBand". */
static const char *link_layer_field(uint8_t ll)
{
	return ll == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
}

void rp_verbs_trace_device_caps(const char *dev,
				const struct ibv_device_attr *da)
{
	RP_EV("verbs", "device.caps", "{dev}: {ports} port(s), max_qp_wr "
	      "{max_qp_wr}, max_cqe {max_cqe}, max_mr_size {max_mr_size}, "
	      "RDMA Reads in flight per QP {max_qp_rd_atom} as responder "
	      "(max_qp_rd_atom) and {max_qp_init_rd_atom} as initiator "
	      "(max_qp_init_rd_atom), vendor {vendor_id} part {vendor_part_id}",
	      EV_S("dev", dev), EV_U("ports", da->phys_port_cnt),
	      EV_I("max_qp_wr", da->max_qp_wr), EV_I("max_cqe", da->max_cqe),
	      EV_U("max_mr_size", da->max_mr_size),
	      EV_I("max_qp_rd_atom", da->max_qp_rd_atom),
	      EV_I("max_qp_init_rd_atom", da->max_qp_init_rd_atom),
	      EV_X("vendor_id", da->vendor_id, 0),
	      EV_X("vendor_part_id", da->vendor_part_id, 0));
}

void rp_verbs_trace_port(const char *dev, int port,
			 const struct ibv_port_attr *pa)
{
	RP_EV("verbs", "port", "{dev} port {port}: {state}, link layer "
	      "{link_layer_text}, active MTU {mtu}, LID {lid}, GID table "
	      "{gid_tbl_len} slots", EV_S("dev", dev), EV_I("port", port),
	      EV_S("state", ibv_port_state_str(pa->state)),
	      EV_T("link_layer_text",
		   rp_verbs_link_layer_name(pa->link_layer)),
	      EV_S("link_layer", link_layer_field(pa->link_layer)),
	      EV_I("mtu", rp_verbs_mtu_bytes(pa->active_mtu)),
	      EV_X("lid", pa->lid, 4), EV_I("gid_tbl_len", pa->gid_tbl_len));
}

void rp_verbs_trace_gid_wanted(int gid_index, const char *gid_str,
			       const char *addr)
{
	if (gid_index >= 0)
		RP_EV("verbs", "gid.wanted", "looking for GID index "
		      "{gid_index} (given with -g)",
		      EV_I("gid_index", gid_index));
	else if (gid_str)
		RP_EV("verbs", "gid.wanted", "looking for the RoCE v2 GID "
		      "{gid}: the control connection's local address {addr} "
		      "(InfiniBand ports use their LID and GID 0)",
		      EV_S("gid", gid_str), EV_S("addr", addr));
}

void rp_verbs_trace_device_chosen(const struct rp_verbs *v,
				  const char *by_addr)
{
	RP_EV("verbs", "device.open", "device {dev} opened: port {port}, "
	      "link layer {link_layer_text}, active MTU {mtu}, GID index "
	      "{gid_index} {gid} ({gid_type})", EV_S("dev", v->dev_name),
	      EV_U("port", v->port),
	      EV_T("link_layer_text", rp_verbs_link_layer_name(v->link_layer)),
	      EV_S("link_layer", link_layer_field(v->link_layer)),
	      EV_I("mtu", rp_verbs_mtu_bytes(v->mtu)),
	      EV_I("gid_index", v->gid_index), EV_S("gid", v->gid_str),
	      EV_S("gid_type", rp_verbs_gid_type_name(v->gid_type)));
	if (v->link_layer != IBV_LINK_LAYER_ETHERNET)
		RP_EV("verbs", "device.addressing", "InfiniBand: the peer is "
		      "addressed by LID (ours {lid}), no GRH needed",
		      EV_X("lid", v->lid, 4), EV_B("grh", false));
	else if (by_addr)
		RP_EV("verbs", "device.addressing", "RoCE: every packet "
		      "carries a GRH; GID {gid} chosen because it is {addr}, "
		      "the control connection's local address",
		      EV_S("gid", v->gid_str), EV_S("addr", by_addr),
		      EV_B("grh", true));
}

void rp_verbs_trace_pd(void)
{
	RP_EV0("verbs", "pd.alloc", "PD allocated (protection domain: the QP "
	       "and the MR must share it)");
}

void rp_verbs_trace_channel(const struct rp_verbs *v)
{
	RP_EV("verbs", "channel.create", "completion channel created (fd "
	      "{fd}) and the async event fd {async_fd} made non-blocking: we "
	      "sleep in poll(2) on both instead of spinning",
	      EV_I("fd", v->chan->fd), EV_I("async_fd", v->ctx->async_fd));
}

/* One QP: "3 send + 3 receive"; several: "2 QPs x (3 send + 3 receive)". */
void rp_verbs_trace_cq(const struct rp_verbs *v,
		       const struct rp_verbs_cfg *cfg, uint64_t asked)
{
	uint64_t wrs = (uint64_t)cfg->max_send_wr + cfg->max_recv_wr;
	int slack = (int)(asked - v->nqp * wrs);
	char per[96];

	if (!rp_trace_any())
		return;
	if (v->nqp > 1)
		snprintf(per, sizeof(per), "%u QPs x (%u send + %u receive)",
			 v->nqp, cfg->max_send_wr, cfg->max_recv_wr);
	else
		snprintf(per, sizeof(per), "%u send + %u receive",
			 cfg->max_send_wr, cfg->max_recv_wr);
	RP_EV("verbs", "cq.create", "CQ created: cqe={cqe} (asked {asked} = "
	      "{per} + {slack} slack), events to the completion channel; "
	      "sends and receives {every}share it", EV_I("cqe", v->cq->cqe),
	      EV_U("asked", asked), EV_T("per", per), EV_I("slack", slack),
	      EV_U("qps", v->nqp), EV_U("max_send_wr", cfg->max_send_wr),
	      EV_U("max_recv_wr", cfg->max_recv_wr),
	      EV_T("every", v->nqp > 1 ? "of every QP " : ""));
}

void rp_verbs_trace_qps(const struct rp_verbs *v)
{
	if (v->nqp > 1)
		RP_EV("verbs", "qps", "{qps} RC QPs on the one PD, CQ and "
		      "ring: the NIC processes one QP's packets in order on "
		      "one engine, so striping chunks over several QPs lets it "
		      "spread the work", EV_U("qps", v->nqp));
}

/* cap: as ibv_create_qp returned it (what we got, not what we asked). */
void rp_verbs_trace_qp_created(const struct rp_verbs *v, uint32_t i,
			       const struct ibv_qp_cap *cap)
{
	RP_EV("verbs", "qp.create", "{name} created: type RC, state RESET, "
	      "caps max_send_wr={max_send_wr} max_recv_wr={max_recv_wr} "
	      "max_send_sge={max_send_sge} max_recv_sge={max_recv_sge} "
	      "max_inline_data={max_inline_data} (asked 0, never used); "
	      "sq_sig_all=0 (each WR asks for its completion with "
	      "IBV_SEND_SIGNALED)", EV_S("name", v->qp[i].name),
	      EV_U("qp", i), EV_U("qps", v->nqp),
	      EV_U("qpn", v->qp[i].ibv->qp_num),
	      EV_U("max_send_wr", cap->max_send_wr),
	      EV_U("max_recv_wr", cap->max_recv_wr),
	      EV_U("max_send_sge", cap->max_send_sge),
	      EV_U("max_recv_sge", cap->max_recv_sge),
	      EV_U("max_inline_data", cap->max_inline_data));
}

void rp_verbs_trace_init(const struct rp_verbs *v, uint32_t i,
			 const struct ibv_qp_attr *attr)
{
	unsigned int flags = attr->qp_access_flags;
	const char *peer = peer_name(v);
	struct why w = { .sep = NULL };
	char acc[96];

	if (!rp_trace_any())
		return;
	if (flags & IBV_ACCESS_REMOTE_WRITE)
		why_add(&w, "REMOTE_WRITE: the %s RDMA-Writes into our ring",
			peer);
	if (flags & IBV_ACCESS_REMOTE_READ)
		why_add(&w, "REMOTE_READ: the %s RDMA-Reads our ring", peer);
	if (flags)
		why_add(&w, "the ring's MR must allow it as well");
	else
		why_add(&w, "no peer touches our memory directly: anything "
			"the %s Sends lands in receives we post, and our own "
			"Writes and Reads need no flag here", peer);
	RP_EV("verbs", "qp.modify", "{name} RESET -> INIT: pkey_index=0 "
	      "port={port} qp_access_flags={access} ({why})",
	      EV_S("name", v->qp[i].name), EV_U("port", v->port),
	      EV_S("access", rp_verbs_access_str(acc, sizeof(acc), flags)),
	      EV_S("why", w.buf), EV_U("qp", i),
	      EV_U("qpn", v->qp[i].ibv->qp_num), EV_S("from", "RESET"),
	      EV_S("to", "INIT"), EV_U("pkey_index", 0));
}

void rp_verbs_trace_local_addr(const struct rp_verbs *v, uint32_t i)
{
	char which[QP_NAME_LEN] = "";

	if (!rp_trace_any())
		return;
	if (v->nqp > 1)
		snprintf(which, sizeof(which), " (QP %u of %u)", i, v->nqp);
	RP_EV("verbs", "qp.addr", "local QP address{which}: qpn={qpn} "
	      "psn={psn} (random) lid={lid} mtu={mtu} gid={gid}: the peer "
	      "needs these to reach us", EV_T("which", which),
	      EV_U("qp", i), EV_X("qpn", v->qp[i].ibv->qp_num, 0),
	      EV_X("psn", v->qp[i].psn, 6), EV_X("lid", v->lid, 4),
	      EV_I("mtu", rp_verbs_mtu_bytes(v->mtu)),
	      EV_S("gid", v->gid_str));
}

/* attr: the RTR attributes about to be applied; peer_mtu: the peer's. */
void rp_verbs_trace_rtr(const struct rp_verbs *v, uint32_t i,
			const struct ibv_qp_attr *attr, enum ibv_mtu peer_mtu)
{
	const struct ibv_ah_attr *ah = &attr->ah_attr;
	char dgid[INET6_ADDRSTRLEN] = "";
	char route[128];

	if (!rp_trace_any())
		return;
	if (ah->is_global)
		snprintf(route, sizeof(route), "is_global=1 dgid=%s "
			 "sgid_index=%d hop_limit=%d",
			 rp_sys_gid_text(ah->grh.dgid.raw, dgid, sizeof(dgid)),
			 v->gid_index, ah->grh.hop_limit);
	else
		snprintf(route, sizeof(route), "is_global=0 dlid=0x%04x",
			 ah->dlid);
	RP_EV("verbs", "qp.modify", "{name} INIT -> RTR: path_mtu={path_mtu} "
	      "(min of ours {local_mtu} and peer's {peer_mtu}) "
	      "dest_qp_num={dest_qpn} rq_psn={rq_psn} "
	      "max_dest_rd_atomic={max_dest_rd_atomic} (how many of the "
	      "{peer}'s RDMA Reads we answer at once: as responder we keep "
	      "that many read contexts) min_rnr_timer={min_rnr_timer} ah: "
	      "{route} sl=0 port={port}", EV_S("name", v->qp[i].name),
	      EV_I("path_mtu", rp_verbs_mtu_bytes(attr->path_mtu)),
	      EV_I("local_mtu", rp_verbs_mtu_bytes(v->mtu)),
	      EV_I("peer_mtu", rp_verbs_mtu_bytes(peer_mtu)),
	      EV_X("dest_qpn", attr->dest_qp_num, 0),
	      EV_X("rq_psn", attr->rq_psn, 6),
	      EV_U("max_dest_rd_atomic", attr->max_dest_rd_atomic),
	      EV_T("peer", peer_name(v)),
	      EV_I("min_rnr_timer", attr->min_rnr_timer),
	      EV_T("route", route), EV_U("port", v->port), EV_U("qp", i),
	      EV_U("qpn", v->qp[i].ibv->qp_num), EV_S("from", "INIT"),
	      EV_S("to", "RTR"), EV_B("is_global", ah->is_global),
	      EV_S("dgid", ah->is_global ? dgid : NULL),
	      EV_I("sgid_index", ah->is_global ? v->gid_index : -1),
	      EV_I("hop_limit", ah->is_global ? ah->grh.hop_limit : 0),
	      EV_U("dlid", ah->dlid), EV_U("sl", 0));
}

/* The local ACK timeout is 4.096 us * 2^timeout per try. */
void rp_verbs_trace_rts(const struct rp_verbs *v, uint32_t i,
			const struct ibv_qp_attr *attr)
{
	double ack_ms = 4.096e-3 * (double)(1u << attr->timeout);

	RP_EV("verbs", "qp.modify", "{name} RTR -> RTS: sq_psn={sq_psn} "
	      "timeout={timeout} ({ack_ms} ms per try) retry_cnt={retry_cnt} "
	      "rnr_retry={rnr_retry} max_rd_atomic={max_rd_atomic} (how many "
	      "of our own RDMA Reads may be outstanding at once, at most the "
	      "{peer}'s max_dest_rd_atomic); a dead peer surfaces as a "
	      "retry-exceeded completion after about {dead_after_s} s",
	      EV_S("name", v->qp[i].name), EV_X("sq_psn", attr->sq_psn, 6),
	      EV_I("timeout", attr->timeout), EV_D("ack_ms", ack_ms, 0),
	      EV_I("retry_cnt", attr->retry_cnt),
	      EV_I("rnr_retry", attr->rnr_retry),
	      EV_U("max_rd_atomic", attr->max_rd_atomic),
	      EV_T("peer", peer_name(v)),
	      EV_D("dead_after_s", ack_ms * (attr->retry_cnt + 1) / 1000.0, 1),
	      EV_U("qp", i), EV_U("qpn", v->qp[i].ibv->qp_num),
	      EV_S("from", "RTR"), EV_S("to", "RTS"));
}

void rp_verbs_trace_rd_atomic_capped(uint32_t asked, int dev_max,
				     const char *field, const char *attr)
{
	RP_EV("verbs", "rd_atomic.capped", "{asked} RDMA Reads in flight "
	      "asked: {attr} lowered to the device's {field} ({dev_max})",
	      EV_U("asked", asked), EV_S("attr", attr), EV_S("field", field),
	      EV_I("dev_max", dev_max));
}

void rp_verbs_trace_mr(const struct rp_verbs *v, unsigned int ibv_flags,
		       const char *acc)
{
	unsigned int remote = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	const char *peer = peer_name(v);
	struct why w = { .sep = NULL };

	if (!rp_trace_any())
		return;
	if (ibv_flags & IBV_ACCESS_LOCAL_WRITE)
		why_add(&w, "LOCAL_WRITE: received Sends, our Reads' "
			"responses and the peer's Writes land here, so the NIC "
			"must be allowed to write into it");
	else if (ibv_flags & IBV_ACCESS_REMOTE_READ)
		why_add(&w, "no LOCAL_WRITE: the NIC only reads it, the "
			"source of the %s's Reads", peer);
	else
		why_add(&w, "source of our Writes/Sends: the NIC only reads "
			"it");
	if (ibv_flags & IBV_ACCESS_REMOTE_WRITE)
		why_add(&w, "REMOTE_WRITE: the rkey lets the %s RDMA-Write "
			"into it", peer);
	if (ibv_flags & IBV_ACCESS_REMOTE_READ)
		why_add(&w, "REMOTE_READ: the rkey lets the %s RDMA-Read it",
			peer);
	if (!(ibv_flags & remote))
		why_add(&w, "no REMOTE_* bit: the rkey is of no use to the %s",
			peer);
	RP_EV("verbs", "mr.reg", "MR registered: addr={addr} length={length} "
	      "lkey={lkey} rkey={rkey} access={access} ({why})",
	      EV_P("addr", v->ring), EV_U("length", v->ring_len),
	      EV_X("lkey", v->mr->lkey, 0), EV_X("rkey", v->mr->rkey, 0),
	      EV_S("access", acc), EV_S("why", w.buf));
}

/* imm_data travels in network order; traces show the value we meant. */
void rp_verbs_trace_post_send(const struct rp_verbs *v, uint32_t qp,
			      enum post_kind kind,
			      const struct ibv_send_wr *wr, size_t off)
{
	const struct ibv_sge *sge = wr->sg_list;
	uint64_t id = wr->wr_id;
	uint32_t imm = ntohl(wr->imm_data);
	uint64_t raddr = wr->wr.rdma.remote_addr;
	char on[QP_NAME_LEN + 4];

	on_qp(v, qp, on, sizeof(on));
	switch (kind) {
	case POST_WRITE_IMM:
		RP_EV("verbs", "post", "post {op} wr_id={wr_id}{on}: "
		      "ring[{off}..+{length}) lkey={lkey} -> raddr={raddr} "
		      "rkey={rkey}, imm={imm} (htonl on the wire), signaled",
		      EV_S("op", "RDMA_WRITE_WITH_IMM"), EV_U("wr_id", id),
		      EV_T("on", on), EV_U("qp", qp), EV_U("off", off),
		      EV_U("length", sge->length), EV_X("lkey", sge->lkey, 0),
		      EV_X("raddr", raddr, 0),
		      EV_X("rkey", wr->wr.rdma.rkey, 0), EV_X("imm", imm, 8));
		break;
	case POST_WRITE:
		RP_EV("verbs", "post", "post {op} wr_id={wr_id}{on}: "
		      "ring[{off}..+{length}) lkey={lkey} -> raddr={raddr} "
		      "rkey={rkey}, {signaled_text}; no immediate: the peer's "
		      "receives are untouched and its CPU sees only its "
		      "memory change",
		      EV_S("op", "RDMA_WRITE"), EV_U("wr_id", id),
		      EV_T("on", on), EV_U("qp", qp), EV_U("off", off),
		      EV_U("length", sge->length), EV_X("lkey", sge->lkey, 0),
		      EV_X("raddr", raddr, 0),
		      EV_X("rkey", wr->wr.rdma.rkey, 0),
		      EV_T("signaled_text", wr->send_flags & IBV_SEND_SIGNALED ?
			   "signaled" : "unsignaled"),
		      EV_B("signaled", wr->send_flags & IBV_SEND_SIGNALED));
		break;
	case POST_SEND_IMM:
		RP_EV("verbs", "post", "post {op} wr_id={wr_id}{on}: zero "
		      "length, imm={imm} (htonl on the wire), signaled",
		      EV_S("op", "SEND_WITH_IMM"), EV_U("wr_id", id),
		      EV_T("on", on), EV_U("qp", qp), EV_U("length", 0),
		      EV_X("imm", imm, 8));
		break;
	case POST_SEND_DATA:
		RP_EV("verbs", "post", "post {op} wr_id={wr_id}{on}: "
		      "ring[{off}..+{length}) lkey={lkey}, imm={imm} (htonl on "
		      "the wire), signaled; it lands in the peer's next posted "
		      "receive, which must be at least as long",
		      EV_S("op", "SEND_WITH_IMM"), EV_U("wr_id", id),
		      EV_T("on", on), EV_U("qp", qp), EV_U("off", off),
		      EV_U("length", sge->length), EV_X("lkey", sge->lkey, 0),
		      EV_X("imm", imm, 8));
		break;
	case POST_READ:
		RP_EV("verbs", "post", "post {op} wr_id={wr_id}{on}: "
		      "raddr={raddr} rkey={rkey} -> ring[{off}..+{length}) "
		      "lkey={lkey}, signaled; the peer's NIC answers without "
		      "its CPU, and the bytes are ours once this completes",
		      EV_S("op", "RDMA_READ"), EV_U("wr_id", id),
		      EV_T("on", on), EV_U("qp", qp), EV_X("raddr", raddr, 0),
		      EV_X("rkey", wr->wr.rdma.rkey, 0), EV_U("off", off),
		      EV_U("length", sge->length), EV_X("lkey", sge->lkey, 0));
		break;
	default:
		break;
	}
}

void rp_verbs_trace_post_recv(const struct rp_verbs *v, uint32_t qp,
			      enum post_kind kind,
			      const struct ibv_recv_wr *wr, size_t off)
{
	char on[QP_NAME_LEN + 4];

	on_qp(v, qp, on, sizeof(on));
	if (kind == POST_RECV_BUF)
		RP_EV("verbs", "post", "post {op} wr_id={wr_id}{on}: "
		      "ring[{off}..+{length}) lkey={lkey}: the peer's next "
		      "Send lands here (a longer one fails on both sides)",
		      EV_S("op", "RECV"), EV_U("wr_id", wr->wr_id),
		      EV_T("on", on), EV_U("qp", qp), EV_U("off", off),
		      EV_U("length", wr->sg_list->length),
		      EV_X("lkey", wr->sg_list->lkey, 0));
	else
		RP_EV("verbs", "post", "post {op} wr_id={wr_id}{on}: zero "
		      "length (no SGE), to be consumed by a Write- or "
		      "Send-with-immediate", EV_S("op", "RECV"),
		      EV_U("wr_id", wr->wr_id), EV_T("on", on),
		      EV_U("qp", qp), EV_U("length", 0));
}

/* wc: the successful completion as polled; o: what we made of it. */
void rp_verbs_trace_wc(const struct rp_verbs *v, const struct ibv_wc *wc,
		       const struct rp_wc *o)
{
	bool imm = wc->wc_flags & IBV_WC_WITH_IMM;
	char on[QP_NAME_LEN + 4];

	RP_EV("verbs", "wc", "completion {opcode} wr_id={wr_id}{on} "
	      "status={status} byte_len={byte_len}{noimm} imm={imm}",
	      EV_S("opcode", rp_verbs_wc_opcode_name(wc->opcode)),
	      EV_U("wr_id", o->wr_id), EV_T("on", on_qp(v, o->qp, on,
							    sizeof(on))),
	      EV_S("status", ibv_wc_status_str(wc->status)),
	      EV_U("byte_len", o->byte_len),
	      EV_T("noimm", imm ? "" : " (no immediate)"),
	      EV_X("imm", o->imm, 8), EV_U("qp", o->qp),
	      EV_B("with_imm", imm));
}

/* The data-path counters, once, as the device is closed; each count is
 * also a field of its own ("posted.RECV", "completed.RDMA_WRITE"). */
void rp_verbs_trace_counters(const struct rp_verbs *v)
{
	struct rp_ev_field f[POST_KIND_MAX + WC_OP_COUNT + 5];
	char keys[POST_KIND_MAX + WC_OP_COUNT][48];
	struct why posted = { .sep = ", " };
	struct why done = { .sep = ", " };
	size_t n = 0;
	int i;

	if (!rp_trace_any())
		return;
	for (i = 0; i < POST_KIND_MAX; i++) {
		const char *k = rp_verbs_post_kind_name((enum post_kind)i);

		why_add(&posted, "%" PRIu64 " %s", v->posted[i], k);
		snprintf(keys[n], sizeof(keys[n]), "posted.%s", k);
		f[n] = (struct rp_ev_field)EV_U(keys[n], v->posted[i]);
		n++;
	}
	for (i = 0; i < WC_OP_COUNT; i++) {
		const char *k = rp_wc_op_name((enum rp_wc_op)i);

		why_add(&done, "%" PRIu64 " %s", v->completed[i], k);
		snprintf(keys[n], sizeof(keys[n]), "completed.%s", k);
		f[n] = (struct rp_ev_field)EV_U(keys[n], v->completed[i]);
		n++;
	}
	f[n++] = (struct rp_ev_field)EV_T("posted", posted.buf);
	f[n++] = (struct rp_ev_field)EV_T("done", done.buf);
	f[n++] = (struct rp_ev_field)EV_U("failed", v->wc_errors);
	f[n++] = (struct rp_ev_field)EV_U("cq_events", v->cq_events);
	f[n++] = (struct rp_ev_field)EV_U("async_events", v->async_events);
	rp_trace_event("verbs", "datapath.summary", "data path: posted "
		       "{posted}; completions {done}, {failed} failed; "
		       "{cq_events} CQ events, {async_events} async events",
		       f, n);
}
