/* SPDX-License-Identifier: MIT */
/* The result of one transfer: summary line, or one JSON object (json-c). */
#ifndef RDMAPUSH_REPORT_H
#define RDMAPUSH_REPORT_H

#include "rdmapush/export.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmapush/json.h"
#include "rdmapush/proto.h"

struct rp_report {
	const char *role;	/* "send" or "recv" */
	const char *name;	/* the one entry's path, NULL for several */
	const char *peer;	/* "addr:port" */
	uint64_t bytes;		/* in the files stored */
	uint64_t files;		/* entries stored */
	uint64_t failed;	/* entries that failed */
	uint64_t skipped;	/* entries not sent (symlinks, devices...) */
	double seconds;		/* the whole session, connecting included */
	/* The data alone: the sender's first chunk posted to the receiver's
	 * credit for its last (on the receiver, first chunk landed to last):
	 * what perftest's bandwidth covers. 0 without data. */
	double data_seconds;
	uint8_t csum[RP_CSUM_LEN];
	bool have_csum;
	int rc;			/* 0 or the error */
	int exit_code;		/* the process's exit status for rc */
	const char *phase;	/* where it ended: "DONE", "DATA", ... */
	uint32_t local_qpn;
	uint32_t remote_qpn;
	const char *gid;	/* GID used, text */
	int gid_index;
	uint32_t chunk;
	uint32_t window;
};

/* One JSON object on one line to f. 0 or -ENOMEM / -EIO. */
int rp_report_json(FILE *f, const struct rp_report *r);
/*
 * A command that failed before any transfer began (a receiver that cannot
 * start, a sender without a device): {"role", "status":"error",
 * "phase":null, "error": cause, "error_code", "exit_code"}, the names
 * rp_report_json uses. 0 or -ENOMEM / -EIO.
 */
RP_TOOL int rp_report_json_failure(FILE *f, const char *role, int rc,
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

#endif
