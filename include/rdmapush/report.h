/* SPDX-License-Identifier: MIT */
/* The result of one transfer: summary line, or one JSON object (json-c). */
#ifndef RDMAPUSH_REPORT_H
#define RDMAPUSH_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmapush/proto.h"

struct rp_report {
	const char *role;	/* "send" or "recv" */
	const char *name;	/* file name on the receiver */
	const char *peer;	/* "addr:port" */
	uint64_t bytes;
	double seconds;
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
int rp_report_json_failure(FILE *f, const char *role, int rc,
			   const char *cause, int exit_code);
/* "sent big.iso: 64.00 MiB in 3.20 s, 167.8 Mb/s" to f. */
void rp_report_summary(FILE *f, const struct rp_report *r);

#endif
