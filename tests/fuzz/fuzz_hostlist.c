// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the host list refuses garbage cleanly, and what it
 * accepts is a valid list that reads back the same from its own text.
 * Built as scripts/fuzz builds fuzz_proto, from src/hostlist.c,
 * src/err.c, src/trace.c and src/sys.c (-ljson-c), seeded from
 * tests/fuzz/corpus/hostlist; -close_fd_mask=2 quiets its refusals.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* abort() rather than assert(): the check must survive -DNDEBUG. */
static void check(int ok)
{
	if (!ok)
		abort();
}

static int namechar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/* What an accepted list must be: 1 to RP_HOSTS_MAX hosts, each a name
 * of allowed bytes (an address: hex digits, ':', '.', a zone after
 * '%'), no host:port twice. */
static void check_list(const struct rp_hostlist *hl)
{
	check(hl->n >= 1 && hl->n <= RP_HOSTS_MAX && hl->n <= hl->cap);
	for (size_t i = 0; i < hl->n; i++) {
		const struct rp_host *h = &hl->host[i];
		size_t len = strnlen(h->name, sizeof(h->name));
		int zone = 0;

		check(len >= 1 && len <= RP_HOST_NAME_MAX);
		for (size_t k = 0; k < len; k++) {
			unsigned char c = (unsigned char)h->name[k];

			if (h->ipv6 && c == '%' && !zone)
				zone = 1;
			else if (h->ipv6 && !zone)
				check(c == ':' || c == '.' ||
				      (c >= '0' && c <= '9') ||
				      (c >= 'a' && c <= 'f') ||
				      (c >= 'A' && c <= 'F'));
			else
				check(namechar(c));
		}
		check(h->ipv6 || !strchr(h->name, ':'));
		for (size_t j = 0; j < i; j++)
			check(hl->host[j].port != h->port ||
			      strcasecmp(hl->host[j].name, h->name));
	}
}

/* The list written back as one expression reads as the same list. */
static void check_round_trip(const struct rp_hostlist *hl)
{
	size_t room = hl->n * (RP_HOST_NAME_MAX + 16) + 1;
	char *text = malloc(room);
	struct rp_hostlist again;
	size_t used = 0;

	check(text != NULL);
	text[0] = '\0';
	for (size_t i = 0; i < hl->n; i++) {
		const struct rp_host *h = &hl->host[i];
		char port[8] = "";

		if (h->port)
			snprintf(port, sizeof(port), ":%u", h->port);
		used += (size_t)snprintf(text + used, room - used,
					 h->ipv6 ? "%s[%s]%s" : "%s%s%s",
					 i ? "," : "", h->name, port);
		check(used < room);
	}
	rp_hostlist_init(&again);
	check(rp_hostlist_add(&again, text) == 0);
	check(again.n == hl->n);
	for (size_t i = 0; i < hl->n; i++) {
		check(!strcmp(again.host[i].name, hl->host[i].name));
		check(again.host[i].port == hl->host[i].port);
		check(again.host[i].ipv6 == hl->host[i].ipv6);
	}
	rp_hostlist_free(&again);
	free(text);
}

/* The outcome of one parse: refused cleanly (the list as it was), or a
 * valid list. */
static void check_outcome(int rc, const struct rp_hostlist *hl)
{
	if (rc) {
		check(rc == RP_EUSAGE || rc == -ENOMEM);
		check(hl->n == 0);
		return;
	}
	check_list(hl);
	check_round_trip(hl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_hostlist hl;
	char *expr = malloc(size + 1);
	int fd;
	int rc;

	check(expr != NULL);
	/* As a command-line argument: up to the first NUL. */
	memcpy(expr, data, size);
	expr[size] = '\0';
	rp_hostlist_init(&hl);
	rc = rp_hostlist_add(&hl, expr);
	check_outcome(rc, &hl);
	rp_hostlist_free(&hl);
	free(expr);

	/* As a hosts file: all the bytes, NULs and line ends included. */
	fd = memfd_create("hosts", MFD_CLOEXEC);
	check(fd >= 0);
	check(write(fd, data, size) == (ssize_t)size);
	check(lseek(fd, 0, SEEK_SET) == 0);
	rc = rp_hostlist_read_fd(&hl, fd, "fuzz");
	close(fd);
	check_outcome(rc, &hl);
	rp_hostlist_free(&hl);
	return 0;
}
