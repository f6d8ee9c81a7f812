// SPDX-License-Identifier: MIT
/* Command line of rdmapush doctor: its options (on top of opts.c's
 * common ones) and their checks; its help page is in opts_help.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/opts.h"
#include "rdmapush/ping.h"
#include "opts_int.h"

/* A probe that gets no answer is a finding, not a half-minute wait. */
#define DOCTOR_DEFAULT_TIMEOUT	5

/* Long-only options, above opts.c's (256 and up) and ping's (512). */
enum {
	DOCTOR_OPT_PING_PORT = 768,
};

static const char doctor_short[] = ":p:d:i:g:T:Jth";
static const struct option doctor_long[] = {
	{ "port",	required_argument, NULL, 'p' },
	{ "ping-port",	required_argument, NULL, DOCTOR_OPT_PING_PORT },
	{ "device",	required_argument, NULL, 'd' },
	{ "ib-port",	required_argument, NULL, 'i' },
	{ "gid-index",	required_argument, NULL, 'g' },
	{ "timeout",	required_argument, NULL, 'T' },
	{ "psk",	required_argument, NULL, OPT_PSK },
	{ "json",	no_argument,	   NULL, 'J' },
	{ "trace",	no_argument,	   NULL, 't' },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int check_doctor(struct rp_opts *o, int n, char **pos)
{
	if (n > 1)
		return rp_opts_usage_error("doctor", "unexpected argument "
					   "'%s'", pos[1]);
	if (n == 1) {
		const char *hint = pos[0][0] ? rp_opts_host_hint(pos[0]) :
				   NULL;

		if (!pos[0][0] || hint)
			return rp_opts_usage_error("doctor", "invalid HOST "
						   "'%s'%s%s", pos[0],
						   hint ? ": " : "",
						   hint ? hint : "");
		o->cfg.host = pos[0];
	}
	/* The ping server's port: the receiver's + 1, as ping's default
	 * is recv's + 1. */
	if (!o->doctor_ping_port)
		o->doctor_ping_port = o->cfg.port < 65535 ? o->cfg.port + 1 :
				      RP_PING_DEFAULT_PORT;
	return rp_opts_check_not_empty(&o->cfg, "doctor");
}

int rp_opts_parse_doctor(struct rp_opts *o, int argc, char **argv)
{
	unsigned long long v;
	int rc;
	int c;

	o->mode = RP_MODE_DOCTOR;
	o->cfg.timeout = DOCTOR_DEFAULT_TIMEOUT;
	/* The data ops a ping round trip can take, each tried once. */
	o->doctor_ops[0] = RP_OP_SEND;
	o->doctor_ops[1] = RP_OP_WRITE;
	o->doctor_nops = 2;
	optind = 0;
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, doctor_short, doctor_long, NULL);
		if (c == -1)
			break;
		if (c == 'h') {
			o->mode = RP_MODE_HELP;
			o->help_for = RP_MODE_DOCTOR;
			return 0;
		}
		if (c == ':' || c == '?')
			return rp_opts_getopt_error("doctor", c, argv,
						    doctor_long);
		if (c == DOCTOR_OPT_PING_PORT) {
			if (rp_opts_parse_range(optarg, 1, 65535, &v))
				return rp_opts_bad_value("doctor", "ping port",
							 optarg, "1..65535");
			o->doctor_ping_port = (uint16_t)v;
			continue;
		}
		rc = rp_opts_set(&o->cfg, "doctor", c, optarg);
		if (rc)
			return rc;
	}
	return check_doctor(o, argc - optind, argv + optind);
}
