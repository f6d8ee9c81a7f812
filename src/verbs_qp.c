// SPDX-License-Identifier: MIT
/*
 * The queue pairs, steps 5 to 8 of the story verbs.c tells: cfg.qps RC
 * QPs created in RESET on the one CQ and moved RESET -> INIT at open;
 * INIT -> RTR -> RTS, QP i against the peer's QP i, once the peer's
 * addresses have come over the control channel; ERROR and destroyed at
 * close. One QP or several, each takes the same steps: they share the
 * PD, the CQ and the ring, and differ in QPN, PSN and state.
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

/* 7 would mean "retry for ever" on rxe, hiding a dead peer. */
#define QP_RETRY_CNT		RP_QP_RETRY_CNT
#define QP_RNR_RETRY		6
/* Receiver-not-ready back-off we ask the peer to wait: 12 = 0.64 ms. */
#define QP_MIN_RNR_TIMER	12
#define QP_HOP_LIMIT		64

/* ---------------------------------------------------------------------
 * 5. Queue pairs: RC, created in RESET, all on the one CQ
 */

static int create_qp(struct rp_verbs *v, uint32_t i,
		     const struct rp_verbs_cfg *cfg);
static void destroy_qp(struct rp_verbs *v, uint32_t i);
static uint32_t random_psn(void);

