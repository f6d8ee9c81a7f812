// SPDX-License-Identifier: MIT
/*
 * A relay hop (recv --relay, given a chain): while its session lands the
 * upstream's entries, a second session on its own thread pushes them on
 * to the next hop, reading each file's copy here as far as it is written
 * (session_feed.c carries entries and progress across). The file system
 * holds the lag between the two, so each side keeps its own ring and the
 * upstream never waits for the downstream's credit. Each file's digest
 * goes on as the origin made it: every hop checks end to end.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmapush/err.h"
#include "rdmapush/fileio.h"
#include "rdmapush/hostlist.h"
#include "rdmapush/proto.h"
#include "rdmapush/session.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

/* Entries the upstream may land ahead of the downstream; beyond this
 * it waits (each holds an open file and a path, about 4 KiB). */
#define FEED_ENTRIES	256u
/* While the upstream waits for the downstream to end: a look this often
 * (and a SYNC, as due, so its sender knows it is alive). */
#define END_POLL_US	20000u

struct rp_relay {
	struct rp_feed *feed;
	struct rp_config o;	/* the downstream session's */
	struct rp_host *hops;	/* the chain after us: o.hosts */
	pthread_t thread;
	bool running;
	_Atomic bool ended;
	int rc;			/* the downstream session's */
	struct rp_outcome out;
	/* What the downstream learnt of each host after this one: res[0]
	 * its own result, res[h] its receiver's HOST for hop h. */
	struct rp_host_msg *res;
};

static void *downstream(void *arg)
{
	struct rp_relay *rl = arg;

	rp_trace_thread_role("relay");
	rl->rc = rp_session_send_feed(&rl->o, rl->feed, &rl->out, rl->res);
	atomic_store_explicit(&rl->ended, true, memory_order_release);
	return NULL;
}

/* The downstream's settings: this hop's, as a sender of the session's
 * shape, op and flags, along the rest of the chain (rl->hops, n). */
static void downstream_config(struct rp_relay *rl, const struct xfer *x,
			      uint32_t n, bool preserve)
{
	struct rp_config *o = &rl->o;

	*o = *x->o;
	for (uint32_t i = 0; i < n; i++)
		if (!rl->hops[i].port)
			rl->hops[i].port = x->o->port;
	o->hosts = rl->hops;
	o->nhosts = n;
	o->host = rl->hops[0].name;
	o->port = rl->hops[0].port;
	o->op = x->op;
	o->qps = x->qps;
	o->chunk = x->chunk;
	o->window = x->window;
	o->shape_set = true;
	o->preserve = preserve;
	o->sources = NULL;
	o->nsources = 0;
	o->resume = false;
	o->update = 0;
	o->json = false;
	/* --capture is the upstream session's, the one it was asked of. */
	o->capture = NULL;
	/* The hop's report and --json are its own session's; the push on
	 * is told in its trace and its end (rp_relay_close). */
	o->hooks = NULL;
}

static void relay_free(struct rp_relay *rl)
{
	rp_feed_free(rl->feed);
	free(rl->res);
	free(rl->hops);
	free(rl);
}

int rp_relay_open(struct xfer *x, const struct rp_host *hops, uint32_t n,
		  bool preserve)
{
	struct rp_relay *rl;
	int rc = rp_sys_calloc(&rl, 1, sizeof(*rl), "relay");

	if (rc)
		return rc;
	rc = rp_sys_calloc(&rl->hops, n, sizeof(*hops), "relay hops");
	if (!rc)
		rc = rp_sys_calloc(&rl->res, n, sizeof(*rl->res),
				   "relay results");
	if (!rc)
		rc = rp_feed_new(&rl->feed, FEED_ENTRIES, &rp_session_stop);
	if (rc) {
		relay_free(rl);
		return rc;
	}
	memcpy(rl->hops, hops, n * sizeof(*hops));
	downstream_config(rl, x, n, preserve);
	rc = pthread_create(&rl->thread, NULL, downstream, rl);
	if (rc) {
		RP_ERR("pthread_create(relay to %s): %s", rl->o.host,
		       strerror(rc));
		relay_free(rl);
		return -rc;
	}
	rl->running = true;
	x->relay = rl;
	RP_EV("session", "relay.start", "relaying to {host}:{port}",
	      EV_S("host", rl->o.host), EV_U("port", rl->o.port));
	return 0;
}

