// SPDX-License-Identifier: MIT
/*
 * Waiting for the data path: poll the CQ, and when it is empty sleep in
 * one poll(2) over the completion channel, the async event fd and the
 * control socket, draining async events first. Turns completions and
 * events into rdmapush return codes for rp_verbs_next().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "rdmapush/wc_causes.h"
#include "verbs_int.h"

/* The table of src/wc_causes.c is keyed by these numbers. */
#define RP_WC_STATUS_SAME(name, val)					\
	_Static_assert(IBV_WC_##name == (val) &&			\
		       (int)RP_WCS_##name == (int)IBV_WC_##name,	\
		       "IBV_WC_" #name " is not " #val);
RP_WC_STATUS_MAP(RP_WC_STATUS_SAME)
#undef RP_WC_STATUS_SAME

/* Completions fetched per ibv_poll_cq call. */
#define POLL_BATCH		32

/* rp_verbs_next() first, then its helpers in the order it needs them. */
static int poll_cq(struct rp_verbs *v, struct rp_wc *out, int max);
static int wc_qp(const struct rp_verbs *v, const struct ibv_wc *wc);
static enum rp_wc_op wc_op(const struct ibv_wc *wc);
static void failed_wc(struct rp_verbs *v, const struct ibv_wc *wc);
static int wait_events(struct rp_verbs *v, int watch_fd, double deadline,
		       bool *watch_ready);
static int drain_async(struct rp_verbs *v);
static bool async_fatal(const struct rp_verbs *v,
			const struct ibv_async_event *ev);

/*
 * Poll first; only when the CQ is empty arm it and sleep, so a busy
 * transfer never pays for an event. Completions win over watch_fd: the
 * caller learns about the control socket only once the CQ is drained.
 */
int rp_verbs_next(struct rp_verbs *v, struct rp_wc *wc, int max,
		  int watch_fd, double deadline)
{
	bool watch_ready = false;
	int rc;
	int n;

	if (!v || !v->cq || !wc || max <= 0) {
		RP_ERR("rp_verbs_next: bad arguments (max %d)", max);
		return RP_EINTERNAL;
	}
	for (;;) {
		n = poll_cq(v, wc, max);
		if (n)
			return n;
		if (watch_ready)
			return 0;
		rc = ibv_req_notify_cq(v->cq, 0);
		if (rc) {
			RP_ERR("ibv_req_notify_cq: %s", strerror(rc));
			return RP_EVERBS;
		}
		/*
		 * A completion that landed between the empty poll and the
		 * re-arm raised no event: look once more before sleeping.
		 */
		n = poll_cq(v, wc, max);
		if (n)
			return n;
		rc = wait_events(v, watch_fd, deadline, &watch_ready);
		if (rc)
			return rc;
	}
}

/* No channel, no sleep: a busy poller's one look at the CQ. */
int rp_verbs_poll(struct rp_verbs *v, struct rp_wc *wc, int max)
{
	if (!v || !v->cq || !wc || max <= 0) {
		RP_ERR("rp_verbs_poll: bad arguments (max %d)", max);
		return RP_EINTERNAL;
	}
	return poll_cq(v, wc, max);
}

/* Non-blocking: up to max completions, 0 if none, or an error. */
static int poll_cq(struct rp_verbs *v, struct rp_wc *out, int max)
{
	struct ibv_wc wc[POLL_BATCH];
	int total = 0;

	while (total < max) {
		int want = max - total < POLL_BATCH ? max - total : POLL_BATCH;
		int n = ibv_poll_cq(v->cq, want, wc);
		int i;

		if (n < 0) {
			RP_ERR("ibv_poll_cq: failed (%d)", n);
			return RP_EVERBS;
		}
		for (i = 0; i < n; i++) {
			struct rp_wc *o = &out[total + i];
			int qp;

			if (wc[i].status != IBV_WC_SUCCESS) {
				/* Count the batch's other failures too. */
				for (; i < n; i++)
					if (wc[i].status != IBV_WC_SUCCESS)
						failed_wc(v, &wc[i]);
				return RP_EWC;
			}
			qp = wc_qp(v, &wc[i]);
			if (qp < 0)
				return RP_EINTERNAL;
			o->wr_id = wc[i].wr_id;
			o->op = wc_op(&wc[i]);
			o->byte_len = wc[i].byte_len;
			o->qp = (uint32_t)qp;
			o->imm = wc[i].wc_flags & IBV_WC_WITH_IMM ?
				 ntohl(wc[i].imm_data) : 0;
			if (rp_verbs_dp_trace(v, ++v->completed[o->op]))
				rp_verbs_trace_wc(v, &wc[i], o);
		}
		total += n;
		if (n < want)
			break;
	}
	return total;
}

/*
 * The index of the QP a completion came on, from its QPN. Only our QPs
 * use our CQ, so another QPN means our own bookkeeping is wrong:
 * reported, and -1.
 */
static int wc_qp(const struct rp_verbs *v, const struct ibv_wc *wc)
{
	int qp = rp_verbs_qp_index(v, wc->qp_num);

	if (qp < 0)
		RP_ERR("ibv_poll_cq: completion wr_id=%" PRIu64 " came on QPN "
		       "0x%x, none of our %u QP(s)", (uint64_t)wc->wr_id,
		       wc->qp_num, v->nqp);
	return qp;
}

static enum rp_wc_op wc_op(const struct ibv_wc *wc)
{
	switch (wc->opcode) {
	case IBV_WC_RDMA_WRITE:
		return RP_WC_WRITE;
	case IBV_WC_RDMA_READ:
		/*
		 * ibv_poll_cq(3) defines byte_len for receives; providers
		 * (rxe among them) also set it to the bytes a Read brought.
		 */
		return RP_WC_READ;
	case IBV_WC_SEND:
		return RP_WC_SEND;
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return RP_WC_RECV_WRITE_IMM;
	case IBV_WC_RECV:
		/* Of any length: a credit, or a Send with data (--op send). */
		if (wc->wc_flags & IBV_WC_WITH_IMM)
			return RP_WC_RECV_SEND_IMM;
		return RP_WC_OTHER;
	default:
		return RP_WC_OTHER;
	}
}

/*
 * A failed completion carries only wr_id, status, qp_num and vendor_err
 * (ibv_poll_cq(3)): its opcode is not reported, the caller's wr_id says
 * which request it was. What the status means and usually comes from
 * is src/wc_causes.c's table, which the in-memory fabric shares.
 */
static void failed_wc(struct rp_verbs *v, const struct ibv_wc *wc)
{
	char which[QP_NAME_LEN] = "";
	struct rp_wc_failure f = {
		.status = wc->status, .vendor_err = wc->vendor_err,
		.wr_id = wc->wr_id, .qpn = wc->qp_num, .which = which,
		.roce = v->link_layer == IBV_LINK_LAYER_ETHERNET,
	};
	int qp;

	v->wc_errors++;
	/* A link outage: our requests ran out of retries, the rest was
	 * flushed. The caller brings fresh QPs up; nothing to report. */
	if (v->relink && !v->wc_failed &&
	    (wc->status == IBV_WC_RETRY_EXC_ERR ||
	     wc->status == IBV_WC_WR_FLUSH_ERR)) {
		if (!v->link_down)
			rp_wc_trace_link(&f);
		v->link_down = true;
		return;
	}
	/* Report only the first: the flushes that follow it add nothing. */
	if (!v->wc_failed) {
		v->wc_failed = true;
		qp = rp_verbs_qp_index(v, wc->qp_num);
		if (qp < 0)
			snprintf(which, sizeof(which), " (none of ours)");
		else if (v->nqp > 1)
			snprintf(which, sizeof(which), " (QP %d of %u)", qp,
				 v->nqp);
		rp_wc_report_first(&f);
	} else if (rp_verbs_dp_trace(v, v->wc_errors)) {
		rp_wc_trace_too(&f);
	}
}

/*
 * Sleep in poll(2) until the completion channel, the async fd or watch_fd
 * has something, or the deadline. 0 means "look again".
 */
static int wait_events(struct rp_verbs *v, int watch_fd, double deadline,
		       bool *watch_ready)
{
	struct pollfd pfd[3] = {
		{ .fd = v->chan->fd, .events = POLLIN },
		{ .fd = v->ctx->async_fd, .events = POLLIN },
		{ .fd = watch_fd, .events = POLLIN },
	};
	nfds_t nfds = watch_fd >= 0 ? 3 : 2;
	int ms;
	int rc;

	ms = rp_sys_poll_ms(deadline, RP_SYS_MAX_SLEEP_MS);
	if (!ms)
		return RP_ETIMEOUT;
	rc = poll(pfd, nfds, ms);
	if (rc < 0) {
		int e = errno;

		if (e == EINTR)
			return RP_EINTERRUPTED;
		RP_ERR("poll(completion channel, async fd%s): %s",
		       nfds == 3 ? ", control socket" : "", strerror(e));
		return -e;
	}
	if (!rc)
		return 0;
	/* Async first: a fatal event explains the failures that follow. */
	if (pfd[1].revents) {
		rc = drain_async(v);
		if (rc)
			return rc;
	}
	if (pfd[0].revents) {
		rc = rp_verbs_drain_cq_events(v);
		if (rc)
			return rc;
	}
	if (nfds == 3 && pfd[2].revents) {
		if (pfd[2].revents & POLLNVAL) {
			RP_ERR("poll: watched fd %d is not open", watch_fd);
			return RP_EINTERNAL;
		}
		*watch_ready = true;
	}
	return 0;
}

static int drain_async(struct rp_verbs *v)
{
	int rc = 0;

	for (;;) {
		struct ibv_async_event ev;
		char what[96];

		if (ibv_get_async_event(v->ctx, &ev)) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (!rc) {
				RP_ERR("ibv_get_async_event: %s",
				       strerror(errno));
				rc = RP_EVERBS;
			}
			break;
		}
		v->async_events++;
		rp_verbs_async_element(v, &ev, what, sizeof(what));
		if (v->relink && ev.event_type == IBV_EVENT_PORT_ERR &&
		    ev.element.port_num == v->port) {
			/* The port went down: a link outage, ours to ride
			 * out (rp_verbs_set_relink()). */
			RP_EV("verbs", "async.link", "async event: {event} on "
			      "{on}: the link is down",
			      EV_S("event", ibv_event_type_str(ev.event_type)),
			      EV_S("on", what));
			v->link_down = true;
			if (!rc)
				rc = RP_EWC;
		} else if (async_fatal(v, &ev) && !rc) {
			RP_ERR("async event: %s on %s%s",
			       ibv_event_type_str(ev.event_type), what,
			       rp_verbs_async_hint(ev.event_type));
			rc = RP_EVERBS;
		} else {
			bool fatal = async_fatal(v, &ev);

			RP_EV("verbs", "async", "async event: {event} on "
			      "{on}{mark}",
			      EV_S("event", ibv_event_type_str(ev.event_type)),
			      EV_S("on", what),
			      EV_T("mark", fatal ? "" : " (not fatal)"),
			      EV_B("fatal", fatal));
		}
		ibv_ack_async_event(&ev);
	}
	return rc;
}

static bool async_fatal(const struct rp_verbs *v,
			const struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_CQ_ERR:
	case IBV_EVENT_DEVICE_FATAL:
		return true;
	case IBV_EVENT_PORT_ERR:
		return ev->element.port_num == v->port;
	default:
		return false;
	}
}

int rp_verbs_drain_cq_events(struct rp_verbs *v)
{
	int rc = 0;

	for (;;) {
		struct ibv_cq *cq;
		void *cq_ctx;

		if (ibv_get_cq_event(v->chan, &cq, &cq_ctx)) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			RP_ERR("ibv_get_cq_event: %s", strerror(errno));
			rc = RP_EVERBS;
			break;
		}
		v->cq_unacked++;
		if (rp_verbs_dp_trace(v, ++v->cq_events))
			RP_EV("verbs", "cq.event", "CQ event: the completion "
			      "channel woke us; polling the CQ",
			      EV_U("n", v->cq_events));
	}
	/* Ack what we took now: one mutex per wake-up, none left over. */
	if (v->cq_unacked) {
		ibv_ack_cq_events(v->cq, v->cq_unacked);
		v->cq_unacked = 0;
	}
	return rc;
}
