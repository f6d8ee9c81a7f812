// SPDX-License-Identifier: MIT
/*
 * The in-memory fabric: rdmapush/verbs.h implemented without a device, so
 * a sender and a receiver can run as two threads of one process (session
 * tests, the native benchmark). Each endpoint (a context, struct
 * rp_verbs) models cfg.qps RC QPs sharing one CQ, one eventfd and one
 * ring; a post executes at once in the poster's thread (checks, copy,
 * completions on both sides) and wakes the other side through an eventfd.
 * Test-facing faults, hook and counters are in rdmapush/fabric_mem.h.
 *
 * Locking, outermost first: fab.lock (registry, pairing, hook) then one
 * endpoint's lock (the queues and state of all its QPs, its CQ and its
 * ring: one lock per context, not per QP); never two endpoint locks at
 * once. Faults and counters are atomics, usable under either. A Write,
 * a Send or a Read pins the responder's context (busy) and copies with
 * no lock held; close and dereg wait for the pins to go.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/fabric_mem.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"
#include "rdmapush/wc_causes.h"

/* enum ibv_mtu's IBV_MTU_1024, what rxe reports on a 1500-byte link. */
#define FAB_MTU			3
#define FAB_GID_INDEX		1
/* Completions taken per lock round in rp_verbs_next(). */
#define POLL_BATCH		32
/* Failed completions traced after the one that is reported. */
#define TRACE_FIRST		4

/* The enum ibv_wc_status values we produce, so reports read as rxe's. */
enum fab_status {
	ST_OK = RP_WCS_SUCCESS,
	ST_LOC_LEN = RP_WCS_LOC_LEN_ERR,
	ST_LOC_PROT = RP_WCS_LOC_PROT_ERR,
	ST_FLUSH = RP_WCS_WR_FLUSH_ERR,
	ST_REM_INV_REQ = RP_WCS_REM_INV_REQ_ERR,
	ST_REM_ACCESS = RP_WCS_REM_ACCESS_ERR,
	ST_REM_OP = RP_WCS_REM_OP_ERR,
	ST_RETRY_EXC = RP_WCS_RETRY_EXC_ERR,
	ST_RNR_RETRY_EXC = RP_WCS_RNR_RETRY_EXC_ERR,
	ST_GENERAL = RP_WCS_GENERAL_ERR,
	/* Not a status: the request vanished (STALL), nothing completes. */
	ST_LOST = 255,
};

enum qp_state {
	QPS_INIT,
	QPS_RTS,
	QPS_ERROR,
};

/* A credit is a SEND_WITH_IMM of zero length: one kind, as on the wire. */
enum post_kind {
	POST_WRITE_IMM,
	POST_WRITE,		/* plain RDMA Write: no receive, no immediate */
	POST_SEND_IMM,
	POST_READ,
	POST_RECV,
	POST_KIND_MAX
};

static const char *const post_kind_names[POST_KIND_MAX] = {
	[POST_WRITE_IMM] = "WRITE_WITH_IMM",
	[POST_WRITE] = "RDMA_WRITE",
	[POST_SEND_IMM] = "SEND_WITH_IMM",
	[POST_READ] = "RDMA_READ",
	[POST_RECV] = "RECV",
};

/* The requester's completion for each send-queue kind. */
static const uint8_t sq_op[POST_KIND_MAX] = {
	[POST_WRITE_IMM] = RP_WC_WRITE,
	[POST_WRITE] = RP_WC_WRITE,
	[POST_SEND_IMM] = RP_WC_SEND,
	[POST_READ] = RP_WC_READ,
	[POST_RECV] = RP_WC_OTHER,
};

struct fab_cqe {
	uint64_t wr_id;
	uint32_t byte_len;
	uint32_t imm;
	uint8_t op;		/* enum rp_wc_op */
	uint8_t status;		/* enum fab_status */
	uint8_t qp;		/* the QP's index in its context */
	bool sq;		/* polling it frees a send-queue slot */
	bool injected;		/* failed by RP_FAB_FAIL_COMPLETION */
};

/* One send-side work request on its way through post_send_wr(). */
struct fab_wr {
	enum post_kind kind;
	uint64_t wr_id;
	size_t off;		/* in our ring: the source, a Read's target,
				 * or a receive's buffer */
	uint32_t len;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;
	bool unsignaled;	/* POST_WRITE only: no completion if it
				 * succeeds (a failure always has one) */
};

/* A posted receive: its buffer is ring[off, off+len); len 0 for none. */
struct fab_rwr {
	uint64_t wr_id;
	size_t off;
	uint32_t len;
};

/* What the responder gave a request that it accepted (it is pinned). */
struct fab_resp {
	uint64_t rwr;		/* the receive consumed (Write, Send) */
	uint8_t *mem;		/* where in its ring; NULL: a Send of 0 bytes */
};

/* A requester's completion held back until due (RP_FAB_SLOW_ACK). */
struct fab_late {
	struct fab_cqe c;
	double due;		/* rp_now() seconds */
};

/* One RC QP of a context: what rxe keeps per QP. */
struct fab_qp {
	/* Fixed at open. */
	struct rp_verbs *ctx;	/* the context it belongs to */
	uint32_t idx;		/* in ctx->qp[], what rp_wc.qp says */
	uint32_t qpn;
	uint32_t psn;

	/* Under fab.lock. */
	struct fab_qp *peer;	/* both connected to each other */
	uint32_t peer_qpn;
	bool connected;
	/* Requests to a QP that has not connected to us yet, in post
	 * order: an RC requester retries until the responder is in RTR.
	 * Each holds its send-queue slot; max_send of them. */
	struct fab_wr *park;
	uint32_t park_head;
	uint32_t park_len;
	bool draining;		/* unpark() is delivering them */

	/* Under ctx->lock. */
	enum qp_state state;
	struct fab_rwr *rq;	/* posted receives, FIFO */
	uint32_t rq_head;
	uint32_t rq_len;
	uint32_t rq_held;	/* consumed, completion not yet polled */
	uint32_t sq_held;	/* posted, completion not yet polled */
};

struct rp_verbs {
	/* Fixed at open. */
	enum rp_fab_side side;
	unsigned int access;	/* RP_ACCESS_*: the ring's and the QPs' */
	uint8_t gid[RP_GID_LEN];
	char gid_str[INET6_ADDRSTRLEN];
	uint32_t max_send;	/* per QP */
	uint32_t max_recv;	/* per QP */
	int efd;		/* eventfd: the CQ went non-empty */
	uint32_t nqp;
	struct fab_qp qp[RP_QPS_MAX];	/* [0, nqp) in use */

	/* Under fab.lock. */
	struct rp_verbs *next_ep;

	/* Under lock. */
	pthread_mutex_t lock;
	pthread_cond_t idle;	/* busy went to 0 */
	bool stalled;		/* RP_FAB_STALL: every QP frozen */
	unsigned int busy;	/* peer requests copying to or from our ring */
	uint8_t *ring;
	size_t ring_len;
	uint32_t rkey;
	/* (max_send + max_recv) * nqp: cannot overflow. */
	struct fab_cqe *cq;
	uint32_t cq_cap;
	uint32_t cq_head;
	uint32_t cq_len;
	uint64_t ncompl;	/* completions queued, 1-based fault count */
	double ack_delay;	/* RP_FAB_SLOW_ACK, seconds; 0: none */
	bool discard;		/* rp_fab_discard(): bytes into us not copied */
	struct fab_late *late;	/* our completions waiting for their ACK */
	uint32_t late_cap;	/* max_send * nqp */
	uint32_t late_head;
	uint32_t late_len;
	/* RP_FAB_CROSS_QP: a completion taken out of the CQ and not yet
	 * returned (it keeps its queue slot), returned by held_due. */
	struct fab_cqe held;
	bool holding;
	bool held_crossed;	/* another QP's went ahead of it */
	double held_due;	/* rp_now() seconds */

	/* The owner's thread only. */
	bool relink;		/* rp_verbs_set_relink() */
	bool link_down;
	uint64_t nposts;
	uint64_t nconnects;	/* rp_verbs_connect() calls, fault count */
	double unreach_until;	/* RP_FAB_CONNECT_UNREACH, rp_now() s */
	uint64_t posted[POST_KIND_MAX];	/* successful, to bound the traces */
	bool wc_failed;
	uint64_t wc_errors;
	uint64_t polled;
};

static struct {
	pthread_mutex_t lock;
	struct rp_verbs *eps;
	uint32_t next_qpn;
	uint32_t next_mr;
	rp_fab_hook hook;
	void *hook_arg;
	atomic_bool hook_set;	/* lets a post skip fab.lock */
} fab = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.next_qpn = 0x11,	/* rxe's first QPN after the special ones */
};

/* Armed fault per side: what << 56 | nth; 0 when none. One-shot. */
/* rp_fab_discard(), per side: read by each endpoint at its open. */
static atomic_bool discard_side[RP_FAB_SIDE_MAX];
static _Atomic uint64_t fault_word[RP_FAB_SIDE_MAX];
/* The status RP_FAB_FAIL_COMPLETION gives, per side (enum rp_wc_status):
 * "general error", or rp_fab_fail_completion()'s; set as it is armed. */
