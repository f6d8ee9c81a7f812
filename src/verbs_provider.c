// SPDX-License-Identifier: MIT
/*
 * Loading only the providers this machine's RDMA devices need. The first
 * ibv_get_device_list() of a process loads every provider listed in
 * /etc/libibverbs.d (17 on Debian) unless the providers already loaded
 * claim every device; in a QEMU guest without KVM, those loads were a
 * tenth of a second of every run. So each device's provider, guessed
 * from its name and its kernel driver's, is loaded first. A wrong or
 * missing guess changes nothing: libibverbs then loads them all, as
 * before.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_int.h"

#define SYSFS_IB	"/sys/class/infiniband"
/* More devices than this: leave it all to libibverbs. */
#define MAX_DEVS	16
#define GUESS_MAX	32

/* Where libibverbs' providers are: "libibverbs" beside libibverbs.so.1
 * (what rdma-core installs, e.g. /usr/lib/x86_64-linux-gnu/libibverbs). */
static bool provider_dir(char *dir, size_t len)
{
	Dl_info info;
	const char *slash;
	int n;

	if (!dladdr((void *)ibv_get_device_list, &info) || !info.dli_fname)
		return false;
	slash = strrchr(info.dli_fname, '/');
	if (!slash)
		return false;
	n = snprintf(dir, len, "%.*s/libibverbs",
		     (int)(slash - info.dli_fname), info.dli_fname);
	return n > 0 && (size_t)n < len;
}

/* The provider files lib<guess>-rdmav*.so in dir, into g: true if any. */
static bool find_provider(const char *dir, const char *guess, glob_t *g)
{
	char pat[PATH_MAX];
	int n = snprintf(pat, sizeof(pat), "%s/lib%s-rdmav*.so", dir, guess);

	if (n < 0 || (size_t)n >= sizeof(pat))
		return false;
	if (glob(pat, 0, NULL, g) == 0)
		return true;
	globfree(g);
	return false;
}

/* The kernel driver's name of device dev ("mlx5_core"), or false (a
 * software device such as rxe0 has none). */
static bool kernel_driver(const char *dev, char *out, size_t len)
{
	char link[PATH_MAX];
	char target[PATH_MAX];
	const char *base;
	ssize_t n;

	if (snprintf(link, sizeof(link), SYSFS_IB "/%s/device/driver",
		     dev) >= (int)sizeof(link))
		return false;
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	return rp_verbs_provider_guess(base, true, out, len);
}

/* dev's provider names to try ("rxe"; "mlx5"): how many (0 to 2). */
static int guesses(const char *dev, char guess[2][GUESS_MAX])
{
	char drv[NAME_MAX + 1];
	int n = 0;

	if (rp_verbs_provider_guess(dev, false, guess[n], GUESS_MAX))
		n++;
	if (kernel_driver(dev, drv, sizeof(drv)) &&
	    rp_verbs_provider_guess(drv, true, guess[n], GUESS_MAX) &&
	    (!n || strcmp(guess[0], guess[n])))
		n++;
	return n;
}

/* Load what dev's guesses find in dir (load false: only look). true if
 * a provider file was found (and, with load, loaded). */
static bool provide(const char *dir, const char *dev, bool load)
{
	char guess[2][GUESS_MAX];
	int n = guesses(dev, guess);
	bool found = false;

	for (int i = 0; i < n; i++) {
		glob_t g;

		if (!find_provider(dir, guess[i], &g))
			continue;
		found = true;
		/*
		 * Kept open for the process: the provider registers itself
		 * with libibverbs as it loads. One built for another
		 * libibverbs fails here for a missing symbol, harmlessly.
		 */
		for (size_t k = 0; load && k < g.gl_pathc; k++)
			(void)dlopen(g.gl_pathv[k], RTLD_NOW | RTLD_LOCAL);
		globfree(&g);
	}
	return found;
}

static void load_providers(void)
{
	char names[MAX_DEVS][NAME_MAX + 1];
	char dir[PATH_MAX];
	struct dirent *e;
	int ndev = 0;
	DIR *d;

	/* RDMAPUSH_ALL_PROVIDERS: libibverbs' own way, every one. */
	if (getenv("RDMAPUSH_ALL_PROVIDERS") || !provider_dir(dir, sizeof(dir)))
		return;
	d = opendir(SYSFS_IB);
	if (!d)
		return;
	while ((e = readdir(d)) && ndev <= MAX_DEVS) {
		if (e->d_name[0] == '.')
			continue;
		if (ndev < MAX_DEVS)
			snprintf(names[ndev], sizeof(names[ndev]), "%s",
				 e->d_name);
		ndev++;
	}
	closedir(d);
	if (ndev > MAX_DEVS)
		return;
	/*
	 * All or nothing: when some device's provider is not among those
	 * loaded first, libibverbs lists the devices the loaded ones claim
	 * before the others, which could change which device is chosen.
	 */
	for (int i = 0; i < ndev; i++)
		if (!provide(dir, names[i], false))
			return;
	for (int i = 0; i < ndev; i++)
		provide(dir, names[i], true);
}

void rp_verbs_load_providers(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)pthread_once(&once, load_providers);
}
