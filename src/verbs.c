// SPDX-License-Identifier: MIT
/*
 * The RDMA data plane over raw libibverbs, told as rc_pingpong tells it,
 * in build order from top to bottom: device -> PD -> completion channel
 * -> CQ -> QPs -> INIT; then, once the peer's QP addresses have come over
 * the control channel, RTR -> RTS; the registered ring; posting work
 * requests; and close, the same ladder in reverse. rp_verbs_open() just
 * below is the table of contents. With --qps N there are N RC QPs on the
 * one PD, CQ and ring, each taking the steps one QP takes.
 *
 * The rest of the backend: verbs_qp.c holds the QP steps (create, INIT,
 * RTR, RTS, destroy), verbs_select.c chooses device, port and GID,
 * verbs_wait.c waits for completions and events, verbs_trace.c holds the
 * --trace text and its names. Only src/verbs*.c include
 * <infiniband/verbs.h>.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "verbs_int.h"

/* Room in the CQ beyond one entry per send and receive WR of each QP. */
#define CQ_SLACK		16
/* The RP_ACCESS_* bits verbs.h defines. */
#define ACCESS_KNOWN		(RP_ACCESS_LOCAL_WRITE | \
				 RP_ACCESS_REMOTE_WRITE | \
				 RP_ACCESS_REMOTE_READ)

/*
 * The steps of rp_verbs_open(), in the order it takes them and defined in
 * that order below (the QPs' in verbs_qp.c); each undo is NULL-safe and
 * idempotent, so the error ladder and rp_verbs_close() can both call it.
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
/* Then verbs_qp.c's rp_verbs_create_qps(), rp_verbs_qps_to_init() and
 * their undo, rp_verbs_destroy_qps(). */

/*
 * Build in rc_pingpong's order (device, PD, channel, CQ, QPs, INIT) and,
 * on failure, undo in reverse: each label names what it releases.
 */
int rp_verbs_open(struct rp_verbs **out, const struct rp_verbs_cfg *cfg)
{
	struct rp_verbs *v;
	int rc;

	rc = rp_verbs_check_open(out, cfg);
	if (!rc)
		rc = check_access(cfg->access);
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
	rc = rp_verbs_create_qps(v, cfg);
	if (rc)
		goto err_destroy_cq;
	rc = rp_verbs_qps_to_init(v);
	if (rc)
		goto err_destroy_qps;
	*out = v;
	return 0;

err_destroy_qps:
	rp_verbs_destroy_qps(v);
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
	v->ack_timeout = cfg->ack_timeout ? cfg->ack_timeout :
			 RP_QP_TIMEOUT_DATA;
	/* rp_verbs_check_open() saw to the upper bound. */
	v->nqp = cfg->qps ? cfg->qps : 1;
	v->max_send_wr = cfg->max_send_wr;
	v->max_recv_wr = cfg->max_recv_wr;
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
		RP_EV("verbs", "device.close", "device {dev} closed",
		      EV_S("dev", v->dev_name));
	v->ctx = NULL;
}

const char *rp_verbs_gid_str(const struct rp_verbs *v)
{
	return v ? v->gid_str : "-";
}

int rp_verbs_gid_index(const struct rp_verbs *v)
{
	return v ? v->gid_index : -1;
}

int rp_verbs_netdev(const struct rp_verbs *v, char *buf, size_t len)
{
	struct ibv_gid_entry e;
	char name[IF_NAMESIZE];
	int rc;

	if (!v || len < IF_NAMESIZE)
		return RP_EINTERNAL;
	/* The kernel's GID table knows which netdev a RoCE GID is on
	 * (sysfs gid_attrs/ndevs); an InfiniBand GID is on none. */
	rc = ibv_query_gid_ex(v->ctx, v->port, (uint32_t)v->gid_index, &e, 0);
	if (rc) {
		RP_ERR("ibv_query_gid_ex(port %u, index %d): %s", v->port,
		       v->gid_index, strerror(rc));
		return -rc;
	}
	if (!e.ndev_ifindex) {
		RP_ERR("GID %d of %s port %u has no network device: only "
		       "RoCE packets can be captured", v->gid_index,
		       ibv_get_device_name(v->ctx->device), v->port);
		return RP_ECONFIG;
	}
	if (!if_indextoname(e.ndev_ifindex, name)) {
		rc = errno;
		RP_ERR("if_indextoname(%u): %s", e.ndev_ifindex,
		       strerror(rc));
		return -rc;
	}
	snprintf(buf, len, "%s", name);
	return 0;
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
		RP_EV0("verbs", "pd.dealloc", "PD deallocated");
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
		RP_EV0("verbs", "channel.destroy", "completion channel "
		       "destroyed");
	v->chan = NULL;
}

