// SPDX-License-Identifier: MIT
/* The part of the verbs interface that does not depend on the backend:
 * linked with the real libibverbs backend and with the in-memory fabric
 * alike, so neither repeats it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "rdmapush/err.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

int rp_verbs_check_open(struct rp_verbs **out, const struct rp_verbs_cfg *cfg)
{
	if (!out || !cfg) {
		RP_ERR("rp_verbs_open: NULL argument");
		return RP_EINTERNAL;
	}
	*out = NULL;
	if (!cfg->max_send_wr || !cfg->max_recv_wr) {
		RP_ERR("rp_verbs_open: max_send_wr %u and max_recv_wr %u must "
		       "be non-zero", cfg->max_send_wr, cfg->max_recv_wr);
		return RP_EINTERNAL;
	}
	if (cfg->qps > RP_QPS_MAX) {
		RP_ERR("rp_verbs_open: %u QPs asked for, at most %u",
		       cfg->qps, RP_QPS_MAX);
		return RP_EINTERNAL;
	}
	return 0;
}

int rp_verbs_check_connect(const struct rp_verbs *v,
			   const struct rp_qp_addr *peer, uint32_t n)
{
	uint32_t ours = rp_verbs_qps(v);

	if (v && peer && n == ours)
		return 0;
	RP_ERR("rp_verbs_connect: NULL argument, or %u peer QPs for our %u",
	       n, ours);
	return RP_EINTERNAL;
}

int rp_verbs_check_qp(uint32_t qp, uint32_t qps, const char *verb)
{
	if (qp < qps)
		return 0;
	RP_ERR("%s: QP index %u, but %u QP%s open", verb, qp, qps,
	       qps == 1 ? " is" : "s are");
	return RP_EINTERNAL;
}

/* rxe refuses a single RDMA Write or Read WR longer than 2^31 bytes. */
#define MAX_WR_BYTES	(1u << 31)

int rp_verbs_check_write(size_t ring_len, size_t off, uint32_t len)
{
	if (off > ring_len || len > ring_len - off) {
		RP_ERR("rp_verbs_post: [%zu, +%u) is outside the ring of %zu "
		       "bytes", off, len, ring_len);
		return RP_EINTERNAL;
	}
	if (len > MAX_WR_BYTES) {
		RP_ERR("rp_verbs_post: %u bytes in one WR; rxe refuses more "
		       "than 2^31", len);
		return RP_EINTERNAL;
	}
	return 0;
}

const char *rp_wc_op_name(enum rp_wc_op op)
{
	switch (op) {
	case RP_WC_WRITE:
		return "WRITE";
	case RP_WC_SEND:
		return "SEND";
	case RP_WC_RECV_WRITE_IMM:
		return "RECV_RDMA_WITH_IMM";
	case RP_WC_RECV_SEND_IMM:
		return "RECV_WITH_IMM";
	case RP_WC_READ:
		return "RDMA_READ";
	case RP_WC_OTHER:
		return "OTHER";
	}
	return "?";
}
