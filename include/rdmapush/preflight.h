/* SPDX-License-Identifier: MIT */
/* Startup checks: what must hold before a receiver listens or a sender
 * connects, so that a command fails at once and says why. */
#ifndef RDMAPUSH_PREFLIGHT_H
#define RDMAPUSH_PREFLIGHT_H

#include "rdmapush/export.h"

#include "rdmapush/config.h"

/* Whose checks: each side has its own local ones. */
enum rp_preflight_for {
	RP_PREFLIGHT_SEND,
	RP_PREFLIGHT_RECV,
	RP_PREFLIGHT_PING,	/* client or server */
};

/*
 * First what needs nothing remote: for a sender rp_session_send_check
 * (usage, sources, key file), for a receiver rp_server_check (key file,
 * directory), for ping the key file; with --capture, CAP_NET_RAW
 * (rp_capture_check). Then the local RDMA device (-d/-i, or any) has
 * an active port, unless a receiver was started with --no-device-check.
 * 0, or the first failure's error: RP_EUSAGE, RP_ECONFIG, RP_ENODEV,
 * -errno (already reported).
 */
int rp_preflight(const struct rp_config *o, enum rp_preflight_for who)
	__attribute__((warn_unused_result));

#endif
