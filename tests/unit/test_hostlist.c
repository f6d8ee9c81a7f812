// SPDX-License-Identifier: MIT
/* Unit tests of the host list: Slurm's hostlist syntax (items, ranges
 * and their padding, products, ports, IPv6), every refusal with its one
 * message, the limits, duplicates, and the hosts file reader over
 * regular files and pipes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "rdmapush/err.h"
#include "rdmapush/hostlist.h"
#include "rdmapush/trace.h"

/* The list as "h1,h2:port,[v6]:port" (rp_host_fmt of each, joined). */
static const char *joined(const struct rp_hostlist *hl)
{
	static char out[RP_HOSTS_MAX * 16];
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < hl->n; i++) {
		char one[RP_HOST_NAME_MAX + 16];

		rp_host_fmt(one, sizeof(one), &hl->host[i]);
		used += (size_t)snprintf(out + used, sizeof(out) - used, "%s%s",
					 i ? "," : "", one);
		assert_true(used < sizeof(out));
	}
	return out;
}

/* expr alone expands to want, and says nothing. */
static void expands(const char *expr, const char *want)
{
	struct rp_hostlist hl;
	const char *said;
	int rc;

	rp_hostlist_init(&hl);
	capture_start();
	rc = rp_hostlist_add(&hl, expr);
	said = capture_end();
	if (rc)
		print_error("%s: %s", expr, said);
	assert_int_equal(rc, 0);
	assert_string_equal(said, "");
	assert_string_equal(joined(&hl), want);
	rp_hostlist_free(&hl);
}

/* Exactly one line on stderr, holding want. */
static void one_line_with(const char *said, const char *want)
{
	const char *nl = strchr(said, '\n');

	if (!strstr(said, want))
		print_error("wanted \"%s\" in \"%s\"\n", want, said);
	assert_non_null(strstr(said, want));
	assert_non_null(nl);
	assert_int_equal(nl[1], '\0');
}

/* Adding expr to hl (which may hold hosts) fails with one line holding
 * want, and leaves hl as it was. */
static void refused_in(struct rp_hostlist *hl, const char *expr,
		       const char *want)
{
	size_t n = hl->n;
	int rc;

	capture_start();
	rc = rp_hostlist_add(hl, expr);
	one_line_with(capture_end(), want);
	assert_int_equal(rc, RP_EUSAGE);
	assert_int_equal(hl->n, n);
}

static void refused(const char *expr, const char *want)
{
	struct rp_hostlist hl;

	rp_hostlist_init(&hl);
	refused_in(&hl, expr, want);
	rp_hostlist_free(&hl);
}

static void test_items(void **state)
{
	(void)state;
	expands("a", "a");
	expands("a,b,c", "a,b,c");
	expands("c,a,b", "c,a,b");
	expands("host-1.example.org,under_score", "host-1.example.org,"
		"under_score");
	expands("10.0.0.2", "10.0.0.2");
	expands("10.0.0.2:7000,10.0.0.3", "10.0.0.2:7000,10.0.0.3");
}

static void test_ranges(void **state)
{
	char want[256];
	size_t used = 0;

	(void)state;
	for (int i = 1; i <= 16; i++)
		used += (size_t)snprintf(want + used, sizeof(want) - used,
					 "%snode%02d", i > 1 ? "," : "", i);
	expands("node[01-16]", want);
	expands("gpu[1-4,7]", "gpu1,gpu2,gpu3,gpu4,gpu7");
	expands("n[8-10]", "n8,n9,n10");
	expands("n[09-11]", "n09,n10,n11");
	expands("n[001-003]", "n001,n002,n003");
	expands("n[0-2]", "n0,n1,n2");
	expands("n[5]", "n5");
	expands("n[07]", "n07");
	expands("n[3-3]", "n3");
	/* Each range keeps its own width. */
	expands("n[1-2,010-011]", "n1,n2,n010,n011");
	expands("n[1-2].ib", "n1.ib,n2.ib");
	expands("10.0.0.[1-3]:7000", "10.0.0.1:7000,10.0.0.2:7000,"
		"10.0.0.3:7000");
	expands("[1-2]x", "1x,2x");
}

