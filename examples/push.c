// SPDX-License-Identifier: MIT
/* Push files (or standard input, as NAME) to an rdmapush receiver with
 * librdmapush. Build: cc push.c $(pkg-config --cflags --libs rdmapush)
 * usage: push [-p PORT] [-k KEYFILE] [-r] [-n NAME] HOST SOURCE...  */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdmapush.h>

static void progress(void *user, uint64_t done, uint64_t total)
{
	(void)user;
	if (total != UINT64_MAX)
		fprintf(stderr, "\r%" PRIu64 " of %" PRIu64 " bytes", done, total);
}

int main(int argc, char **argv)
{
	const char *name = "stdin";
	const struct rp_entry *e;
	struct rp_params p;
	struct rp_push *push;
	size_t n;
	int c, rc;

	rp_params_init(&p);
	while ((c = getopt(argc, argv, "p:k:rn:")) != -1) {
		if (c == 'p')
			p.port = (uint16_t)strtoul(optarg, NULL, 10);
		else if (c == 'k')
			p.psk_file = optarg;
		else if (c == 'r')
			p.recursive = 1;
		else if (c == 'n')
			name = optarg;
		else
			return 2;
	}
	if (argc - optind < 2) {
		fprintf(stderr, "usage: push [-p PORT] [-k KEYFILE] [-r] "
			"[-n NAME] HOST SOURCE... (librdmapush %s)\n",
			rp_version());
		return 2;
	}
	p.host = argv[optind++];
	p.quiet = 1;
	p.on_progress = isatty(STDERR_FILENO) ? progress : NULL;
	rc = rp_push_new(&push, &p);
	if (rc) {
		fprintf(stderr, "push: %s\n", rp_strerror(rc));
		return 1;
	}
	for (; !rc && optind < argc; optind++)
		rc = strcmp(argv[optind], "-") ?
		     rp_push_add_path(push, argv[optind]) :
		     rp_push_add_fd(push, STDIN_FILENO, name);
	if (!rc)
		rc = rp_push_run(push);
	n = rp_push_entries(push, &e);
	for (size_t i = 0; i < n; i++)
		printf("%s %" PRIu64 " %s\n", e[i].name, e[i].bytes,
		       e[i].status ? rp_strerror(e[i].status) : "ok");
	if (rc)
		fprintf(stderr, "push: failed in %s: %s\n",
			rp_push_result(push)->phase,
			rp_push_result(push)->message);
	rp_push_free(push);
	return rc ? 1 : 0;
}
