// SPDX-License-Identifier: MIT
/* rdmapush: parse options, check the host, run the session, say in one
 * line what failed (and what to do), map the result to an exit code.
 * The only caller of exit(). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/auth.h"
#include "rdmapush/devices.h"
#include "rdmapush/doctor.h"
#include "rdmapush/err.h"
#include "rdmapush/opts.h"
#include "rdmapush/ping.h"
#include "rdmapush/preflight.h"
#include "rdmapush/render.h"
#include "rdmapush/report.h"
#include "rdmapush/server.h"
#include "rdmapush/session.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

/* Stopped by SIGINT/SIGTERM: the shell's 128 + signal, not "network". */
static bool stopped(int rc)
{
	return rp_session_exit_code(rc) >= RP_EXIT_SIGNAL_BASE;
}

/* What failed, in the words of the place that found it. */
static const char *cause_of(int rc, char *buf, size_t len)
{
	const char *held = rp_trace_held_error();

	if (stopped(rc)) {
		snprintf(buf, len, "stopped by %s",
			 rp_session_stop == SIGINT ? "SIGINT" :
			 rp_session_stop == SIGTERM ? "SIGTERM" : "a signal");
		return buf;
	}
	return held ? held : rp_strerror(rc);
}

/* What to do: the detection site's own hint, else the one that fits the
 * class and cause of the error, and for a push its SOURCEs (--as names
 * one); none when stopped by a signal. */
static const char *hint_of(int rc, bool send, const struct rp_config *o)
{
	const char *own = rp_trace_held_hint();

	if (stopped(rc))
		return NULL;
	return own ? own : rp_err_hint_push(rc, rp_trace_held_cause(),
					     send ? o->nsources : 0,
					     o->recursive);
}

/* The "hint:" line after a failure's, unless its cause says one. */
static void hint_line(const char *role, const char *cause, const char *hint)
{
	if (hint && !strstr(cause, "hint:"))
		fprintf(stderr, "rdmapush %s: hint: %s\n", role, hint);
}

/*
 * "rdmapush send: push failed in DATA after 12 chunks: CAUSE", or "push
 * done, but 2 entries failed: CAUSE" (the first one's), and where
 * it helps "rdmapush send: hint: ...". A cause that carries its own hint
 * (the GID table report) gets no second one.
 */
static void verdict(const char *role, bool send, const struct rp_config *o,
		    const struct rp_outcome *out, int rc)
{
	char what[128], where[96], buf[64];
	const char *cause = cause_of(rc, buf, sizeof(buf));
	const char *hint = hint_of(rc, send, o);

	/* The sender chose the name: only its side can act on that hint. */
	if (!send && rc == RP_EBADNAME)
		hint = NULL;

	if (send)
		snprintf(what, sizeof(what), "push");
	else if (out->peer[0])
		snprintf(what, sizeof(what), "receive from %s", out->peer);
	else
		snprintf(what, sizeof(what), "receive");
	if (out->phase == RP_PHASE_MAX)	/* no transfer began */
		where[0] = '\0';
	else if (out->phase == RP_PHASE_DATA)
		snprintf(where, sizeof(where), " in DATA after %" PRIu64
			 " chunks", out->done);
	else
		snprintf(where, sizeof(where), " in %s",
			 rp_phase_name(out->phase));
	flockfile(stderr);
	/* A chain: the summary's lines said each host and why, in its own
	 * words; this, which. Our hints are for a failure of our own. */
	if (out->phase == RP_PHASE_DONE && out->hosts_failed) {
		rp_report_hosts_failed(stderr, role, out);
		hint = NULL;
	} else if (out->phase == RP_PHASE_DONE)
		fprintf(stderr, "rdmapush %s: %s done, but %" PRIu64 " %s "
			"failed; the first: %s\n", role, what, out->failed,
			out->failed == 1 ? "entry" : "entries", cause);
	else
		fprintf(stderr, "rdmapush %s: %s failed%s: %s\n", role, what,
			where, cause);
	hint_line(role, cause, hint);
	funlockfile(stderr);
}

