// SPDX-License-Identifier: MIT
/* --trace of the control messages, each one "msg" event (and the QPs
 * after the first of a HELLO or MR, one "msg.qps" more): what each side
 * sent and got, its key fields as the event's fields. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

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

/* The first QP's address, as both HELLO and MR begin. */
#define QP_TMPL "{arrow} {type} qpn={qpn} psn={psn} lid={lid} mtu={mtu} " \
	"gid={gid}"
#define QP_FIELDS(dir, type, q, g)					\
	EV_T("arrow", dir), EV_S("dir", dir_name(dir)),			\
	EV_S("type", type), EV_X("qpn", (q)->qpn, 6),			\
	EV_X("psn", (q)->psn, 6), EV_U("lid", (q)->lid),		\
	EV_U("mtu", 128u << (q)->mtu),					\
	EV_S("gid", rp_sys_gid_text((q)->gid, g, sizeof(g)))

void trace_hello(const char *dir, const struct rp_hello *m)
{
	char g[INET6_ADDRSTRLEN], total[24];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", QP_TMPL " total={total_text} chunk={chunk} "
	      "window={window} op={op}{preserve_text}{ping_text}",
	      QP_FIELDS(dir, "HELLO", &m->qp, g),
	      EV_T("total_text", size_text(total, sizeof(total), m->total)),
	      EV_I("total", size_value(m->total)), EV_U("chunk", m->chunk),
	      EV_U("window", m->window), EV_S("op", rp_proto_op_name(m->op)),
	      EV_T("preserve_text",
		   m->flags & RP_HELLO_PRESERVE ? " preserve" : ""),
	      EV_B("preserve", m->flags & RP_HELLO_PRESERVE),
	      EV_T("ping_text", m->flags & RP_HELLO_PING ? " ping" : ""),
	      EV_B("ping", m->flags & RP_HELLO_PING),
	      EV_U("qps", m->qps));
	trace_more_qps(dir, "HELLO", m->more, m->qps);
}

void trace_file(const char *dir, const struct rp_file *m)
{
	char path[RP_PEER_TEXT_MAX], size[24];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", "{arrow} {type} id={id} {entry} path=\"{path}\" "
	      "mode={mode} size={size_text}", EV_T("arrow", dir),
	      EV_S("dir", dir_name(dir)), EV_S("type", "FILE"),
	      EV_U("id", m->id),
	      EV_S("entry", m->kind == RP_FILE_DIR ? "dir" : "file"),
	      EV_S("path", rp_fmt_peer(path, sizeof(path), m->path,
				       m->path_len)),
	      EV_O("mode", m->mode, 4),
	      EV_T("size_text", size_text(size, sizeof(size), m->size)),
	      EV_I("size", size_value(m->size)));
}

void trace_fend(const char *dir, const struct rp_fend *m)
{
	char hex[33];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", "{arrow} {type} id={id} bytes={bytes} "
	      "xxh3_128={xxh3_128}", EV_T("arrow", dir),
	      EV_S("dir", dir_name(dir)), EV_S("type", "FEND"),
	      EV_U("id", m->id), EV_U("bytes", m->bytes),
	      EV_S("xxh3_128", rp_csum_hex(m->csum, hex)));
}

void trace_mr(const char *dir, const struct rp_mr *m)
{
	char g[INET6_ADDRSTRLEN];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", QP_TMPL " addr={addr} rkey={rkey} len={len} "
	      "chunk={chunk} window={window}{norkey}",
	      QP_FIELDS(dir, "MR", &m->qp, g), EV_X("addr", m->addr, 0),
	      EV_X("rkey", m->rkey, 8), EV_U("len", m->len),
	      EV_U("chunk", m->chunk), EV_U("window", m->window),
	      EV_T("norkey", m->rkey ? "" : " (no rkey: no remote access to "
		   "this ring)"), EV_U("qps", m->qps));
	trace_more_qps(dir, "MR", m->more, m->qps);
}

void trace_fin(const char *dir, const struct rp_fin *m)
{
	RP_EV("ctrl", "msg", "{arrow} {type} files={files} bytes={bytes}",
	      EV_T("arrow", dir), EV_S("dir", dir_name(dir)),
	      EV_S("type", "FIN"), EV_U("files", m->files),
	      EV_U("bytes", m->bytes));
}

void trace_sync(const char *dir, const struct rp_sync *m)
{
	char a[32], b[32];

	if (!rp_trace_any())
		return;
	RP_EV("ctrl", "msg", "{arrow} {type} id={id} {synced_text} of "
	      "{total_text} on disk", EV_T("arrow", dir),
	      EV_S("dir", dir_name(dir)), EV_S("type", "SYNC"),
	      EV_U("id", m->id),
	      EV_T("synced_text", rp_fmt_bytes(a, sizeof(a), m->synced_bytes)),
	      EV_T("total_text", rp_fmt_bytes(b, sizeof(b), m->total_bytes)),
	      EV_U("synced_bytes", m->synced_bytes),
	      EV_U("total_bytes", m->total_bytes));
}

void trace_result(const char *dir, uint8_t type, const struct rp_result *m)
{
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

/* One field per QP after the first: "qp1.qpn", "qp1.psn", ... */
void trace_more_qps(const char *dir, const char *type,
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

void trace_data_summary(const struct xfer *x, uint64_t bytes, uint64_t files)
{
	double secs = x->data_end > x->data_start && x->data_start > 0 ?
		x->data_end - x->data_start : 0.0;
	char b[32], rate[32];

	if (!rp_trace_any())
		return;
	RP_EV("data", "data.summary", "data phase: {bytes} bytes "
	      "({bytes_text}) in {chunks} chunks, {files} entries, in {data_seconds} s "
	      "({rate}); {credits} credits {how}", EV_U("bytes", bytes),
	      EV_T("bytes_text", rp_fmt_bytes(b, sizeof(b), bytes)),
	      EV_U("chunks", x->done), EV_U("files", files),
	      EV_D("data_seconds", secs, 6),
	      EV_T("rate", rp_fmt_rate(rate, sizeof(rate), bytes, secs)),
	      EV_U("credits", x->credits),
	      EV_T("how", !strcmp(x->rep.role, "send") ?
		   "from the receiver" : "sent to the sender"),
	      EV_U("chunk", x->chunk), EV_U("window", x->window),
	      EV_U("qps", x->qps), EV_S("op", rp_proto_op_name(x->op)));
}

void trace_dir(const struct rp_file *f, const char *result)
{
	char shown[RP_PEER_TEXT_MAX];

	if (!rp_trace_any())
		return;
	RP_EV("file", "file.dir", "directory \"{path}\" {result}",
	      EV_S("path", rp_fmt_peer(shown, sizeof(shown), f->path,
				       f->path_len)),
	      EV_S("result", result), EV_U("id", f->id));
}
