// SPDX-License-Identifier: MIT
/* Unit tests of the command line: defaults, options, refusals, help. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "rdmapush/err.h"
#include "rdmapush/opts.h"

#define MAX_ARGS 40

/*
 * The host lists parses allocated and no test released with
 * opts_free(): released when the group ends, so that LeakSanitizer
 * (scripts/sanitize) finds none left over.
 */
#define OWED_MAX 1024
static struct rp_hostlist owed[OWED_MAX];
static size_t nowed;

static void owe(const struct rp_opts *o)
{
	if (!o->hosts.host)
		return;
	assert_true(nowed < OWED_MAX);
	owed[nowed++] = o->hosts;
}

/* rp_opts_free(o), and o's list no longer owed. */
static void opts_free(struct rp_opts *o)
{
	for (size_t i = 0; i < nowed; i++)
		if (o->hosts.host && owed[i].host == o->hosts.host)
			rp_hostlist_init(&owed[i]);
	rp_opts_free(o);
}

static int free_owed(void **state)
{
	(void)state;
	for (size_t i = 0; i < nowed; i++)
		rp_hostlist_free(&owed[i]);
	nowed = 0;
	return 0;
}

/* argv as main gets it: mutable pointers, "rdmapush" first, NULL last. */
static int parse_args(struct rp_opts *o, const char *const *args)
{
	static char *argv[MAX_ARGS + 1];
	int argc = 0;
	int rc;

	while (args[argc]) {
		assert_true(argc < MAX_ARGS);
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	rc = rp_opts_parse(o, argc, argv);
	owe(o);
	return rc;
}

#define PARSE(o, ...) \
	parse_args(o, (const char *const[]){ "rdmapush", __VA_ARGS__, NULL })
#define REFUSED(...)							\
	do {								\
		struct rp_opts o_;					\
		assert_int_equal(PARSE(&o_, __VA_ARGS__), RP_EUSAGE);	\
	} while (0)

/* What the last call wrote to stderr, captured through a temp file. */
static const char *captured = "";

static int capture_parse(struct rp_opts *o, const char *const *args)
{
	int rc;

	capture_start();
	rc = parse_args(o, args);
	captured = capture_end();
	return rc;
}

#define CAPTURE(o, ...) \
	capture_parse(o, (const char *const[]){ "rdmapush", __VA_ARGS__, NULL })

static void check_defaults(const struct rp_config *o)
{
	assert_int_equal(o->port, 18500);
	assert_null(o->dev);
	assert_int_equal(o->ib_port, 0);
	assert_int_equal(o->gid_index, -1);
	assert_int_equal(o->timeout, 30);
	assert_false(o->trace);
	assert_null(o->trace_json);
	assert_false(o->json);
	assert_false(o->quiet);
	assert_null(o->psk_file);
	assert_null(o->bind_addr);
	assert_string_equal(o->dir, ".");
	assert_false(o->once);
	assert_false(o->force);
	assert_false(o->no_device_check);
	assert_false(o->direct);
	assert_null(o->as_name);
	assert_int_equal(o->chunk, 1u << 20);
	assert_int_equal(o->window, 8);
}

static void test_defaults(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv"), 0);
	assert_int_equal(o.mode, RP_MODE_RECV);
	check_defaults(&o.cfg);
	assert_null(o.cfg.sources);
	assert_null(o.cfg.host);
	assert_false(o.cfg.keep_setid);

	assert_int_equal(PARSE(&o, "send", "big.iso", "192.0.2.10"), 0);
	assert_int_equal(o.mode, RP_MODE_SEND);
	check_defaults(&o.cfg);
	assert_int_equal(o.cfg.nsources, 1);
	assert_string_equal(o.cfg.sources[0], "big.iso");
	assert_false(o.cfg.recursive);
	assert_false(o.cfg.preserve);
	assert_string_equal(o.cfg.host, "192.0.2.10");
}

static void test_recv_short(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv", "-p", "1", "-b", "10.0.0.1", "-o",
			       "/srv/in", "-1", "-f", "-d", "rxe0", "-i", "2",
			       "-g", "3", "-t", "-J", "-T", "5", "--psk",
			       "/etc/key"), 0);
	assert_int_equal(o.mode, RP_MODE_RECV);
	assert_int_equal(o.cfg.port, 1);
	assert_string_equal(o.cfg.bind_addr, "10.0.0.1");
	assert_string_equal(o.cfg.dir, "/srv/in");
	assert_true(o.cfg.once);
	assert_true(o.cfg.force);
	assert_string_equal(o.cfg.dev, "rxe0");
	assert_int_equal(o.cfg.ib_port, 2);
	assert_int_equal(o.cfg.gid_index, 3);
	assert_true(o.cfg.trace);
	assert_true(o.cfg.json);
	assert_false(o.cfg.quiet);
	assert_int_equal(o.cfg.timeout, 5);
	assert_string_equal(o.cfg.psk_file, "/etc/key");
}

static void test_recv_long(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv", "--port", "65535", "--bind=::1",
			       "--dir", "out", "--once", "--force", "--device",
			       "mlx5_0", "--ib-port=255", "--gid-index", "0",
			       "--quiet", "--json", "--timeout", "86400",
			       "--psk=k", "--no-device-check"), 0);
	assert_int_equal(o.cfg.port, 65535);
	assert_true(o.cfg.no_device_check);
	assert_string_equal(o.cfg.bind_addr, "::1");
	assert_string_equal(o.cfg.dir, "out");
	assert_true(o.cfg.once);
	assert_true(o.cfg.force);
	assert_string_equal(o.cfg.dev, "mlx5_0");
	assert_int_equal(o.cfg.ib_port, 255);
	assert_int_equal(o.cfg.gid_index, 0);
	assert_true(o.cfg.quiet);
	assert_true(o.cfg.json);
	assert_int_equal(o.cfg.timeout, 86400);
	assert_string_equal(o.cfg.psk_file, "k");
	/* Clustered short flags. */
	assert_int_equal(PARSE(&o, "recv", "-1fJq"), 0);
	assert_true(o.cfg.once && o.cfg.force && o.cfg.json && o.cfg.quiet);
}

