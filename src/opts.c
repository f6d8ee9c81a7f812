// SPDX-License-Identifier: MIT
/* Command line: argv -> struct rp_opts, its validation, and the help text. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/opts.h"
#include "rdmapush/trace.h"
#include "opts_int.h"

static const char recv_short[] = ":p:b:o:1fm:d:i:g:tJqT:h";
static const struct option recv_long[] = {
	{ "port",	required_argument, NULL, 'p' },
	{ "bind",	required_argument, NULL, 'b' },
	{ "dir",	required_argument, NULL, 'o' },
	{ "once",	no_argument,	   NULL, '1' },
	{ "force",	no_argument,	   NULL, 'f' },
	{ "max-transfers", required_argument, NULL, 'm' },
	{ "max-size",	required_argument, NULL, OPT_MAX_SIZE },
	{ "max-per-address", required_argument, NULL, OPT_PER_ADDR },
	{ "device",	required_argument, NULL, 'd' },
	{ "ib-port",	required_argument, NULL, 'i' },
	{ "gid-index",	required_argument, NULL, 'g' },
	{ "trace",	no_argument,	   NULL, 't' },
	{ "trace-json",	required_argument, NULL, OPT_TRACE_JSON },
	{ "json",	no_argument,	   NULL, 'J' },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "timeout",	required_argument, NULL, 'T' },
	{ "psk",	required_argument, NULL, OPT_PSK },
	{ "no-device-check", no_argument,  NULL, OPT_NO_DEVICE_CHECK },
	{ "keep-setid",	no_argument,	   NULL, OPT_KEEP_SETID },
	{ "threads",	required_argument, NULL, OPT_THREADS },
	{ "direct",	no_argument,	   NULL, OPT_DIRECT },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char send_short[] = ":p:rkc:w:d:i:g:tJqT:h";
static const struct option send_long[] = {
	{ "port",	required_argument, NULL, 'p' },
	{ "recursive",	no_argument,	   NULL, 'r' },
	{ "preserve",	no_argument,	   NULL, 'k' },
	{ "as",		required_argument, NULL, OPT_AS },
	{ "chunk",	required_argument, NULL, 'c' },
	{ "window",	required_argument, NULL, 'w' },
	{ "device",	required_argument, NULL, 'd' },
	{ "ib-port",	required_argument, NULL, 'i' },
	{ "gid-index",	required_argument, NULL, 'g' },
	{ "trace",	no_argument,	   NULL, 't' },
	{ "trace-json",	required_argument, NULL, OPT_TRACE_JSON },
	{ "json",	no_argument,	   NULL, 'J' },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "timeout",	required_argument, NULL, 'T' },
	{ "psk",	required_argument, NULL, OPT_PSK },
	{ "threads",	required_argument, NULL, OPT_THREADS },
	{ "op",		required_argument, NULL, OPT_OP },
	{ "qps",	required_argument, NULL, OPT_QPS },
	{ "direct",	no_argument,	   NULL, OPT_DIRECT },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One line saying what is wrong, one saying where help is; RP_EUSAGE. */
int RP_PRINTF(2, 3) rp_opts_usage_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fputs("rdmapush: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (sub)
		fprintf(stderr, "\nTry 'rdmapush %s --help'.\n", sub);
	else
		fputs("\nTry 'rdmapush --help'.\n", stderr);
	return RP_EUSAGE;
}

/*
 * Decimal digits only: strtoull alone would accept leading blanks, a '+'
 * and a '-' that silently wraps around.
 */
static int parse_decimal(const char *s, unsigned long long *out, char **end)
{
	unsigned long long v;

	if (!s || s[0] < '0' || s[0] > '9')
		return RP_EUSAGE;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno)
		return RP_EUSAGE;
	*out = v;
	return 0;
}

int rp_opts_parse_range(const char *s, unsigned long long min,
			unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (parse_decimal(s, &v, &end) || *end || v < min || v > max)
		return RP_EUSAGE;
	*out = v;
	return 0;
}

