// SPDX-License-Identifier: MIT
/* rdmapush ping around the round trips: the statistics (pure), the
 * client's report (text or one JSON object). The server's listening
 * loop: ping_server.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/ping.h"
#include "rdmapush/json.h"
#include "rdmapush/session.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% of them at or
 * below it, so never an average of two, and with few values the
 * largest (p99 of fewer than 100 is the max, as it should be: no
 * sample lies above the 99th percentile's rank). */
static double nearest_rank(const double *sorted, size_t n, unsigned int p)
{
	/* ceil(p * n / 100) in integers; n <= RP_PING_MAX_ITERS. */
	size_t rank = (p * n + 99) / 100;

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

int rp_ping_stats(double *rtt, size_t n, struct rp_ping_stats *out)
{
	if (!rtt || !out || !n)
		return RP_EINTERNAL;
	qsort(rtt, n, sizeof(*rtt), cmp_double);
	out->min = rtt[0];
	out->max = rtt[n - 1];
	out->median = n % 2 ? rtt[n / 2] : (rtt[n / 2 - 1] + rtt[n / 2]) / 2;
	out->p99 = nearest_rank(rtt, n, 99);
	return 0;
}

/* ---- report ---- */

/* Whole microseconds, as the JSON output promises (the text keeps two
 * decimals). */
static struct json_object *usec(double us)
{
	return json_object_new_int64(llround(us));
}

/* {min, median, p99, max}, each scaled by k (1: round trip; 0.5: the
 * one-way estimate). */

static struct json_object *stats_obj(const struct rp_ping_stats *s, double k)
{
	struct json_object *o = json_object_new_object();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= rp_json_add(o, "min", usec(s->min * k));
	rc |= rp_json_add(o, "median", usec(s->median * k));
	rc |= rp_json_add(o, "p99", usec(s->p99 * k));
	rc |= rp_json_add(o, "max", usec(s->max * k));
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int report_json(FILE *f, const struct rp_ping_result *r)
{
	struct json_object *o = json_object_new_object();
	int rc = 0;

	if (!o)
		return -ENOMEM;
	rc |= rp_json_add(o, "type", json_object_new_string("ping"));
	rc |= rp_json_add(o, "peer", json_object_new_string(r->peer));
	rc |= rp_json_add(o, "op",
			  json_object_new_string(rp_proto_op_name(r->op)));
	rc |= rp_json_add(o, "size", json_object_new_int64(r->size));
	rc |= rp_json_add(o, "iterations",
			  json_object_new_int64(r->iterations));
	rc |= rp_json_add(o, "rtt_us", stats_obj(&r->rtt, 1.0));
	rc |= rp_json_add(o, "one_way_us", stats_obj(&r->rtt, 0.5));
	return rp_json_print(f, o, rc ? -ENOMEM : 0);
}

int rp_ping_report(FILE *f, const struct rp_ping_result *r, bool json)
{
	const struct rp_ping_stats *s = &r->rtt;

	if (json)
		return report_json(f, r);
	fprintf(f, "rdmapush ping: %s, %u round trip%s of %u byte%s (--op "
		"%s)\n", r->peer, r->iterations, rp_s(r->iterations),
		r->size, rp_s(r->size), rp_proto_op_name(r->op));
	fprintf(f, "  round trip (us):           min %.2f  median %.2f  "
		"p99 %.2f  max %.2f\n", s->min, s->median, s->p99, s->max);
	fprintf(f, "  one way, estimated RTT/2:  min %.2f  median %.2f  "
		"p99 %.2f  max %.2f\n", s->min / 2, s->median / 2,
		s->p99 / 2, s->max / 2);
	return fflush(f) ? -EIO : 0;
}
