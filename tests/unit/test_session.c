// SPDX-License-Identifier: MIT
/*
 * The sender's and receiver's state machines, run for real in one
 * process: the receiver in a thread, the sender in the test's thread,
 * over a socketpair control channel and the in-memory fabric, with real
 * files in a temporary directory. A relay between the two control
 * sockets counts messages and can cut the connection after any of them,
 * which is how a side "dies" at a chosen phase, or play the party in the
 * path: alter, repeat, replay or forge a message, or speak another
 * protocol or version.
 *
 * Every case checks both exit statuses, the directory (the complete,
 * byte-identical file, or nothing at all, not even a hidden temporary),
 * and that every context, ring and descriptor was released.
 *
 * fsync, fdatasync and sync_file_range are --wrap'ped (Makefile.am), so
 * a case can make the receiver's disk slow or its directory fsync fail.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "capture.h"
#include "testdir.h"

#include "rdmapush/auth.h"
#include "rdmapush/err.h"
#include "rdmapush/fabric_mem.h"
#include "rdmapush/partial.h"
#include "rdmapush/config.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/proto.h"
#include "rdmapush/proto_msgs.h"
#include "rdmapush/session.h"
#include "rdmapush/trace.h"
#include "rdmapush/wc_causes.h"
#include "../../src/session_int.h"

/* Tests (test_signal_mid_data, test_ping's stop) store the stop flag from
 * a fabric hook on one thread while the sessions read it on others: it
 * must be atomic, or ThreadSanitizer reports a race. */
_Static_assert(_Generic(&rp_session_stop, _Atomic int *: 1, default: 0),
	       "rp_session_stop is not atomic");

#define KIB 1024u
#define MIB (1024u * 1024u)
#define NEVER UINT32_MAX	/* relay: never cut */

/*
 * What the relay does to the traffic. Messages are counted each way from
 * 0, after the AUTH exchange when there is one: sender -> receiver HELLO,
 * then per entry FILE, FEND, then FIN; receiver -> sender MR, then per
 * entry FACK (and SYNCs), then ACK. FACKs interleave with the sender's
 * messages, so later messages are picked by type, not by position.
 */
enum tamper {
	TAMPER_NONE,
	TAMPER_FLIP_MR,		/* one bit of the MR's rkey */
	TAMPER_DUP_MR,		/* the MR, delivered twice */
	TAMPER_REPLAY_HELLO,	/* the HELLO again, in place of the FIN */
	TAMPER_FORGE_ACK,	/* FIN kept from the receiver, ACK ok forged;
				 * FACKs kept from the sender */
	TAMPER_OLD_VERSION,	/* the first message as version 1 */
	TAMPER_NOT_PEER,	/* the receiver's first words from HTTP */
	/* --op read, no --psk: the sender's MR reaches the receiver with */
	TAMPER_SENDER_MR_SHAPE,	/* half the chunk (and a ring to match) */
	TAMPER_SENDER_MR_RKEY,	/* one bit of its rkey flipped */
	TAMPER_EVIL_TEXT,	/* the receiver's failed FACK or ERR says
				 * EVIL_TEXT: escapes, a line of its own */
	/* Version 7's messages, which neither side asks for yet: */
	TAMPER_HAVE_AT_FILE,	/* a HAVE to the sender as FILE passes */
	TAMPER_RECONNECT_AT_FILE,	/* a RECONNECT likewise */
	TAMPER_RECONNECT_FOR_FACK,	/* a RECONNECT to it for the FACK */
	TAMPER_FROM_FOR_FEND,	/* a FROM to the receiver for the FEND */
	TAMPER_RECONNECT_FOR_FEND,	/* a RECONNECT likewise */
	/* A chain push's HELLO flag (RP_HELLO_CHAIN), no --psk: */
	TAMPER_CHAIN_UNFLAGGED,	/* cleared: its CHAIN comes unannounced */
	TAMPER_CHAIN_NOT_NEXT,	/* set on a one-host push's HELLO, and a
				 * FIN follows it, no CHAIN */
};

/* What a hostile receiver may say: a title change, a bell, and a line
 * that would pass for one of ours if printed raw. */
#define EVIL_TEXT	"\x1b]0;owned\a\r\nrdmapush send: all done"

/* One case: what to push, how, and what goes wrong. */
struct scenario {
	uint64_t size;
	uint32_t chunk;
	uint32_t window;
	int timeout;
	const char *as_name;	/* sender's --as */
	bool psk_send, psk_recv;
	bool wrong_key;		/* the sender's key differs */
	bool force;
	bool exists;		/* a file of that name is already there */
	uint32_t cut_after;	/* relay: close after this many messages */
	uint8_t cut_at;		/* relay: close on this type, not passed on */
	enum tamper tamper;
	bool keygen;		/* the key comes from rp_auth_keygen() */
	enum rp_fab_side fault_side;
	enum rp_fab_fault fault;
	uint64_t fault_nth;
	int wc_status;		/* FAIL_COMPLETION fails with this status */
	uint64_t recv_down_nth;	/* and the receiver's link at its nth post */
	/* or the receiver's nth connect finds no ARP answer, and every
	 * one in the recv_unreach_ms after it */
	uint64_t recv_unreach_nth;
	unsigned int recv_unreach_ms;
	uint64_t signal_at;	/* raise SIGINT at the sender's nth post */
	uint64_t shrink_at;	/* the source shrinks at either side's nth */
	unsigned int recv_ack_ms;	/* the receiver's ACKs come this late */
	unsigned int send_ack_ms;	/* the sender's ACKs come this late */
	unsigned int sync_ms;	/* each wait for the receiver's disk: this long */
	bool dir_fsync_fails;	/* the receiver's directory fsync: EIO */
	bool syncfs_fails;	/* the receiver's group commit sync: EIO */
	uint64_t max_size;	/* the receiver's --max-size */
	uint64_t min_rate;	/* the receiver's --min-rate */
	double min_rate_secs;	/* and the span it judges over */
	unsigned int trickle_ms;	/* the sender sleeps this long a post */
	unsigned int fend_ms;	/* relay: each FEND this late */
	bool busy;		/* the receiver's admission hook says busy */
	char **sources;		/* sender's SOURCE... (else data.bin alone) */
	int nsources;
	bool recursive, preserve;	/* sender's -r, -k */
	bool keep_setid;	/* receiver's --keep-setid */
	bool preserve_modes;	/* receiver's --preserve-modes */
	uint64_t nospc_past;	/* the receiver's pwrite past this: ENOSPC */
	const char *evil_path;	/* relay: FILE evil_id's path becomes this */
	uint32_t evil_id;
	uint32_t threads;	/* --threads on both sides (0: the default) */
	bool op_read;		/* --op read, whatever RP_TEST_OP says */
	bool direct;		/* --direct on both sides */
	uint32_t qps;		/* --qps (0: RP_TEST_QPS) */
	bool op_send;		/* --op send, whatever RP_TEST_OP says */
	bool op_write;		/* --op write, whatever RP_TEST_OP says */
	int retry_for;		/* --retry-for on both sides (0: off) */
	bool resume;		/* sender's --resume */
	uint8_t update;		/* sender's --update level (0: none) */
	bool no_partials;	/* receiver's --no-partials */
	/* Both sides of a killed push wait this long for the other's
	 * reason (0: a second): shorter in a sweep of hundreds. */
	double reason_wait;
	uint32_t chain;		/* hosts after the receiver (0: one host) */
	bool relay;		/* the receiver's --relay */
};

/*
 * The data op every case runs with: RP_TEST_OP=write|read|send (default
 * write), so the whole suite runs once per op (tests/unit/session_op.sh).
 * With read, the sender sends an MR of its own: one message more.
 */
static uint8_t test_op = RP_OP_WRITE;
/* And the QPs it stripes over: RP_TEST_QPS=1..8 (default 1). */
static uint32_t test_qps = 1;
/* The receives a receiver posts before any data, with window w: one per
 * slot with --op send, else w on each QP. A fault counted in posts is
 * placed past these, so that it strikes mid-data whatever the QPs. */
#define RECV_SETUP_POSTS(w)	((w) * (test_op == RP_OP_SEND ? 1u : test_qps))
#define OP_MSGS		(test_op == RP_OP_READ ? 1u : 0u)

/* What came of it. */
struct result {
	int send_rc, recv_rc;
	struct rp_outcome send_out, recv_out;
	uint32_t msgs;		/* control messages the relay carried */
	uint32_t syncs;		/* of which SYNC */
	uint32_t types[RP_MSG_TYPE_MAX];	/* carried, by type */
	uint32_t hello_chunk, hello_window;	/* the shape HELLO asked */
	uint64_t opened;	/* fabric contexts opened in all */
	int send_exit;		/* the sender's exit status, as main gives it */
	int admit_calls;	/* times the admission hook was asked */
	int admit_open;		/* fabric contexts open when it was asked */
	uint32_t send_reconnects, recv_reconnects;	/* their reports' */
	/* The sender's report: entries up to date, data bytes it moved. */
	uint64_t up_to_date, data_bytes, files;
	bool reported;
};

struct env {
	char root[64];
	char src[96], dst[96];
	char key_a[128], key_b[128];
	int dirfd;
	int fds_before;
};

/* ---------------------------------------------------------------------
 * The relay: forwards whole control messages between the two sides
 */

struct relay {
	int a, b;		/* to the sender, to the receiver */
	uint32_t cut_after;
	uint8_t cut_at;
	uint32_t msgs;
	uint32_t syncs;
	uint32_t types[RP_MSG_TYPE_MAX];
	uint32_t hello_chunk, hello_window;
	const char *evil_path;
	uint32_t evil_id;
	enum tamper how;
	bool psk;		/* AUTH first: 2 messages to b, 1 to a */
	uint64_t size;		/* what a forged ACK claims */
	unsigned int fend_ms;	/* each FEND reaches the receiver this late */
	uint32_t n[2];		/* messages each way: to b, to a */
	uint8_t saved[RP_PROTO_MAX_MSG];
	size_t saved_len;
	pthread_t thr;
};

/* ---------------------------------------------------------------------
 * The disk, as the receiver sees it (--wrap)
 */

static volatile unsigned int sync_ms;	/* sleep per wait for the disk */
static volatile bool dir_fsync_fails;
static volatile bool syncfs_fails;	/* the group commit's sync: EIO */
/* Calls the receiver made: fsync of regular files, syncfs (a worker's). */
static _Atomic unsigned long file_fsyncs, dir_fsyncs, syncfs_calls;
/* A syncfs is in its (slow) wait now; files the receiver opened then. */
static _Atomic bool syncfs_waiting;
static _Atomic unsigned long opens_while_syncing;
/* syncfs calls running now, and the most at once. */
static _Atomic unsigned syncfs_now, syncfs_most;
static volatile uint64_t nospc_past;	/* pwrite past this offset: ENOSPC */
/* A path another program makes while the batch's sync runs, or NULL. */
static const char *volatile appear_at_sync;

int __real_sync_file_range(int fd, off_t off, off_t n, unsigned int flags);
int __real_fsync(int fd);
int __real_fdatasync(int fd);
int __wrap_sync_file_range(int fd, off_t off, off_t n, unsigned int flags);
int __wrap_fsync(int fd);
int __wrap_fdatasync(int fd);
int __real_syncfs(int fd);
int __wrap_syncfs(int fd);
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
int __real_openat(int at, const char *path, int flags, ...);
int __wrap_openat(int at, const char *path, int flags, ...);
int __real_fstatat(int at, const char *path, struct stat *st, int flags);
int __wrap_fstatat(int at, const char *path, struct stat *st, int flags);

/* The receiver's thread (recv_main) counts the openat calls it makes,
 * and its looks for a name that is not there. */
static __thread bool in_receiver;
static unsigned long recv_openats, recv_misses;

static bool is_dir(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Only the calls that wait for the disk are slow; starting writeback
 * is not. */
int __wrap_sync_file_range(int fd, off_t off, off_t n, unsigned int flags)
{
	if (sync_ms && (flags & SYNC_FILE_RANGE_WAIT_AFTER))
		usleep(sync_ms * 1000);
	return __real_sync_file_range(fd, off, n, flags);
}

int __wrap_fsync(int fd)
{
	if (is_dir(fd) && dir_fsync_fails) {
		errno = EIO;
		return -1;
	}
	if (!is_dir(fd))
		file_fsyncs++;
	else
		dir_fsyncs++;
	if (!is_dir(fd) && sync_ms)
		usleep(sync_ms * 1000);
	return __real_fsync(fd);
}

/* The receiver's group commit of small files (session_batch.c). */
int __wrap_syncfs(int fd)
{
	unsigned now = ++syncfs_now;

	syncfs_calls++;
	if (now > syncfs_most)
		syncfs_most = now;
	syncfs_waiting = true;
	if (sync_ms)
		usleep(sync_ms * 1000);
	syncfs_waiting = false;
	syncfs_now--;
	if (appear_at_sync) {
		int made = open(appear_at_sync, O_WRONLY | O_CREAT | O_EXCL |
				O_CLOEXEC, 0644);

		if (made >= 0)
			close(made);
		appear_at_sync = NULL;
	}
	if (syncfs_fails) {
		errno = EIO;
		return -1;
	}
	return __real_syncfs(fd);
}

int __wrap_fdatasync(int fd)
{
	if (sync_ms)
		usleep(sync_ms * 1000);
	return __real_fdatasync(fd);
}

/* The receiver writes chunks with pwrite (fileio_dst.c): a disk that
 * fills up past nospc_past bytes of a file. */
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (nospc_past && (uint64_t)off + n > nospc_past) {
		errno = ENOSPC;
		return -1;
	}
	return __real_pwrite(fd, buf, n, off);
}

int __wrap_openat(int at, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (in_receiver)
		recv_openats++;
	if (in_receiver && syncfs_waiting)
		opens_while_syncing++;
	return __real_openat(at, path, flags, mode);
}

int __wrap_fstatat(int at, const char *path, struct stat *st, int flags)
{
	int rc = __real_fstatat(at, path, st, flags);

	if (rc < 0 && errno == ENOENT && in_receiver)
		recv_misses++;
	return rc;
}

static int read_full(int fd, uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* An ACK ok for the whole file, as a party without the key can make it. */
static int forge_ack(struct relay *r)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_result ok = { .status = RP_ST_OK, .bytes = r->size };
	int n = rp_proto_pack_result(buf, sizeof(buf), RP_MSG_ACK, &ok);

	assert_true(n > 0);
	return write_full(r->a, buf, (size_t)n);
}

/* In place of a message, a well-formed one of type (untagged: no --psk). */
static int inject(int to, uint8_t type)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_have have = { .verdict = RP_HAVE_NONE };
	struct rp_from from = { .offset = 0 };
	struct rp_reconnect rc = { .attempt = 1, .qps = 1,
				   .qp = { { .qpn = 0x99, .psn = 1 } } };
	const void *m = type == RP_MSG_HAVE ? (const void *)&have :
			type == RP_MSG_FROM ? (const void *)&from :
			(const void *)&rc;
	int n = rp_msg_pack(buf, sizeof(buf), type, m);

	assert_true(n > 0);
	return write_full(to, buf, (size_t)n);
}

/* FILE evil_id, re-encoded with the hostile path (untagged: no --psk). */
static size_t rewrite_path(const struct relay *r, uint8_t *buf, size_t len)
{
	struct rp_file f;
	const char *why;
	int n;

	assert_int_equal(rp_proto_unpack_file(buf + RP_PROTO_HDR_LEN,
					      len - RP_PROTO_HDR_LEN, &f,
					      &why), 0);
	if (f.id != r->evil_id)
		return len;
	f.path_len = (uint16_t)strlen(r->evil_path);
	memcpy(f.path, r->evil_path, f.path_len + 1u);
	n = rp_proto_pack_file(buf, RP_PROTO_MAX_MSG, &f);
	assert_true(n > 0);
	return (size_t)n;
}

/* A failed FACK or an ERR, re-encoded saying EVIL_TEXT (no --psk). */
static size_t rewrite_text(uint8_t type, uint8_t *buf, size_t len)
{
	struct rp_result res;
	const char *why;
	int n;

	assert_int_equal(rp_proto_unpack_result(buf + RP_PROTO_HDR_LEN,
						len - RP_PROTO_HDR_LEN, type,
						&res, &why), 0);
	if (res.status == RP_ST_OK)
		return len;
	res.text_len = (uint16_t)strlen(EVIL_TEXT);
	memcpy(res.text, EVIL_TEXT, res.text_len + 1u);
	n = rp_proto_pack_result(buf, RP_PROTO_MAX_MSG, type, &res);
	assert_true(n > 0);
	return (size_t)n;
}

/* The sender's MR payload p (src/proto.c's layout), made wrong in a way
 * the codec still accepts: the receiver itself must notice. */