int rp_opts_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (parse_decimal(s, &v, &end))
		return RP_EUSAGE;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		return RP_EUSAGE;
	}
	if (shift && end[1] != '\0')
		return RP_EUSAGE;
	if (v > (UINT64_MAX >> shift))
		return RP_EUSAGE;
	*out = (uint64_t)v << shift;
	return 0;
}

static void set_defaults(struct rp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = RP_MODE_NONE;
	o->help_for = RP_MODE_NONE;
	rp_config_defaults(&o->cfg);
}

/* Whether the long option text name (n bytes, maybe abbreviated) is val's. */
static bool long_is(const struct option *longopts, int val, const char *name,
		    size_t n)
{
	const struct option *lo;

	for (lo = longopts; lo->name; lo++)
		if (lo->val == val && !strncmp(lo->name, name, n))
			return true;
	return false;
}

/*
 * The option as the user typed it, for messages; true if it was a known
 * long option. getopt_long leaves the option's value in optopt (0 for an
 * unknown or ambiguous long option) and a long option's text in
 * argv[optind - 1].
 */
bool rp_opts_text(char *buf, size_t len, char **argv,
		  const struct option *longopts)
{
	const char *arg = argv[optind - 1];

	if (!strncmp(arg, "--", 2)) {
		size_t n = strcspn(arg + 2, "=");

		if (!optopt || long_is(longopts, optopt, arg + 2, n)) {
			snprintf(buf, len, "%.*s", (int)(n + 2), arg);
			return optopt != 0;
		}
	}
	snprintf(buf, len, "-%c", optopt);
	return false;
}

int rp_opts_bad_value(const char *sub, const char *what, const char *arg,
		      const char *range)
{
	return rp_opts_usage_error(sub, "invalid %s '%s' (%s)", what, arg,
				   range);
}

/* --op write|read|send: how the chunks move (enum rp_data_op). */
static int parse_op(struct rp_config *o, const char *sub, const char *arg)
{
	for (unsigned int op = 0; op < RP_OP_MAX; op++) {
		if (!strcmp(arg, rp_proto_op_name(op))) {
			o->op = (uint8_t)op;
			return 0;
		}
	}
	return rp_opts_bad_value(sub, "op", arg, "write, read or send");
}

/* The value of the option being parsed; arg is the text after it. */
/* One flat case per option, in --help's order: longer than our usual
 * function, but a table of setters would hide the ranges it checks. */