/* --max-size: recv only, a size with a suffix, not 0; unset = no limit. */
static void test_max_size(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv"), 0);
	assert_true(o.cfg.max_size == 0);
	assert_int_equal(PARSE(&o, "recv", "--max-size", "10G"), 0);
	assert_true(o.cfg.max_size == 10ull << 30);
	assert_int_equal(PARSE(&o, "recv", "--max-size=1"), 0);
	assert_true(o.cfg.max_size == 1);
	REFUSED("recv", "--max-size", "0");
	REFUSED("recv", "--max-size", "-1");
	REFUSED("recv", "--max-size", "1Q");
	REFUSED("recv", "--max-size", "99999999999G");
	REFUSED("send", "--max-size", "1G", "f", "h");
}

/* --min-rate: recv only, a size a second up to 1G, 0 = no floor; unset:
 * 64 KiB/s. */
static void test_min_rate(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv"), 0);
	assert_true(o.cfg.min_rate == 64 << 10);
	assert_int_equal(PARSE(&o, "recv", "--min-rate", "1M"), 0);
	assert_true(o.cfg.min_rate == 1 << 20);
	assert_int_equal(PARSE(&o, "recv", "--min-rate=0"), 0);
	assert_true(o.cfg.min_rate == 0);
	assert_int_equal(PARSE(&o, "recv", "--min-rate", "1G"), 0);
	assert_true(o.cfg.min_rate == 1 << 30);
	REFUSED("recv", "--min-rate", "1073741825");
	REFUSED("recv", "--min-rate", "2G");
	REFUSED("recv", "--min-rate", "-1");
	REFUSED("recv", "--min-rate", "1Q");
	REFUSED("recv", "--min-rate", "");
	REFUSED("send", "--min-rate", "1M", "f", "h");
}

/* --threads on both sides; 0 means one per core, at most 8. */
static void test_threads(void **state)
{
	struct rp_opts o;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	assert_int_equal(PARSE(&o, "recv"), 0);
	assert_int_equal(o.cfg.threads, 0);
	assert_int_equal(rp_config_threads(&o.cfg), cores > 8 ? 8 : cores);
	assert_int_equal(PARSE(&o, "recv", "--threads", "3"), 0);
	assert_int_equal(rp_config_threads(&o.cfg), 3);
	assert_int_equal(PARSE(&o, "send", "--threads=64", "f", "h"), 0);
	assert_int_equal(rp_config_threads(&o.cfg), 64);
	REFUSED("send", "--threads", "0", "f", "h");
	REFUSED("send", "--threads", "65", "f", "h");
	REFUSED("recv", "--threads", "two");
	REFUSED("recv", "--threads", "");
}

/* --qps on the sender only (the receiver follows its HELLO): 1..8,
 * 0 (not given) meaning one. */
static void test_qps(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "send", "f", "h"), 0);
	assert_int_equal(o.cfg.qps, 0);
	assert_int_equal(PARSE(&o, "send", "--qps", "1", "f", "h"), 0);
	assert_int_equal(o.cfg.qps, 1);
	assert_int_equal(PARSE(&o, "send", "--qps=8", "f", "h"), 0);
	assert_int_equal(o.cfg.qps, 8);
	REFUSED("send", "--qps", "0", "f", "h");
	REFUSED("send", "--qps", "9", "f", "h");
	REFUSED("send", "--qps", "-1", "f", "h");
	REFUSED("send", "--qps", "2x", "f", "h");
	REFUSED("recv", "--qps", "2");
}

/* --direct on both sides: each side's own disk; takes no value. */
static void test_direct(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv", "--direct"), 0);
	assert_true(o.cfg.direct);
	assert_int_equal(PARSE(&o, "send", "f", "--direct", "h"), 0);
	assert_true(o.cfg.direct);
	assert_int_equal(PARSE(&o, "send", "f", "h"), 0);
	assert_false(o.cfg.direct);
	REFUSED("recv", "--direct=yes");
	REFUSED("send", "--direct=1", "f", "h");
}

/* --trace-json FILE on both sides, with or without --trace; a name. */
static void test_trace_json(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv", "--trace-json", "r.jsonl"), 0);
	assert_string_equal(o.cfg.trace_json, "r.jsonl");
	assert_false(o.cfg.trace);
	assert_int_equal(PARSE(&o, "send", "-t", "--trace-json=s.jsonl", "f",
			       "h"), 0);
	assert_string_equal(o.cfg.trace_json, "s.jsonl");
	assert_true(o.cfg.trace);
	assert_int_equal(PARSE(&o, "send", "-q", "--trace-json", "s", "f",
			       "h"), 0);
	assert_true(o.cfg.quiet);
	REFUSED("recv", "--trace-json", "");
	REFUSED("send", "f", "h", "--trace-json");
}

