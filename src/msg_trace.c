// SPDX-License-Identifier: MIT
/* --trace of the control messages, each one "msg" event (and the QPs
 * after the first of a HELLO or MR, one "msg.qps" more): what each side
 * sent and got, its key fields as the event's fields. The message
 * table's trace column (proto_msgs.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/csum.h"
#include "rdmapush/msg_trace.h"
#include "rdmapush/proto_msgs.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

/* "->" (we sent it) is "out" in the fields, "<-" is "in". */
static const char *dir_name(const char *dir)
{
	return dir[0] == '-' ? "out" : "in";
}

/* A byte count that may be unknown (a stream): its text; -1 in JSON. */
static const char *size_text(char *buf, size_t len, uint64_t size)
{
	if (size == RP_SIZE_UNKNOWN)
		return "unknown";
	snprintf(buf, len, "%" PRIu64, size);
	return buf;
}

static int64_t size_value(uint64_t size)
{
	return size == RP_SIZE_UNKNOWN ? -1 : (int64_t)size;
}

/* One field per QP after the first: "qp1.qpn", "qp1.psn", ... */
static void more_qps(const char *dir, const char *type,
		    const struct rp_qp_more *more, uint32_t qps)
{
	struct rp_ev_field f[2 * RP_QPS_MAX + 5];
	char keys[2 * RP_QPS_MAX][24];
	char line[RP_QPS_MAX * 32];
	size_t n = 0, k = 0, len = 0;

	if (!rp_trace_any() || qps < 2)
		return;
	for (uint32_t i = 1; i < qps && len < sizeof(line); i++) {
		len += (size_t)snprintf(line + len, sizeof(line) - len,
					" QP%u qpn=0x%06x psn=0x%06x", i,
					more[i - 1].qpn, more[i - 1].psn);
		snprintf(keys[k], sizeof(keys[k]), "qp%u.qpn", i);
		f[n++] = (struct rp_ev_field)EV_U(keys[k], more[i - 1].qpn);
		k++;
		snprintf(keys[k], sizeof(keys[k]), "qp%u.psn", i);
		f[n++] = (struct rp_ev_field)EV_U(keys[k], more[i - 1].psn);
		k++;
	}
	f[n++] = (struct rp_ev_field)EV_T("arrow", dir);
	f[n++] = (struct rp_ev_field)EV_S("dir", dir_name(dir));
	f[n++] = (struct rp_ev_field)EV_S("type", type);
	f[n++] = (struct rp_ev_field)EV_U("qps", qps);
	f[n++] = (struct rp_ev_field)EV_T("list", line);
	rp_trace_event("ctrl", "msg.qps", "{arrow} {type} (cont.) {qps} QPs, "
		       "the first above;{list}", f, n);
}


/* The first QP's address, as both HELLO and MR begin. */
#define QP_TMPL "{arrow} {type} qpn={qpn} psn={psn} lid={lid} mtu={mtu} " \
	"gid={gid}"
#define QP_FIELDS(dir, type, q, g)					\
	EV_T("arrow", dir), EV_S("dir", dir_name(dir)),			\
	EV_S("type", type), EV_X("qpn", (q)->qpn, 6),			\
	EV_X("psn", (q)->psn, 6), EV_U("lid", (q)->lid),		\
	EV_U("mtu", 128u << (q)->mtu),					\
	EV_S("gid", rp_sys_gid_text((q)->gid, g, sizeof(g)))

void rp_trace_msg_hello(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_hello *m = msg;
	char g[INET6_ADDRSTRLEN], total[24];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", QP_TMPL " total={total_text} chunk={chunk} "
	      "window={window} op={op}{preserve_text}{ping_text}{chain_text}",
	      QP_FIELDS(dir, rp_proto_type_name(type), &m->qp, g),
	      EV_T("total_text", size_text(total, sizeof(total), m->total)),
	      EV_I("total", size_value(m->total)), EV_U("chunk", m->chunk),
	      EV_U("window", m->window), EV_S("op", rp_proto_op_name(m->op)),
	      EV_T("preserve_text",
		   m->flags & RP_HELLO_PRESERVE ? " preserve" : ""),
	      EV_B("preserve", m->flags & RP_HELLO_PRESERVE),
	      EV_T("ping_text", m->flags & RP_HELLO_PING ? " ping" : ""),
	      EV_B("ping", m->flags & RP_HELLO_PING),
	      /* Text only: a HELLO of one host traces as it always did,
	       * in JSON too; its CHAIN says the rest. */
	      EV_T("chain_text", m->flags & RP_HELLO_CHAIN ? " chain" : ""),
	      EV_U("qps", m->qps));
	more_qps(dir, rp_proto_type_name(type), m->more, m->qps);
}

