// SPDX-License-Identifier: MIT
/* Startup checks, run by main before the server starts or the sender
 * connects: a device problem is found in a second, not when the first
 * transfer arrives, and a sender never reaches a receiver it cannot use.
 * What needs nothing remote comes first: a bad command line, key file,
 * source or directory is said as such on a host without a device too. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "rdmapush/auth.h"
#include "rdmapush/capture.h"
#include "rdmapush/err.h"
#include "rdmapush/preflight.h"
#include "rdmapush/server.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

/* ping's only local input: its key file, loaded and forgotten. */
static int ping_check(const struct rp_config *o)
{
	uint8_t key[RP_PSK_LEN];
	int rc;

	if (!o->psk_file)
		return 0;
	rc = rp_auth_load(o->psk_file, key);
	explicit_bzero(key, sizeof(key));
	return rc;
}

static int local_checks(const struct rp_config *o, enum rp_preflight_for who)
{
	switch (who) {
	case RP_PREFLIGHT_SEND:
		return rp_session_send_check(o);
	case RP_PREFLIGHT_RECV:
		return rp_server_check(o);
	case RP_PREFLIGHT_PING:
		return ping_check(o);
	}
	return RP_EINTERNAL;
}

int rp_preflight(const struct rp_config *o, enum rp_preflight_for who)
{
	int rc = local_checks(o, who);

	/* --capture needs CAP_NET_RAW: said now, not after connecting. */
	if (!rc && o->capture)
		rc = rp_capture_check();
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