static void evil_sender_mr(enum tamper how, uint8_t *p)
{
	uint32_t chunk = (uint32_t)p[48] << 24 | (uint32_t)p[49] << 16 |
			 (uint32_t)p[50] << 8 | p[51];
	uint32_t window = p[55];	/* <= 64: its low byte */
	uint64_t len = (uint64_t)(chunk / 2) * window;

	if (how == TAMPER_SENDER_MR_RKEY) {
		p[39] ^= 0x01;
		return;
	}
	for (int i = 0; i < 8; i++)
		p[40 + i] = (uint8_t)(len >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		p[48 + i] = (uint8_t)((chunk / 2) >> (24 - 8 * i));
}

/*
 * Pass on message n of direction to_a (receiver -> sender), of the given
 * type, as the scenario wants it; buf holds len bytes.
 */
static int pass_on(struct relay *r, bool to_a, uint32_t n, uint8_t type,
		   uint8_t *buf, size_t len)
{
	static const char http[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
	int to = to_a ? r->a : r->b;
	uint32_t auth = r->psk ? (to_a ? 1 : 2) : 0;
	/* Counted after AUTH; AUTH itself is left alone (UINT32_MAX). */
	uint32_t nth = n >= auth ? n - auth : UINT32_MAX;

	if (!to_a && type == RP_MSG_FILE && r->evil_path)
		len = rewrite_path(r, buf, len);
	switch (r->how) {
	case TAMPER_FLIP_MR:
		if (to_a && nth == 0)
			buf[RP_PROTO_HDR_LEN + 36] ^= 0x01;
		break;
	case TAMPER_DUP_MR:
		if (to_a && nth == 0 && write_full(to, buf, len))
			return -1;
		break;
	case TAMPER_REPLAY_HELLO:
		if (!to_a && nth == 0) {
			memcpy(r->saved, buf, len);
			r->saved_len = len;
		}
		if (!to_a && type == RP_MSG_FIN)
			return write_full(to, r->saved, r->saved_len);
		break;
	case TAMPER_FORGE_ACK:
		if (!to_a && type == RP_MSG_FIN)
			return forge_ack(r);
		/* Held back, so the forged ACK always finds entries that
		 * were never answered, however fast the receiver is. */
		if (to_a && type == RP_MSG_FACK)
			return 0;
		break;
	case TAMPER_OLD_VERSION:
		if (!to_a && n == 0)
			buf[4] = 1;
		break;
	case TAMPER_NOT_PEER:
		if (to_a && n == 0)
			return write_full(to, (const uint8_t *)http,
					  sizeof(http) - 1);
		break;
	case TAMPER_SENDER_MR_SHAPE:
	case TAMPER_SENDER_MR_RKEY:
		if (!to_a && type == RP_MSG_MR)
			evil_sender_mr(r->how, buf + RP_PROTO_HDR_LEN);
		break;
	case TAMPER_EVIL_TEXT:
		if (to_a && (type == RP_MSG_FACK || type == RP_MSG_ERR))
			len = rewrite_text(type, buf, len);
		break;
	case TAMPER_HAVE_AT_FILE:
	case TAMPER_RECONNECT_AT_FILE:
		/* While the sender still sends the file: FILES stage. */
		if (!to_a && type == RP_MSG_FILE &&
		    inject(r->a, r->how == TAMPER_HAVE_AT_FILE ?
			   RP_MSG_HAVE : RP_MSG_RECONNECT))
			return -1;
		break;
	case TAMPER_RECONNECT_FOR_FACK:
		if (to_a && type == RP_MSG_FACK)
			return inject(to, RP_MSG_RECONNECT);
		break;
	case TAMPER_FROM_FOR_FEND:
	case TAMPER_RECONNECT_FOR_FEND:
		if (!to_a && type == RP_MSG_FEND)
			return inject(to, r->how == TAMPER_FROM_FOR_FEND ?
				      RP_MSG_FROM : RP_MSG_RECONNECT);
		break;
	case TAMPER_CHAIN_UNFLAGGED:
		if (!to_a && type == RP_MSG_HELLO)
			buf[RP_PROTO_HDR_LEN + 47] &= (uint8_t)~RP_HELLO_CHAIN;
		break;
	case TAMPER_CHAIN_NOT_NEXT:
		if (!to_a && type == RP_MSG_HELLO) {
			struct rp_fin fin = { .files = 0 };
			uint8_t f[RP_PROTO_MAX_MSG];
			int fn = rp_msg_pack(f, sizeof(f), RP_MSG_FIN, &fin);

			buf[RP_PROTO_HDR_LEN + 47] |= RP_HELLO_CHAIN;
			assert_true(fn > 0);
			if (write_full(to, buf, len))
				return -1;
			return write_full(to, f, (size_t)fn);
		}
		break;
	case TAMPER_NONE:
		break;
	}
	return write_full(to, buf, len);
}

/* One message from one side to the other. 0, or -1 when either closed;
 * its type in *type (0 if the header was not ours). */
static int forward(struct relay *r, bool to_a, uint8_t *type)
{
	uint8_t buf[RP_PROTO_MAX_MSG];
	struct rp_msg_hdr h;
	const char *why;
	int from = to_a ? r->b : r->a;
	int to = to_a ? r->a : r->b;

	*type = 0;
	if (read_full(from, buf, RP_PROTO_HDR_LEN))
		return -1;
	/* A header we cannot parse is passed on as is, for the side to judge. */
	if (rp_proto_parse_hdr(buf, RP_PROTO_HDR_LEN, &h, &why))
		return write_full(to, buf, RP_PROTO_HDR_LEN);
	if (read_full(from, buf + RP_PROTO_HDR_LEN, h.length))
		return -1;
	*type = h.type;
	if (!to_a && h.type == RP_MSG_HELLO) {
		struct rp_hello hello;

		if (!rp_proto_unpack_hello(buf + RP_PROTO_HDR_LEN, h.length,
					   &hello, &why)) {
			r->hello_chunk = hello.chunk;
			r->hello_window = hello.window;
		}
	}
	if (r->cut_at && h.type == r->cut_at)
		return -1;
	if (!to_a && h.type == RP_MSG_FEND && r->fend_ms)
		usleep(r->fend_ms * 1000u);
	return pass_on(r, to_a, r->n[to_a]++, h.type, buf,
		       RP_PROTO_HDR_LEN + h.length);
}

static void *relay_main(void *arg)
{
	struct relay *r = arg;

	while (r->msgs < r->cut_after) {
		uint8_t type = 0;
		struct pollfd p[2] = {
			{ .fd = r->a, .events = POLLIN },
			{ .fd = r->b, .events = POLLIN },
		};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* The receiver's side first: a receiver that stops sends its
		 * ERR and closes, and that ERR must reach the sender even
		 * when the sender's next message can no longer be passed on
		 * (its FIN to the closed receiver). */
		if (p[1].revents && forward(r, true, &type))
			break;
		if (p[1].revents) {
			r->msgs++;
			r->syncs += type == RP_MSG_SYNC;
			r->types[type % RP_MSG_TYPE_MAX]++;
		}
		if (p[0].revents && r->msgs < r->cut_after &&
		    forward(r, false, &type))
			break;
		if (p[0].revents && r->msgs < r->cut_after) {
			r->msgs++;
			r->types[type % RP_MSG_TYPE_MAX]++;
		}
	}
	/* The connection dies: both sides see it closed. */
	shutdown(r->a, SHUT_RDWR);
	shutdown(r->b, SHUT_RDWR);
	return NULL;
}

/* ---------------------------------------------------------------------
 * The receiver's thread
 */

struct recv_job {
	const struct rp_config *o;
	const uint8_t *psk;
	int dirfd, fd;
	const struct rp_admission *adm;
	int rc;
	struct rp_outcome out;
};

/* The receiver thread's role in its lines and events, when a case sets
 * it: "rdmapush recv: ..." apart from the sender's "rdmapush test: ...". */
static const char *recv_role;

static void *recv_main(void *arg)
{
	struct recv_job *j = arg;

	in_receiver = true;
	if (recv_role)
		rp_trace_thread_role(recv_role);
	j->rc = rp_session_recv_one(j->o, j->psk, j->dirfd, j->fd, "test-sender",
				    j->adm, &j->out);
	return NULL;
}

/* ---------------------------------------------------------------------
 * Files and directories
 */

/* Deterministic content, different per offset, so misplaced chunks show. */
static void make_file(const char *path, uint64_t size, uint8_t seed)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint8_t buf[64 * KIB];
	uint64_t off = 0;

	assert_true(fd >= 0);
	while (off < size) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)((off + i) * 2654435761u >> 13) ^ seed;
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		off += n;
	}
	assert_int_equal(close(fd), 0);
}

static void make_key(const char *path, uint8_t fill)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	uint8_t key[32];

	memset(key, fill, sizeof(key));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, key, sizeof(key)), (ssize_t)sizeof(key));
	assert_int_equal(close(fd), 0);
}

/* Entries of dir, dot files included; the one name in *only if n == 1. */
static int list_dir(const char *dir, char *only, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(only, len, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	recv_role = NULL;	/* a failed case may have left it set */
	assert_non_null(e);
	snprintf(e->root, sizeof(e->root), "/tmp/rp-session.XXXXXX");
	assert_non_null(mkdtemp(e->root));
	snprintf(e->src, sizeof(e->src), "%s/src", e->root);
	snprintf(e->dst, sizeof(e->dst), "%s/dst", e->root);
	snprintf(e->key_a, sizeof(e->key_a), "%s/key-a", e->root);
	snprintf(e->key_b, sizeof(e->key_b), "%s/key-b", e->root);
	assert_int_equal(mkdir(e->src, 0755), 0);
	assert_int_equal(mkdir(e->dst, 0755), 0);
	make_key(e->key_a, 0xa5);
	make_key(e->key_b, 0x5a);
	e->dirfd = open(e->dst, O_RDONLY | O_DIRECTORY);
	assert_true(e->dirfd >= 0);
	rp_fab_reset();
	rp_session_stop = 0;
	e->fds_before = count_fds();
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	close(e->dirfd);
	rm_tree(e->root);
	free(e);
	rp_fab_reset();
	rp_session_stop = 0;
	return 0;
}

/* ---------------------------------------------------------------------
 * Running one scenario
 */

/* The source a shrink_at case cuts short, once. */
static const char *shrink_path;
static atomic_bool shrunk;

static void on_post(enum rp_fab_side side, uint64_t nth, void *arg)
{
	const struct scenario *sc = arg;

	if (nth == sc->shrink_at && !atomic_exchange(&shrunk, true))
		assert_int_equal(truncate(shrink_path, 100 * KIB), 0);

	/* A real signal, delivered to the thread that is posting. */
	if (side == RP_FAB_SENDER && nth == sc->signal_at)
		raise(SIGINT);
	/* A slow sender: each of its posts (chunks, credit receives) late. */
	if (side == RP_FAB_SENDER && sc->trickle_ms)
		usleep(sc->trickle_ms * 1000u);
}

/* The admission hook: what the receiver had done when it asked. */
struct admit_probe {
	const struct scenario *sc;
	struct result *res;
};

static int admit_hook(void *ctx, const char *peer)
{
	struct admit_probe *p = ctx;
	struct rp_fab_stats st;

	(void)peer;
	rp_fab_stats(&st);
	p->res->admit_calls++;
	p->res->admit_open = st.open;
	return p->sc->busy ? RP_EBUSY : 0;
}

/* Each side's report's reconnect count, by role (report_hook). */
static _Atomic uint32_t reconnects_seen[2];

static void report_hook(void *ctx, const struct rp_report *r)
{
	(void)ctx;
	reconnects_seen[!strcmp(r->role, "recv")] = r->reconnects;
}

static const struct rp_hooks count_hooks = { .report = report_hook };

static void opts_for(struct rp_config *o, const struct env *e,
		     const struct scenario *sc, bool send, const char *file)
{
	memset(o, 0, sizeof(*o));
	o->timeout = sc->timeout ? sc->timeout : 5;
	o->gid_index = -1;
	o->quiet = true;
	o->max_transfers = 1;
	o->chunk = sc->chunk ? sc->chunk : 64 * KIB;
	o->window = sc->window ? sc->window : 4;
	o->threads = sc->threads;
	o->direct = sc->direct;
	o->op = sc->op_read ? RP_OP_READ : sc->op_send ? RP_OP_SEND :
		sc->op_write ? RP_OP_WRITE : test_op;
	o->retry_for = sc->retry_for;
	o->hooks = &count_hooks;
	o->qps = sc->qps ? sc->qps : test_qps;
	o->force = sc->force;
	o->as_name = sc->as_name;
	if (file) {
		/* The sources live in argv for main: static here. */
		static char *sources[1];

		sources[0] = (char *)file;
		o->sources = sources;
		o->nsources = 1;
	}
	if (send && sc->sources) {
		o->sources = sc->sources;
		o->nsources = sc->nsources;
	}
	o->recursive = sc->recursive;
	o->preserve = send && sc->preserve;
	o->keep_setid = !send && sc->keep_setid;
	o->preserve_modes = !send && sc->preserve_modes;
	o->host = "test-receiver";
	o->dir = e->dst;
	o->max_size = sc->max_size;
	o->min_rate = sc->min_rate;
	o->min_rate_secs = sc->min_rate_secs;
	o->reason_wait_secs = sc->reason_wait;
	o->resume = send && sc->resume;
	o->update = send ? sc->update : 0;
	o->no_partials = !send && sc->no_partials;
	o->relay = !send && sc->relay;
	if (send) {
		/* As opts gives them: our peer first, then the rest; one
		 * host (every other case) is a list of one. */
		static struct rp_host hosts[8];

		assert_true(sc->chain < sizeof(hosts) / sizeof(hosts[0]));
		memset(hosts, 0, sizeof(hosts));
		for (uint32_t i = 0; i <= sc->chain; i++) {
			snprintf(hosts[i].name, sizeof(hosts[i].name),
				 i ? "node%02u" : "test-receiver", i + 1);
			hosts[i].port = (uint16_t)(18500 + i);
		}
		o->hosts = hosts;
		o->nhosts = sc->chain + 1;
	}
	if (send && sc->psk_send)
		o->psk_file = sc->wrong_key ? e->key_b : e->key_a;
}

/* A fresh key from keygen, for both sides, in place of key_a. */
static void keygen_key_a(const struct env *e)
{
	assert_int_equal(unlink(e->key_a), 0);
	assert_int_equal(rp_auth_keygen(e->key_a), 0);
}

static uint64_t stats_opened(void)
{
	struct rp_fab_stats st;

	rp_fab_stats(&st);
	return st.opened;
}

/* The sender's report hook: its counts into the result. */
static void capture_report(void *ctx, const struct rp_report *rep)
{
	struct result *res = ctx;

	res->up_to_date = rep->up_to_date;
	res->data_bytes = rep->data_bytes;
	res->files = rep->files;
	res->reported = true;
	report_hook(NULL, rep);
}

static void run(struct env *e, const struct scenario *sc, struct result *res,
		const char *file)
{
	struct rp_hooks hooks = { .report = capture_report, .ctx = res };
	struct rp_config so, ro;
	uint8_t key[RP_PSK_LEN];
	struct recv_job job = { .dirfd = e->dirfd };
	struct relay rl = { .cut_after = sc->cut_after ? sc->cut_after : NEVER,
			    .cut_at = sc->cut_at, .how = sc->tamper,
			    .evil_path = sc->evil_path, .evil_id = sc->evil_id, .psk = sc->psk_send,
			    .size = sc->size, .fend_ms = sc->fend_ms };
	struct admit_probe probe = { .sc = sc, .res = res };
	struct rp_admission adm = { .admit = admit_hook, .ctx = &probe };
	int sp[2], rp[2];
	pthread_t rt;

	opts_for(&so, e, sc, true, file);
	opts_for(&ro, e, sc, false, NULL);
	so.hooks = &hooks;
	if (sc->keygen)
		keygen_key_a(e);
	if (sc->psk_recv) {
		assert_int_equal(rp_auth_load(e->key_a, key), 0);
		job.psk = key;
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, rp), 0);
	rl.a = sp[1];
	rl.b = rp[1];
	if (sc->recv_ack_ms)
		rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_SLOW_ACK, sc->recv_ack_ms);
	if (sc->send_ack_ms)
		rp_fab_fault(RP_FAB_SENDER, RP_FAB_SLOW_ACK, sc->send_ack_ms);
	if (sc->wc_status)
		rp_fab_fail_completion(sc->fault_side, sc->fault_nth,
				       sc->wc_status);
	else if (sc->fault)
		rp_fab_fault(sc->fault_side, sc->fault, sc->fault_nth);
	if (sc->recv_down_nth)
		rp_fab_fault(RP_FAB_RECEIVER, RP_FAB_LINK_DOWN,
			     sc->recv_down_nth);
	if (sc->recv_unreach_nth)
		rp_fab_unreach(RP_FAB_RECEIVER, sc->recv_unreach_nth,
			       sc->recv_unreach_ms);
	shrink_path = file;
	atomic_store(&shrunk, false);
	if (sc->signal_at || sc->trickle_ms || sc->shrink_at)
		rp_fab_set_hook(on_post, (void *)sc);
	memset(res, 0, sizeof(*res));
	reconnects_seen[0] = reconnects_seen[1] = UINT32_MAX;
	sync_ms = sc->sync_ms;
	dir_fsync_fails = sc->dir_fsync_fails;
	syncfs_fails = sc->syncfs_fails;
	file_fsyncs = dir_fsyncs = syncfs_calls = 0;
	nospc_past = sc->nospc_past;
	job.o = &ro;
	job.fd = rp[0];
	job.adm = &adm;
	assert_int_equal(pthread_create(&rl.thr, NULL, relay_main, &rl), 0);
	assert_int_equal(pthread_create(&rt, NULL, recv_main, &job), 0);
	res->send_rc = rp_session_send_fd(&so, sp[0], "test-receiver",
					  &res->send_out);
	assert_int_equal(pthread_join(rt, NULL), 0);
	/* Both sides have closed their ends: the relay sees EOF and stops. */
	assert_int_equal(pthread_join(rl.thr, NULL), 0);
	close(sp[1]);
	close(rp[1]);
	res->recv_rc = job.rc;
	res->recv_out = job.out;
	res->send_reconnects = reconnects_seen[0];
	res->recv_reconnects = reconnects_seen[1];
	res->msgs = rl.msgs;
	res->syncs = rl.syncs;
	memcpy(res->types, rl.types, sizeof(res->types));
	res->hello_chunk = rl.hello_chunk;
	res->hello_window = rl.hello_window;
	sync_ms = 0;
	dir_fsync_fails = false;
	syncfs_fails = false;
	nospc_past = 0;
	rp_fab_set_hook(NULL, NULL);
	res->send_exit = rp_session_exit_code(res->send_rc);
	rp_session_stop = 0;
	res->opened = stats_opened();
}

/* Everything released: fabric contexts and rings, and descriptors. */
static void assert_released(const struct env *e)
{
	struct rp_fab_stats st;

	rp_fab_stats(&st);
	assert_int_equal(st.open, 0);
	assert_int_equal(st.rings, 0);
	assert_int_equal(count_fds(), e->fds_before);
}

