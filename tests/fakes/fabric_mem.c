// SPDX-License-Identifier: MIT
/*
 * The in-memory fabric: rdmapush/verbs.h implemented without a device, so
 * a sender and a receiver can run as two threads of one process (session
 * tests, the native benchmark). Each endpoint models one RC QP with its
 * CQ; a post executes at once in the poster's thread (checks, copy,
 * completions on both sides) and wakes the other side through an eventfd.
 * Test-facing faults, hook and counters are in rdmapush/fabric_mem.h.
 *
 * Locking, outermost first: fab.lock (registry, pairing, hook) then one
 * endpoint's lock (its queues, state and ring); never two endpoint locks
 * at once. Faults and counters are atomics, usable under either. A Write,
 * a Send or a Read pins the responder (busy) and copies with no lock
 * held; close and dereg wait for the pins to go.
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

/* enum ibv_mtu's IBV_MTU_1024, what rxe reports on a 1500-byte link. */
#define FAB_MTU			3
#define FAB_GID_INDEX		1
/* Completions taken per lock round in rp_verbs_next(). */
#define POLL_BATCH		32
/* Failed completions traced after the one that is reported. */
#define TRACE_FIRST		4

/* The enum ibv_wc_status values we produce, so reports read as rxe's. */
enum fab_status {
	ST_OK = 0,
	ST_LOC_LEN = 1,
	ST_LOC_PROT = 4,
	ST_FLUSH = 5,
	ST_REM_INV_REQ = 9,
	ST_REM_ACCESS = 10,
	ST_REM_OP = 11,
	ST_RETRY_EXC = 12,
	ST_RNR_RETRY_EXC = 13,
	ST_GENERAL = 21,
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
	POST_SEND_IMM,
	POST_READ,
	POST_RECV,
	POST_KIND_MAX
};

static const char *const post_kind_names[POST_KIND_MAX] = {
	[POST_WRITE_IMM] = "WRITE_WITH_IMM",
	[POST_SEND_IMM] = "SEND_WITH_IMM",
	[POST_READ] = "RDMA_READ",
	[POST_RECV] = "RECV",
};

/* The requester's completion for each send-queue kind. */
static const uint8_t sq_op[POST_KIND_MAX] = {
	[POST_WRITE_IMM] = RP_WC_WRITE,
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

struct rp_verbs {
	/* Fixed at open. */
	enum rp_fab_side side;
	unsigned int access;	/* RP_ACCESS_*: the ring's and the QP's */
	uint32_t qpn;
	uint32_t psn;
	uint8_t gid[RP_GID_LEN];
	char gid_str[INET6_ADDRSTRLEN];
	uint32_t max_send;
	uint32_t max_recv;
	int efd;		/* eventfd: the CQ went non-empty */

	/* Under fab.lock. */
	struct rp_verbs *next_ep;
	struct rp_verbs *peer;	/* both connected to each other */
	uint32_t peer_qpn;
	bool connected;

	/* Under lock. */
	pthread_mutex_t lock;
	pthread_cond_t idle;	/* busy went to 0 */
	enum qp_state state;
	bool stalled;
	unsigned int busy;	/* peer requests copying to or from our ring */
	uint8_t *ring;
	size_t ring_len;
	uint32_t rkey;
	struct fab_rwr *rq;	/* posted receives, FIFO */
	uint32_t rq_head;
	uint32_t rq_len;
	uint32_t rq_held;	/* consumed, completion not yet polled */
	uint32_t sq_held;	/* posted, completion not yet polled */
	struct fab_cqe *cq;	/* max_send + max_recv: cannot overflow */
	uint32_t cq_cap;
	uint32_t cq_head;
	uint32_t cq_len;
	uint64_t ncompl;	/* completions queued, 1-based fault count */
	double ack_delay;	/* RP_FAB_SLOW_ACK, seconds; 0: none */
	struct fab_late *late;	/* our completions waiting for their ACK */
	uint32_t late_head;
	uint32_t late_len;

	/* The owner's thread only. */
	uint64_t nposts;
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
static _Atomic uint64_t fault_word[RP_FAB_SIDE_MAX];
static atomic_int stat_open;
static _Atomic uint64_t stat_opened;
static atomic_int stat_rings;
static _Atomic uint64_t stat_writes;
static _Atomic uint64_t stat_sends;
static _Atomic uint64_t stat_bytes;
static _Atomic uint64_t stat_reads;
static _Atomic uint64_t stat_read_bytes;

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
	}
	return "?";
}

