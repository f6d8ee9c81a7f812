// SPDX-License-Identifier: MIT
/* The json-c helpers of every --json writer (transfer reports, devices,
 * ping): one way to add a member and to print one object per line. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <json-c/json.h>

#include "rdmapush/json.h"

int rp_json_add(struct json_object *o, const char *k, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, k, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int rp_json_print(FILE *f, struct json_object *o, int rc)
{
	if (!rc) {
		fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		      f);
		fputc('\n', f);
		if (fflush(f))
			rc = -EIO;
	}
	json_object_put(o);
	return rc;
}