/* The received file is there and identical, and nothing else is. */
static void assert_delivered(const struct env *e, const char *src,
			     const char *name)
{
	char only[300], path[512];

	assert_int_equal(list_dir(e->dst, only, sizeof(only)), 1);
	assert_string_equal(only, name);
	snprintf(path, sizeof(path), "%s/%s", e->dst, name);
	assert_true(same_file(src, path));
}

/* Nothing but, at most, the partial of data.bin and its journal (kept
 * for a --resume when the push stopped mid-file). */
static void assert_nothing(const struct env *e)
{
	DIR *d = opendir(e->dst);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strcmp(de->d_name, ".data.bin.rdmapush-partial") &&
		    strcmp(de->d_name, ".data.bin.rdmapush-journal"))
			fprintf(stderr, "left behind: %s\n", de->d_name);
		assert_true(rp_partial_is_name(de->d_name,
					       strlen(de->d_name)));
		n++;
	}
	closedir(d);
	assert_in_range(n, 0, 2);
}

/* Where a race decides whether the commit came first: the whole file or
 * nothing, never a part or a temporary. */
static void assert_whole_or_nothing(const struct env *e, const char *src,
				    const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", e->dst, name);
	if (access(p, F_OK) == 0)
		assert_delivered(e, src, name);
	else
		assert_nothing(e);
}

/* Push a fresh file of sc->size bytes; returns the result. */
static void push(struct env *e, const struct scenario *sc, struct result *r)
{
	char file[160];

	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	make_file(file, sc->size, 7);
	run(e, sc, r, file);
	assert_released(e);
}

/* A push that must succeed on both sides and deliver the file. */
static void push_ok(void **state, const struct scenario *sc)
{
	struct env *e = *state;
	char file[160];
	struct result r;

	push(e, sc, &r);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.recv_rc, 0);
	assert_int_equal(r.send_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.send_out.failed, 0);
	assert_int_equal(r.admit_calls, 1);
	assert_delivered(e, file, sc->as_name ? sc->as_name : "data.bin");
}

/* A push that must fail on both sides and leave nothing behind. */
static void push_fails(void **state, const struct scenario *sc,
		       struct result *r)
{
	struct env *e = *state;

	push(e, sc, r);
	assert_int_not_equal(r->send_rc, 0);
	assert_int_not_equal(r->recv_rc, 0);
	assert_nothing(e);
}

/* The whole line of text that holds marker, into line (asserted). */
static const char *line_with(const char *text, const char *marker,
			     char *line, size_t len)
{
	const char *m = strstr(text, marker);
	const char *b, *end;

	if (!m)		/* what was said instead */
		fprintf(stderr, "no \"%s\" in:\n%s", marker, text);
	assert_non_null(m);
	for (b = m; b > text && b[-1] != '\n'; b--)
		;
	end = strchr(m, '\n');
	if (!end)
		end = m + strlen(m);
	assert_true((size_t)(end - b) < len);
	memcpy(line, b, (size_t)(end - b));
	line[end - b] = '\0';
	return line;
}

/* stderr captured (capture.h) around a push: the descriptors the
 * capture holds are not the session's. */
static void capture_begin(struct env *e)
{
	int before = count_fds();

	capture_start();
	e->fds_before += count_fds() - before;
}

static const char *capture_done(struct env *e)
{
	int before = count_fds();
	const char *text = capture_end();

	e->fds_before -= before - count_fds();
	return text;
}

/* ---------------------------------------------------------------------
 * Sizes and shapes
 */

static void test_size_0(void **s)
{
	push_ok(s, &(struct scenario){ .size = 0 });
}

static void test_size_1(void **s)
{
	push_ok(s, &(struct scenario){ .size = 1 });
}

static void test_size_chunk_minus_1(void **s)
{
	push_ok(s, &(struct scenario){ .size = 64 * KIB - 1 });
}

static void test_size_chunk(void **s)
{
	push_ok(s, &(struct scenario){ .size = 64 * KIB });
}

static void test_size_chunk_plus_1(void **s)
{
	push_ok(s, &(struct scenario){ .size = 64 * KIB + 1 });
}

/* 256 chunks through a ring of 4: every slot reused 64 times. */
static void test_size_many_rings(void **s)
{
	push_ok(s, &(struct scenario){ .size = 4 * MIB + 12345,
				       .chunk = 16 * KIB, .window = 4 });
}

/* One worker per side: every chunk through one thread, in order. */
static void test_threads_1(void **s)
{
	push_ok(s, &(struct scenario){ .size = 4 * MIB + 12345,
				       .chunk = 16 * KIB, .window = 4,
				       .threads = 1 });
}

/* More workers than slots and cores: chunks finish out of order, and
 * are still posted, credited and folded in order. */
static void test_threads_many(void **s)
{
	push_ok(s, &(struct scenario){ .size = 4 * MIB + 12345,
				       .chunk = 16 * KIB, .window = 4,
				       .threads = 9 });
}

/* A small file with a chunk that is not a multiple of a page: the
 * receiver used to round the chunk up past what was asked, and the
 * sender refused the MR. */
static void test_chunk_not_page_multiple_small(void **s)
{
	push_ok(s, &(struct scenario){ .size = 4999, .chunk = 5000 });
}

static void test_chunk_not_page_multiple_large(void **s)
{
	push_ok(s, &(struct scenario){ .size = 300 * KIB + 7,
				       .chunk = 5000, .window = 3 });
}

/* --direct on both sides: aligned chunks past the page cache, the
 * file's unaligned tail through it; the same bytes arrive. */
static void test_direct(void **s)
{
	push_ok(s, &(struct scenario){ .size = 3 * MIB + 1000,
				       .chunk = 1 * MIB, .direct = true });
}

/* Window 1: the last credit used to be held back when the credit Send
 * queue was full, so a finished push waited for the timeout. The
 * timeout is long and the duration checked, so a hang cannot pass. */
static void test_window_1(void **s)
{
	double t0 = rp_now();

	push_ok(s, &(struct scenario){ .size = 2 * MIB + 1, .chunk = 4 * KIB,
				       .window = 1, .timeout = 30 });
	assert_true(rp_now() - t0 < 10.0);
}

/* Window 1 with the receiver's credit Sends completing late, as on a
 * real link: its send queue is full when the last chunk lands. */
static void test_window_1_slow_acks(void **s)
{
	double t0 = rp_now();

	push_ok(s, &(struct scenario){ .size = 65 * 4 * KIB, .chunk = 4 * KIB,
				       .window = 1, .timeout = 30,
				       .recv_ack_ms = 3 });
	assert_true(rp_now() - t0 < 10.0);
}

/* The sender's write completions come late: slots free up only then. */
static void test_sender_slow_acks(void **s)
{
	push_ok(s, &(struct scenario){ .size = 1 * MIB + 3, .chunk = 16 * KIB,
				       .window = 4, .send_ack_ms = 2,
				       .recv_ack_ms = 1 });
}

/* The receiver shrinks the chunk to the file and the window to its
 * chunks; the sender follows. */
static void test_receiver_shrinks_chunk(void **s)
{
	push_ok(s, &(struct scenario){ .size = 100 * KIB, .chunk = 4 * MIB,
				       .window = 8 });
}

static void test_receiver_shrinks_window(void **s)
{
	push_ok(s, &(struct scenario){ .size = 3 * 64 * KIB, .window = 16 });
}

/* ---------------------------------------------------------------------
 * Pre-shared key, names
 */

static void test_psk_right(void **s)
{
	push_ok(s, &(struct scenario){ .size = 200 * KIB, .psk_send = true,
				       .psk_recv = true });
}

static void test_psk_wrong(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 10 * KIB, .psk_send = true,
					  .psk_recv = true,
					  .wrong_key = true }, &r);
	assert_int_equal(r.send_rc, RP_EAUTH);
	assert_int_equal(r.send_out.phase, RP_PHASE_AUTH);
	assert_int_equal(r.recv_out.phase, RP_PHASE_AUTH);
	/* Never past its handshake: it never asked for a transfer slot. */
	assert_int_equal(r.admit_calls, 0);
}

/* A key the receiver lacks: the sender hears why, not only that
 * authentication failed. */
static void test_psk_sender_only(void **s)
{
	char line[1024];
	const char *err;
	struct result r;

	capture_begin(*s);
	push_fails(s, &(struct scenario){ .size = 10 * KIB, .psk_send = true },
		   &r);
	err = capture_done(*s);
	assert_int_equal(r.recv_rc, RP_EAUTH);
	assert_int_equal(r.send_rc, RP_EAUTH);
	assert_int_equal(r.send_exit, RP_EXIT_PROTO);
	line_with(err, "test-receiver refused or aborted", line, sizeof(line));
	assert_non_null(strstr(line, "authentication failed"));
	assert_non_null(strstr(line, "this receiver has no --psk"));
}

/* No key here, one there: the sender hears that it did not
 * authenticate, not what the receiver expected to read. */
static void test_psk_receiver_only(void **s)
{
	char line[1024];
	const char *err;
	struct result r;

	capture_begin(*s);
	push_fails(s, &(struct scenario){ .size = 10 * KIB, .psk_recv = true },
		   &r);
	err = capture_done(*s);
	assert_int_equal(r.send_rc, RP_EAUTH);
	line_with(err, "test-receiver refused or aborted", line, sizeof(line));
	assert_non_null(strstr(line, "did not authenticate"));
}

static void test_psk_keygen(void **s)
{
	push_ok(s, &(struct scenario){ .size = 100 * KIB, .psk_send = true,
				       .psk_recv = true, .keygen = true });
}

/*
 * A party in the path without the key, after a genuine AUTH: whatever it
 * alters, repeats or forges fails its tag check on the side it reaches,
 * which stops and says so to the other (tagged); neither side succeeds.
 * Tampering before the file's FEND leaves nothing; after it (FIN, ACK)
 * the file is already verified and committed and stays (arrived).
 */
enum arrival { NOTHING, ARRIVED, WHOLE_OR_NOTHING };

static void tampered(void **s, enum tamper how, enum rp_phase send_phase,
		     enum arrival arrived)
{
	struct env *e = *s;
	struct result r;
	char file[160];

	/* 32 chunks through a window of 4: the sender looks at the control
	 * channel many times before its FEND. */
	push(e, &(struct scenario){ .size = 2 * MIB, .psk_send = true,
		   .psk_recv = true, .tamper = how }, &r);
	assert_int_equal(r.send_rc, RP_ETAMPERED);
	assert_int_equal(r.recv_rc, RP_ETAMPERED);
	assert_int_equal(r.send_out.phase, send_phase);
	assert_int_not_equal(r.recv_out.phase, RP_PHASE_DONE);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	if (arrived == ARRIVED)
		assert_delivered(e, file, "data.bin");
	else if (arrived == NOTHING)
		assert_nothing(e);
	else
		assert_whole_or_nothing(e, file, "data.bin");
}

static void test_tamper_flip_mr(void **s)
{
	tampered(s, TAMPER_FLIP_MR, RP_PHASE_HELLO, NOTHING);
}

static void test_tamper_dup_mr(void **s)
{
	/* Seen as soon as the sender next looks at the control channel. */
	tampered(s, TAMPER_DUP_MR, RP_PHASE_DATA, NOTHING);
}

/* The HELLO again in place of the FIN: the receiver's tag check. */
static void test_tamper_replay_hello(void **s)
{
	tampered(s, TAMPER_REPLAY_HELLO, RP_PHASE_FIN, ARRIVED);
}

/* The receiver never got the FIN: the sender's ERR that follows skips a
 * sequence number, so the receiver flags that one too (a drop). The
 * sender may end the session (and its QP) before the receiver has
 * landed the last chunk and committed. */
static void test_tamper_forge_ack(void **s)
{
	tampered(s, TAMPER_FORGE_ACK, RP_PHASE_FIN, WHOLE_OR_NOTHING);
}

/*
 * Without --psk nothing is tagged, so the forged ACK is believed as an
 * ACK; but the sender still has an entry without its FACK (the relay
 * kept it), so it must not report success. The receiver never got its
 * FIN. The file is committed at its FEND, if the receiver got that far
 * before the sender's ERR.
 */
static void test_forge_ack_without_psk(void **s)
{
	struct env *e = *s;
	char file[160];
	struct result r;

	push(e, &(struct scenario){ .size = 300 * KIB,
		   .tamper = TAMPER_FORGE_ACK }, &r);
	assert_int_equal(r.send_rc, RP_EPROTO);
	assert_int_not_equal(r.send_out.phase, RP_PHASE_DONE);
	assert_int_not_equal(r.recv_rc, 0);
	assert_int_not_equal(r.recv_out.phase, RP_PHASE_DONE);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_whole_or_nothing(e, file, "data.bin");
}

/* A version 1 peer: the receiver answers at version 1, both fail. */
static void test_old_version(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 10 * KIB,
		   .tamper = TAMPER_OLD_VERSION }, &r);
	assert_int_equal(r.recv_rc, RP_EVERSION);
	assert_int_equal(r.send_rc, RP_EVERSION);
	assert_int_equal(rp_err_exit_code(r.send_rc), RP_EXIT_PROTO);
}

/*
 * Version 7's HAVE, FROM and RECONNECT, well-formed but never asked for:
 * the side that gets one refuses it as out of place and says so.
 */
static void unasked(void **s, enum tamper how, bool to_sender)
{
	struct env *e = *s;
	struct result r;
	const char *err;

	/* 32 chunks through a window of 4: the sender looks at the control
	 * channel many times before its FEND. */
	capture_begin(e);
	push(e, &(struct scenario){ .size = 2 * MIB, .tamper = how }, &r);
	err = capture_done(e);
	/* HAVE and FROM are the protocol's in FILES, but only in answer. */
	assert_int_equal(to_sender ? r.send_rc : r.recv_rc,
			 how == TAMPER_HAVE_AT_FILE ||
			 how == TAMPER_FROM_FOR_FEND ? RP_EPROTO :
			 RP_EUNEXPECTED);
	/* Past the last FACK, the receiver may have ended well already. */
	if (how != TAMPER_RECONNECT_FOR_FACK)
		assert_int_not_equal(to_sender ? r.recv_rc : r.send_rc, 0);
	assert_non_null(strstr(err, how == TAMPER_HAVE_AT_FILE ?
			       "which we did not ask for" :
			       how == TAMPER_FROM_FOR_FEND ? "out of order" :
			       ", got RECONNECT"));
}

/* ---------------------------------------------------------------------
 * Chain push: the command line's hosts, CHAIN, and the refusal
 */

/*
 * A chain to a receiver without --relay: refused before any data or
 * transfer slot, with what to do, in one line at the sender naming the
 * host, and the policy status; nothing is written. With --relay (until
 * relaying lands) the same, saying this receiver cannot yet.
 */
static void chain_refused(void **s, bool relay, const char *text)
{
	struct env *e = *s;
	char line[1024];
	const char *err;
	struct result r;

	capture_begin(e);
	push_fails(s, &(struct scenario){ .size = 100 * KIB, .chain = 2,
					  .relay = relay }, &r);
	err = capture_done(e);
	assert_int_equal(r.recv_rc, RP_ELIMIT);
	assert_int_equal(r.send_rc, RP_ELIMIT);
	assert_int_equal(r.send_exit, RP_EXIT_POLICY);
	assert_int_equal(r.admit_calls, 0);
	assert_int_equal(r.types[RP_MSG_HELLO], 1);
	assert_int_equal(r.types[RP_MSG_CHAIN], 1);
	assert_int_equal(r.types[RP_MSG_MR], 0);
	assert_int_equal(r.types[RP_MSG_FILE], 0);
	line_with(err, "test-receiver refused or aborted", line, sizeof(line));
	assert_non_null(strstr(line, text));
	assert_int_equal(list_dir(e->dst, line, sizeof(line)), 0);
}

static void test_chain_no_relay_refused(void **s)
{
	chain_refused(s, false, "this receiver does not relay a chain "
		      "(start it with rdmapush recv --relay)");
}

/* One host, as the command line gives it (a list of one): no CHAIN, and
 * the push as it always was, --relay or not. */
static void test_chain_one_host(void **s)
{
	struct env *e = *s;
	struct result r;

	push_ok(s, &(struct scenario){ .size = 100 * KIB, .relay = true });
	push(e, &(struct scenario){ .size = 100 * KIB, .force = true }, &r);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.types[RP_MSG_HELLO], 1);
	assert_int_equal(r.types[RP_MSG_CHAIN], 0);
}

/* The flag and the message go together: a CHAIN its HELLO did not
 * announce, or a flagged HELLO and something else next, is a protocol
 * error at the receiver, and nothing is written. */
static void test_chain_unannounced(void **s)
{
	struct env *e = *s;
	struct result r;
	const char *err;

	capture_begin(e);
	push(e, &(struct scenario){ .size = 100 * KIB, .chain = 1,
				    .tamper = TAMPER_CHAIN_UNFLAGGED }, &r);
	err = capture_done(e);
	assert_int_equal(r.recv_rc, RP_EUNEXPECTED);
	assert_int_not_equal(r.send_rc, 0);
	assert_non_null(strstr(err, ", got CHAIN"));
	assert_nothing(e);
}

static void test_chain_not_next(void **s)
{
	struct env *e = *s;
	struct result r;
	const char *err;

	capture_begin(e);
	push(e, &(struct scenario){ .size = 100 * KIB,
				    .tamper = TAMPER_CHAIN_NOT_NEXT }, &r);
	err = capture_done(e);
	assert_int_equal(r.recv_rc, RP_EUNEXPECTED);
	assert_int_not_equal(r.send_rc, 0);
	assert_int_equal(r.admit_calls, 0);
	assert_non_null(strstr(err, "expected CHAIN from test-sender, got "
			       "FIN"));
	assert_nothing(e);
}

static void test_unasked_have(void **s)
{
	unasked(s, TAMPER_HAVE_AT_FILE, true);
}

static void test_unasked_reconnect_to_sender(void **s)
{
	unasked(s, TAMPER_RECONNECT_AT_FILE, true);
}

