// SPDX-License-Identifier: MIT
/* The error table expanded: messages, names and exit codes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
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
