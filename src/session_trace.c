// SPDX-License-Identifier: MIT
/* --trace of the control messages, each one line (and the QPs after the
 * first of a HELLO or MR, one more): what each side sent and got. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>

#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

static void trace_qp(const char *dir, const char *type,
		     const struct rp_qp_addr *q, const char *rest)
{
	char g[INET6_ADDRSTRLEN];

	RP_TRACE("ctrl", "%s %s qpn=0x%06x psn=0x%06x lid=%u mtu=%u gid=%s%s",
		 dir, type, q->qpn, q->psn, q->lid, 128u << q->mtu,
		 rp_sys_gid_text(q->gid, g, sizeof(g)), rest);
}

/* A byte count that may be unknown (a stream). */
static const char *size_text(char *buf, size_t len, uint64_t size)
{
	if (size == RP_SIZE_UNKNOWN)
		return "unknown";
	snprintf(buf, len, "%" PRIu64, size);
	return buf;
}

void trace_hello(const char *dir, const struct rp_hello *m)
{
	char rest[160], total[24];

	if (!rp_trace_on())
		return;
	snprintf(rest, sizeof(rest),
		 " total=%s chunk=%u window=%u op=%s%s",
		 size_text(total, sizeof(total), m->total), m->chunk,
		 m->window, rp_proto_op_name(m->op),
		 m->flags & RP_HELLO_PRESERVE ? " preserve" : "");
	trace_qp(dir, "HELLO", &m->qp, rest);
	trace_more_qps(dir, "HELLO", m->more, m->qps);
}

void trace_file(const char *dir, const struct rp_file *m)
{
	char path[RP_PEER_TEXT_MAX], size[24];

	if (!rp_trace_on())
		return;
	RP_TRACE("ctrl", "%s FILE id=%u %s path=\"%s\" mode=%04o size=%s",
		 dir, m->id, m->kind == RP_FILE_DIR ? "dir" : "file",
		 rp_fmt_peer(path, sizeof(path), m->path, m->path_len),
		 m->mode, size_text(size, sizeof(size), m->size));
}

void trace_fend(const char *dir, const struct rp_fend *m)
{
	char hex[33];

	RP_TRACE("ctrl", "%s FEND id=%u bytes=%" PRIu64 " xxh3_128=%s", dir,
		 m->id, m->bytes, rp_csum_hex(m->csum, hex));
}

void trace_mr(const char *dir, const struct rp_mr *m)
{
	char rest[160];

	if (!rp_trace_on())
		return;
	snprintf(rest, sizeof(rest),
		 " addr=0x%" PRIx64 " rkey=0x%08x len=%" PRIu64
		 " chunk=%u window=%u%s",
		 m->addr, m->rkey, m->len, m->chunk, m->window,
		 m->rkey ? "" : " (no rkey: no remote access to this ring)");
	trace_qp(dir, "MR", &m->qp, rest);
	trace_more_qps(dir, "MR", m->more, m->qps);
}

void trace_fin(const char *dir, const struct rp_fin *m)
{
	RP_TRACE("ctrl", "%s FIN files=%" PRIu64 " bytes=%" PRIu64, dir,
		 m->files, m->bytes);
}

void trace_sync(const char *dir, const struct rp_sync *m)
{
	char a[32], b[32];

	RP_TRACE("ctrl", "%s SYNC id=%u %s of %s on disk", dir, m->id,
		 rp_fmt_bytes(a, sizeof(a), m->synced_bytes),
		 rp_fmt_bytes(b, sizeof(b), m->total_bytes));
}

void trace_result(const char *dir, uint8_t type, const struct rp_result *m)
{
	char text[RP_PEER_TEXT_MAX], id[24] = "";

	if (!rp_trace_on())
		return;
	if (type == RP_MSG_FACK)
		snprintf(id, sizeof(id), " id=%u", m->id);
	RP_TRACE("ctrl", "%s %s%s status=%u (%s) bytes=%" PRIu64 "%s%s%s",
		 dir, rp_proto_type_name(type), id, m->status,
		 rp_proto_status_name(m->status), m->bytes,
		 m->text_len ? " text=\"" : "",
		 rp_fmt_peer(text, sizeof(text), m->text, m->text_len),
		 m->text_len ? "\"" : "");
}

void trace_more_qps(const char *dir, const char *type,
		    const struct rp_qp_more *more, uint32_t qps)
{
	char line[RP_QPS_MAX * 32];
	size_t n = 0;

	if (!rp_trace_on() || qps < 2)
		return;
	for (uint32_t i = 1; i < qps && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      " QP%u qpn=0x%06x psn=0x%06x", i,
				      more[i - 1].qpn, more[i - 1].psn);
	RP_TRACE("ctrl", "%s %s (cont.) %u QPs, the first above;%s", dir,
		 type, qps, line);
}
