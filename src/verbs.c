// SPDX-License-Identifier: MIT
/*
 * The RDMA data plane over raw libibverbs, told as rc_pingpong tells it,
 * in build order from top to bottom: device -> PD -> completion channel
 * -> CQ -> QP -> INIT; then, once the peer's QP address has come over the
 * control channel, RTR -> RTS; the registered ring; posting work
 * requests; and close, the same ladder in reverse. rp_verbs_open() just
 * below is the table of contents.
 *
 * The rest of the backend: verbs_select.c chooses device, port and GID,
 * verbs_wait.c waits for completions and events, verbs_names.c holds the
 * names and the --trace text. Only src/verbs*.c include
 * <infiniband/verbs.h>.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "verbs_int.h"

/* Room in the CQ beyond one entry per send and receive WR. */
#define CQ_SLACK		16
/* Local ACK timeout: 4.096 us * 2^14 = 67 ms per attempt. */
#define QP_TIMEOUT		14
/* 7 would mean "retry for ever" on rxe, hiding a dead peer. */
#define QP_RETRY_CNT		6
#define QP_RNR_RETRY		6
/* Receiver-not-ready back-off we ask the peer to wait: 12 = 0.64 ms. */
#define QP_MIN_RNR_TIMER	12
#define QP_HOP_LIMIT		64
/* The RP_ACCESS_* bits verbs.h defines. */
#define ACCESS_KNOWN		(RP_ACCESS_LOCAL_WRITE | \
				 RP_ACCESS_REMOTE_WRITE | \
				 RP_ACCESS_REMOTE_READ)

/*
 * The steps of rp_verbs_open(), in the order it takes them and defined in
 * that order below; each undo is NULL-safe and idempotent, so the error
 * ladder and rp_verbs_close() can both call it.
 */
static int check_access(unsigned int access);
static int alloc_verbs(struct rp_verbs **vp, const struct rp_verbs_cfg *cfg);
static void close_device(struct rp_verbs *v);
static int alloc_pd(struct rp_verbs *v);
static void dealloc_pd(struct rp_verbs *v);
static int create_channel(struct rp_verbs *v);
static void destroy_channel(struct rp_verbs *v);
static int create_cq(struct rp_verbs *v, const struct rp_verbs_cfg *cfg);
static void destroy_cq(struct rp_verbs *v);
static int create_qp(struct rp_verbs *v, const struct rp_verbs_cfg *cfg);
static void destroy_qp(struct rp_verbs *v);
static int qp_to_init(struct rp_verbs *v);
static uint32_t random_psn(void);

/*
 * Build in rc_pingpong's order (device, PD, channel, CQ, QP, INIT) and,
 * on failure, undo in reverse: each label names what it releases.
 */
int rp_verbs_open(struct rp_verbs **out, const struct rp_verbs_cfg *cfg)
{
	struct rp_verbs *v;
	int rc;

	rc = rp_verbs_check_open(out, cfg);
	if (!rc)
		rc = check_access(cfg->access);
	if (!rc && cfg->qps > 1)
		rc = rp_verbs_check_qp(cfg->qps - 1, 1, "rp_verbs_open");
	if (rc)
		return rc;
	rc = alloc_verbs(&v, cfg);
	if (rc)
		return rc;

	rc = rp_verbs_select_device(v, cfg);
	if (rc)
		goto err_free;
	rc = alloc_pd(v);
	if (rc)
		goto err_close_device;
	rc = create_channel(v);
	if (rc)
		goto err_dealloc_pd;
	rc = create_cq(v, cfg);
	if (rc)
		goto err_destroy_channel;
	rc = create_qp(v, cfg);
	if (rc)
		goto err_destroy_cq;
	rc = qp_to_init(v);
	if (rc)
		goto err_destroy_qp;
	v->psn = random_psn();
	rp_verbs_trace_local_addr(v);
	*out = v;
	return 0;

err_destroy_qp:
	destroy_qp(v);
err_destroy_cq:
	destroy_cq(v);
err_destroy_channel:
	destroy_channel(v);
err_dealloc_pd:
	dealloc_pd(v);
err_close_device:
	close_device(v);
err_free:
	free(v);
	return rc;
}

