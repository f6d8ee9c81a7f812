/* SPDX-License-Identifier: MIT */
/*
 * The control messages as one table (src/proto_msgs.c): for each type its
 * name, its encoder and decoder (proto.c), its --trace line
 * (msg_trace.c), and who may send it in which stage of the protocol.
 * Decoding, tracing and "may this come now" are lookups in it; a new
 * message type is one row plus its codec functions.
 */
#ifndef RDMAPUSH_PROTO_MSGS_H
#define RDMAPUSH_PROTO_MSGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmapush/proto.h"

/* Any decoded control message. */
union rp_msg {
	struct rp_hello hello;
	struct rp_mr mr;
	struct rp_fin fin;
	struct rp_auth auth;
	struct rp_sync sync;
	struct rp_file file;
	struct rp_fend fend;
	struct rp_result res;	/* ACK, ERR, FACK */
	struct rp_have have;	/* version 7 */
	struct rp_from from;
	struct rp_reconnect reconnect;
	struct rp_chain_msg chain;	/* chain push */
	struct rp_host_msg host;
};

/* A set of message types, as a receive wants them. */
#define RP_MSG_BIT(type)	(1u << (type))

/* The two ends of a session (a ping's client sends as a sender does). */
enum rp_msg_side {
	RP_SIDE_SENDER = 1u << 0,
	RP_SIDE_RECEIVER = 1u << 1,
	RP_SIDE_BOTH = RP_SIDE_SENDER | RP_SIDE_RECEIVER,
};

/* The stages of the protocol, in order (see proto.h's versions). */
enum rp_msg_stage {
	RP_STAGE_AUTH,		/* --psk: the AUTH exchange */
	RP_STAGE_HELLO,		/* the sender's HELLO, the receiver's MR */
	RP_STAGE_SETUP,		/* the sender's MR (--op read, ping write) */
	RP_STAGE_FILES,		/* entries until FIN, their results */
	RP_STAGE_END,		/* after FIN: the last results and ACK */
	RP_STAGE_MAX
};

struct rp_msg_desc {
	const char *name;	/* "HELLO": in traces and errors */
	/* Encode the whole message m (the struct of this type) into buf:
	 * as rp_proto_pack_*(). */
	int (*pack)(uint8_t *buf, size_t len, uint8_t type, const void *m);
	/* Decode a payload into m: as rp_proto_unpack_*(). */
	int (*unpack)(const uint8_t *p, size_t len, uint8_t type,
		      union rp_msg *m, const char **why);
	/* Its "msg" trace event; dir "->" (sent) or "<-" (got). */
	void (*trace)(const char *dir, uint8_t type, const void *m);
	/* Per stage: the sides (enum rp_msg_side) that may send it then. */
	uint8_t from[RP_STAGE_MAX];
	/* Only right after a message that announces it (CHAIN after a
	 * HELLO with RP_HELLO_CHAIN): never in rp_msg_expect()'s sets,
	 * the receiver asks for it by its bit. */
	bool announced;
};

/* The row of type, or NULL for a type the protocol does not have. */
const struct rp_msg_desc *rp_msg_desc(unsigned int type);
/* The types side may send in stage (ERR in every stage), but those
 * sent only when announced. */
uint32_t rp_msg_expect(enum rp_msg_side side, enum rp_msg_stage stage);
/*
 * Encode m (the struct of type) into buf: the number of bytes (> 0), or
 * RP_EPROTO (a field out of range, or a type with no encoder), -ENOBUFS.
 */
int rp_msg_pack(uint8_t *buf, size_t len, uint8_t type, const void *m);
/* Decode a payload of type: 0, or RP_EPROTO (malformed) or
 * RP_EUNEXPECTED (no such type) with *why set. */
int rp_msg_unpack(uint8_t type, const uint8_t *p, size_t len,
		  union rp_msg *m, const char **why);
/* Trace m (the struct of type), sent ("->") or received ("<-"). */
void rp_msg_trace(const char *dir, uint8_t type, const void *m);
/* The names in set: "HELLO", "FACK or SYNC", "FILE, FEND or FIN". */
const char *rp_msg_set_name(uint32_t set, char *buf, size_t len);

#endif