/* After FIN (the last stage), if the FACK comes that late. */
static void test_unasked_reconnect_at_end(void **s)
{
	unasked(s, TAMPER_RECONNECT_FOR_FACK, true);
}

static void test_unasked_from(void **s)
{
	unasked(s, TAMPER_FROM_FOR_FEND, false);
}

static void test_unasked_reconnect_to_receiver(void **s)
{
	unasked(s, TAMPER_RECONNECT_FOR_FEND, false);
}

static void test_not_a_peer(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 10 * KIB,
		   .tamper = TAMPER_NOT_PEER }, &r);
	assert_int_equal(r.send_rc, RP_ENOTPEER);
	assert_int_equal(r.send_out.phase, RP_PHASE_HELLO);
	assert_int_equal(rp_err_exit_code(r.send_rc), RP_EXIT_PROTO);
}

/*
 * --op read: the receiver reads the sender's ring as the sender's MR
 * describes it. A shape other than the one agreed is refused before any
 * Read; an rkey that is not the ring's makes the first Read fail (remote
 * access error). Either way both sides fail and nothing is left.
 */
static void test_read_sender_mr_shape(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 300 * KIB, .op_read = true,
		   .tamper = TAMPER_SENDER_MR_SHAPE }, &r);
	assert_int_equal(r.recv_rc, RP_EPROTO);
	assert_int_equal(r.recv_out.phase, RP_PHASE_SETUP);
	assert_int_equal(r.recv_out.done, 0);
}

static void test_read_sender_mr_rkey(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 300 * KIB, .op_read = true,
		   .tamper = TAMPER_SENDER_MR_RKEY }, &r);
	/* Its own failed Read, or first the sender's word that its QP
	 * went down with it (the responder's QP errors out too). */
	assert_true(r.recv_rc == RP_EWC || r.recv_rc == RP_EPEERRDMA);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
	assert_int_equal(r.recv_out.done, 0);
}

static void test_bad_name_refused_before_connecting(void **s)
{
	struct result r;

	/* The walker refuses it as a command-line error (exit 2). */
	push_fails(s, &(struct scenario){ .size = 10, .as_name = "../up" }, &r);
	assert_int_equal(r.send_rc, RP_EUSAGE);
	assert_int_equal(r.send_exit, 2);
	assert_int_equal(r.send_out.phase, RP_PHASE_PREPARE);
	/* Refused before HELLO: the only message is the sender's ERR. */
	assert_int_equal(r.msgs, 1);
	/* The receiver hears a refusal, not a usage error of its own. */
	assert_int_equal(r.recv_rc, RP_EREFUSED);
	assert_int_equal(r.recv_out.phase, RP_PHASE_HELLO);
}

static void test_existing_name_refused(void **s)
{
	struct env *e = *s;
	char path[160], copy[160];
	struct result r;

	snprintf(path, sizeof(path), "%s/data.bin", e->dst);
	snprintf(copy, sizeof(copy), "%s/before", e->src);
	make_file(path, 1000, 1);
	make_file(copy, 1000, 1);
	push(e, &(struct scenario){ .size = 5000 }, &r);
	/* A failed entry: the session itself completes. */
	assert_int_equal(r.send_rc, RP_EEXIST);
	assert_int_equal(r.recv_rc, RP_EEXIST);
	assert_int_equal(r.send_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.send_out.failed, 1);
	assert_int_equal(r.send_exit, 6);
	assert_delivered(e, copy, "data.bin");	/* untouched */
}

/* A file over a directory: refused even with --force, and the sender
 * is told so, with no word of --force either way. */
static void test_directory_in_the_way(void **s)
{
	struct env *e = *s;
	char path[160], line[1024];
	const char *err, *hint;
	struct result r;
	struct stat st;

	snprintf(path, sizeof(path), "%s/data.bin", e->dst);
	assert_int_equal(mkdir(path, 0755), 0);
	capture_begin(*s);
	push(e, &(struct scenario){ .size = 5000, .force = true }, &r);
	err = capture_done(*s);
	assert_int_equal(r.send_rc, RP_EBADNAME);
	assert_int_equal(r.recv_rc, RP_EBADNAME);
	assert_int_equal(r.send_out.failed, 1);
	assert_int_equal(r.send_exit, RP_EXIT_POLICY);
	line_with(err, "test-receiver refused it: ", line, sizeof(line));
	/* Its reason, the path it names being ours: said once. */
	assert_non_null(strstr(line, "data.bin: test-receiver refused it: a "
				     "directory is in the way"));
	assert_non_null(strstr(line, "never replaced by a file"));
	assert_null(strstr(line, "use --force"));
	/* main's hint line for it: nothing about --force. */
	hint = rp_err_hint_push(r.send_rc, 0, 1, false);
	assert_true(!hint || !strstr(hint, "--force"));
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

static void test_existing_name_forced(void **s)
{
	struct env *e = *s;
	char path[160];

	snprintf(path, sizeof(path), "%s/data.bin", e->dst);
	make_file(path, 1000, 1);
	push_ok(s, &(struct scenario){ .size = 70 * KIB, .force = true });
}

/* ---------------------------------------------------------------------
 * Faults in the fabric
 */

/*
 * One side's nth completion fails. Its QP goes to ERROR, so the other
 * side's next operation fails too; each tells the other why, and each
 * reports its own failed completion or the peer's word that its RDMA
 * failed, whichever it hears first. Never a timeout, never a file.
 */
static void completion_fails(void **s, enum rp_fab_side side, uint64_t nth)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB, .fault_side = side,
		   .fault = RP_FAB_FAIL_COMPLETION, .fault_nth = nth }, &r);
	assert_true(r.send_rc == RP_EWC || r.send_rc == RP_EPEERRDMA);
	assert_true(r.recv_rc == RP_EWC || r.recv_rc == RP_EPEERRDMA);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
}

static void test_recv_completion_fails(void **s)
{
	completion_fails(s, RP_FAB_RECEIVER, 3);
}

static void test_send_completion_fails(void **s)
{
	completion_fails(s, RP_FAB_SENDER, 5);
}

/*
 * Every status of the manual's COMPLETION ERRORS table (rp_wc_causes()),
 * met by the sender mid-data: the push fails with exit status 4, and
 * the sender's first error line, the cause main's verdict names, says
 * the status (its words and number) and what it means, with the hint
 * line right after it: the usual causes on RoCE and what to check. The
 * receiver hears of it and keeps nothing. (The sender's result may be
 * its own RP_EWC or, heard while it waited for the receiver's reason,
 * the peer's RP_EPEERRDMA: the same exit status.)
 */
static void test_every_completion_status(void **s)
{
	const char *sender = "rdmapush test: error: ";
	const struct rp_wc_cause *rows;
	struct env *e = *s;
	size_t n;

	rows = rp_wc_causes(&n);
	assert_true(n > 0);
	recv_role = "recv";
	for (size_t i = 0; i < n; i++) {
		const struct rp_wc_cause *c = &rows[i];
		char want[128], line[1024], hint[1024], h[RP_HELD_HINT_MAX];
		const char *err, *first, *next;
		struct result r;

		capture_begin(e);
		push_fails(s, &(struct scenario){ .size = 1 * MIB,
			   .fault_side = RP_FAB_SENDER, .fault_nth = 5,
			   .wc_status = (int)c->status,
			   .reason_wait = 0.1 }, &r);
		err = capture_done(e);
		assert_true(r.send_rc == RP_EWC || r.send_rc == RP_EPEERRDMA);
		assert_int_equal(r.send_exit, RP_EXIT_TRANSPORT);
		assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
		snprintf(want, sizeof(want), "%swork completion failed: %s "
			 "(status %d,", sender,
			 rp_wc_status_name((int)c->status), (int)c->status);
		first = strstr(err, sender);
		line_with(err, want, line, sizeof(line));
		if (first != strstr(err, line))
			fprintf(stderr, "not the sender's first error:\n%s",
				err);
		assert_ptr_equal(first, strstr(err, line));
		assert_non_null(strstr(line, c->means));
		/* The hint is the line that follows it, and only one. */
		next = first + strlen(line) + 1;
		line_with(next, "rdmapush test: hint: ", hint, sizeof(hint));
		assert_ptr_equal(strstr(next, hint), next);
		assert_non_null(rp_wc_hint(h, sizeof(h), (int)c->status,
					   true));
		assert_string_equal(hint + strlen("rdmapush test: hint: "),
				    h);
		assert_non_null(strstr(hint, c->roce));
		assert_non_null(strstr(hint, c->check));
		assert_null(strstr(next + strlen(hint), "rdmapush test: "
				   "hint: "));
	}
	recv_role = NULL;
}

/* The sender is handed a completion it never asked for (a Write into
 * its ring): the protocol is broken, RP_EPROTO, exit 3, one line naming
 * the completion; the receiver hears it and keeps nothing. */
static void test_send_stray_completion(void **s)
{
	struct env *e = *s;
	struct result r;
	const char *err;
	char line[512];

	capture_begin(e);
	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_SENDER, .fault = RP_FAB_STRAY_WC,
		   .fault_nth = 5 }, &r);
	err = capture_done(e);
	assert_int_equal(r.send_rc, RP_EPROTO);
	assert_int_equal(r.send_exit, RP_EXIT_PROTO);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
	line_with(err, "unexpected completion RECV_RDMA_WITH_IMM in a "
		  "session of --op ", line, sizeof(line));
	assert_non_null(strstr(line, "does not follow the protocol"));
}

static void test_send_post_fails(void **s)
{
	struct result r;

	/* The sender's posts: its credit receives first, then writes. */
	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_SENDER, .fault = RP_FAB_FAIL_POST,
		   .fault_nth = 10 }, &r);
	assert_int_equal(r.send_rc, RP_EVERBS);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
	assert_int_equal(r.recv_rc, RP_EPEERRDMA);
}

static void test_recv_post_fails(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_FAIL_POST,
		   .fault_nth = RECV_SETUP_POSTS(4) + 5 }, &r);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
}

/* The sender stalls mid-data: the receiver gives up after --timeout. */
static void test_stalled_sender_times_out(void **s)
{
	struct result r;
	double t0 = rp_now();

	push_fails(s, &(struct scenario){ .size = 2 * MIB, .timeout = 1,
		   .fault_side = RP_FAB_SENDER, .fault = RP_FAB_STALL,
		   .fault_nth = 8 }, &r);
	assert_int_equal(r.recv_rc, RP_ETIMEOUT);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
	assert_true(rp_now() - t0 < 8.0);
}

static void test_stalled_receiver_times_out(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB, .timeout = 1,
		   .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_STALL,
		   .fault_nth = 6 }, &r);
	assert_int_equal(r.send_rc, RP_ETIMEOUT);
	assert_int_equal(r.send_exit, RP_EXIT_TRANSPORT);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
}

/* SIGINT mid-data: the sender stops, says so, nothing is left. */
static void test_signal_mid_data(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 4 * MIB, .chunk = 16 * KIB,
		   .signal_at = 40 }, &r);
	assert_int_equal(r.send_rc, RP_EINTERRUPTED);
	assert_int_equal(r.send_exit, 130);	/* 128 + SIGINT, as shells expect */
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
	assert_true(r.send_out.failed || r.send_rc);
}

/* The source shrinks while it is sent: that file fails on both sides,
 * said once, nothing of it is left, and the session ends in order (the
 * receiver takes the empty last chunk that ends it early). */
static void test_source_shrinks_mid_file(void **s)
{
	struct env *e = *s;
	struct result r;

	push(e, &(struct scenario){ .size = 4 * MIB, .chunk = 64 * KIB,
	     .window = 4, .shrink_at = 20 }, &r);
	assert_true(atomic_load(&shrunk));
	assert_int_not_equal(r.send_rc, 0);
	assert_int_not_equal(r.recv_rc, RP_EPROTO);
	assert_int_equal(r.send_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.send_out.failed, 1);
	assert_int_equal(r.recv_out.failed, 1);
	assert_nothing(e);
}

/* The receiver dies mid-data: its QP errors out, its control connection
 * goes with it. */
static void test_receiver_dies_mid_data(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_KILL,
		   .fault_nth = RECV_SETUP_POSTS(4) + 8,
		   .cut_after = 2 + OP_MSGS }, &r);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
}

static void test_sender_dies_mid_data(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB,
		   .fault_side = RP_FAB_SENDER, .fault = RP_FAB_KILL,
		   .fault_nth = 12, .cut_after = 2 + OP_MSGS }, &r);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
}

/* ---------------------------------------------------------------------
 * The RDMA link goes down mid-file while the control connection lives
 * (--retry-for): fresh QPs on both sides, RECONNECT each way, and the
 * file arrives whole. The fault is placed past the sender's receives for
 * credits (one window on QP 0), or the receiver's for the data.
 */

static void link_down(void **s, struct scenario sc)
{
	struct env *e = *s;
	struct result r;

	char file[160];

	if (!sc.size)
		sc.size = 2 * MIB;
	sc.retry_for = 5;
	push(e, &sc, &r);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.recv_rc, 0);
	assert_int_equal(r.send_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DONE);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_delivered(e, file, "data.bin");
	assert_int_equal(r.send_reconnects, 1);
	assert_int_equal(r.recv_reconnects, 1);
	/* One each way, whichever side saw the link go first. */
	assert_int_equal(r.types[RP_MSG_RECONNECT], 2);
	/* Two fabric contexts, as ever: the QPs were made anew, not the
	 * contexts, rings or control connection. */
	assert_int_equal(r.opened, 2);
}

static void test_link_down_write(void **s)
{
	link_down(s, (struct scenario){ .op_write = true, .qps = 1,
		  .fault_side = RP_FAB_SENDER, .fault = RP_FAB_LINK_DOWN,
		  .fault_nth = 4 + 12 });
}

static void test_link_down_read(void **s)
{
	link_down(s, (struct scenario){ .op_read = true, .qps = 1,
		  .fault_side = RP_FAB_SENDER, .fault = RP_FAB_LINK_DOWN,
		  .fault_nth = 4 + 12 });
}

static void test_link_down_send(void **s)
{
	link_down(s, (struct scenario){ .op_send = true, .qps = 1,
		  .fault_side = RP_FAB_SENDER, .fault = RP_FAB_LINK_DOWN,
		  .fault_nth = 4 + 12 });
}

static void test_link_down_qps3(void **s)
{
	link_down(s, (struct scenario){ .op_write = true, .qps = 3,
		  .fault_side = RP_FAB_SENDER, .fault = RP_FAB_LINK_DOWN,
		  .fault_nth = 4 + 12 });
}

/* The receiver's credit is what finds the link gone: it asks first. */
static void test_link_down_receiver_first(void **s)
{
	link_down(s, (struct scenario){ .op_write = true, .qps = 3,
		  .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_LINK_DOWN,
		  .fault_nth = 4 * 3 + 10 });
}

/*
 * At the file's last chunk: the sender's FEND and FIN are queued ahead
 * of its RECONNECT, while the receiver, with FEND in, reads nothing more
 * until the chunks are in: it notices by itself (its credit again after
 * a silence fails) and reads past them to the RECONNECT, keeping them.
 */
static void test_link_down_at_the_end(void **s)
{
	/* 4 chunks in a window of 4: posts 5 to 8 after the 4 receives
	 * for credits, with no credit waited for; the last one fails. */
	link_down(s, (struct scenario){ .size = 256 * KIB, .op_write = true,
		  .qps = 1, .fault_side = RP_FAB_SENDER,
		  .fault = RP_FAB_LINK_DOWN, .fault_nth = 4 + 4 });
}

/* The push of sc completed, data.bin delivered, one outage ridden out
 * on each side, with msgs RECONNECT messages in all (0: any number). */
static void rides_out(struct env *e, const struct scenario *sc,
		      uint32_t msgs)
{
	struct result r;
	char file[160];

	push(e, sc, &r);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.recv_rc, 0);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_delivered(e, file, "data.bin");
	if (msgs)
		assert_int_equal(r.types[RP_MSG_RECONNECT], msgs);
	assert_int_equal(r.send_reconnects, 1);
	assert_int_equal(r.recv_reconnects, 1);
}

/*
 * The link flaps: down at the sender's 16th post, and again at the
 * receiver's 60th, after the first relink worked and credits and chunks
 * moved, but (in-process, at once) within rp_qp_give_up_secs() of it,
 * when a request posted before the peer's fresh QPs were ready could
 * still fail. One outage, each side says, in two rounds of RECONNECT.
 */
static void test_link_flap_one_outage(void **s)
{
	rides_out(*s, &(struct scenario){ .op_write = true, .qps = 1,
	     .size = 4 * MIB, .chunk = 64 * KIB, .window = 4, .retry_for = 5,
	     .fault_side = RP_FAB_SENDER,
	     .fault = RP_FAB_LINK_DOWN, .fault_nth = 4 + 12,
	     .recv_down_nth = 60 }, 4);
}

/*
 * The receiver's RECONNECT can reach a sender whose own packets are
 * still lost, and the other way round: then RTR on the fresh QPs finds
 * no ARP answer (the receiver's connects after the outage, here, for
 * 0.6 s). The outage goes on, not the session's end: it connects again.
 */
static void test_link_relink_unresolved(void **s)
{
	rides_out(*s, &(struct scenario){ .op_write = true, .qps = 2,
	     .size = 2 * MIB, .chunk = 64 * KIB, .window = 4, .retry_for = 5,
	     .fault_side = RP_FAB_SENDER,
	     .fault = RP_FAB_LINK_DOWN, .fault_nth = 8 + 4,
	     .recv_unreach_nth = 2, .recv_unreach_ms = 600 }, 0);
}

/* An address that stays unresolved past --retry-for ends the session as
 * a link that stays down does, saying so; nothing is left behind. */
