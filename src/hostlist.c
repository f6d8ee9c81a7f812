// SPDX-License-Identifier: MIT
/* The hosts of a chain push: hostlist expressions and hosts files. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/hostlist.h"
#include "rdmapush/trace.h"

#define NUM_DIGITS_MAX	9	/* a num: below 10^9, so sums fit 32 bits */
#define PORT_DIGITS_MAX	5

/* One bracket group of an item: its text between the brackets. */
struct group {
	const char *txt;
	size_t len;
	size_t members;
};

/* One item, checked and counted, before it is expanded. */
struct item {
	const char *txt;	/* the whole item, for messages */
	size_t len;
	size_t host_len;	/* bytes of txt before ":PORT" */
	uint16_t port;
	bool ipv6;
	struct group g[RP_HOST_GROUPS_MAX];
	size_t ngroups;
	size_t count;		/* hosts it expands to */
};

/* Where a message is: "" for the command line, or the file and line. */
#define WHERE_MAX (RP_PEER_TEXT_MAX + 48)

static bool namechar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

static bool digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* The one error line about text (an item, or the whole expression):
 * where, the text escaped, then what is wrong with it. */
static int RP_PRINTF(4, 5) text_err(const char *where, const char *txt,
				    size_t len, const char *fmt, ...)
{
	char shown[RP_PEER_TEXT_MAX];
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	RP_ERR("%shost list \"%s\": %s", where,
	       rp_fmt_peer(shown, sizeof(shown), txt, len), what);
	return RP_EUSAGE;
}

/* The character at c (n bytes left), escaped, for "'%s' is not
 * allowed": a whole UTF-8 sequence, else one byte. */
static const char *char_shown(char *buf, size_t len, const char *c, size_t n)
{
	uint32_t cp;
	size_t seq = (unsigned char)*c < 0x80 ? 1 :
		     rp_utf8_seq((const unsigned char *)c, n, &cp);

	return rp_fmt_peer(buf, len, c, seq ? seq : 1);
}

char *rp_host_fmt(char *buf, size_t len, const struct rp_host *h)
{
	if (!h->port)
		snprintf(buf, len, "%s", h->name);
	else if (h->ipv6)
		snprintf(buf, len, "[%s]:%u", h->name, h->port);
	else
		snprintf(buf, len, "%s:%u", h->name, h->port);
	return buf;
}

void rp_hostlist_init(struct rp_hostlist *hl)
{
	memset(hl, 0, sizeof(*hl));
}

int rp_host_format(char *buf, size_t len, const char *name, uint16_t port)
{
	bool v6 = strchr(name, ':') != NULL;

	return snprintf(buf, len, "%s%s%s:%u", v6 ? "[" : "", name,
			v6 ? "]" : "", port);
}

void rp_hostlist_free(struct rp_hostlist *hl)
{
	free(hl->host);
	rp_hostlist_init(hl);
}

/* Room for need entries. check_item() keeps need <= RP_HOSTS_MAX; checked
 * again here, as the array is never larger. */
static int reserve(struct rp_hostlist *hl, size_t need)
{
	struct rp_host *v;
	size_t cap = hl->cap ? hl->cap : 16;

	if (need <= hl->cap)
		return 0;
	if (need > RP_HOSTS_MAX) {
		RP_ERR("host list: %zu hosts reserved, over the cap", need);
		return RP_EINTERNAL;
	}
	while (cap < need)
		cap *= 2;
	if (cap > RP_HOSTS_MAX)
		cap = RP_HOSTS_MAX;
	v = realloc(hl->host, cap * sizeof(*v));
	if (!v) {
		RP_ERR("realloc(%zu hosts): %s", cap, strerror(ENOMEM));
		return -ENOMEM;
	}
	hl->host = v;
	hl->cap = cap;
	return 0;
}

/* Index of the entry before upto that is h's host and port, or -1. */
static ssize_t find_dup(const struct rp_hostlist *hl, size_t upto,
			const struct rp_host *h)
{
	for (size_t i = 0; i < upto; i++)
		if (hl->host[i].port == h->port &&
		    !strcasecmp(hl->host[i].name, h->name))
			return (ssize_t)i;
	return -1;
}