int rp_opts_set(struct rp_config *o, const char *sub, int c,
		const char *arg)
{
	unsigned long long v;
	uint64_t size;

	switch (c) {
	case 'p':
		if (rp_opts_parse_range(arg, 1, 65535, &v))
			return rp_opts_bad_value(sub, "port", arg, "1..65535");
		o->port = (uint16_t)v;
		break;
	case 'b':
		o->bind_addr = arg;
		break;
	case 'o':
		o->dir = arg;
		break;
	case '1':
		o->once = true;
		break;
	case 'f':
		o->force = true;
		break;
	case 'm':
		if (rp_opts_parse_range(arg, 1, RP_MAX_XFERS, &v))
			return rp_opts_bad_value(sub, "max transfers", arg,
						 "1..64");
		o->max_transfers = (int)v;
		break;
	case OPT_MAX_SIZE:
		if (rp_opts_parse_size(arg, &size) || size == 0)
			return rp_opts_bad_value(sub, "maximum file size", arg,
						 "1 or more bytes, e.g. 10G");
		o->max_size = size;
		break;
	case OPT_PER_ADDR:
		if (rp_opts_parse_range(arg, 1, RP_MAX_PENDING, &v))
			return rp_opts_bad_value(sub, "connections per address",
						 arg, "1..64");
		o->max_per_addr = (int)v;
		break;
	case 'd':
		o->dev = arg;
		break;
	case 'i':
		if (rp_opts_parse_range(arg, 1, 255, &v))
			return rp_opts_bad_value(sub, "IB port", arg, "1..255");
		o->ib_port = (int)v;
		break;
	case 'g':
		if (rp_opts_parse_range(arg, 0, 255, &v))
			return rp_opts_bad_value(sub, "GID index", arg,
						 "0..255");
		o->gid_index = (int)v;
		break;
	case 't':
		o->trace = true;
		break;
	case OPT_TRACE_JSON:
		if (!*arg)
			return rp_opts_bad_value(sub, "--trace-json file", arg,
						 "a file name");
		o->trace_json = arg;
		break;
	case 'J':
		o->json = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'T':
		if (rp_opts_parse_range(arg, 1, 86400, &v))
			return rp_opts_bad_value(sub, "timeout", arg,
						 "1..86400 seconds");
		o->timeout = (int)v;
		break;
	case OPT_PSK:
		o->psk_file = arg;
		break;
	case OPT_NO_DEVICE_CHECK:
		o->no_device_check = true;
		break;
	case OPT_AS:
		/* Checked with the sources (rp_walk_open). */
		o->as_name = arg;
		break;
	case 'r':
		o->recursive = true;
		break;
	case 'k':
		o->preserve = true;
		break;
	case OPT_KEEP_SETID:
		o->keep_setid = true;
		break;
	case OPT_THREADS:
		if (rp_opts_parse_range(arg, 1, RP_MAX_THREADS, &v))
			return rp_opts_bad_value(sub, "thread count", arg,
						 "1..64");
		o->threads = (uint32_t)v;
		break;
	case OPT_DIRECT:
		o->direct = true;
		break;
	case OPT_OP:
		return parse_op(o, sub, arg);
	case OPT_QPS:
		if (rp_opts_parse_range(arg, 1, RP_QPS_MAX, &v))
			return rp_opts_bad_value(sub, "QP count", arg, "1..8");
		o->qps = (uint32_t)v;
		break;
	case 'c':
		if (rp_opts_parse_size(arg, &size) || size < RP_MIN_CHUNK ||
		    size > RP_MAX_CHUNK)
			return rp_opts_bad_value(sub, "chunk size", arg,
						 "4K..64M, e.g. 256K or 1M");
		o->chunk = (uint32_t)size;
		o->shape_set = true;
		break;
	case 'w':
		if (rp_opts_parse_range(arg, 1, RP_MAX_WINDOW, &v))
			return rp_opts_bad_value(sub, "window", arg, "1..64");
		o->window = (uint32_t)v;
		o->shape_set = true;
		break;
	default:
		return rp_opts_usage_error(sub, "internal: unhandled option %d",
					   c);
	}
	return 0;
}

/* Options whose value names something: an empty one is a typo. */
int rp_opts_check_not_empty(const struct rp_config *o, const char *sub)
{
	if (o->dir && !o->dir[0])
		return rp_opts_usage_error(sub, "empty directory for -o");
	if (o->dev && !o->dev[0])
		return rp_opts_usage_error(sub, "empty device name for -d");
	if (o->bind_addr && !o->bind_addr[0])
		return rp_opts_usage_error(sub, "empty address for -b");
	if (o->psk_file && !o->psk_file[0])
		return rp_opts_usage_error(sub, "empty file name for --psk");
	return 0;
}

static int check_combination(const struct rp_config *o, const char *sub)
{
	uint64_t ring = (uint64_t)o->chunk * o->window;
	char b1[32], b2[32];

	if (o->quiet && o->trace)
		return rp_opts_usage_error(sub, "--quiet and --trace exclude "
					   "each other");
	if (ring > RP_MAX_RING)
		return rp_opts_usage_error(sub, "chunk * window is %s, over "
					   "%s: %s",
					   rp_fmt_bytes(b1, sizeof(b1), ring),
					   rp_fmt_bytes(b2, sizeof(b2),
							RP_MAX_RING),
					   "lower -c or -w");
	return rp_opts_check_not_empty(o, sub);
}

/*
 * HOST written as for another tool: ssh's host:port, a URL's [v6], or
 * scp's host:path. NULL when h looks like a name or an address (an IPv6
 * address has two colons or more).
 */
