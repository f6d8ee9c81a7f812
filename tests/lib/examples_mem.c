// SPDX-License-Identifier: MIT
/*
 * The two examples over the in-memory fabric, which pairs QPs inside one
 * process: examples/recv.c on a thread, examples/push.c on ours, their
 * control connection over TCP on 127.0.0.1. tests/lib.sh compares the
 * files (cmp).
 *
 * usage: examples_mem DIR SOURCE...   recv -1 into DIR, push SOURCE...
 *        examples_mem --stop DIR      recv until its -t 1 alarm stops it
 * Exit status: the push's, else the receiver's (0 when both are 0).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdmapush/fabric_mem.h"
#include "rdmapush/proto.h"
#include <rdmapush.h>

/* src/api.c passes the public op through as the wire's: they must match. */
_Static_assert((int)RP_PUSH_WRITE == (int)RP_OP_WRITE &&
	       (int)RP_PUSH_READ == (int)RP_OP_READ &&
	       (int)RP_PUSH_SEND == (int)RP_OP_SEND, "enum rp_push_op");

int rp_example_push_main(int argc, char **argv);
int rp_example_recv_main(int argc, char **argv);

struct job {
	char *argv[8];
	int argc;
	int rc;
};

static void *recv_thread(void *arg)
{
	struct job *j = arg;

	j->rc = rp_example_recv_main(j->argc, j->argv);
	return NULL;
}

/*
 * A free TCP port below the kernel's ephemeral range (32768 and up by
 * default): one the kernel hands out could be taken by another test's
 * outgoing connection between our check and the receiver's bind. Tried
 * from a pseudo-random start, since tests run side by side.
 */
static int free_port(void)
{
	int start = 20000 + (int)(getpid() * 7919u % 12000u);

	for (int i = 0; i < 12000; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET };
		int port = 20000 + (start - 20000 + i) % 12000;
		int s = socket(AF_INET, SOCK_STREAM, 0), ok;

		if (s < 0)
			return -1;
		a.sin_port = htons((uint16_t)port);
		ok = !bind(s, (struct sockaddr *)&a, sizeof(a));
		close(s);
		if (ok)
			return port;
	}
	return -1;
}

/* Whether something listens on port: our bind to it fails. A connect
 * would be the receiver's one transfer. SO_REUSEADDR, as the receiver
 * sets it: our probe, bound for a moment before the receiver binds,
 * must not make the receiver's own bind fail (only a listener keeps a
 * reusable address). */
static int listening(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	int s = socket(AF_INET, SOCK_STREAM, 0), busy, one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	(void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	busy = bind(s, (struct sockaddr *)&a, sizeof(a)) && errno == EADDRINUSE;
	close(s);
	return busy;
}

int main(int argc, char **argv)
{
	int stop = argc == 3 && !strcmp(argv[1], "--stop");
	struct job r = { .argc = 0 };
	/* argv strings are writable: copies, not literals. */
	char a_recv[] = "recv", a_push[] = "push", a_p[] = "-p", a_p2[] = "-p";
	char a_once[] = "-1", a_t1[] = "-t1", a_host[] = "127.0.0.1";
	char port[16], *pargv[16];
	int pargc = 0, port_n = free_port(), rc = 0;
	pthread_t t;

	if (argc < 3 || port_n < 0 || argc > 12) {
		fprintf(stderr, "usage: examples_mem DIR SOURCE... | --stop DIR\n");
		return 2;
	}
	/* A fresh fabric; the call also links it in ahead of the library
	 * that needs it (libfabric_mem.la comes first on the line). */
	rp_fab_reset();
	snprintf(port, sizeof(port), "%d", port_n);
	r.argv[r.argc++] = a_recv;
	r.argv[r.argc++] = a_p;
	r.argv[r.argc++] = port;
	r.argv[r.argc++] = stop ? a_t1 : a_once;
	r.argv[r.argc++] = argv[stop ? 2 : 1];
	if (pthread_create(&t, NULL, recv_thread, &r))
		return 99;
	if (!stop) {
		for (int i = 0; i < 500 && !listening(port_n); i++)
			usleep(10000);
		pargv[pargc++] = a_push;
		pargv[pargc++] = a_p2;
		pargv[pargc++] = port;
		pargv[pargc++] = a_host;
		for (int i = 2; i < argc; i++)
			pargv[pargc++] = argv[i];
		pargv[pargc] = NULL;
		optind = 0;	/* the receiver's getopt is done: it listens */
		rc = rp_example_push_main(pargc, pargv);
	}
	pthread_join(t, NULL);
	printf("examples_mem: push %d, recv %d\n", rc, r.rc);
	return rc ? rc : r.rc;
}