static void test_link_relink_unresolved_gives_up(void **s)
{
	struct env *e = *s;
	struct result r;
	char line[256];
	const char *err;

	capture_begin(e);
	push_fails(s, &(struct scenario){ .op_write = true, .qps = 1,
		   .size = 2 * MIB, .chunk = 64 * KIB, .window = 4,
		   .retry_for = 1, .fault_side = RP_FAB_SENDER,
		   .fault = RP_FAB_LINK_DOWN, .fault_nth = 4 + 4,
		   .recv_unreach_nth = 2, .recv_unreach_ms = 30000 }, &r);
	err = capture_done(e);
	assert_int_equal(r.recv_rc, RP_EWC);
	line_with(err, "is still down after", line, sizeof(line));
	assert_non_null(strstr(line, "(--retry-for 1): its address does "
			       "not resolve"));
	assert_int_equal(r.recv_reconnects, 0);
}

/*
 * TCP gives up on data unacknowledged for TCP_USER_TIMEOUT, and its
 * retransmissions back off exponentially: a control connection tuned
 * for --timeout alone died in a 20 s outage that --retry-for rides out.
 * A session's outlasts both; a ping's (no outage to ride) --timeout.
 */
static void test_link_tcp_outlasts(void **s)
{
	static const int cases[][3] = {	/* timeout, outage, ms */
		{ 30, 60, 90000 }, { 30, 0, 30000 }, { 5, -1, 5000 },
	};

	(void)s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		unsigned int uto = 0;
		socklen_t len = sizeof(uto);

		assert_true(fd >= 0);
		rp_ctrl_tune(fd, cases[i][0], cases[i][1]);
		assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT,
					    &uto, &len), 0);
		assert_int_equal(uto, (unsigned int)cases[i][2]);
		close(fd);
	}
}

/* A peer that dies is not a link to wait for, --retry-for or not: the
 * receiver's QPs and control connection go together. */
static void test_link_retry_dead_peer(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 2 * MIB, .retry_for = 5,
		   .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_KILL,
		   .fault_nth = RECV_SETUP_POSTS(4) + 8,
		   .cut_after = 2 + OP_MSGS }, &r);
	assert_int_equal(r.send_out.phase, RP_PHASE_DATA);
	assert_int_equal(r.types[RP_MSG_RECONNECT], 0);
}

/* ---------------------------------------------------------------------
 * Interrupted pushes and --resume
 */

#define RESUME_SIZE	(1 * MIB)
#define RESUME_CHUNK	(16 * KIB)
#define RESUME_WINDOW	4u

/* What the receiver kept of data.bin: its journal's verified bytes, or
 * 0 when it kept nothing. */
static uint64_t kept_bytes(const struct env *e)
{
	struct rp_journal j;
	int fd;

	if (rp_partial_find(e->dirfd, "data.bin", &j, &fd) != 1)
		return 0;
	close(fd);
	return j.verified;
}

/*
 * After first (which may stop anywhere, or not at all), push file again
 * with --resume: it arrives byte-identical, nothing else is left, and
 * exactly what was not kept is sent. Returns what was kept.
 */
static uint64_t resume_after(struct env *e, const struct scenario *first,
			     const char *file)
{
	struct scenario again = { .chunk = first->chunk,
				  .window = first->window, .resume = true };
	char dst[200];
	struct result r;
	uint64_t kept;

	run(e, first, &r, file);
	assert_released(e);
	/* The next push is a new process: no fault carried over. */
	rp_fab_fault(first->fault_side, RP_FAB_NONE, 0);
	snprintf(dst, sizeof(dst), "%s/data.bin", e->dst);
	/* Stopped after its commit (a cut before FACK or ACK): there. */
	if (access(dst, F_OK) == 0) {
		assert_true(same_file(file, dst));
		assert_int_equal(unlink(dst), 0);
	}
	assert_nothing(e);
	kept = kept_bytes(e);
	assert_int_equal(kept % first->chunk, 0);
	run(e, &again, &r, file);
	assert_released(e);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.recv_rc, 0);
	assert_delivered(e, file, "data.bin");
	assert_int_equal(r.data_bytes, RESUME_SIZE - kept);
	assert_int_equal(unlink(dst), 0);
	return kept;
}

static void set_mtime(const char *path, time_t sec, long nsec)
{
	struct timespec t[2] = { { sec, nsec }, { sec, nsec } };

	assert_int_equal(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
}

static void resume_file(const struct env *e, char *file, size_t len)
{
	snprintf(file, len, "%s/data.bin", e->src);
	make_file(file, RESUME_SIZE, 7);
}

/* A sender stopped at about half: the receiver keeps what it verified
 * (a whole number of chunks, at least a third), and --resume sends only
 * the rest. */
static void test_resume_after_signal(void **s)
{
	struct env *e = *s;
	char file[160];
	uint64_t kept;

	resume_file(e, file, sizeof(file));
	kept = resume_after(e, &(struct scenario){ .chunk = RESUME_CHUNK,
			    .window = RESUME_WINDOW, .signal_at = 70 }, file);
	assert_in_range(kept, RESUME_SIZE / 3, RESUME_SIZE - RESUME_CHUNK);
}

/* A file of 64 MiB or more is written under its partial's name from
 * the start: stopped, it is kept in place; resumed, only the rest goes. */
static void test_resume_large(void **s)
{
	struct env *e = *s;
	struct scenario first = { .chunk = MIB, .window = 4, .signal_at = 90 };
	struct scenario again = { .chunk = MIB, .window = 4, .resume = true };
	const uint64_t size = 72 * MIB;
	char file[160];
	struct result r;
	uint64_t kept;

	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	make_file(file, size, 9);
	run(e, &first, &r, file);
	assert_released(e);
	assert_nothing(e);
	kept = kept_bytes(e);
	assert_in_range(kept, 16 * MIB, size - MIB);
	run(e, &again, &r, file);
	assert_released(e);
	assert_int_equal(r.send_rc, 0);
	assert_delivered(e, file, "data.bin");
	assert_int_equal(r.data_bytes, size - kept);
}

/* The kept part no longer matches the file (a byte changed, size and
 * mtime as before): the sender sees it from the digest and sends all of
 * it; the file still arrives whole. With --no-partials nothing is kept. */
static void test_resume_changed_source(void **s)
{
	struct env *e = *s;
	struct scenario first = { .chunk = RESUME_CHUNK,
				  .window = RESUME_WINDOW, .signal_at = 70 };
	struct scenario again = { .chunk = RESUME_CHUNK,
				  .window = RESUME_WINDOW, .resume = true };
	char file[160];
	struct result r;
	struct stat st;
	int fd;

	resume_file(e, file, sizeof(file));
	run(e, &first, &r, file);
	assert_released(e);
	assert_true(kept_bytes(e) > 0);
	assert_int_equal(stat(file, &st), 0);
	fd = open(file, O_WRONLY);
	assert_int_equal(pwrite(fd, "X", 1, 100), 1);
	close(fd);
	set_mtime(file, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	run(e, &again, &r, file);
	assert_released(e);
	assert_int_equal(r.send_rc, 0);
	assert_delivered(e, file, "data.bin");
	assert_int_equal(r.data_bytes, RESUME_SIZE);
	unlink(file);
	resume_file(e, file, sizeof(file));
	first.no_partials = true;
	run(e, &first, &r, file);
	assert_released(e);
	assert_int_equal(kept_bytes(e), 0);
}

/*
 * Stop either side at points spread over the whole push (a fault that
 * kills it at its nth post), and the control connection after each
 * message, then --resume: always byte-identical, nothing but the
 * partial left between the two, and only what was not kept sent again.
 * 200 points per side in the main run, 20 in the runs per op and QPs.
 */
static void resume_sweep(void **s, enum rp_fab_side side)
{
	struct env *e = *s;
	int points = test_op == RP_OP_WRITE && test_qps == 1 ? 200 : 20;
	unsigned int seed = 1234 + side;
	uint64_t resumed = 0;
	char file[160];

	resume_file(e, file, sizeof(file));
	for (int i = 0; i < points; i++) {
		/* Posts on either side: about two per chunk, and the setup. */
		uint64_t nth = 1 + (uint64_t)rand_r(&seed) %
			       (2 * RESUME_SIZE / RESUME_CHUNK + 20);

		resumed += resume_after(e, &(struct scenario){
			.chunk = RESUME_CHUNK, .window = RESUME_WINDOW,
			.fault_side = side, .fault = RP_FAB_KILL,
			.fault_nth = nth, .timeout = 2,
			.reason_wait = 0.01 }, file) > 0;
	}
	/* Most points fall mid-data: a resume sent less. */
	assert_true(resumed > (uint64_t)points / 3);
}

static void test_resume_sweep_sender(void **s)
{
	resume_sweep(s, RP_FAB_SENDER);
}

static void test_resume_sweep_receiver(void **s)
{
	resume_sweep(s, RP_FAB_RECEIVER);
}

/* The control connection cut after each message of a push, in each
 * phase: resumed as well. */
static void test_resume_cut_each_message(void **s)
{
	struct env *e = *s;
	char file[160];

	resume_file(e, file, sizeof(file));
	for (uint32_t n = 1; n <= 6 + OP_MSGS; n++)
		(void)resume_after(e, &(struct scenario){
			.chunk = RESUME_CHUNK, .window = RESUME_WINDOW,
			.cut_after = n, .timeout = 2 }, file);
}

/* --resume with standard input is refused before connecting. */
static void test_resume_stdin_refused(void **s)
{
	struct rp_config o;

	(void)s;
	rp_config_defaults(&o);
	static char dash[] = "-";

	o.sources = (char *[]){ dash };
	o.nsources = 1;
	o.as_name = "x";
	o.resume = true;
	assert_int_equal(rp_session_send_check(&o), RP_EUSAGE);
	o.resume = false;
	assert_int_equal(rp_session_send_check(&o), 0);
}

/* ---------------------------------------------------------------------
 * The control connection dies after each message
 */

/* Cut after 'after' messages; the receiver must stop in one of the two
 * phases (the second where the data may finish before the cut shows). */
static void cut(void **s, uint32_t after, bool psk, enum rp_phase phase,
		enum rp_phase or_phase)
{
	struct result r;
	enum rp_phase got;

	push_fails(s, &(struct scenario){ .size = 300 * KIB, .psk_send = psk,
		   .psk_recv = psk, .cut_after = after }, &r);
	assert_int_equal(r.msgs, after);
	got = r.recv_out.phase;
	assert_true(got == phase || got == or_phase);
}

static void test_cut_after_first_auth(void **s)
{
	cut(s, 1, true, RP_PHASE_AUTH, RP_PHASE_AUTH);
}

static void test_cut_after_auth(void **s)
{
	cut(s, 3, true, RP_PHASE_HELLO, RP_PHASE_HELLO);
}

static void test_cut_after_hello(void **s)
{
	/* Its MR may still fit in the socket before the cut shows. */
	cut(s, 1, false, RP_PHASE_SETUP, RP_PHASE_DATA);
}

static void test_cut_after_mr(void **s)
{
	/* --op read: the receiver still waits for the sender's MR. */
	if (test_op == RP_OP_READ)
		cut(s, 2, false, RP_PHASE_SETUP, RP_PHASE_SETUP);
	cut(s, 2 + OP_MSGS, false, RP_PHASE_DATA, RP_PHASE_FIN);
}

/*
 * The receiver has committed (at FEND), answered FACK and taken the FIN,
 * then its ACK never arrives: the file stands (complete, verified), the
 * receiver is done, and the sender must fail without its ACK.
 */
static void test_cut_after_fin(void **s)
{
	struct env *e = *s;
	char file[160];
	struct result r;

	push(e, &(struct scenario){ .size = 300 * KIB,
				    .cut_at = RP_MSG_ACK }, &r);
	/* HELLO, MR, FILE, FEND, FACK, FIN. */
	assert_int_equal(r.msgs, 6 + OP_MSGS + r.syncs);
	assert_int_equal(r.send_rc, RP_ECTRLCLOSED);
	assert_int_equal(r.send_out.phase, RP_PHASE_FIN);
	assert_int_equal(r.recv_rc, 0);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DONE);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_delivered(e, file, "data.bin");
}

/* ---------------------------------------------------------------------
 * The disk after FIN: SYNC, the directory fsync, --max-size
 */

/*
 * A file whose sync takes longer than 0.25 s: SYNCs before its FACK (the
 * first wait for the disk alone is 0.3 s). A fast file sends none.
 */
static void test_sync_seen(void **s)
{
	struct env *e = *s;
	char file[160];
	struct result r;

	push(e, &(struct scenario){ .size = 300 * KIB, .sync_ms = 300 }, &r);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.recv_rc, 0);
	assert_true(r.syncs >= 1);
	/* HELLO, MR, FILE, FEND, the SYNCs, FACK, FIN, ACK. */
	assert_int_equal(r.msgs, 7 + OP_MSGS + r.syncs);
	assert_delivered(e, file, "data.bin");
}

/*
 * The receiver's final sync takes longer than --timeout (1 s): 32 MiB,
 * all still unsynced at FIN, in 8 MiB steps of 0.3 s each and a 0.3 s
 * fsync. SYNC keeps the sender waiting, and it succeeds. (Without SYNC,
 * the sender times out: checked by hand.)
 */
static void test_slow_disk_no_false_timeout(void **s)
{
	struct env *e = *s;
	char file[160];
	struct result r;
	double t0 = rp_now();

	push(e, &(struct scenario){ .size = 32 * MIB, .chunk = 1 * MIB,
				    .timeout = 1, .sync_ms = 300 }, &r);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.recv_rc, 0);
	assert_true(rp_now() - t0 > 1.4);
	assert_true(r.syncs >= 3);
	assert_delivered(e, file, "data.bin");
}

/*
 * The directory fsync fails after a --force rename: the new file stays
 * in place (deleting it would lose both versions), the receiver fails
 * with an I/O error and the sender hears it.
 */
static void test_dir_fsync_fails_keeps_file(void **s)
{
	struct env *e = *s;
	char path[160], file[160];
	struct result r;

	snprintf(path, sizeof(path), "%s/data.bin", e->dst);
	make_file(path, 1000, 1);
	push(e, &(struct scenario){ .size = 70 * KIB, .force = true,
				    .dir_fsync_fails = true }, &r);
	assert_int_equal(r.recv_rc, -EIO);
	assert_int_equal(r.send_rc, RP_EPEERIO);
	assert_int_equal(r.send_out.phase, RP_PHASE_FIN);
	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	assert_delivered(e, file, "data.bin");
}

static void test_max_size_refused(void **s)
{
	char line[1024];
	const char *err;
	struct result r;

	/* A failed entry: the session itself completes. */
	capture_begin(*s);
	push_fails(s, &(struct scenario){ .size = 2 * MIB + 1,
					  .max_size = 2 * MIB }, &r);
	err = capture_done(*s);
	assert_int_equal(r.recv_rc, RP_ELIMIT);
	assert_int_equal(r.send_rc, RP_ELIMIT);
	assert_int_equal(r.send_exit, RP_EXIT_POLICY);
	assert_int_equal(r.send_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DONE);
	assert_int_equal(r.send_out.failed, 1);
	/* The sender hears the receiver's limit and the size it refused. */
	line_with(err, "test-receiver refused it: ", line, sizeof(line));
	assert_non_null(strstr(line, "a file of 2097153 bytes"));
	assert_non_null(strstr(line, "--max-size of 2097152 bytes"));
}

/* Whatever a receiver says in a FACK or ERR, the sender shows it on
 * its one line, escaped: no terminal control, no line of its own. */
static void evil_text(void **s, struct scenario *sc, const char *marker)
{
	char line[1024];
	const char *err;
	struct result r;

	sc->tamper = TAMPER_EVIL_TEXT;
	capture_begin(*s);
	push_fails(s, sc, &r);
	err = capture_done(*s);
	line_with(err, marker, line, sizeof(line));
	assert_non_null(strstr(line, "owned"));
	assert_non_null(strstr(line, "rdmapush send: all done"));
	assert_null(strchr(err, '\x1b'));
	assert_null(strchr(err, '\a'));
	assert_null(strchr(err, '\r'));
	assert_null(strstr(err, "\nrdmapush send: all done"));
}

static void test_peer_text_escaped_fack(void **s)
{
	evil_text(s, &(struct scenario){ .size = 2 * MIB + 1,
					 .max_size = 2 * MIB },
		  "test-receiver refused it: ");
}

static void test_peer_text_escaped_err(void **s)
{
	evil_text(s, &(struct scenario){ .size = 10 * KIB, .psk_send = true },
		  "test-receiver refused or aborted");
}

/* A sender trickling 4 KiB per 20 ms (200 KiB/s at most) under a
 * floor of 1 MiB/s, judged over half a second: ended, and it hears
 * why, with the floor. */
static void test_min_rate_trickle(void **s)
{
	char line[1024];
	const char *err;
	struct result r;

	capture_begin(*s);
	push_fails(s, &(struct scenario){ .size = 1 * MIB, .chunk = 4 * KIB,
					  .min_rate = 1 * MIB,
					  .min_rate_secs = 0.5,
					  .trickle_ms = 20 }, &r);
	err = capture_done(*s);
	assert_int_equal(r.recv_rc, RP_ELIMIT);
	assert_int_equal(r.send_rc, RP_ELIMIT);
	assert_int_equal(r.send_exit, RP_EXIT_POLICY);
	assert_int_equal(r.recv_out.phase, RP_PHASE_DATA);
	line_with(err, "test-receiver refused or aborted", line,
		  sizeof(line));
	assert_non_null(strstr(line, "below --min-rate 1024.0 KiB/s"));
}

/* The same floor, judged every 0.2 s of waiting, with the sender slowed
 * to 64 KiB per 2 ms (16 MiB/s or so): several spans judged, none
 * ended. */
static void test_min_rate_normal(void **s)
{
	push_ok(s, &(struct scenario){ .size = 8 * MIB, .min_rate = 1 * MIB,
				       .min_rate_secs = 0.2,
				       .trickle_ms = 2 });
}

/* A sender slow with its FEND: waiting for a message is waiting on it
 * too, so it is ended as well (once its file, whole, is stored). */
