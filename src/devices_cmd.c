// SPDX-License-Identifier: MIT
/*
 * `rdmapush devices`: collect (src/verbs_devices.c), answer --for HOST
 * with the session's own choice of GID (rp_verbs_choose), print (text
 * or JSON, src/devices.c) and say what failed and what to do. Kept out
 * of devices.c so that its unit test links without the verbs backend.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include "rdmapush/devices.h"
#include "rdmapush/err.h"
#include "rdmapush/config.h"
#include "rdmapush/trace.h"

int rp_devices_answer_for(const struct rp_config *o, struct rp_devices_for *f)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int rc = rp_devices_local_addr(f->host, o->port, &ss, &len,
				       f->local_addr, sizeof(f->local_addr));
	struct rp_verbs_cfg cfg = {
		.dev_name = o->dev,
		.ib_port = o->ib_port,
		.gid_index = o->gid_index,
		.local_addr = (const struct sockaddr *)&ss,
		.local_addr_len = len,
	};

	if (rc) {
		f->local_addr[0] = '\0';
		return rc;
	}
	rc = rp_verbs_choose(&cfg, &f->choice);
	f->chosen = !rc;
	return rc;
}

/* As main's verdict: the cause, then what to do unless it says so. */
static void say_failure(int rc, const char *cause)
{
	const char *hint = rp_trace_held_hint();

	if (!hint)
		hint = rp_err_hint_for(rc, rp_trace_held_cause());

	flockfile(stderr);
	fprintf(stderr, "rdmapush devices: error: %s\n", cause);
	if (hint && !strstr(cause, "hint:"))
		fprintf(stderr, "rdmapush devices: hint: %s\n", hint);
	funlockfile(stderr);
}

int rp_devices_run(const struct rp_config *o, const char *for_host)
{
	struct rp_dev_list l = { 0 };
	struct rp_devices_for f = { .host = for_host };
	const char *cause;
	int rc, prc = 0;

	rp_trace_init(o->trace ? RP_V_TRACE : RP_V_NORMAL, "devices");
	rp_trace_hold_first_error();
	rc = rp_verbs_devices(o->dev, &l);
	if (!rc && f.host)
		rc = rp_devices_answer_for(o, &f);
	cause = rp_trace_held_error();
	if (!cause && rc)
		cause = rp_strerror(rc);
	f.error = rc ? cause : NULL;
	if (!l.ndevs)
		f.host = NULL;	/* nothing to mark: the error says it all */
	if (o->json)
		prc = rp_devices_print_json(stdout, &l, &f, rc, cause);
	else
		rp_devices_print_text(stdout, &l, &f);
	if (fflush(stdout) && !prc)
		prc = -EIO;
	if (rc)
		say_failure(rc, cause);
	rp_verbs_devices_free(&l);
	return rp_err_exit_code(rc ? rc : prc);
}