int rp_verbs_create_qps(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
{
	uint32_t i;
	int rc;

	/* The caps are per QP: every QP gets the whole of both queues. */
	if (cfg->max_send_wr > (uint32_t)v->max_qp_wr ||
	    cfg->max_recv_wr > (uint32_t)v->max_qp_wr) {
		RP_ERR("ibv_create_qp: max_send_wr %u / max_recv_wr %u exceed "
		       "the device's max_qp_wr %d", cfg->max_send_wr,
		       cfg->max_recv_wr, v->max_qp_wr);
		return RP_EVERBS;
	}
	rp_verbs_trace_qps(v);
	for (i = 0; i < v->nqp; i++) {
		rc = create_qp(v, i, cfg);
		if (rc) {
			rp_verbs_destroy_qps(v);
			return rc;
		}
	}
	return 0;
}

static int create_qp(struct rp_verbs *v, uint32_t i,
		     const struct rp_verbs_cfg *cfg)
{
	struct verbs_qp *q = &v->qp[i];
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
	char which[QP_NAME_LEN] = "";
	int e;

	if (v->nqp > 1)
		snprintf(which, sizeof(which), ", QP %u of %u", i, v->nqp);
	q->ibv = ibv_create_qp(v->pd, &ia);
	if (!q->ibv) {
		e = errno;
		RP_ERR("ibv_create_qp(RC%s, max_send_wr %u, max_recv_wr %u): "
		       "%s", which, cfg->max_send_wr, cfg->max_recv_wr,
		       strerror(e));
		return RP_EVERBS;
	}
	/* Traces and errors name a QP by its QPN, and by index if several. */
	if (v->nqp > 1)
		snprintf(q->name, sizeof(q->name), "QP %u of %u (0x%x)", i,
			 v->nqp, q->ibv->qp_num);
	else
		snprintf(q->name, sizeof(q->name), "QP 0x%x",
			 q->ibv->qp_num);
	q->psn = random_psn();
	q->state = IBV_QPS_RESET;
	rp_verbs_trace_qp_created(v, i, &ia.cap);
	return 0;
}

/* Last first: rp_verbs_open()'s order in reverse, QP by QP. */
void rp_verbs_destroy_qps(struct rp_verbs *v)
{
	uint32_t i;

	for (i = v->nqp; i-- > 0;)
		destroy_qp(v, i);
}

static void destroy_qp(struct rp_verbs *v, uint32_t i)
{
	struct verbs_qp *q = &v->qp[i];
	uint32_t qpn;
	int rc;

	if (!q->ibv)
		return;
	qpn = q->ibv->qp_num;
	/*
	 * ERROR first: the QP stops and flushes what is outstanding, so no
	 * packet still in flight references it (or the ring) as it goes.
	 */
	rc = ibv_modify_qp(q->ibv, &(struct ibv_qp_attr){
				.qp_state = IBV_QPS_ERR }, IBV_QP_STATE);
	if (rc)
		RP_ERR("ibv_modify_qp(%s, ERR): %s", q->name, strerror(rc));
	else
		RP_EV("verbs", "qp.error", "{name} -> ERROR: outstanding work "
		      "requests flushed before it is destroyed",
		      EV_S("name", q->name), EV_U("qp", i), EV_U("qpn", qpn));
	rc = ibv_destroy_qp(q->ibv);
	if (rc)
		RP_ERR("ibv_destroy_qp(%s): %s", q->name, strerror(rc));
	else
		RP_EV("verbs", "qp.destroy", "{name} destroyed",
		      EV_S("name", q->name), EV_U("qp", i), EV_U("qpn", qpn));
	q->ibv = NULL;
	q->state = IBV_QPS_RESET;
}

/* A random starting PSN keeps stray packets of an old QP out of ours. */
static uint32_t random_psn(void)
{
	uint32_t r;

	rp_sys_random(&r, sizeof(r));
	return r & 0xffffff;
}

/* At most RP_QPS_MAX: a look along the array beats any map. */
int rp_verbs_qp_index(const struct rp_verbs *v, uint32_t qpn)
{
	uint32_t i;

	for (i = 0; i < v->nqp; i++)
		if (v->qp[i].ibv && v->qp[i].ibv->qp_num == qpn)
			return (int)i;
	return -1;
}

/* ---------------------------------------------------------------------
 * 6. RESET -> INIT, and the address the peer needs to reach each QP
 */

/*
 * On RoCE the kernel resolves the peer's Ethernet address at RTR, and
 * gives up after a second without an ARP answer (ETIMEDOUT) or a route.
 * While a link outage is ridden out (rp_verbs_set_relink()) our own
 * egress may still be down when the peer's RECONNECT reaches us: that
 * is the outage going on, for the caller to try again, not an error.
 */
static bool unreachable(const struct rp_verbs *v,
			const struct ibv_qp_attr *attr, int rc)
{
	return v->relink && attr->qp_state == IBV_QPS_RTR &&
	       (rc == ETIMEDOUT || rc == EHOSTUNREACH || rc == ENETUNREACH);
}

/* ibv_modify_qp QP i, then read the state back; name: the target state;
 * hint: what to do should the modify fail, or NULL. */
static int modify_qp(struct rp_verbs *v, uint32_t i,
		     struct ibv_qp_attr *attr, int mask, const char *name,
		     const char *hint)
{
	struct verbs_qp *q = &v->qp[i];
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr got;
	int rc;

	rc = ibv_modify_qp(q->ibv, attr, mask);
	if (rc && unreachable(v, attr, rc)) {
		RP_EV("verbs", "rtr.unreachable", "{name} INIT -> RTR: {why}: "
		      "the link is still down", EV_S("name", q->name),
		      EV_S("why", strerror(rc)));
		v->link_down = true;
		return RP_EWC;
	}
	if (rc && hint) {
		RP_ERR_HINT(hint, "ibv_modify_qp(%s, %s): %s", q->name, name,
			    strerror(rc));
		return RP_EVERBS;
	}
	if (rc) {
		/* The cause picks main's hint: RTR resolves the peer's
		 * Ethernet address, and ETIMEDOUT there is no ARP answer. */
		RP_ERR_WHY(rc, "ibv_modify_qp(%s, %s): %s", q->name, name,
			   strerror(rc));
		return RP_EVERBS;
	}
	rc = ibv_query_qp(q->ibv, &got, IBV_QP_STATE, &ia);
	if (rc) {
		RP_ERR("ibv_query_qp(%s, after %s): %s", q->name, name,
		       strerror(rc));
		return RP_EVERBS;
	}
	if (got.qp_state != attr->qp_state) {
		RP_ERR("ibv_modify_qp(%s) succeeded but ibv_query_qp says %s "
		       "is %s", name, q->name,
		       rp_verbs_qp_state_name(got.qp_state));
		return RP_EVERBS;
	}
	q->state = got.qp_state;
	RP_EV("verbs", "qp.state", "{name} state now {state} (queried)",
	      EV_S("name", q->name),
	      EV_S("state", rp_verbs_qp_state_name(got.qp_state)),
	      EV_U("qp", i), EV_U("qpn", q->ibv->qp_num));
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

static int qp_to_init(struct rp_verbs *v, uint32_t i)
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

	rp_verbs_trace_init(v, i, &attr);
	rc = modify_qp(v, i, &attr,
		       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS, "INIT", NULL);
	if (rc)
		return rc;
	rp_verbs_trace_local_addr(v, i);
	return 0;
}

int rp_verbs_qps_to_init(struct rp_verbs *v)
{
	uint32_t i;
	int rc;

	for (i = 0; i < v->nqp; i++) {
		rc = qp_to_init(v, i);
		if (rc)
			return rc;
	}
	return 0;
}

uint32_t rp_verbs_qps(const struct rp_verbs *v)
{
	return v ? v->nqp : 0;
}

void rp_verbs_local(const struct rp_verbs *v, uint32_t qp,
		    struct rp_qp_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (!v || rp_verbs_check_qp(qp, v->nqp, "rp_verbs_local") ||
	    !v->qp[qp].ibv)
		return;
	out->qpn = v->qp[qp].ibv->qp_num;
	out->psn = v->qp[qp].psn;
	out->lid = v->lid;
	out->mtu = (uint8_t)v->mtu;
	memcpy(out->gid, v->gid.raw, RP_GID_LEN);
}

/* ---------------------------------------------------------------------
 * 7-8. INIT -> RTR -> RTS, QP i against the peer's QP i (rp_verbs_connect)
 */

/* Up already against that peer QP: a try again after RTR found the
 * link still down on a later QP (rp_verbs_connect()). */
static bool connected(const struct verbs_qp *q, const struct rp_qp_addr *p)
{
	return q->state == IBV_QPS_RTS && q->dest_qpn == p->qpn;
}

static int check_peer(const struct rp_verbs *v, uint32_t i,
		      const struct rp_qp_addr *peer);
static int qp_to_rtr(struct rp_verbs *v, uint32_t i,
		     const struct rp_qp_addr *peer);
static int qp_to_rts(struct rp_verbs *v, uint32_t i);

int rp_verbs_connect(struct rp_verbs *v, const struct rp_qp_addr *peer,
		     uint32_t n)
{
	uint32_t i;
	int rc;

	rc = rp_verbs_check_connect(v, peer, n);
	if (rc)
		return rc;
	/* Every address before any transition: none is left half-way. */
	for (i = 0; i < n; i++) {
		rc = check_peer(v, i, peer);
		if (rc)
			return rc;
	}
	v->link_down = false;
	for (i = 0; i < n; i++) {
		if (connected(&v->qp[i], &peer[i]))
			continue;
		rc = qp_to_rtr(v, i, &peer[i]);
		if (!rc)
			rc = qp_to_rts(v, i);
		if (rc)
			return rc;
	}
	return 0;
}

static bool gid_is_zero(const uint8_t *gid)
{
	static const uint8_t zero[RP_GID_LEN];

	return !memcmp(gid, zero, RP_GID_LEN);
}

/*
 * Our QP i must wait in INIT, and the peer's address for it, which came
 * over the control channel, must be one ibv_modify_qp(RTR) can take:
 * refuse here, with a reason, what it would refuse with a bare EINVAL.
 * Two of our QPs connected to one of the peer's would break both.
 */
static int check_peer(const struct rp_verbs *v, uint32_t i,
		      const struct rp_qp_addr *peer)
{
	const struct verbs_qp *q = &v->qp[i];
	const struct rp_qp_addr *p = &peer[i];
	const char *why = NULL;
	uint32_t j;

	if (!q->ibv || (q->state != IBV_QPS_INIT && !connected(q, p))) {
		RP_ERR("rp_verbs_connect: %s is %s, not INIT", q->name,
		       q->ibv ? rp_verbs_qp_state_name(q->state) : "gone");
		return RP_EINTERNAL;
	}
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
	for (j = 0; !why && j < i; j++)
		if (peer[j].qpn == p->qpn)
			why = "the same QPN as for one of our earlier QPs";
	if (!why)
		return 0;
	RP_ERR("peer's QP address for our %s is unusable: %s (qpn 0x%x, "
	       "lid 0x%x)", q->name, why, p->qpn, p->lid);
	return RP_EPROTO;
}

/*
 * RDMA Reads in flight in one direction: as asked, lowered to the
 * device's limit dev_max and to the 8 bits of the attribute. Traced for
 * QP 0 only: the answer is the same for every QP.
 */
static uint8_t rd_atomic(const struct rp_verbs *v, uint32_t i, int dev_max,
			 const char *field, const char *attr)
{
	uint32_t lim = dev_max < 0 ? 0 : (uint32_t)dev_max;

	if (lim > UINT8_MAX)
		lim = UINT8_MAX;
	if (v->rd_atomic <= lim)
		return (uint8_t)v->rd_atomic;
	if (!i)
		rp_verbs_trace_rd_atomic_capped(v->rd_atomic, dev_max, field,
						attr);
	return (uint8_t)lim;
}

/*
 * Why a move to RTR may fail that the user can mend: on RoCE, a
 * link-local GID at either end (chosen with -g, or the only one a port
 * had). rxe refuses the address vector with EINVAL, and the
 * generic verbs hint (locked memory) would mislead.
 */
static const char *rtr_hint(const struct rp_verbs *v,
			    const struct rp_qp_addr *peer)
{
	if (v->link_layer != IBV_LINK_LAYER_ETHERNET)
		return NULL;
	if (rp_gid_link_local(peer->gid))
		return "the peer's GID is link-local (fe80::): RoCE v2 "
		       "between hosts needs routable GIDs at both ends; on "
		       "the peer, drop -g or use the index 'rdmapush devices "
		       "--for HOST' names";
	if (rp_gid_link_local(v->gid.raw))
		return "our GID is link-local (fe80::): RoCE v2 between "
		       "hosts needs routable GIDs at both ends; drop -g or "
		       "use the index 'rdmapush devices --for HOST' names";
	return NULL;
}

static int qp_to_rtr(struct rp_verbs *v, uint32_t i,
		     const struct rp_qp_addr *peer)
{
	enum ibv_mtu peer_mtu = (enum ibv_mtu)peer->mtu;
	enum ibv_mtu mtu = v->mtu < peer_mtu ? v->mtu : peer_mtu;
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		/* As responder: the peer's Reads we keep contexts for. */
		.max_dest_rd_atomic = rd_atomic(v, i, v->max_qp_rd_atom,
						"max_qp_rd_atom",
						"max_dest_rd_atomic"),
		.min_rnr_timer = QP_MIN_RNR_TIMER,
		.ah_attr = {
			.port_num = v->port,
			.sl = 0,
			.src_path_bits = 0,
		},
	};
	int rc;

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
	rp_verbs_trace_rtr(v, i, &attr, peer_mtu);
	rc = modify_qp(v, i, &attr,
		       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		       "RTR", rtr_hint(v, peer));
	if (!rc)
		v->qp[i].dest_qpn = peer->qpn;
	return rc;
}

static int qp_to_rts(struct rp_verbs *v, uint32_t i)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = v->qp[i].psn,
		.timeout = (uint8_t)v->ack_timeout,
		.retry_cnt = QP_RETRY_CNT,
		.rnr_retry = QP_RNR_RETRY,
		/* As initiator: our own Reads outstanding at once. */
		.max_rd_atomic = rd_atomic(v, i, v->max_qp_init_rd_atom,
					   "max_qp_init_rd_atom",
					   "max_rd_atomic"),
	};

	rp_verbs_trace_rts(v, i, &attr);
	return modify_qp(v, i, &attr,
			 IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC, "RTS", NULL);
}