static void test_products(void **state)
{
	(void)state;
	expands("r[1-2]n[1-2]", "r1n1,r1n2,r2n1,r2n2");
	expands("a[1-2]b[3,5]c", "a1b3c,a1b5c,a2b3c,a2b5c");
	expands("x[1-2]y[1]z[0-1]", "x1y1z0,x1y1z1,x2y1z0,x2y1z1");
	/* Commas inside brackets do not split items; those outside do. */
	expands("gpu[1-2,4],cpu[1-2]:99", "gpu1,gpu2,gpu4,cpu1:99,cpu2:99");
	expands("a,r[1-2]n[3,4],b", "a,r1n3,r1n4,r2n3,r2n4,b");
}

static void test_ports(void **state)
{
	(void)state;
	expands("node[1-3]:18515", "node1:18515,node2:18515,node3:18515");
	expands("a:1,b:65535,c", "a:1,b:65535,c");
	expands("a:00080", "a:80");
	expands("a:1,a:2", "a:1,a:2");	/* one host, two receivers */
	refused("a:0", "host list \"a:0\": the port is not in 1-65535");
	refused("a:65536", "the port is not in 1-65535");
	refused("a:123456", "the port is not in 1-65535");
	refused("a:", "host list \"a:\": no port after ':'");
	refused("a:x1", "the port is not a number");
	refused("a:-1", "the port is not a number");
	refused(":80", "host list \":80\": no host name before ':'");
	refused("a:1:2", "more than one ':' (an IPv6 address is written "
		"[ADDR] or [ADDR]:PORT)");
	refused("fe80::1", "host list \"fe80::1\": more than one ':'");
}

static void test_ipv6(void **state)
{
	struct rp_hostlist hl;

	(void)state;
	expands("[fe80::1]", "fe80::1");
	expands("[2001:db8::1]:18515", "[2001:db8::1]:18515");
	expands("[fe80::1%eth0]:7,[::1]", "[fe80::1%eth0]:7,::1");
	expands("[::ffff:10.0.0.1]:9", "[::ffff:10.0.0.1]:9");
	expands("a,[::1]:5,b[1-2]", "a,[::1]:5,b1,b2");
	rp_hostlist_init(&hl);
	assert_int_equal(rp_hostlist_add(&hl, "[2001:DB8::2]:7"), 0);
	assert_true(hl.host[0].ipv6);
	assert_string_equal(hl.host[0].name, "2001:DB8::2");
	assert_int_equal(hl.host[0].port, 7);
	/* Case does not make another host. */
	refused_in(&hl, "[2001:db8::2]:7", "[2001:db8::2]:7 is in the list "
		   "twice (hosts 1 and 2)");
	rp_hostlist_free(&hl);
	refused("[fe80::zz]", "host list \"[fe80::zz]\": not an IPv6 "
		"address");
	refused("[1:2:3:4:5:6:7:8:9]", "not an IPv6 address");
	refused("[::1]x", "text after the address's ']' (a port is written "
		"[ADDR]:PORT)");
	refused("[::1]:", "no port after ':'");
	refused("[::1]:0", "the port is not in 1-65535");
	refused("[::1%]", "an empty zone after '%'");
	refused("[::1%e/0]", "the zone after '%' is not an interface name");
	refused("[::1", "'[' without ']'");
	/* Not at the start of an item: a ':' in a group is no range. */
	refused("n[1:2]", "':' is not allowed in a range");
}

