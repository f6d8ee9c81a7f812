// SPDX-License-Identifier: MIT
/*
 * The queue pair, steps 5 to 8 of the story verbs.c tells: an RC QP
 * created in RESET on the CQ and moved RESET -> INIT at open;
 * INIT -> RTR -> RTS once the peer's address has come over the control
 * channel; ERROR and destroyed at close.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "verbs_int.h"

/* Local ACK timeout: 4.096 us * 2^14 = 67 ms per attempt. */
#define QP_TIMEOUT		14
/* 7 would mean "retry for ever" on rxe, hiding a dead peer. */
#define QP_RETRY_CNT		6
#define QP_RNR_RETRY		6
/* Receiver-not-ready back-off we ask the peer to wait: 12 = 0.64 ms. */
#define QP_MIN_RNR_TIMER	12
#define QP_HOP_LIMIT		64

/* ---------------------------------------------------------------------
 * 5. Queue pair: RC, created in RESET
 */

static uint32_t random_psn(void);

int rp_verbs_create_qp(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = v->cq,
		.recv_cq = v->cq,
		.cap = {
			.max_send_wr = cfg->max_send_wr,
			.max_recv_wr = cfg->max_recv_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			/* No inline data: rxe and perftest turn it off. */
			.max_inline_data = 0,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};

	if (cfg->max_send_wr > (uint32_t)v->max_qp_wr ||
	    cfg->max_recv_wr > (uint32_t)v->max_qp_wr) {
		RP_ERR("ibv_create_qp: max_send_wr %u / max_recv_wr %u exceed "
		       "the device's max_qp_wr %d", cfg->max_send_wr,
		       cfg->max_recv_wr, v->max_qp_wr);
		return RP_EVERBS;
	}
	v->qp = ibv_create_qp(v->pd, &ia);
	if (!v->qp) {
		RP_ERR("ibv_create_qp(RC, max_send_wr %u, max_recv_wr %u): %s",
		       cfg->max_send_wr, cfg->max_recv_wr, strerror(errno));
		return RP_EVERBS;
	}
	v->qp_state = IBV_QPS_RESET;
	v->psn = random_psn();
	rp_verbs_trace_qp_created(v, &ia.cap);
	return 0;
}

void rp_verbs_destroy_qp(struct rp_verbs *v)
{
	uint32_t qpn;
	int rc;

	if (!v->qp)
		return;
	qpn = v->qp->qp_num;
	/*
	 * ERROR first: the QP stops and flushes what is outstanding, so no
	 * packet still in flight references it (or the ring) as it goes.
	 */
	rc = ibv_modify_qp(v->qp, &(struct ibv_qp_attr){
				.qp_state = IBV_QPS_ERR }, IBV_QP_STATE);
	if (rc)
		RP_ERR("ibv_modify_qp(0x%x, ERR): %s", qpn, strerror(rc));
	else
		RP_TRACE("verbs", "QP 0x%x -> ERROR: outstanding work requests "
			 "flushed before it is destroyed", qpn);
	rc = ibv_destroy_qp(v->qp);
	if (rc)
		RP_ERR("ibv_destroy_qp(0x%x): %s", qpn, strerror(rc));
	else
		RP_TRACE("verbs", "QP 0x%x destroyed", qpn);
	v->qp = NULL;
}

/* ---------------------------------------------------------------------
 * 6. RESET -> INIT, and the address the peer needs to reach us
 */