/*
 * Refuse here, with the reason, what ibv_reg_mr would refuse later with a
 * bare EINVAL: unknown bits, and REMOTE_WRITE without LOCAL_WRITE
 * (ibv_reg_mr(3)). REMOTE_READ alone is allowed.
 */
static int check_access(unsigned int access)
{
	if (access & ~ACCESS_KNOWN) {
		RP_ERR("rp_verbs_open: unknown access bits 0x%x",
		       access & ~ACCESS_KNOWN);
		return RP_EINTERNAL;
	}
	if ((access & RP_ACCESS_REMOTE_WRITE) &&
	    !(access & RP_ACCESS_LOCAL_WRITE)) {
		RP_ERR("rp_verbs_open: access REMOTE_WRITE without "
		       "LOCAL_WRITE (ibv_reg_mr(3) requires both)");
		return RP_EINTERNAL;
	}
	return 0;
}

/*
 * A zeroed rp_verbs holding the configuration the later steps read and
 * what the reports read before a GID is chosen: no index (-1), text "-".
 */
static int alloc_verbs(struct rp_verbs **vp, const struct rp_verbs_cfg *cfg)
{
	struct rp_verbs *v;
	int rc;

	*vp = NULL;
	v = calloc(1, sizeof(*v));
	if (!v) {
		rc = -errno;
		RP_ERR("calloc: %s", strerror(errno));
		return rc;
	}
	v->gid_index = -1;
	v->receiver = cfg->receiver;
	v->access = cfg->access;
	v->rd_atomic = cfg->rd_atomic ? cfg->rd_atomic : 1;
	snprintf(v->gid_str, sizeof(v->gid_str), "-");
	*vp = v;
	return 0;
}

/* ---------------------------------------------------------------------
 * 1. Device: chosen and opened by rp_verbs_select_device() (verbs_select.c)
 */

static void close_device(struct rp_verbs *v)
{
	if (!v->ctx)
		return;
	if (ibv_close_device(v->ctx))
		RP_ERR("ibv_close_device(%s): %s", v->dev_name,
		       strerror(errno));
	else
		RP_TRACE("verbs", "device %s closed", v->dev_name);
	v->ctx = NULL;
}

/* ---------------------------------------------------------------------
 * 2. Protection domain: the QP and the MR must belong to the same one
 */

static int alloc_pd(struct rp_verbs *v)
{
	v->pd = ibv_alloc_pd(v->ctx);
	if (!v->pd) {
		RP_ERR("ibv_alloc_pd: %s", strerror(errno));
		return RP_EVERBS;
	}
	rp_verbs_trace_pd();
	return 0;
}

static void dealloc_pd(struct rp_verbs *v)
{
	int rc;

	if (!v->pd)
		return;
	rc = ibv_dealloc_pd(v->pd);
	if (rc)
		RP_ERR("ibv_dealloc_pd: %s", strerror(rc));
	else
		RP_TRACE("verbs", "PD deallocated");
	v->pd = NULL;
}

/* ---------------------------------------------------------------------
 * 3. Completion channel: a file descriptor to sleep on instead of spinning
 */

static int create_channel(struct rp_verbs *v)
{
	int rc;

	v->chan = ibv_create_comp_channel(v->ctx);
	if (!v->chan) {
		RP_ERR("ibv_create_comp_channel: %s", strerror(errno));
		return RP_EVERBS;
	}
	rc = rp_sys_nonblock(v->chan->fd, "completion channel");
	if (!rc)
		rc = rp_sys_nonblock(v->ctx->async_fd, "async event");
	if (rc) {
		destroy_channel(v);
		return rc;
	}
	rp_verbs_trace_channel(v);
	return 0;
}