void rp_relay_dir(struct xfer *x, const struct rp_file *f)
{
	struct rp_feed_entry e = { .kind = RP_FILE_DIR, .fd = -1,
				   .mode = f->mode, .mtime_sec = f->mtime_sec,
				   .mtime_nsec = f->mtime_nsec, .done = true };
	uint64_t seq;

	if (!x->relay)
		return;
	memcpy(e.path, f->path, f->path_len);
	e.path[f->path_len] = '\0';
	/* Interrupted: the session sees the signal itself. */
	(void)!rp_feed_put(x->relay->feed, &e, &seq);
}

uint64_t rp_relay_file(struct xfer *x, const struct rp_file *f,
		       const struct rp_dst *d, int err, uint64_t ready)
{
	struct rp_feed_entry e = { .kind = RP_FILE_REG, .fd = -1,
				   .mode = f->mode, .mtime_sec = f->mtime_sec,
				   .mtime_nsec = f->mtime_nsec, .size = f->size,
				   .ready = ready, .err = err, .done = err != 0 };
	uint64_t seq = RP_FEED_NONE;

	if (!x->relay)
		return seq;
	memcpy(e.path, f->path, f->path_len);
	e.path[f->path_len] = '\0';
	if (!e.err)
		e.err = rp_fileio_dst_reader(d, &e.fd);
	e.done = e.err != 0;
	(void)!rp_feed_put(x->relay->feed, &e, &seq);
	return seq;
}

void rp_relay_progress(struct xfer *x, uint64_t seq, uint64_t ready)
{
	if (x->relay)
		rp_feed_progress(x->relay->feed, seq, ready);
}

void rp_relay_end(struct xfer *x, uint64_t seq, int err,
		  const uint8_t csum[RP_CSUM_LEN])
{
	if (x->relay)
		rp_feed_end(x->relay->feed, seq, err, csum);
}

bool rp_xfer_relays(const struct xfer *x)
{
	return x->chain.n > 0;
}

/* Wait for the downstream session to end, telling our sender we are
 * alive; its result. */
static int join(struct xfer *x, struct rp_relay *rl, bool keepalive)
{
	struct rp_sync s = { 0 };
	double next = rp_now() + RP_SYNC_EVERY;
	int rc = 0;

	while (!atomic_load_explicit(&rl->ended, memory_order_acquire)) {
		if (keepalive && !rc)
			rc = rp_xfer_sync_due(x, &s, &next);
		usleep(END_POLL_US);
	}
	pthread_join(rl->thread, NULL);
	rl->running = false;
	return rc;
}

/* Upstream, before our ACK: what the hosts after the next one said
 * (one hop further from our sender), in order, then the next one's. A
 * host that never answered is left out: the origin says not reached. */
static int tell_hosts(struct xfer *x, struct rp_relay *rl)
{
	struct rp_host_msg m;
	int rc = 0;

	for (uint32_t h = 1; h < rl->o.nhosts && !rc; h++) {
		if (!rl->res[h].hop)
			continue;
		m = rl->res[h];
		m.hop = (uint16_t)(h + 1);
		rc = rp_chan_send(&x->ch, RP_MSG_HOST, &m);
	}
	if (!rc) {
		m = rl->res[0];
		m.hop = 1;
		rc = rp_chan_send(&x->ch, RP_MSG_HOST, &m);
	}
	return rc;
}

static void host_text(struct rp_host_msg *m, const char *text)
{
	size_t n = strlen(text);

	m->text_len = (uint16_t)(n > RP_TEXT_MAX ? RP_TEXT_MAX : n);
	memcpy(m->text, text, m->text_len);
	m->text[m->text_len] = '\0';
}

