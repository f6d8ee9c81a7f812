/* SPDX-License-Identifier: MIT */
/*
 * Private to the libibverbs backend (src/verbs*.c, never installed): the
 * full struct rp_verbs and the functions its five files share. verbs.c
 * builds and tears down, verbs_qp.c drives the QPs RESET->INIT->RTR->RTS,
 * verbs_select.c chooses device, port and GID, verbs_wait.c turns
 * completions and events into return codes, and verbs_trace.c holds
 * the educational --trace text with its names and hints.
 */
#ifndef RDMAPUSH_VERBS_INT_H
#define RDMAPUSH_VERBS_INT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rdmapush/verbs_devices.h"
#include "rdmapush/limits.h"
#include "rdmapush/verbs.h"

/* The kinds of work request we post, for counters and traces. */
enum post_kind {
	POST_WRITE_IMM,		/* RDMA Write with immediate from the ring */
	POST_WRITE,		/* plain RDMA Write (ping --op write) */
	POST_SEND_IMM,		/* zero-length Send with immediate (credit) */
	POST_SEND_DATA,		/* Send with immediate of ring bytes */
	POST_READ,		/* RDMA Read into the ring */
	POST_RECV,		/* zero-length receive */
	POST_RECV_BUF,		/* receive into the ring */
	POST_KIND_MAX
};

#define WC_OP_COUNT	(RP_WC_OTHER + 1)

/* "QP 0x11", or "QP 2 of 4 (0x13)" (index, count, QPN); room to spare. */
#define QP_NAME_LEN	48

/* One RC QP of the set (--qps); all share the PD, the CQ and the ring. */
struct verbs_qp {
	struct ibv_qp *ibv;		/* NULL before create, after destroy */
	uint32_t psn;			/* our starting PSN: random 24 bits */
	enum ibv_qp_state state;	/* as last read back */
	uint32_t dest_qpn;		/* the peer's, once RTR */
	char name[QP_NAME_LEN];		/* for traces and errors */
};

struct rp_verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct verbs_qp qp[RP_QPS_MAX];
	uint32_t nqp;			/* cfg.qps, at least 1 */
	struct ibv_mr *mr;
	void *ring;
	size_t ring_len;

	char dev_name[IBV_SYSFS_NAME_MAX];
	uint8_t port;
	uint8_t link_layer;
	enum ibv_mtu mtu;		/* active MTU of our port */
	uint16_t lid;			/* InfiniBand only */
	int gid_index;
	union ibv_gid gid;
	uint32_t gid_type;		/* enum ibv_gid_type */
	char gid_str[INET6_ADDRSTRLEN];
	int max_qp_wr;
	int max_cqe;
	int max_qp_rd_atom;		/* Reads we serve at once (responder) */
	int max_qp_init_rd_atom;	/* Reads we issue at once (initiator) */

	bool receiver;			/* trace wording only */
	unsigned int access;		/* RP_ACCESS_* of the ring and the QP */
	uint32_t rd_atomic;		/* as asked, 0 taken as 1 */
	unsigned int ack_timeout;	/* cfg's, 0 taken as RP_QP_TIMEOUT_DATA */
	bool wc_failed;			/* a failed WC was reported */
	/* rp_verbs_set_relink(): the caller can bring the QPs up again, so
	 * what a link outage causes is traced, not reported; link_down
	 * says that it happened. */
	bool relink;
	bool link_down;
	/* cfg's queue depths, per QP, for rp_verbs_relink(). */
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	bool dp_quiet;			/* "counted, not traced" said */
	unsigned int cq_unacked;

	uint64_t posted[POST_KIND_MAX];
	uint64_t completed[WC_OP_COUNT];
	uint64_t wc_errors;
	uint64_t cq_events;
	uint64_t async_events;
};

/* --- verbs_qp.c: the QPs, steps 5 to 8 of the story verbs.c tells --- */

/*
 * Create v->nqp RC QPs in RESET, each with a random PSN; on failure
 * destroy those already created. 0, or RP_EVERBS (reported).
 */