static void destroy_channel(struct rp_verbs *v)
{
	int rc;

	if (!v->chan)
		return;
	rc = ibv_destroy_comp_channel(v->chan);
	if (rc)
		RP_ERR("ibv_destroy_comp_channel: %s", strerror(rc));
	else
		RP_TRACE("verbs", "completion channel destroyed");
	v->chan = NULL;
}

/* ---------------------------------------------------------------------
 * 4. Completion queue, shared by sends and receives
 */

static int create_cq(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
{
	uint64_t want = (uint64_t)cfg->max_send_wr + cfg->max_recv_wr +
			CQ_SLACK;

	if (want > (uint64_t)v->max_cqe) {
		RP_ERR("ibv_create_cq: %" PRIu64 " entries (%u send + %u "
		       "receive + %d) exceed the device's max_cqe %d", want,
		       cfg->max_send_wr, cfg->max_recv_wr, CQ_SLACK,
		       v->max_cqe);
		return RP_EVERBS;
	}
	v->cq = ibv_create_cq(v->ctx, (int)want, NULL, v->chan, 0);
	if (!v->cq) {
		RP_ERR("ibv_create_cq(%" PRIu64 " entries): %s", want,
		       strerror(errno));
		return RP_EVERBS;
	}
	rp_verbs_trace_cq(v, cfg, want);
	return 0;
}

static void destroy_cq(struct rp_verbs *v)
{
	int rc;

	if (!v->cq)
		return;
	/* ibv_destroy_cq waits for every event we got to be acked. */
	if (v->cq_unacked) {
		ibv_ack_cq_events(v->cq, v->cq_unacked);
		RP_TRACE("verbs", "acked %u outstanding CQ event(s)",
			 v->cq_unacked);
		v->cq_unacked = 0;
	}
	rc = ibv_destroy_cq(v->cq);
	if (rc)
		RP_ERR("ibv_destroy_cq: %s", strerror(rc));
	else
		RP_TRACE("verbs", "CQ destroyed");
	v->cq = NULL;
}

/* ---------------------------------------------------------------------
 * 5. Queue pair: RC, created in RESET
 */

static int create_qp(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
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
	rp_verbs_trace_qp_created(v, &ia.cap);
	return 0;
}

static void destroy_qp(struct rp_verbs *v)
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

/* RP_ACCESS_* (verbs.h keeps ibverbs out of the session) as IBV_ACCESS_*. */
static unsigned int ibv_access(unsigned int rp)
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

static int qp_to_init(struct rp_verbs *v)
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
		.qp_access_flags = ibv_access(v->access &
					      ~RP_ACCESS_LOCAL_WRITE),
	};

	rp_verbs_trace_init(v, &attr);
	return modify_qp(v, &attr,
			 IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			 IBV_QP_ACCESS_FLAGS, "INIT");
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

const char *rp_verbs_gid_str(const struct rp_verbs *v)
{
	return v ? v->gid_str : "-";
}

