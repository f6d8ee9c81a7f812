// SPDX-License-Identifier: MIT
/* A chain push's hop (recv --relay): the push a sender names more hosts
 * for, passed on to the next of them. Not built yet: a chain is refused
 * here, in one place, with what this receiver cannot do. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdbool.h>

#include "rdmapush/err.h"
#include "rdmapush/trace.h"
#include "session_int.h"

bool rp_xfer_relays(const struct xfer *x)
{
	return x->chain.n > 0;
}

int rp_relay_start(struct xfer *x)
{
	(void)x;
	/* A refusal, as a receiver without --relay makes: the sender
	 * exits with the policy status, and nothing was opened. */
	RP_ERR("relaying a chain is not supported by this receiver yet");
	return RP_ELIMIT;
}
