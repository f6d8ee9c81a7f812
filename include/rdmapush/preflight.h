/* SPDX-License-Identifier: MIT */
/* Startup checks: what must hold before a receiver listens or a sender
 * connects, so that a command fails at once and says why. */
#ifndef RDMAPUSH_PREFLIGHT_H
#define RDMAPUSH_PREFLIGHT_H

#include "rdmapush/export.h"

#include "rdmapush/config.h"

/*
 * The local RDMA device (-d/-i, or any) has an active port, unless a
 * receiver was started with --no-device-check. 0, or RP_ENODEV / -errno
 * (already reported).
 */
int rp_preflight(const struct rp_config *o) __attribute__((warn_unused_result));

#endif
