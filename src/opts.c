// SPDX-License-Identifier: MIT
/* Command line: argv -> struct rp_opts and its validation (the help
 * pages: opts_help.c). */
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
#include <sys/stat.h>
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
	{ "max-pending-per-prefix", required_argument, NULL, OPT_PER_PREFIX },
	{ "max-xfers-per-address", required_argument, NULL, OPT_XFERS_PER_ADDR },
	{ "min-rate",	required_argument, NULL, OPT_MIN_RATE },
	{ "no-partials", no_argument,	   NULL, OPT_NO_PARTIALS },
	{ "partial-max-age", required_argument, NULL, OPT_PARTIAL_MAX_AGE },
	{ "device",	required_argument, NULL, 'd' },
	{ "ib-port",	required_argument, NULL, 'i' },
	{ "gid-index",	required_argument, NULL, 'g' },
	{ "trace",	no_argument,	   NULL, 't' },
	{ "trace-json",	required_argument, NULL, OPT_TRACE_JSON },
	{ "capture",	required_argument, NULL, OPT_CAPTURE },
	{ "json",	no_argument,	   NULL, 'J' },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "timeout",	required_argument, NULL, 'T' },
	{ "psk",	required_argument, NULL, OPT_PSK },
	{ "no-device-check", no_argument,  NULL, OPT_NO_DEVICE_CHECK },
	{ "keep-setid",	no_argument,	   NULL, OPT_KEEP_SETID },
	{ "preserve-modes", no_argument,   NULL, OPT_PRESERVE_MODES },
	{ "threads",	required_argument, NULL, OPT_THREADS },
	{ "direct",	no_argument,	   NULL, OPT_DIRECT },
	{ "retry-for",	required_argument, NULL, OPT_RETRY_FOR },
	{ "relay",	no_argument,	   NULL, OPT_RELAY },
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
	{ "capture",	required_argument, NULL, OPT_CAPTURE },
	{ "json",	no_argument,	   NULL, 'J' },
	{ "quiet",	no_argument,	   NULL, 'q' },
	{ "timeout",	required_argument, NULL, 'T' },
	{ "psk",	required_argument, NULL, OPT_PSK },
	{ "threads",	required_argument, NULL, OPT_THREADS },
	{ "op",		required_argument, NULL, OPT_OP },
	{ "qps",	required_argument, NULL, OPT_QPS },
	{ "direct",	no_argument,	   NULL, OPT_DIRECT },
	{ "retry-for",	required_argument, NULL, OPT_RETRY_FOR },
	{ "resume",	no_argument,	   NULL, OPT_RESUME },
	{ "update",	optional_argument, NULL, OPT_UPDATE },
	{ "hosts",	required_argument, NULL, OPT_HOSTS },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * One line saying what is wrong, and a hint saying where help is, with the
 * prefix every other failure has ("rdmapush send: ..."); RP_EUSAGE.
 */
int RP_PRINTF(2, 3) rp_opts_usage_error(const char *sub, const char *fmt, ...)
{
	char pre[32];
	va_list ap;

	snprintf(pre, sizeof(pre), "rdmapush%s%s:", sub ? " " : "",
		 sub ? sub : "");
	flockfile(stderr);
	fprintf(stderr, "%s ", pre);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s hint: 'rdmapush%s%s --help' shows the usage\n",
		pre, sub ? " " : "", sub ? sub : "");
	funlockfile(stderr);
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
	rp_hostlist_init(&o->hosts);
	rp_config_defaults(&o->cfg);
}