const char *rp_opts_host_hint(const char *h)
{
	const char *colon = strchr(h, ':');

	if (h[0] == '[')
		return "write an IPv6 address without brackets";
	if (!colon || strchr(colon + 1, ':'))
		return NULL;
	if (colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1))
		return "use -p PORT for the port";
	return "rdmapush writes into the receiver's -o directory; name the "
	       "file with --as NAME";
}

static int check_positional(struct rp_opts *o, const char *sub, int n,
			    char **pos)
{
	const char *hint;

	if (o->mode == RP_MODE_RECV) {
		if (n > 0)
			return rp_opts_usage_error(sub,
						   "unexpected argument '%s'",
						   pos[0]);
		return 0;
	}
	if (n == 0)
		return rp_opts_usage_error(sub, "missing SOURCE and HOST");
	if (n == 1)
		return rp_opts_usage_error(sub, "missing HOST after '%s'",
					   pos[0]);
	for (int i = 0; i < n - 1; i++)
		if (!pos[i][0])
			return rp_opts_usage_error(sub, "empty SOURCE");
	if (!pos[n - 1][0])
		return rp_opts_usage_error(sub, "empty HOST");
	hint = rp_opts_host_hint(pos[n - 1]);
	if (hint)
		return rp_opts_usage_error(sub, "invalid HOST '%s': %s",
					   pos[n - 1], hint);
	o->cfg.sources = pos;
	o->cfg.nsources = n - 1;
	o->cfg.host = pos[n - 1];
	return 0;
}

static int parse_sub(struct rp_opts *o, enum rp_mode mode, int argc,
		     char **argv)
{
	const char *sub = mode == RP_MODE_SEND ? "send" : "recv";
	const char *shortopts = mode == RP_MODE_SEND ? send_short : recv_short;
	const struct option *longopts =
		mode == RP_MODE_SEND ? send_long : recv_long;
	char text[64];
	int rc;
	int c;

	o->mode = mode;
	/* 0, not 1: glibc then resets its state, so parsing is re-entrant. */
	optind = 0;
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, shortopts, longopts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'h':
			/* Help at once, whatever follows it. */
			o->mode = RP_MODE_HELP;
			o->help_for = mode;
			return 0;
		case ':':
			rp_opts_text(text, sizeof(text), argv, longopts);
			return rp_opts_usage_error(sub,
						   "option '%s' needs a value",
						   text);
		case '?':
			if (rp_opts_text(text, sizeof(text), argv, longopts))
				return rp_opts_usage_error(sub, "option '%s' "
							   "takes no value",
							   text);
			return rp_opts_usage_error(sub, "unknown%s option '%s'",
						   optopt ? "" :
						   " or ambiguous", text);
		default:
			rc = rp_opts_set(&o->cfg, sub, c, optarg);
			if (rc)
				return rc;
		}
	}
	rc = check_positional(o, sub, argc - optind, argv + optind);
	if (rc)
		return rc;
	return check_combination(&o->cfg, sub);
}

/* "help", "help send", "--help recv": which text to show. */
static int parse_help(struct rp_opts *o, int argc, char **argv)
{
	o->mode = RP_MODE_HELP;
	o->help_for = RP_MODE_NONE;
	if (argc < 3)
		return 0;
	if (argc > 3)
		return rp_opts_usage_error(NULL, "unexpected argument '%s'",
					   argv[3]);
	if (!strcmp(argv[2], "send"))
		o->help_for = RP_MODE_SEND;
	else if (!strcmp(argv[2], "recv"))
		o->help_for = RP_MODE_RECV;
	else if (!strcmp(argv[2], "keygen"))
		o->help_for = RP_MODE_KEYGEN;
	else if (!strcmp(argv[2], "devices"))
		o->help_for = RP_MODE_DEVICES;
	else if (!strcmp(argv[2], "ping"))
		o->help_for = RP_MODE_PING;
	else if (!strcmp(argv[2], "render"))
		o->help_for = RP_MODE_RENDER;
	else
		return rp_opts_usage_error(NULL, "no help for '%s': try send, "
					   "recv, keygen, devices, ping or "
					   "render", argv[2]);
	return 0;
}

