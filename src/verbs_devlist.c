// SPDX-License-Identifier: MIT
/* The device list's plain data (rdmapush/verbs_devices.h), apart from the
 * backend that fills it: freeing it and naming its enums. In the library,
 * without libibverbs, so that the devices formatter and its unit test link
 * without a verbs backend. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "rdmapush/verbs_devices.h"

void rp_verbs_devices_free(struct rp_dev_list *l)
{
	if (!l || !l->devs)
		return;
	for (size_t i = 0; i < l->ndevs; i++) {
		struct rp_dev_info *d = &l->devs[i];

		for (size_t p = 0; p < d->nports; p++)
			free(d->ports[p].gids);
		free(d->ports);
	}
	free(l->devs);
	l->devs = NULL;
	l->ndevs = 0;
}

const char *rp_gid_type_name(enum rp_gid_type t)
{
	static const char *const names[] = {
		[RP_GID_IB] = "IB",
		[RP_GID_ROCE_V1] = "RoCE v1",
		[RP_GID_ROCE_V2] = "RoCE v2",
	};

	return (unsigned int)t < RP_GID_TYPE_MAX ? names[t] : "?";
}
