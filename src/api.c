// SPDX-License-Identifier: MIT
/* The public API (rdmapush.h): its settings read into a struct
 * rp_config, the callbacks and results every handle shares, and the
 * push. The receiver is api_recv.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush.h"
#include "rdmapush/err.h"
#include "rdmapush/preflight.h"
#include "rdmapush/proto.h"
#include "rdmapush/trace.h"
#include "api_int.h"

/*
 * The public op values are the wire's (enum rp_data_op), so an op passes
 * through as it is; tests/lib/examples_mem.c asserts that they match.
 */

/* on_progress: at most this often (seconds), besides the last. */
#define PROGRESS_EVERY 0.1

const char *rp_version(void)
{
	return PACKAGE_VERSION;
}

void rp_params_init_size(struct rp_params *p, size_t size)
{
	struct rp_params d = {
		.size = size,
		.port = RP_DEFAULT_PORT,
		.timeout = RP_DEFAULT_TIMEOUT,
		.gid_index = -1,
		.op = RP_PUSH_WRITE,
		.dir = ".",
		.max_transfers = RP_DEFAULT_MAX_XFERS,
	};

	/* A caller's struct smaller than ours gets its own part only. */
	memcpy(p, &d, size < sizeof(d) ? size : sizeof(d));
}

/* One field out of range: said once, naming it. */
static int bad(const char *field, long long v, const char *range)
{
	RP_ERR("rp_params: %s %lld out of range (%s)", field, v, range);
	return -EINVAL;
}

static int check(const struct rp_params *p, bool send)
{
	uint32_t chunk = p->chunk ? p->chunk : RP_DEFAULT_CHUNK;
	uint32_t window = p->window ? p->window : RP_DEFAULT_WINDOW;

	if (p->timeout < 1 || p->timeout > 86400)
		return bad("timeout", p->timeout, "1..86400");
	if (p->ib_port < 0 || p->ib_port > 255)
		return bad("ib_port", p->ib_port, "0..255");
	if (p->gid_index < -1 || p->gid_index > 255)
		return bad("gid_index", p->gid_index, "-1..255");
	if (p->threads > RP_MAX_THREADS)
		return bad("threads", p->threads, "0..64");
	if (!p->port)
		return bad("port", 0, "1..65535");
	if (!send) {
		if (p->max_transfers < 1 || p->max_transfers > RP_MAX_XFERS)
			return bad("max_transfers", p->max_transfers, "1..64");
		return 0;
	}
	if (!p->host || !p->host[0]) {
		RP_ERR("rp_params: no host to push to");
		return -EINVAL;
	}
	if ((unsigned int)p->op >= RP_OP_MAX)
		return bad("op", p->op, "RP_PUSH_WRITE, _READ or _SEND");
	if (p->qps > RP_QPS_MAX)
		return bad("qps", p->qps, "0..8");
	if (chunk < RP_MIN_CHUNK || chunk > RP_MAX_CHUNK)
		return bad("chunk", chunk, "4096..64M");
	if (window > RP_MAX_WINDOW)
		return bad("window", window, "0..64");
	if ((uint64_t)chunk * window > RP_MAX_RING)
		return bad("chunk * window", (long long)chunk * window,
			   "at most 256M");
	return 0;
}

static void on_entry(void *ctx, const char *path, uint64_t bytes, int rc)
{
	struct api_run *run = ctx;
	struct rp_entry *e;

	if (rc)
		run->sum.entries_failed++;
	else
		run->sum.entries_ok++;
	run->sum.bytes += rc ? 0 : bytes;
	if (run->nentries == run->cap) {
		size_t cap = run->cap ? 2 * run->cap : 16;
		struct rp_entry *n = realloc(run->entries, cap * sizeof(*n));

		if (!n)
			return;	/* counted, not listed: nothing to undo */
		run->entries = n;
		run->cap = cap;
	}
	e = &run->entries[run->nentries];
	e->name = strdup(path);
	if (!e->name)
		return;
	e->bytes = rc ? 0 : bytes;
	e->status = rc;
	run->nentries++;
	if (run->p.on_entry)
		run->p.on_entry(run->p.user, e);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct api_run *run = ctx;
	double now = rp_now();

	if (!run->p.on_progress)
		return;
	if (done != total && now - run->last_progress < PROGRESS_EVERY)
		return;
	run->last_progress = now;
	run->p.on_progress(run->p.user, done, total);
}

static void on_event(void *ctx, const char *area, const char *kind,
		     const char *text)
{
	const struct api_run *run = ctx;

	run->p.on_event(run->p.user, area, kind, text);
}