static void test_send_options(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "send", "-p", "2000", "--as", "other.iso",
			       "-c", "64K", "-w", "64", "-d", "rxe0", "-i", "1",
			       "-g", "255", "-t", "-J", "-T", "1", "--psk",
			       "key", "a.iso", "host-b"), 0);
	assert_int_equal(o.mode, RP_MODE_SEND);
	assert_int_equal(o.cfg.port, 2000);
	assert_string_equal(o.cfg.as_name, "other.iso");
	assert_int_equal(o.cfg.chunk, 64 * 1024);
	assert_int_equal(o.cfg.window, 64);
	assert_string_equal(o.cfg.dev, "rxe0");
	assert_int_equal(o.cfg.ib_port, 1);
	assert_int_equal(o.cfg.gid_index, 255);
	assert_true(o.cfg.trace);
	assert_true(o.cfg.json);
	assert_int_equal(o.cfg.timeout, 1);
	assert_string_equal(o.cfg.psk_file, "key");
	assert_string_equal(o.cfg.sources[0], "a.iso");
	assert_string_equal(o.cfg.host, "host-b");

	assert_int_equal(PARSE(&o, "send", "--chunk=4096", "--window", "1",
			       "--quiet", "--as=x", "f", "h"), 0);
	assert_int_equal(o.cfg.chunk, 4096);
	assert_int_equal(o.cfg.window, 1);
	assert_true(o.cfg.quiet);
	assert_string_equal(o.cfg.as_name, "x");

	/* Largest chunk alone, and the exact ring limit. */
	assert_int_equal(PARSE(&o, "send", "-c", "64M", "-w", "4", "f", "h"),
			 0);
	assert_int_equal(o.cfg.chunk, 64u << 20);
	assert_int_equal(PARSE(&o, "send", "-c", "32m", "-w", "8", "f", "h"),
			 0);
	assert_int_equal(o.cfg.chunk, 32u << 20);
}

static void test_positional(void **state)
{
	struct rp_opts o;

	(void)state;
	/* Options may follow the operands, as with GNU tools. */
	assert_int_equal(PARSE(&o, "send", "f", "h", "-w", "4", "-t"), 0);
	assert_string_equal(o.cfg.sources[0], "f");
	assert_string_equal(o.cfg.host, "h");
	assert_int_equal(o.cfg.window, 4);
	assert_true(o.cfg.trace);
	assert_int_equal(PARSE(&o, "send", "f", "-c", "2M", "h"), 0);
	assert_string_equal(o.cfg.sources[0], "f");
	assert_string_equal(o.cfg.host, "h");
	/* After "--", a file name may start with '-'. */
	assert_int_equal(PARSE(&o, "send", "--", "-file", "h"), 0);
	assert_string_equal(o.cfg.sources[0], "-file");
	assert_string_equal(o.cfg.host, "h");
	/* Several sources, the last operand is HOST; "-" is a source. */
	assert_int_equal(PARSE(&o, "send", "-r", "a", "-", "dir/", "h", "-k"),
			 0);
	assert_int_equal(o.cfg.nsources, 3);
	assert_string_equal(o.cfg.sources[0], "a");
	assert_string_equal(o.cfg.sources[1], "-");
	assert_string_equal(o.cfg.sources[2], "dir/");
	assert_string_equal(o.cfg.host, "h");
	assert_true(o.cfg.recursive);
	assert_true(o.cfg.preserve);
	assert_int_equal(PARSE(&o, "send", "--recursive", "--preserve", "a",
			       "h"), 0);
	assert_true(o.cfg.recursive);
	assert_true(o.cfg.preserve);
	assert_int_equal(PARSE(&o, "recv", "--keep-setid"), 0);
	assert_true(o.cfg.keep_setid);
	assert_false(o.cfg.preserve_modes);
	assert_int_equal(PARSE(&o, "recv", "--preserve-modes"), 0);
	assert_true(o.cfg.preserve_modes);
}

/* Parsing twice in one process must not carry getopt state over. */
static void test_reentrant(void **state)
{
	struct rp_opts o;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(PARSE(&o, "send", "-t", "-x", "f", "h"),
				 RP_EUSAGE);
		assert_int_equal(PARSE(&o, "recv", "-tq"), RP_EUSAGE);
		assert_int_equal(PARSE(&o, "send", "-w2", "f", "h"), 0);
		assert_int_equal(o.cfg.window, 2);
		assert_false(o.cfg.trace);
		assert_int_equal(PARSE(&o, "recv", "-o", "d"), 0);
		assert_string_equal(o.cfg.dir, "d");
		assert_int_equal(o.cfg.window, 8);
	}
}

static void test_combinations(void **state)
{
	struct rp_opts o;

	(void)state;
	/* JSON goes to stdout, the trace to stderr: both at once is fine. */
	assert_int_equal(PARSE(&o, "recv", "--json", "--trace"), 0);
	assert_true(o.cfg.json && o.cfg.trace);
	assert_int_equal(PARSE(&o, "send", "-q", "-J", "f", "h"), 0);
	assert_true(o.cfg.json && o.cfg.quiet);
	REFUSED("recv", "-q", "-t");
	REFUSED("send", "--trace", "--quiet", "f", "h");
	/* chunk * window above 256 MiB, whichever comes first. */
	REFUSED("send", "-c", "64M", "-w", "8", "f", "h");
	REFUSED("send", "-w", "9", "-c", "32M", "f", "h");
	REFUSED("send", "-c", "32M", "-w", "9", "f", "h");
}