int rp_verbs_create_qps(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
	__attribute__((warn_unused_result));
/* Each QP RESET -> INIT, read back. 0, or RP_EVERBS (reported). */
int rp_verbs_qps_to_init(struct rp_verbs *v)
	__attribute__((warn_unused_result));
/*
 * Every QP to ERROR, then destroyed, last first; continues past failures
 * (each reported). NULL-safe per QP and idempotent.
 */
void rp_verbs_destroy_qps(struct rp_verbs *v);
/* Index of our QP with QP number qpn, or -1 when none of ours has it. */
int rp_verbs_qp_index(const struct rp_verbs *v, uint32_t qpn);
/* RP_ACCESS_* (verbs.h keeps ibverbs out of the session) as IBV_ACCESS_*. */
unsigned int rp_verbs_ibv_access(unsigned int rp);

/* Take the completion channel's events and ack them (verbs_wait.c). 0,
 * or RP_EVERBS (reported). */
int rp_verbs_drain_cq_events(struct rp_verbs *v);

/* --- verbs_select.c ------------------------------------------------- */

/*
 * Open the device and pick port and GID (cfg's -d/-i/-g, else the RoCE v2
 * GID equal to cfg->local_addr); fill v's device fields and leave v->ctx
 * open. 0, or RP_ENODEV / RP_ENOGID / -errno, already reported.
 */
int rp_verbs_select_device(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
	__attribute__((warn_unused_result));
/*
 * Report "no RDMA device" (e: errno of a failed ibv_get_device_list, 0
 * for an empty list); what to do is rp_err_hint(RP_ENODEV), said by the
 * caller's verdict.
 */
void rp_verbs_report_no_device(int e);
/* ibv_close_device() of a context used only to look (nothing made with
 * it); a failure is traced, never fatal. */
void rp_verbs_close_device(struct ibv_context *ctx, const char *name);

/* --- verbs_provider.c ----------------------------------------------- */

/*
 * Before ibv_get_device_list(): load the providers the devices in sysfs
 * seem to need, so that libibverbs does not load every one it knows.
 * Once per process; silent; a guess that fails changes nothing.
 */
void rp_verbs_load_providers(void);

/* --- verbs_devices.c: `rdmapush devices` (rp_verbs_devices) ---------- */

/* enum ibv_gid_type as enum rp_gid_type (rdmapush/verbs_devices.h). */
enum rp_gid_type rp_verbs_gid_type_rp(uint32_t ibv_gid_type);

/* --- verbs_trace.c: the --trace text, names and hints ---------------- */

/*
 * True while this data-path event (the nth of its kind) should be traced
 * in full: the first few of each kind, then one note that the rest are
 * only counted. False whenever --trace is off.
 */
bool rp_verbs_dp_trace(struct rp_verbs *v, uint64_t nth);

/* Each returns a static string, "?" for a value it does not know. */
const char *rp_verbs_wc_opcode_name(enum ibv_wc_opcode op);
const char *rp_verbs_qp_state_name(enum ibv_qp_state s);
const char *rp_verbs_link_layer_name(uint8_t ll);
const char *rp_verbs_gid_type_name(uint32_t type);
const char *rp_verbs_post_kind_name(enum post_kind kind);
/* Bytes of an MTU code; 0 when the code is not 1..5 (256..4096). */
int rp_verbs_mtu_bytes(enum ibv_mtu m);
/* IBV_ACCESS_* flags as "LOCAL_WRITE|REMOTE_WRITE"; "none" for 0. */
const char *rp_verbs_access_str(char *buf, size_t len, unsigned int flags);
/* " (<why>)" to append to an async event's line, or "". */
const char *rp_verbs_async_hint(enum ibv_event_type t);
/* What the event is about ("QP 0x12", "the CQ", "rxe0 port 1"); buf. */
const char *rp_verbs_async_element(const struct rp_verbs *v,
				   const struct ibv_async_event *ev,
				   char *buf, size_t len);

/* Report a failed ibv_reg_mr (errno e), with the memlock hint on ENOMEM. */
void rp_verbs_report_reg_failure(size_t len, const char *acc, int e);
/*
 * Report a failed post on QP qp (rc: its positive errno) with a hint;
 * returns RP_EVERBS.
 */
int rp_verbs_report_post(const struct rp_verbs *v, uint32_t qp,
			 const char *verb, enum post_kind kind,
			 uint64_t wr_id, int rc);

/*
 * The --trace text of each step that explains itself, so the steps read
 * as one line each. All print nothing when tracing is off.
 */
void rp_verbs_trace_device_caps(const char *dev,
				const struct ibv_device_attr *da);
void rp_verbs_trace_port(const char *dev, int port,
			 const struct ibv_port_attr *pa);
/* gid_str NULL: no local address to match (nothing to say). */
void rp_verbs_trace_gid_wanted(int gid_index, const char *gid_str,
			       const char *addr);
/* by_addr: the local address the GID was chosen for, NULL if by -g. */
void rp_verbs_trace_device_chosen(const struct rp_verbs *v,
				  const char *by_addr);
void rp_verbs_trace_pd(void);
void rp_verbs_trace_channel(const struct rp_verbs *v);
void rp_verbs_trace_cq(const struct rp_verbs *v,
		       const struct rp_verbs_cfg *cfg, uint64_t asked);
/* Why several QPs (said once, when there are). */
void rp_verbs_trace_qps(const struct rp_verbs *v);
/* The steps of QP i (v->qp[i]). */
void rp_verbs_trace_qp_created(const struct rp_verbs *v, uint32_t i,
			       const struct ibv_qp_cap *cap);
/* attr: the INIT attributes about to be applied (their access flags). */
void rp_verbs_trace_init(const struct rp_verbs *v, uint32_t i,
			 const struct ibv_qp_attr *attr);
void rp_verbs_trace_local_addr(const struct rp_verbs *v, uint32_t i);
void rp_verbs_trace_rtr(const struct rp_verbs *v, uint32_t i,
			const struct ibv_qp_attr *attr, enum ibv_mtu peer_mtu);
void rp_verbs_trace_rts(const struct rp_verbs *v, uint32_t i,
			const struct ibv_qp_attr *attr);
/* rd_atomic asked for, lowered to the device's limit dev_max (field). */
void rp_verbs_trace_rd_atomic_capped(uint32_t asked, int dev_max,
				     const char *field, const char *attr);
/* v->mr registered with the IBV_ACCESS_* flags ibv_flags, acc their text. */
void rp_verbs_trace_mr(const struct rp_verbs *v, unsigned int ibv_flags,
		       const char *acc);
/* A send-queue WR posted on QP qp; off: where its SGE starts in the ring. */
void rp_verbs_trace_post_send(const struct rp_verbs *v, uint32_t qp,
			      enum post_kind kind,
			      const struct ibv_send_wr *wr, size_t off);
/* A receive posted on QP qp; off: where its SGE starts (RECV_BUF). */
void rp_verbs_trace_post_recv(const struct rp_verbs *v, uint32_t qp,
			      enum post_kind kind,
			      const struct ibv_recv_wr *wr, size_t off);
void rp_verbs_trace_wc(const struct rp_verbs *v, const struct ibv_wc *wc,
		       const struct rp_wc *o);
void rp_verbs_trace_counters(const struct rp_verbs *v);

#endif
