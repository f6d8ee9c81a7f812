/* SPDX-License-Identifier: MIT */
/* How the tool prints a transfer's result (struct rp_report, session.h):
 * a summary line, or one JSON object (json-c). */
#ifndef RDMAPUSH_REPORT_H
#define RDMAPUSH_REPORT_H

#include "rdmapush/export.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmapush/json.h"
#include "rdmapush/proto.h"
#include "rdmapush/session.h"	/* struct rp_report */

/* One JSON object on one line to f. 0 or -ENOMEM / -EIO. */
int rp_report_json(FILE *f, const struct rp_report *r);
/*
 * A command that failed before any transfer began (a receiver that cannot
 * start, a sender without a device): {"role", "status":"error",
 * "phase":null, "error": cause, "error_code", "exit_code"}, the names
 * rp_report_json uses. 0 or -ENOMEM / -EIO.
 */
int rp_report_json_failure(FILE *f, const char *role, int rc,
			   const char *cause, int exit_code);
/*
 * One entry of a session, as one JSON object on one line to f: its path
 * (escaped), bytes, "status" ok, error (rc, with "error" and
 * "error_code") or skipped (with "reason": skipped). 0 or -ENOMEM/-EIO.
 */
int rp_report_json_entry(FILE *f, const char *role, const char *path,
			 uint64_t bytes, int rc, const char *skipped);
/* "sent big.iso: 64.00 MiB in 3.20 s, 167.8 Mb/s" to f, or for several
 * entries "sent 200 files, 64.00 MiB in ... (1 skipped, 2 failed)". */
void rp_report_summary(FILE *f, const struct rp_report *r);
/* A chain push's hosts, one line each to f: "HOST:PORT: ok, 3 entries,
 * 1.00 MiB", "HOST:PORT: failed: REASON" (escaped), "HOST:PORT: not
 * reached"; nothing for one host. */
void rp_report_hosts(FILE *f, const struct rp_report *r);
/* A chain push that failed on some hosts, as its one error line:
 * "rdmapush send: failed on 1 of 3 hosts: HOST:PORT". */
void rp_report_hosts_failed(FILE *f, const char *role,
			    const struct rp_outcome *out);
/*
 * h: the hooks through which a session's results reach the tool's output:
 * each entry as a --json line, and at the end the summary line (unless
 * o->quiet) and the --json object. o (borrowed) must outlive h's use.
 */
void rp_report_hooks(struct rp_hooks *h, const struct rp_config *o);

#endif
