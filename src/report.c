// SPDX-License-Identifier: MIT
/* The result of one transfer, as a summary line or one JSON object. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/csum.h"
#include "rdmapush/err.h"
#include "rdmapush/hostlist.h"
#include "rdmapush/json.h"
#include "rdmapush/report.h"
#include "rdmapush/trace.h"

static double throughput_bps(const struct rp_report *r)
{
	return r->seconds > 0 ? (double)r->bytes * 8.0 / r->seconds : 0.0;
}

/* The receiver's name came from the sender: shown escaped, always. */
static const char *shown_name(const struct rp_report *r, char *buf,
			      size_t len)
{
	if (!r->name)
		return "";
	return rp_fmt_peer(buf, len, r->name, strlen(r->name));
}

/* A name or path from the sender as a JSON string: whole, so two long
 * names never look the same, its controls and invalid bytes escaped as
 * peer text is, its quotes left to json-c. NULL when out of memory. */
static struct json_object *peer_string(const char *s)
{
	char *shown = rp_peer_text_dup(s, strlen(s));
	struct json_object *v;

	if (!shown)
		return NULL;
	v = json_object_new_string(shown);
	free(shown);
	return v;
}

/* "host:port" of a chain's host, an IPv6 address bracketed; the
 * names are the user's own, from the command line. */
static const char *host_port(char *buf, size_t len,
			     const struct rp_host_result *h)
{
	(void)rp_host_format(buf, len, h->host, h->port);
	return buf;
}

/* Why a host failed: in its own words (escaped: they came from a peer)
 * when it gave them, else its error's. */
static const char *host_why(char *buf, size_t len,
			    const struct rp_host_result *h)
{
	if (h->why && h->why[0])
		return rp_fmt_peer(buf, len, h->why, strlen(h->why));
	return rp_strerror(h->rc);
}

/* "hosts": one object per host of a chain, in chain order. */
static int fill_hosts(struct json_object *o, const struct rp_report *r)
{
	struct json_object *a = json_object_new_array();
	char hp[RP_HOST_NAME_MAX + 16];
	int rc = 0;

	if (!a)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->nhosts; i++) {
		const struct rp_host_result *h = &r->hosts[i];
		struct json_object *e = json_object_new_object();

		if (!e || json_object_array_add(a, e)) {
			json_object_put(e);
			rc = -ENOMEM;
			break;
		}
		rc |= rp_json_add(e, "host", json_object_new_string(
				  host_port(hp, sizeof(hp), h)));
		rc |= rp_json_add(e, "status", json_object_new_string(
				  !h->reached ? "not-reached" :
				  h->rc ? "error" : "ok"));
		rc |= rp_json_add(e, "files",
				  json_object_new_uint64(h->files));
		rc |= rp_json_add(e, "failed",
				  json_object_new_uint64(h->failed));
		rc |= rp_json_add(e, "bytes",
				  json_object_new_uint64(h->bytes));
		if (h->reached && h->rc)
			rc |= rp_json_add(e, "error", peer_string(
					  h->why && h->why[0] ? h->why :
					  rp_strerror(h->rc)));
	}
	rc |= rp_json_add(o, "hosts", a);
	return rc;
}

