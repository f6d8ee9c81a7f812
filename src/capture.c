// SPDX-License-Identifier: MIT
/* --capture FILE.pcap (capture.h): a libpcap handle on the GID's netdev,
 * a thread that keeps the frames bound for the session's QPs, and a file
 * renamed into place when the session ends. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pcap_api.h"
#include "rdmapush/capture.h"
#include "rdmapush/err.h"
#include "rdmapush/roce.h"
#include "rdmapush/roce_group.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs.h"

/*
 * Whole frames: RoCE's largest MTU is 4096 bytes of data plus its
 * headers; a jumbo 9216 covers them with room. Not 65535: libpcap's
 * ring has one slot of the snap length per frame, and 16 MiB of
 * 64 KiB slots is too few for a burst of small ones (drops were seen).
 */
#define SNAPLEN		9216
#define BUFFER		(32 << 20)
/* How often the thread looks at its stop flag when the wire is idle. */
#define TICK_MS		50
/* With a trace on, the first packets are kept decoded, and the first
 * messages they make are told, one line each, when the capture stops:
 * enough to see a Write become its packets, bounded in memory. */
#define WIRE_KEEP	16384
#define WIRE_LINES	8
#define CAP_HINT	"capturing needs CAP_NET_RAW: run as root, or give " \
			"the binary the capability with 'setcap " \
			"cap_net_raw+ep rdmapush'"

struct rp_capture {
	pcap_t *pc;
	pcap_dumper_t *dump;
	char *path;		/* where the file goes when complete */
	char *tmp;		/* where it is written until then */
	pthread_t thread;
	bool running;
	atomic_bool stop;
	pthread_mutex_t lock;	/* qpn, nqpn */
	uint32_t qpn[RP_CAPTURE_QPS];
	size_t nqpn;
	/* Written by the thread only, read after it is joined. */
	uint64_t kept;
	uint64_t seen;
	struct rp_roce_tpkt *early;	/* WIRE_KEEP, or NULL: no trace */
	size_t nearly;
};

int rp_capture_check(void)
{
	/* What libpcap will open: a packet socket. Without CAP_NET_RAW the
	 * kernel refuses it with EPERM, before we connect anywhere; so is
	 * a libpcap that does not load. */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	int e = errno;

	if (fd >= 0) {
		close(fd);
		return rp_pcap_load("--capture");
	}
	if (e == EPERM || e == EACCES) {
		RP_ERR_HINT(CAP_HINT, "--capture needs CAP_NET_RAW, which "
			    "this process does not have");
		return RP_ECONFIG;
	}
	RP_ERR("--capture: socket(AF_PACKET): %s", strerror(e));
	return -e;
}

static bool watched(struct rp_capture *c, uint32_t qpn)
{
	bool yes = false;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nqpn && !yes; i++)
		yes = c->qpn[i] == qpn;
	pthread_mutex_unlock(&c->lock);
	return yes;
}

void rp_capture_watch(struct rp_capture *c, const uint32_t *qpn, size_t n)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < n; i++) {
		bool have = false;

		for (size_t j = 0; j < c->nqpn && !have; j++)
			have = c->qpn[j] == qpn[i];
		if (have)
			continue;
		if (c->nqpn == RP_CAPTURE_QPS) {
			RP_INFO("capture: more than %d QPs: QP 0x%06x not "
				"captured", RP_CAPTURE_QPS, qpn[i]);
			continue;
		}
		c->qpn[c->nqpn++] = qpn[i];
	}
	pthread_mutex_unlock(&c->lock);
}

/* pcap_dispatch's callback: keep what is RoCE v2 for our QPs. A frame
 * the decoder cannot read is kept too when it claims to be RoCE v2: it
 * may be ours, and a reader should see it. */
static void on_frame(u_char *user, const struct pcap_pkthdr *h,
		     const u_char *bytes)
{
	struct rp_capture *c = (struct rp_capture *)user;
	struct rp_roce_pkt p;
	int rc = rp_roce_decode(bytes, h->caplen, &p);

	c->seen++;
	if (rc == -ENOMSG || (!rc && !watched(c, p.dqpn)))
		return;
	rp_pcap.dump((u_char *)c->dump, h, bytes);
	c->kept++;
	if (!rc && c->early && c->nearly < WIRE_KEEP)
		c->early[c->nearly++] = (struct rp_roce_tpkt){
			.t = (double)h->ts.tv_sec + h->ts.tv_usec / 1e6,
			.p = p };
}

/* Until told to stop: wait for the handle's descriptor, then take what
 * is there; at the end, what is left (the last ACK may still be in the
 * buffer when the session ends). */
