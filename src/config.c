// SPDX-License-Identifier: MIT
/* The library's settings: their defaults, and the ones worked out from
 * the host (the worker threads). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>

#include "rdmapush/config.h"

void rp_config_defaults(struct rp_config *c)
{
	memset(c, 0, sizeof(*c));
	c->port = RP_DEFAULT_PORT;
	c->ib_port = 0;
	c->gid_index = -1;
	c->timeout = RP_DEFAULT_TIMEOUT;
	c->retry_for = RP_DEFAULT_RETRY_FOR;
	c->max_transfers = RP_DEFAULT_MAX_XFERS;
	c->max_pending_per_prefix = RP_DEFAULT_PER_PREFIX;
	c->min_rate = RP_DEFAULT_MIN_RATE;
	c->partial_max_age = RP_DEFAULT_PARTIAL_AGE;
	c->dir = ".";
	c->chunk = RP_DEFAULT_CHUNK;
	c->window = RP_DEFAULT_WINDOW;
}

uint32_t rp_config_threads(const struct rp_config *c)
{
	long n;

	if (c->threads)
		return c->threads;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > RP_DEFAULT_MAX_THREADS ? RP_DEFAULT_MAX_THREADS :
	       (uint32_t)n;
}