static int fill(struct json_object *o, const struct rp_report *r)
{
	char hex[33];
	int rc = 0;

	rc |= rp_json_add(o, "type", json_object_new_string("session"));
	rc |= rp_json_add(o, "role", json_object_new_string(r->role));
	/* Only a session of one entry has a name (rp_report.name). */
	if (r->name)
		rc |= rp_json_add(o, "name", peer_string(r->name));
	rc |= rp_json_add(o, "files", json_object_new_uint64(r->files));
	rc |= rp_json_add(o, "failed", json_object_new_uint64(r->failed));
	rc |= rp_json_add(o, "skipped", json_object_new_uint64(r->skipped));
	rc |= rp_json_add(o, "up_to_date",
			  json_object_new_uint64(r->up_to_date));
	if (r->peer && r->peer[0])
		rc |= rp_json_add(o, "peer", json_object_new_string(r->peer));
	rc |= rp_json_add(o, "status",
			  json_object_new_string(r->rc ? "error" : "ok"));
	rc |= rp_json_add(o, "phase",
			  json_object_new_string(r->phase ? r->phase : ""));
	if (r->rc) {
		/* The cause main's verdict names, when it holds one. */
		const char *cause = rp_trace_held_error();

		rc |= rp_json_add(o, "error",
				  json_object_new_string(cause ? cause :
						rp_strerror(r->rc)));
		rc |= rp_json_add(o, "error_code",
				  json_object_new_string(rp_err_name(r->rc)));
		rc |= rp_json_add(o, "exit_code",
				  json_object_new_int(r->exit_code));
	}
	rc |= rp_json_add(o, "bytes", json_object_new_uint64(r->bytes));
	/* Less than bytes when files were resumed. */
	rc |= rp_json_add(o, "data_bytes",
			  json_object_new_uint64(r->data_bytes));
	/* The whole transfer to the millisecond; the data phase, which
	 * can be shorter than one, to the microsecond, as it is measured;
	 * bits per second whole. */
	rc |= rp_json_add(o, "seconds", rp_json_fixed(r->seconds, 3));
	rc |= rp_json_add(o, "data_seconds",
			  rp_json_fixed(r->data_seconds, 6));
	rc |= rp_json_add(o, "throughput_bps",
			  json_object_new_int64(llround(throughput_bps(r))));
	if (r->have_csum)
		rc |= rp_json_add(o, "xxh3_128",
			  json_object_new_string(rp_csum_hex(r->csum, hex)));
	/* What the session had not learnt when it ended is left out, not
	 * shown as a 0 or "" that could be taken for a value. */
	if (r->chunk)
		rc |= rp_json_add(o, "chunk", json_object_new_int64(r->chunk));
	if (r->window)
		rc |= rp_json_add(o, "window",
				  json_object_new_int64(r->window));
	if (r->local_qpn)
		rc |= rp_json_add(o, "local_qpn",
				  json_object_new_int64(r->local_qpn));
	if (r->remote_qpn)
		rc |= rp_json_add(o, "remote_qpn",
				  json_object_new_int64(r->remote_qpn));
	/* Only when the link went down and came back: most never do. */
	if (r->reconnects)
		rc |= rp_json_add(o, "reconnects",
				  json_object_new_int64(r->reconnects));
	if (r->gid && r->gid[0]) {
		rc |= rp_json_add(o, "gid", json_object_new_string(r->gid));
		rc |= rp_json_add(o, "gid_index",
				  json_object_new_int(r->gid_index));
	}
	if (r->nhosts)
		rc |= fill_hosts(o, r);
	return rc ? -ENOMEM : 0;
}

int rp_report_json(FILE *f, const struct rp_report *r)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return -ENOMEM;
	return rp_json_print(f, o, fill(o, r));
}

int rp_report_json_entry(FILE *f, const char *role, const char *path,
			 uint64_t bytes, int rc, const char *skipped)
{
	struct json_object *o = json_object_new_object();
	bool up_to_date = skipped && !strcmp(skipped, RP_ENTRY_UP_TO_DATE);
	int err = 0;

	if (!o)
		return -ENOMEM;
	err |= rp_json_add(o, "type", json_object_new_string("entry"));
	err |= rp_json_add(o, "role", json_object_new_string(role));
	/* On the receiver the path came from the sender: escaped. */
	err |= rp_json_add(o, "path", peer_string(path));
	err |= rp_json_add(o, "status", json_object_new_string(
			   up_to_date ? "up-to-date" : skipped ? "skipped" :
			   rc ? "error" : "ok"));
	err |= rp_json_add(o, "bytes", json_object_new_uint64(bytes));
	if (skipped && !up_to_date)
		err |= rp_json_add(o, "reason",
				   json_object_new_string(skipped));
	if (rc && !skipped) {
		err |= rp_json_add(o, "error",
				   json_object_new_string(rp_strerror(rc)));
		err |= rp_json_add(o, "error_code",
				   json_object_new_string(rp_err_name(rc)));
	}
	return rp_json_print(f, o, err ? -ENOMEM : 0);
}