/* Digits at s (n bytes), 1 to max of them, into *v. */
static int parse_num(const char *s, size_t n, size_t max, uint32_t *v)
{
	uint32_t x = 0;

	if (!n || n > max)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!digit((unsigned char)s[i]))
			return -1;
		x = x * 10 + (uint32_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

/* One range of a group: "N" or "N-M", up to the next ',' or the end. */
struct range {
	const char *txt;
	size_t len;		/* bytes of the range, without its ',' */
	size_t lo_len;		/* bytes of N: the width of every member */
	size_t hi_len;		/* bytes of M (0: no '-') */
	bool dash, comma;	/* a '-' in it; a ',' after it */
	uint32_t lo, hi;	/* hi = lo without a '-'; valid when checked */
};

/* The range at pos of g's text, split; its numbers parsed when they are
 * digits (check_group() refuses the rest before next_range() runs). */
static void split_range(const struct group *g, size_t pos, struct range *r)
{
	const char *s = g->txt + pos;
	size_t n = g->len - pos;
	const char *comma = memchr(s, ',', n);
	const char *dash;

	r->txt = s;
	r->len = comma ? (size_t)(comma - s) : n;
	r->comma = comma != NULL;
	dash = memchr(s, '-', r->len);
	r->dash = dash != NULL;
	r->lo_len = dash ? (size_t)(dash - s) : r->len;
	r->hi_len = dash ? r->len - r->lo_len - 1 : 0;
	r->lo = 0;
	(void)parse_num(s, r->lo_len, NUM_DIGITS_MAX, &r->lo);
	r->hi = r->lo;
	if (dash)
		(void)parse_num(dash + 1, r->hi_len, NUM_DIGITS_MAX, &r->hi);
}

/* The next range of a checked group at *pos; *pos moves past it and
 * its ','. */
static void next_range(const struct group *g, size_t *pos, struct range *r)
{
	split_range(g, *pos, r);
	*pos += r->len + (r->comma ? 1 : 0);
}

/* A group's ranges: their syntax, their direction, the members they
 * make (into g->members), before any is made. */
static int check_group(const char *where, const struct item *it,
		       struct group *g)
{
	size_t pos = 0;
	struct range r;

	g->members = 0;
	if (!g->len)
		return text_err(where, it->txt, it->len,
				"an empty bracket group \"[]\"");
	do {
		next_range(g, &pos, &r);
		if (!r.len)	/* "[,1]", "[1,,2]", "[1,]" */
			return text_err(where, it->txt, it->len,
					"an empty range in a bracket group");
		if (!r.lo_len || (r.dash && !r.hi_len) ||
		    (r.dash && memchr(r.txt + r.lo_len + 1, '-', r.hi_len)))
			return text_err(where, it->txt, it->len,
					"range \"%.*s\" is not N or N-M",
					(int)r.len, r.txt);
		if (r.lo_len > NUM_DIGITS_MAX || r.hi_len > NUM_DIGITS_MAX)
			return text_err(where, it->txt, it->len,
					"a number of more than %d digits",
					NUM_DIGITS_MAX);
		if (r.hi < r.lo)
			return text_err(where, it->txt, it->len,
					"range %.*s goes down", (int)r.len,
					r.txt);
		/* Counted before anything is allocated: n[1-100000] is
		 * refused here, not after 100000 names. */
		if (r.hi - r.lo >= RP_HOSTS_MAX)
			return text_err(where, it->txt, it->len,
					"range %.*s has more than %d members",
					(int)r.len, r.txt, RP_HOSTS_MAX);
		g->members += r.hi - r.lo + 1;
		if (g->members > RP_HOSTS_MAX)
			return text_err(where, it->txt, it->len,
					"a bracket group of more than %d "
					"members", RP_HOSTS_MAX);
	} while (r.comma);
	return 0;
}

/* ":PORT" after the host, at s (n bytes, after the ':'). */
static int check_port(const char *where, struct item *it, const char *s,
		      size_t n)
{
	uint32_t v;

	if (!n)
		return text_err(where, it->txt, it->len, "no port after ':'");
	if (memchr(s, ':', n))
		return text_err(where, it->txt, it->len,
				"more than one ':' (an IPv6 address is "
				"written [ADDR] or [ADDR]:PORT)");
	for (size_t i = 0; i < n; i++)
		if (!digit((unsigned char)s[i]))
			return text_err(where, it->txt, it->len,
					"the port is not a number");
	if (parse_num(s, n, PORT_DIGITS_MAX, &v) || !v || v > 65535)
		return text_err(where, it->txt, it->len,
				"the port is not in 1-65535");
	it->port = (uint16_t)v;
	return 0;
}

/* "[ADDR]" or "[ADDR%ZONE]", then nothing or ":PORT"; close is the
 * index of the ']'. */
static int check_ipv6(const char *where, struct item *it, size_t close)
{
	const char *addr = it->txt + 1;
	size_t len = close - 1;
	const char *pct = memchr(addr, '%', len);
	size_t alen = pct ? (size_t)(pct - addr) : len;
	char buf[INET6_ADDRSTRLEN];
	struct in6_addr a;

	if (len > RP_HOST_NAME_MAX)
		return text_err(where, it->txt, it->len,
				"an address over %d bytes", RP_HOST_NAME_MAX);
	if (alen >= sizeof(buf))
		return text_err(where, it->txt, it->len,
				"not an IPv6 address");
	memcpy(buf, addr, alen);
	buf[alen] = '\0';
	if (inet_pton(AF_INET6, buf, &a) != 1)
		return text_err(where, it->txt, it->len,
				"not an IPv6 address");
	if (pct) {
		size_t zlen = len - alen - 1;

		if (!zlen)
			return text_err(where, it->txt, it->len,
					"an empty zone after '%%'");
		for (size_t i = 0; i < zlen; i++)
			if (!namechar((unsigned char)pct[1 + i]))
				return text_err(where, it->txt, it->len,
						"the zone after '%%' is not "
						"an interface name");
	}
	it->ipv6 = true;
	it->host_len = close + 1;
	it->count = 1;
	if (close + 1 == it->len)
		return 0;
	if (it->txt[close + 1] != ':')
		return text_err(where, it->txt, it->len,
				"text after the address's ']' (a port is "
				"written [ADDR]:PORT)");
	return check_port(where, it, it->txt + close + 2,
			  it->len - close - 2);
}

/* An item of names and groups: its syntax, its groups, the hosts it
 * makes (it->count). */
static int check_names(const char *where, struct item *it)
{
	const char *s = it->txt;
	size_t gstart = 0;
	bool in_group = false;
	char c_shown[16];
	size_t i;

	/* Brackets first: in "[::1" the error is the missing ']', not the
	 * ':' that would then be in a range. */
	for (i = 0; i < it->len; i++) {
		if (s[i] == '[' && in_group)
			return text_err(where, it->txt, it->len,
					"'[' inside a bracket group");
		if (s[i] == ']' && !in_group)
			return text_err(where, it->txt, it->len,
					"']' without '['");
		if (s[i] == '[' || s[i] == ']')
			in_group = !in_group;
	}
	if (in_group)
		return text_err(where, it->txt, it->len, "'[' without ']'");
	for (i = 0; i < it->len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '[') {
			if (it->ngroups == RP_HOST_GROUPS_MAX)
				return text_err(where, it->txt, it->len,
						"more than %d bracket groups",
						RP_HOST_GROUPS_MAX);
			in_group = true;
			gstart = i + 1;
		} else if (c == ']') {
			in_group = false;
			it->g[it->ngroups].txt = s + gstart;
			it->g[it->ngroups].len = i - gstart;
			it->ngroups++;
		} else if (c == ':' && !in_group) {
			it->host_len = i;
			break;
		} else if (in_group && !digit(c) && c != '-' && c != ',') {
			return text_err(where, it->txt, it->len,
					"'%s' is not allowed in a range (N, "
					"N-M, N,M...)",
					char_shown(c_shown, sizeof(c_shown),
						   s + i, it->len - i));
		} else if (!in_group && !namechar(c)) {
			return text_err(where, it->txt, it->len,
					"'%s' is not allowed in a host name",
					char_shown(c_shown, sizeof(c_shown),
						   s + i, it->len - i));
		}
	}
	if (!it->host_len)
		return text_err(where, it->txt, it->len,
				"no host name before ':'");
	/* Each group counted, then their product, with a stop at the cap
	 * so that the product cannot overflow. */
	it->count = 1;
	for (size_t k = 0; k < it->ngroups; k++) {
		int rc = check_group(where, it, &it->g[k]);

		if (rc)
			return rc;
		it->count *= it->g[k].members;
		if (it->count > RP_HOSTS_MAX)
			return text_err(where, it->txt, it->len,
					"expands to more than %d hosts",
					RP_HOSTS_MAX);
	}
	if (it->host_len < it->len) {
		int rc = check_port(where, it, s + it->host_len + 1,
				    it->len - it->host_len - 1);

		if (rc)
			return rc;
	}
	return 0;
}