/* FILE's fields as in version 6: all a FILE without want or update has. */
#define FILE_V6_FIELDS	9
#define FILE_V6_TMPL	"{arrow} {type} id={id} {entry} path=\"{path}\" " \
	"mode={mode} size={size_text}"

/*
 * Version 7's want and update only when set: a FILE without them traces
 * exactly as in version 6, in text and in JSON.
 */
static void trace_file(const char *dir, uint8_t type, const struct rp_file *m)
{
	char path[RP_PEER_TEXT_MAX], size[24], upd[32] = "", hex[33];
	const struct rp_ev_field f[] = {
		EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
		EV_S("type", rp_proto_type_name(type)),
		EV_U("id", m->id),
		EV_S("entry", m->kind == RP_FILE_DIR ? "dir" : "file"),
		EV_S("path", rp_fmt_peer(path, sizeof(path), m->path,
					 m->path_len)),
		EV_O("mode", m->mode, 4),
		EV_T("size_text", size_text(size, sizeof(size), m->size)),
		EV_I("size", size_value(m->size)),
		/* FILE_V6_FIELDS so far; the rest only with want or update. */
		EV_T("resume_text", m->want & RP_WANT_RESUME ? " resume" : ""),
		EV_B("resume", m->want & RP_WANT_RESUME),
		EV_T("update_text", upd),
		EV_S("update", rp_proto_update_name(m->update)),
		/* Last: only with update checksum. */
		EV_S("xxh3_128", rp_csum_hex(m->csum, hex)),
	};
	size_t n = sizeof(f) / sizeof(f[0]);

	if (!m->want && !m->update) {
		rp_trace_event("ctrl", "msg", FILE_V6_TMPL, f, FILE_V6_FIELDS);
		return;
	}
	if (m->update)
		snprintf(upd, sizeof(upd), " update=%s",
			 rp_proto_update_name(m->update));
	if (m->update != RP_UPDATE_CHECKSUM)
		n--;
	rp_trace_event("ctrl", "msg", FILE_V6_TMPL "{resume_text}{update_text}",
		       f, n);
}

void rp_trace_msg_file(const char *dir, uint8_t type, const void *msg)
{
	if (rp_trace_any())
		trace_file(dir, type, msg);
}

void rp_trace_msg_fend(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_fend *m = msg;
	char hex[33];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", "{arrow} {type} id={id} bytes={bytes} "
	      "xxh3_128={xxh3_128}", EV_T("arrow", dir),
	      EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)),
	      EV_U("id", m->id), EV_U("bytes", m->bytes),
	      EV_S("xxh3_128", rp_csum_hex(m->csum, hex)));
}

void rp_trace_msg_have(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_have *m = msg;
	char hex[33], b[32], text[80] = "";

	if (!rp_trace_any())
		return;
	if (m->verdict == RP_HAVE_PARTIAL)
		snprintf(text, sizeof(text), " bytes=%" PRIu64 " (%s) "
			 "xxh3_128=%s", m->bytes,
			 rp_fmt_bytes(b, sizeof(b), m->bytes),
			 rp_csum_hex(m->csum, hex));
	RP_EV("ctrl", "msg", "{arrow} {type} id={id} {verdict}{partial}",
	      EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)),
	      EV_U("id", m->id),
	      EV_S("verdict", rp_proto_have_name(m->verdict)),
	      EV_T("partial", text), EV_U("bytes", m->bytes),
	      EV_S("xxh3_128", rp_csum_hex(m->csum, hex)));
}

void rp_trace_msg_from(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_from *m = msg;

	RP_EV("ctrl", "msg", "{arrow} {type} id={id} offset={offset}",
	      EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)),
	      EV_U("id", m->id), EV_U("offset", m->offset));
}

/* The new QPs: QP 0 on the line, the others as HELLO's ("msg.qps"). */
void rp_trace_msg_reconnect(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_reconnect *m = msg;

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", "{arrow} {type} attempt={attempt} "
	      "next_chunk={next_chunk} qpn={qpn} psn={psn} qps={qps}",
	      EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)),
	      EV_U("attempt", m->attempt),
	      EV_U("next_chunk", m->next_chunk),
	      EV_X("qpn", m->qp[0].qpn, 6), EV_X("psn", m->qp[0].psn, 6),
	      EV_U("qps", m->qps));
	more_qps(dir, rp_proto_type_name(type), m->qp + 1, m->qps);
}