/* Shown "host:port" of each failed host after the others, cut short
 * with "..." when they do not fit. */
static void name_failed(struct rp_outcome *out, const struct rp_host *h)
{
	size_t len = strlen(out->failed_hosts);
	size_t room = sizeof(out->failed_hosts) - len;
	int n;

	if (room < 4)
		return;
	if (len) {
		strcpy(out->failed_hosts + len, ", ");
		len += 2;
		room -= 2;
	}
	n = rp_host_format(out->failed_hosts + len, room, h->name, h->port);
	if (n < 0 || (size_t)n >= room)
		strcpy(out->failed_hosts + sizeof(out->failed_hosts) - 4,
		       "...");
}

int rp_xfer_chain_result(struct xfer *x, int rc, struct rp_outcome *out)
{
	const struct rp_config *o = x->o;
	struct rp_host_msg *self = &x->got[0];
	int first = 0;

	*self = (struct rp_host_msg){ .hop = 1,
		.status = rp_proto_status_from_err(rc),
		.files = x->tally.ok, .failed = x->tally.failed,
		.bytes = x->tally.bytes };
	/* The receiver's own words, when its ERR ended the session. */
	if (rc)
		host_text(self, x->ch.peer_text[0] ? x->ch.peer_text :
			  rp_strerror(rc));
	/* A relay's downstream: its relay tells the rest upstream. */
	if (x->feed || o->nhosts < 2)
		return rc;
	if (rp_sys_calloc(&x->hres, o->nhosts, sizeof(*x->hres),
			  "host results"))
		return rc ? rc : -ENOMEM;
	for (uint32_t i = 0; i < o->nhosts; i++) {
		struct rp_host_result *r = &x->hres[i];
		const struct rp_host_msg *m = &x->got[i];

		*r = (struct rp_host_result){ .host = o->hosts[i].name,
			.port = o->hosts[i].port, .reached = m->hop != 0,
			.why = m->text, .files = m->files,
			.failed = m->failed, .bytes = m->bytes };
		r->rc = r->reached ? rp_proto_status_to_err(m->status) :
				     RP_EPEERABORT;
		if (!r->rc)
			continue;
		if (!first)
			first = r->rc;
		if (out) {
			out->hosts_failed++;
			name_failed(out, &o->hosts[i]);
		}
	}
	if (out)
		out->nhosts = o->nhosts;
	x->rep.hosts = x->hres;
	x->rep.nhosts = o->nhosts;
	/* The session went well, but not on every host; or it failed, and
	 * the hosts after were pushed to directly: the push got through
	 * but for the hosts that failed. */
	if ((!rc || x->rerouted) && first) {
		rp_xfer_phase(x, RP_PHASE_DONE);
		rc = first;
	}
	return rc;
}

int rp_relay_close(struct xfer *x, int *down_rc)
{
	struct rp_relay *rl = x->relay;
	int rc;

	*down_rc = 0;
	if (!rl)
		return 0;
	rp_feed_close(rl->feed);
	rc = join(x, rl, true);
	*down_rc = rl->rc;
	if (rl->rc)
		RP_ERR("relay: the push on to %s:%u failed: %s", rl->o.host,
		       rl->o.port, rp_strerror(rl->rc));
	else
		RP_EV("session", "relay.end", "relayed to {host}:{port}",
		      EV_S("host", rl->o.host), EV_U("port", rl->o.port));
	return rc ? rc : tell_hosts(x, rl);
}

void rp_relay_free(struct xfer *x)
{
	struct rp_relay *rl = x->relay;

	if (!rl)
		return;
	if (rl->running) {
		/* Our session failed: the push on stops too, as a failed
		 * session, and the next hop keeps what it has of the file
		 * in flight. */
		rp_feed_break(rl->feed);
		(void)join(x, rl, false);
	}
	relay_free(rl);
	x->relay = NULL;
}
