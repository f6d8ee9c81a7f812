// SPDX-License-Identifier: MIT
/* Startup checks, run by main before the server starts or the sender
 * connects: a device problem is found in a second, not when the first
 * transfer arrives, and a sender never reaches a receiver it cannot use.
 * What needs nothing remote comes first: a bad command line, key file,
 * source or directory is said as such on a host without a device too. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "rdmapush/preflight.h"
#include "rdmapush/server.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

int rp_preflight(const struct rp_config *o, bool send)
{
	int rc = send ? rp_session_send_check(o) : rp_server_check(o);

	if (rc)
		return rc;
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