void rp_trace_msg_mr(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_mr *m = msg;
	char g[INET6_ADDRSTRLEN];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", QP_TMPL " addr={addr} rkey={rkey} len={len} "
	      "chunk={chunk} window={window}{norkey}",
	      QP_FIELDS(dir, rp_proto_type_name(type), &m->qp, g),
	      EV_X("addr", m->addr, 0),
	      EV_X("rkey", m->rkey, 8), EV_U("len", m->len),
	      EV_U("chunk", m->chunk), EV_U("window", m->window),
	      EV_T("norkey", m->rkey ? "" : " (no rkey: no remote access to "
		   "this ring)"), EV_U("qps", m->qps));
	more_qps(dir, rp_proto_type_name(type), m->more, m->qps);
}

void rp_trace_msg_fin(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_fin *m = msg;
	RP_EV("ctrl", "msg", "{arrow} {type} files={files} bytes={bytes}",
	      EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)), EV_U("files", m->files),
	      EV_U("bytes", m->bytes));
}

void rp_trace_msg_sync(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_sync *m = msg;
	char a[32], b[32];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", "{arrow} {type} id={id} {synced_text} of "
	      "{total_text} on disk", EV_T("arrow", dir),
	      EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)),
	      EV_U("id", m->id),
	      EV_T("synced_text", rp_fmt_bytes(a, sizeof(a), m->synced_bytes)),
	      EV_T("total_text", rp_fmt_bytes(b, sizeof(b), m->total_bytes)),
	      EV_U("synced_bytes", m->synced_bytes),
	      EV_U("total_bytes", m->total_bytes));
}

void rp_trace_msg_result(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_result *m = msg;
	char text[RP_PEER_TEXT_MAX], id[24] = "";
	bool q = m->text_len;

	if (!rp_trace_any())
		return;
	if (type == RP_MSG_FACK)
		snprintf(id, sizeof(id), " id=%u", m->id);
	RP_EV("ctrl", "msg", "{arrow} {type}{id_text} status={status} "
	      "({status_name}) bytes={bytes}{q1}{text}{q2}",
	      EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)), EV_T("id_text", id),
	      EV_U("id", m->id), EV_U("status", m->status),
	      EV_S("status_name", rp_proto_status_name(m->status)),
	      EV_U("bytes", m->bytes), EV_T("q1", q ? " text=\"" : ""),
	      EV_S("text", rp_fmt_peer(text, sizeof(text), m->text,
				       m->text_len)),
	      EV_T("q2", q ? "\"" : ""));
}

/* Ours carries what it is for; the peer's, only its step. */
void rp_trace_msg_auth(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_auth *a = msg;

	if (dir[0] == '-')
		RP_EV("ctrl", "msg", "-> {type} step {step} ({what})",
		      EV_S("dir", "out"),
		      EV_S("type", rp_proto_type_name(type)),
		      EV_U("step", a->step),
		      EV_S("what", a->step == RP_AUTH_CHALLENGE ? "our nonce" :
			   "our proof of the key"));
	else
		RP_EV("ctrl", "msg", "<- {type} step {step}",
		      EV_S("dir", "in"), EV_S("type", rp_proto_type_name(type)),
		      EV_U("step", a->step));
}

/* How many hops and the next one (the receiver's downstream), escaped:
 * a name came from the peer. */
void rp_trace_msg_chain(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_chain_msg *m = msg;
	const struct rp_host *next = m->hop ? &m->hop[0] : &m->first;
	char name[RP_PEER_TEXT_MAX];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", "{arrow} {type} hops={hops} next={next}:{port}",
	      EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)), EV_U("hops", m->n),
	      EV_S("next", rp_fmt_peer(name, sizeof(name), next->name,
				       strlen(next->name))),
	      EV_U("port", next->port));
}

/* A later host's result; its text came from a peer: escaped. */
void rp_trace_msg_host(const char *dir, uint8_t type, const void *msg)
{
	const struct rp_host_msg *m = msg;
	char text[RP_PEER_TEXT_MAX];
	bool q = m->text_len;

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", "{arrow} {type} hop={hop} status={status} "
	      "({status_name}) files={files} failed={failed} bytes={bytes}"
	      "{q1}{text}{q2}",
	      EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
	      EV_S("type", rp_proto_type_name(type)), EV_U("hop", m->hop),
	      EV_U("status", m->status),
	      EV_S("status_name", rp_proto_status_name(m->status)),
	      EV_U("files", m->files), EV_U("failed", m->failed),
	      EV_U("bytes", m->bytes), EV_T("q1", q ? " text=\"" : ""),
	      EV_S("text", rp_fmt_peer(text, sizeof(text), m->text,
				       m->text_len)),
	      EV_T("q2", q ? "\"" : ""));
}