static atomic_int fail_status[RP_FAB_SIDE_MAX];
/* How long RP_FAB_CONNECT_UNREACH lasts once fired, per side, in ms:
 * 0, or rp_fab_unreach()'s; set as it is armed. */
static atomic_uint unreach_ms[RP_FAB_SIDE_MAX];
static atomic_int stat_open;
static _Atomic uint64_t stat_opened;
static atomic_int stat_rings;
static _Atomic uint64_t stat_writes;
static _Atomic uint64_t stat_plain_writes;
static _Atomic uint64_t stat_sends;
static _Atomic uint64_t stat_bytes;
static _Atomic uint64_t stat_reads;
static _Atomic uint64_t stat_read_bytes;
static _Atomic uint64_t stat_crossed;

#define FAULT_SHIFT	56
#define FAULT_NTH_MASK	((UINT64_C(1) << FAULT_SHIFT) - 1)

/* ---------------------------------------------------------------------
 * Test-facing side (rdmapush/fabric_mem.h)
 */

static const char *fault_name(enum rp_fab_fault f)
{
	switch (f) {
	case RP_FAB_NONE:
		return "NONE";
	case RP_FAB_FAIL_POST:
		return "FAIL_POST";
	case RP_FAB_FAIL_COMPLETION:
		return "FAIL_COMPLETION";
	case RP_FAB_STALL:
		return "STALL";
	case RP_FAB_KILL:
		return "KILL";
	case RP_FAB_SLOW_ACK:
		return "SLOW_ACK";
	case RP_FAB_CROSS_QP:
		return "CROSS_QP";
	case RP_FAB_STRAY_WC:
		return "STRAY_WC";
	case RP_FAB_LINK_DOWN:
		return "LINK_DOWN";
	case RP_FAB_CONNECT_UNREACH:
		return "CONNECT_UNREACH";
	}
	return "?";
}

static const char *side_name(enum rp_fab_side s)
{
	return s == RP_FAB_RECEIVER ? "receiver" : "sender";
}

/* Arm what on side at nth; a failed completion gets status, an
 * unresolved address lasts ms. */
static void arm(enum rp_fab_side side, enum rp_fab_fault what, uint64_t nth,
		int status, unsigned int ms)
{
	uint64_t w = 0;

	if ((unsigned int)side >= RP_FAB_SIDE_MAX)
		return;
	if (what != RP_FAB_NONE && nth)
		w = (uint64_t)what << FAULT_SHIFT | (nth & FAULT_NTH_MASK);
	/* The status first: the word makes the fault live. */
	if (what == RP_FAB_FAIL_COMPLETION)
		atomic_store(&fail_status[side], status);
	if (what == RP_FAB_CONNECT_UNREACH)
		atomic_store(&unreach_ms[side], ms);
	atomic_store(&fault_word[side], w);
}

void rp_fab_fault(enum rp_fab_side side, enum rp_fab_fault what,
		  uint64_t nth)
{
	arm(side, what, nth, RP_WCS_GENERAL_ERR, 0);
}

void rp_fab_unreach(enum rp_fab_side side, uint64_t nth, unsigned int ms)
{
	arm(side, RP_FAB_CONNECT_UNREACH, nth, RP_WCS_GENERAL_ERR, ms);
}

void rp_fab_fail_completion(enum rp_fab_side side, uint64_t nth, int status)
{
	arm(side, RP_FAB_FAIL_COMPLETION, nth,
	    status > 0 && status < RP_WCS_MAX ? status : RP_WCS_GENERAL_ERR, 0);
}

/*
 * True, and the fault disarmed, when the fault armed on side is one of
 * the kinds in mask (bits 1 << enum rp_fab_fault) and n is its nth.
 */
static bool take_fault(enum rp_fab_side side, unsigned int mask, uint64_t n,
		       enum rp_fab_fault *what)
{
	uint64_t w = atomic_load_explicit(&fault_word[side],
					  memory_order_relaxed);

	if (!w)
		return false;
	*what = (enum rp_fab_fault)(w >> FAULT_SHIFT);
	if (!(mask & 1u << *what) || (w & FAULT_NTH_MASK) != n)
		return false;
	/* Another endpoint of the same side may race us for it. */
	if (!atomic_compare_exchange_strong(&fault_word[side], &w, 0))
		return false;
	RP_EV("verbs", "fabric.fault", "fabric: fault {fault} fires on the "
	      "{side} at #{n}", EV_S("fault", fault_name(*what)),
	      EV_S("side", side_name(side)), EV_U("n", n));
	return true;
}

/* The time a mode that is not counted (RP_FAB_SLOW_ACK, RP_FAB_CROSS_QP)
 * is armed with on side: its nth milliseconds, in seconds; 0 when that
 * mode is not armed. */
static double armed_s(enum rp_fab_side side, enum rp_fab_fault what)
{
	uint64_t w = atomic_load(&fault_word[side]);

	if (w >> FAULT_SHIFT != what)
		return 0;
	return (double)(w & FAULT_NTH_MASK) / 1000.0;
}

void rp_fab_set_hook(rp_fab_hook hook, void *arg)
{
	pthread_mutex_lock(&fab.lock);
	fab.hook = hook;
	fab.hook_arg = arg;
	atomic_store(&fab.hook_set, hook != NULL);
	pthread_mutex_unlock(&fab.lock);
}

void rp_fab_stats(struct rp_fab_stats *out)
{
	out->open = atomic_load(&stat_open);
	out->opened = atomic_load(&stat_opened);
	out->rings = atomic_load(&stat_rings);
	out->writes = atomic_load(&stat_writes);
	out->plain_writes = atomic_load(&stat_plain_writes);
	out->sends = atomic_load(&stat_sends);
	out->bytes = atomic_load(&stat_bytes);
	out->reads = atomic_load(&stat_reads);
	out->read_bytes = atomic_load(&stat_read_bytes);
	out->crossed = atomic_load(&stat_crossed);
}

void rp_fab_discard(enum rp_fab_side side, bool on)
{
	if ((unsigned int)side < RP_FAB_SIDE_MAX)
		atomic_store(&discard_side[side], on);
}

void rp_fab_reset(void)
{
	for (int s = 0; s < RP_FAB_SIDE_MAX; s++) {
		atomic_store(&fault_word[s], 0);
		atomic_store(&fail_status[s], RP_WCS_GENERAL_ERR);
		atomic_store(&unreach_ms[s], 0);
		atomic_store(&discard_side[s], false);
	}
	rp_fab_set_hook(NULL, NULL);
	atomic_store(&stat_opened, 0);
	atomic_store(&stat_writes, 0);
	atomic_store(&stat_plain_writes, 0);
	atomic_store(&stat_sends, 0);
	atomic_store(&stat_bytes, 0);
	atomic_store(&stat_reads, 0);
	atomic_store(&stat_read_bytes, 0);
	atomic_store(&stat_crossed, 0);
}

/* ---------------------------------------------------------------------
 * Names for traces and reports
 */

#define QP_NAME_LEN	sizeof("QP 7 (QPN 0xffffff)")
#define QP_LIST_LEN	(RP_QPS_MAX * sizeof("0xffffff,"))

/* "QP 0x11" when the context has one QP, as before --qps; "QP 2 (QPN
 * 0x13)" when it has several, so a trace says which of them it was. */
static const char *qp_name(const struct fab_qp *q, char *buf)
{
	if (q->ctx->nqp == 1)
		snprintf(buf, QP_NAME_LEN, "QP 0x%x", q->qpn);
	else
		snprintf(buf, QP_NAME_LEN, "QP %u (QPN 0x%x)", q->idx, q->qpn);
	return buf;
}

/* The context's QPNs ("0x11,0x12"), or their PSNs, in buf. */
static const char *qp_list(const struct rp_verbs *v, bool psn, char *buf)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < v->nqp; i++) {
		const char *sep = i ? "," : "";

		if (psn)
			n += (size_t)snprintf(buf + n, QP_LIST_LEN - n,
					      "%s0x%06x", sep, v->qp[i].psn);
		else
			n += (size_t)snprintf(buf + n, QP_LIST_LEN - n,
					      "%s0x%x", sep, v->qp[i].qpn);
	}
	return buf;
}

/* ---------------------------------------------------------------------
 * The completion queue and the QPs' error state (endpoint lock held)
 */

/* Wake the owner only when the CQ goes non-empty: it drains the CQ
 * before it sleeps again, so one wake-up covers every entry. Written
 * under the lock, because the endpoint may be freed right after it. */
