/* SPDX-License-Identifier: MIT */
/* Small operating-system helpers that several modules need: descriptor
 * flags, random bytes that never block, and address text. Depends on
 * err and trace only. */
#ifndef RDMAPUSH_SYS_H
#define RDMAPUSH_SYS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Set O_NONBLOCK on fd. 0, or -errno after reporting
 * "fcntl(O_NONBLOCK) on the <what> fd N: <reason>".
 */
int rp_sys_nonblock(int fd, const char *what)
	__attribute__((warn_unused_result));

/*
 * Fill buf with n random bytes from getrandom(2) without waiting for the
 * entropy pool; if it is not ready (early boot of a lab guest), from the
 * clock, the pid and a counter. Never fails: only for values that must be
 * unpredictable to a stray packet or a name clash, not to an attacker
 * (keys and nonces come from libsodium).
 */
void rp_sys_random(void *buf, size_t n);

/*
 * calloc(n, size) of n records named what ("read records"): 0 and *out,
 * or -ENOMEM reported as "calloc(<n> <what>): ...".
 */
int rp_sys_calloc(void *out, size_t n, size_t size, const char *what)
	__attribute__((warn_unused_result));

/*
 * The soft limit on open files, raised first toward want (never past the
 * hard limit, never lowered; 0: only read): what it is now. Best effort:
 * a failed setrlimit(2) leaves it as it was.
 */
unsigned long rp_sys_nofile(unsigned long want);

/* What `rdmapush recv` raises it to: each small file waiting for its
 * group sync holds a descriptor (session_int.h). */
#define RP_SYS_NOFILE_RECV	4096ul

/* Longest single poll(2) sleep of the completion waits; the deadline is
 * re-checked after it. */
#define RP_SYS_MAX_SLEEP_MS	(3600 * 1000)

/*
 * The timeout to give poll(2) for an absolute deadline (rp_now() time):
 * rounded up, so that it wakes after the deadline, not just before; at
 * most cap_ms; 0 once the deadline has passed.
 */
int rp_sys_poll_ms(double deadline, int cap_ms);

/* 16 address bytes (a GID, an IPv6 address) as IPv6 text; returns buf,
 * "?" if it does not fit. */
const char *rp_sys_gid_text(const uint8_t gid[16], char *buf, size_t len);

#endif
