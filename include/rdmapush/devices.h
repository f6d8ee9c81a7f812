/* SPDX-License-Identifier: MIT */
/*
 * `rdmapush devices`: the devices, ports and GID tables that the verbs
 * backend lists (rdmapush/verbs_devices.h), and the GID rdmapush would
 * use to reach a host, formatted by src/devices.c as text or JSON
 * without ever seeing ibverbs types, so its output is unit-tested from
 * synthetic values.
 */
#ifndef RDMAPUSH_DEVICES_H
#define RDMAPUSH_DEVICES_H

#include "rdmapush/export.h"

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "rdmapush/verbs_devices.h"

/* What `devices --for HOST` found, for the formatters. */
struct rp_devices_for {
	const char *host;		/* NULL: no --for */
	char local_addr[RP_DEV_TEXT_MAX]; /* "" when HOST did not resolve */
	bool chosen;			/* choice is valid */
	struct rp_gid_choice choice;
	const char *error;		/* why nothing was chosen, or NULL */
};

/* --- the command: src/devices_cmd.c --------------------------------- */

struct rp_config;
/*
 * Run `rdmapush devices` as o says, for_host (--for, or NULL) marking
 * the GID a session to it would use: the report on stdout, what failed
 * and what to do on stderr. Returns the exit code (enum rp_exit).
 */
int rp_devices_run(const struct rp_config *o, const char *for_host);
/*
 * --for f->host: the local address the kernel reaches it from, then the
 * device, port and GID a session to it would use (f->chosen, f->choice),
 * by o's -d, -i, -g and port; rdmapush doctor asks the same. 0, or the
 * error (reported, as a session reports it).
 */
int rp_devices_answer_for(const struct rp_config *o, struct rp_devices_for *f)
	__attribute__((warn_unused_result));

/* --- formatting and the command: src/devices.c ----------------------- */

/* The link layer's name: a static string, "?" outside the enum. */
const char *rp_devices_link_name(enum rp_link_layer l);
/*
 * ibv_port_attr's active_speed / active_width codes, as rdma-core's
 * ibv_devinfo reads them: per-lane "2.5 Gb/s" (and its Gb/s in *gbps,
 * 0 when unknown), lanes "4X" (and their count in *lanes, 0 when
 * unknown). An unknown code gives "code N" in buf; returns buf.
 */
const char *rp_devices_speed_name(uint8_t code, double *gbps, char *buf,
				  size_t len);
const char *rp_devices_width_name(uint8_t code, int *lanes, char *buf,
				  size_t len);

/*
 * The local address the kernel would use to reach host (resolved as the
 * session's control connection resolves it; a UDP socket's connect()
 * and getsockname(), no packet sent). 0, RP_ERESOLVE or -errno
 * (reported).
 */
int rp_devices_local_addr(const char *host, uint16_t port,
			  struct sockaddr_storage *ss, socklen_t *len,
			  char *text, size_t text_len)
	__attribute__((warn_unused_result));

/* Why f->choice was chosen, one sentence into buf; returns buf. */
const char *rp_devices_reason(const struct rp_devices_for *f, char *buf,
			      size_t len);

/* The report as aligned text; f NULL or f->host NULL: no --for part. */
void rp_devices_print_text(FILE *out, const struct rp_dev_list *l,
			   const struct rp_devices_for *f);
/*
 * The report as one JSON object and a newline. rc: the command's result
 * (0, or the error its "error" member names with exit_code).
 * 0 or -ENOMEM / -EIO (reported).
 */
int rp_devices_print_json(FILE *out, const struct rp_dev_list *l,
			  const struct rp_devices_for *f, int rc,
			  const char *error)
	__attribute__((warn_unused_result));

#endif