static const char *side_name(enum rp_fab_side s)
{
	return s == RP_FAB_RECEIVER ? "receiver" : "sender";
}

void rp_fab_fault(enum rp_fab_side side, enum rp_fab_fault what,
		  uint64_t nth)
{
	uint64_t w = 0;

	if ((unsigned int)side >= RP_FAB_SIDE_MAX)
		return;
	if (what != RP_FAB_NONE && nth)
		w = (uint64_t)what << FAULT_SHIFT | (nth & FAULT_NTH_MASK);
	atomic_store(&fault_word[side], w);
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
	RP_TRACE("verbs", "fabric: fault %s fires on the %s at #%" PRIu64,
		 fault_name(*what), side_name(side), n);
	return true;
}

/* The ACK delay armed for side, in seconds; 0 when none. */
static double slow_ack(enum rp_fab_side side)
{
	uint64_t w = atomic_load(&fault_word[side]);

	if (w >> FAULT_SHIFT != RP_FAB_SLOW_ACK)
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
	out->sends = atomic_load(&stat_sends);
	out->bytes = atomic_load(&stat_bytes);
	out->reads = atomic_load(&stat_reads);
	out->read_bytes = atomic_load(&stat_read_bytes);
}

void rp_fab_reset(void)
{
	for (int s = 0; s < RP_FAB_SIDE_MAX; s++)
		atomic_store(&fault_word[s], 0);
	rp_fab_set_hook(NULL, NULL);
	atomic_store(&stat_opened, 0);
	atomic_store(&stat_writes, 0);
	atomic_store(&stat_sends, 0);
	atomic_store(&stat_bytes, 0);
	atomic_store(&stat_reads, 0);
	atomic_store(&stat_read_bytes, 0);
}

/* ---------------------------------------------------------------------
 * The completion queue and the QP's error state (endpoint lock held)
 */

/* Wake the owner only when the CQ goes non-empty: it drains the CQ
 * before it sleeps again, so one wake-up covers every entry. Written
 * under the lock, because the endpoint may be freed right after it. */