void rp_opts_free(struct rp_opts *o)
{
	rp_hostlist_free(&o->hosts);
	o->cfg.hosts = NULL;
	o->cfg.nhosts = 0;
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
static bool opt_text(char *buf, size_t len, char **argv,
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

int rp_opts_getopt_error(const char *sub, int c, char **argv,
			 const struct option *longopts)
{
	char text[64];
	bool known = opt_text(text, sizeof(text), argv, longopts);

	if (c == ':')
		return rp_opts_usage_error(sub, "option '%s' needs a value",
					   text);
	if (known)
		return rp_opts_usage_error(sub, "option '%s' takes no value",
					   text);
	/* optopt 0: a long option getopt_long could not pin down, unknown
	 * or an abbreviation of more than one. */
	return rp_opts_usage_error(sub, "unknown%s option '%s'",
				   optopt ? "" : " or ambiguous", text);
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

/* --update[=LEVEL]: mtime when no level is given, and then mtimes are
 * kept (-k), or no push would ever find its last copy up to date. */
static int parse_update(struct rp_config *o, const char *sub, const char *arg)
{
	for (unsigned int u = RP_UPDATE_EXISTS; u < RP_UPDATE_MAX; u++) {
		if (!arg ? u == RP_UPDATE_MTIME :
		    !strcmp(arg, rp_proto_update_name(u))) {
			o->update = (uint8_t)u;
			o->preserve |= u == RP_UPDATE_MTIME;
			return 0;
		}
	}
	return rp_opts_bad_value(sub, "--update level", arg,
				 "exists, size, mtime or checksum");
}

/* A duration: seconds, or a number with s, m, h or d; at most 10 years. */
static int parse_age(const char *arg, double *secs)
{
	static const struct { char c; double s; } unit[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	unsigned long long v;
	char num[32];
	size_t n = strlen(arg);
	double mul = 1;

	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, arg, n + 1);
	for (size_t i = 0; i < sizeof(unit) / sizeof(unit[0]); i++)
		if (num[n - 1] == unit[i].c) {
			mul = unit[i].s;
			num[n - 1] = '\0';
		}
	if (rp_opts_parse_range(num, 0, 3650ull * 86400, &v) ||
	    v * mul > 3650.0 * 86400)
		return -1;
	*secs = (double)v * mul;
	return 0;
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
	case OPT_PER_PREFIX:
		if (rp_opts_parse_range(arg, 1, RP_MAX_PENDING, &v))
			return rp_opts_bad_value(sub, "connections per prefix",
						 arg, "1..64");
		o->max_pending_per_prefix = (int)v;
		break;
	case OPT_XFERS_PER_ADDR:
		if (rp_opts_parse_range(arg, 1, RP_MAX_XFERS, &v))
			return rp_opts_bad_value(sub, "transfers per address",
						 arg, "1..64");
		o->max_xfers_per_addr = (int)v;
		break;
	case OPT_MIN_RATE:
		if (rp_opts_parse_size(arg, &size) || size > RP_MAX_MIN_RATE)
			return rp_opts_bad_value(sub, "minimum rate", arg,
						 "bytes a second, 0 (none) "
						 "to 1G, e.g. 64K");
		o->min_rate = size;
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
	case OPT_CAPTURE:
		if (!*arg)
			return rp_opts_bad_value(sub, "--capture file", arg,
						 "a file name");
		o->capture = arg;
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
	case OPT_RETRY_FOR:
		if (rp_opts_parse_range(arg, 0, 86400, &v))
			return rp_opts_bad_value(sub, "--retry-for", arg,
						 "0..86400 seconds");
		o->retry_for = (int)v;
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
	case OPT_PRESERVE_MODES:
		o->preserve_modes = true;
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
	case OPT_RESUME:
		o->resume = true;
		break;
	case OPT_UPDATE:
		return parse_update(o, sub, arg);
	case OPT_NO_PARTIALS:
		o->no_partials = true;
		break;
	case OPT_RELAY:
		o->relay = true;
		break;
	case OPT_PARTIAL_MAX_AGE:
		if (parse_age(arg, &o->partial_max_age))
			return rp_opts_bad_value(sub, "partial age", arg,
						 "seconds, or a number with "
						 "s, m, h or d, e.g. 7d");
		break;
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

/*
 * HOST written for scp (host:path, host:): refused with what to write
 * instead, before the host list would call it a bad port. A port after
 * one colon (host:7000, a:7000,b) is the host list's own syntax.
 */
static const char *scp_hint(const char *h)
{
	const char *colon = strchr(h, ':');

	if (h[0] == '[' || !colon || strchr(colon + 1, ':') ||
	    (colon[1] >= '0' && colon[1] <= '9'))
		return NULL;
	return rp_opts_host_hint(h);
}

/*
 * HOST: one host, as ever, or a host list (hostlist.h): "node[01-03]",
 * "a,b,c", "a:18600,b". An IPv6 address written bare ("fe80::1", as
 * HOST always could be) has colons the list would read as a port: it
 * is taken whole, as "[ADDR]" would be.
 */
static int add_host_arg(struct rp_opts *o, const char *sub, const char *h)
{
	char v6[RP_HOST_NAME_MAX + 3];
	const char *hint = scp_hint(h);
	const char *colon = strchr(h, ':');

	if (hint)
		return rp_opts_usage_error(sub, "invalid HOST '%s': %s", h,
					   hint);
	if (colon && strchr(colon + 1, ':') && !strpbrk(h, "[],")) {
		if (strlen(h) > RP_HOST_NAME_MAX)
			return rp_opts_usage_error(sub, "invalid HOST: longer "
						   "than %d bytes",
						   RP_HOST_NAME_MAX);
		snprintf(v6, sizeof(v6), "[%s]", h);
		return rp_hostlist_add(&o->hosts, v6);
	}
	return rp_hostlist_add(&o->hosts, h);
}

/*
 * With --hosts FILE every argument is a SOURCE: one that is no local
 * path is most likely a HOST written as well, which would otherwise be
 * read as a missing file.
 */
static int check_hosts_file_sources(const char *sub, int n, char **pos)
{
	struct stat st;
	const char *last = pos[n - 1];

	if (!strcmp(last, "-") || !lstat(last, &st) || errno != ENOENT)
		return 0;
	return rp_opts_usage_error(sub, "no such SOURCE '%s': with --hosts "
				   "FILE every argument is a SOURCE; name "
				   "the hosts in FILE only", last);
}

/* The hosts in o->hosts, with --port for those without a port. */
static int take_hosts(struct rp_opts *o, const char *sub)
{
	size_t most;
	int rc;

	if (o->hosts_file) {
		rc = rp_hostlist_read_file(&o->hosts, o->hosts_file);
		if (rc)
			return rc;
	}
	rc = rp_hostlist_default_port(&o->hosts, o->cfg.port);
	if (rc)
		return rc;
	/* The first host hears the others in one CHAIN: refused here,
	 * before anything connects, when they do not fit in it. */
	most = 1 + rp_proto_chain_fit(o->hosts.host + 1, o->hosts.n - 1);
	if (most < o->hosts.n)
		return rp_opts_usage_error(sub, "too many hosts for one "
					   "chain: %zu; at most %zu",
					   o->hosts.n, most);
	o->cfg.hosts = o->hosts.host;
	o->cfg.nhosts = (uint32_t)o->hosts.n;
	o->cfg.host = o->hosts.host[0].name;
	o->cfg.port = o->hosts.host[0].port;
	return 0;
}

static int check_positional(struct rp_opts *o, const char *sub, int n,
			    char **pos)
{
	int nsrc = o->hosts_file ? n : n - 1;
	int rc;

	if (o->mode == RP_MODE_RECV) {
		if (n > 0)
			return rp_opts_usage_error(sub,
						   "unexpected argument '%s'",
						   pos[0]);
		return 0;
	}
	if (n == 0)
		return rp_opts_usage_error(sub, o->hosts_file ?
					   "missing SOURCE" :
					   "missing SOURCE and HOST");
	if (n == 1 && !o->hosts_file)
		return rp_opts_usage_error(sub, "missing HOST after '%s'",
					   pos[0]);
	/* hostlist.c says what is wrong with a host or a hosts file as
	 * an error line: with this command's prefix, as ours have ("send:"
	 * until main sets the trace up for the run; errors only). */
	rp_trace_init(RP_V_QUIET, sub);
	for (int i = 0; i < nsrc; i++)
		if (!pos[i][0])
			return rp_opts_usage_error(sub, "empty SOURCE");
	if (o->hosts_file) {
		rc = check_hosts_file_sources(sub, n, pos);
	} else if (!pos[n - 1][0]) {
		return rp_opts_usage_error(sub, "empty HOST");
	} else {
		rc = add_host_arg(o, sub, pos[n - 1]);
	}
	if (!rc)
		rc = take_hosts(o, sub);
	if (rc)
		return rc;
	o->cfg.sources = pos;
	o->cfg.nsources = nsrc;
	return 0;
}

static int parse_sub(struct rp_opts *o, enum rp_mode mode, int argc,
		     char **argv)
{
	const char *sub = mode == RP_MODE_SEND ? "send" : "recv";
	const char *shortopts = mode == RP_MODE_SEND ? send_short : recv_short;
	const struct option *longopts =
		mode == RP_MODE_SEND ? send_long : recv_long;
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
		case '?':
			return rp_opts_getopt_error(sub, c, argv, longopts);
		case OPT_HOSTS:
			/* Read once the port is known: it may be a pipe. */
			if (o->hosts_file)
				return rp_opts_usage_error(sub, "--hosts "
							   "given twice");
			if (!optarg[0])
				return rp_opts_usage_error(sub, "empty file "
							   "name for --hosts");
			o->hosts_file = optarg;
			break;
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

/* "help", "help send", "--help recv", "help --help": which page. */
static int parse_help(struct rp_opts *o, int argc, char **argv)
{
	o->mode = RP_MODE_HELP;
	o->help_for = RP_MODE_NONE;
	if (argc < 3)
		return 0;
	if (argc > 3)
		return rp_opts_usage_error("help", "unexpected argument '%s'",
					   argv[3]);
	/* help's own help, as every command has. */
	if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))
		o->help_for = RP_MODE_HELP;
	else if (!rp_opts_help_page(argv[2], &o->help_for))
		return rp_opts_usage_error("help", "no help for '%s': try "
					   "send, recv, keygen, devices, ping, "
					   "doctor, render or help", argv[2]);
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
		if (c == ':' || c == '?')
			return rp_opts_getopt_error("devices", c, argv,
						    longopts);
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
					   "doctor, render or help");
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
	if (!strcmp(cmd, "doctor"))
		return rp_opts_parse_doctor(o, argc - 1, argv + 1);
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
				   "keygen, devices, ping, doctor or render", cmd);
}
