/* SPDX-License-Identifier: MIT */
/* rdmapush render: --trace-json files (sender, receiver; or a chain's,
 * one per node) merged into one standalone SVG sequence diagram. No
 * verbs, no network. */
#ifndef RDMAPUSH_RENDER_H
#define RDMAPUSH_RENDER_H

#include "rdmapush/export.h"

#include <stddef.h>
#include <stdio.h>

/*
 * Read the trace files paths (JSON Lines, schema version 1, see
 * docs/trace.md): a sender's and its receiver's (in either order), or a
 * chain's in chain order, n from 2 to RP_RENDER_MAX_TRACES (the first
 * the sender's, each between a relaying receiver's: its "recv" session
 * faces the file before it, its "relay" session the file after). Merge
 * each adjacent two by message matching and write the picture, one
 * lifeline per file, to out ("-": standard output) through a temporary
 * file renamed into place, so no partial SVG is ever left. Each error is
 * reported once on stderr ("rdmapush render: ..."), naming the file (and
 * line). Returns 0; -errno when a file cannot be read or the output
 * written (exit 5); RP_EPROTO for a line that is not JSON or lacks "v"
 * or "kind", for two traces that do not pair, and in a chain for a file
 * between two others without a relay session or files out of chain
 * order (exit 3); RP_EVERSION for a schema version other than 1 (exit
 * 3); -EINVAL for n out of range.
 */
#define RP_RENDER_MAX_TRACES 8
int rp_render_chain(const char *const *paths, size_t n, const char *out)
	__attribute__((warn_unused_result));

/*
 * render --packets FILE.pcap: each RoCE v2 packet of the capture path
 * as one line on out, "SECONDS LINE" (seconds since the first frame,
 * LINE as rp_roce_format() writes it, or "malformed RoCE v2 frame (N
 * bytes)"); other frames are skipped. 0, or the error of
 * rp_pcapfile_open/next (reported, naming the file), or -errno when out
 * cannot be written (reported).
 */
int rp_render_packets(const char *path, FILE *out)
	__attribute__((warn_unused_result));

/*
 * Write s to f as XML character data or attribute text, escaped (&, <,
 * >, ", '), with invalid UTF-8 and the control characters XML 1.0 does
 * not allow replaced by '?', at most max characters (0: no limit; a cut
 * text ends in "..."). Returns the characters written.
 */
int rp_render_xml_text(FILE *f, const char *s, int max);

#endif