int rp_verbs_gid_index(const struct rp_verbs *v)
{
	return v ? v->gid_index : -1;
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

/* ---------------------------------------------------------------------
 * 9. The ring: one registered buffer, deregistered as soon as it is done
 */

int rp_verbs_reg_ring(struct rp_verbs *v, size_t len, void **addr,
		      uint32_t *rkey)
{
	unsigned int access;
	long page = sysconf(_SC_PAGESIZE);
	char acc[96];
	void *buf;
	int rc;

	if (!v || !v->pd || !addr || !rkey || !len) {
		RP_ERR("rp_verbs_reg_ring: bad arguments (len %zu)", len);
		return RP_EINTERNAL;
	}
	if (v->mr) {
		RP_ERR("rp_verbs_reg_ring: a ring is already registered");
		return RP_EINTERNAL;
	}
	access = ibv_access(v->access);
	rp_verbs_access_str(acc, sizeof(acc), access);

	rc = posix_memalign(&buf, page > 0 ? (size_t)page : 4096, len);
	if (rc) {
		RP_ERR("posix_memalign(%zu bytes): %s", len, strerror(rc));
		return -rc;
	}
	memset(buf, 0, len);
	v->mr = ibv_reg_mr(v->pd, buf, len, (int)access);
	if (!v->mr) {
		rc = errno;
		rp_verbs_report_reg_failure(len, acc, rc);
		free(buf);
		return RP_EVERBS;
	}
	v->ring = buf;
	v->ring_len = len;
	*addr = buf;
	*rkey = v->mr->rkey;
	rp_verbs_trace_mr(v, access, acc);
	return 0;
}

void rp_verbs_dereg_ring(struct rp_verbs *v)
{
	int rc;

	if (!v)
		return;
	if (v->mr) {
		uint32_t rkey = v->mr->rkey;

		rc = ibv_dereg_mr(v->mr);
		if (rc)
			RP_ERR("ibv_dereg_mr(rkey 0x%x): %s", rkey,
			       strerror(rc));
		else
			RP_TRACE("verbs", "MR deregistered (rkey 0x%x is no "
				 "longer valid)", rkey);
		v->mr = NULL;
	}
	if (v->ring) {
		free(v->ring);
		RP_TRACE("verbs", "ring of %zu bytes freed", v->ring_len);
		v->ring = NULL;
		v->ring_len = 0;
	}
}

/* ---------------------------------------------------------------------
 * 10. Posting work requests (completions: verbs_wait.c)
 */

/*
 * The ring's SGE for [off, off+len), once the ring, the range and the
 * ring's access suit the WR. A WR the NIC writes into the ring (a Read,
 * a receive) needs LOCAL_WRITE: without it the post would succeed and
 * its completion fail with a local protection error.
 */
static int ring_sge(const struct rp_verbs *v, uint32_t qp,
		    enum post_kind kind, size_t off, uint32_t len,
		    struct ibv_sge *sge)
{
	int rc;

	if (!v || !v->qp || !v->mr) {
		RP_ERR("rp_verbs_post(%s): no QP or no ring registered",
		       rp_verbs_post_kind_name(kind));
		return RP_EINTERNAL;
	}
	rc = rp_verbs_check_qp(qp, 1, rp_verbs_post_kind_name(kind));
	if (rc)
		return rc;
	if ((kind == POST_READ || kind == POST_RECV_BUF) &&
	    !(v->access & RP_ACCESS_LOCAL_WRITE)) {
		RP_ERR("rp_verbs_post(%s): the ring was registered without "
		       "LOCAL_WRITE, so the NIC may not write into it",
		       rp_verbs_post_kind_name(kind));
		return RP_EINTERNAL;
	}
	rc = rp_verbs_check_write(v->ring_len, off, len);
	if (rc)
		return rc;
	*sge = (struct ibv_sge){
		.addr = (uintptr_t)v->ring + off,
		.length = len,
		.lkey = v->mr->lkey,
	};
	return 0;
}

/* ibv_post_send, then count the WR and trace the first few of its kind. */
static int post_send(struct rp_verbs *v, enum post_kind kind,
		     struct ibv_send_wr *wr, size_t off)
{
	struct ibv_send_wr *bad = NULL;
	int rc;

	rc = ibv_post_send(v->qp, wr, &bad);
	if (rc)
		return rp_verbs_report_post(v, "ibv_post_send", kind,
					    wr->wr_id, rc);
	if (rp_verbs_dp_trace(v, ++v->posted[kind]))
		rp_verbs_trace_post_send(kind, wr, off);
	return 0;
}

/*
 * A signaled send-queue WR over ring[off, off+len); the caller set
 * wr_id, the opcode and its fields. No bytes, no SGE: a zero byte count
 * in an SGE is one some HCAs read as 2 GiB.
 */
static int post_ring_send(struct rp_verbs *v, uint32_t qp,
			  enum post_kind kind, struct ibv_send_wr *wr,
			  size_t off, uint32_t len)
{
	struct ibv_sge sge;
	int rc;

	rc = ring_sge(v, qp, kind, off, len, &sge);
	if (rc)
		return rc;
	wr->sg_list = &sge;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags = IBV_SEND_SIGNALED;
	return post_send(v, kind, wr, off);
}

int rp_verbs_post_write_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off, uint32_t len, uint64_t raddr, uint32_t rkey,
			    uint32_t imm)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.imm_data = htonl(imm),
		.wr.rdma = {
			.remote_addr = raddr,
			.rkey = rkey,
		},
	};

	return post_ring_send(v, qp, POST_WRITE_IMM, &wr, off, len);
}