static void test_min_rate_slow_message(void **s)
{
	struct result r;

	push(*s, &(struct scenario){ .size = 64 * KIB, .min_rate = 1 * MIB,
				     .min_rate_secs = 0.2, .fend_ms = 600 },
	     &r);
	assert_int_equal(r.recv_rc, RP_ELIMIT);
	assert_int_equal(r.send_rc, RP_ELIMIT);
}

/* A receiver whose disk takes 200 ms a sync is slower than the floor,
 * but that time is not the sender's: never ended. */
static void test_min_rate_slow_disk(void **s)
{
	push_ok(s, &(struct scenario){ .size = 256 * KIB, .sync_ms = 200,
				       .min_rate = 1 * MIB,
				       .min_rate_secs = 0.2 });
}

static void test_max_size_exact(void **s)
{
	push_ok(s, &(struct scenario){ .size = 2 * MIB, .max_size = 2 * MIB });
}

/* ---------------------------------------------------------------------
 * Admission: a slot is asked for only after the handshake, before
 * anything is opened; the handshake has its own short deadline
 */

/* Refused a slot after AUTH and HELLO: the sender hears "busy" (exit 3),
 * and the receiver had opened nothing when it asked. */
static void test_busy_after_handshake(void **s)
{
	struct result r;

	push_fails(s, &(struct scenario){ .size = 100 * KIB, .psk_send = true,
					  .psk_recv = true, .busy = true }, &r);
	assert_int_equal(r.admit_calls, 1);
	/* The sender's context (its HELLO carries its QP), not ours. */
	assert_int_equal(r.admit_open, 1);
	assert_int_equal(r.send_rc, RP_EBUSY);
	assert_int_equal(rp_err_exit_code(r.send_rc), 3);
	assert_int_equal(r.send_out.phase, RP_PHASE_HELLO);
	assert_int_equal(r.recv_rc, RP_EBUSY);
	assert_int_equal(r.recv_out.phase, RP_PHASE_HELLO);
}

/* A connection that says nothing, or starts AUTH and stalls, is closed
 * handshake_s after it was accepted, whatever --timeout says; a message
 * on the way does not restart the clock. */
static void silent_peer(struct env *e, int timeout, bool psk, double delay,
			double want_s)
{
	struct rp_config o;
	uint8_t key[RP_PSK_LEN], buf[RP_PROTO_MAX_MSG];
	struct rp_auth chal = { .step = RP_AUTH_CHALLENGE };
	struct rp_outcome out;
	int sp[2], rc, n;
	double t0 = rp_now(), took;
	pid_t kid;

	opts_for(&o, e, &(struct scenario){ .timeout = timeout }, false, NULL);
	assert_int_equal(rp_auth_load(e->key_a, key), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	n = rp_proto_pack_auth(buf, sizeof(buf), &chal);
	assert_true(n > 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		close(sp[0]);
		usleep((useconds_t)(delay * 1e6));
		if (psk)
			(void)!write(sp[1], buf, (size_t)n);
		sleep(30);
		_exit(0);
	}
	close(sp[1]);
	rc = rp_session_recv_one(&o, psk ? key : NULL, e->dirfd, sp[0],
				 "silent", NULL, &out);
	took = rp_now() - t0;
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	assert_int_equal(rc, RP_ETIMEOUT);
	assert_int_equal(out.phase, psk ? RP_PHASE_AUTH : RP_PHASE_HELLO);
	assert_true(took > want_s - 0.3);
	assert_true(took < want_s + 0.8);
	assert_nothing(e);
	assert_released(e);
}

static void test_handshake_deadline(void **s)
{
	/* RP_HANDSHAKE_SECS, not --timeout 60. */
	silent_peer(*s, 60, false, 0, RP_HANDSHAKE_SECS);
}

static void test_handshake_deadline_not_reset(void **s)
{
	/* --timeout 2 is shorter: 2 s from accept, though AUTH came at 1.5 s. */
	silent_peer(*s, 2, true, 1.5, 2.0);
}

/* ---------------------------------------------------------------------
 * Many entries in one session
 */

#define MAX_SRC 8

/* Sources for a scenario: paths under e->src, in argv order. */
struct srcs {
	char path[MAX_SRC][200];
	char *argv[MAX_SRC];
	int n;
};

static void srcs_add(struct srcs *s, const struct env *e, const char *name)
{
	assert_true(s->n < MAX_SRC);
	snprintf(s->path[s->n], sizeof(s->path[0]), "%s/%s", e->src, name);
	s->argv[s->n] = s->path[s->n];
	s->n++;
}

/* src/name made with size bytes and added to the sources. */
static void srcs_file(struct srcs *s, const struct env *e, const char *name,
		      uint64_t size)
{
	srcs_add(s, e, name);
	make_file(s->path[s->n - 1], size, (uint8_t)s->n);
}

/* Run sc with these sources. */
static void push_srcs_keep(struct env *e, struct scenario *sc,
			   struct srcs *s, struct result *r)
{
	sc->sources = s->argv;
	sc->nsources = s->n;
	run(e, sc, r, NULL);
}

/* The same; everything released after. */
static void push_srcs(struct env *e, struct scenario *sc, struct srcs *s,
		      struct result *r)
{
	push_srcs_keep(e, sc, s, r);
	assert_released(e);
}

/* dst/name is there and identical to src/name. */
static void assert_arrived(const struct env *e, const char *name)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s/%s", e->src, name);
	snprintf(b, sizeof(b), "%s/%s", e->dst, name);
	assert_true(same_file(a, b));
}

static void assert_absent(const char *dir, const char *name)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(lstat(p, &st), -1);
	assert_int_equal(errno, ENOENT);
}

/* A session that went well for the receiver, with failed entries. */
static void assert_session_done(const struct result *r, uint64_t failed)
{
	assert_int_equal(r->send_out.phase, RP_PHASE_DONE);
	assert_int_equal(r->recv_out.phase, RP_PHASE_DONE);
	assert_int_equal(r->send_out.failed, failed);
	if (!failed) {
		assert_int_equal(r->send_rc, 0);
		assert_int_equal(r->recv_rc, 0);
	}
}

/* One HELLO and MR, FILE FEND FACK per file, one FIN and ACK; one
 * fabric context per side for the whole session. */
static void test_three_files_one_session(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;

	srcs_file(&src, e, "a", 1000);
	srcs_file(&src, e, "b", 200 * KIB);
	srcs_file(&src, e, "c", 0);
	push_srcs(e, &(struct scenario){ 0 }, &src, &r);
	assert_session_done(&r, 0);
	assert_int_equal(r.types[RP_MSG_HELLO], 1);
	assert_int_equal(r.types[RP_MSG_MR], 1 + OP_MSGS);
	assert_int_equal(r.types[RP_MSG_FILE], 3);
	assert_int_equal(r.types[RP_MSG_FEND], 3);
	assert_int_equal(r.types[RP_MSG_FACK], 3);
	assert_int_equal(r.types[RP_MSG_FIN], 1);
	assert_int_equal(r.types[RP_MSG_ACK], 1);
	assert_int_equal(r.types[RP_MSG_ERR], 0);
	assert_int_equal(r.msgs, 13 + OP_MSGS + r.syncs);
	assert_int_equal(r.opened, 2);
	assert_int_equal(r.admit_calls, 1);
	assert_arrived(e, "a");
	assert_arrived(e, "b");
	assert_arrived(e, "c");
	assert_int_equal(list_dir(e->dst, (char[300]){ 0 }, 300), 3);
}

/* ---- a tree with -r ---- */

/* How the receiver's modes and times must come out. */
struct expect {
	mode_t umask;
	bool preserve, keep_setid, preserve_modes;
};

/* The sender's bits exactly only when it asks (-k) and the receiver
 * allows it (--preserve-modes); setid bits only with -k and
 * --keep-setid; else the umask, and no world-writable directory without
 * the sticky bit. */
static mode_t want_mode(const struct expect *x, mode_t src, bool dir)
{
	bool exact = x->preserve && x->preserve_modes;
	mode_t m = src & (x->preserve && x->keep_setid ? 07777 : 0777);

	if (exact)
		return m;
	m &= ~x->umask;
	if (dir && (m & 0002) && !(m & 01000))
		m &= ~(mode_t)0002;
	return m;
}

static void cmp_entry(const struct expect *x, const char *a, const char *b,
		      int *n);

/* Every entry of source dir a, as it must be in b; *n counts them. */
static void cmp_tree(const struct expect *x, const char *a, const char *b,
		     int *n)
{
	DIR *d = opendir(a);
	struct dirent *de;
	char pa[1024], pb[1024];

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(pa, sizeof(pa), "%s/%s", a, de->d_name);
		snprintf(pb, sizeof(pb), "%s/%s", b, de->d_name);
		cmp_entry(x, pa, pb, n);
	}
	closedir(d);
}

static void cmp_entry(const struct expect *x, const char *a, const char *b,
		      int *n)
{
	struct stat sa, sb;

	assert_int_equal(lstat(a, &sa), 0);
	if (!S_ISREG(sa.st_mode) && !S_ISDIR(sa.st_mode)) {
		/* Symlinks and FIFOs are skipped: not there. */
		assert_int_equal(lstat(b, &sb), -1);
		return;
	}
	assert_int_equal(lstat(b, &sb), 0);
	assert_int_equal(sa.st_mode & S_IFMT, sb.st_mode & S_IFMT);
	assert_int_equal(want_mode(x, sa.st_mode & 07777,
				   S_ISDIR(sa.st_mode)), sb.st_mode & 07777);
	if (S_ISREG(sa.st_mode)) {
		assert_int_equal(sa.st_size, sb.st_size);
		assert_true(same_file(a, b));
	} else {
		cmp_tree(x, a, b, n);
	}
	if (x->preserve) {
		assert_int_equal(sa.st_mtim.tv_sec, sb.st_mtim.tv_sec);
		assert_int_equal(sa.st_mtim.tv_nsec, sb.st_mtim.tv_nsec);
	}
	(*n)++;
}

/* Entries under dir, recursively. */
static int count_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[1024];
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR)
			n += count_tree(p);
	}
	closedir(d);
	return n;
}

static void mkdir_mode(const char *path, mode_t mode)
{
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* ~60 files in 3 levels below src/tree, with an empty dir, a symlink to
 * outside and a FIFO; distinct modes and (after) mtimes. */
static void make_tree(const struct env *e, uint32_t chunk)
{
	static const char *const dirs[] = { "tree", "tree/l1", "tree/l1/l2",
		"tree/l1/l2/l3" };
	static const mode_t fmodes[] = { 0600, 0755, 0644, 04755, 0640 };
	const uint64_t sizes[] = { 0, 1, chunk - 1, chunk, chunk + 1,
				   3ull * chunk + 5 };
	char p[512];

	for (int i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/%s", e->src, dirs[i]);
		mkdir_mode(p, i == 2 ? 0750 : 0755);
	}
	snprintf(p, sizeof(p), "%s/tree/empty", e->src);
	mkdir_mode(p, 0700);
	/* World-writable, without and with the sticky bit. */
	snprintf(p, sizeof(p), "%s/tree/open", e->src);
	mkdir_mode(p, 0777);
	snprintf(p, sizeof(p), "%s/tree/sticky", e->src);
	mkdir_mode(p, 01777);
	for (int i = 0; i < 60; i++) {
		snprintf(p, sizeof(p), "%s/%s/%s%02d", e->src, dirs[i % 4],
			 i % 3 == 0 ? "with space " : i % 3 == 1 ?
			 "\xc3\xbcn\xc3\xaf \xe2\x9c\x93 " : "f", i);
		make_file(p, sizes[i % 6], (uint8_t)i);
		assert_int_equal(chmod(p, fmodes[i % 5]), 0);
		set_mtime(p, 1600000000 + i, 1000 * i + 7);
	}
	snprintf(p, sizeof(p), "%s/tree/l1/outside", e->src);
	assert_int_equal(symlink(e->root, p), 0);
	snprintf(p, sizeof(p), "%s/tree/fifo", e->src);
	assert_int_equal(mkfifo(p, 0644), 0);
	/* Deepest first: a directory's mtime moves with its entries. */
	for (int i = 3; i >= 0; i--) {
		snprintf(p, sizeof(p), "%s/%s", e->src, dirs[i]);
		set_mtime(p, 1500000000 + i, 999999999 - i);
	}
	snprintf(p, sizeof(p), "%s/tree/empty", e->src);
	set_mtime(p, 1400000000, 5);
	snprintf(p, sizeof(p), "%s/tree", e->src);
	set_mtime(p, 1500000000, 999999999);
}

/* Push src/tree with -r under umask um; compare the whole tree. */
static void tree_case(void **s, mode_t um, bool preserve, bool keep_setid,
		      bool preserve_modes)
{
	struct env *e = *s;
	struct expect x = { .umask = um, .preserve = preserve,
			    .keep_setid = keep_setid,
			    .preserve_modes = preserve_modes };
	struct srcs src = { 0 };
	char a[200], b[200];
	struct result r;
	mode_t old;
	int n = 0;

	make_tree(e, 64 * KIB);
	srcs_add(&src, e, "tree");
	old = umask(um);
	push_srcs(e, &(struct scenario){ .recursive = true,
		  .preserve = preserve, .keep_setid = keep_setid,
		  .preserve_modes = preserve_modes }, &src, &r);
	umask(old);
	assert_session_done(&r, 0);
	snprintf(a, sizeof(a), "%s/tree", e->src);
	snprintf(b, sizeof(b), "%s/tree", e->dst);
	cmp_entry(&x, a, b, &n);
	/* 7 directories and 60 files; nothing else on the receiver. */
	assert_int_equal(n, 67);
	assert_int_equal(count_tree(e->dst), 67);
}

static void test_tree_umask_022(void **s)
{
	tree_case(s, 022, false, false, false);
}

static void test_tree_umask_027(void **s)
{
	tree_case(s, 027, false, false, false);
}

/* umask 0: the 0777 directory still loses its world write bit. */
static void test_tree_umask_0(void **s)
{
	tree_case(s, 0, false, false, false);
}

/* --keep-setid without the sender's -k keeps no setid bit. */
static void test_tree_keep_setid_without_k(void **s)
{
	tree_case(s, 0, false, true, false);
}

/* -k without --preserve-modes: mtimes kept, modes masked by the umask. */
static void test_tree_preserve_umask(void **s)
{
	tree_case(s, 022, true, false, false);
}

/* ---- --update ---- */

#define UPD_DIRS	10
#define UPD_FILES	20	/* per directory: 200 in all */
#define UPD_A		3	/* same size and mtime, other bytes */
#define UPD_B		77	/* another size */
#define UPD_C		150	/* same size, other bytes and mtime */

static uint64_t upd_size(int i)
{
	return 1000 + 37u * (uint64_t)i + (i == UPD_B ? 1 : 0);
}

/* src/upd: 200 files in 10 directories, each with its own bytes, size
 * and mtime; changed: files A, B and C changed as their names say. */
static void make_upd_tree(const struct env *e, bool changed)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/upd", e->src);
	rm_tree(p);
	mkdir_mode(p, 0755);
	for (int d = 0; d < UPD_DIRS; d++) {
		snprintf(p, sizeof(p), "%s/upd/d%d", e->src, d);
		mkdir_mode(p, 0755);
	}
	for (int i = 0; i < UPD_DIRS * UPD_FILES; i++) {
		bool other = changed && (i == UPD_A || i == UPD_C);

		snprintf(p, sizeof(p), "%s/upd/d%d/f%03d", e->src,
			 i / UPD_FILES, i);
		make_file(p, changed || i != UPD_B ? upd_size(i) :
			  upd_size(i) - 1, (uint8_t)(i + (other ? 100 : 0)));
		set_mtime(p, 1600000000 + i,
			  changed && i == UPD_C ? 999 : 1000);
	}
}

/* Each --update level, from the same start (the tree pushed with -k,
 * then A, B and C changed): the number of files it sends and their
 * bytes; the others are up to date, and the tree matches after. */
static void update_case(void **s, uint8_t level, int sent, uint64_t bytes)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;
	char p[512];

	snprintf(p, sizeof(p), "%s/upd", e->dst);
	rm_tree(p);
	make_upd_tree(e, false);
	srcs_add(&src, e, "upd");
	push_srcs(e, &(struct scenario){ .recursive = true, .preserve = true },
		  &src, &r);
	assert_session_done(&r, 0);
	make_upd_tree(e, true);
	push_srcs(e, &(struct scenario){ .recursive = true, .preserve = true,
		  .update = level }, &src, &r);
	assert_session_done(&r, 0);
	assert_int_equal(r.up_to_date, UPD_DIRS * UPD_FILES - sent);
	assert_int_equal(r.files, 1 + UPD_DIRS + sent);
	assert_int_equal(r.data_bytes, bytes);
	if (level == RP_UPDATE_CHECKSUM)
		assert_int_equal(count_tree(e->dst), 1 + UPD_DIRS +
				 UPD_DIRS * UPD_FILES);
	for (int i = 0; i < UPD_DIRS * UPD_FILES; i++) {
		char name[64];

		snprintf(name, sizeof(name), "upd/d%d/f%03d", i / UPD_FILES, i);
		if (level == RP_UPDATE_CHECKSUM ||
		    (i != UPD_A && i != UPD_B && i != UPD_C))
			assert_arrived(e, name);
	}
}

static void test_update_exists(void **s)
{
	update_case(s, RP_UPDATE_EXISTS, 0, 0);
}

static void test_update_size(void **s)
{
	update_case(s, RP_UPDATE_SIZE, 1, upd_size(UPD_B));
}

static void test_update_mtime(void **s)
{
	update_case(s, RP_UPDATE_MTIME, 2, upd_size(UPD_B) + upd_size(UPD_C));
}

static void test_update_checksum(void **s)
{
	update_case(s, RP_UPDATE_CHECKSUM, 3, upd_size(UPD_A) +
		    upd_size(UPD_B) + upd_size(UPD_C));
}

/*
 * Directories arrive in the directory they are made in, opened once for
 * a run of them and reached from the one above: 12 levels and 40
 * directories at the bottom cost the receiver one openat a level, not a
 * walk down from the top for each (about 500).
 */