/* The item's syntax and limits, and the hosts it makes (it->count),
 * with already hosts before it in the list. */
static int check_item(const char *where, struct item *it, size_t already)
{
	const char *close = memchr(it->txt, ']', it->len);
	int rc;

	it->port = 0;
	it->ipv6 = false;
	it->ngroups = 0;
	it->host_len = it->len;
	/* A group holding a ':' that opens the item is an address. */
	if (it->txt[0] == '[' && close &&
	    memchr(it->txt, ':', (size_t)(close - it->txt)))
		rc = check_ipv6(where, it, (size_t)(close - it->txt));
	else
		rc = check_names(where, it);
	if (rc)
		return rc;
	if (already + it->count > RP_HOSTS_MAX)
		return text_err(where, it->txt, it->len,
				"makes more than %d hosts with the %zu "
				"before it", RP_HOSTS_MAX, already);
	return 0;
}

/* Append h unless it is there already. */
static int append(struct rp_hostlist *hl, const char *where,
		  const struct item *it, const struct rp_host *h)
{
	ssize_t dup = find_dup(hl, hl->n, h);
	char shown[RP_HOST_NAME_MAX + 16];

	if (dup >= 0)
		return text_err(where, it->txt, it->len,
				"%s is in the list twice (hosts %zd and %zu)",
				rp_host_fmt(shown, sizeof(shown), h), dup + 1,
				hl->n + 1);
	hl->host[hl->n++] = *h;
	return 0;
}