int rp_verbs_post_send_data(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off, uint32_t len, uint32_t imm)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.imm_data = htonl(imm),
	};

	return post_ring_send(v, qp, POST_SEND_DATA, &wr, off, len);
}

int rp_verbs_post_read(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
		       size_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IBV_WR_RDMA_READ,
		.wr.rdma = {
			.remote_addr = raddr,
			.rkey = rkey,
		},
	};

	return post_ring_send(v, qp, POST_READ, &wr, off, len);
}

/* A credit: no ring needed, so it can go before or after the ring's life. */
int rp_verbs_post_send_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			   uint32_t imm)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = NULL,
		.num_sge = 0,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(imm),
	};

	if (!v || !v->qp) {
		RP_ERR("rp_verbs_post_send_imm: no QP");
		return RP_EINTERNAL;
	}
	if (rp_verbs_check_qp(qp, 1, "rp_verbs_post_send_imm"))
		return RP_EINTERNAL;
	return post_send(v, POST_SEND_IMM, &wr, 0);
}

/* ibv_post_recv, then count the WR and trace the first few of its kind. */
static int post_recv(struct rp_verbs *v, enum post_kind kind,
		     struct ibv_recv_wr *wr, size_t off)
{
	struct ibv_recv_wr *bad = NULL;
	int rc;

	rc = ibv_post_recv(v->qp, wr, &bad);
	if (rc)
		return rp_verbs_report_post(v, "ibv_post_recv", kind,
					    wr->wr_id, rc);
	if (rp_verbs_dp_trace(v, ++v->posted[kind]))
		rp_verbs_trace_post_recv(kind, wr, off);
	return 0;
}

int rp_verbs_post_recv(struct rp_verbs *v, uint32_t qp, uint64_t wr_id)
{
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = NULL,
		.num_sge = 0,
	};

	if (!v || !v->qp) {
		RP_ERR("rp_verbs_post_recv: no QP");
		return RP_EINTERNAL;
	}
	if (rp_verbs_check_qp(qp, 1, "rp_verbs_post_recv"))
		return RP_EINTERNAL;
	return post_recv(v, POST_RECV, &wr, 0);
}

int rp_verbs_post_recv_buf(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			   size_t off, uint32_t len)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
	};
	int rc;

	rc = ring_sge(v, qp, POST_RECV_BUF, off, len, &sge);
	if (rc)
		return rc;
	wr.num_sge = len ? 1 : 0;
	return post_recv(v, POST_RECV_BUF, &wr, off);
}

/* ---------------------------------------------------------------------
 * 11. Close: rp_verbs_open()'s ladder in reverse, the ring right after the QP
 */

void rp_verbs_close(struct rp_verbs *v)
{
	if (!v)
		return;
	rp_verbs_trace_counters(v);
	/* The QP before the ring it reads and writes (rc_pingpong's order). */
	destroy_qp(v);
	rp_verbs_dereg_ring(v);
	destroy_cq(v);
	destroy_channel(v);
	dealloc_pd(v);
	close_device(v);
	free(v);
}