/* ibv_modify_qp, then read the state back; name is the target state. */
static int modify_qp(struct rp_verbs *v, struct ibv_qp_attr *attr,
		     int mask, const char *name)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr got;
	int rc;

	rc = ibv_modify_qp(v->qp, attr, mask);
	if (rc) {
		RP_ERR("ibv_modify_qp(%s): %s", name, strerror(rc));
		return RP_EVERBS;
	}
	rc = ibv_query_qp(v->qp, &got, IBV_QP_STATE, &ia);
	if (rc) {
		RP_ERR("ibv_query_qp(after %s): %s", name, strerror(rc));
		return RP_EVERBS;
	}
	if (got.qp_state != attr->qp_state) {
		RP_ERR("ibv_modify_qp(%s) succeeded but ibv_query_qp says QP "
		       "0x%x is %s", name, v->qp->qp_num,
		       rp_verbs_qp_state_name(got.qp_state));
		return RP_EVERBS;
	}
	v->qp_state = got.qp_state;
	RP_TRACE("verbs", "QP 0x%x state now %s (queried)", v->qp->qp_num,
		 rp_verbs_qp_state_name(got.qp_state));
	return 0;
}

unsigned int rp_verbs_ibv_access(unsigned int rp)
{
	unsigned int flags = 0;

	if (rp & RP_ACCESS_LOCAL_WRITE)
		flags |= IBV_ACCESS_LOCAL_WRITE;
	if (rp & RP_ACCESS_REMOTE_WRITE)
		flags |= IBV_ACCESS_REMOTE_WRITE;
	if (rp & RP_ACCESS_REMOTE_READ)
		flags |= IBV_ACCESS_REMOTE_READ;
	return flags;
}

int rp_verbs_qp_to_init(struct rp_verbs *v)
{
	/*
	 * The QP gates what a peer may do to us before any MR is looked at:
	 * give it the ring's REMOTE_* bits, so the peer gets what the ring
	 * allows and nothing more. LOCAL_WRITE is a matter for the MR only.
	 */
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = v->port,
		.qp_access_flags = rp_verbs_ibv_access(v->access &
						       ~RP_ACCESS_LOCAL_WRITE),
	};
	int rc;

	rp_verbs_trace_init(v, &attr);
	rc = modify_qp(v, &attr,
		       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS, "INIT");
	if (rc)
		return rc;
	rp_verbs_trace_local_addr(v);
	return 0;
}

/* A random starting PSN keeps stray packets of an old QP out of ours. */
static uint32_t random_psn(void)
{
	uint32_t r;

	rp_sys_random(&r, sizeof(r));
	return r & 0xffffff;
}

uint32_t rp_verbs_qps(const struct rp_verbs *v)
{
	return v ? 1 : 0;
}

void rp_verbs_local(const struct rp_verbs *v, uint32_t qp,
		    struct rp_qp_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (!v || !v->qp || qp)
		return;
	out->qpn = v->qp->qp_num;
	out->psn = v->psn;
	out->lid = v->lid;
	out->mtu = (uint8_t)v->mtu;
	memcpy(out->gid, v->gid.raw, RP_GID_LEN);
}

/* ---------------------------------------------------------------------
 * 7-8. INIT -> RTR -> RTS against the peer (rp_verbs_connect)
 */

static int check_peer(const struct rp_verbs *v, const struct rp_qp_addr *p);
static int qp_to_rtr(struct rp_verbs *v, const struct rp_qp_addr *peer);
static int qp_to_rts(struct rp_verbs *v);

int rp_verbs_connect(struct rp_verbs *v, const struct rp_qp_addr *peer,
		     uint32_t n)
{
	int rc;

	if (!v || !v->qp || !peer || n != 1) {
		RP_ERR("rp_verbs_connect: NULL argument, or %u peer QPs for "
		       "our 1", n);
		return RP_EINTERNAL;
	}
	if (v->qp_state != IBV_QPS_INIT) {
		RP_ERR("rp_verbs_connect: QP 0x%x is %s, not INIT",
		       v->qp->qp_num, rp_verbs_qp_state_name(v->qp_state));
		return RP_EINTERNAL;
	}
	rc = check_peer(v, peer);
	if (rc)
		return rc;
	rc = qp_to_rtr(v, peer);
	if (rc)
		return rc;
	return qp_to_rts(v);
}

static bool gid_is_zero(const uint8_t *gid)
{
	static const uint8_t zero[RP_GID_LEN];

	return !memcmp(gid, zero, RP_GID_LEN);
}