static void *run(void *arg)
{
	struct rp_capture *c = arg;
	struct pollfd pfd = { .fd = rp_pcap.get_selectable_fd(c->pc),
			      .events = POLLIN };

	while (!atomic_load(&c->stop)) {
		if (poll(&pfd, 1, TICK_MS) < 0 && errno != EINTR)
			break;
		if (rp_pcap.dispatch(c->pc, -1, on_frame, (u_char *)c) < 0)
			break;
	}
	while (rp_pcap.dispatch(c->pc, -1, on_frame, (u_char *)c) > 0)
		;
	return NULL;
}

/* The libpcap side: handle, immediate mode, filter, non-blocking. */
static int open_pcap(struct rp_capture *c, const char *netdev)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program prog;
	int rc;

	c->pc = rp_pcap.create(netdev, errbuf);
	if (!c->pc) {
		RP_ERR("--capture: pcap_create(%s): %s", netdev, errbuf);
		return RP_ECONFIG;
	}
	/* Immediate: a packet reaches us at once, not when a buffer
	 * fills, so the last ones are there when the session stops. */
	if (rp_pcap.set_snaplen(c->pc, SNAPLEN) ||
	    rp_pcap.set_immediate_mode(c->pc, 1) ||
	    rp_pcap.set_buffer_size(c->pc, BUFFER)) {
		RP_ERR("--capture: pcap_set_*(%s): %s", netdev,
		       rp_pcap.geterr(c->pc));
		return RP_EINTERNAL;
	}
	rc = rp_pcap.activate(c->pc);
	if (rc == PCAP_ERROR_PERM_DENIED) {
		RP_ERR_HINT(CAP_HINT, "--capture: pcap_activate(%s): %s",
			    netdev, rp_pcap.geterr(c->pc));
		return RP_ECONFIG;
	}
	if (rc < 0) {
		RP_ERR("--capture: pcap_activate(%s): %s", netdev,
		       rp_pcap.geterr(c->pc));
		return RP_ECONFIG;
	}
	if (rp_pcap.datalink(c->pc) != DLT_EN10MB) {
		RP_ERR("--capture: %s is not an Ethernet device (link type "
		       "%d): RoCE v2 runs over Ethernet", netdev,
		       rp_pcap.datalink(c->pc));
		return RP_ECONFIG;
	}
	if (rp_pcap.compile(c->pc, &prog, "udp dst port 4791", 1,
			 PCAP_NETMASK_UNKNOWN)) {
		RP_ERR("--capture: pcap_compile: %s", rp_pcap.geterr(c->pc));
		return RP_EINTERNAL;
	}
	rc = rp_pcap.setfilter(c->pc, &prog);
	rp_pcap.freecode(&prog);
	if (rc) {
		RP_ERR("--capture: pcap_setfilter(%s): %s", netdev,
		       rp_pcap.geterr(c->pc));
		return RP_EINTERNAL;
	}
	if (rp_pcap.setnonblock(c->pc, 1, errbuf)) {
		RP_ERR("--capture: pcap_setnonblock(%s): %s", netdev, errbuf);
		return RP_EINTERNAL;
	}
	if (rp_pcap.get_selectable_fd(c->pc) < 0) {
		RP_ERR("--capture: %s has no descriptor to wait on", netdev);
		return RP_EINTERNAL;
	}
	return 0;
}

/* The file: a unique name beside path (two receivers' children may
 * capture at once), renamed to path when complete. */
static int open_file(struct rp_capture *c, const char *path)
{
	size_t n = strlen(path) + sizeof(".XXXXXX");
	FILE *f;
	int fd;

	c->path = strdup(path);
	c->tmp = malloc(n);
	if (!c->path || !c->tmp)
		return -ENOMEM;
	snprintf(c->tmp, n, "%s.XXXXXX", path);
	fd = mkstemp(c->tmp);
	if (fd < 0) {
		int e = errno;

		RP_ERR("--capture: mkstemp(%s): %s", c->tmp, strerror(e));
		free(c->tmp);
		c->tmp = NULL;
		return -e;
	}
	/* mkstemp makes it 0600, and so it stays: the frames hold the
	 * data itself, whatever the modes of the files they carry. */
	f = fdopen(fd, "wb");
	if (!f) {
		int e = errno;

		RP_ERR("--capture: fdopen(%s): %s", c->tmp, strerror(e));
		close(fd);
		return -e;
	}
	c->dump = rp_pcap.dump_fopen(c->pc, f);
	if (!c->dump) {
		RP_ERR("--capture: pcap_dump_fopen(%s): %s", c->tmp,
		       rp_pcap.geterr(c->pc));
		fclose(f);
		return -EIO;
	}
	return 0;
}

