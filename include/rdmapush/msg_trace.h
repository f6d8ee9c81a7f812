/* SPDX-License-Identifier: MIT */
/*
 * --trace of the control messages (src/session_trace.c), shared by the
 * push and the ping: each message one "msg" event (and the QPs after the
 * first of a HELLO or MR, one "msg.qps" more) whose fields are the
 * message's. dir is "->" (we sent it) or "<-" (we got it).
 */
#ifndef RDMAPUSH_MSG_TRACE_H
#define RDMAPUSH_MSG_TRACE_H

#include <stdint.h>

#include "rdmapush/proto.h"

void trace_hello(const char *dir, const struct rp_hello *m);
void trace_mr(const char *dir, const struct rp_mr *m);
/* The QPs after the first of a HELLO or MR, one line, when there are. */
void trace_more_qps(const char *dir, const char *type,
		    const struct rp_qp_more *more, uint32_t qps);
void trace_fin(const char *dir, const struct rp_fin *m);
/* ACK, ERR, FACK (type says which). */
void trace_result(const char *dir, uint8_t type, const struct rp_result *m);

#endif
