// SPDX-License-Identifier: MIT
/* Command line of rdmapush render: its files (two, or a chain's) and -o,
 * or --packets FILE.pcap (its help page is in opts_help.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "rdmapush/opts.h"
#include "opts_int.h"

/* "render SENDER RECEIVER [RECEIVER...] -o FILE" (any order of -o): no
 * getopt. */
int rp_opts_parse_render(struct rp_opts *o, int argc, char **argv)
{
	const char **pos = o->render_in;
	size_t j, n = 0;
	int i;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->mode = RP_MODE_HELP;
			o->help_for = RP_MODE_RENDER;
			return 0;
		}
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 >= argc)
				return rp_opts_usage_error("render",
							   "option '%s' "
							   "needs a value", a);
			o->render_out = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			o->render_out = a + 9;
		} else if (!strcmp(a, "--packets")) {
			if (i + 1 >= argc)
				return rp_opts_usage_error("render",
							   "option '%s' "
							   "needs a value", a);
			o->render_packets = argv[++i];
		} else if (!strncmp(a, "--packets=", 10)) {
			o->render_packets = a + 10;
		} else if (a[0] == '-' && a[1]) {
			return rp_opts_usage_error("render",
						   "unknown option '%s'", a);
		} else if (n == RP_RENDER_MAX_TRACES) {
			return rp_opts_usage_error("render",
						   "more than %d traces: "
						   "a chain of at most %d "
						   "hosts", RP_RENDER_MAX_TRACES,
						   RP_RENDER_MAX_TRACES);
		} else {
			pos[n++] = a;
		}
	}
	/* The packets of a capture as text, on standard output. */
	if (o->render_packets) {
		if (n || o->render_out)
			return rp_opts_usage_error("render", "--packets "
						   "prints to standard output: "
						   "no trace files, no -o");
		if (!o->render_packets[0])
			return rp_opts_usage_error("render",
						   "empty file name");
		o->mode = RP_MODE_RENDER;
		return 0;
	}
	if (n < 2)
		return rp_opts_usage_error("render", "missing %s",
					   n ? "RECEIVER.jsonl"
					   : "SENDER.jsonl and RECEIVER.jsonl");
	if (!o->render_out)
		return rp_opts_usage_error("render",
					   "missing -o FILE.svg (or -o - "
					   "for standard output)");
	for (j = 0; j < n && pos[j][0]; j++)
		;
	if (j < n || !o->render_out[0])
		return rp_opts_usage_error("render", "empty file name");
	o->mode = RP_MODE_RENDER;
	o->render_n = n;
	return 0;
}