/* Everything start made, in reverse; the file removed unless kept. */
static void destroy(struct rp_capture *c, bool keep)
{
	if (c->dump)
		rp_pcap.dump_close(c->dump);
	if (c->tmp && !keep)
		(void)!unlink(c->tmp);
	if (c->pc)
		rp_pcap.close(c->pc);
	pthread_mutex_destroy(&c->lock);
	free(c->early);
	free(c->tmp);
	free(c->path);
	free(c);
}

int rp_capture_start(struct rp_capture **out, const char *path,
		     const char *netdev)
{
	struct rp_capture *c = calloc(1, sizeof(*c));
	sigset_t block, old;
	int rc;

	*out = NULL;
	if (!c) {
		RP_ERR("--capture: calloc: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	atomic_init(&c->stop, false);
	/* Without it the trace only misses its wire lines. */
	if (rp_trace_any())
		c->early = malloc(WIRE_KEEP * sizeof(*c->early));
	rc = rp_pcap_load("--capture");
	if (!rc)
		rc = open_pcap(c, netdev);
	if (!rc)
		rc = open_file(c, path);
	if (rc == -ENOMEM)
		RP_ERR("--capture: %s", strerror(ENOMEM));
	if (rc)
		goto err_destroy;
	/* SIGINT and SIGTERM are the session's to handle, not this
	 * thread's. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = -pthread_create(&c->thread, NULL, run, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		RP_ERR("--capture: pthread_create: %s", strerror(-rc));
		goto err_destroy;
	}
	c->running = true;
	*out = c;
	return 0;

err_destroy:
	destroy(c, false);
	return rc;
}

int rp_capture_session(struct rp_capture **c, const char *path,
		       const struct rp_verbs *v, const uint32_t *qpn,
		       size_t n)
{
	char dev[IF_NAMESIZE];
	int rc;

	if (!path)
		return 0;
	if (!*c) {
		rc = rp_verbs_netdev(v, dev, sizeof(dev));
		if (!rc)
			rc = rp_capture_start(c, path, dev);
		if (rc)
			return rc;
	}
	rp_capture_watch(*c, qpn, n);
	return 0;
}

/* The first messages of the capture, one trace line each: what a post
 * became on the wire. */
static void trace_messages(const struct rp_capture *c)
{
	struct rp_roce_run *run;
	size_t n, i, shown = 0;

	if (!c->nearly || rp_roce_group(c->early, c->nearly, &run, &n))
		return;
	for (i = 0; i < n && shown < WIRE_LINES; i++) {
		char line[256];

		if (run[i].kind == RP_RUN_ACK)
			continue;	/* counted in their message's line */
		/* Ended by our keeping no more, not by the wire. */
		if (run[i].unfinished && c->nearly == WIRE_KEEP)
			continue;
		rp_roce_run_format(&run[i], line, sizeof(line));
		RP_EV("wire", "wire.msg", "{line}", EV_T("line", line),
		      EV_U("packets", run[i].packets),
		      EV_U("psn_first", run[i].psn0),
		      EV_U("psn_last", run[i].psn1),
		      EV_U("dest_qpn", run[i].dqpn),
		      EV_U("bytes", run[i].bytes), EV_U("acks", run[i].acks),
		      EV_U("naks", run[i].naks),
		      EV_B("retransmit", run[i].retransmit),
		      EV_B("cut", run[i].cut));
		shown++;
	}
	RP_EV("wire", "wire.more", "(the first {shown} messages on the wire; "
	      "all {packets} packets: rdmapush render --packets {path})",
	      EV_U("shown", shown), EV_U("packets", c->kept),
	      EV_S("path", c->path));
	free(run);
}

int rp_capture_stop(struct rp_capture *c, bool failed)
{
	struct pcap_stat st;
	bool drops;
	int rc = 0;

	if (!c)
		return 0;
	if (c->running) {
		atomic_store(&c->stop, true);
		pthread_join(c->thread, NULL);
		c->running = false;
	}
	drops = !rp_pcap.stats(c->pc, &st) && st.ps_drop;
	if (rp_pcap.dump_flush(c->dump)) {
		rc = -EIO;
		RP_ERR("--capture: writing %s failed", c->tmp);
	}
	rp_pcap.dump_close(c->dump);
	c->dump = NULL;
	if (!rc && rename(c->tmp, c->path)) {
		rc = -errno;
		RP_ERR("--capture: rename(%s, %s): %s", c->tmp, c->path,
		       strerror(-rc));
	}
	if (!rc) {
		RP_INFO("capture: %llu packets of this session in %s%s",
			(unsigned long long)c->kept, c->path,
			failed ? " (up to the failure)" : "");
		if (drops)
			RP_INFO("capture: the kernel dropped %u packets: %s "
				"misses some", st.ps_drop, c->path);
		trace_messages(c);
	}
	destroy(c, !rc);
	return rc;
}