/* Member j (0-based) of a checked group, zero-padded, at out. */
static int nth_member(char *out, size_t room, const struct group *g,
		      size_t j)
{
	size_t pos = 0;
	struct range r;

	for (;;) {
		next_range(g, &pos, &r);
		if (j <= r.hi - r.lo)
			break;
		j -= r.hi - r.lo + 1;
	}
	return snprintf(out, room, "%0*u", (int)r.lo_len,
			r.lo + (uint32_t)j);
}

/* The hosts of a checked item, in order: the last group varies fastest. */
static int expand_item(struct rp_hostlist *hl, const char *where,
		       const struct item *it)
{
	size_t idx[RP_HOST_GROUPS_MAX] = { 0 };
	struct rp_host h = { .port = it->port, .ipv6 = it->ipv6 };
	int rc;

	if (it->ipv6) {
		memcpy(h.name, it->txt + 1, it->host_len - 2);
		h.name[it->host_len - 2] = '\0';
		return append(hl, where, it, &h);
	}
	for (size_t made = 0; made < it->count; made++) {
		size_t len = 0, k = 0;

		for (size_t i = 0; i < it->host_len; i++) {
			size_t room = sizeof(h.name) - len;
			int w;

			if (it->txt[i] == '[') {
				w = nth_member(h.name + len, room, &it->g[k],
					       idx[k]);
				i += it->g[k].len + 1;
				k++;
			} else {
				w = 1;
				if (room > 1)
					h.name[len] = it->txt[i];
			}
			if ((size_t)w >= room)
				return text_err(where, it->txt, it->len,
						"a host name over %d bytes",
						RP_HOST_NAME_MAX);
			len += (size_t)w;
		}
		h.name[len] = '\0';
		rc = append(hl, where, it, &h);
		if (rc)
			return rc;
		/* The odometer: the last group first, carrying left. */
		for (k = it->ngroups; k-- > 0;) {
			if (++idx[k] < it->g[k].members)
				break;
			idx[k] = 0;
		}
	}
	return 0;
}

/* One expression (n bytes at s, no NUL) appended; hl unchanged on
 * error. */
static int add_expr(struct rp_hostlist *hl, const char *s, size_t n,
		    const char *where)
{
	size_t n0 = hl->n;
	size_t start = 0;
	int depth = 0;
	int rc = 0;

	if (!n)
		return text_err(where, s, n, "no host in it");
	for (size_t i = 0; i <= n && !rc; i++) {
		struct item it;

		if (i < n && s[i] == '[')
			depth++;
		else if (i < n && s[i] == ']' && depth)
			depth--;
		/* Bracket errors are check_item's: here a ',' splits only
		 * outside brackets. */
		if (i < n && (s[i] != ',' || depth))
			continue;
		if (i == start) {
			rc = text_err(where, s, n, "an empty item");
			break;
		}
		it.txt = s + start;
		it.len = i - start;
		start = i + 1;
		rc = check_item(where, &it, hl->n);
		if (!rc)
			rc = reserve(hl, hl->n + it.count);
		if (!rc)
			rc = expand_item(hl, where, &it);
	}
	if (rc)
		hl->n = n0;
	return rc;
}