/*
 * "devices [--for HOST] [-d DEV] [-i N] [-g N] [-J] [-t]": a report, no
 * transfer; the options it shares with send take rp_opts_set()'s checks.
 */
static int parse_devices(struct rp_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "for",	required_argument, NULL, OPT_FOR },
		{ "device",	required_argument, NULL, 'd' },
		{ "ib-port",	required_argument, NULL, 'i' },
		{ "gid-index",	required_argument, NULL, 'g' },
		{ "json",	no_argument,	   NULL, 'J' },
		{ "trace",	no_argument,	   NULL, 't' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char text[64];
	int c, rc;

	o->mode = RP_MODE_DEVICES;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:i:g:Jth", longopts,
				NULL)) != -1) {
		if (c == 'h') {
			o->mode = RP_MODE_HELP;
			o->help_for = RP_MODE_DEVICES;
			return 0;
		}
		if (c == ':' || c == '?') {
			bool known = rp_opts_text(text, sizeof(text), argv,
						  longopts);

			return rp_opts_usage_error("devices", c == ':' ?
				"option '%s' needs a value" : known ?
				"option '%s' takes no value" :
				"unknown option '%s'", text);
		}
		if (c == OPT_FOR) {
			if (!optarg[0] || rp_opts_host_hint(optarg))
				return rp_opts_usage_error("devices",
					"invalid HOST '%s' for --for", optarg);
			o->devices_for = optarg;
			continue;
		}
		rc = rp_opts_set(&o->cfg, "devices", c, optarg);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return rp_opts_usage_error("devices",
					   "unexpected argument '%s'%s",
					   argv[optind],
					   " (a host goes after --for)");
	return rp_opts_check_not_empty(&o->cfg, "devices");
}

/*
 * "keygen [--] FILE": no option but --help, so no getopt. Anything else
 * that looks like an option is refused rather than taken for FILE: a
 * key written into a file named "--bogus" (or "-") is a key lost.
 */
static int parse_keygen(struct rp_opts *o, int argc, char **argv)
{
	int i = 2;

	if (i < argc && (!strcmp(argv[i], "-h") ||
			 !strcmp(argv[i], "--help"))) {
		o->mode = RP_MODE_HELP;
		o->help_for = RP_MODE_KEYGEN;
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	else if (i < argc && !strcmp(argv[i], "-"))
		return rp_opts_usage_error("keygen", "FILE '-': a key is "
					   "never written to standard output "
					   "(for a file named '-', use ./-)");
	else if (i < argc && argv[i][0] == '-')
		return rp_opts_usage_error("keygen", "unknown option '%s' (a "
					   "FILE that starts with '-' goes "
					   "after --)", argv[i]);
	if (i >= argc)
		return rp_opts_usage_error("keygen", "missing FILE");
	if (i + 1 < argc)
		return rp_opts_usage_error("keygen", "unexpected argument '%s'",
					   argv[i + 1]);
	if (!argv[i][0])
		return rp_opts_usage_error("keygen", "empty FILE");
	o->mode = RP_MODE_KEYGEN;
	o->file = argv[i];
	return 0;
}

int rp_opts_parse(struct rp_opts *o, int argc, char **argv)
{
	const char *cmd;

	set_defaults(o);
	if (argc < 2 || !argv[1])
		return rp_opts_usage_error(NULL, "missing command: send, "
					   "recv, keygen, devices, ping, "
					   "render or help");
	cmd = argv[1];
	if (!strcmp(cmd, "send"))
		return parse_sub(o, RP_MODE_SEND, argc - 1, argv + 1);
	if (!strcmp(cmd, "recv"))
		return parse_sub(o, RP_MODE_RECV, argc - 1, argv + 1);
	if (!strcmp(cmd, "keygen"))
		return parse_keygen(o, argc, argv);
	if (!strcmp(cmd, "devices"))
		return parse_devices(o, argc - 1, argv + 1);
	if (!strcmp(cmd, "ping"))
		return rp_opts_parse_ping(o, argc - 1, argv + 1);
	if (!strcmp(cmd, "render"))
		return rp_opts_parse_render(o, argc, argv);
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h"))
		return parse_help(o, argc, argv);
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		if (argc > 2)
			return rp_opts_usage_error(NULL,
						   "unexpected argument '%s'",
						   argv[2]);
		o->mode = RP_MODE_VERSION;
		return 0;
	}
	if (cmd[0] == '-')
		return rp_opts_usage_error(NULL, "unknown option '%s' %s", cmd,
					   "(options follow send or recv)");
	return rp_opts_usage_error(NULL,
				   "unknown command '%s': use send, recv, "
				   "keygen, devices, ping or render", cmd);
}

