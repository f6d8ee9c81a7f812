// SPDX-License-Identifier: MIT
/* The control messages' table: per type its name, codec, tracer and who
 * may send it when. proto.c stays the pure codec; this is its index. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/msg_trace.h"
#include "rdmapush/proto_msgs.h"
#include "rdmapush/trace.h"

/* The codec's functions, each in the table's one shape. */
#define PACK(name, st)							\
static int pack_##name(uint8_t *buf, size_t len, uint8_t type,	\
		       const void *m)					\
{									\
	(void)type;							\
	return rp_proto_pack_##name(buf, len, (const struct st *)m);	\
}
#define UNPACK(name, field)						\
static int unpack_##name(const uint8_t *p, size_t len, uint8_t type,	\
			 union rp_msg *m, const char **why)		\
{									\
	(void)type;							\
	return rp_proto_unpack_##name(p, len, &m->field, why);		\
}

PACK(hello, rp_hello)
PACK(mr, rp_mr)
PACK(fin, rp_fin)
PACK(auth, rp_auth)
PACK(sync, rp_sync)
PACK(file, rp_file)
PACK(fend, rp_fend)
PACK(have, rp_have)
PACK(from, rp_from)
PACK(reconnect, rp_reconnect)
PACK(chain, rp_chain_msg)
PACK(host, rp_host_msg)
UNPACK(hello, hello)
UNPACK(mr, mr)
UNPACK(fin, fin)
UNPACK(auth, auth)
UNPACK(sync, sync)
UNPACK(file, file)
UNPACK(fend, fend)
UNPACK(have, have)
UNPACK(from, from)
UNPACK(reconnect, reconnect)
UNPACK(chain, chain)
UNPACK(host, host)

/* ACK, ERR and FACK share one layout; the type tells FACK's id. */
static int pack_result(uint8_t *buf, size_t len, uint8_t type, const void *m)
{
	return rp_proto_pack_result(buf, len, type, m);
}

static int unpack_result(const uint8_t *p, size_t len, uint8_t type,
			 union rp_msg *m, const char **why)
{
	return rp_proto_unpack_result(p, len, type, &m->res, why);
}

#define S RP_SIDE_SENDER
#define R RP_SIDE_RECEIVER
#define B RP_SIDE_BOTH
#define ROW(nm, codec, tr)						\
	.name = nm, .pack = pack_##codec, .unpack = unpack_##codec,	\
	.trace = rp_trace_msg_##tr

/*
 * Who may send what when, by stage: see proto.h for the story. A side
 * not listed for a stage gets "expected X, got Y" (RP_EUNEXPECTED).
 */
static const struct rp_msg_desc msgs[RP_MSG_TYPE_MAX] = {
	[RP_MSG_AUTH] = { ROW("AUTH", auth, auth),
		.from = { [RP_STAGE_AUTH] = B } },
	[RP_MSG_HELLO] = { ROW("HELLO", hello, hello),
		.from = { [RP_STAGE_HELLO] = S } },
	[RP_MSG_MR] = { ROW("MR", mr, mr),
		.from = { [RP_STAGE_HELLO] = R, [RP_STAGE_SETUP] = S } },
	[RP_MSG_FILE] = { ROW("FILE", file, file),
		.from = { [RP_STAGE_FILES] = S } },
	[RP_MSG_FEND] = { ROW("FEND", fend, fend),
		.from = { [RP_STAGE_FILES] = S } },
	[RP_MSG_FIN] = { ROW("FIN", fin, fin),
		.from = { [RP_STAGE_FILES] = S } },
	[RP_MSG_SYNC] = { ROW("SYNC", sync, sync),
		.from = { [RP_STAGE_FILES] = R, [RP_STAGE_END] = R } },
	[RP_MSG_FACK] = { ROW("FACK", result, result),
		.from = { [RP_STAGE_FILES] = R, [RP_STAGE_END] = R } },
	/* Version 7: a file's resume or update, and a link's comeback. */
	[RP_MSG_HAVE] = { ROW("HAVE", have, have),
		.from = { [RP_STAGE_FILES] = R } },
	[RP_MSG_FROM] = { ROW("FROM", from, from),
		.from = { [RP_STAGE_FILES] = S } },
	[RP_MSG_RECONNECT] = { ROW("RECONNECT", reconnect, reconnect),
		.from = { [RP_STAGE_FILES] = B, [RP_STAGE_END] = B } },
	/* A chain push: right after its HELLO, which says so (the
	 * receiver asks for it alone then, and never otherwise). */
	[RP_MSG_CHAIN] = { ROW("CHAIN", chain, chain),
		.from = { [RP_STAGE_HELLO] = S }, .announced = true },
	/* A chain push's later hosts, each once, before the ACK. */
	[RP_MSG_HOST] = { ROW("HOST", host, host),
		.from = { [RP_STAGE_END] = R } },
	[RP_MSG_ACK] = { ROW("ACK", result, result),
		.from = { [RP_STAGE_END] = R } },
	/* Either side may stop at any time, saying why. */
	[RP_MSG_ERR] = { ROW("ERR", result, result),
		.from = { B, B, B, B, B } },
};

_Static_assert(RP_STAGE_MAX == 5, "ERR's row names every stage");
_Static_assert(RP_MSG_TYPE_MAX <= 32, "a set of types fits a uint32_t");

const struct rp_msg_desc *rp_msg_desc(unsigned int type)
{
	if (type >= RP_MSG_TYPE_MAX || !msgs[type].name)
		return NULL;
	return &msgs[type];
}

const char *rp_proto_type_name(unsigned int type)
{
	const struct rp_msg_desc *d = rp_msg_desc(type);

	return d ? d->name : "?";
}

uint32_t rp_msg_expect(enum rp_msg_side side, enum rp_msg_stage stage)
{
	uint32_t set = 0;

	for (unsigned int t = 0; t < RP_MSG_TYPE_MAX; t++)
		if (msgs[t].name && !msgs[t].announced &&
		    stage < RP_STAGE_MAX && (msgs[t].from[stage] & side))
			set |= RP_MSG_BIT(t);
	return set;
}

int rp_msg_pack(uint8_t *buf, size_t len, uint8_t type, const void *m)
{
	const struct rp_msg_desc *d = rp_msg_desc(type);

	return d ? d->pack(buf, len, type, m) : RP_EPROTO;
}

int rp_msg_unpack(uint8_t type, const uint8_t *p, size_t len,
		  union rp_msg *m, const char **why)
{
	const struct rp_msg_desc *d = rp_msg_desc(type);

	if (!d) {
		/* The peer chose the type: its violation, not our bug. */
		*why = "not a message we wait for";
		return RP_EUNEXPECTED;
	}
	return d->unpack(p, len, type, m, why);
}

void rp_msg_trace(const char *dir, uint8_t type, const void *m)
{
	const struct rp_msg_desc *d = rp_msg_desc(type);

	if (d && rp_trace_any())
		d->trace(dir, type, m);
}

const char *rp_msg_set_name(uint32_t set, char *buf, size_t len)
{
	unsigned int n = 0, left;
	size_t at = 0;

	/* ERR may always come: naming it says nothing. */
	set &= ~RP_MSG_BIT(RP_MSG_ERR);
	left = (unsigned int)__builtin_popcount(set);
	buf[0] = '\0';
	for (unsigned int t = 0; t < RP_MSG_TYPE_MAX && at < len; t++) {
		if (!(set & RP_MSG_BIT(t)))
			continue;
		left--;
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !n ? "" : left ? ", " : " or ",
				       rp_proto_type_name(t));
		n++;
	}
	return buf;
}
