// SPDX-License-Identifier: MIT
/* libpcap through dlopen (pcap_api.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "pcap_api.h"
#include "rdmapush/err.h"
#include "rdmapush/trace.h"

struct rp_pcap_api rp_pcap;

#define FN(name) { "pcap_" #name, offsetof(struct rp_pcap_api, name) }
static const struct {
	const char *sym;
	size_t off;
} fns[] = {
	FN(create), FN(set_snaplen), FN(set_immediate_mode),
	FN(set_buffer_size), FN(activate), FN(datalink), FN(compile),
	FN(setfilter), FN(freecode), FN(setnonblock), FN(get_selectable_fd),
	FN(dispatch), FN(stats), FN(geterr), FN(close), FN(dump_fopen),
	FN(dump), FN(dump_flush), FN(dump_close), FN(fopen_offline),
	FN(next_ex),
};
#undef FN

#define PCAP_HINT "install libpcap (Debian: apt-get install libpcap0.8), " \
	"or set RDMAPUSH_LIBPCAP to the path of its shared library"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *lib;	/* never closed: rp_pcap points into it */

/* Every symbol, or none: rp_pcap is filled only when all resolve. */
static int resolve(void *h, const char *path, const char *for_what)
{
	struct rp_pcap_api api;

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *f = dlsym(h, fns[i].sym);

		if (!f) {
			RP_ERR_HINT(PCAP_HINT, "%s: %s has no %s: not a "
				    "libpcap of 1.5 or later", for_what,
				    path, fns[i].sym);
			return RP_ECONFIG;
		}
		*(void **)((char *)&api + fns[i].off) = f;
	}
	rp_pcap = api;
	return 0;
}

int rp_pcap_load(const char *for_what)
{
	const char *path = getenv("RDMAPUSH_LIBPCAP");
	void *h;
	int rc = 0;

	if (!path || !*path)
		path = RP_PCAP_SONAME;
	pthread_mutex_lock(&lock);
	if (lib)
		goto out;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		/* dlerror() names the file and why: our system's words. */
		RP_ERR_HINT(PCAP_HINT, "%s needs libpcap, which did not load: "
			    "%s", for_what, dlerror());
		rc = RP_ECONFIG;
		goto out;
	}
	rc = resolve(h, path, for_what);
	if (rc)
		dlclose(h);
	else
		lib = h;
out:
	pthread_mutex_unlock(&lock);
	return rc;
}
