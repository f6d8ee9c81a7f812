// SPDX-License-Identifier: MIT
/* rdmapush: parse options, run the session, map the result to an exit
 * code. The only caller of exit(). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "rdmapush/auth.h"
#include "rdmapush/err.h"
#include "rdmapush/opts.h"
#include "rdmapush/server.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"

/* "push failed in DATA at 12/30 chunks: timed out" */
static void verdict(const char *role, const char *what,
		    const struct rp_outcome *out, int rc)
{
	if (out->phase == RP_PHASE_MAX)	/* no transfer began */
		fprintf(stderr, "rdmapush %s: %s failed: %s\n", role, what,
			rp_strerror(rc));
	else if (out->phase == RP_PHASE_DATA)
		fprintf(stderr, "rdmapush %s: %s failed in DATA at %" PRIu64
			"/%" PRIu64 " chunks: %s\n", role, what, out->done,
			out->chunks, rp_strerror(rc));
	else
		fprintf(stderr, "rdmapush %s: %s failed in %s: %s\n", role,
			what, rp_phase_name(out->phase), rp_strerror(rc));
}

static int run(const struct rp_opts *o)
{
	bool send = o->mode == RP_MODE_SEND;
	const char *role = send ? "send" : "recv";
	/* Stays so when a receiver fails before any transfer began. */
	struct rp_outcome out = { .phase = RP_PHASE_MAX };
	int rc;

	rp_trace_init(o->trace ? RP_V_TRACE :
		      o->quiet ? RP_V_QUIET : RP_V_NORMAL, role);
	rc = send ? rp_session_send(o, &out) : rp_server_run(o, &out);
	if (rc)
		verdict(role, send ? "push" : "receive", &out, rc);
	return rp_err_exit_code(rc);
}

static int keygen(const struct rp_opts *o)
{
	int rc;

	rp_trace_init(RP_V_NORMAL, "keygen");
	rc = rp_auth_keygen(o->file);
	if (!rc)
		RP_INFO("wrote a %d-byte key to %s (mode 0600)",
			RP_PSK_MIN_FILE, o->file);
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
	case RP_MODE_KEYGEN:
		return keygen(&o);
	default:
		rp_opts_usage(stderr, RP_MODE_NONE);
		return RP_EXIT_USAGE;
	}
}
