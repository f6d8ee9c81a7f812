// SPDX-License-Identifier: MIT
/* Receive pushed files into DIR with librdmapush: one transfer (-1), or
 * until SECONDS have passed (-t: a signal handler stops the receiver).
 * Build: cc recv.c $(pkg-config --cflags --libs rdmapush)
 * usage: recv [-p PORT] [-k KEYFILE] [-1] [-t SECONDS] DIR  */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdmapush.h>

static struct rp_recv *recv_h;

/* rp_recv_stop() is async-signal-safe. */
static void on_alarm(int sig)
{
	(void)sig;
	rp_recv_stop(recv_h);
}

static void on_entry(void *user, const struct rp_entry *e)
{
	(void)user;
	printf("%s %" PRIu64 " %s\n", e->name, e->bytes,
	       e->status ? rp_strerror(e->status) : "ok");
}

int main(int argc, char **argv)
{
	struct rp_params p;
	unsigned int secs = 0;
	int c, rc;

	rp_params_init(&p);
	while ((c = getopt(argc, argv, "p:k:1t:")) != -1) {
		if (c == 'p')
			p.port = (uint16_t)strtoul(optarg, NULL, 10);
		else if (c == 'k')
			p.psk_file = optarg;
		else if (c == '1')
			p.once = 1;
		else if (c == 't')
			secs = (unsigned int)strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "usage: recv [-p PORT] [-k KEYFILE] [-1] "
			"[-t SECONDS] DIR (librdmapush %s)\n", rp_version());
		return 2;
	}
	p.dir = argv[optind];
	p.on_entry = on_entry;
	rc = rp_recv_new(&recv_h, &p);
	if (rc) {
		fprintf(stderr, "recv: %s\n", rp_strerror(rc));
		return 1;
	}
	signal(SIGALRM, on_alarm);
	alarm(secs);
	rc = rp_recv_run(recv_h);
	if (rc)
		fprintf(stderr, "recv: failed in %s: %s\n",
			rp_recv_result(recv_h)->phase,
			rp_recv_result(recv_h)->message);
	rp_recv_free(recv_h);
	return rc ? 1 : 0;
}
