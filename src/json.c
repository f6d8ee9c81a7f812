// SPDX-License-Identifier: MIT
/* The json-c helpers of every --json writer (transfer reports, devices,
 * ping): one way to add a member, to write a number rounded to what it
 * means, and to print one object per line. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>

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

struct json_object *rp_json_fixed(double d, int decimals)
{
	char b[64];

	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	/* Not JSON (NaN, inf), or a "-0.000" that reads as a sign. */
	if (!isfinite(d) || fabs(d) < 0.5 * pow(10.0, -decimals))
		d = 0.0;
	snprintf(b, sizeof(b), "%.*f", decimals, d);
	return json_object_new_double_s(d, b);
}

int rp_json_print(FILE *f, struct json_object *o, int rc)
{
	if (!rc) {
		/* A path's "/" stays "/": escaping it is legal, not needed. */
		fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					JSON_C_TO_STRING_NOSLASHESCAPE), f);
		fputc('\n', f);
		if (fflush(f))
			rc = -EIO;
	}
	json_object_put(o);
	return rc;
}
