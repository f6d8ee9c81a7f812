/* SPDX-License-Identifier: MIT */
/* rdmapush render: two --trace-json files (sender, receiver) merged into
 * one standalone SVG sequence diagram. No verbs, no network. */
#ifndef RDMAPUSH_RENDER_H
#define RDMAPUSH_RENDER_H

#include "rdmapush/export.h"

#include <stdio.h>

/*
 * Read the trace files sender and receiver (JSON Lines, schema version 1,
 * see docs/trace.md), merge them by message matching and write the picture
 * to out ("-": standard output) through a temporary file renamed into place,
 * so no partial SVG is ever left. Each error is reported once on stderr
 * ("rdmapush render: ..."), naming the file (and line). Returns 0;
 * -errno when a file cannot be read or the output written (exit 5);
 * RP_EPROTO for a line that is not JSON or lacks "v" or "kind", and for
 * two traces that do not pair (exit 3); RP_EVERSION for a schema version
 * other than 1 (exit 3).
 */
int rp_render(const char *sender, const char *receiver, const char *out)
	__attribute__((warn_unused_result));

/*
 * Write s to f as XML character data or attribute text, escaped (&, <,
 * >, ", '), with invalid UTF-8 and the control characters XML 1.0 does
 * not allow replaced by '?', at most max characters (0: no limit; a cut
 * text ends in "..."). Returns the characters written.
 */
int rp_render_xml_text(FILE *f, const char *s, int max);

#endif