static void test_syntax_errors(void **state)
{
	(void)state;
	refused("", "host list \"\": no host in it");
	refused("a,,b", "host list \"a,,b\": an empty item");
	refused("a,", "host list \"a,\": an empty item");
	refused(",a", "host list \",a\": an empty item");
	refused("n[3-1]", "host list \"n[3-1]\": range 3-1 goes down");
	refused("node[3-1]", "host list \"node[3-1]\": range 3-1 goes down");
	refused("n[1-3", "host list \"n[1-3\": '[' without ']'");
	refused("n1-3]", "host list \"n1-3]\": ']' without '['");
	refused("n[[1]]", "'[' inside a bracket group");
	refused("n[]", "an empty bracket group \"[]\"");
	refused("n[1,]", "an empty range in a bracket group");
	refused("n[,1]", "an empty range in a bracket group");
	refused("n[1,,2]", "an empty range in a bracket group");
	refused("n[1-]", "range \"1-\" is not N or N-M");
	refused("n[-1]", "range \"-1\" is not N or N-M");
	refused("n[1-2-3]", "range \"1-2-3\" is not N or N-M");
	refused("n[a]", "'a' is not allowed in a range (N, N-M, N,M...)");
	refused("n/1", "host list \"n/1\": '/' is not allowed in a host "
		"name");
	refused("a b", "' ' is not allowed in a host name");
	refused("n[1234567890]", "a number of more than 9 digits");
	/* The item is named, not the whole list. */
	refused("good,n[2-1],other", "host list \"n[2-1]\": range 2-1 goes "
		"down");
}

/* Input text is escaped in the message: no raw control byte, no quote
 * that would end the quoted item. */
static void test_escaped(void **state)
{
	struct rp_hostlist hl;
	const char *said;

	(void)state;
	/* ESC c resets a terminal: shown, never sent. */
	refused("a\x1b" "c", "host list \"a\\u{001b}c\": '\\u{001b}' is "
		"not allowed in a host name");
	refused("a\x1b[31m", "host list \"a\\u{001b}[31m\": '[' without "
		"']'");
	refused("a\"b", "host list \"a\\\"b\": '\\\"' is not allowed");
	refused("n\xc3\xa9", "host list \"n\xc3\xa9\": '\xc3\xa9' is not "
		"allowed");
	refused("n\xc3", "host list \"n\\xc3\": '\\xc3' is not allowed");
	rp_hostlist_init(&hl);
	capture_start();
	assert_int_equal(rp_hostlist_add(&hl, "x\ny"), RP_EUSAGE);
	said = capture_end();
	one_line_with(said, "host list \"x\\u{000a}y\"");
	assert_null(strchr(said, '\x1b'));
	rp_hostlist_free(&hl);
}

static void test_duplicates(void **state)
{
	struct rp_hostlist hl;

	(void)state;
	refused("a,b,a", "host list \"a\": a is in the list twice (hosts 1 "
		"and 3)");
	refused("gpu[1-3,2]", "host list \"gpu[1-3,2]\": gpu2 is in the list "
		"twice (hosts 2 and 4)");
	refused("Node1,node1", "node1 is in the list twice");
	refused("a:7,b,a:7", "a:7 is in the list twice (hosts 1 and 3)");
	/* Names compare as text: n2 and n02 are two. */
	expands("n[1-2],n[02-03]", "n1,n2,n02,n03");
	/* Across calls: the list is one chain. */
	rp_hostlist_init(&hl);
	assert_int_equal(rp_hostlist_add(&hl, "n[1-3]"), 0);
	refused_in(&hl, "m1,n2", "host list \"n2\": n2 is in the list twice "
		   "(hosts 2 and 5)");
	assert_string_equal(joined(&hl), "n1,n2,n3");
	rp_hostlist_free(&hl);
}