static void test_tree_deep_dirs_open_once(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	char p[512];
	struct result r;
	int len;

	len = snprintf(p, sizeof(p), "%s/deep", e->src);
	mkdir_mode(p, 0755);
	for (int i = 0; i < 11; i++) {
		len += snprintf(p + len, sizeof(p) - (size_t)len, "/d%d", i);
		mkdir_mode(p, 0755);
	}
	for (int i = 0; i < 40; i++) {
		snprintf(p + len, sizeof(p) - (size_t)len, "/leaf%02d", i);
		mkdir_mode(p, 0755);
	}
	srcs_add(&src, e, "deep");
	recv_openats = 0;
	push_srcs(e, &(struct scenario){ .recursive = true }, &src, &r);
	assert_session_done(&r, 0);
	assert_int_equal(count_tree(e->dst), 52);
	assert_in_range(recv_openats, 1, 30);
}

/* src/small: n files of about size bytes each, in one directory. */
static void make_small_files(struct env *e, struct srcs *src, int n,
			     uint64_t size)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/small", e->src);
	mkdir_mode(p, 0755);
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/small/f%03d", e->src, i);
		make_file(p, size + (uint64_t)i, (uint8_t)i);
	}
	srcs_add(src, e, "small");
}

/*
 * Small files are made durable together: one syncfs for many, none
 * fsynced alone (that fsync per file, a journal commit each, was what
 * bounded a tree of small files). Each still arrives whole.
 */
static void test_batch_one_sync(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct rp_fab_stats st;
	struct result r;

	make_small_files(e, &src, 100, 4 * KIB);
	/* A slow sync: files arrive while it runs and join the next. */
	/* Synced even where /tmp is a tmpfs. */
	setenv("RDMAPUSH_SYNC_TMPFS", "1", 1);
	push_srcs(e, &(struct scenario){ .recursive = true, .sync_ms = 20 },
		  &src, &r);
	unsetenv("RDMAPUSH_SYNC_TMPFS");
	assert_session_done(&r, 0);
	for (int i = 0; i < 100; i++) {
		char name[64];

		snprintf(name, sizeof(name), "small/f%03d", i);
		assert_arrived(e, name);
	}
	assert_int_equal(file_fsyncs, 0);
	assert_in_range(syncfs_calls, 1, 50);
	/* With --op write the credit is the only Send: given in steps
	 * while the sender's messages wait, not one a file. */
	rp_fab_stats(&st);
	if (test_op == RP_OP_WRITE)
		assert_in_range(st.sends, 1, 60);
}

/*
 * Files of many directories share a batch: leaving a directory while its
 * files wait for their sync does not wait for it (the batch takes the
 * directory along, and fsyncs it once they are named), nor does the next
 * directory's own answer (it waits in the batch for its turn). 40
 * directories of 5 files, each sync 50 ms: it was a sync a directory.
 */
static void test_batch_spans_dirs(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;
	char p[256];

	snprintf(p, sizeof(p), "%s/many", e->src);
	mkdir_mode(p, 0755);
	for (int d = 0; d < 40; d++) {
		snprintf(p, sizeof(p), "%s/many/d%02d", e->src, d);
		mkdir_mode(p, 0755);
		for (int i = 0; i < 5; i++) {
			snprintf(p, sizeof(p), "%s/many/d%02d/f%d", e->src, d,
				 i);
			make_file(p, KIB + (uint64_t)i, (uint8_t)(d + i));
		}
	}
	srcs_add(&src, e, "many");
	setenv("RDMAPUSH_SYNC_TMPFS", "1", 1);
	push_srcs(e, &(struct scenario){ .recursive = true, .sync_ms = 50 },
		  &src, &r);
	unsetenv("RDMAPUSH_SYNC_TMPFS");
	assert_session_done(&r, 0);
	assert_int_equal(count_tree(e->dst), 1 + 40 + 200);
	for (int d = 0; d < 40; d += 7) {
		snprintf(p, sizeof(p), "many/d%02d/f%d", d, d % 5);
		assert_arrived(e, p);
	}
	assert_in_range(syncfs_calls, 1, 20);
	/* Each directory that got names is still fsynced. */
	assert_true(dir_fsyncs >= 41);
}

/*
 * Each small file waiting for its sync holds a descriptor: under a low
 * open-file limit the receiver answers its oldest batch before more wait,
 * where it failed with EMFILE. 600 files, slow syncs, a limit of 400
 * for the whole process (both ends).
 */
static void test_batch_fd_limit(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct rlimit was, low;
	struct result r;

	make_small_files(e, &src, 600, KIB);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	low = (struct rlimit){ .rlim_cur = 400, .rlim_max = was.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	setenv("RDMAPUSH_SYNC_TMPFS", "1", 1);
	push_srcs(e, &(struct scenario){ .recursive = true, .sync_ms = 30,
					 .threads = 2 },
		  &src, &r);
	unsetenv("RDMAPUSH_SYNC_TMPFS");
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	assert_session_done(&r, 0);
	assert_int_equal(count_tree(e->dst), 601);
	for (int i = 0; i < 600; i += 53) {
		char name[64];

		snprintf(name, sizeof(name), "small/f%03d", i);
		assert_arrived(e, name);
	}
}

/*
 * While one batch's sync waits for the disk, the next batch's files
 * keep arriving, and the next full batch starts its own sync: the disk
 * and the network overlap. FACKs still come in order (the sender
 * refuses any other).
 */
static void test_batch_sync_overlaps(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;
	/* More than two full batches: one must fill while one syncs. */
	const int n = 2 * RP_BATCH_FILES + 100;

	make_small_files(e, &src, n, 4 * KIB);
	opens_while_syncing = 0;
	syncfs_most = 0;
	setenv("RDMAPUSH_SYNC_TMPFS", "1", 1);
	push_srcs(e, &(struct scenario){ .recursive = true, .sync_ms = 200,
					 .threads = 2 },
		  &src, &r);
	unsetenv("RDMAPUSH_SYNC_TMPFS");
	assert_session_done(&r, 0);
	assert_int_equal(r.send_out.failed, 0);
	/* The directory and its files, each checked whole. */
	assert_int_equal(count_tree(e->dst), n + 1);
	for (int i = 0; i < n; i += 37) {
		char name[64];

		snprintf(name, sizeof(name), "small/f%03d", i);
		assert_arrived(e, name);
	}
	assert_true(opens_while_syncing >= 1);
	/* A full batch starts its sync while the one before still syncs
	 * (or links): two in flight, on the two workers. */
	assert_int_equal(syncfs_most, 2);
}

/*
 * A name taken by someone else while its batch synced: that file alone
 * fails, with the receiver's own words at the sender (the link runs on
 * the worker that ran the sync, which keeps them for the FACK), and the
 * other's file stays as it was. The rest of the batch arrives.
 */
static void test_batch_name_appears(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	char theirs[256], line[1024];
	const char *err;
	struct stat st;
	struct result r;

	make_small_files(e, &src, 20, 4 * KIB);
	snprintf(theirs, sizeof(theirs), "%s/small/f007", e->dst);
	appear_at_sync = theirs;
	setenv("RDMAPUSH_SYNC_TMPFS", "1", 1);
	capture_begin(e);
	push_srcs(e, &(struct scenario){ .recursive = true }, &src, &r);
	err = capture_done(e);
	unsetenv("RDMAPUSH_SYNC_TMPFS");
	appear_at_sync = NULL;
	assert_int_equal(r.send_out.failed, 1);
	assert_int_not_equal(r.send_rc, 0);
	line_with(err, "test-receiver refused it: ", line, sizeof(line));
	assert_non_null(strstr(line, "small/f007"));
	assert_non_null(strstr(line, "appeared while receiving"));
	assert_int_equal(stat(theirs, &st), 0);
	assert_int_equal(st.st_size, 0);
	for (int i = 0; i < 20; i++) {
		char name[64];

		if (i == 7)
			continue;
		snprintf(name, sizeof(name), "small/f%03d", i);
		assert_arrived(e, name);
	}
}

/*
 * A file arriving in a directory the receiver made in this session has
 * no name to look for first: nothing there predates the session. That
 * look, one per file, searched the directory's whole index. (A file in
 * a directory that was there is still looked for, and refused at once
 * if it exists: test_refusal_names_whole_path.)
 */
static void test_tree_made_dir_no_lookup(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;

	make_small_files(e, &src, 40, 4 * KIB);
	recv_misses = 0;
	push_srcs(e, &(struct scenario){ .recursive = true }, &src, &r);
	assert_session_done(&r, 0);
	for (int i = 0; i < 40; i++) {
		char name[64];

		snprintf(name, sizeof(name), "small/f%03d", i);
		assert_arrived(e, name);
	}
	assert_in_range(recv_misses, 0, 2);
}

/*
 * The batch's sync fails: no file of it may get its name (a name is
 * given only to data on disk), each is reported failed to the sender,
 * and the push fails.
 */
static void test_batch_sync_fails(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;

	make_small_files(e, &src, 20, 4 * KIB);
	/* Synced even where /tmp is a tmpfs. */
	setenv("RDMAPUSH_SYNC_TMPFS", "1", 1);
	push_srcs(e, &(struct scenario){ .recursive = true,
					 .syncfs_fails = true }, &src, &r);
	unsetenv("RDMAPUSH_SYNC_TMPFS");
	assert_int_equal(r.send_out.failed, 20);
	assert_int_not_equal(r.send_rc, 0);
	assert_int_not_equal(r.recv_rc, 0);
	/* The directory only. */
	assert_int_equal(count_tree(e->dst), 1);
	assert_true(syncfs_calls >= 1);
}

/*
 * A batch's sync that takes longer than the sender's --timeout (1 s)
 * does not time it out: SYNC keeps telling it the receiver is alive.
 */
static void test_batch_slow_sync_no_false_timeout(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;

	make_small_files(e, &src, 10, 64 * KIB);
	/* Synced even where /tmp is a tmpfs. */
	setenv("RDMAPUSH_SYNC_TMPFS", "1", 1);
	push_srcs(e, &(struct scenario){ .recursive = true, .timeout = 1,
					 .sync_ms = 1300 }, &src, &r);
	unsetenv("RDMAPUSH_SYNC_TMPFS");
	assert_session_done(&r, 0);
	assert_true(r.syncs >= 1);
	assert_int_equal(count_tree(e->dst), 11);
}

static void test_tree_preserve(void **s)
{
	tree_case(s, 022, true, false, true);
}

static void test_tree_preserve_keep_setid(void **s)
{
	tree_case(s, 022, true, true, true);
}

/* -k, --keep-setid, no --preserve-modes, umask 0: the setid and sticky
 * bits stay, the world write bit of a directory without sticky goes. */
static void test_tree_keep_setid_umask_0(void **s)
{
	tree_case(s, 0, true, true, false);
}

/* ---- standard input ---- */

struct feeder {
	int fd;			/* the pipe's write end */
	const char *file;	/* what to write into it */
	pthread_t thr;
};

static void *feed_main(void *arg)
{
	struct feeder *f = arg;
	uint8_t buf[16 * KIB];
	int in = open(f->file, O_RDONLY);
	ssize_t n;

	while (in >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(f->fd, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	close(f->fd);
	return NULL;
}

/* "-" --as stdin.bin: size bytes through a pipe on fd 0. */
static void stdin_case(void **s, uint64_t size)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct feeder f;
	struct result r;
	char ref[200], got[200];
	int p[2], saved = dup(0);

	assert_true(saved >= 0);
	snprintf(ref, sizeof(ref), "%s/ref", e->src);
	make_file(ref, size, 9);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	f = (struct feeder){ .fd = p[1], .file = ref };
	assert_int_equal(pthread_create(&f.thr, NULL, feed_main, &f), 0);
	src.argv[0] = (char *)"-";
	src.n = 1;
	push_srcs_keep(e, &(struct scenario){ .as_name = "stdin.bin" }, &src,
		       &r);
	assert_int_equal(pthread_join(f.thr, NULL), 0);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	assert_released(e);
	assert_session_done(&r, 0);
	snprintf(got, sizeof(got), "%s/stdin.bin", e->dst);
	assert_true(same_file(ref, got));
	assert_int_equal(list_dir(e->dst, (char[300]){ 0 }, 300), 1);
}

/* A stream has no size up front: the receiver refuses it once it
 * passes --max-size, and the sender hears where. 60 KiB: all of it fits
 * in the pipe, so the feeder ends whatever the sender still reads. */
static void test_stdin_max_size(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	char ref[200], line[1024];
	const char *err;
	struct feeder f;
	struct result r;
	int p[2], saved = dup(0);

	assert_true(saved >= 0);
	capture_begin(e);	/* first: the feeder closes its end any time */
	snprintf(ref, sizeof(ref), "%s/ref", e->src);
	make_file(ref, 60 * KIB, 9);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	f = (struct feeder){ .fd = p[1], .file = ref };
	assert_int_equal(pthread_create(&f.thr, NULL, feed_main, &f), 0);
	src.argv[0] = (char *)"-";
	src.n = 1;
	push_srcs_keep(e, &(struct scenario){ .as_name = "stdin.bin",
					      .max_size = 10 * KIB },
		       &src, &r);
	assert_int_equal(pthread_join(f.thr, NULL), 0);
	err = capture_done(e);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	assert_released(e);
	assert_session_done(&r, 1);
	assert_int_equal(r.send_rc, RP_ELIMIT);
	line_with(err, "test-receiver refused it: ", line, sizeof(line));
	assert_non_null(strstr(line, "passes this receiver's --max-size of "
				     "10240 bytes at 61440 bytes"));
	assert_nothing(e);
}

static void test_stdin_odd(void **s)
{
	stdin_case(s, 3 * 64 * KIB + 17);
}

static void test_stdin_whole_chunks(void **s)
{
	stdin_case(s, 2 * 64 * KIB);
}

static void test_stdin_empty(void **s)
{
	stdin_case(s, 0);
}

/* ---- entries that fail alone ---- */

/*
 * The receiver's disk fills up in the middle of the second file: that
 * file fails (ENOSPC, "not enough free space" to the sender, exit 6) and
 * is not left behind; the first and third arrive whole.
 */
static void enospc_one_file(void **s, uint32_t threads)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;

	srcs_file(&src, e, "a", 20 * KIB);
	srcs_file(&src, e, "big", 300 * KIB);
	srcs_file(&src, e, "c", 20 * KIB);
	push_srcs(e, &(struct scenario){ .nospc_past = 100 * KIB,
					 .threads = threads }, &src, &r);
	assert_session_done(&r, 1);
	assert_int_equal(r.send_rc, RP_ENOSPACE);
	assert_int_equal(r.send_exit, RP_EXIT_POLICY);
	assert_int_equal(r.recv_rc, -ENOSPC);
	assert_int_equal(r.recv_out.failed, 1);
	assert_arrived(e, "a");
	assert_arrived(e, "c");
	assert_int_equal(list_dir(e->dst, (char[300]){ 0 }, 300), 2);
}

static void test_enospc_one_file(void **s)
{
	enospc_one_file(s, 0);
}

/* Several workers' writes of one file fail at once: reported once, the
 * file dropped, the session goes on. */
static void test_enospc_many_threads(void **s)
{
	enospc_one_file(s, 5);
}

/*
 * A hostile party rewrites the path of the second FILE (no --psk, so
 * untagged): that entry fails, nothing appears outside the receiver's
 * directory, and the other two arrive.
 */
static void hostile_path(void **s, const char *path, bool plant_link,
			 int want_rc)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	char out[200], link[200], evil[300];
	struct result r;

	snprintf(out, sizeof(out), "%s/out", e->root);
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(link, sizeof(link), "%s/link", e->dst);
	if (plant_link)
		assert_int_equal(symlink(out, link), 0);
	/* "@" stands for the outside directory's absolute path. */
	snprintf(evil, sizeof(evil), "%s%s", path[0] == '@' ? out : "",
		 path + (path[0] == '@'));
	srcs_file(&src, e, "a", 5000);
	srcs_file(&src, e, "b", 70 * KIB);
	srcs_file(&src, e, "c", 0);
	push_srcs(e, &(struct scenario){ .evil_path = evil, .evil_id = 1 },
		  &src, &r);
	assert_session_done(&r, 1);
	assert_int_equal(r.send_rc, want_rc);
	assert_int_equal(r.recv_out.failed, 1);
	assert_int_equal(list_dir(out, (char[300]){ 0 }, 300), 0);
	/* src, dst, key-a, key-b, out: nothing beside the receiver's dir. */
	assert_int_equal(list_dir(e->root, (char[300]){ 0 }, 300), 5);
	assert_arrived(e, "a");
	assert_arrived(e, "c");
	assert_absent(e->dst, "b");
	assert_int_equal(list_dir(e->dst, (char[300]){ 0 }, 300),
			 plant_link ? 3 : 2);
}

static void test_hostile_dotdot(void **s)
{
	hostile_path(s, "../x", false, RP_EBADNAME);
}

static void test_hostile_absolute(void **s)
{
	hostile_path(s, "@/x", false, RP_EBADNAME);
}

static void test_hostile_inner_dotdot(void **s)
{
	hostile_path(s, "a/../../b", false, RP_EBADNAME);
}

/* Refused at openat(O_NOFOLLOW) with ELOOP: a path through a symbolic
 * link is not allowed, a refusal by policy (exit 6), not an I/O error. */
static void test_hostile_through_symlink(void **s)
{
	hostile_path(s, "link/x", true, RP_EBADNAME);
}

/* A source missing among good ones: counted failed, the rest arrive,
 * the sender's exit status says so. */
static void test_missing_source(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	struct result r;

	srcs_file(&src, e, "a", 3000);
	srcs_add(&src, e, "missing");
	srcs_file(&src, e, "c", 64 * KIB + 1);
	push_srcs(e, &(struct scenario){ 0 }, &src, &r);
	assert_session_done(&r, 1);
	assert_int_equal(r.send_rc, -ENOENT);
	assert_int_not_equal(r.send_exit, 0);
	assert_int_equal(r.recv_rc, 0);
	assert_int_equal(r.types[RP_MSG_FILE], 2);
	assert_arrived(e, "a");
	assert_arrived(e, "c");
	assert_int_equal(list_dir(e->dst, (char[300]){ 0 }, 300), 2);
}

