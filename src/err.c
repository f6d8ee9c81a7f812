// SPDX-License-Identifier: MIT
/* The error table expanded: messages, names and exit codes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "rdmapush/err.h"

const char *rp_strerror(int rc)
{
	switch (rc) {
#define RP_ERR_MSG(name, val, ex, msg) case RP_E##name: return msg;
	RP_ERR_MAP(RP_ERR_MSG)
#undef RP_ERR_MSG
	}
	if (rc < 0)
		return strerror(-rc);
	return "success";
}

const char *rp_err_name(int rc)
{
	switch (rc) {
#define RP_ERR_NAME(name, val, ex, msg) case RP_E##name: return "RP_E" #name;
	RP_ERR_MAP(RP_ERR_NAME)
#undef RP_ERR_NAME
	}
	if (rc >= 0)
		return "OK";
	/* strerrorname_np is glibc 2.32+, which Debian 12 has. */
	const char *n = strerrorname_np(-rc);

	return n ? n : "E?";
}

/* System errors split into "the network or peer failed" and "our disk failed". */
static int errno_exit_code(int e)
{
	switch (e) {
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case EPIPE:
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENETDOWN:
	case EADDRNOTAVAIL:
		return RP_EXIT_TRANSPORT;
	default:
		return RP_EXIT_IO;
	}
}

int rp_err_exit_code(int rc)
{
	switch (rc) {
#define RP_ERR_EXIT(name, val, ex, msg) case RP_E##name: return ex;
	RP_ERR_MAP(RP_ERR_EXIT)
#undef RP_ERR_EXIT
	}
	if (rc >= 0)
		return RP_EXIT_OK;
	return errno_exit_code(-rc);
}

/* One row per error class that has something to do about it. */
static const struct {
	int rc;
	const char *hint;
} hints[] = {
	{ RP_ENODEV, "check 'ibv_devices' and 'rdma link'; without RDMA "
	  "hardware, create a Soft-RoCE device on the network interface, "
	  "e.g. 'rdma link add rxe0 type rxe netdev eth0'" },
	{ RP_ENOGID, "HOST must be an address on the RDMA interface's "
	  "network; or choose the device and GID with -d and -g" },
	{ RP_ETIMEOUT, "check that the peer is still running and reachable; "
	  "raise --timeout on both sides for a slow link or disk" },
	{ RP_ECTRLCLOSED, "the peer stopped or dropped the connection; "
	  "its own error says why" },
	{ RP_EEXIST, "start the receiver with --force to replace it" },
	{ RP_EBADNAME, "rename the file; for a single SOURCE, --as NAME "
	  "gives a plain name on the receiver" },
	{ RP_EBUSY, "try again later, or raise the receiver's -m" },
	{ RP_EAUTH, "both sides need the same --psk key file" },
	{ RP_EVERSION, "run the same rdmapush version on both sides" },
	{ RP_ENOTPEER, "check HOST and -p: something else answers there" },
	{ RP_ECONFIG, "create a key with 'rdmapush keygen FILE' (32 random "
	  "bytes, mode 0600) and give both sides the same file" },
	{ RP_ELISTEN, "if the port is in use, choose another with -p PORT; "
	  "-b must be an address of this host; ports below 1024 need "
	  "privileges" },
	{ RP_EVERBS, "registering memory needs a high locked-memory limit: "
	  "check 'ulimit -l' (unlimited, or LimitMEMLOCK= for a service)" },
	{ RP_ERESOLVE, "check the host name, or give its address" },
	{ RP_ENOSPACE, "free space in the receiver's directory" },
	{ -ECONNREFUSED, "is 'rdmapush recv' running on HOST, on this port "
	  "(-p)? check a firewall too" },
	{ -EHOSTUNREACH, "check the address and the route to HOST" },
	{ -ENETUNREACH, "check the address and the route to HOST" },
};

/*
 * Where the cause changes what to do: one row per cause (the errno value
 * of the failed call, given by its detection site with RP_ERR_WHY),
 * ahead of the class's row above, which covers every other cause.
 */
static const struct {
	int rc;
	int cause;
	const char *hint;
} cause_hints[] = {
	{ RP_ENODEV, ENOSYS, "load Soft-RoCE ('modprobe rdma_rxe'), then "
	  "'rdma link add rxe0 type rxe netdev eth0'; or use the project's "
	  "lab (scripts/rdma-lab), which has RDMA" },
	{ RP_ENODEV, ENOENT, "choose one of the devices listed with -d, or "
	  "leave -d out" },
	{ RP_ENODEV, ENETDOWN, "a RoCE port is active once its network "
	  "interface is up: check 'rdma link' and 'ip link'; or choose "
	  "another device or port with -d and -i" },
	{ RP_EVERBS, ETIMEDOUT, "the peer's Ethernet address did not "
	  "resolve (no ARP answer): check that the peer is up and reachable "
	  "('ping HOST', 'ip neigh')" },
	{ RP_EVERBS, EHOSTUNREACH, "no route to the peer's GID: check its "
	  "address and the route to it ('ip route get ADDR')" },
	{ RP_EVERBS, ENETUNREACH, "no route to the peer's GID: check its "
	  "address and the route to it ('ip route get ADDR')" },
	{ RP_ELISTEN, EADDRINUSE, "something listens on this port already: "
	  "stop it, or choose another port with -p PORT" },
	{ RP_ELISTEN, EACCES, "ports below 1024 need privileges: choose a "
	  "port of 1024 or above with -p PORT" },
	{ RP_ELISTEN, EADDRNOTAVAIL, "-b must be an address of this host "
	  "('ip address' lists them), or leave -b out to listen on all" },
};

const char *rp_err_hint(int rc)
{
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (hints[i].rc == rc)
			return hints[i].hint;
	return NULL;
}

const char *rp_err_hint_for(int rc, int cause)
{
	for (size_t i = 0; cause && i < sizeof(cause_hints) /
	     sizeof(cause_hints[0]); i++)
		if (cause_hints[i].rc == rc && cause_hints[i].cause == cause)
			return cause_hints[i].hint;
	return rp_err_hint(rc);
}

/* Where --as NAME helps too: it names a push's one SOURCE. */
static const struct {
	int rc;
	const char *hint;
} hints_one_source[] = {
	{ RP_EEXIST, "start the receiver with --force to replace it, or "
	  "name the file with --as NAME" },
};

const char *rp_err_hint_push(int rc, int cause, int nsources,
			     bool recursive)
{
	for (size_t i = 0; nsources == 1 && !recursive &&
	     i < sizeof(hints_one_source) / sizeof(hints_one_source[0]); i++)
		if (hints_one_source[i].rc == rc)
			return hints_one_source[i].hint;
	return rp_err_hint_for(rc, cause);
}
