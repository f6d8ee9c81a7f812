// SPDX-License-Identifier: MIT
/* The part of the verbs interface that does not depend on the backend:
 * linked with the real libibverbs backend and with the in-memory fabric
 * alike, so neither repeats it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "rdmapush/verbs.h"

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
	case RP_WC_OTHER:
		return "OTHER";
	}
	return "?";
}