int rp_api_run_init(struct api_run *run, const struct rp_params *p,
		 const char *role)
{
	struct rp_config *c = &run->cfg;
	int rc;

	memset(run, 0, sizeof(*run));
	/* Errors from here on name the side, as the tool's do. */
	rp_trace_init(RP_V_NORMAL, role);
	if (!p || p->size < sizeof(p->size) || p->size > sizeof(*p)) {
		RP_ERR("rp_params: size %zu: not set by rp_params_init()",
		       p ? p->size : 0);
		return -EINVAL;
	}
	rp_params_init(&run->p);
	/* Fields appended after the caller's size keep their defaults. */
	memcpy(&run->p, p, p->size);
	run->p.size = sizeof(run->p);
	p = &run->p;
	rc = check(p, !strcmp(role, "send"));
	if (rc)
		return rc;
	rp_config_defaults(c);
	c->port = p->port;
	c->psk_file = p->psk_file;
	c->timeout = p->timeout;
	c->dev = p->device;
	c->ib_port = p->ib_port;
	c->gid_index = p->gid_index;
	c->threads = p->threads;
	c->quiet = p->quiet;
	c->host = p->host;
	c->op = (uint8_t)p->op;
	c->qps = p->qps;
	/* As the tool's -c/-w: either one fixes the shape. */
	c->shape_set = p->chunk || p->window;
	if (p->chunk)
		c->chunk = p->chunk;
	if (p->window)
		c->window = p->window;
	c->recursive = p->recursive;
	c->preserve = p->preserve;
	c->bind_addr = p->bind_addr;
	c->dir = p->dir ? p->dir : ".";
	c->once = p->once;
	c->max_size = p->max_size;
	c->max_transfers = p->max_transfers;
	c->force = p->force;
	run->hooks = (struct rp_hooks){
		.entry = on_entry, .progress = on_progress, .ctx = run,
	};
	c->hooks = &run->hooks;
	run->sum.phase = "";
	return 0;
}

void rp_api_run_start(struct api_run *run, const char *role)
{
	rp_trace_init(run->p.quiet ? RP_V_QUIET : RP_V_NORMAL, role);
	/* The first error is the result's message, not a line on stderr. */
	rp_trace_hold_first_error();
	if (run->p.on_event)
		rp_trace_set_sink(on_event, run);
	run->ran = true;
}

int rp_api_run_end(struct api_run *run, int rc, const struct rp_outcome *out)
{
	const char *held = rp_trace_held_error();

	if (run->p.on_event)
		rp_trace_set_sink(NULL, NULL);
	run->sum.error = rc;
	if (rc)
		snprintf(run->sum.message, sizeof(run->sum.message), "%s",
			 held ? held : rp_strerror(rc));
	run->sum.phase = out->phase == RP_PHASE_MAX ? "" :
			 rp_phase_name(out->phase);
	snprintf(run->sum.peer, sizeof(run->sum.peer), "%s", out->peer);
	return rc;
}

void rp_api_run_free(struct api_run *run)
{
	for (size_t i = 0; i < run->nentries; i++)
		free((char *)run->entries[i].name);
	free(run->entries);
}

/* ---- the push ---------------------------------------------------- */

struct rp_push {
	struct api_run run;
	char **sources;		/* owned copies */
	int nsources;
	bool fd_source;		/* an fd: the only source */
	char *fd_name;
};

int rp_push_new(struct rp_push **out, const struct rp_params *p)
{
	struct rp_push *h = calloc(1, sizeof(*h));
	int rc;

	if (!h)
		return -ENOMEM;
	rc = rp_api_run_init(&h->run, p, "send");
	if (rc) {
		free(h);
		return rc;
	}
	*out = h;
	return 0;
}

static int add_source(struct rp_push *h, const char *src)
{
	char **n = realloc(h->sources, (size_t)(h->nsources + 1) *
			   sizeof(*n));

	if (!n)
		return -ENOMEM;
	h->sources = n;
	n[h->nsources] = strdup(src);
	if (!n[h->nsources])
		return -ENOMEM;
	h->nsources++;
	return 0;
}

int rp_push_add_path(struct rp_push *h, const char *path)
{
	/* "-" would be standard input: the fd source says so instead. */
	if (!path || !path[0] || !strcmp(path, "-") || h->fd_source)
		return -EINVAL;
	return add_source(h, path);
}

int rp_push_add_fd(struct rp_push *h, int fd, const char *name)
{
	int rc;

	if (fd < 0 || !name || !name[0] || h->nsources)
		return -EINVAL;
	h->fd_name = strdup(name);
	if (!h->fd_name)
		return -ENOMEM;
	rc = add_source(h, "-");
	if (rc)
		return rc;
	h->fd_source = true;
	h->run.cfg.stdin_fd = fd;
	h->run.cfg.as_name = h->fd_name;
	return 0;
}

int rp_push_run(struct rp_push *h)
{
	struct rp_outcome out = { .phase = RP_PHASE_MAX };
	int rc;

	if (h->run.ran || !h->nsources)
		return -EINVAL;
	h->run.cfg.sources = h->sources;
	h->run.cfg.nsources = h->nsources;
	rp_api_run_start(&h->run, "send");
	rc = rp_preflight(&h->run.cfg, RP_PREFLIGHT_SEND);
	if (!rc)
		rc = rp_session_send(&h->run.cfg, &out);
	return rp_api_run_end(&h->run, rc, &out);
}

const struct rp_summary *rp_push_result(const struct rp_push *h)
{
	return &h->run.sum;
}

size_t rp_push_entries(const struct rp_push *h,
				 const struct rp_entry **list)
{
	*list = h->run.entries;
	return h->run.nentries;
}

void rp_push_free(struct rp_push *h)
{
	if (!h)
		return;
	rp_api_run_free(&h->run);
	for (int i = 0; i < h->nsources; i++)
		free(h->sources[i]);
	free(h->sources);
	free(h->fd_name);
	free(h);
}