static void cq_push_raw(struct rp_verbs *v, const struct fab_cqe *c)
{
	static const uint64_t one = 1;

	if (v->cq_len == v->cq_cap) {
		/* Every entry holds a queue slot, so this cannot happen. */
		RP_ERR("fabric: CQ of QP 0x%x overrun; completion wr_id %"
		       PRIu64 " lost", v->qpn, c->wr_id);
		return;
	}
	v->cq[(v->cq_head + v->cq_len) % v->cq_cap] = *c;
	v->cq_len++;
	if (v->cq_len > 1)
		return;
	if (write(v->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		RP_ERR("fabric: write(eventfd of QP 0x%x): %s", v->qpn,
		       strerror(errno));
}

static void qp_error(struct rp_verbs *v, const char *why);

/* Queue a completion; a failed one moves the QP to ERROR, as on a NIC. */
static void cq_push(struct rp_verbs *v, struct fab_cqe c)
{
	enum rp_fab_fault what;

	v->ncompl++;
	if (take_fault(v->side, 1u << RP_FAB_FAIL_COMPLETION, v->ncompl,
		       &what) && c.status == ST_OK) {
		c.status = ST_GENERAL;
		c.injected = true;
	}
	cq_push_raw(v, &c);
	if (c.status != ST_OK)
		qp_error(v, c.injected ? "injected completion failure"
				       : "a completion failed");
}

/* ERROR flushes every posted receive: each completes as flushed. */
static void qp_error(struct rp_verbs *v, const char *why)
{
	if (v->state == QPS_ERROR)
		return;
	v->state = QPS_ERROR;
	RP_TRACE("verbs", "fabric: QP 0x%x -> ERROR (%s); %u posted "
		 "receive(s) flushed", v->qpn, why, v->rq_len);
	while (v->rq_len) {
		struct fab_cqe c = {
			.wr_id = v->rq[v->rq_head].wr_id,
			.op = RP_WC_OTHER,
			.status = ST_FLUSH,
		};

		v->rq_head = (v->rq_head + 1) % v->max_recv;
		v->rq_len--;
		v->rq_held++;
		cq_push(v, c);
	}
}

/* ---------------------------------------------------------------------
 * Open, close, addresses
 */

static bool qpn_in_use(uint32_t qpn)
{
	for (struct rp_verbs *e = fab.eps; e; e = e->next_ep)
		if (e->qpn == qpn)
			return true;
	return false;
}

/* Sequential 24-bit QPNs, as rxe allocates them; links the endpoint. */
static void registry_add(struct rp_verbs *v)
{
	pthread_mutex_lock(&fab.lock);
	do {
		v->qpn = fab.next_qpn;
		fab.next_qpn = (fab.next_qpn + 1) & 0xffffff;
		if (!fab.next_qpn)
			fab.next_qpn = 1;
	} while (qpn_in_use(v->qpn));
	v->next_ep = fab.eps;
	fab.eps = v;
	pthread_mutex_unlock(&fab.lock);
}

/* Unpair and unlink (fab.lock held); the peer then sees a dead QP. */
static void registry_del(struct rp_verbs *v)
{
	struct rp_verbs **pp;

	if (v->peer && v->peer != v)
		v->peer->peer = NULL;
	v->peer = NULL;
	v->connected = false;
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

static int alloc_queues(struct rp_verbs *v)
{
	v->rq = calloc(v->max_recv, sizeof(*v->rq));
	v->cq_cap = v->max_send + v->max_recv;
	v->cq = calloc(v->cq_cap, sizeof(*v->cq));
	v->late = calloc(v->max_send, sizeof(*v->late));
	if (!v->rq || !v->cq || !v->late) {
		int e = errno;

		RP_ERR("calloc(fabric queues: %u send, %u receive): %s",
		       v->max_send, v->max_recv, strerror(e));
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
	free(v->rq);
	pthread_cond_destroy(&v->idle);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

int rp_verbs_open(struct rp_verbs **out, const struct rp_verbs_cfg *cfg)
{
	char acc[ACCESS_STR_LEN];
	struct rp_verbs *v;
	int rc;

	rc = rp_verbs_check_open(out, cfg);
	if (!rc && cfg->qps > 1) {
		RP_ERR("rp_verbs_open: %u QPs: the in-memory fabric opens one",
		       cfg->qps);
		rc = RP_EINTERNAL;
	}
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
	v->state = QPS_INIT;
	rc = alloc_queues(v);
	if (rc)
		goto err_free;
	rp_sys_random(&v->psn, sizeof(v->psn));
	v->psn &= 0xffffff;
	gid_from_addr(v, cfg);
	v->ack_delay = slow_ack(v->side);
	registry_add(v);
	atomic_fetch_add(&stat_open, 1);
	atomic_fetch_add(&stat_opened, 1);
	/* rd_atomic is only traced: a Read here completes as it is posted,
	 * so there are never more in flight than the send queue holds. */
	RP_TRACE("verbs", "fabric: in-memory QP 0x%x opened (%s side, "
		 "max_send_wr=%u max_recv_wr=%u, access=%s rd_atomic=%u, "
		 "psn=0x%06x, gid %s)", v->qpn, side_name(v->side),
		 v->max_send, v->max_recv, access_str(v->access, acc),
		 cfg->rd_atomic ? cfg->rd_atomic : 1, v->psn, v->gid_str);
	*out = v;
	return 0;

err_free:
	free_endpoint(v);
	return rc;
}

void rp_verbs_close(struct rp_verbs *v)
{
	if (!v)
		return;
	RP_TRACE("verbs", "fabric: QP 0x%x closing: %" PRIu64 " post(s), %"
		 PRIu64 " completion(s) polled, %" PRIu64 " failed", v->qpn,
		 v->nposts, v->polled, v->wc_errors);
	/* Unpaired first: no new Write can pin us after this. */
	pthread_mutex_lock(&fab.lock);
	registry_del(v);
	pthread_mutex_unlock(&fab.lock);
	pthread_mutex_lock(&v->lock);
	v->state = QPS_ERROR;
	while (v->busy)
		pthread_cond_wait(&v->idle, &v->lock);
	pthread_mutex_unlock(&v->lock);
	rp_verbs_dereg_ring(v);
	atomic_fetch_sub(&stat_open, 1);
	RP_TRACE("verbs", "fabric: QP 0x%x destroyed", v->qpn);
	free_endpoint(v);
}

uint32_t rp_verbs_qps(const struct rp_verbs *v)
{
	return v ? 1 : 0;
}

void rp_verbs_local(const struct rp_verbs *v, uint32_t qp,
		    struct rp_qp_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (!v || qp)
		return;
	out->qpn = v->qpn;
	out->psn = v->psn;
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

static struct rp_verbs *find_qpn(uint32_t qpn)
{
	for (struct rp_verbs *e = fab.eps; e; e = e->next_ep)
		if (e->qpn == qpn)
			return e;
	return NULL;
}

/* fab.lock held: pair with the named QP if it already connected to us. */
static bool try_pair(struct rp_verbs *v)
{
	struct rp_verbs *p = find_qpn(v->peer_qpn);

	if (!p || !p->connected || p->peer_qpn != v->qpn || p->peer)
		return false;
	v->peer = p;
	p->peer = v;
	return true;
}

int rp_verbs_connect(struct rp_verbs *v, const struct rp_qp_addr *peer,
		     uint32_t n)
{
	enum qp_state st;
	bool paired;
	int rc;

	if (!v || !peer || n != 1) {
		RP_ERR("rp_verbs_connect: NULL argument, or %u peer QPs for "
		       "our 1", n);
		return RP_EINTERNAL;
	}
	/* Nobody else reaches a QP in INIT: the lock is for the checkers. */
	pthread_mutex_lock(&v->lock);
	st = v->state;
	pthread_mutex_unlock(&v->lock);
	if (st != QPS_INIT) {
		RP_ERR("rp_verbs_connect: QP 0x%x is %s, not INIT", v->qpn,
		       st == QPS_RTS ? "RTS" : "ERROR");
		return RP_EINTERNAL;
	}
	rc = check_peer(peer);
	if (rc)
		return rc;
	pthread_mutex_lock(&v->lock);
	v->state = QPS_RTS;
	pthread_mutex_unlock(&v->lock);
	pthread_mutex_lock(&fab.lock);
	v->peer_qpn = peer->qpn;
	v->connected = true;
	paired = try_pair(v);
	pthread_mutex_unlock(&fab.lock);
	RP_TRACE("verbs", "fabric: QP 0x%x INIT -> RTS against QP 0x%x "
		 "(psn 0x%06x)%s", v->qpn, peer->qpn, peer->psn,
		 paired ? ": paired, both sides connected"
			: ": waiting for that QP to connect to us");
	return 0;
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
	RP_TRACE("verbs", "fabric: ring registered: addr=%p length=%zu "
		 "rkey=0x%x access=%s%s", buf, len, *rkey, acc,
		 v->access & (RP_ACCESS_REMOTE_WRITE | RP_ACCESS_REMOTE_READ) ?
		 "" : " (local only)");
	return 0;
}

void rp_verbs_dereg_ring(struct rp_verbs *v)
{
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
	RP_TRACE("verbs", "fabric: ring of QP 0x%x deregistered and freed",
		 v->qpn);
}

/* ---------------------------------------------------------------------
 * Posting
 */

static int report_post(const struct rp_verbs *v, enum post_kind kind,
		       uint64_t wr_id, int e, const char *hint)
{
	RP_ERR("%s(%s, wr_id %" PRIu64 ", QP 0x%x): %s%s",
	       kind == POST_RECV ? "ibv_post_recv" : "ibv_post_send",
	       post_kind_names[kind], wr_id, v->qpn, strerror(e), hint);
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

/* The endpoint dies: unpaired (the peer's requests then time out, as
 * to a dead host) and in ERROR (what it had posted is flushed). */
static void kill_endpoint(struct rp_verbs *v)
{
	pthread_mutex_lock(&fab.lock);
	if (v->peer && v->peer != v)
		v->peer->peer = NULL;
	v->peer = NULL;
	v->connected = false;
	pthread_mutex_unlock(&fab.lock);
	pthread_mutex_lock(&v->lock);
	qp_error(v, "killed by RP_FAB_KILL");
	pthread_mutex_unlock(&v->lock);
}

/* Count the post (1-based, per endpoint) and apply a fault armed for
 * it. RP_EVERBS, reported, for RP_FAB_FAIL_POST. */
static int post_fault(struct rp_verbs *v, enum post_kind kind,
		      uint64_t wr_id, uint64_t *n)
{
	unsigned int mask = 1u << RP_FAB_FAIL_POST | 1u << RP_FAB_STALL |
			    1u << RP_FAB_KILL;
	enum rp_fab_fault what;

	*n = ++v->nposts;
	if (!take_fault(v->side, mask, *n, &what))
		return 0;
	switch (what) {
	case RP_FAB_FAIL_POST:
		return report_post(v, kind, wr_id, EIO,
				   " (fault injected by the fabric)");
	case RP_FAB_STALL:
		pthread_mutex_lock(&v->lock);
		v->stalled = true;
		pthread_mutex_unlock(&v->lock);
		break;
	case RP_FAB_KILL:
		kill_endpoint(v);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Take a send-queue slot. 0: go on and deliver; 1: nothing to deliver
 * (flushed on a QP in ERROR, or swallowed by a stalled one); or
 * RP_EVERBS (reported) as ibv_post_send fails: not connected, or full.
 */
static int sq_reserve(struct rp_verbs *v, const struct fab_wr *wr)
{
	const char *hint = NULL;
	int e = 0;
	int rc = 0;

	pthread_mutex_lock(&v->lock);
	if (v->state == QPS_INIT) {
		e = EINVAL;
		hint = " (QP not in RTS yet)";
	} else if (v->sq_held >= v->max_send) {
		e = ENOMEM;
		hint = " (send queue full)";
	} else {
		v->sq_held++;
		if (v->state == QPS_ERROR) {
			struct fab_cqe c = {
				.wr_id = wr->wr_id,
				.op = sq_op[wr->kind],
				.status = ST_FLUSH,
				.sq = true,
			};

			cq_push(v, c);
			rc = 1;
		} else if (v->stalled) {
			rc = 1;
		}
	}
	pthread_mutex_unlock(&v->lock);
	if (e)
		return report_post(v, wr->kind, wr->wr_id, e, hint);
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
 * Consume r's next receive for a Write or a Send (r's lock held). A Send
 * that does not fit fails that receive at once, which puts r in ERROR
 * (its failed completion first, then the flushes).
 */
static enum fab_status take_recv(struct rp_verbs *r, const struct fab_wr *wr,
				 struct fab_resp *out)
{
	enum fab_status rst = ST_OK;
	enum fab_status st = ST_OK;
	struct fab_rwr rcv;

	if (!r->rq_len)
		return ST_RNR_RETRY_EXC;
	rcv = r->rq[r->rq_head];
	r->rq_head = (r->rq_head + 1) % r->max_recv;
	r->rq_len--;
	r->rq_held++;
	out->rwr = rcv.wr_id;
	if (wr->kind == POST_SEND_IMM)
		st = check_recv(r, &rcv, wr->len, &rst);
	if (st != ST_OK)
		cq_push(r, (struct fab_cqe){ .wr_id = rcv.wr_id,
					     .op = RP_WC_OTHER,
					     .status = rst });
	else if (wr->kind == POST_SEND_IMM && wr->len)
		out->mem = r->ring + rcv.off;
	return st;
}

/*
 * The responder's side of a request (fab.lock held, so r is alive):
 * checks, then a Write or a Send consumes a posted receive (a Read
 * none). An accepted request pins r; out says where in r's ring the
 * bytes go or come from, and resp_done() finishes it.
 */
static enum fab_status resp_take(struct rp_verbs *r, const struct fab_wr *wr,
				 struct fab_resp *out)
{
	enum fab_status st = ST_OK;

	pthread_mutex_lock(&r->lock);
	if (r->stalled)
		st = ST_LOST;
	else if (r->state != QPS_RTS)
		st = ST_RETRY_EXC;	/* an errored QP drops packets */
	else if (wr->kind != POST_SEND_IMM)
		st = check_access(r, wr);
	if (st == ST_OK && wr->kind != POST_READ)
		st = take_recv(r, wr, out);
	if (st == ST_REM_ACCESS || st == ST_REM_INV_REQ)
		qp_error(r, "a peer's request was refused (access, rkey, "
			 "bounds or length)");
	else if (st == ST_RNR_RETRY_EXC)
		qp_error(r, "a peer's request found no receive posted");
	if (st == ST_OK) {
		r->busy++;
		if (wr->kind != POST_SEND_IMM)
			out->mem = r->ring + (wr->raddr - (uintptr_t)r->ring);
	}
	pthread_mutex_unlock(&r->lock);
	return st;
}

/* After the copy: the responder's completion (a Read has none: rxe's
 * responder answers it without a work request), and r unpinned. */
static void resp_done(struct rp_verbs *r, const struct fab_wr *wr,
		      uint64_t rwr)
{
	pthread_mutex_lock(&r->lock);
	/* A QP that failed meanwhile reports the receive flushed. */
	if (wr->kind != POST_READ)
		cq_push(r, (struct fab_cqe){
			.wr_id = rwr, .byte_len = wr->len, .imm = wr->imm,
			.op = wr->kind == POST_WRITE_IMM ?
			      RP_WC_RECV_WRITE_IMM : RP_WC_RECV_SEND_IMM,
			.status = r->state == QPS_RTS ? ST_OK : ST_FLUSH });
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

	if (wr->kind != POST_READ) {
		n = wr->kind == POST_WRITE_IMM ? &stat_writes : &stat_sends;
		bytes = &stat_bytes;
	}
	atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(bytes, wr->len, memory_order_relaxed);
}

/* Our own request's completion (lock held): now, or when its slow ACK
 * is due. Each late entry holds a send-queue slot, so late[] (max_send
 * entries) cannot overflow; the delay is constant, so it stays sorted. */
static void sq_complete(struct rp_verbs *v, struct fab_cqe c)
{
	struct fab_late *l;

	if (v->ack_delay <= 0 || c.status != ST_OK) {
		cq_push(v, c);
		return;
	}
	l = &v->late[(v->late_head + v->late_len) % v->max_send];
	l->c = c;
	l->due = rp_now() + v->ack_delay;
	v->late_len++;
}

/* Move the late completions that are due into the CQ. Returns when the
 * next one is due, or 0 when none is waiting. */
static double release_late(struct rp_verbs *v)
{
	double now = rp_now();
	double next = 0;

	pthread_mutex_lock(&v->lock);
	while (v->late_len && v->late[v->late_head].due <= now) {
		cq_push(v, v->late[v->late_head].c);
		v->late_head = (v->late_head + 1) % v->max_send;
		v->late_len--;
	}
	if (v->late_len)
		next = v->late[v->late_head].due;
	pthread_mutex_unlock(&v->lock);
	return next;
}

/*
 * Execute a request on the peer, then complete it here: in post order,
 * as everything on our send queue. The copy runs with no lock held: only
 * the pin keeps the peer's ring alive (ours is the poster's own).
 */
static void deliver(struct rp_verbs *v, const struct fab_wr *wr)
{
	struct fab_resp resp = { 0 };
	enum fab_status st;
	struct rp_verbs *r;
	bool pinned;

	pthread_mutex_lock(&fab.lock);
	r = v->peer;
	st = r ? resp_take(r, wr, &resp) : ST_RETRY_EXC;
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
	else if (st == ST_OK && wr->len)
		memmove(resp.mem, v->ring + wr->off, wr->len);
	/* Ours first: on a NIC the ACK precedes the peer's answer. */
	pthread_mutex_lock(&v->lock);
	sq_complete(v, (struct fab_cqe){
		.wr_id = wr->wr_id, .status = st, .sq = true,
		.op = sq_op[wr->kind],
		.byte_len = wr->kind == POST_READ ? wr->len : 0 });
	pthread_mutex_unlock(&v->lock);
	if (pinned)
		resp_done(r, wr, resp.rwr);
	if (st == ST_OK)
		count_delivered(wr);
}

/* The first few posts of each kind on an endpoint, not the millions. */
static void trace_post(struct rp_verbs *v, const struct fab_wr *wr)
{
	char head[64];
	char where[48];

	if (++v->posted[wr->kind] > TRACE_FIRST || !rp_trace_on())
		return;
	snprintf(head, sizeof(head), "QP 0x%x post %s wr_id=%" PRIu64, v->qpn,
		 post_kind_names[wr->kind], wr->wr_id);
	if (wr->len)
		snprintf(where, sizeof(where), "ring[%zu..+%u)", wr->off,
			 wr->len);
	else
		snprintf(where, sizeof(where), "zero length");
	if (wr->kind == POST_WRITE_IMM)
		RP_TRACE("verbs", "fabric: %s: %s -> raddr=0x%" PRIx64
			 " rkey=0x%x, imm=0x%08x", head, where, wr->raddr,
			 wr->rkey, wr->imm);
	else if (wr->kind == POST_READ)
		RP_TRACE("verbs", "fabric: %s: %s <- raddr=0x%" PRIx64
			 " rkey=0x%x", head, where, wr->raddr, wr->rkey);
	else if (wr->kind == POST_SEND_IMM)
		RP_TRACE("verbs", "fabric: %s: %s, imm=0x%08x", head, where,
			 wr->imm);
	else
		RP_TRACE("verbs", "fabric: %s: %s, for a Write's or a Send's "
			 "immediate%s", head, where,
			 wr->len ? " (a Send's bytes land there)" : "");
}

static int post_send_wr(struct rp_verbs *v, const struct fab_wr *wr)
{
	uint64_t n;
	int rc;

	rc = post_fault(v, wr->kind, wr->wr_id, &n);
	if (rc)
		return rc;
	rc = sq_reserve(v, wr);
	if (rc < 0)
		return rc;
	trace_post(v, wr);
	if (!rc)
		deliver(v, wr);
	run_hook(v, n);
	return 0;
}

static int post_recv_wr(struct rp_verbs *v, const struct fab_wr *wr)
{
	bool full;
	uint64_t n;
	int rc;

	rc = post_fault(v, POST_RECV, wr->wr_id, &n);
	if (rc)
		return rc;
	pthread_mutex_lock(&v->lock);
	full = v->rq_len + v->rq_held >= v->max_recv;
	if (!full && v->state == QPS_ERROR) {
		v->rq_held++;
		cq_push(v, (struct fab_cqe){ .wr_id = wr->wr_id,
					     .op = RP_WC_OTHER,
					     .status = ST_FLUSH });
	} else if (!full) {
		v->rq[(v->rq_head + v->rq_len) % v->max_recv] =
			(struct fab_rwr){ .wr_id = wr->wr_id, .off = wr->off,
					  .len = wr->len };
		v->rq_len++;
	}
	pthread_mutex_unlock(&v->lock);
	if (full)
		return report_post(v, POST_RECV, wr->wr_id, ENOMEM,
				   " (receive queue full)");
	trace_post(v, wr);
	run_hook(v, n);
	return 0;
}

/* A post with a range of our ring: one is registered and [off, +len) is
 * in it (its access is checked when the bytes move, as a NIC does). */
static int post_ranged(struct rp_verbs *v, uint32_t qp, const char *fn,
		       const struct fab_wr *wr)
{
	int rc;

	if (!v || !v->ring) {
		RP_ERR("%s: no QP or no ring registered", fn);
		return RP_EINTERNAL;
	}
	rc = rp_verbs_check_qp(qp, 1, fn);
	if (rc)
		return rc;
	rc = rp_verbs_check_write(v->ring_len, wr->off, wr->len);
	if (rc)
		return rc;
	if (wr->kind == POST_RECV)
		return post_recv_wr(v, wr);
	return post_send_wr(v, wr);
}

int rp_verbs_post_write_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off, uint32_t len, uint64_t raddr, uint32_t rkey,
			    uint32_t imm)
{
	struct fab_wr wr = {
		.kind = POST_WRITE_IMM, .wr_id = wr_id, .off = off,
		.len = len, .raddr = raddr, .rkey = rkey, .imm = imm,
	};

	return post_ranged(v, qp, __func__, &wr);
}

int rp_verbs_post_send_imm(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			   uint32_t imm)
{
	struct fab_wr wr = {
		.kind = POST_SEND_IMM, .wr_id = wr_id, .imm = imm,
	};

	if (!v) {
		RP_ERR("rp_verbs_post_send_imm: no QP");
		return RP_EINTERNAL;
	}
	if (rp_verbs_check_qp(qp, 1, "rp_verbs_post_send_imm"))
		return RP_EINTERNAL;
	return post_send_wr(v, &wr);
}

int rp_verbs_post_send_data(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			    size_t off, uint32_t len, uint32_t imm)
{
	struct fab_wr wr = {
		.kind = POST_SEND_IMM, .wr_id = wr_id, .off = off,
		.len = len, .imm = imm,
	};

	return post_ranged(v, qp, __func__, &wr);
}

int rp_verbs_post_read(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
		       size_t off, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct fab_wr wr = {
		.kind = POST_READ, .wr_id = wr_id, .off = off, .len = len,
		.raddr = raddr, .rkey = rkey,
	};

	return post_ranged(v, qp, __func__, &wr);
}

int rp_verbs_post_recv(struct rp_verbs *v, uint32_t qp, uint64_t wr_id)
{
	struct fab_wr wr = { .kind = POST_RECV, .wr_id = wr_id };

	if (!v) {
		RP_ERR("rp_verbs_post_recv: no QP");
		return RP_EINTERNAL;
	}
	if (rp_verbs_check_qp(qp, 1, "rp_verbs_post_recv"))
		return RP_EINTERNAL;
	return post_recv_wr(v, &wr);
}

int rp_verbs_post_recv_buf(struct rp_verbs *v, uint32_t qp, uint64_t wr_id,
			   size_t off, uint32_t len)
{
	struct fab_wr wr = {
		.kind = POST_RECV, .wr_id = wr_id, .off = off, .len = len,
	};

	return post_ranged(v, qp, __func__, &wr);
}

/* ---------------------------------------------------------------------
 * Completions
 */

/* ibv_wc_status_str()'s words, so logs read the same on both backends. */
static const char *status_str(enum fab_status s)
{
	switch (s) {
	case ST_OK:
		return "success";
	case ST_LOC_LEN:
		return "local length error";
	case ST_LOC_PROT:
		return "local protection error";
	case ST_FLUSH:
		return "Work Request Flushed Error";
	case ST_REM_INV_REQ:
		return "remote invalid request error";
	case ST_REM_ACCESS:
		return "remote access error";
	case ST_REM_OP:
		return "remote operation error";
	case ST_RETRY_EXC:
		return "transport retry counter exceeded";
	case ST_RNR_RETRY_EXC:
		return "RNR retry counter exceeded";
	case ST_GENERAL:
		return "general error";
	case ST_LOST:
		break;
	}
	return "?";
}

static const char *status_hint(const struct fab_cqe *c)
{
	if (c->injected)
		return "; injected by the fabric (RP_FAB_FAIL_COMPLETION)";
	switch (c->status) {
	case ST_REM_ACCESS:
		return "; the peer refused our RDMA access (wrong rkey, or "
		       "outside its registered ring)";
	case ST_RETRY_EXC:
		return "; no acknowledgement from the peer after every retry "
		       "(peer dead or unreachable)";
	case ST_RNR_RETRY_EXC:
		return "; the peer had no receive posted after every retry";
	case ST_FLUSH:
		return "; flushed: the QP had already entered the error state";
	case ST_REM_INV_REQ:
		return "; the peer's QP rejected the request (no REMOTE_WRITE "
		       "or REMOTE_READ access on its QP, or a Send longer "
		       "than its receive)";
	case ST_REM_OP:
		return "; the peer could not place our Send in its receive "
		       "buffer (no LOCAL_WRITE on its ring)";
	case ST_LOC_LEN:
		return "; a peer's Send was longer than this receive's buffer";
	case ST_LOC_PROT:
		return "; the bytes were to land in our ring, registered "
		       "without LOCAL_WRITE (or no longer registered)";
	default:
		return "";
	}
}

/* Report the first failure only: the flushes that follow add nothing. */
static void failed_wc(struct rp_verbs *v, const struct fab_cqe *c)
{
	v->wc_errors++;
	if (!v->wc_failed) {
		v->wc_failed = true;
		RP_ERR("work completion failed: %s (status %d, vendor_err "
		       "0x0) wr_id=%" PRIu64 " opcode=n/a qp=0x%x%s",
		       status_str(c->status), c->status, c->wr_id, v->qpn,
		       status_hint(c));
	} else if (v->wc_errors <= TRACE_FIRST) {
		RP_TRACE("verbs", "completion failed too: %s wr_id=%" PRIu64,
			 status_str(c->status), c->wr_id);
	}
}

/* Move up to max entries out of the CQ, freeing their queue slots. */
static int cq_take(struct rp_verbs *v, struct fab_cqe *out, int max)
{
	int n = 0;

	pthread_mutex_lock(&v->lock);
	while (n < max && v->cq_len) {
		out[n] = v->cq[v->cq_head];
		v->cq_head = (v->cq_head + 1) % v->cq_cap;
		v->cq_len--;
		if (out[n].sq)
			v->sq_held--;
		else
			v->rq_held--;
		n++;
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
			o->qp = 0;
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
		RP_TRACE("verbs", "fabric: read(eventfd): %s",
			 strerror(errno));
	if (nfds == 2 && pfd[1].revents) {
		if (pfd[1].revents & POLLNVAL) {
			RP_ERR("poll: watched fd %d is not open", watch_fd);
			return RP_EINTERNAL;
		}
		*watch_ready = true;
	}
	return 0;
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
		double due = release_late(v);

		n = poll_cq(v, wc, max);
		if (n)
			return n;
		if (watch_ready)
			return 0;
		/* A late completion falling due wakes us like a new one. */
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
	RP_TRACE("verbs", "probe: mem0 port 1 is PORT_ACTIVE");
	return 0;
}
