/* SPDX-License-Identifier: MIT */
/*
 * The hosts of a chain push, as the user names them: Slurm's hostlist
 * syntax expanded into an ordered list of {host, port}, from command-line
 * text or from a hosts file (one expression per line). Pure: no socket
 * is opened and no name is resolved; the caller does both.
 *
 * The grammar of one expression, exactly (ABNF, RFC 5234):
 *
 *   list     = item *( "," item )      ; "," inside "[...]" does not split
 *   item     = host [ ":" port ]
 *   host     = "[" v6addr [ "%" 1*namechar ] "]"   ; see below
 *            / 1*( 1*namechar / group )            ; at most 32 groups
 *   group    = "[" range *( "," range ) "]"
 *   range    = num [ "-" num ]         ; low <= high, at most 1024 members
 *   num      = 1*9DIGIT
 *   port     = 1*5DIGIT                ; 1-65535; none: 0, the default
 *   namechar = ALPHA / DIGIT / "-" / "." / "_"
 *
 * An item whose first group holds a ':' right at its start ("[fe80::1]",
 * "[2001:db8::1]:18515") is an IPv6 address (inet_pton(3) must accept
 * it), not a range; it may carry a zone ("[fe80::1%eth0]"). Any other
 * item expands each group into its members, a range's members printed
 * zero-padded to the width of its low number ("node[01-16]" is node01 to
 * node16, "n[8-10]" is n8, n9, n10), and several groups make their
 * cartesian product, the last group varying fastest ("r[1-2]n[1-2]" is
 * r1n1, r1n2, r2n1, r2n2). A port applies to every member of its item.
 * Plain IPv4 addresses are host names of digits and dots ("10.0.0.2",
 * "10.0.0.[1-4]:7000"). Every expansion must be a host name of at most
 * RP_HOST_NAME_MAX bytes, and no host:port may appear twice (a node twice
 * in a chain would receive the data twice): names compare as text, case
 * aside, so "::1" and "0::1" are not caught.
 */
#ifndef RDMAPUSH_HOSTLIST_H
#define RDMAPUSH_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hosts of one list, all expressions and files together. A range or a
 * product of ranges over this is refused before anything is allocated. */
#define RP_HOSTS_MAX		1024
/* Bytes of one host name (an IPv6 address without its brackets): a DNS
 * name's most (RFC 1035, 255 octets). */
#define RP_HOST_NAME_MAX	255
/* Bracket groups in one item ("r[1-2]n[1-4]" has 2). */
#define RP_HOST_GROUPS_MAX	32
/* A hosts file: bytes of one line (without its end) and of the file. */
#define RP_HOSTS_LINE_MAX	4096
#define RP_HOSTS_FILE_MAX	(1 << 20)

struct rp_host {
	char name[RP_HOST_NAME_MAX + 1];	/* no brackets; NUL-ended */
	uint16_t port;		/* 1-65535, or 0: the caller's default */
	bool ipv6;		/* given as "[ADDR]": name is the address */
};

/* The list; zero it with rp_hostlist_init(), release with
 * rp_hostlist_free(). */
struct rp_hostlist {
	struct rp_host *host;	/* n entries, in the order written */
	size_t n;
	size_t cap;
};

void rp_hostlist_init(struct rp_hostlist *hl);
/* Frees the entries and empties the list; safe to call more than once. */
void rp_hostlist_free(struct rp_hostlist *hl);
/* "name:port", an IPv6 address in brackets ("[fe80::1]:18500"), into buf
 * of len bytes: snprintf's return (len or more: cut short). */
int rp_host_format(char *buf, size_t len, const char *name, uint16_t port);

/*
 * Append the hosts of one expression (the grammar above) to hl, checked
 * against those already there for duplicates and the RP_HOSTS_MAX cap.
 * Returns 0, or after reporting one error line that names the offending
 * item (escaped) and what is wrong with it: RP_EUSAGE for text that
 * breaks a rule or a limit, -ENOMEM, RP_EINTERNAL for a bug (a list
 * grown past RP_HOSTS_MAX). On error hl is as it was.
 */
int rp_hostlist_add(struct rp_hostlist *hl, const char *expr)
	__attribute__((warn_unused_result));

/*
 * Append the hosts of a hosts file, read from fd until its end (a pipe
 * or a process substitution works: the size is not asked for): one
 * expression per line, e.g. one host or host:port; "#" starts a comment
 * to the end of its line; blank lines are skipped; a line may end in
 * CRLF; spaces and tabs around an expression are ignored. path names
 * the file in messages. Returns 0, or after reporting one error line
 * naming the file and the line: RP_EUSAGE (a line over
 * RP_HOSTS_LINE_MAX bytes, a NUL byte, a file over RP_HOSTS_FILE_MAX
 * bytes, a file without any host, or an expression as for
 * rp_hostlist_add), -errno when read(2) fails, -ENOMEM. On error hl is
 * as it was. fd is not closed.
 */
int rp_hostlist_read_fd(struct rp_hostlist *hl, int fd, const char *path)
	__attribute__((warn_unused_result));
/* The same from the file at path (opened, read, closed); -errno of
 * open(2), reported, if it cannot be opened. */
int rp_hostlist_read_file(struct rp_hostlist *hl, const char *path)
	__attribute__((warn_unused_result));

/*
 * Give every host without a port (port 0) the caller's default port
 * (1-65535), then check again for duplicates: "node1" and
 * "node1:18515" are one host when 18515 is the default. Returns 0, or
 * RP_EUSAGE after reporting the duplicate (hl then keeps the ports
 * filled in), or RP_EINTERNAL for port 0.
 */
int rp_hostlist_default_port(struct rp_hostlist *hl, uint16_t port)
	__attribute__((warn_unused_result));

/* h as the user would write it: "node1", "node1:7000", "[fe80::1]:7000"
 * (brackets only with a port); always terminated, cut if len is short.
 * Returns buf. */
char *rp_host_fmt(char *buf, size_t len, const struct rp_host *h);

#endif