int rp_hostlist_add(struct rp_hostlist *hl, const char *expr)
{
	return add_expr(hl, expr, strlen(expr), "");
}

static int line_too_long(const char *shown_path, unsigned long lineno)
{
	RP_ERR("hosts file \"%s\" line %lu: longer than %d bytes",
	       shown_path, lineno, RP_HOSTS_LINE_MAX);
	return RP_EUSAGE;
}

/* One line of a hosts file (its LF gone): CR, comment and blanks off. */
static int add_line(struct rp_hostlist *hl, char *line, size_t len,
		    const char *shown_path, unsigned long lineno)
{
	char where[WHERE_MAX];
	char *hash;

	if (len && line[len - 1] == '\r')
		len--;
	if (len > RP_HOSTS_LINE_MAX)
		return line_too_long(shown_path, lineno);
	hash = memchr(line, '#', len);
	if (hash)
		len = (size_t)(hash - line);
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (!len)
		return 0;
	snprintf(where, sizeof(where), "hosts file \"%s\" line %lu: ",
		 shown_path, lineno);
	return add_expr(hl, line, len, where);
}

int rp_hostlist_read_fd(struct rp_hostlist *hl, int fd, const char *path)
{
	char shown[RP_PEER_TEXT_MAX];
	/* A line's bytes and its CR: one more is too long (add_line). */
	char line[RP_HOSTS_LINE_MAX + 2];
	char buf[4096];
	size_t n0 = hl->n;
	size_t len = 0, total = 0;
	unsigned long lineno = 1;
	int rc = 0;

	rp_fmt_peer(shown, sizeof(shown), path, strlen(path));
	/* Read to the end, not to a size: a pipe has none. */
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			RP_ERR("hosts file \"%s\": read: %s", shown,
			       strerror(e));
			rc = -e;
			goto err;
		}
		if (!r)
			break;
		for (ssize_t i = 0; i < r; i++) {
			if (++total > RP_HOSTS_FILE_MAX) {
				RP_ERR("hosts file \"%s\" line %lu: the file "
				       "is over %d bytes", shown, lineno,
				       RP_HOSTS_FILE_MAX);
				rc = RP_EUSAGE;
				goto err;
			}
			if (!buf[i]) {
				RP_ERR("hosts file \"%s\" line %lu: a NUL "
				       "byte (not a text file?)", shown,
				       lineno);
				rc = RP_EUSAGE;
				goto err;
			}
			if (buf[i] == '\n') {
				rc = add_line(hl, line, len, shown, lineno);
				if (rc)
					goto err;
				lineno++;
				len = 0;
				continue;
			}
			if (len == sizeof(line)) {
				rc = line_too_long(shown, lineno);
				goto err;
			}
			line[len++] = buf[i];
		}
	}
	if (len) {
		rc = add_line(hl, line, len, shown, lineno);
		if (rc)
			goto err;
	}
	if (hl->n == n0) {
		RP_ERR("hosts file \"%s\": no host in it", shown);
		rc = RP_EUSAGE;
		goto err;
	}
	return 0;
err:
	hl->n = n0;
	return rc;
}

int rp_hostlist_read_file(struct rp_hostlist *hl, const char *path)
{
	char shown[RP_PEER_TEXT_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0) {
		int e = errno;

		RP_ERR("hosts file \"%s\": open: %s",
		       rp_fmt_peer(shown, sizeof(shown), path, strlen(path)),
		       strerror(e));
		return -e;
	}
	rc = rp_hostlist_read_fd(hl, fd, path);
	/* Read-only: a failing close loses nothing we read. */
	close(fd);
	return rc;
}

int rp_hostlist_default_port(struct rp_hostlist *hl, uint16_t port)
{
	char shown[RP_HOST_NAME_MAX + 16];

	if (!port) {
		RP_ERR("rp_hostlist_default_port: port 0");
		return RP_EINTERNAL;
	}
	for (size_t i = 0; i < hl->n; i++)
		if (!hl->host[i].port)
			hl->host[i].port = port;
	for (size_t i = 1; i < hl->n; i++) {
		ssize_t dup = find_dup(hl, i, &hl->host[i]);

		if (dup >= 0) {
			RP_ERR("host list: %s is in the list twice (hosts "
			       "%zd and %zu; %u is the default port)",
			       rp_host_fmt(shown, sizeof(shown), &hl->host[i]),
			       dup + 1, i + 1, port);
			return RP_EUSAGE;
		}
	}
	return 0;
}
