/* SPDX-License-Identifier: MIT */
/* The json-c helpers every --json writer shares (src/json.c). */
#ifndef RDMAPUSH_JSON_H
#define RDMAPUSH_JSON_H

#include <stdio.h>

struct json_object;
/*
 * For every --json writer: add v to o under k (v NULL, as json-c's
 * constructors return when out of memory, or a failed add: -ENOMEM, v
 * released), and print o on one line to f and release it (rc: the adds'
 * result, OR-ed; nonzero prints nothing). 0 or -ENOMEM / -EIO.
 */
int rp_json_add(struct json_object *o, const char *k, struct json_object *v);
int rp_json_print(FILE *f, struct json_object *o, int rc);
/*
 * A number rounded to what it means, printed with exactly that many
 * decimals: rp_json_fixed(0.409414675, 3) prints 0.409, never the
 * binary double's 0.40941467500000073. A value that is not finite, or
 * that rounds to zero, prints as 0 with those decimals. NULL when out
 * of memory (rp_json_add() then fails).
 */
struct json_object *rp_json_fixed(double d, int decimals);

#endif
