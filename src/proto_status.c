// SPDX-License-Identifier: MIT
/* The control protocol's names: wire status codes, data ops, update
 * levels and HAVE verdicts, and the
 * mapping between wire status codes and local errors. The message types'
 * names are in their table (proto_msgs.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdbool.h>

#include "rdmapush/err.h"
#include "rdmapush/proto.h"

/* Linux never returns an errno above this (MAX_ERRNO in the kernel). */
#define ERRNO_MAX		4095

static const char *const status_names[RP_ST_MAX] = {
	[RP_ST_OK] = "ok",
	[RP_ST_EXISTS] = "file exists",
	[RP_ST_BADNAME] = "bad file name",
	[RP_ST_NOSPACE] = "not enough space",
	[RP_ST_LIMIT] = "limit exceeded",
	[RP_ST_BUSY] = "receiver busy",
	[RP_ST_PROTO] = "protocol error",
	[RP_ST_CHECKSUM] = "checksum mismatch",
	[RP_ST_IO] = "I/O error on receiver",
	[RP_ST_RDMA] = "RDMA failure",
	[RP_ST_AUTH] = "authentication failed",
	[RP_ST_VERSION] = "unsupported version",
	[RP_ST_TIMEOUT] = "timed out",
	[RP_ST_INTERNAL] = "internal error",
	[RP_ST_ABORTED] = "aborted by peer",
	[RP_ST_TAMPERED] = "integrity check failed",
};

static const char *const op_names[RP_OP_MAX] = {
	[RP_OP_WRITE] = "write",
	[RP_OP_READ] = "read",
	[RP_OP_SEND] = "send",
};

const char *rp_proto_op_name(unsigned int op)
{
	return op < RP_OP_MAX ? op_names[op] : "?";
}

static const char *const update_names[RP_UPDATE_MAX] = {
	[RP_UPDATE_NONE] = "none",
	[RP_UPDATE_EXISTS] = "exists",
	[RP_UPDATE_SIZE] = "size",
	[RP_UPDATE_MTIME] = "mtime",
	[RP_UPDATE_CHECKSUM] = "checksum",
};

const char *rp_proto_update_name(unsigned int update)
{
	return update < RP_UPDATE_MAX ? update_names[update] : "?";
}

static const char *const have_names[RP_HAVE_MAX] = {
	[RP_HAVE_NONE] = "none",
	[RP_HAVE_UPTODATE] = "up-to-date",
	[RP_HAVE_PARTIAL] = "partial",
};

const char *rp_proto_have_name(unsigned int verdict)
{
	return verdict < RP_HAVE_MAX ? have_names[verdict] : "?";
}

const char *rp_proto_status_name(unsigned int status)
{
	if (status >= RP_ST_MAX || !status_names[status])
		return "unknown status";
	return status_names[status];
}

static bool is_rp_err(int rc)
{
	switch (rc) {
#define RP_ERR_CASE(name, val, ex, msg) case RP_E##name:
	RP_ERR_MAP(RP_ERR_CASE)
#undef RP_ERR_CASE
		return true;
	default:
		return false;
	}
}

uint16_t rp_proto_status_from_err(int rc)
{
	switch (rc) {
	case 0:
		return RP_ST_OK;
	case RP_EEXIST:
		return RP_ST_EXISTS;
	case RP_EBADNAME:
		return RP_ST_BADNAME;
	case RP_ENOSPACE:
	case -ENOSPC:
		return RP_ST_NOSPACE;
	case RP_ELIMIT:
		return RP_ST_LIMIT;
	case RP_EBUSY:
		return RP_ST_BUSY;
	case RP_EPROTO:
	case RP_EUNEXPECTED:
	case RP_ENOTPEER:
	case RP_ENOTPING:	/* the ERR's text says which is which */
	case RP_ENOTPUSH:
		return RP_ST_PROTO;
	case RP_ETAMPERED:
		return RP_ST_TAMPERED;
	case RP_ECHECKSUM:
		return RP_ST_CHECKSUM;
	/* An I/O failure the peer reported stays one if we pass it on. */
	case RP_EPEERIO:
		return RP_ST_IO;
	case RP_EPEERRDMA:
	case RP_EWC:
	case RP_EVERBS:
	case RP_ENODEV:
	case RP_ENOGID:
		return RP_ST_RDMA;
	case RP_EAUTH:
		return RP_ST_AUTH;
	case RP_EVERSION:
		return RP_ST_VERSION;
	case RP_ETIMEOUT:
		return RP_ST_TIMEOUT;
	case RP_EINTERRUPTED:
	case RP_ECTRLCLOSED:
	case RP_EPEERABORT:
		return RP_ST_ABORTED;
	}
	/* Our reserved range overlaps errno numbers, so test it first. */
	if (is_rp_err(rc))
		return RP_ST_INTERNAL;
	if (rc < 0 && rc >= -ERRNO_MAX)
		return RP_ST_IO;
	return RP_ST_INTERNAL;
}

int rp_proto_status_to_err(uint16_t status)
{
	switch (status) {
	case RP_ST_OK:
		return 0;
	case RP_ST_EXISTS:
		return RP_EEXIST;
	case RP_ST_BADNAME:
		return RP_EBADNAME;
	case RP_ST_NOSPACE:
		return RP_ENOSPACE;
	case RP_ST_LIMIT:
		return RP_ELIMIT;
	case RP_ST_BUSY:
		return RP_EBUSY;
	case RP_ST_CHECKSUM:
		return RP_ECHECKSUM;
	/* The peer's disk failed, not ours: a transport-class exit. */
	case RP_ST_IO:
		return RP_EPEERIO;
	case RP_ST_RDMA:
		return RP_EPEERRDMA;
	case RP_ST_AUTH:
		return RP_EAUTH;
	case RP_ST_VERSION:
		return RP_EVERSION;
	case RP_ST_TIMEOUT:
		return RP_ETIMEOUT;
	case RP_ST_ABORTED:
		return RP_EPEERABORT;
	case RP_ST_TAMPERED:
		return RP_ETAMPERED;
	/* The peer found fault with us or itself: either way it refused. */
	case RP_ST_PROTO:
	case RP_ST_INTERNAL:
	default:
		return RP_EREFUSED;
	}
}