static void test_refusals(void **state)
{
	(void)state;
	/* port */
	REFUSED("recv", "-p", "0");
	REFUSED("recv", "-p", "65536");
	REFUSED("recv", "-p", "abc");
	REFUSED("recv", "-p", "");
	REFUSED("recv", "-p", "-1");
	REFUSED("recv", "-p", " 1");
	REFUSED("recv", "-p", "+1");
	REFUSED("recv", "-p", "1x");
	REFUSED("recv", "-p", "99999999999999999999999");
	REFUSED("send", "--port=0", "f", "h");
	/* chunk */
	REFUSED("send", "-c", "4095", "f", "h");
	REFUSED("send", "-c", "65537K", "f", "h");
	REFUSED("send", "-c", "1G", "f", "h");
	REFUSED("send", "-c", "0", "f", "h");
	REFUSED("send", "-c", "1.5M", "f", "h");
	REFUSED("send", "-c", "junk", "f", "h");
	REFUSED("send", "-c", "-1M", "f", "h");
	REFUSED("send", "-c", "99999999999G", "f", "h");
	/* window */
	REFUSED("send", "-w", "0", "f", "h");
	REFUSED("send", "-w", "65", "f", "h");
	REFUSED("send", "-w", "4x", "f", "h");
	/* keygen: an option it does not know is not a FILE */
	REFUSED("keygen", "--bogus");
	REFUSED("keygen", "-x");
	REFUSED("keygen", "-");
	REFUSED("keygen");
	REFUSED("keygen", "");
	REFUSED("keygen", "--", "a", "b");
	/* IB port, GID index, timeout */
	REFUSED("recv", "-i", "0");
	REFUSED("recv", "-i", "256");
	REFUSED("recv", "-g", "256");
	REFUSED("recv", "-g", "-1");
	REFUSED("recv", "-T", "0");
	REFUSED("recv", "-T", "86401");
	REFUSED("send", "--timeout", "1s", "f", "h");
	/* operands */
	REFUSED("send");
	REFUSED("send", "f");
	REFUSED("send", "", "h");
	REFUSED("send", "a", "", "h");
	REFUSED("send", "-k", "f", "h:/x");
	REFUSED("recv", "-r");
	REFUSED("recv", "-k");
	REFUSED("send", "f", "");
	REFUSED("recv", "stray");
	/* empty values */
	REFUSED("recv", "-o", "");
	REFUSED("recv", "-d", "");
	REFUSED("recv", "-b", "");
	REFUSED("recv", "--psk", "");
	/* unknown, misplaced, missing a value */
	REFUSED("recv", "-x");
	REFUSED("recv", "--bogus");
	REFUSED("recv", "--t");
	REFUSED("recv", "--once=yes");
	REFUSED("recv", "-p");
	REFUSED("recv", "--port");
	REFUSED("send", "f", "h", "-c");
	REFUSED("send", "-o", "d", "f", "h");
	REFUSED("send", "-f", "f", "h");
	REFUSED("send", "-1", "f", "h");
	REFUSED("recv", "-c", "1M");
	REFUSED("recv", "--as", "x");
	/* commands */
	REFUSED(NULL);
	REFUSED("push", "f", "h");
	REFUSED("SEND", "f", "h");
	REFUSED("-t", "send", "f", "h");
	REFUSED("--bogus");
	REFUSED("help", "bogus");
	REFUSED("help", "send", "extra");
	REFUSED("--version", "extra");
	/* A sender needs its device: it always checks. */
	REFUSED("send", "--no-device-check", "f", "h");
}

/* --max-per-address: default, range, receiver only. */
static void test_max_per_address(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv"), 0);
	/* Unset: the server takes RP_DEFAULT_PER_ADDR, or -m if smaller. */
	assert_int_equal(o.cfg.max_per_addr, 0);
	assert_int_equal(PARSE(&o, "recv", "--max-per-address", "1"), 0);
	assert_int_equal(o.cfg.max_per_addr, 1);
	assert_int_equal(PARSE(&o, "recv", "--max-per-address=64"), 0);
	assert_int_equal(o.cfg.max_per_addr, RP_MAX_PENDING);
	REFUSED("recv", "--max-per-address", "0");
	REFUSED("recv", "--max-per-address", "65");
	REFUSED("recv", "--max-per-address", "2x");
	REFUSED("send", "--max-per-address", "2", "f", "h");
}

/* --max-pending-per-prefix: default, range, receiver only. */
static void test_max_pending_per_prefix(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv"), 0);
	assert_int_equal(o.cfg.max_pending_per_prefix, RP_DEFAULT_PER_PREFIX);
	assert_int_equal(PARSE(&o, "recv", "--max-pending-per-prefix", "1"),
			 0);
	assert_int_equal(o.cfg.max_pending_per_prefix, 1);
	assert_int_equal(PARSE(&o, "recv", "--max-pending-per-prefix=64"), 0);
	assert_int_equal(o.cfg.max_pending_per_prefix, RP_MAX_PENDING);
	REFUSED("recv", "--max-pending-per-prefix", "0");
	REFUSED("recv", "--max-pending-per-prefix", "65");
	REFUSED("recv", "--max-pending-per-prefix", "2x");
	REFUSED("send", "--max-pending-per-prefix", "2", "f", "h");
}

/* --max-xfers-per-address: 0 (half of -m) unless given, 1..64, receiver
 * only. */
static void test_max_xfers_per_address(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv"), 0);
	assert_int_equal(o.cfg.max_xfers_per_addr, 0);
	assert_int_equal(PARSE(&o, "recv", "--max-xfers-per-address", "3"), 0);
	assert_int_equal(o.cfg.max_xfers_per_addr, 3);
	REFUSED("recv", "--max-xfers-per-address", "0");
	REFUSED("recv", "--max-xfers-per-address", "65");
	REFUSED("send", "--max-xfers-per-address", "2", "f", "h");
}