/* --- help text ----------------------------------------------------------- */

/* Each line at most 68 columns: the text stays inside 80 on a terminal. */
static const char help_overview[] =
	"Usage: rdmapush recv [OPTION]...\n"
	"       rdmapush send [OPTION]... SOURCE... HOST\n"
	"       rdmapush keygen [--] FILE\n"
	"       rdmapush devices [--for HOST] [--json] [-d DEV]\n"
	"       rdmapush ping --server | rdmapush ping [OPTION]... HOST\n"
	"       rdmapush render SENDER.jsonl RECEIVER.jsonl -o FILE.svg\n"
	"       rdmapush help [send|recv|keygen|devices|ping|render]\n"
	"       rdmapush --help | --version\n"
	"\n"
	"Push files and directories from one machine to another over RDMA,\n"
	"with the safety of scp: the data is checked end to end (XXH3-128),\n"
	"each file appears under its name only once complete, verified and\n"
	"on disk, and nothing is written outside the receiver's directory.\n"
	"\n"
	"Commands:\n"
	"  recv           receive pushed files into a directory\n"
	"  send           push files, directories (-r) or standard input\n"
	"                 to the receiver on HOST, in one session\n"
	"  keygen FILE    write a new random key for --psk into FILE\n"
	"  devices        show the RDMA devices, ports and GIDs, and with\n"
	"                 --for HOST the GID rdmapush would use for HOST\n"
	"  ping           measure RDMA round-trip latency (--server: answer)\n"
	"  render         draw two --trace-json files as one SVG picture\n"
	"  help [CMD]     show this help, or that of a command\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this help and exit\n"
	"  -V, --version  show the version and exit\n";

static const char help_recv[] =
	"Usage: rdmapush recv [OPTION]...\n"
	"\n"
	"Listen on a TCP port and store what each sender pushes in DIR, each\n"
	"session in its own process, until SIGINT or SIGTERM (or after one\n"
	"session with --once). Data lands by RDMA Write in a ring of window\n"
	"x chunk bytes, is written to a temporary file, and each file gets\n"
	"its name only once its size and checksum match and it is synced.\n"
	"Paths are relative to DIR, each component a plain name (not '.'\n"
	"or '..', no control characters, at most 255 bytes); directories\n"
	"are created one level at a time and symbolic links are never\n"
	"followed. A new file gets the sender's permission bits masked by\n"
	"this process's umask (exactly, with the sender's -k), never an\n"
	"owner, and no setuid, setgid or sticky bit without --keep-setid.\n"
	"A failed file is reported and the session goes on.\n"
	"\n"
	"Options:\n"
	"  -p, --port PORT      TCP port to listen on (default 18500)\n"
	"  -b, --bind ADDR      address to listen on (default: all)\n"
	"  -o, --dir DIR        store files in DIR (default: the current\n"
	"                       directory)\n"
	"  -1, --once           exit after one transfer, with its result\n"
	"  -f, --force          replace an existing file or symbolic link of\n"
	"                       the same name (never a directory)\n"
	"  -m, --max-transfers N  transfers at once, 1..64 (default 4); one\n"
	"                       more sender is told the receiver is busy\n"
	"      --max-size SIZE  refuse files larger than SIZE, with an\n"
	"                       optional K, M or G suffix (default: no limit)\n"
	"      --no-device-check  start without an active RDMA port (one\n"
	"                       that comes up later); each transfer then\n"
	"                       checks for itself\n"
	"      --max-per-address N  connections from one address, 1..64\n"
	"                       (default 8), whether in their handshake or\n"
	"                       transferring; one more is refused as busy\n"
	"      --keep-setid     keep the setuid, setgid and sticky bits a\n"
	"                       sender's -k asks for (default: dropped)\n";