int rp_report_json_failure(FILE *f, const char *role, int rc,
			   const char *cause, int exit_code)
{
	struct json_object *o = json_object_new_object();
	int err = 0;

	if (!o)
		return -ENOMEM;
	err |= rp_json_add(o, "role", json_object_new_string(role));
	err |= rp_json_add(o, "status", json_object_new_string("error"));
	/* null: no transfer began, so it stopped in none of its phases. */
	err |= json_object_object_add(o, "phase", NULL) ? -ENOMEM : 0;
	err |= rp_json_add(o, "error", json_object_new_string(cause));
	err |= rp_json_add(o, "error_code",
			   json_object_new_string(rp_err_name(rc)));
	err |= rp_json_add(o, "exit_code", json_object_new_int(exit_code));
	return rp_json_print(f, o, err ? -ENOMEM : 0);
}

void rp_report_summary(FILE *f, const struct rp_report *r)
{
	char b[32], t[32], name[RP_PEER_TEXT_MAX];
	const char *verb = r->role[0] == 's' ? "sent" : "received";

	if (r->name && !r->failed && !r->skipped && !r->up_to_date) {
		fprintf(f, "rdmapush %s: %s %s: %s in %.2f s, %s\n", r->role,
			verb, shown_name(r, name, sizeof(name)),
			rp_fmt_bytes(b, sizeof(b), r->bytes), r->seconds,
			rp_fmt_rate(t, sizeof(t), r->bytes, r->seconds));
		return;
	}
	fprintf(f, "rdmapush %s: %s %" PRIu64 " %s, %s in %.2f s, %s; %"
		PRIu64 " skipped, %" PRIu64 " failed", r->role, verb,
		r->files, r->files == 1 ? "entry" : "entries",
		rp_fmt_bytes(b, sizeof(b), r->bytes), r->seconds,
		rp_fmt_rate(t, sizeof(t), r->bytes, r->seconds), r->skipped,
		r->failed);
	if (r->up_to_date)
		fprintf(f, ", %" PRIu64 " up to date", r->up_to_date);
	fputc('\n', f);
}

void rp_report_hosts(FILE *f, const struct rp_report *r)
{
	char hp[RP_HOST_NAME_MAX + 16], b[32], why[RP_PEER_TEXT_MAX];

	for (uint32_t i = 0; i < r->nhosts; i++) {
		const struct rp_host_result *h = &r->hosts[i];

		host_port(hp, sizeof(hp), h);
		if (!h->reached)
			fprintf(f, "rdmapush %s: %s: not reached\n", r->role,
				hp);
		else if (h->rc)
			fprintf(f, "rdmapush %s: %s: failed: %s\n", r->role,
				hp, host_why(why, sizeof(why), h));
		else
			fprintf(f, "rdmapush %s: %s: ok, %" PRIu64 " %s, %s\n",
				r->role, hp, h->files,
				h->files == 1 ? "entry" : "entries",
				rp_fmt_bytes(b, sizeof(b), h->bytes));
	}
}

void rp_report_hosts_failed(FILE *f, const char *role,
			    const struct rp_outcome *out)
{
	fprintf(f, "rdmapush %s: failed on %u of %u hosts: %s\n", role,
		out->hosts_failed, out->nhosts, out->failed_hosts);
}

/* The tool's report hooks (rp_report_hooks): ctx is its config. */
static void hook_entry(void *ctx, const char *role, const char *path,
		       uint64_t bytes, int rc, const char *skipped)
{
	const struct rp_config *o = ctx;

	if (o->json)
		(void)!rp_report_json_entry(stdout, role, path, bytes, rc,
					    skipped);
}

static void hook_report(void *ctx, const struct rp_report *r)
{
	const struct rp_config *o = ctx;

	/* A session that ended well shows its counts, failures or not. */
	if ((!r->rc || !strcmp(r->phase, "DONE")) && !o->quiet) {
		rp_report_summary(stderr, r);
		rp_report_hosts(stderr, r);
	}
	if (o->json)
		(void)!rp_report_json(stdout, r);
}

void rp_report_hooks(struct rp_hooks *h, const struct rp_config *o)
{
	*h = (struct rp_hooks){
		.report_entry = hook_entry,
		.report = hook_report,
		.ctx = (void *)o,
	};
}