/* One line saying what is wrong, one pointing at the right help. */
static void test_messages(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(CAPTURE(&o, "send", "-p", "0", "f", "h"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush send: invalid port '0' (1..65535)\n"
			    "rdmapush send: hint: 'rdmapush send --help' shows the usage\n");
	assert_int_equal(CAPTURE(&o, "recv", "--bogus"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush recv: unknown or ambiguous option '--bogus'\n"
			    "rdmapush recv: hint: 'rdmapush recv --help' shows the usage\n");
	assert_int_equal(CAPTURE(&o, "recv", "-tx"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush recv: unknown option '-x'\n"
			    "rdmapush recv: hint: 'rdmapush recv --help' shows the usage\n");
	assert_int_equal(CAPTURE(&o, "recv", "--port"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush recv: option '--port' needs a value\n"
			    "rdmapush recv: hint: 'rdmapush recv --help' shows the usage\n");
	assert_int_equal(CAPTURE(&o, "recv", "-1p"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush recv: option '-p' needs a value\n"
			    "rdmapush recv: hint: 'rdmapush recv --help' shows the usage\n");
	assert_int_equal(CAPTURE(&o, "recv", "--psk"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush recv: option '--psk' needs a value\n"
			    "rdmapush recv: hint: 'rdmapush recv --help' shows the usage\n");
	assert_int_equal(CAPTURE(&o, "recv", "--for=1"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush recv: option '--for' takes no value\n"
			    "rdmapush recv: hint: 'rdmapush recv --help' shows the usage\n");
	assert_int_equal(CAPTURE(&o, "send", "f"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush send: missing HOST after 'f'\n"
			    "rdmapush send: hint: 'rdmapush send --help' shows the usage\n");
	assert_int_equal(CAPTURE(&o, "send", "-c", "1.5M", "f", "h"),
			 RP_EUSAGE);
	assert_non_null(strstr(captured, "invalid chunk size '1.5M'"));
	assert_int_equal(CAPTURE(&o, "send", "-c", "64M", "-w", "8", "f",
				 "h"), RP_EUSAGE);
	assert_non_null(strstr(captured, "chunk * window is 512.00 MiB, "
				         "over 256.00 MiB"));
	assert_int_equal(CAPTURE(&o, "push"), RP_EUSAGE);
	assert_string_equal(captured, "rdmapush: unknown command 'push': "
				      "use send, recv, keygen, devices, ping, "
				      "doctor or render\n"
				      "rdmapush: hint: 'rdmapush --help' "
				      "shows the usage\n");
	assert_int_equal(CAPTURE(&o, NULL), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush: missing command: send, recv, keygen, "
			    "devices, ping, doctor, render or help\n"
			    "rdmapush: hint: 'rdmapush --help' shows the "
			    "usage\n");
	/* Success prints nothing. */
	assert_int_equal(CAPTURE(&o, "send", "f", "h"), 0);
	assert_string_equal(captured, "");
}

/*
 * HOST as written for scp: refused at parse time with what to write
 * instead; names, addresses (IPv6 included, bare or in brackets) and
 * host:port (the host list's syntax) pass.
 */
static void test_host_hints(void **state)
{
	static const struct {
		const char *host;
		const char *hint;	/* NULL: accepted as name:port */
		const char *name;
		uint16_t port;
	} cases[] = {
		{ "h:/srv/in", "name the file with --as NAME", NULL, 0 },
		{ "h:in/x", "name the file with --as NAME", NULL, 0 },
		{ "h:", "name the file with --as NAME", NULL, 0 },
		{ "h", NULL, "h", 18500 },
		{ "h:22", NULL, "h", 22 },
		{ "192.0.2.10", NULL, "192.0.2.10", 18500 },
		{ "192.0.2.10:18600", NULL, "192.0.2.10", 18600 },
		{ "fe80::1", NULL, "fe80::1", 18500 },
		{ "::1", NULL, "::1", 18500 },
		{ "2001:db8::10", NULL, "2001:db8::10", 18500 },
		{ "[fe80::1]", NULL, "fe80::1", 18500 },
		{ "[::1]:18600", NULL, "::1", 18600 },
	};
	struct rp_opts o;
	char want[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = CAPTURE(&o, "send", "f", cases[i].host);

		if (!cases[i].hint) {
			assert_int_equal(rc, 0);
			assert_string_equal(o.cfg.host, cases[i].name);
			assert_int_equal(o.cfg.port, cases[i].port);
			assert_int_equal(o.cfg.nhosts, 1);
			assert_ptr_equal(o.cfg.hosts, o.hosts.host);
			assert_int_equal(o.cfg.nsources, 1);
			assert_string_equal(captured, "");
			opts_free(&o);
			continue;
		}
		assert_int_equal(rc, RP_EUSAGE);
		snprintf(want, sizeof(want), "rdmapush send: invalid HOST '%s': ",
			 cases[i].host);
		assert_memory_equal(captured, want, strlen(want));
		assert_non_null(strstr(captured, cases[i].hint));
		assert_non_null(strstr(captured, "\nrdmapush send: hint: "
					"'rdmapush send --help' shows the "
					"usage\n"));
		opts_free(&o);
	}
	/* The whole line for one of them. */
	assert_int_equal(CAPTURE(&o, "send", "f", "h:/tmp"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush send: invalid HOST 'h:/tmp': rdmapush writes "
			    "into the receiver's -o directory; name the file "
			    "with --as NAME\n"
			    "rdmapush send: hint: 'rdmapush send --help' "
			    "shows the usage\n");
	opts_free(&o);
}

/* The names and ports of o's hosts, "a:1 b:2", for one comparison. */
static const char *hosts_text(const struct rp_opts *o)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < o->cfg.nhosts && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s:%u",
				      i ? " " : "", o->cfg.hosts[i].name,
				      o->cfg.hosts[i].port);
	return buf;
}

/* HOST as a host list: the chain in order, --port for bare hosts, and
 * host and port filled from the first. */
static void test_host_lists(void **state)
{
	static const struct {
		const char *arg;
		const char *want;
	} cases[] = {
		{ "node[01-03]", "node01:7000 node02:7000 node03:7000" },
		{ "a,b,c", "a:7000 b:7000 c:7000" },
		{ "a:18600,b", "a:18600 b:7000" },
		{ "r[1-2]n[1-2]", "r1n1:7000 r1n2:7000 r2n1:7000 r2n2:7000" },
		{ "[fe80::1]:9,h", "fe80::1:9 h:7000" },
	};
	struct rp_opts o;

	(void)state;
	/* The most one CHAIN carries, at 8 bytes a hop. */
	assert_int_equal(CAPTURE(&o, "send", "f", "n[0001-0524]"), 0);
	assert_int_equal(o.cfg.nhosts, 524);
	opts_free(&o);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(CAPTURE(&o, "send", "-p", "7000", "f", "g",
					 cases[i].arg), 0);
		assert_string_equal(captured, "");
		assert_string_equal(hosts_text(&o), cases[i].want);
		assert_string_equal(o.cfg.host, o.cfg.hosts[0].name);
		assert_int_equal(o.cfg.port, o.cfg.hosts[0].port);
		assert_int_equal(o.cfg.nsources, 2);
		assert_string_equal(o.cfg.sources[1], "g");
		opts_free(&o);
		assert_null(o.cfg.hosts);
		assert_null(o.cfg.hosts);
		assert_int_equal(o.cfg.nhosts, 0);
	}
}

/* Each refusal of a host list: one line naming the item, RP_EUSAGE. */
static void test_host_list_refusals(void **state)
{
	static const struct {
		const char *arg;
		const char *line;
	} cases[] = {
		{ "a,b,a", "rdmapush send: error: host list \"a\": a is in "
			   "the list twice (hosts 1 and 3)\n" },
		{ "a:18500,a", "rdmapush send: error: host list: a:18500 is in "
			       "the list twice (hosts 1 and 2; 18500 is the "
			       "default port)\n" },
		{ "n[3-1]", NULL },
		{ "bad!host", "rdmapush send: error: host list \"bad!host\": "
			      "'!' is not allowed in a host name\n" },
		{ "a,,b", NULL },
		{ "a:0", NULL },
		{ "a:65536", NULL },
		/* 8 bytes a hop in CHAIN: (4224 - 32 - 2) / 8 after the
		 * first host. */
		{ "n[0001-1000]", "rdmapush send: too many hosts for one "
				  "chain: 1000; at most 524\n"
				  "rdmapush send: hint: 'rdmapush send "
				  "--help' shows the usage\n" },
	};
	struct rp_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(CAPTURE(&o, "send", "f", cases[i].arg),
				 RP_EUSAGE);
		if (cases[i].line)
			assert_string_equal(captured, cases[i].line);
		/* One line, no more (and a hint for a usage error). */
		assert_non_null(strstr(captured, "rdmapush send: "));
		if (!strstr(captured, "hint: "))
			assert_ptr_equal(strchr(captured, '\n'),
					 captured + strlen(captured) - 1);
		opts_free(&o);
	}
}

/* A file in a fresh temporary directory, with text; its path. */
static const char *temp_file(char *dir, size_t len, const char *name,
			     const char *text)
{
	static char path[512];
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, len, "/tmp/test_opts.XXXXXX");
		assert_non_null(mkdtemp(dir));
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* --hosts FILE: hosts from the file, every argument a SOURCE; its
 * refusals each one line and RP_EUSAGE. */
static void test_hosts_file(void **state)
{
	char dir[64] = "";
	char hosts[512], empty[512], src[512], dup[512], want[1024];
	struct rp_opts o;

	(void)state;
	snprintf(src, sizeof(src), "%s", temp_file(dir, sizeof(dir), "src",
						   "data"));
	snprintf(hosts, sizeof(hosts), "%s",
		 temp_file(dir, sizeof(dir), "hosts",
			   "# the job's nodes\nn[1-2]\n\n  c:7001 \r\n"));
	snprintf(empty, sizeof(empty), "%s",
		 temp_file(dir, sizeof(dir), "empty", "# nothing\n\n"));
	snprintf(dup, sizeof(dup), "%s",
		 temp_file(dir, sizeof(dir), "dup", "a\nb\na:7000\n"));

	assert_int_equal(CAPTURE(&o, "send", "--hosts", hosts, "-p", "7000",
				 src, src), 0);
	assert_string_equal(captured, "");
	assert_string_equal(hosts_text(&o), "n1:7000 n2:7000 c:7001");
	assert_int_equal(o.cfg.nsources, 2);
	assert_string_equal(o.cfg.host, "n1");
	assert_int_equal(o.cfg.port, 7000);
	opts_free(&o);

	/* One SOURCE is enough; "-" is one. */
	assert_int_equal(CAPTURE(&o, "send", "--hosts", hosts, "--as", "x",
				 "-"), 0);
	assert_int_equal(o.cfg.nsources, 1);
	opts_free(&o);

	/* A host list written too: no local path, refused as ambiguous. */
	assert_int_equal(CAPTURE(&o, "send", "--hosts", hosts, src,
				 "node[1-2]"), RP_EUSAGE);
	assert_string_equal(captured,
			    "rdmapush send: no such SOURCE 'node[1-2]': with "
			    "--hosts FILE every argument is a SOURCE; name "
			    "the hosts in FILE only\n"
			    "rdmapush send: hint: 'rdmapush send --help' "
			    "shows the usage\n");
	opts_free(&o);

	assert_int_equal(CAPTURE(&o, "send", "--hosts", empty, src),
			 RP_EUSAGE);
	snprintf(want, sizeof(want), "rdmapush send: error: hosts file "
		 "\"%s\": no host in it\n", empty);
	assert_string_equal(captured, want);
	opts_free(&o);

	assert_int_equal(CAPTURE(&o, "send", "-p", "7000", "--hosts", dup,
				 src), RP_EUSAGE);
	assert_non_null(strstr(captured, "a:7000 is in the list twice"));
	assert_ptr_equal(strchr(captured, '\n'),
			 captured + strlen(captured) - 1);
	opts_free(&o);

	assert_int_equal(CAPTURE(&o, "send", "--hosts", hosts, "--hosts",
				 hosts, src), RP_EUSAGE);
	assert_non_null(strstr(captured, "--hosts given twice\n"));
	opts_free(&o);
	assert_int_equal(CAPTURE(&o, "send", "--hosts", "", src), RP_EUSAGE);
	opts_free(&o);
	assert_int_equal(CAPTURE(&o, "send", "--hosts", hosts), RP_EUSAGE);
	assert_non_null(strstr(captured, "missing SOURCE\n"));
	opts_free(&o);
	/* Not a receiver's option, and --relay not a sender's. */
	REFUSED("recv", "--hosts", hosts);
	REFUSED("send", "--relay", src, "h");

	unlink(src);
	unlink(hosts);
	unlink(empty);
	unlink(dup);
	assert_int_equal(rmdir(dir), 0);
}

/* recv --relay: off by default. */
static void test_recv_relay(void **state)
{
	struct rp_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "recv"), 0);
	assert_false(o.cfg.relay);
	assert_int_equal(PARSE(&o, "recv", "--relay"), 0);
	assert_true(o.cfg.relay);
}

static void test_parse_size(void **state)
{
	static const struct {
		const char *s;
		uint64_t want;
	} good[] = {
		{ "0", 0 },
		{ "4096", 4096 },
		{ "1K", 1024 },
		{ "1k", 1024 },
		{ "64K", 65536 },
		{ "1M", 1u << 20 },
		{ "1m", 1u << 20 },
		{ "1G", 1u << 30 },
		{ "2g", 2ull << 30 },
		{ "007", 7 },
		{ "17179869183G", 17179869183ull << 30 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "1X", "-1", "+1", " 1", "1 ", "1.5M", "M", "1MB", "1KK",
		"0x10", "99999999999G", "17179869184G", "18446744073709551616",
		"18446744073709551615K", "1M ", "1\n",
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 12345;
		assert_int_equal(rp_opts_parse_size(good[i].s, &v), 0);
		assert_true(v == good[i].want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		assert_int_equal(rp_opts_parse_size(bad[i], &v), RP_EUSAGE);
		assert_true(v == 12345);
	}
	assert_int_equal(rp_opts_parse_size(NULL, &v), RP_EUSAGE);
}

static void expect_help(enum rp_mode for_mode, const char *const *args)
{
	struct rp_opts o;

	assert_int_equal(parse_args(&o, args), 0);
	assert_int_equal(o.mode, RP_MODE_HELP);
	assert_int_equal(o.help_for, for_mode);
}

#define HELP(m, ...) \
	expect_help(m, (const char *const[]){ "rdmapush", __VA_ARGS__, NULL })

static void test_help_version(void **state)
{
	struct rp_opts o;

	(void)state;
	HELP(RP_MODE_NONE, "--help");
	HELP(RP_MODE_NONE, "-h");
	HELP(RP_MODE_NONE, "help");
	HELP(RP_MODE_SEND, "help", "send");
	HELP(RP_MODE_RECV, "help", "recv");
	HELP(RP_MODE_SEND, "--help", "send");
	HELP(RP_MODE_SEND, "send", "--help");
	HELP(RP_MODE_SEND, "send", "-h");
	HELP(RP_MODE_RECV, "recv", "--help");
	HELP(RP_MODE_RECV, "recv", "-h");
	/* Help needs no operands, and wins over what follows it. */
	HELP(RP_MODE_SEND, "send", "-t", "--help", "-p", "0");
	HELP(RP_MODE_RECV, "recv", "--he");
	HELP(RP_MODE_KEYGEN, "keygen", "--help");
	/* keygen's FILE may start with '-' after --. */
	assert_int_equal(PARSE(&o, "keygen", "--", "-odd"), 0);
	assert_int_equal(o.mode, RP_MODE_KEYGEN);
	assert_string_equal(o.file, "-odd");
	assert_int_equal(PARSE(&o, "keygen", "k"), 0);
	assert_string_equal(o.file, "k");
	assert_int_equal(PARSE(&o, "--version"), 0);
	assert_int_equal(o.mode, RP_MODE_VERSION);
	assert_int_equal(PARSE(&o, "-V"), 0);
	assert_int_equal(o.mode, RP_MODE_VERSION);
}

/* Help text into a string. */
static char *usage_text(enum rp_mode m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	rp_opts_usage(f, m);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static void check_common_text(const char *t)
{
	const char *line = t;

	/* Exit codes, example and the security note, in every text. */
	assert_non_null(strstr(t, "Exit status:"));
	assert_non_null(strstr(t, "  2  usage or configuration error"));
	assert_non_null(strstr(t, "  6  refused by policy"));
	assert_non_null(strstr(t, "  7  the receiver cannot listen"));
	assert_non_null(strstr(t, "  130, 143  stopped by SIGINT or SIGTERM"));
	assert_non_null(strstr(t, "rdmapush recv -o /srv/in"));
	assert_non_null(strstr(t, "rdmapush send big.iso 192.0.2.10"));
	assert_non_null(strstr(t, "without --psk, anyone who can reach"));
	assert_non_null(strstr(t, "not encrypted"));
	/* Fits an 80-column terminal. */
	while (*line) {
		size_t n = strcspn(line, "\n");

		assert_true(n <= 79);
		line += n;
		if (*line)
			line++;
	}
}

static void test_usage_text(void **state)
{
	static const char *const both[] = {
		"--port PORT", "--device DEV", "--ib-port N", "--gid-index N",
		"--timeout SEC", "--psk FILE", "--trace", "--json", "--quiet",
		"--direct", "--help", "default 18500", "default 30",
	};
	static const char *const recv_only[] = {
		"Usage: rdmapush recv", "--bind ADDR", "--dir DIR", "--once",
		"--force", "current", "never a directory",
		"--no-device-check", "--max-pending-per-prefix N",
	};
	static const char *const send_only[] = {
		"Usage: rdmapush send", "SOURCE... HOST", "--as NAME",
		"--recursive", "--preserve",
		"--chunk SIZE", "--window N", "default 1M", "default 8",
	};
	char *t;
	size_t i;

	(void)state;
	t = usage_text(RP_MODE_RECV);
	check_common_text(t);
	for (i = 0; i < sizeof(both) / sizeof(both[0]); i++)
		assert_non_null(strstr(t, both[i]));
	for (i = 0; i < sizeof(recv_only) / sizeof(recv_only[0]); i++)
		assert_non_null(strstr(t, recv_only[i]));
	assert_null(strstr(t, "--chunk"));
	free(t);

	t = usage_text(RP_MODE_SEND);
	check_common_text(t);
	for (i = 0; i < sizeof(both) / sizeof(both[0]); i++)
		assert_non_null(strstr(t, both[i]));
	for (i = 0; i < sizeof(send_only) / sizeof(send_only[0]); i++)
		assert_non_null(strstr(t, send_only[i]));
	assert_null(strstr(t, "--force"));
	assert_null(strstr(t, "--no-device-check"));
	free(t);

	t = usage_text(RP_MODE_NONE);
	check_common_text(t);
	assert_non_null(strstr(t, "rdmapush send [OPTION]... SOURCE... HOST"));
	assert_non_null(strstr(t, "--version"));
	free(t);
}

/*
 * getopt's refusals read the same in every command that uses it (one
 * rp_opts_getopt_error): send, recv, devices and ping.
 */
/* A usage error as SUB prints it: the line, then where help is. */
static void want_usage(char *buf, size_t len, const char *sub,
		       const char *what)
{
	snprintf(buf, len, "rdmapush %s: %s\nrdmapush %s: hint: 'rdmapush %s "
		 "--help' shows the usage\n", sub, what, sub, sub);
}

static void test_getopt_errors(void **state)
{
	static const char *const subs[] = { "send", "recv", "devices",
					    "ping" };
	char want[160];
	struct rp_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		assert_int_equal(CAPTURE(&o, subs[i], "--bogus"), RP_EUSAGE);
		want_usage(want, sizeof(want), subs[i],
			   "unknown or ambiguous option '--bogus'");
		assert_string_equal(captured, want);
		assert_int_equal(CAPTURE(&o, subs[i], "-x"), RP_EUSAGE);
		want_usage(want, sizeof(want), subs[i], "unknown option '-x'");
		assert_string_equal(captured, want);
		assert_int_equal(CAPTURE(&o, subs[i], "--json=1"), RP_EUSAGE);
		want_usage(want, sizeof(want), subs[i],
			   "option '--json' takes no value");
		assert_string_equal(captured, want);
		assert_int_equal(CAPTURE(&o, subs[i], "-d"), RP_EUSAGE);
		want_usage(want, sizeof(want), subs[i],
			   "option '-d' needs a value");
		assert_string_equal(captured, want);
	}
}

/* How often needle occurs in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p;
	     p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * `help CMD` and `CMD --help` show CMD's own page for every command,
 * `help` included: its synopsis, options, examples and one "Exit
 * status" section, nothing of a push's unless it is send or recv.
 */
static void test_help_pages(void **state)
{
	static const struct {
		const char *name;
		enum rp_mode mode;
		const char *own;	/* something only its page says */
	} cmds[] = {
		{ "send", RP_MODE_SEND, "--recursive" },
		{ "recv", RP_MODE_RECV, "--max-transfers" },
		{ "keygen", RP_MODE_KEYGEN, "  2  usage error, or FILE exists" },
		{ "devices", RP_MODE_DEVICES, "rdmapush devices --for" },
		{ "ping", RP_MODE_PING, "rdmapush ping --server\n" },
		{ "render", RP_MODE_RENDER, "rdmapush render send.jsonl" },
		{ "help", RP_MODE_HELP, "Usage: rdmapush help [CMD]" },
	};
	char usage[64];

	(void)state;
	HELP(RP_MODE_HELP, "help", "--help");
	HELP(RP_MODE_HELP, "help", "-h");
	HELP(RP_MODE_HELP, "--help", "--help");
	REFUSED("help", "--bogus");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		bool push = cmds[i].mode == RP_MODE_SEND ||
			    cmds[i].mode == RP_MODE_RECV;
		char *t = usage_text(cmds[i].mode);

		HELP(cmds[i].mode, "help", cmds[i].name);
		if (cmds[i].mode != RP_MODE_HELP)
			HELP(cmds[i].mode, cmds[i].name, "--help");
		snprintf(usage, sizeof(usage), "Usage: rdmapush %s",
			 cmds[i].name);
		assert_memory_equal(t, usage, strlen(usage));
		assert_non_null(strstr(t, cmds[i].own));
		assert_int_equal(count_of(t, "Exit status"), 1);
		assert_int_equal(count_of(t, "\nExamples:\n"), 1);
		assert_int_equal(count_of(t, "\nOptions:\n"),
				 cmds[i].mode != RP_MODE_HELP);
		assert_non_null(strstr(t, "--help"));
		/* A push's example and exit table: send's and recv's only. */
		assert_int_equal(!!strstr(t, "rdmapush send big.iso"), push);
		assert_int_equal(!!strstr(t, "  6  refused by policy"), push);
		for (const char *l = t; *l;) {
			size_t n = strcspn(l, "\n");

			assert_true(n <= 79);
			l += n + (l[n] != '\0');
		}
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_recv_short),
		cmocka_unit_test(test_recv_long),
		cmocka_unit_test(test_max_size),
		cmocka_unit_test(test_min_rate),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_qps),
		cmocka_unit_test(test_direct),
		cmocka_unit_test(test_trace_json),
		cmocka_unit_test(test_send_options),
		cmocka_unit_test(test_positional),
		cmocka_unit_test(test_reentrant),
		cmocka_unit_test(test_combinations),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_max_per_address),
		cmocka_unit_test(test_max_pending_per_prefix),
		cmocka_unit_test(test_max_xfers_per_address),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_host_hints),
		cmocka_unit_test(test_host_lists),
		cmocka_unit_test(test_host_list_refusals),
		cmocka_unit_test(test_hosts_file),
		cmocka_unit_test(test_recv_relay),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_usage_text),
		cmocka_unit_test(test_getopt_errors),
		cmocka_unit_test(test_help_pages),
	};

	/* GNU argument permutation is part of what is tested. */
	unsetenv("POSIXLY_CORRECT");
	return cmocka_run_group_tests(tests, NULL, free_owed);
}
