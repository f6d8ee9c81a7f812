// SPDX-License-Identifier: MIT
/* Startup checks, run by main before the server starts or the sender
 * connects: a device problem is found in a second, not when the first
 * transfer arrives, and a sender never reaches a receiver it cannot use. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "rdmapush/preflight.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

int rp_preflight(const struct rp_config *o)
{
	/* A receiver may start before its device comes up (boot order,
	 * a device created later): it then fails per transfer instead.
	 * Only recv takes --no-device-check. */
	if (o->no_device_check) {
		RP_EV0("verbs", "device.check_skipped", "device check skipped "
		       "(--no-device-check)");
		return 0;
	}
	return rp_verbs_probe(o->dev, o->ib_port);
}
