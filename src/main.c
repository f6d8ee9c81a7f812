// SPDX-License-Identifier: MIT
/* rdmapush: parse options, run the session, map the result to an exit
 * code. The only caller of exit(). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>

#include "rdmapush/err.h"
#include "rdmapush/opts.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"

static int run(const struct rp_opts *o)
{
	const char *role = o->mode == RP_MODE_SEND ? "send" : "recv";
	int rc;

	rp_trace_init(o->trace ? RP_V_TRACE :
		      o->quiet ? RP_V_QUIET : RP_V_NORMAL, role);
	rc = o->mode == RP_MODE_SEND ? rp_session_send(o) : rp_session_recv(o);
	if (rc)
		fprintf(stderr, "rdmapush %s: %s failed: %s\n", role,
			o->mode == RP_MODE_SEND ? "push" : "receive",
			rp_strerror(rc));
	return rp_err_exit_code(rc);
}

int main(int argc, char **argv)
{
	struct rp_opts o;
	int rc = rp_opts_parse(&o, argc, argv);

	if (rc)
		return RP_EXIT_USAGE;
	switch (o.mode) {
	case RP_MODE_HELP:
		rp_opts_usage(stdout, o.help_for);
		return RP_EXIT_OK;
	case RP_MODE_VERSION:
		printf("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return RP_EXIT_OK;
	case RP_MODE_SEND:
	case RP_MODE_RECV:
		return run(&o);
	default:
		rp_opts_usage(stderr, RP_MODE_NONE);
		return RP_EXIT_USAGE;
	}
}