/* A tree pushed --as the name of a file there: the file stays, and the
 * sender hears that a file is never replaced by a directory. */
static void test_file_in_the_way_of_tree(void **s)
{
	struct env *e = *s;
	char path[200], line[1024];
	struct srcs src = { 0 };
	const char *err;
	struct result r;
	struct stat st;

	snprintf(path, sizeof(path), "%s/tree", e->src);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tree/a", e->src);
	make_file(path, 1000, 3);
	snprintf(path, sizeof(path), "%s/notes.txt", e->dst);
	make_file(path, 10, 4);
	srcs_add(&src, e, "tree");
	capture_begin(*s);
	push_srcs(e, &(struct scenario){ .recursive = true, .force = true,
					 .as_name = "notes.txt" }, &src, &r);
	err = capture_done(*s);
	assert_int_equal(r.send_rc, RP_EBADNAME);
	assert_int_equal(r.send_exit, RP_EXIT_POLICY);
	line_with(err, "test-receiver refused it: ", line, sizeof(line));
	assert_non_null(strstr(line, "notes.txt: test-receiver refused it: a "
				     "regular file is in the way"));
	assert_non_null(strstr(line, "never replaced by a directory"));
	assert_null(strstr(line, "use --force"));
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 10);
}

/* A refusal deep in a tree names the entry by its path in the target,
 * on both sides, not by its last component. */
static void test_refusal_names_whole_path(void **s)
{
	struct env *e = *s;
	char path[200], line[1024];
	struct srcs src = { 0 };
	const char *err;
	struct result r;

	snprintf(path, sizeof(path), "%s/tree", e->src);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tree/sub", e->src);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tree/sub/b.bin", e->src);
	make_file(path, 1000, 5);
	snprintf(path, sizeof(path), "%s/tree", e->dst);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tree/sub", e->dst);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tree/sub/b.bin", e->dst);
	make_file(path, 10, 6);
	srcs_add(&src, e, "tree");
	capture_begin(*s);
	push_srcs(e, &(struct scenario){ .recursive = true }, &src, &r);
	err = capture_done(*s);
	assert_int_equal(r.send_rc, RP_EEXIST);
	assert_int_equal(r.send_out.failed, 1);
	/* The receiver's own line, and the sender's: there the path its
	 * reason begins with is the one it sent, so it is said once. */
	line_with(err, "error: tree/sub/b.bin: file exists", line,
		  sizeof(line));
	line_with(err, "test-receiver refused it: ", line, sizeof(line));
	assert_non_null(strstr(line, "tree/sub/b.bin: test-receiver refused "
				     "it: file exists"));
}

/* ---- --qps: chunks completing out of the session's order ---- */

/* RP_FAB_CROSS_QP's hold: long enough for the next chunk to come. */
#define CROSS_HOLD_MS	20

/* Completions the receiver's fabric returned ahead of another QP's. */
static uint64_t stats_crossed(void)
{
	struct rp_fab_stats st;

	rp_fab_stats(&st);
	return st.crossed;
}

/*
 * 40 chunks and 17 bytes striped over 4 QPs, window 8, the receiver's
 * completions mixed across QPs as a NIC may return them: chunks complete
 * out of the session's order (crossed), the reorder stage lands them in
 * it, and the file arrives whole, with every op.
 */
static void test_qps_cross_order(void **s)
{
	push_ok(s, &(struct scenario){ .size = 40ull * 64 * KIB + 17,
		.window = 8, .qps = 4, .fault_side = RP_FAB_RECEIVER,
		.fault = RP_FAB_CROSS_QP, .fault_nth = CROSS_HOLD_MS });
	assert_true(stats_crossed() > 0);
}

/* The small-file shape (many files in flight, one chunk or a few each)
 * over 3 QPs, completions mixed: every file arrives whole. */
static void test_qps_cross_order_small_files(void **s)
{
	struct env *e = *s;
	struct srcs src = { 0 };
	char p[300];
	struct result r;

	snprintf(p, sizeof(p), "%s/tree", e->src);
	assert_int_equal(mkdir(p, 0755), 0);
	for (int i = 0; i < 12; i++) {
		snprintf(p, sizeof(p), "%s/tree/f%02d", e->src, i);
		make_file(p, (uint64_t)i * 11 * KIB + (uint64_t)i, (uint8_t)i);
	}
	srcs_add(&src, e, "tree");
	push_srcs(e, &(struct scenario){ .recursive = true, .qps = 3,
		  .fault_side = RP_FAB_RECEIVER, .fault = RP_FAB_CROSS_QP,
		  .fault_nth = CROSS_HOLD_MS }, &src, &r);
	assert_session_done(&r, 0);
	/* The 12 files and their directory. */
	assert_int_equal(r.types[RP_MSG_FILE], 13);
	for (int i = 0; i < 12; i++) {
		snprintf(p, sizeof(p), "tree/f%02d", i);
		assert_arrived(e, p);
	}
	assert_int_equal(count_tree(e->dst), 13);
	assert_true(stats_crossed() > 0);
}

/* A tree of n files of size bytes each, pushed with the default shape:
 * the chunk and window its HELLO asked for. */
static void small_shape(struct env *e, const char *name, int n, uint64_t size,
			uint32_t *chunk, uint32_t *window)
{
	struct srcs src = { 0 };
	char p[300];
	struct result r;

	snprintf(p, sizeof(p), "%s/%s", e->src, name);
	assert_int_equal(mkdir(p, 0755), 0);
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s/f%02d", e->src, name, i);
		make_file(p, size, (uint8_t)i);
	}
	srcs_add(&src, e, name);
	push_srcs(e, &(struct scenario){ .recursive = true }, &src, &r);
	assert_session_done(&r, 0);
	*chunk = r.hello_chunk;
	*window = r.hello_window;
}

/* Small files on average: 64 in flight, each in a chunk of four times
 * the average, a power of two from 16 KiB to 64 KiB; larger ones keep
 * the shape asked for (here the tests' 64 KiB and 4). */
static void test_small_files_shape(void **s)
{
	static const struct {
		const char *name;
		int n;
		uint64_t size;
		uint32_t chunk, window;
	} want[] = {
		{ "k1", 12, 1 * KIB, 16 * KIB, 64 },
		{ "k5", 12, 5 * KIB, 32 * KIB, 64 },
		{ "k20", 12, 20 * KIB, 64 * KIB, 64 },
		{ "k100", 3, 100 * KIB, 64 * KIB, 4 },
	};
	struct env *e = *s;
	uint32_t chunk, window;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		small_shape(e, want[i].name, want[i].n, want[i].size, &chunk,
			    &window);
		assert_int_equal(chunk, want[i].chunk);
		assert_int_equal(window, want[i].window);
	}
}

static int set_test_op(const char *name)
{
	if (!name)
		return 0;
	for (unsigned int op = 0; op < RP_OP_MAX; op++) {
		if (!strcmp(name, rp_proto_op_name(op))) {
			test_op = (uint8_t)op;
			return 0;
		}
	}
	fprintf(stderr, "RP_TEST_OP=%s: want write, read or send\n", name);
	return -1;
}

static int set_test_qps(const char *n)
{
	char *end;
	unsigned long v;

	if (!n)
		return 0;
	v = strtoul(n, &end, 10);
	if (*end || v < 1 || v > RP_QPS_MAX) {
		fprintf(stderr, "RP_TEST_QPS=%s: want 1..%u\n", n, RP_QPS_MAX);
		return -1;
	}
	test_qps = (uint32_t)v;
	return 0;
}


/* ---------------------------------------------------------------------
 * --trace-json over the in-memory fabric: both sides write one file
 */

struct tj_seen {
	unsigned int out[8], in[8];	/* per type below, by direction */
	unsigned int phases, summaries, fabric;
	uint64_t chunks[2], credits[2], bytes[2];
};

static const char *const tj_types[8] = {
	"HELLO", "MR", "FILE", "FEND", "FACK", "FIN", "ACK", "AUTH",
};

static json_object *tj_get(json_object *o, const char *key,
			   enum json_type type)
{
	json_object *m = NULL;

	if (!json_object_object_get_ex(o, key, &m))
		fail_msg("no member %s in %s", key,
			 json_object_to_json_string(o));
	if (json_object_get_type(m) != type)
		fail_msg("member %s of %s has the wrong type", key,
			 json_object_to_json_string(o));
	return m;
}

/* One line: every member with its type; what it counts in seen. */
static void tj_line(json_object *o, struct tj_seen *seen, double *t)
{
	static const char *const members[] = {
		"v", "t", "side", "pid", "area", "kind", "text", "f",
	};
	json_object *f = tj_get(o, "f", json_type_object);
	const char *kind, *type;
	double now;

	assert_int_equal(json_object_object_length(o), 8);
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
		assert_true(json_object_object_get_ex(o, members[i], NULL));
	assert_int_equal(json_object_get_int(tj_get(o, "v", json_type_int)),
			 1);
	assert_string_equal(json_object_get_string(tj_get(o, "side",
							  json_type_string)),
			    "test");
	assert_int_equal(json_object_get_int(tj_get(o, "pid", json_type_int)),
			 getpid());
	tj_get(o, "area", json_type_string);
	tj_get(o, "text", json_type_string);
	now = json_object_get_double(tj_get(o, "t", json_type_double));
	assert_true(now >= *t);
	*t = now;
	kind = json_object_get_string(tj_get(o, "kind", json_type_string));
	assert_string_not_equal(kind, "error");
	if (!strcmp(kind, "phase"))
		seen->phases++;
	if (!strncmp(kind, "fabric.", 7))
		seen->fabric++;
	if (!strcmp(kind, "msg")) {
		bool out = !strcmp(json_object_get_string(
			tj_get(f, "dir", json_type_string)), "out");

		type = json_object_get_string(tj_get(f, "type",
						     json_type_string));
		for (int i = 0; i < 8; i++)
			if (!strcmp(type, tj_types[i]))
				(out ? seen->out : seen->in)[i]++;
		if (!strcmp(type, "HELLO"))
			tj_get(f, "qpn", json_type_int);
		if (!strcmp(type, "MR"))
			tj_get(f, "rkey", json_type_int);
	}
	if (!strcmp(kind, "data.summary")) {
		unsigned int k = seen->summaries++;

		assert_true(k < 2);
		seen->bytes[k] = json_object_get_uint64(tj_get(f, "bytes",
							       json_type_int));
		seen->chunks[k] = json_object_get_uint64(tj_get(f, "chunks",
								json_type_int));
		seen->credits[k] = json_object_get_uint64(
			tj_get(f, "credits", json_type_int));
		assert_int_equal(json_object_get_int(tj_get(f, "files",
							    json_type_int)),
				 1);
		assert_true(json_object_get_double(
			tj_get(f, "data_seconds", json_type_double)) > 0);
	}
}

static void test_trace_json(void **s)
{
	struct env *e = *s;
	const struct scenario sc = { .size = 5 * 64 * KIB + 7 };
	struct tj_seen seen = { .phases = 0 };
	char file[160], path[200], line[16384];
	double t = 0;
	struct result r;
	unsigned int n = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/data.bin", e->src);
	snprintf(path, sizeof(path), "%s/trace.jsonl", e->root);
	make_file(file, sc.size, 7);
	assert_int_equal(rp_trace_json_open(path), 0);
	run(e, &sc, &r, file);
	rp_trace_json_close();
	assert_released(e);
	assert_int_equal(r.send_rc, 0);
	assert_int_equal(r.recv_rc, 0);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		json_object *o = json_tokener_parse(line);

		if (!o)
			fail_msg("line %u is not JSON: %s", n + 1, line);
		assert_non_null(strchr(line, '\n'));
		tj_line(o, &seen, &t);
		json_object_put(o);
		n++;
	}
	fclose(f);
	assert_true(n > 20);
	assert_true(seen.phases >= 10);	/* both sides' */
	assert_true(seen.fabric > 0);
	/* HELLO .. ACK, each sent by one side and got by the other. */
	for (int i = 0; i < 7; i++) {
		if (seen.out[i] < 1 || seen.out[i] != seen.in[i])
			fail_msg("%s: %u out, %u in", tj_types[i],
				 seen.out[i], seen.in[i]);
	}
	assert_int_equal(seen.summaries, 2);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(seen.bytes[k], sc.size);
		assert_int_equal(seen.chunks[k], 6);
		assert_true(seen.credits[k] > 0);
	}
	assert_int_equal(seen.credits[0], seen.credits[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_size_0),
		T(test_size_1),
		T(test_size_chunk_minus_1),
		T(test_size_chunk),
		T(test_size_chunk_plus_1),
		T(test_size_many_rings),
		T(test_threads_1),
		T(test_threads_many),
		T(test_direct),
		T(test_chunk_not_page_multiple_small),
		T(test_chunk_not_page_multiple_large),
		T(test_window_1),
		T(test_window_1_slow_acks),
		T(test_sender_slow_acks),
		T(test_receiver_shrinks_chunk),
		T(test_source_shrinks_mid_file),
		T(test_receiver_shrinks_window),
		T(test_psk_right),
		T(test_psk_wrong),
		T(test_psk_sender_only),
		T(test_psk_receiver_only),
		T(test_psk_keygen),
		T(test_tamper_flip_mr),
		T(test_read_sender_mr_shape),
		T(test_small_files_shape),
		T(test_read_sender_mr_rkey),
		T(test_tamper_dup_mr),
		T(test_tamper_replay_hello),
		T(test_tamper_forge_ack),
		T(test_forge_ack_without_psk),
		T(test_old_version),
		T(test_chain_no_relay_refused),
		T(test_chain_one_host),
		T(test_chain_unannounced),
		T(test_chain_not_next),
		T(test_unasked_have),
		T(test_unasked_reconnect_to_sender),
		T(test_unasked_reconnect_at_end),
		T(test_unasked_from),
		T(test_unasked_reconnect_to_receiver),
		T(test_not_a_peer),
		T(test_bad_name_refused_before_connecting),
		T(test_existing_name_refused),
		T(test_existing_name_forced),
		T(test_directory_in_the_way),
		T(test_file_in_the_way_of_tree),
		T(test_refusal_names_whole_path),
		T(test_recv_completion_fails),
		T(test_send_completion_fails),
		T(test_send_stray_completion),
		T(test_every_completion_status),
		T(test_send_post_fails),
		T(test_recv_post_fails),
		T(test_stalled_sender_times_out),
		T(test_stalled_receiver_times_out),
		T(test_signal_mid_data),
		T(test_resume_after_signal),
		T(test_resume_changed_source),
		T(test_resume_large),
		T(test_resume_sweep_sender),
		T(test_resume_sweep_receiver),
		T(test_resume_cut_each_message),
		T(test_resume_stdin_refused),
		T(test_receiver_dies_mid_data),
		T(test_sender_dies_mid_data),
		T(test_link_down_write),
		T(test_link_down_read),
		T(test_link_down_send),
		T(test_link_down_qps3),
		T(test_link_down_receiver_first),
		T(test_link_flap_one_outage),
		T(test_link_relink_unresolved),
		T(test_link_relink_unresolved_gives_up),
		T(test_link_tcp_outlasts),
		T(test_link_down_at_the_end),
		T(test_link_retry_dead_peer),
		T(test_cut_after_first_auth),
		T(test_cut_after_auth),
		T(test_cut_after_hello),
		T(test_cut_after_mr),
		T(test_cut_after_fin),
		T(test_sync_seen),
		T(test_slow_disk_no_false_timeout),
		T(test_dir_fsync_fails_keeps_file),
		T(test_max_size_refused),
		T(test_max_size_exact),
		T(test_min_rate_trickle),
		T(test_min_rate_normal),
		T(test_min_rate_slow_disk),
		T(test_min_rate_slow_message),
		T(test_peer_text_escaped_fack),
		T(test_peer_text_escaped_err),
		T(test_busy_after_handshake),
		T(test_handshake_deadline),
		T(test_handshake_deadline_not_reset),
		T(test_three_files_one_session),
		T(test_tree_umask_022),
		T(test_tree_umask_027),
		T(test_tree_umask_0),
		T(test_tree_keep_setid_without_k),
		T(test_tree_preserve_umask),
		T(test_tree_keep_setid_umask_0),
		T(test_tree_deep_dirs_open_once),
		T(test_batch_one_sync),
		T(test_batch_sync_overlaps),
		T(test_batch_spans_dirs),
		T(test_batch_fd_limit),
		T(test_batch_name_appears),
		T(test_tree_made_dir_no_lookup),
		T(test_batch_sync_fails),
		T(test_batch_slow_sync_no_false_timeout),
		T(test_update_exists),
		T(test_update_size),
		T(test_update_mtime),
		T(test_update_checksum),
		T(test_tree_preserve),
		T(test_tree_preserve_keep_setid),
		T(test_stdin_odd),
		T(test_stdin_max_size),
		T(test_stdin_whole_chunks),
		T(test_stdin_empty),
		T(test_enospc_one_file),
		T(test_enospc_many_threads),
		T(test_hostile_dotdot),
		T(test_hostile_absolute),
		T(test_hostile_inner_dotdot),
		T(test_hostile_through_symlink),
		T(test_missing_source),
		T(test_qps_cross_order),
		T(test_qps_cross_order_small_files),
		T(test_trace_json),
#undef T
	};

	/* Errors still print (to stderr); progress and summaries do not. */
	rp_trace_init(getenv("RP_TEST_TRACE") ? RP_V_TRACE : RP_V_QUIET, "test");
	rp_session_signals();
	if (set_test_op(getenv("RP_TEST_OP")) ||
	    set_test_qps(getenv("RP_TEST_QPS")))
		return 2;
	/* RP_TEST=pattern runs only the matching cases (debugging). */
	if (getenv("RP_TEST"))
		cmocka_set_test_filter(getenv("RP_TEST"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