/*
 * The peer's address came over the control channel: refuse here, with a
 * reason, what ibv_modify_qp(RTR) would refuse with a bare EINVAL.
 */
static int check_peer(const struct rp_verbs *v, const struct rp_qp_addr *p)
{
	const char *why = NULL;

	if (!p->qpn || p->qpn > 0xffffff)
		why = "QPN out of range";
	else if (p->psn > 0xffffff)
		why = "PSN wider than 24 bits";
	else if (!rp_verbs_mtu_bytes((enum ibv_mtu)p->mtu))
		why = "MTU code not in 1..5";
	else if (v->link_layer == IBV_LINK_LAYER_ETHERNET &&
		 gid_is_zero(p->gid))
		why = "all-zero GID on our RoCE port (is the peer on "
		      "InfiniBand?)";
	else if (v->link_layer != IBV_LINK_LAYER_ETHERNET && !p->lid)
		why = "LID 0 on our InfiniBand port (is the peer on RoCE?)";
	if (!why)
		return 0;
	RP_ERR("peer's QP address is unusable: %s (qpn 0x%x, lid 0x%x)", why,
	       p->qpn, p->lid);
	return RP_EPROTO;
}

/*
 * RDMA Reads in flight in one direction: as asked, lowered to the
 * device's limit dev_max (traced) and to the 8 bits of the attribute.
 */
static uint8_t rd_atomic(const struct rp_verbs *v, int dev_max,
			 const char *field, const char *attr)
{
	uint32_t lim = dev_max < 0 ? 0 : (uint32_t)dev_max;

	if (lim > UINT8_MAX)
		lim = UINT8_MAX;
	if (v->rd_atomic <= lim)
		return (uint8_t)v->rd_atomic;
	rp_verbs_trace_rd_atomic_capped(v->rd_atomic, dev_max, field, attr);
	return (uint8_t)lim;
}

static int qp_to_rtr(struct rp_verbs *v, const struct rp_qp_addr *peer)
{
	enum ibv_mtu peer_mtu = (enum ibv_mtu)peer->mtu;
	enum ibv_mtu mtu = v->mtu < peer_mtu ? v->mtu : peer_mtu;
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		/* As responder: the peer's Reads we keep contexts for. */
		.max_dest_rd_atomic = rd_atomic(v, v->max_qp_rd_atom,
						"max_qp_rd_atom",
						"max_dest_rd_atomic"),
		.min_rnr_timer = QP_MIN_RNR_TIMER,
		.ah_attr = {
			.port_num = v->port,
			.sl = 0,
			.src_path_bits = 0,
		},
	};

	if (v->link_layer == IBV_LINK_LAYER_ETHERNET) {
		/* RoCE has no LIDs: route by GID in a GRH. */
		attr.ah_attr.is_global = 1;
		memcpy(attr.ah_attr.grh.dgid.raw, peer->gid, RP_GID_LEN);
		attr.ah_attr.grh.sgid_index = (uint8_t)v->gid_index;
		attr.ah_attr.grh.hop_limit = QP_HOP_LIMIT;
	} else {
		attr.ah_attr.is_global = 0;
		attr.ah_attr.dlid = peer->lid;
	}
	rp_verbs_trace_rtr(v, &attr, peer_mtu);
	return modify_qp(v, &attr,
			 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
			 "RTR");
}

static int qp_to_rts(struct rp_verbs *v)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = v->psn,
		.timeout = QP_TIMEOUT,
		.retry_cnt = QP_RETRY_CNT,
		.rnr_retry = QP_RNR_RETRY,
		/* As initiator: our own Reads outstanding at once. */
		.max_rd_atomic = rd_atomic(v, v->max_qp_init_rd_atom,
					   "max_qp_init_rd_atom",
					   "max_rd_atomic"),
	};

	rp_verbs_trace_rts(v, &attr);
	return modify_qp(v, &attr,
			 IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}