static const char help_send[] =
	"Usage: rdmapush send [OPTION]... SOURCE... HOST\n"
	"\n"
	"Push each SOURCE to the receiver listening on HOST (a name or an\n"
	"address), all in one session over one queue pair (or --qps of\n"
	"them): a regular file lands under its last component, a directory\n"
	"(with -r) as a tree under its own name, as scp -r does, and '-'\n"
	"(standard input, with --as) as NAME. Symbolic links, devices,\n"
	"FIFOs and sockets in a tree are skipped and counted; a symbolic\n"
	"link named as a SOURCE is followed. The data moves as RDMA Writes\n"
	"(or, with --op, RDMA Reads or Sends), a window of chunks in\n"
	"flight; small files are pipelined. Each file counts once the\n"
	"receiver has verified its checksum and synced it to disk; a failed\n"
	"file is reported and the others go on, and the exit status is then\n"
	"that of the first failure.\n"
	"\n"
	"Options:\n"
	"  -p, --port PORT      the receiver's TCP port (default 18500)\n"
	"  -r, --recursive      send directories and everything in them\n"
	"  -k, --preserve       keep each file's mode and modification time\n"
	"                       (k for keep: -p is the port)\n"
	"      --as NAME        name on the receiver of the one SOURCE\n"
	"                       (default: its last component); required for\n"
	"                       '-'\n"
	"      --op OP          how the chunks move: write (the default: RDMA\n"
	"                       Write into the receiver's ring), read (the\n"
	"                       receiver RDMA-Reads ours) or send (two-sided\n"
	"                       Send into receives it keeps posted; no rkey\n"
	"                       is exposed)\n"
	"      --qps N          stripe the chunks over N RC queue pairs,\n"
	"                       1..8 (default 1): chunk n goes on QP n mod N\n"
	"  -c, --chunk SIZE     bytes per RDMA Write, 4K..64M, with an\n"
	"                       optional K, M or G suffix (default 1M)\n"
	"  -w, --window N       chunks in flight, 1..64 (default 8); chunk x\n"
	"                       window, at most 256M, is about the memory\n"
	"                       each side pins. Every file takes a chunk of\n"
	"                       its own: for files of 64K or less on average\n"
	"                       the defaults are 64K x 64\n";

static const char help_keygen[] =
	"Usage: rdmapush keygen [--] FILE\n"
	"\n"
	"Write 32 random bytes into the new file FILE, readable by its owner\n"
	"only (mode 0600), for use with --psk FILE on both sides. An\n"
	"existing FILE is never replaced.\n";

static const char help_devices[] =
	"Usage: rdmapush devices [--for HOST] [OPTION]...\n"
	"\n"
	"Show each RDMA device (node GUID, firmware, the main limits of\n"
	"ibv_query_device), each port (state, link layer, MTU, speed, LID)\n"
	"and each port's GID table: index, type (IB, RoCE v1, RoCE v2),\n"
	"address and network interface.\n"
	"\n"
	"Options:\n"
	"      --for HOST       mark the GID a transfer to or from HOST would\n"
	"                       use, chosen as send and recv choose it, and\n"
	"                       say why (no packet is sent to HOST)\n"
	"  -d, --device DEV     only this device\n"
	"  -i, --ib-port N      with --for: only this port, as for send\n"
	"  -g, --gid-index N    with --for: this GID index, as for send\n"
	"  -J, --json           one JSON object on stdout\n"
	"  -t, --trace          with --for: show each step of the choice\n"
	"  -h, --help           show this help and exit\n"
	"\n"
	"Exit status: 0 listed (and with --for, a GID found); 2 usage;\n"
	"4 no RDMA device, no device DEV, HOST does not resolve or has no\n"
	"route, or no GID fits HOST.\n";