static void test_limits(void **state)
{
	struct rp_hostlist hl;
	char name[RP_HOST_NAME_MAX + 2];
	char expr[512];

	(void)state;
	/* Refused when counted, before anything is allocated. */
	rp_hostlist_init(&hl);
	refused_in(&hl, "n[1-100000]", "host list \"n[1-100000]\": range "
		   "1-100000 has more than 1024 members");
	assert_null(hl.host);
	assert_int_equal(hl.cap, 0);
	refused_in(&hl, "n[0-999999999]", "more than 1024 members");
	refused_in(&hl, "n[1-1000,2001-2100]", "a bracket group of more than "
		   "1024 members");
	refused_in(&hl, "r[1-100]n[1-100]", "host list \"r[1-100]n[1-100]\": "
		   "expands to more than 1024 hosts");
	/* 2^10 members per group, 2^40 in the product: the count stops at
	 * the cap rather than overflow. */
	refused_in(&hl, "a[1-1024]b[1-1024]c[1-1024]d[1-1024]e[1-1024]"
		   "f[1-1024]g[1-1024]", "expands to more than 1024 hosts");
	assert_null(hl.host);
	/* Up to the cap is fine; one more is not. */
	assert_int_equal(rp_hostlist_add(&hl, "n[0-1023]"), 0);
	assert_int_equal(hl.n, RP_HOSTS_MAX);
	assert_string_equal(hl.host[1023].name, "n1023");
	refused_in(&hl, "x", "host list \"x\": makes more than 1024 hosts "
		   "with the 1024 before it");
	refused_in(&hl, "[::1]:7", "host list \"[::1]:7\": makes more than "
		   "1024 hosts with the 1024 before it");
	assert_int_equal(hl.cap, RP_HOSTS_MAX);
	rp_hostlist_free(&hl);
	/* Later items are checked with the earlier ones of the same list;
	 * a refused list adds nothing. */
	rp_hostlist_init(&hl);
	assert_int_equal(rp_hostlist_add(&hl, "keep"), 0);
	refused_in(&hl, "n[1-600],m[1-600]", "host list \"m[1-600]\": makes "
		   "more than 1024 hosts with the 601 before it");
	assert_string_equal(joined(&hl), "keep");
	rp_hostlist_free(&hl);
	rp_hostlist_free(&hl);	/* twice is fine */

	/* A name of 255 bytes, and one of 256. */
	memset(name, 'h', RP_HOST_NAME_MAX);
	name[RP_HOST_NAME_MAX] = '\0';
	expands(name, name);
	/* The first member fits, the second does not: nothing added. */
	snprintf(expr, sizeof(expr), "%.*s[9-10]", RP_HOST_NAME_MAX - 1,
		 name);
	refused(expr, "a host name over 255 bytes");
	name[RP_HOST_NAME_MAX] = 'h';
	name[RP_HOST_NAME_MAX + 1] = '\0';
	refused(name, "a host name over 255 bytes");

	/* 32 groups, then 33. */
	for (int i = 0; i <= RP_HOST_GROUPS_MAX; i++)
		memcpy(expr + 3 * i, "[1]", 3);
	expr[3 * RP_HOST_GROUPS_MAX] = '\0';
	rp_hostlist_init(&hl);
	assert_int_equal(rp_hostlist_add(&hl, expr), 0);
	assert_int_equal(hl.n, 1);
	rp_hostlist_free(&hl);
	expr[3 * RP_HOST_GROUPS_MAX] = '[';
	expr[3 * RP_HOST_GROUPS_MAX + 3] = '\0';
	refused(expr, "more than 32 bracket groups");
}

