/* SPDX-License-Identifier: MIT */
/*
 * --trace of the control messages (src/msg_trace.c), shared by the push
 * and the ping: each message one "msg" event (and the QPs after the
 * first of a HELLO or MR, one "msg.qps" more) whose fields are the
 * message's. These are the trace column of the message table
 * (proto_msgs.h); call them through rp_msg_trace(). dir is "->" (we
 * sent it) or "<-" (we got it); m points to the struct of type.
 */
#ifndef RDMAPUSH_MSG_TRACE_H
#define RDMAPUSH_MSG_TRACE_H

#include <stdint.h>

#include "rdmapush/proto.h"

void rp_trace_msg_hello(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_mr(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_fin(const char *dir, uint8_t type, const void *m);
/* ACK, ERR, FACK (type says which). */
void rp_trace_msg_result(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_auth(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_sync(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_file(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_fend(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_have(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_from(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_reconnect(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_chain(const char *dir, uint8_t type, const void *m);
void rp_trace_msg_host(const char *dir, uint8_t type, const void *m);

#endif