static const char help_common[] =
	"  -d, --device DEV     RDMA device, e.g. mlx5_0 or rxe0 (default:\n"
	"                       the one with the control connection's\n"
	"                       address)\n"
	"  -i, --ib-port N      device port, 1..255 (default: an active one)\n"
	"  -g, --gid-index N    GID index, 0..255 (default: the RoCE v2 GID\n"
	"                       of the control connection's address)\n"
	"  -T, --timeout SEC    give up when the peer makes no progress for\n"
	"                       SEC seconds, 1..86400 (default 30)\n"
	"      --psk FILE       authenticate the peer with the pre-shared\n"
	"                       key in FILE; both sides use the same key\n"
	"      --threads N      worker threads that read, hash and write the\n"
	"                       chunks, 1..64 (default: one per core, at\n"
	"                       most 8)\n"
	"      --direct         file data bypasses the page cache (O_DIRECT)\n"
	"                       on this side's disk; where the file system\n"
	"                       refuses it, a note and buffered I/O\n"
	"  -t, --trace          explain every step (verbs, control messages,\n"
	"                       data) on stderr\n"
	"      --trace-json FILE\n"
	"                       write every trace event to FILE, one JSON\n"
	"                       object per line (docs/trace.md); with or\n"
	"                       without --trace\n"
	"  -J, --json           print each transfer's result as one JSON\n"
	"                       object on stdout (combines with --trace)\n"
	"  -q, --quiet          print errors only (not with --trace)\n"
	"  -h, --help           show this help and exit\n";

static const char help_example[] =
	"Example:\n"
	"  host-b$ rdmapush recv -o /srv/in\n"
	"  host-a$ rdmapush send big.iso 192.0.2.10\n"
	"  host-a$ rdmapush send -r -k photos/ notes.txt 192.0.2.10\n"
	"  host-a$ tar c src | rdmapush send --as src.tar - 192.0.2.10\n";

static const char help_exit[] =
	"Exit status:\n"
	"  0  success: every file is verified and on the receiver's disk\n"
	"     (skipped symbolic links and special files do not count)\n"
	"  1  internal error\n"
	"  2  usage or configuration error (command line, key file)\n"
	"  3  refused by the peer, or a protocol error\n"
	"  4  peer, network or RDMA failure, or timeout\n"
	"  5  local I/O error (reading or writing the file)\n"
	"  6  refused by policy: file exists, bad name, too big or no space\n"
	"  (when some files fail and the others arrive: the first failure's)\n"
	"  7  the receiver cannot listen: port in use, not allowed, or an\n"
	"     address not of this host\n"
	"  130, 143  stopped by SIGINT or SIGTERM\n";

static const char help_security[] =
	"Security: without --psk, anyone who can reach the receiver's port\n"
	"can push files into its directory. RDMA traffic is not encrypted.\n";

void rp_opts_usage(FILE *f, enum rp_mode mode)
{
	switch (mode) {
	case RP_MODE_SEND:
		fputs(help_send, f);
		fputs(help_common, f);
		break;
	case RP_MODE_RECV:
		fputs(help_recv, f);
		fputs(help_common, f);
		break;
	case RP_MODE_KEYGEN:
		fputs(help_keygen, f);
		break;
	case RP_MODE_DEVICES:
		fputs(help_devices, f);
		break;
	case RP_MODE_PING:
		rp_opts_ping_usage(f);
		return;
	case RP_MODE_RENDER:
		rp_opts_render_usage(f);
		return;
	default:
		fputs(help_overview, f);
		break;
	}
	fprintf(f, "\n%s\n%s\n%s", help_example, help_exit, help_security);
	if (mode != RP_MODE_SEND && mode != RP_MODE_RECV)
		fputs("\nSee 'rdmapush send --help', 'rdmapush recv --help' "
		      "and rdmapush(1).\n", f);
}