static void cq_push_raw(struct fab_qp *q, struct fab_cqe c)
{
	static const uint64_t one = 1;
	struct rp_verbs *v = q->ctx;
	char qn[QP_NAME_LEN];

	if (v->cq_len == v->cq_cap) {
		/* Every entry holds a queue slot, so this cannot happen. */
		RP_ERR("fabric: CQ of %s overrun; completion wr_id %" PRIu64
		       " lost", qp_name(q, qn), c.wr_id);
		return;
	}
	c.qp = (uint8_t)q->idx;
	v->cq[(v->cq_head + v->cq_len) % v->cq_cap] = c;
	v->cq_len++;
	if (v->cq_len > 1)
		return;
	if (write(v->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		RP_ERR("fabric: write(eventfd of %s): %s", qp_name(q, qn),
		       strerror(errno));
}

static void qp_error(struct fab_qp *q, const char *why);

/* Queue a completion; a failed one moves its QP to ERROR, as on a NIC.
 * The fault count is the context's, over all its QPs. */
static void cq_push(struct fab_qp *q, struct fab_cqe c)
{
	struct rp_verbs *v = q->ctx;
	enum rp_fab_fault what;

	v->ncompl++;
	if (take_fault(v->side, 1u << RP_FAB_FAIL_COMPLETION |
		       1u << RP_FAB_STRAY_WC, v->ncompl, &what) &&
	    c.status == ST_OK) {
		if (what == RP_FAB_STRAY_WC) {
			c.op = RP_WC_RECV_WRITE_IMM;
		} else {
			c.status = (uint8_t)atomic_load(&fail_status[v->side]);
			c.injected = true;
		}
	}
	cq_push_raw(q, c);
	if (c.status != ST_OK)
		qp_error(q, c.injected ? "injected completion failure"
				       : "a completion failed");
}

/* ERROR flushes every receive posted on that QP: each completes as
 * flushed. The context's other QPs are untouched, as with rxe. */
static void qp_error(struct fab_qp *q, const char *why)
{
	char qn[QP_NAME_LEN];

	if (q->state == QPS_ERROR)
		return;
	q->state = QPS_ERROR;
	RP_EV("verbs", "fabric.qp_error", "fabric: {name} -> ERROR ({why}); "
	      "{flushed} posted receive(s) flushed",
	      EV_S("name", qp_name(q, qn)), EV_S("why", why),
	      EV_U("flushed", q->rq_len));
	while (q->rq_len) {
		struct fab_cqe c = {
			.wr_id = q->rq[q->rq_head].wr_id,
			.op = RP_WC_OTHER,
			.status = ST_FLUSH,
		};

		q->rq_head = (q->rq_head + 1) % q->ctx->max_recv;
		q->rq_len--;
		q->rq_held++;
		cq_push(q, c);
	}
}

/* ---------------------------------------------------------------------
 * Open, close, addresses
 */

static struct fab_qp *find_qpn(uint32_t qpn)
{
	for (struct rp_verbs *e = fab.eps; e; e = e->next_ep)
		for (uint32_t i = 0; i < e->nqp; i++)
			if (e->qp[i].qpn == qpn)
				return &e->qp[i];
	return NULL;
}

/* Links the endpoint and gives each of its QPs the next free 24-bit
 * QPN, sequentially as rxe allocates them. Linked first, so a QPN given
 * to one of its own QPs counts as in use (0, not yet given, never is). */
static void give_qpns(struct rp_verbs *v)
{
	for (uint32_t i = 0; i < v->nqp; i++) {
		do {
			v->qp[i].qpn = fab.next_qpn;
			fab.next_qpn = (fab.next_qpn + 1) & 0xffffff;
			if (!fab.next_qpn)
				fab.next_qpn = 1;
		} while (find_qpn(v->qp[i].qpn) != &v->qp[i]);
	}
}

static void registry_add(struct rp_verbs *v)
{
	pthread_mutex_lock(&fab.lock);
	v->next_ep = fab.eps;
	fab.eps = v;
	give_qpns(v);
	pthread_mutex_unlock(&fab.lock);
}

/* fab.lock held: the QP's peer, if any, then sees a dead QP. */
static void qp_unpair(struct fab_qp *q)
{
	if (q->peer)
		q->peer->peer = NULL;
	q->peer = NULL;
	q->connected = false;
	q->park_len = 0;	/* their completions never come */
}

/* Unpair every QP and unlink (fab.lock held). */
static void registry_del(struct rp_verbs *v)
{
	struct rp_verbs **pp;

	for (uint32_t i = 0; i < v->nqp; i++)
		qp_unpair(&v->qp[i]);
	for (pp = &fab.eps; *pp; pp = &(*pp)->next_ep) {
		if (*pp == v) {
			*pp = v->next_ep;
			break;
		}
	}
}

/* RoCE v2 GIDs of IPv4 addresses are IPv4-mapped IPv6: ::ffff:a.b.c.d.
 * Anything else (a socketpair in tests) gets the loopback one. */
static void gid_from_addr(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
{
	const struct sockaddr *sa = cfg->local_addr;
	static const uint8_t lo[4] = { 127, 0, 0, 1 };

	memset(v->gid, 0, sizeof(v->gid));
	v->gid[10] = 0xff;
	v->gid[11] = 0xff;
	memcpy(&v->gid[12], lo, 4);
	if (sa && sa->sa_family == AF_INET &&
	    cfg->local_addr_len >= sizeof(struct sockaddr_in))
		memcpy(&v->gid[12],
		       &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa && sa->sa_family == AF_INET6 &&
		 cfg->local_addr_len >= sizeof(struct sockaddr_in6))
		memcpy(v->gid, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		       RP_GID_LEN);
	rp_sys_gid_text(v->gid, v->gid_str, sizeof(v->gid_str));
}

/* A receive queue per QP; one CQ and one list of late completions for
 * all of them, sized for every QP's slots. */
static int alloc_queues(struct rp_verbs *v)
{
	bool ok = true;

	for (uint32_t i = 0; i < v->nqp; i++) {
		v->qp[i].rq = calloc(v->max_recv, sizeof(*v->qp[i].rq));
		v->qp[i].park = calloc(v->max_send, sizeof(*v->qp[i].park));
		ok = ok && v->qp[i].rq && v->qp[i].park;
	}
	v->cq_cap = (v->max_send + v->max_recv) * v->nqp;
	v->cq = calloc(v->cq_cap, sizeof(*v->cq));
	v->late_cap = v->max_send * v->nqp;
	v->late = calloc(v->late_cap, sizeof(*v->late));
	if (!ok || !v->cq || !v->late) {
		int e = errno;

		RP_ERR("calloc(fabric queues: %u QP(s) of %u send, %u "
		       "receive): %s", v->nqp, v->max_send, v->max_recv,
		       strerror(e));
		return -e;
	}
	v->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (v->efd < 0) {
		int e = errno;

		RP_ERR("eventfd: %s", strerror(e));
		return -e;
	}
	return 0;
}

/* "LOCAL_WRITE|REMOTE_READ", or "0", in buf (ACCESS_STR_LEN bytes). */
#define ACCESS_STR_LEN	sizeof("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ")

static const char *access_str(unsigned int access, char *buf)
{
	static const char *const names[] = {
		"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ",
	};
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < 3; i++)
		if (access & 1u << i)
			n += (size_t)snprintf(buf + n, ACCESS_STR_LEN - n,
					      "%s%s", n ? "|" : "", names[i]);
	if (!n)
		snprintf(buf, ACCESS_STR_LEN, "0");
	return buf;
}

static void free_endpoint(struct rp_verbs *v)
{
	if (v->efd >= 0)
		close(v->efd);
	free(v->late);
	free(v->cq);
	for (uint32_t i = 0; i < v->nqp; i++) {
		free(v->qp[i].rq);
		free(v->qp[i].park);
	}
	pthread_cond_destroy(&v->idle);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

int rp_verbs_open(struct rp_verbs **out, const struct rp_verbs_cfg *cfg)
{
	char acc[ACCESS_STR_LEN];
	char qpns[QP_LIST_LEN];
	char psns[QP_LIST_LEN];
	struct rp_verbs *v;
	int rc;

	rc = rp_verbs_check_open(out, cfg);
	if (rc)
		return rc;
	v = calloc(1, sizeof(*v));
	if (!v) {
		rc = -errno;
		RP_ERR("calloc: %s", strerror(errno));
		return rc;
	}
	v->efd = -1;
	pthread_mutex_init(&v->lock, NULL);
	pthread_cond_init(&v->idle, NULL);
	v->access = cfg->access;
	v->side = cfg->receiver ? RP_FAB_RECEIVER : RP_FAB_SENDER;
	v->max_send = cfg->max_send_wr;
	v->max_recv = cfg->max_recv_wr;
	v->nqp = cfg->qps ? cfg->qps : 1;
	for (uint32_t i = 0; i < v->nqp; i++) {
		struct fab_qp *q = &v->qp[i];

		q->ctx = v;
		q->idx = i;
		q->state = QPS_INIT;
		rp_sys_random(&q->psn, sizeof(q->psn));
		q->psn &= 0xffffff;
	}
	rc = alloc_queues(v);
	if (rc)
		goto err_free;
	gid_from_addr(v, cfg);
	v->ack_delay = armed_s(v->side, RP_FAB_SLOW_ACK);
	v->discard = atomic_load(&discard_side[v->side]);
	registry_add(v);
	atomic_fetch_add(&stat_open, 1);
	atomic_fetch_add(&stat_opened, 1);
	/* rd_atomic is only traced: a Read here completes as it is posted,
	 * so there are never more in flight than the send queue holds. */
	RP_EV("verbs", "fabric.open", "fabric: in-memory QP{s} {qpns} opened "
	      "({side} side, max_send_wr={max_send_wr} "
	      "max_recv_wr={max_recv_wr}, access={access} "
	      "rd_atomic={rd_atomic}, psn={psns}, gid {gid})",
	      EV_T("s", v->nqp > 1 ? "s" : ""),
	      EV_S("qpns", qp_list(v, false, qpns)),
	      EV_S("side", side_name(v->side)),
	      EV_U("max_send_wr", v->max_send),
	      EV_U("max_recv_wr", v->max_recv),
	      EV_S("access", access_str(v->access, acc)),
	      EV_U("rd_atomic", cfg->rd_atomic ? cfg->rd_atomic : 1),
	      EV_S("psns", qp_list(v, true, psns)), EV_S("gid", v->gid_str),
	      EV_U("qps", v->nqp));
	*out = v;
	return 0;

err_free:
	free_endpoint(v);
	return rc;
}

void rp_verbs_close(struct rp_verbs *v)
{
	char qpns[QP_LIST_LEN];

	if (!v)
		return;
	qp_list(v, false, qpns);
	RP_EV("verbs", "fabric.close", "fabric: QP{s} {qpns} closing: {posts} "
	      "post(s), {polled} completion(s) polled, {failed} failed",
	      EV_T("s", v->nqp > 1 ? "s" : ""), EV_S("qpns", qpns),
	      EV_U("posts", v->nposts), EV_U("polled", v->polled),
	      EV_U("failed", v->wc_errors));
	/* Unpaired first: no new Write can pin us after this. */
	pthread_mutex_lock(&fab.lock);
	registry_del(v);
	pthread_mutex_unlock(&fab.lock);
	pthread_mutex_lock(&v->lock);
	for (uint32_t i = 0; i < v->nqp; i++)
		v->qp[i].state = QPS_ERROR;
	while (v->busy)
		pthread_cond_wait(&v->idle, &v->lock);
	pthread_mutex_unlock(&v->lock);
	rp_verbs_dereg_ring(v);
	atomic_fetch_sub(&stat_open, 1);
	RP_EV("verbs", "fabric.destroy", "fabric: QP{s} {qpns} destroyed",
	      EV_T("s", v->nqp > 1 ? "s" : ""), EV_S("qpns", qpns));
	free_endpoint(v);
}

uint32_t rp_verbs_qps(const struct rp_verbs *v)
{
	return v ? v->nqp : 0;
}

void rp_verbs_local(const struct rp_verbs *v, uint32_t qp,
		    struct rp_qp_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (!v || qp >= v->nqp)
		return;
	out->qpn = v->qp[qp].qpn;
	out->psn = v->qp[qp].psn;
	out->lid = 0;
	out->mtu = FAB_MTU;
	memcpy(out->gid, v->gid, RP_GID_LEN);
}

const char *rp_verbs_gid_str(const struct rp_verbs *v)
{
	return v ? v->gid_str : "-";
}

int rp_verbs_gid_index(const struct rp_verbs *v)
{
	return v ? FAB_GID_INDEX : -1;
}

/* No netdev here: the in-memory fabric has no wire to capture. */
int rp_verbs_netdev(const struct rp_verbs *v, char *buf, size_t len)
{
	(void)v;
	if (len)
		buf[0] = '\0';
	RP_ERR("the in-memory fabric has no network device to capture on");
	return RP_ECONFIG;
}

/* The same checks as the real backend's, so tests see the same refusals. */
static int check_peer(const struct rp_qp_addr *p)
{
	static const uint8_t zero[RP_GID_LEN];
	const char *why = NULL;

	if (!p->qpn || p->qpn > 0xffffff)
		why = "QPN out of range";
	else if (p->psn > 0xffffff)
		why = "PSN wider than 24 bits";
	else if (p->mtu < 1 || p->mtu > 5)
		why = "MTU code not in 1..5";
	else if (!memcmp(p->gid, zero, RP_GID_LEN))
		why = "all-zero GID on our RoCE port (is the peer on "
		      "InfiniBand?)";
	if (!why)
		return 0;
	RP_ERR("peer's QP address is unusable: %s (qpn 0x%x, lid 0x%x)", why,
	       p->qpn, p->lid);
	return RP_EPROTO;
}

/*
 * fab.lock held: pair with the named QP if it already connected to us.
 * By QPN alone, as rxe does: the peer's QP i when both sides pass their
 * addresses in order (the interface's contract), whatever its index.
 */
static bool try_pair(struct fab_qp *q)
{
	struct fab_qp *p = find_qpn(q->peer_qpn);

	if (!p || !p->connected || p->peer_qpn != q->qpn || p->peer)
		return false;
	q->peer = p;
	p->peer = q;
	return true;
}

static void deliver(struct fab_qp *q, const struct fab_wr *wr);

/*
 * fab.lock held: whether a request on q must wait for the QP it names
 * to connect to us (q connected first, the peer's QP is fresh, in
 * INIT), or behind requests already waiting: as an RC requester
 * retries until the responder is in RTR, a short wait, not a failure.
 */
static bool must_park(struct fab_qp *q)
{
	struct fab_qp *p;
	bool fresh = false;

	if (q->park_len || q->draining)
		return true;
	if (q->peer || !q->connected)
		return false;
	p = find_qpn(q->peer_qpn);
	if (!p || p->connected || p->ctx == q->ctx)
		return false;
	pthread_mutex_lock(&p->ctx->lock);
	fresh = p->state == QPS_INIT;
	pthread_mutex_unlock(&p->ctx->lock);
	return fresh;
}

/* Park wr on q if it must wait (must_park); true if it did. */
static bool park(struct fab_qp *q, const struct fab_wr *wr)
{
	bool parked;

	pthread_mutex_lock(&fab.lock);
	parked = must_park(q) && q->park_len < q->ctx->max_send;
	if (parked) {
		q->park[(q->park_head + q->park_len) % q->ctx->max_send] = *wr;
		q->park_len++;
	}
	pthread_mutex_unlock(&fab.lock);
	return parked;
}

/*
 * Our QP q just paired: deliver, in order, what its peer parked for
 * it. One at a time, with draining set, so that what the peer posts
 * meanwhile queues behind them.
 */
static void unpark(struct fab_qp *q)
{
	struct fab_qp *p;
	struct fab_wr wr;

	for (;;) {
		pthread_mutex_lock(&fab.lock);
		p = q->peer;
		if (!p || !p->park_len) {
			if (p)
				p->draining = false;
			pthread_mutex_unlock(&fab.lock);
			return;
		}
		p->draining = true;
		wr = p->park[p->park_head];
		p->park_head = (p->park_head + 1) % p->ctx->max_send;
		p->park_len--;
		pthread_mutex_unlock(&fab.lock);
		deliver(p, &wr);
	}
}

/* The endpoint's QPs move together: all in INIT, or none. */
static int check_init(struct rp_verbs *v)
{
	char qn[QP_NAME_LEN];
	enum qp_state st = QPS_INIT;
	uint32_t i;

	/* Nobody else reaches a QP in INIT: the lock is for the checkers. */
	pthread_mutex_lock(&v->lock);
	for (i = 0; i < v->nqp && st == QPS_INIT; i++)
		st = v->qp[i].state;
	pthread_mutex_unlock(&v->lock);
	if (st == QPS_INIT)
		return 0;
	RP_ERR("rp_verbs_connect: %s is %s, not INIT",
	       qp_name(&v->qp[i - 1], qn), st == QPS_RTS ? "RTS" : "ERROR");
	return RP_EINTERNAL;
}

/* RP_FAB_CONNECT_UNREACH: RTR without an ARP answer, as verbs_qp.c
 * takes it. */
static int unreachable(struct rp_verbs *v)
{
	char qn[QP_NAME_LEN];

	if (v->relink) {
		RP_EV("verbs", "rtr.unreachable", "{name} INIT -> RTR: {why}: "
		      "the link is still down", EV_S("name",
		      qp_name(&v->qp[0], qn)), EV_S("why", strerror(ETIMEDOUT)));
		v->link_down = true;
		return RP_EWC;
	}
	RP_ERR_WHY(ETIMEDOUT, "ibv_modify_qp(%s, RTR): %s (fault injected by "
		   "the fabric)", qp_name(&v->qp[0], qn), strerror(ETIMEDOUT));
	return RP_EVERBS;
}

int rp_verbs_connect(struct rp_verbs *v, const struct rp_qp_addr *peer,
		     uint32_t n)
{
	enum rp_fab_fault what;
	bool paired[RP_QPS_MAX];
	char qn[QP_NAME_LEN];
	uint32_t i;
	int rc;

	rc = rp_verbs_check_connect(v, peer, n);
	if (!rc)
		rc = check_init(v);
	for (i = 0; i < n && !rc; i++)
		rc = check_peer(&peer[i]);
	if (rc)
		return rc;
	v->link_down = false;
	if (take_fault(v->side, 1u << RP_FAB_CONNECT_UNREACH, ++v->nconnects,
		       &what))
		v->unreach_until = rp_now() +
				   atomic_load(&unreach_ms[v->side]) / 1e3;
	if (v->unreach_until && rp_now() <= v->unreach_until)
		return unreachable(v);
	pthread_mutex_lock(&v->lock);
	for (i = 0; i < n; i++)
		v->qp[i].state = QPS_RTS;
	pthread_mutex_unlock(&v->lock);
	pthread_mutex_lock(&fab.lock);
	for (i = 0; i < n; i++) {
		v->qp[i].peer_qpn = peer[i].qpn;
		v->qp[i].connected = true;
		paired[i] = try_pair(&v->qp[i]);
	}
	pthread_mutex_unlock(&fab.lock);
	/* What the peer sent before we were ready gets through now. */
	for (i = 0; i < n; i++)
		if (paired[i])
			unpark(&v->qp[i]);
	for (i = 0; i < n; i++)
		RP_EV("verbs", "fabric.connect", "fabric: {name} INIT -> RTS "
		      "against QP {dest_qpn} (psn {psn}){how}",
		      EV_S("name", qp_name(&v->qp[i], qn)),
		      EV_X("dest_qpn", peer[i].qpn, 0),
		      EV_X("psn", peer[i].psn, 6),
		      EV_T("how", paired[i] ? ": paired, both sides "
			   "connected" : ": waiting for that QP to connect "
			   "to us"), EV_U("qp", i), EV_B("paired", paired[i]));
	return 0;
}

/*
 * After a link outage: every QP unpaired, emptied (its receives and
 * completions, parked requests included, dropped with the old CQ) and
 * back in INIT with a fresh QPN and PSN. The ring and its rkey stay.
 */
int rp_verbs_relink(struct rp_verbs *v)
{
	char old[QP_LIST_LEN];
	char qpns[QP_LIST_LEN];
	uint64_t cnt;

	if (!v) {
		RP_ERR("rp_verbs_relink: no verbs context");
		return RP_EINTERNAL;
	}
	qp_list(v, false, old);
	/* Unpaired first: no peer request can pin us after this. */
	pthread_mutex_lock(&fab.lock);
	for (uint32_t i = 0; i < v->nqp; i++) {
		qp_unpair(&v->qp[i]);
		v->qp[i].peer_qpn = 0;
		v->qp[i].park_head = 0;
		v->qp[i].draining = false;
	}
	pthread_mutex_unlock(&fab.lock);
	pthread_mutex_lock(&v->lock);
	while (v->busy)
		pthread_cond_wait(&v->idle, &v->lock);
	for (uint32_t i = 0; i < v->nqp; i++) {
		struct fab_qp *q = &v->qp[i];

		q->state = QPS_INIT;
		q->rq_head = 0;
		q->rq_len = 0;
		q->rq_held = 0;
		q->sq_held = 0;
		rp_sys_random(&q->psn, sizeof(q->psn));
		q->psn &= 0xffffff;
	}
	v->cq_head = 0;
	v->cq_len = 0;
	v->late_head = 0;
	v->late_len = 0;
	v->holding = false;
	pthread_mutex_unlock(&v->lock);
	/* A stale wake-up would only make the owner look at an empty CQ. */
	if (read(v->efd, &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
		RP_EV("verbs", "fabric.eventfd", "fabric: read(eventfd): "
		      "{reason}", EV_S("reason", strerror(errno)));
	pthread_mutex_lock(&fab.lock);
	give_qpns(v);
	pthread_mutex_unlock(&fab.lock);
	v->wc_failed = false;
	v->link_down = false;
	RP_EV("verbs", "fabric.relink", "fabric: QP{s} {old} torn down with "
	      "the CQ; fresh QP{s} {qpns} in INIT, the ring kept",
	      EV_T("s", v->nqp > 1 ? "s" : ""), EV_S("old", old),
	      EV_S("qpns", qp_list(v, false, qpns)), EV_U("qps", v->nqp));
	return 0;
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
 * The ring
 */

int rp_verbs_reg_ring(struct rp_verbs *v, size_t len, void **addr,
		      uint32_t *rkey)
{
	long page = sysconf(_SC_PAGESIZE);
	char acc[ACCESS_STR_LEN];
	uint8_t rnd;
	void *buf;
	int rc;

	if (!v || !addr || !rkey || !len) {
		RP_ERR("rp_verbs_reg_ring: bad arguments (len %zu)", len);
		return RP_EINTERNAL;
	}
	if (v->ring) {
		RP_ERR("rp_verbs_reg_ring: a ring is already registered");
		return RP_EINTERNAL;
	}
	access_str(v->access, acc);
	/* ibv_reg_mr(3): remote write access needs local write access. */
	if (v->access & RP_ACCESS_REMOTE_WRITE &&
	    !(v->access & RP_ACCESS_LOCAL_WRITE)) {
		RP_ERR("ibv_reg_mr(ring, %zu bytes, %s): %s (REMOTE_WRITE "
		       "needs LOCAL_WRITE)", len, acc, strerror(EINVAL));
		return -EINVAL;
	}
	rc = posix_memalign(&buf, page > 0 ? (size_t)page : 4096, len);
	if (rc) {
		RP_ERR("posix_memalign(%zu bytes): %s", len, strerror(rc));
		return -rc;
	}
	memset(buf, 0, len);
	/* rxe's shape: an index in the high bits, 8 random bits below. */
	rp_sys_random(&rnd, sizeof(rnd));
	pthread_mutex_lock(&fab.lock);
	*rkey = (++fab.next_mr & 0xffffff) << 8 | rnd;
	pthread_mutex_unlock(&fab.lock);
	pthread_mutex_lock(&v->lock);
	v->ring = buf;
	v->ring_len = len;
	v->rkey = *rkey;
	pthread_mutex_unlock(&v->lock);
	*addr = buf;
	atomic_fetch_add(&stat_rings, 1);
	RP_EV("verbs", "fabric.mr", "fabric: ring registered: addr={addr} "
	      "length={length} rkey={rkey} access={access}{local}",
	      EV_P("addr", buf), EV_U("length", len), EV_X("rkey", *rkey, 0),
	      EV_S("access", acc),
	      EV_T("local", v->access & (RP_ACCESS_REMOTE_WRITE |
					RP_ACCESS_REMOTE_READ) ?
		   "" : " (local only)"));
	return 0;
}

void rp_verbs_dereg_ring(struct rp_verbs *v)
{
	char qpns[QP_LIST_LEN];
	uint8_t *ring;

	if (!v)
		return;
	pthread_mutex_lock(&v->lock);
	ring = v->ring;
	/* From now on the rkey is refused; wait out requests already in. */
	v->ring = NULL;
	v->ring_len = 0;
	v->rkey = 0;
	while (v->busy)
		pthread_cond_wait(&v->idle, &v->lock);
	pthread_mutex_unlock(&v->lock);
	if (!ring)
		return;
	free(ring);
	atomic_fetch_sub(&stat_rings, 1);
	RP_EV("verbs", "fabric.dereg", "fabric: ring of QP{s} {qpns} "
	      "deregistered and freed", EV_T("s", v->nqp > 1 ? "s" : ""),
	      EV_S("qpns", qp_list(v, false, qpns)));
}

/* ---------------------------------------------------------------------
 * Posting
 */

static int report_post(const struct fab_qp *q, enum post_kind kind,
		       uint64_t wr_id, int e, const char *hint)
{
	char qn[QP_NAME_LEN];

	RP_ERR("%s(%s, wr_id %" PRIu64 ", %s): %s%s",
	       kind == POST_RECV ? "ibv_post_recv" : "ibv_post_send",
	       post_kind_names[kind], wr_id, qp_name(q, qn), strerror(e),
	       hint);
	return RP_EVERBS;
}

static void run_hook(const struct rp_verbs *v, uint64_t n)
{
	rp_fab_hook hook;
	void *arg;

	if (!atomic_load_explicit(&fab.hook_set, memory_order_relaxed))
		return;
	pthread_mutex_lock(&fab.lock);
	hook = fab.hook;
	arg = fab.hook_arg;
	pthread_mutex_unlock(&fab.lock);
	if (hook)
		hook(v->side, n, arg);
}

/* The endpoint dies, every QP of it: unpaired (the peer's requests then
 * time out, as to a dead host) and in ERROR (what it had posted is
 * flushed). */
static void kill_endpoint(struct rp_verbs *v)
{
	pthread_mutex_lock(&fab.lock);
	for (uint32_t i = 0; i < v->nqp; i++)
		qp_unpair(&v->qp[i]);
	pthread_mutex_unlock(&fab.lock);
	pthread_mutex_lock(&v->lock);
	for (uint32_t i = 0; i < v->nqp; i++)
		qp_error(&v->qp[i], "killed by RP_FAB_KILL");
	pthread_mutex_unlock(&v->lock);
}

/*
 * The wire between us and the peer goes: every QP of ours is unpaired
 * from its peer, both stay alive. Requests either side makes on these
 * QPs from now on fail with "transport retry counter exceeded" (and
 * each such failure puts its QP in ERROR); receives stay posted, as on
 * a NIC, where only a failing request moves a QP to ERROR. Fresh QPs
 * (rp_verbs_relink()) pair and work again.
 */
static void link_down(struct rp_verbs *v)
{
	pthread_mutex_lock(&fab.lock);
	for (uint32_t i = 0; i < v->nqp; i++) {
		struct fab_qp *p = v->qp[i].peer;

		if (p)
			p->peer = NULL;
		v->qp[i].peer = NULL;
	}
	pthread_mutex_unlock(&fab.lock);
	RP_EV("verbs", "fabric.link_down", "fabric: the link of QP{s} "
	      "{first}.. goes down: requests on them now fail as if retried "
	      "out",
	      EV_T("s", v->nqp > 1 ? "s" : ""), EV_X("first", v->qp[0].qpn, 0));
}

/* Count the post (1-based, per endpoint over all its QPs) and apply a
 * fault armed for it. RP_EVERBS, reported, for RP_FAB_FAIL_POST. */
static int post_fault(struct fab_qp *q, enum post_kind kind,
		      uint64_t wr_id, uint64_t *n)
{
	unsigned int mask = 1u << RP_FAB_FAIL_POST | 1u << RP_FAB_STALL |
			    1u << RP_FAB_KILL | 1u << RP_FAB_LINK_DOWN;
	struct rp_verbs *v = q->ctx;
	enum rp_fab_fault what;

	*n = ++v->nposts;
	if (!take_fault(v->side, mask, *n, &what))
		return 0;
	switch (what) {
	case RP_FAB_FAIL_POST:
		return report_post(q, kind, wr_id, EIO,
				   " (fault injected by the fabric)");
	case RP_FAB_STALL:
		pthread_mutex_lock(&v->lock);
		v->stalled = true;
		pthread_mutex_unlock(&v->lock);
		break;
	case RP_FAB_KILL:
		kill_endpoint(v);
		break;
	case RP_FAB_LINK_DOWN:
		link_down(v);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Take a send-queue slot of q. 0: go on and deliver; 1: nothing to
 * deliver (flushed on a QP in ERROR, or swallowed by a stalled
 * endpoint); or RP_EVERBS (reported) as ibv_post_send fails: not
 * connected, or full.
 */
static int sq_reserve(struct fab_qp *q, const struct fab_wr *wr)
{
	struct rp_verbs *v = q->ctx;
	const char *hint = NULL;
	int e = 0;
	int rc = 0;

	pthread_mutex_lock(&v->lock);
	if (q->state == QPS_INIT) {
		e = EINVAL;
		hint = " (QP not in RTS yet)";
	} else if (q->sq_held >= v->max_send) {
		e = ENOMEM;
		hint = " (send queue full)";
	} else {
		q->sq_held++;
		if (q->state == QPS_ERROR) {
			struct fab_cqe c = {
				.wr_id = wr->wr_id,
				.op = sq_op[wr->kind],
				.status = ST_FLUSH,
				.sq = true,
			};

			cq_push(q, c);
			rc = 1;
		} else if (v->stalled) {
			rc = 1;
		}
	}
	pthread_mutex_unlock(&v->lock);
	if (e)
		return report_post(q, wr->kind, wr->wr_id, e, hint);
	return rc;
}

/*
 * What rxe's responder says about a Write or a Read (its lock held): the
 * QP refuses an operation it was not opened for before the rkey and the
 * bounds are looked at.
 */
static enum fab_status check_access(const struct rp_verbs *r,
				    const struct fab_wr *wr)
{
	unsigned int need = wr->kind == POST_READ ? RP_ACCESS_REMOTE_READ
						  : RP_ACCESS_REMOTE_WRITE;
	uintptr_t base = (uintptr_t)r->ring;

	if (!(r->access & need))
		return ST_REM_INV_REQ;
	if (!r->ring || wr->rkey != r->rkey)
		return ST_REM_ACCESS;
	if (wr->raddr < base || wr->len > r->ring_len ||
	    wr->raddr - base > r->ring_len - wr->len)
		return ST_REM_ACCESS;
	return ST_OK;
}

/*
 * A Send of len bytes landing in the receive rcv (r's lock held), as
 * rxe's responder sees it. Returns the sender's status; *rst is the
 * receiver's. Longer than the buffer: the sender's request is invalid,
 * the receiver has a length error. Bytes for a ring without LOCAL_WRITE
 * (or deregistered since the receive was posted): the receiver's
 * protection error, which the sender learns as a remote operation error.
 */
static enum fab_status check_recv(const struct rp_verbs *r,
				  const struct fab_rwr *rcv, uint32_t len,
				  enum fab_status *rst)
{
	*rst = ST_OK;
	if (len > rcv->len) {
		*rst = ST_LOC_LEN;
		return ST_REM_INV_REQ;
	}
	if (len && (!(r->access & RP_ACCESS_LOCAL_WRITE) ||
		    rcv->off + rcv->len > r->ring_len)) {
		*rst = ST_LOC_PROT;
		return ST_REM_OP;
	}
	return ST_OK;
}

/*
 * Consume the next receive of the responder's QP rq for a Write or a
 * Send (its context's lock held). A Send that does not fit fails that
 * receive at once, which puts rq in ERROR (its failed completion first,
 * then the flushes).
 */
static enum fab_status take_recv(struct fab_qp *rq, const struct fab_wr *wr,
				 struct fab_resp *out)
{
	struct rp_verbs *r = rq->ctx;
	enum fab_status rst = ST_OK;
	enum fab_status st = ST_OK;
	struct fab_rwr rcv;

	if (!rq->rq_len)
		return ST_RNR_RETRY_EXC;
	rcv = rq->rq[rq->rq_head];
	rq->rq_head = (rq->rq_head + 1) % r->max_recv;
	rq->rq_len--;
	rq->rq_held++;
	out->rwr = rcv.wr_id;
	if (wr->kind == POST_SEND_IMM)
		st = check_recv(r, &rcv, wr->len, &rst);
	if (st != ST_OK)
		cq_push(rq, (struct fab_cqe){ .wr_id = rcv.wr_id,
					      .op = RP_WC_OTHER,
					      .status = rst });
	else if (wr->kind == POST_SEND_IMM && wr->len)
		out->mem = r->ring + rcv.off;
	return st;
}

/* Whether a request uses up one of the responder's receives: the kinds
 * with an immediate; a plain Write and a Read do not. */
static bool consumes_recv(enum post_kind kind)
{
	return kind == POST_WRITE_IMM || kind == POST_SEND_IMM;
}

/*
 * The responder's side of a request, on its QP rq (fab.lock held, so
 * its context r is alive): checks, then a Write or a Send consumes a
 * receive posted on rq (a Read none). An accepted request pins r; out
 * says where in r's ring the bytes go or come from, and resp_done()
 * finishes it.
 */
static enum fab_status resp_take(struct fab_qp *rq, const struct fab_wr *wr,
				 struct fab_resp *out)
{
	struct rp_verbs *r = rq->ctx;
	enum fab_status st = ST_OK;

	pthread_mutex_lock(&r->lock);
	if (r->stalled)
		st = ST_LOST;
	else if (rq->state != QPS_RTS)
		st = ST_RETRY_EXC;	/* an errored QP drops packets */
	else if (wr->kind != POST_SEND_IMM)
		st = check_access(r, wr);
	if (st == ST_OK && consumes_recv(wr->kind))
		st = take_recv(rq, wr, out);
	if (st == ST_REM_ACCESS || st == ST_REM_INV_REQ)
		qp_error(rq, "a peer's request was refused (access, rkey, "
			 "bounds or length)");
	else if (st == ST_RNR_RETRY_EXC)
		qp_error(rq, "a peer's request found no receive posted");
	if (st == ST_OK) {
		r->busy++;
		if (wr->kind != POST_SEND_IMM)
			out->mem = r->ring + (wr->raddr - (uintptr_t)r->ring);
	}
	pthread_mutex_unlock(&r->lock);
	return st;
}

/* After the copy: the responder's completion on rq (a Read has none:
 * rxe's responder answers it without a work request), and its context
 * unpinned. */
static void resp_done(struct fab_qp *rq, const struct fab_wr *wr,
		      uint64_t rwr)
{
	struct rp_verbs *r = rq->ctx;

	pthread_mutex_lock(&r->lock);
	/* A QP that failed meanwhile reports the receive flushed. */
	if (consumes_recv(wr->kind))
		cq_push(rq, (struct fab_cqe){
			.wr_id = rwr, .byte_len = wr->len, .imm = wr->imm,
			.op = wr->kind == POST_WRITE_IMM ?
			      RP_WC_RECV_WRITE_IMM : RP_WC_RECV_SEND_IMM,
			.status = rq->state == QPS_RTS ? ST_OK : ST_FLUSH });
	r->busy--;
	if (!r->busy)
		pthread_cond_broadcast(&r->idle);
	pthread_mutex_unlock(&r->lock);
}

/* rp_fab_stats(): bytes pushed (Write, Send) and pulled (Read) apart. */
static void count_delivered(const struct fab_wr *wr)
{
	_Atomic uint64_t *n = &stat_reads;
	_Atomic uint64_t *bytes = &stat_read_bytes;

	if (wr->kind == POST_WRITE) {
		n = &stat_plain_writes;
		bytes = &stat_bytes;
	} else if (wr->kind != POST_READ) {
		n = wr->kind == POST_WRITE_IMM ? &stat_writes : &stat_sends;
		bytes = &stat_bytes;
	}
	atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(bytes, wr->len, memory_order_relaxed);
}

/* Our own request's completion on q (lock held): now, or when its slow
 * ACK is due. Each late entry holds a send-queue slot of some QP, so
 * late[] (max_send entries per QP) cannot overflow; the delay is
 * constant, so it stays sorted, and each QP's completions in order. */
static void sq_complete(struct fab_qp *q, struct fab_cqe c)
{
	struct rp_verbs *v = q->ctx;
	struct fab_late *l;

	if (v->ack_delay <= 0 || c.status != ST_OK) {
		cq_push(q, c);
		return;
	}
	c.qp = (uint8_t)q->idx;
	l = &v->late[(v->late_head + v->late_len) % v->late_cap];
	l->c = c;
	l->due = rp_now() + v->ack_delay;
	v->late_len++;
}

/* Move the late completions that are due into the CQ. */
static void release_late(struct rp_verbs *v)
{
	double now = rp_now();

	pthread_mutex_lock(&v->lock);
	while (v->late_len && v->late[v->late_head].due <= now) {
		const struct fab_cqe *c = &v->late[v->late_head].c;

		cq_push(&v->qp[c->qp], *c);
		v->late_head = (v->late_head + 1) % v->late_cap;
		v->late_len--;
	}
	pthread_mutex_unlock(&v->lock);
}

/* When the next late completion or the held-back one is due, or 0 when
 * none is waiting. */
static double next_due(struct rp_verbs *v)
{
	double next = 0;

	pthread_mutex_lock(&v->lock);
	if (v->late_len)
		next = v->late[v->late_head].due;
	if (v->holding && (!next || v->held_due < next))
		next = v->held_due;
	pthread_mutex_unlock(&v->lock);
	return next;
}

/*
 * A plain Write's bytes, the last one published after all the others
 * (release), so a peer that spins on that byte with an acquire load
 * (what a latency test does, ping.c) sees the whole message once it
 * sees the byte: as a NIC that places a message in order, as rxe does.
 */
static void copy_last_byte_last(uint8_t *dst, const uint8_t *src,
				uint32_t len)
{
	memmove(dst, src, len - 1);
	__atomic_store_n(&dst[len - 1], src[len - 1], __ATOMIC_RELEASE);
}

/*
 * Execute a request on the QP paired with q, then complete it on q: in
 * post order, as everything on q's send queue. The copy runs with no
 * lock held: only the pin keeps the peer's ring alive (ours is the
 * poster's own).
 */
static void deliver(struct fab_qp *q, const struct fab_wr *wr)
{
	struct rp_verbs *v = q->ctx;
	struct fab_resp resp = { 0 };
	enum fab_status st;
	struct fab_qp *rq;
	bool pinned;

	pthread_mutex_lock(&fab.lock);
	rq = q->peer;
	st = rq ? resp_take(rq, wr, &resp) : ST_RETRY_EXC;
	pthread_mutex_unlock(&fab.lock);
	if (st == ST_LOST)
		return;
	pinned = st == ST_OK;
	/* rxe's completer checks our MR only as the Read response lands. */
	if (pinned && wr->kind == POST_READ &&
	    !(v->access & RP_ACCESS_LOCAL_WRITE))
		st = ST_LOC_PROT;
	if (st == ST_OK && wr->len && wr->kind == POST_READ)
		memmove(v->ring + wr->off, resp.mem, wr->len);
	else if (st == ST_OK && wr->len && wr->kind == POST_WRITE &&
		 !rq->ctx->discard)
		copy_last_byte_last(resp.mem, v->ring + wr->off, wr->len);
	else if (st == ST_OK && wr->len && !rq->ctx->discard)
		memmove(resp.mem, v->ring + wr->off, wr->len);
	/* Ours first: on a NIC the ACK precedes the peer's answer. */
	pthread_mutex_lock(&v->lock);
	if (st == ST_OK && wr->unsignaled)
		q->sq_held--;	/* no completion: its slot is free now */
	else
		sq_complete(q, (struct fab_cqe){
			.wr_id = wr->wr_id, .status = st, .sq = true,
			.op = sq_op[wr->kind],
			.byte_len = wr->kind == POST_READ ? wr->len : 0 });
	pthread_mutex_unlock(&v->lock);
	if (pinned)
		resp_done(rq, wr, resp.rwr);
	if (st == ST_OK)
		count_delivered(wr);
}

/* The first few posts of each kind on an endpoint, not the millions. */
static void trace_post(const struct fab_qp *q, const struct fab_wr *wr)
{
	char qn[QP_NAME_LEN];
	char head[64];
	char where[48];

	if (++q->ctx->posted[wr->kind] > TRACE_FIRST || !rp_trace_any())
		return;
	snprintf(head, sizeof(head), "%s post %s wr_id=%" PRIu64,
		 qp_name(q, qn), post_kind_names[wr->kind], wr->wr_id);
	if (wr->len)
		snprintf(where, sizeof(where), "ring[%zu..+%u)", wr->off,
			 wr->len);
	else
		snprintf(where, sizeof(where), "zero length");
	if (wr->kind == POST_WRITE_IMM)
		RP_EV("verbs", "fabric.post", "fabric: {head}: {where} -> "
		      "raddr={raddr} rkey={rkey}, imm={imm}",
		      EV_S("head", head), EV_S("where", where), EV_X("raddr", wr->raddr, 0),
		      EV_X("rkey", wr->rkey, 0), EV_X("imm", wr->imm, 8));
	else if (wr->kind == POST_WRITE)
		RP_EV("verbs", "fabric.post", "fabric: {head}: {where} -> "
		      "raddr={raddr} rkey={rkey}, {signaled}",
		      EV_S("head", head), EV_S("where", where),
		      EV_X("raddr", wr->raddr, 0), EV_X("rkey", wr->rkey, 0),
		      EV_S("signaled", wr->unsignaled ? "unsignaled" : "signaled"));
	else if (wr->kind == POST_READ)
		RP_EV("verbs", "fabric.post", "fabric: {head}: {where} <- "
		      "raddr={raddr} rkey={rkey}", EV_S("head", head),
		      EV_S("where", where), EV_X("raddr", wr->raddr, 0),
		      EV_X("rkey", wr->rkey, 0));
	else if (wr->kind == POST_SEND_IMM)
		RP_EV("verbs", "fabric.post", "fabric: {head}: {where}, "
		      "imm={imm}", EV_S("head", head), EV_S("where", where),
		      EV_X("imm", wr->imm, 8));
	else
		RP_EV("verbs", "fabric.post", "fabric: {head}: {where}, for a "
		      "Write's or a Send's immediate{lands}",
		      EV_S("head", head), EV_S("where", where),
		      EV_T("lands", wr->len ? " (a Send's bytes land there)" :
			   ""));
}

static int post_send_wr(struct fab_qp *q, const struct fab_wr *wr)
{
	uint64_t n;
	int rc;

	rc = post_fault(q, wr->kind, wr->wr_id, &n);
	if (rc)
		return rc;
	rc = sq_reserve(q, wr);
	if (rc < 0)
		return rc;
	trace_post(q, wr);
	if (!rc && !park(q, wr))
		deliver(q, wr);
	run_hook(q->ctx, n);
	return 0;
}

static int post_recv_wr(struct fab_qp *q, const struct fab_wr *wr)
{
	struct rp_verbs *v = q->ctx;
	bool full;
	uint64_t n;
	int rc;

	rc = post_fault(q, POST_RECV, wr->wr_id, &n);
	if (rc)
		return rc;
	pthread_mutex_lock(&v->lock);
	full = q->rq_len + q->rq_held >= v->max_recv;
	if (!full && q->state == QPS_ERROR) {
		q->rq_held++;
		cq_push(q, (struct fab_cqe){ .wr_id = wr->wr_id,
					     .op = RP_WC_OTHER,
					     .status = ST_FLUSH });
	} else if (!full) {
		q->rq[(q->rq_head + q->rq_len) % v->max_recv] =
			(struct fab_rwr){ .wr_id = wr->wr_id, .off = wr->off,
					  .len = wr->len };
		q->rq_len++;
	}
	pthread_mutex_unlock(&v->lock);
	if (full)
		return report_post(q, POST_RECV, wr->wr_id, ENOMEM,
				   " (receive queue full)");
	trace_post(q, wr);
	run_hook(v, n);
	return 0;
}

/* The QP a post names, or NULL (reported) for a bug: no endpoint, a QP
 * it does not have, or (with ranged) no ring or [off, +len) outside it.
 * A ring's access is checked when the bytes move, as a NIC does. */
static struct fab_qp *post_qp(struct rp_verbs *v, uint32_t qp,
			      const char *fn, const struct fab_wr *wr,
			      bool ranged)
{
	if (!v || (ranged && !v->ring)) {
		RP_ERR("%s: no QP%s", fn, ranged ? " or no ring registered"
						 : "");
		return NULL;
	}
	if (rp_verbs_check_qp(qp, v->nqp, fn))
		return NULL;
	if (ranged && rp_verbs_check_write(v->ring_len, wr->off, wr->len))
		return NULL;
	return &v->qp[qp];
}

/* Post wr on QP qp; ranged: it names a range of our ring. */
static int post(struct rp_verbs *v, uint32_t qp, const char *fn,
		const struct fab_wr *wr, bool ranged)
{
	struct fab_qp *q = post_qp(v, qp, fn, wr, ranged);

	if (!q)
		return RP_EINTERNAL;
	if (wr->kind == POST_RECV)
		return post_recv_wr(q, wr);
	return post_send_wr(q, wr);
}

int rp_verbs_post_write_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off, uint32_t len, uint64_t raddr, uint32_t rkey,
			    uint32_t imm)
{
	struct fab_wr wr = {
		.kind = POST_WRITE_IMM, .wr_id = wr_id, .off = off,
		.len = len, .raddr = raddr, .rkey = rkey, .imm = imm,
	};

	return post(v, qp, __func__, &wr, true);
}

int rp_verbs_post_write(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			size_t off, uint32_t len, uint64_t raddr,
			uint32_t rkey, bool signaled)
{
	struct fab_wr wr = {
		.kind = POST_WRITE, .wr_id = wr_id, .off = off,
		.len = len, .raddr = raddr, .rkey = rkey,
		.unsignaled = !signaled,
	};

	return post(v, qp, __func__, &wr, true);
}

int rp_verbs_post_send_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			   uint32_t imm)
{
	struct fab_wr wr = {
		.kind = POST_SEND_IMM, .wr_id = wr_id, .imm = imm,
	};

	return post(v, qp, __func__, &wr, false);
}

int rp_verbs_post_send_data(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off, uint32_t len, uint32_t imm)
{
	struct fab_wr wr = {
		.kind = POST_SEND_IMM, .wr_id = wr_id, .off = off,
		.len = len, .imm = imm,
	};

	return post(v, qp, __func__, &wr, true);
}

int rp_verbs_post_read(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
		       size_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct fab_wr wr = {
		.kind = POST_READ, .wr_id = wr_id, .off = off, .len = len,
		.raddr = raddr, .rkey = rkey,
	};

	return post(v, qp, __func__, &wr, true);
}

int rp_verbs_post_recv(struct rp_verbs *v, uint32_t qp, uint64_t wr_id)
{
	struct fab_wr wr = { .kind = POST_RECV, .wr_id = wr_id };

	return post(v, qp, __func__, &wr, false);
}

int rp_verbs_post_recv_buf(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			   size_t off, uint32_t len)
{
	struct fab_wr wr = {
		.kind = POST_RECV, .wr_id = wr_id, .off = off, .len = len,
	};

	return post(v, qp, __func__, &wr, true);
}

/* ---------------------------------------------------------------------
 * Completions
 */

/* Report the first failure only: the flushes that follow add nothing.
 * The words, meaning and causes are src/wc_causes.c's, as for rxe. */
static void failed_wc(struct rp_verbs *v, const struct fab_cqe *c)
{
	struct rp_wc_failure f = {
		.status = c->status, .wr_id = c->wr_id,
		.qpn = v->qp[c->qp].qpn, .which = "", .roce = true,
	};

	v->wc_errors++;
	/* A link outage the caller rides out (rp_verbs_set_relink()). */
	if (v->relink && !v->wc_failed &&
	    (c->status == ST_RETRY_EXC || c->status == ST_FLUSH)) {
		if (!v->link_down)
			rp_wc_trace_link(&f);
		v->link_down = true;
		return;
	}
	if (!v->wc_failed) {
		v->wc_failed = true;
		rp_wc_report_first(&f);
	} else if (v->wc_errors <= TRACE_FIRST) {
		rp_wc_trace_too(&f);
	}
}

/* The CQ's oldest entry, out of it (lock held). */
static struct fab_cqe cq_pop(struct rp_verbs *v)
{
	struct fab_cqe c = v->cq[v->cq_head];

	v->cq_head = (v->cq_head + 1) % v->cq_cap;
	v->cq_len--;
	return c;
}

/* The held-back completion, returned (lock held). */
static struct fab_cqe unhold(struct rp_verbs *v)
{
	v->holding = false;
	return v->held;
}

/*
 * Move up to max entries out of the CQ, freeing their queue slots as
 * they are returned. With RP_FAB_CROSS_QP armed (hold > 0) on a context
 * of several QPs, the first successful completion taken is held back
 * and the completions of other QPs queued after it are returned ahead of
 * it (each counted crossed). It goes before the next one of its own QP
 * or a failed one (each QP keeps its order; a failure is reported as
 * before), at the end of a batch that returned anything or after another
 * QP's went ahead, or once it has waited hold seconds with nothing else
 * coming, so nobody waits on it for ever.
 */
static int cq_take(struct rp_verbs *v, struct fab_cqe *out, int max)
{
	double hold = armed_s(v->side, RP_FAB_CROSS_QP);
	int n = 0;

	pthread_mutex_lock(&v->lock);
	while (n < max && v->cq_len) {
		const struct fab_cqe *c = &v->cq[v->cq_head];

		if (v->holding &&
		    (c->qp == v->held.qp || c->status != ST_OK)) {
			out[n++] = unhold(v);
		} else if (!v->holding && hold > 0 && v->nqp > 1 &&
			   c->status == ST_OK) {
			v->held = cq_pop(v);
			v->holding = true;
			v->held_crossed = false;
			v->held_due = rp_now() + hold;
		} else {
			if (v->holding) {
				v->held_crossed = true;
				atomic_fetch_add_explicit(&stat_crossed, 1,
							  memory_order_relaxed);
			}
			out[n++] = cq_pop(v);
		}
	}
	if (v->holding && n < max && (n || v->held_crossed || hold <= 0 ||
				      rp_now() >= v->held_due))
		out[n++] = unhold(v);
	for (int i = 0; i < n; i++) {
		if (out[i].sq)
			v->qp[out[i].qp].sq_held--;
		else
			v->qp[out[i].qp].rq_held--;
	}
	pthread_mutex_unlock(&v->lock);
	return n;
}

/* Non-blocking: up to max completions, 0 if none, or RP_EWC. */
static int poll_cq(struct rp_verbs *v, struct rp_wc *out, int max)
{
	struct fab_cqe c[POLL_BATCH];
	int total = 0;

	while (total < max) {
		int want = max - total < POLL_BATCH ? max - total : POLL_BATCH;
		int n = cq_take(v, c, want);

		for (int i = 0; i < n; i++) {
			struct rp_wc *o = &out[total + i];

			if (c[i].status != ST_OK) {
				/* Count the batch's other failures too. */
				for (; i < n; i++)
					if (c[i].status != ST_OK)
						failed_wc(v, &c[i]);
				return RP_EWC;
			}
			o->wr_id = c[i].wr_id;
			o->op = (enum rp_wc_op)c[i].op;
			o->byte_len = c[i].byte_len;
			o->imm = c[i].imm;
			o->qp = c[i].qp;
		}
		total += n;
		v->polled += (uint64_t)n;
		if (n < want)
			break;
	}
	return total;
}

/* Sleep in poll(2) until the eventfd or watch_fd has something, or the
 * deadline. 0 means "look again". */
static int wait_events(struct rp_verbs *v, int watch_fd, double deadline,
		       bool *watch_ready)
{
	struct pollfd pfd[2] = {
		{ .fd = v->efd, .events = POLLIN },
		{ .fd = watch_fd, .events = POLLIN },
	};
	nfds_t nfds = watch_fd >= 0 ? 2 : 1;
	uint64_t cnt;
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
		RP_ERR("poll(fabric eventfd%s): %s",
		       nfds == 2 ? ", control socket" : "", strerror(e));
		return -e;
	}
	/* Drained before the CQ is looked at again: no wake-up is lost. */
	if (pfd[0].revents && read(v->efd, &cnt, sizeof(cnt)) < 0 &&
	    errno != EAGAIN)
		RP_EV("verbs", "fabric.eventfd", "fabric: read(eventfd): "
		      "{reason}", EV_S("reason", strerror(errno)));
	if (nfds == 2 && pfd[1].revents) {
		if (pfd[1].revents & POLLNVAL) {
			RP_ERR("poll: watched fd %d is not open", watch_fd);
			return RP_EINTERNAL;
		}
		*watch_ready = true;
	}
	return 0;
}

int rp_verbs_poll(struct rp_verbs *v, struct rp_wc *wc, int max)
{
	if (!v || !wc || max <= 0) {
		RP_ERR("rp_verbs_poll: bad arguments (max %d)", max);
		return RP_EINTERNAL;
	}
	release_late(v);
	return poll_cq(v, wc, max);
}

int rp_verbs_next(struct rp_verbs *v, struct rp_wc *wc, int max,
		  int watch_fd, double deadline)
{
	bool watch_ready = false;
	int rc;
	int n;

	if (!v || !wc || max <= 0) {
		RP_ERR("rp_verbs_next: bad arguments (max %d)", max);
		return RP_EINTERNAL;
	}
	for (;;) {
		double due;

		release_late(v);
		n = poll_cq(v, wc, max);
		if (n)
			return n;
		if (watch_ready)
			return 0;
		/* A late or held-back completion falling due wakes us like a
		 * new one. */
		due = next_due(v);
		if (due && due < deadline) {
			rc = wait_events(v, watch_fd, due, &watch_ready);
			if (rc == RP_ETIMEOUT)
				continue;
		} else {
			rc = wait_events(v, watch_fd, deadline, &watch_ready);
		}
		if (rc)
			return rc;
	}
}

/*
 * The in-memory fabric has one device, "mem0", with one port, always
 * active: a named other device or port is missing, as on a host.
 */
int rp_verbs_probe(const char *dev_name, int ib_port)
{
	if (dev_name && strcmp(dev_name, "mem0")) {
		RP_ERR("RDMA device \"%s\" not found; devices: mem0",
		       dev_name);
		return RP_ENODEV;
	}
	if (ib_port > 1) {
		RP_ERR("no active RDMA port: mem0 has no port %d (1 port(s))",
		       ib_port);
		return RP_ENODEV;
	}
	RP_EV("verbs", "probe", "probe: {dev} port {port} is {state}",
	      EV_S("dev", "mem0"), EV_I("port", 1),
	      EV_S("state", "PORT_ACTIVE"));
	return 0;
}