/* A temporary file holding len bytes of text; its path into path. */
static void temp_file(char *path, size_t size, const char *text, size_t len)
{
	int fd;

	snprintf(path, size, "%s/rp-hosts-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* A hosts file of text read into hl: rc, and what was said. */
static int read_text(struct rp_hostlist *hl, const char *text, size_t len,
		     char *path, size_t size, const char **said)
{
	int rc;

	temp_file(path, size, text, len);
	capture_start();
	rc = rp_hostlist_read_file(hl, path);
	*said = capture_end();
	unlink(path);
	return rc;
}

static void file_reads(const char *text, const char *want)
{
	struct rp_hostlist hl;
	char path[256];
	const char *said;

	rp_hostlist_init(&hl);
	assert_int_equal(read_text(&hl, text, strlen(text), path, sizeof(path),
				   &said), 0);
	assert_string_equal(said, "");
	assert_string_equal(joined(&hl), want);
	rp_hostlist_free(&hl);
}

/* The file is refused with one line naming it and the line, and adds
 * nothing to a list holding one host. */
static void file_refused(const char *text, size_t len, const char *want)
{
	struct rp_hostlist hl;
	char path[256];
	char where[300];
	const char *said;

	rp_hostlist_init(&hl);
	assert_int_equal(rp_hostlist_add(&hl, "before"), 0);
	assert_int_equal(read_text(&hl, text, len, path, sizeof(path), &said),
			 RP_EUSAGE);
	snprintf(where, sizeof(where), "hosts file \"%s\"", path);
	one_line_with(said, where);
	one_line_with(said, want);
	assert_string_equal(joined(&hl), "before");
	rp_hostlist_free(&hl);
}

static void test_file(void **state)
{
	char *big;
	size_t n;

	(void)state;
	file_reads("a\nb\n", "a,b");
	file_reads("# the job's nodes\n\nnode[1-2]\r\n  b:7000\t# rack 2\n"
		   "\t[::1]:9 \n#\n   \n\r\nlast", "node1,node2,b:7000,"
		   "[::1]:9,last");
	file_reads("gpu[1-2,4],cpu1\n", "gpu1,gpu2,gpu4,cpu1");
	file_reads("a#b\n", "a");
	file_refused("a\nb\nn[3-1]\n", 10, "line 3: host list \"n[3-1]\": "
		     "range 3-1 goes down");
	file_refused("a\nb\na\n", 6, "line 3: host list \"a\": a is in the "
		     "list twice (hosts 2 and 4)");
	file_refused("before\n", 7, "line 1: host list \"before\": before is "
		     "in the list twice");
	file_refused("a\nb\0c\n", 6, "line 2: a NUL byte");
	file_refused("", 0, ": no host in it");
	file_refused("# nothing\n\n  \n", 14, ": no host in it");
	file_refused("a b\n", 4, "line 1: host list \"a b\": ' ' is not "
		     "allowed");

	/* Lines of 4096 bytes pass (a comment here), CRLF or not; 4097
	 * do not. */
	big = malloc(RP_HOSTS_FILE_MAX + 4096);
	assert_non_null(big);
	n = 0;
	big[n++] = 'a';
	big[n++] = '\n';
	big[n++] = '#';
	memset(big + n, 'c', RP_HOSTS_LINE_MAX - 1);
	n += RP_HOSTS_LINE_MAX - 1;
	big[n++] = '\r';
	big[n++] = '\n';
	big[n++] = '#';
	memset(big + n, 'c', RP_HOSTS_LINE_MAX - 1);
	n += RP_HOSTS_LINE_MAX - 1;
	big[n] = '\0';
	file_reads(big, "a");
	big[n++] = 'c';
	file_refused(big, n, "line 3: longer than 4096 bytes");
	big[n++] = '\n';
	file_refused(big, n, "line 3: longer than 4096 bytes");
	/* One byte over the file's cap: comment lines all the way. */
	for (n = 0; n < RP_HOSTS_FILE_MAX + 1; n++)
		big[n] = n % 64 == 63 ? '\n' : '#';
	big[0] = 'a';
	big[1] = '\n';
	file_refused(big, n, "line 16386: the file is over 1048576 bytes");
	free(big);
}

static void test_file_errors(void **state)
{
	struct rp_hostlist hl;
	const char *said;
	int fd;

	(void)state;
	rp_hostlist_init(&hl);
	capture_start();
	assert_int_equal(rp_hostlist_read_file(&hl, "/nonexistent/hosts\x1b"),
			 -ENOENT);
	one_line_with(capture_end(), "hosts file \"/nonexistent/hosts\\u{001b}"
		      "\": open: No such file or directory");
	fd = open("/", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	capture_start();
	assert_int_equal(rp_hostlist_read_fd(&hl, fd, "/"), -EISDIR);
	said = capture_end();
	one_line_with(said, "hosts file \"/\": read: Is a directory");
	close(fd);
	/* A syntax error names the path, escaped. */
	capture_start();
	fd = open("/dev/null", O_RDONLY);
	assert_int_equal(rp_hostlist_read_fd(&hl, fd, "a\nb"), RP_EUSAGE);
	close(fd);
	one_line_with(capture_end(), "hosts file \"a\\u{000a}b\": no host");
	assert_int_equal(hl.n, 0);
	rp_hostlist_free(&hl);
}

/* A child writes len bytes of text into a pipe (more than the pipe
 * holds, so the reader reads while it writes); returns the read end. */
static int pipe_from_child(const char *text, size_t len, pid_t *pid)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (!*pid) {
		size_t off = 0;

		close(p[0]);
		signal(SIGPIPE, SIG_DFL);
		while (off < len) {
			ssize_t w = write(p[1], text + off, len - off);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

static void test_pipe(void **state)
{
	struct rp_hostlist hl;
	char path[64];
	char *text;
	size_t n = 0, size = 256 * 1024;
	pid_t pid;
	int fd, status;

	(void)state;
	text = malloc(size);
	assert_non_null(text);
	/* 1000 hosts, as `scontrol show hostnames` prints them, between
	 * comment lines that make it larger than a pipe's buffer. */
	for (int i = 0; i < 1000; i++)
		n += (size_t)snprintf(text + n, size - n, "# %0180d\n"
				      "node%04d\n", i, i);
	assert_true(n > 128 * 1024 && n < size);
	rp_hostlist_init(&hl);
	fd = pipe_from_child(text, n, &pid);
	assert_int_equal(rp_hostlist_read_fd(&hl, fd, "pipe"), 0);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	assert_int_equal(hl.n, 1000);
	assert_string_equal(hl.host[0].name, "node0000");
	assert_string_equal(hl.host[999].name, "node0999");
	rp_hostlist_free(&hl);

	/* As --hosts <(...) gives it: /dev/fd/N, opened by path. */
	fd = pipe_from_child("n[1-3]\n", 7, &pid);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	assert_int_equal(rp_hostlist_read_file(&hl, path), 0);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_string_equal(joined(&hl), "n1,n2,n3");
	rp_hostlist_free(&hl);
	free(text);
}

static void test_default_port(void **state)
{
	struct rp_hostlist hl;
	const char *said;

	(void)state;
	rp_hostlist_init(&hl);
	assert_int_equal(rp_hostlist_add(&hl, "a,b:7,[::1]"), 0);
	assert_int_equal(rp_hostlist_default_port(&hl, 9), 0);
	assert_string_equal(joined(&hl), "a:9,b:7,[::1]:9");
	rp_hostlist_free(&hl);
	/* "a" and "a:9" are one receiver when 9 is the default. */
	assert_int_equal(rp_hostlist_add(&hl, "c,a:9,a"), 0);
	capture_start();
	assert_int_equal(rp_hostlist_default_port(&hl, 9), RP_EUSAGE);
	said = capture_end();
	one_line_with(said, "host list: a:9 is in the list twice (hosts 2 "
		      "and 3; 9 is the default port)");
	capture_start();
	assert_int_equal(rp_hostlist_default_port(&hl, 0), RP_EINTERNAL);
	capture_end();
	rp_hostlist_free(&hl);
}

static void test_fmt(void **state)
{
	struct rp_host h = { .name = "fe80::1", .port = 0, .ipv6 = true };
	char buf[8];
	char big[64];

	(void)state;
	assert_string_equal(rp_host_fmt(big, sizeof(big), &h), "fe80::1");
	h.port = 18515;
	assert_string_equal(rp_host_fmt(big, sizeof(big), &h),
			    "[fe80::1]:18515");
	assert_string_equal(rp_host_fmt(buf, sizeof(buf), &h), "[fe80::");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_products),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_escaped),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_default_port),
		cmocka_unit_test(test_fmt),
	};

	rp_trace_init(RP_V_NORMAL, "send");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
