// SPDX-License-Identifier: MIT
/* The device list's plain data (rdmapush/verbs_devices.h), apart from the
 * backend that fills it: freeing it, naming its enums, and guessing a
 * device's provider from its name. In the library, without libibverbs,
 * so that the devices formatter and its unit test link without a verbs
 * backend. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/verbs.h"
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

/*
 * "rxe0" -> "rxe", "mlx5_0" -> "mlx5": the name without its trailing
 * digits and the '_' before them; "mlx5_core" -> "mlx5": a kernel driver's name
 * without "_core". Only letters, digits and '_' (it becomes part of a
 * file name to load).
 */
bool rp_verbs_provider_guess(const char *name, bool driver, char *out,
			     size_t len)
{
	size_t n = strlen(name);

	if (!n || n >= len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return false;
	memcpy(out, name, n + 1);
	if (driver && n > 5 && !strcmp(out + n - 5, "_core"))
		n -= 5;
	/* The instance number, and the '_' before it ("mlx5_0"). */
	while (!driver && n && isdigit((unsigned char)out[n - 1]))
		n--;
	if (!driver && n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
	return n > 0;
}