/* ---------------------------------------------------------------------
 * 4. Completion queue, shared by sends and receives of every QP
 */

/*
 * One CQ for every QP: room for each QP's every send and receive WR to
 * complete at once (a full CQ is an overrun, fatal to the CQ), + slack.
 */
static int create_cq(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
{
	uint64_t want = (uint64_t)v->nqp *
			((uint64_t)cfg->max_send_wr + cfg->max_recv_wr) +
			CQ_SLACK;

	if (want > (uint64_t)v->max_cqe) {
		RP_ERR("ibv_create_cq: %" PRIu64 " entries (%u QP(s) x (%u "
		       "send + %u receive) + %d) exceed the device's max_cqe "
		       "%d", want, v->nqp, cfg->max_send_wr, cfg->max_recv_wr,
		       CQ_SLACK, v->max_cqe);
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
		RP_EV("verbs", "cq.ack", "acked {count} outstanding CQ "
		      "event(s)", EV_U("count", v->cq_unacked));
		v->cq_unacked = 0;
	}
	rc = ibv_destroy_cq(v->cq);
	if (rc)
		RP_ERR("ibv_destroy_cq: %s", strerror(rc));
	else
		RP_EV0("verbs", "cq.destroy", "CQ destroyed");
	v->cq = NULL;
}

/* ---------------------------------------------------------------------
 * 5-8. The QPs: created in RESET, each RESET -> INIT at open, and
 * INIT -> RTR -> RTS against the peer's QP of the same index at
 * rp_verbs_connect(); ERROR and destroyed at close (verbs_qp.c)
 */

/*
 * After a link outage: the QPs and the CQ (with whatever completions of
 * the old QPs it still holds) go, fresh ones come, each QP in INIT with
 * a new QPN and PSN. The device, the PD, the channel and the ring's MR
 * stay, so the peer's rkey and our ring's contents are still good.
 */
int rp_verbs_relink(struct rp_verbs *v)
{
	struct rp_verbs_cfg cfg = { 0 };
	int rc;

	if (!v || !v->pd || !v->chan) {
		RP_ERR("rp_verbs_relink: no verbs context");
		return RP_EINTERNAL;
	}
	cfg.max_send_wr = v->max_send_wr;
	cfg.max_recv_wr = v->max_recv_wr;
	cfg.qps = v->nqp;
	RP_EV("verbs", "relink", "the link went away: {qps} QP(s) and the CQ "
	      "torn down and made anew; the PD and the ring's MR stay",
	      EV_U("qps", v->nqp));
	rp_verbs_destroy_qps(v);
	/* Events of the old CQ are acked before it goes. */
	rc = rp_verbs_drain_cq_events(v);
	destroy_cq(v);
	v->wc_failed = false;
	v->link_down = false;
	if (!rc)
		rc = create_cq(v, &cfg);
	if (!rc)
		rc = rp_verbs_create_qps(v, &cfg);
	if (!rc)
		rc = rp_verbs_qps_to_init(v);
	return rc;
}

void rp_verbs_set_relink(struct rp_verbs *v, bool on)
{
	if (v)
		v->relink = on;
}

bool rp_verbs_link_down(const struct rp_verbs *v)
{
	return v && v->link_down && !v->wc_failed;
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
	access = rp_verbs_ibv_access(v->access);
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
			RP_EV("verbs", "mr.dereg", "MR deregistered (rkey "
			      "{rkey} is no longer valid)",
			      EV_X("rkey", rkey, 0));
		v->mr = NULL;
	}
	if (v->ring) {
		free(v->ring);
		RP_EV("verbs", "ring.free", "ring of {length} bytes freed",
		      EV_U("length", v->ring_len));
		v->ring = NULL;
		v->ring_len = 0;
	}
}

/* ---------------------------------------------------------------------
 * 10. Posting work requests on QP qp (completions: verbs_wait.c)
 */

/* Every post first: v is open and qp one of its QPs. */
static int check_post(const struct rp_verbs *v, uint32_t qp,
		      enum post_kind kind)
{
	if (!v) {
		RP_ERR("rp_verbs_post(%s): no QP",
		       rp_verbs_post_kind_name(kind));
		return RP_EINTERNAL;
	}
	return rp_verbs_check_qp(qp, v->nqp, rp_verbs_post_kind_name(kind));
}

/*
 * The ring's SGE for [off, off+len), once the ring, the range and the
 * ring's access suit the WR. A WR the NIC writes into the ring (a Read,
 * a receive) needs LOCAL_WRITE: without it the post would succeed and
 * its completion fail with a local protection error.
 */