static int run(const struct rp_opts *opts)
{
	struct rp_config cfg = opts->cfg;
	const struct rp_config *o = &cfg;
	struct rp_hooks hooks;
	bool send = opts->mode == RP_MODE_SEND;
	const char *role = send ? "send" : "recv";
	/* Stays so when a command fails before any transfer began. */
	struct rp_outcome out = { .phase = RP_PHASE_MAX };
	const char *held;
	char buf[64];
	int rc;

	/* The session prints nothing of its result: these hooks do. */
	rp_report_hooks(&hooks, &cfg);
	cfg.hooks = &hooks;
	rp_trace_init(o->trace ? RP_V_TRACE :
		      o->quiet ? RP_V_QUIET : RP_V_NORMAL, role);
	rp_trace_hold_first_error();
	rc = o->trace_json ? rp_trace_json_open(o->trace_json) : 0;
	if (!rc)
		rc = rp_preflight(o, send ? RP_PREFLIGHT_SEND : RP_PREFLIGHT_RECV);
	/* Each small file waiting for its group sync holds a descriptor. */
	if (!rc && !send)
		(void)rp_sys_nofile(RP_SYS_NOFILE_RECV);
	if (!rc)
		rc = send ? rp_session_send(o, &out) : rp_server_run(o, &out);
	held = rp_trace_held_error();
	if (rc) {
		verdict(role, send, o, &out, rc);
		/* A transfer's own JSON object is out already. */
		if (o->json && out.phase == RP_PHASE_MAX)
			(void)!rp_report_json_failure(stdout, role, rc,
				cause_of(rc, buf, sizeof(buf)),
				rp_session_exit_code(rc));
	} else if (held) {
		/* An error that did not fail the command still shows. */
		fprintf(stderr, "rdmapush %s: error: %s\n", role, held);
	}
	rp_trace_json_close();
	return rp_session_exit_code(rc);
}

/*
 * rdmapush ping: the server, or the client and its report. A failure is
 * one line, "rdmapush ping: ping failed: CAUSE" (ping-server: "server
 * failed"), and a hint that fits, as a push's.
 */
static int ping(const struct rp_config *o)
{
	const char *role = o->ping_server ? "ping-server" : "ping";
	struct rp_ping_result res;
	int rc;

	rp_trace_init(o->trace ? RP_V_TRACE :
		      o->quiet ? RP_V_QUIET : RP_V_NORMAL, role);
	rp_session_signals();
	/* The first error is the cause: said once, in the verdict. */
	rp_trace_hold_first_error();
	rc = o->trace_json ? rp_trace_json_open(o->trace_json) : 0;
	/* The device check a push makes, before we listen or connect. */
	if (!rc)
		rc = rp_preflight(o, RP_PREFLIGHT_PING);
	if (rc) {
		/* Nothing began: the cause is the held error. */
	} else if (o->ping_server) {
		rc = rp_ping_server(o);
	} else {
		rc = rp_ping_client(o, &res);
		if (!rc)
			rc = rp_ping_report(stdout, &res, o->json);
	}
	if (rc) {
		char buf[64];
		const char *cause = cause_of(rc, buf, sizeof(buf));

		flockfile(stderr);
		fprintf(stderr, "rdmapush %s: %s failed: %s\n", role,
			o->ping_server ? "server" : "ping", cause);
		hint_line(role, cause, hint_of(rc, false, o));
		funlockfile(stderr);
		if (o->json && !o->ping_server)
			(void)!rp_report_json_failure(stdout, "ping", rc, cause,
						      rp_session_exit_code(rc));
	}
	rp_trace_json_close();
	return rp_session_exit_code(rc);
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

static int dispatch(const struct rp_opts *o)
{
	switch (o->mode) {
	case RP_MODE_HELP:
		rp_opts_usage(stdout, o->help_for);
		return RP_EXIT_OK;
	case RP_MODE_VERSION:
		printf("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return RP_EXIT_OK;
	case RP_MODE_SEND:
	case RP_MODE_RECV:
		return run(o);
	case RP_MODE_KEYGEN:
		return keygen(o);
	case RP_MODE_DEVICES:
		return rp_devices_run(&o->cfg, o->devices_for);
	case RP_MODE_PING:
		return ping(&o->cfg);
	case RP_MODE_DOCTOR:
		return rp_doctor_run(&o->cfg, o->doctor_ping_port,
				     o->doctor_ops, o->doctor_nops);
	case RP_MODE_RENDER:
		/* Each error is said where it is found, naming the file. */
		rp_trace_init(RP_V_NORMAL, "render");
		if (o->render_packets)
			return rp_err_exit_code(rp_render_packets(
				o->render_packets, stdout));
		return rp_err_exit_code(rp_render_chain(o->render_in,
							o->render_n,
							o->render_out));
	default:
		rp_opts_usage(stderr, RP_MODE_NONE);
		return RP_EXIT_USAGE;
	}
}

int main(int argc, char **argv)
{
	struct rp_opts o;
	int rc = rp_opts_parse(&o, argc, argv);

	if (rc) {
		rp_opts_free(&o);
		return RP_EXIT_USAGE;
	}
	rc = dispatch(&o);
	rp_opts_free(&o);
	return rc;
}
