// SPDX-License-Identifier: MIT
/* Small operating-system helpers shared by ctrl, verbs and fileio, each
 * written once here. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

int rp_sys_nonblock(int fd, const char *what)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		int e = errno;

		RP_ERR("fcntl(O_NONBLOCK) on the %s fd %d: %s", what, fd,
		       strerror(e));
		return -e;
	}
	return 0;
}

unsigned long rp_sys_nofile(unsigned long want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;	/* the usual default: a guess, not a promise */
	if (want > rl.rlim_cur) {
		rlim_t to = want < rl.rlim_max ? want : rl.rlim_max;
		struct rlimit up = { .rlim_cur = to, .rlim_max = rl.rlim_max };

		if (to > rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl.rlim_cur = to;
	}
	return rl.rlim_cur == RLIM_INFINITY ? ~0ul : (unsigned long)rl.rlim_cur;
}

void rp_sys_random(void *buf, size_t n)
{
	static uint64_t counter;
	unsigned char *p = buf;
	ssize_t got = getrandom(buf, n, GRND_NONBLOCK);
	uint64_t x;

	if (got == (ssize_t)n)
		return;
	/* Not ready, or short: any value serves, as long as it varies. */
	x = (uint64_t)(rp_now() * 1e9) ^ ((uint64_t)getpid() << 32) ^
	    ++counter;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

const char *rp_sys_gid_text(const uint8_t gid[16], char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

int rp_sys_poll_ms(double deadline, int cap_ms)
{
	double left = deadline - rp_now();

	if (left <= 0)
		return 0;
	return left * 1000.0 >= cap_ms ? cap_ms : (int)(left * 1000.0) + 1;
}

int rp_sys_calloc(void *out, size_t n, size_t size, const char *what)
{
	void *p = calloc(n, size);

	memcpy(out, &p, sizeof(p));
	if (p)
		return 0;
	RP_ERR("calloc(%zu %s): %s", n, what, strerror(ENOMEM));
	return -ENOMEM;
}