static int ring_sge(const struct rp_verbs *v, enum post_kind kind,
		    size_t off, uint32_t len, struct ibv_sge *sge)
{
	int rc;

	if (!v->mr) {
		RP_ERR("rp_verbs_post(%s): no ring registered",
		       rp_verbs_post_kind_name(kind));
		return RP_EINTERNAL;
	}
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
static int post_send(struct rp_verbs *v, uint32_t qp, enum post_kind kind,
		     struct ibv_send_wr *wr, size_t off)
{
	struct ibv_send_wr *bad = NULL;
	int rc;

	rc = ibv_post_send(v->qp[qp].ibv, wr, &bad);
	if (rc)
		return rp_verbs_report_post(v, qp, "ibv_post_send", kind,
					    wr->wr_id, rc);
	if (rp_verbs_dp_trace(v, ++v->posted[kind]))
		rp_verbs_trace_post_send(v, qp, kind, wr, off);
	return 0;
}

/*
 * A send-queue WR over ring[off, off+len), signaled unless the caller
 * says not (a plain Write in a latency loop); the caller set wr_id,
 * the opcode and its fields, and sg_list to an SGE of its own, filled
 * here. No bytes, no SGE: a zero byte count in an SGE is one
 * some HCAs read as 2 GiB.
 */
static int post_ring_send(struct rp_verbs *v, uint32_t qp,
			  enum post_kind kind, struct ibv_send_wr *wr,
			  size_t off, uint32_t len, bool signaled)
{
	int rc;

	rc = check_post(v, qp, kind);
	if (!rc)
		rc = ring_sge(v, kind, off, len, wr->sg_list);
	if (rc)
		return rc;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	return post_send(v, qp, kind, wr, off);
}

int rp_verbs_post_write_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off, uint32_t len, uint64_t raddr,
			    uint32_t rkey, uint32_t imm)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.imm_data = htonl(imm),
		.wr.rdma = {
			.remote_addr = raddr,
			.rkey = rkey,
		},
	};

	return post_ring_send(v, qp, POST_WRITE_IMM, &wr, off, len, true);
}

int rp_verbs_post_write(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			size_t off, uint32_t len, uint64_t raddr,
			uint32_t rkey, bool signaled)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = {
			.remote_addr = raddr,
			.rkey = rkey,
		},
	};
	return post_ring_send(v, qp, POST_WRITE, &wr, off, len, signaled);
}

int rp_verbs_post_send_data(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off, uint32_t len, uint32_t imm)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.imm_data = htonl(imm),
	};

	return post_ring_send(v, qp, POST_SEND_DATA, &wr, off, len, true);
}

int rp_verbs_post_read(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
		       size_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.opcode = IBV_WR_RDMA_READ,
		.wr.rdma = {
			.remote_addr = raddr,
			.rkey = rkey,
		},
	};

	return post_ring_send(v, qp, POST_READ, &wr, off, len, true);
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
	int rc;

	rc = check_post(v, qp, POST_SEND_IMM);
	if (rc)
		return rc;
	return post_send(v, qp, POST_SEND_IMM, &wr, 0);
}

/* ibv_post_recv, then count the WR and trace the first few of its kind. */
static int post_recv(struct rp_verbs *v, uint32_t qp, enum post_kind kind,
		     struct ibv_recv_wr *wr, size_t off)
{
	struct ibv_recv_wr *bad = NULL;
	int rc;

	rc = ibv_post_recv(v->qp[qp].ibv, wr, &bad);
	if (rc)
		return rp_verbs_report_post(v, qp, "ibv_post_recv", kind,
					    wr->wr_id, rc);
	if (rp_verbs_dp_trace(v, ++v->posted[kind]))
		rp_verbs_trace_post_recv(v, qp, kind, wr, off);
	return 0;
}

int rp_verbs_post_recv(struct rp_verbs *v, uint32_t qp, uint64_t wr_id)
{
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = NULL,
		.num_sge = 0,
	};
	int rc;

	rc = check_post(v, qp, POST_RECV);
	if (rc)
		return rc;
	return post_recv(v, qp, POST_RECV, &wr, 0);
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

	rc = check_post(v, qp, POST_RECV_BUF);
	if (!rc)
		rc = ring_sge(v, POST_RECV_BUF, off, len, &sge);
	if (rc)
		return rc;
	wr.num_sge = len ? 1 : 0;
	return post_recv(v, qp, POST_RECV_BUF, &wr, off);
}

/* ---------------------------------------------------------------------
 * 11. Close: rp_verbs_open()'s ladder in reverse, the ring right after the QPs
 */

void rp_verbs_close(struct rp_verbs *v)
{
	if (!v)
		return;
	rp_verbs_trace_counters(v);
	/* The QPs before the ring they read and write (rc_pingpong's order). */
	rp_verbs_destroy_qps(v);
	rp_verbs_dereg_ring(v);
	destroy_cq(v);
	destroy_channel(v);
	dealloc_pd(v);
	close_device(v);
	free(v);
}
