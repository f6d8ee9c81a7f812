// SPDX-License-Identifier: MIT
/* The data ops table: each op's descriptor, by its wire value. A new op
 * is its file (session_op_NAME.c) plus its row here. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "session_op.h"

static const struct rp_data_ops *const ops[RP_OP_MAX] = {
	[RP_OP_WRITE] = &rp_data_op_write,
	[RP_OP_READ] = &rp_data_op_read,
	[RP_OP_SEND] = &rp_data_op_send,
};

const struct rp_data_ops *rp_data_op_get(uint8_t op)
{
	return op < RP_OP_MAX ? ops[op] : NULL;
}
