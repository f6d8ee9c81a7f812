// SPDX-License-Identifier: MIT
/*
 * Which device, port and GID to use: the RoCE v2 GID equal to the control
 * connection's local address (or the one given with -d/-i/-g), and, when
 * none fits, one report that lists every port and GID seen with a hint.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs_devices.h"
#include "verbs_int.h"

/* A bounded text buffer for the multi-line "no GID matches" report. */
struct sbuf {
	char buf[6144];
	size_t len;
};

static void sbuf_add(struct sbuf *s, const char *fmt, ...) RP_PRINTF(2, 3);

/* What we look for in the GID table: the control connection's address. */
struct want {
	bool valid;
	bool loopback;
	union ibv_gid gid;
	char addr[INET6_ADDRSTRLEN];
	char gid_str[INET6_ADDRSTRLEN];
};

/* The port and GID chosen on one device. */
struct pick {
	uint8_t port;
	uint8_t link_layer;
	enum ibv_mtu mtu;
	uint16_t lid;
	int gid_index;
	union ibv_gid gid;
	uint32_t gid_type;
	int max_qp_wr;
	int max_cqe;
	int max_qp_rd_atom;
	int max_qp_init_rd_atom;
	enum rp_pick_why why;
};

/*
 * The outcome of the one selection rule (choose()), shared by the session
 * (rp_verbs_select_device) and `rdmapush devices --for` (rp_verbs_choose).
 */
struct choice {
	struct ibv_context *ctx;	/* the chosen device, left open */
	char dev_name[IBV_SYSFS_NAME_MAX];
	struct want w;
	struct pick pick;
};

/* choose() first, then its steps in the order it takes them. */
static int list_devices(struct ibv_device **list, int ndev,
			const struct rp_verbs_cfg *cfg, struct sbuf *log);
static void want_from_addr(struct want *w, const struct sockaddr *sa,
			   socklen_t len);
static void open_first_match(struct choice *c, struct ibv_device **list,
			     const struct rp_verbs_cfg *cfg, int *active);
static bool scan_device(struct ibv_context *ctx, const char *dev,
			const struct rp_verbs_cfg *cfg, const struct want *w,
			struct pick *pick, int *active);
static bool scan_gids(struct ibv_context *ctx, const char *dev,
		      uint8_t port, const struct ibv_port_attr *pa,
		      const struct rp_verbs_cfg *cfg, const struct want *w,
		      struct pick *pick);
static bool gid_matches(int idx, const struct ibv_gid_entry *e,
			int want_index, const struct want *w);
static void adopt_pick(struct rp_verbs *v, const struct pick *pick);
static void report_no_gid(const struct rp_verbs_cfg *cfg,
			  const struct want *w, int active);

/*
 * The device list, with every device and port traced (-d checked) and a
 * log for the error report that may follow (rp_verbs_probe's; the GID
 * choice reports in one line and leaves the detail to the trace). 0
 * with *list and *log ours to free, or an error (reported) with nothing
 * held.
 */
static int open_list(const struct rp_verbs_cfg *cfg, struct ibv_device ***list,
		     struct sbuf **log)
{
	int ndev = 0;
	int rc;

	rp_verbs_load_providers();
	errno = 0;
	*list = ibv_get_device_list(&ndev);
	if (!*list || !ndev) {
		rp_verbs_report_no_device(*list ? 0 : errno);
		rc = RP_ENODEV;
		goto err_free_list;
	}
	*log = calloc(1, sizeof(**log));
	if (!*log) {
		rc = -errno;
		RP_ERR("calloc: %s", strerror(-rc));
		goto err_free_list;
	}
	rc = list_devices(*list, ndev, cfg, *log);
	if (!rc)
		return 0;
	free(*log);
err_free_list:
	if (*list)
		ibv_free_device_list(*list);
	*list = NULL;
	*log = NULL;
	return rc;
}

/*
 * The one rule for device, port and GID: the first device (or -d) with an
 * active port (or -i) whose GID table has the entry wanted (-g, else the
 * RoCE v2 GID equal to cfg->local_addr; GID 0 on InfiniBand). c->ctx is
 * left open on success. 0, or RP_ENODEV / RP_ENOGID / -errno (reported).
 */
static int choose(const struct rp_verbs_cfg *cfg, struct choice *c)
{
	struct ibv_device **list;
	struct sbuf *log;
	int active = 0;
	int rc = open_list(cfg, &list, &log);

	memset(c, 0, sizeof(*c));
	if (rc)
		return rc;
	want_from_addr(&c->w, cfg->local_addr, cfg->local_addr_len);
	rp_verbs_trace_gid_wanted(cfg->gid_index,
				  c->w.valid ? c->w.gid_str : NULL, c->w.addr);
	open_first_match(c, list, cfg, &active);
	if (!c->ctx) {
		report_no_gid(cfg, &c->w, active);
		rc = active ? RP_ENOGID : RP_ENODEV;
	}
	free(log);
	ibv_free_device_list(list);
	return rc;
}

/* Fills v's device fields and leaves v->ctx open on success. */
int rp_verbs_select_device(struct rp_verbs *v, const struct rp_verbs_cfg *cfg)
{
	struct choice c;
	int rc = choose(cfg, &c);

	if (rc)
		return rc;
	v->ctx = c.ctx;
	snprintf(v->dev_name, sizeof(v->dev_name), "%s", c.dev_name);
	adopt_pick(v, &c.pick);
	rp_verbs_trace_device_chosen(v, cfg->gid_index < 0 ? c.w.addr : NULL);
	return 0;
}

/* What choose() picked, as plain values; the device is closed again. */
int rp_verbs_choose(const struct rp_verbs_cfg *cfg, struct rp_gid_choice *out)
{
	struct choice c;
	int rc = choose(cfg, &c);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	snprintf(out->dev, sizeof(out->dev), "%s", c.dev_name);
	out->port = c.pick.port;
	out->gid_index = (uint32_t)c.pick.gid_index;
	memcpy(out->gid, c.pick.gid.raw, sizeof(out->gid));
	out->type = rp_verbs_gid_type_rp(c.pick.gid_type);
	out->why = c.pick.why;
	rp_verbs_close_device(c.ctx, c.dev_name);
	return 0;
}

/*
 * Trace the device names, and check that the one given with -d is among
 * them. 0, or RP_ENODEV (reported). Leaves log empty for the scan.
 */
static int list_devices(struct ibv_device **list, int ndev,
			const struct rp_verbs_cfg *cfg, struct sbuf *log)
{
	int i;

	for (i = 0; list[i]; i++)
		sbuf_add(log, "%s%s", i ? ", " : "",
			 ibv_get_device_name(list[i]));
	RP_EV("verbs", "device.list", "ibv_get_device_list: {count} "
	      "device(s): {devices}", EV_I("count", ndev),
	      EV_S("devices", log->buf));

	if (cfg->dev_name) {
		for (i = 0; list[i]; i++)
			if (!strcmp(ibv_get_device_name(list[i]),
				    cfg->dev_name))
				break;
		if (!list[i]) {
			/* ENOENT: others exist, so the hint names -d. */
			RP_ERR_WHY(ENOENT, "RDMA device \"%s\" not found; "
				   "devices: %s", cfg->dev_name, log->buf);
			return RP_ENODEV;
		}
	}
	log->len = 0;
	log->buf[0] = '\0';
	return 0;
}

/* RoCE v2 GIDs of IPv4 addresses are IPv4-mapped IPv6: ::ffff:a.b.c.d. */
static void want_from_addr(struct want *w, const struct sockaddr *sa,
			   socklen_t len)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->addr, sizeof(w->addr), "(none)");
	if (!sa)
		return;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		w->gid.raw[10] = 0xff;
		w->gid.raw[11] = 0xff;
		memcpy(&w->gid.raw[12], &in->sin_addr, 4);
		inet_ntop(AF_INET, &in->sin_addr, w->addr, sizeof(w->addr));
		w->loopback = w->gid.raw[12] == 127;
		w->valid = true;
	} else if (sa->sa_family == AF_INET6 &&
		   len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 =
			(const struct sockaddr_in6 *)sa;

		memcpy(w->gid.raw, &in6->sin6_addr, 16);
		inet_ntop(AF_INET6, &in6->sin6_addr, w->addr,
			  sizeof(w->addr));
		w->loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
			      (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) &&
			       w->gid.raw[12] == 127);
		w->valid = true;
	} else {
		snprintf(w->addr, sizeof(w->addr), "(address family %d)",
			 sa->sa_family);
		return;
	}
	rp_sys_gid_text(w->gid.raw, w->gid_str, sizeof(w->gid_str));
}

/*
 * Open each candidate device in turn and keep the first with a matching
 * port and GID open in c->ctx (the others are closed again). c->ctx stays
 * NULL when none matches; the trace then says why, device by device.
 */
static void open_first_match(struct choice *c, struct ibv_device **list,
			     const struct rp_verbs_cfg *cfg, int *active)
{
	int i;

	for (i = 0; list[i]; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_context *ctx;

		if (cfg->dev_name && strcmp(name, cfg->dev_name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			RP_EV("verbs", "device.skip", "{dev}: {call}: "
			      "{reason}; skipped", EV_S("dev", name),
			      EV_S("call", "ibv_open_device"),
			      EV_S("reason", strerror(errno)));
			continue;
		}
		if (scan_device(ctx, name, cfg, &c->w, &c->pick, active)) {
			c->ctx = ctx;
			snprintf(c->dev_name, sizeof(c->dev_name), "%s", name);
			return;
		}
		rp_verbs_close_device(ctx, name);
	}
}

void rp_verbs_close_device(struct ibv_context *ctx, const char *name)
{
	int err;

	if (!ibv_close_device(ctx))
		return;
	err = errno;
	/* Nothing was made with it: a failure here loses nothing. */
	RP_EV("verbs", "device.close_failed", "{dev}: ibv_close_device: "
	      "{reason}", EV_S("dev", name), EV_S("reason", strerror(err)));
}

/*
 * Look at every port of one opened device (or only cfg->ib_port).
 * Returns true when a port and GID were picked; *active counts the
 * active ports seen.
 */
static bool scan_device(struct ibv_context *ctx, const char *dev,
			const struct rp_verbs_cfg *cfg, const struct want *w,
			struct pick *pick, int *active)
{
	struct ibv_device_attr da;
	int first = 1;
	int last;
	int port;
	int rc;

	rc = ibv_query_device(ctx, &da);
	if (rc) {
		RP_EV("verbs", "device.skip", "{dev}: {call}: {reason}; "
		      "skipped", EV_S("dev", dev),
		      EV_S("call", "ibv_query_device"),
		      EV_S("reason", strerror(rc)));
		return false;
	}
	rp_verbs_trace_device_caps(dev, &da);
	last = da.phys_port_cnt;
	if (cfg->ib_port > 0) {
		if (cfg->ib_port > da.phys_port_cnt)
			return false;
		first = cfg->ib_port;
		last = cfg->ib_port;
	}

	for (port = first; port <= last; port++) {
		struct ibv_port_attr pa;

		rc = ibv_query_port(ctx, (uint8_t)port, &pa);
		if (rc)
			continue;
		rp_verbs_trace_port(dev, port, &pa);
		if (pa.state != IBV_PORT_ACTIVE) {
			RP_EV("verbs", "port.skip", "{dev} port {port}: not "
			      "active; skipped", EV_S("dev", dev),
			      EV_I("port", port));
			continue;
		}
		(*active)++;
		if (scan_gids(ctx, dev, (uint8_t)port, &pa, cfg, w, pick)) {
			pick->max_qp_wr = da.max_qp_wr;
			pick->max_cqe = da.max_cqe;
			pick->max_qp_rd_atom = da.max_qp_rd_atom;
			pick->max_qp_init_rd_atom = da.max_qp_init_rd_atom;
			return true;
		}
	}
	return false;
}

/*
 * Walk one active port's GID table: trace each non-empty entry up to the
 * one we want, and pick it. Returns true when one was picked.
 */
static bool scan_gids(struct ibv_context *ctx, const char *dev,
		      uint8_t port, const struct ibv_port_attr *pa,
		      const struct rp_verbs_cfg *cfg, const struct want *w,
		      struct pick *pick)
{
	bool eth = pa->link_layer == IBV_LINK_LAYER_ETHERNET;
	int want_index = cfg->gid_index;
	bool found = false;
	int idx;

	/* InfiniBand addresses by LID: GID 0 (or -g) is only reported. */
	if (!eth && want_index < 0)
		want_index = 0;

	/* Up to the match, not past it: rxe has 1024 slots a port, and
	 * a query of each (a system call, most of them for an empty slot)
	 * took tens of milliseconds of each side's set-up in the lab. */
	for (idx = 0; idx < pa->gid_tbl_len && !found; idx++) {
		struct ibv_gid_entry e;
		char txt[INET6_ADDRSTRLEN];
		bool match;
		int rc;

		rc = ibv_query_gid_ex(ctx, port, (uint32_t)idx, &e, 0);
		if (rc)
			continue;	/* an empty slot (ENODATA), or unread */
		rp_sys_gid_text(e.gid.raw, txt, sizeof(txt));
		match = gid_matches(idx, &e, want_index, w);
		RP_EV("verbs", "gid.entry", "  {dev} port {port} GID[{index}] "
		      "{gid} ({type}){mark}", EV_S("dev", dev),
		      EV_U("port", port), EV_I("index", idx), EV_S("gid", txt),
		      EV_S("type", rp_verbs_gid_type_name(e.gid_type)),
		      EV_T("mark", match ? "  <- chosen" : ""),
		      EV_B("chosen", match));
		if (!match)
			continue;
		found = true;
		pick->port = port;
		pick->link_layer = pa->link_layer;
		pick->mtu = pa->active_mtu;
		pick->lid = eth ? 0 : pa->lid;
		pick->gid_index = idx;
		pick->gid = e.gid;
		pick->gid_type = e.gid_type;
		pick->why = cfg->gid_index >= 0 ? RP_PICK_BY_INDEX :
			    eth ? RP_PICK_BY_ADDR : RP_PICK_IB_DEFAULT;
	}
	return found;
}

/* The entry given with -g, else the RoCE v2 GID equal to our address. */
static bool gid_matches(int idx, const struct ibv_gid_entry *e,
			int want_index, const struct want *w)
{
	if (want_index >= 0)
		return idx == want_index;
	return w->valid && e->gid_type == IBV_GID_TYPE_ROCE_V2 &&
	       !memcmp(e->gid.raw, w->gid.raw, 16);
}

static void adopt_pick(struct rp_verbs *v, const struct pick *pick)
{
	v->port = pick->port;
	v->link_layer = pick->link_layer;
	v->mtu = pick->mtu;
	v->lid = pick->lid;
	v->gid_index = pick->gid_index;
	v->gid = pick->gid;
	v->gid_type = pick->gid_type;
	v->max_qp_wr = pick->max_qp_wr;
	v->max_cqe = pick->max_cqe;
	v->max_qp_rd_atom = pick->max_qp_rd_atom;
	v->max_qp_init_rd_atom = pick->max_qp_init_rd_atom;
	rp_sys_gid_text(v->gid.raw, v->gid_str, sizeof(v->gid_str));
}

void rp_verbs_report_no_device(int e)
{
	char why[96] = "";

	if (e == ENOSYS)
		snprintf(why, sizeof(why), " (this kernel has no RDMA "
			 "support: ibv_get_device_list: %s)", strerror(e));
	else if (e)
		snprintf(why, sizeof(why), " (ibv_get_device_list: %s)",
			 strerror(e));
	/* What to do is main's hint line (rp_err_hint_for(RP_ENODEV, e)):
	 * ENOSYS, no RDMA in the kernel, needs more than 'rdma link add'. */
	RP_ERR_WHY(e, "no RDMA device%s", why);
}

/*
 * One line and a hint, as every failure: the ports and GID tables looked
 * at are in the trace (-t) and in 'rdmapush devices', not in the error.
 */
static void report_no_gid(const struct rp_verbs_cfg *cfg,
			  const struct want *w, int active)
{
	const char *hint;

	if (!active) {
		RP_ERR_HINT("check 'rdma link' and 'ibv_devinfo'; choose the "
			    "device with -d NAME and the port with -i PORT, "
			    "or create a Soft-RoCE device (rdma link add)",
			    "no active port on any RDMA device ('rdmapush "
			    "devices' shows each port)");
		return;
	}
	if (cfg->gid_index >= 0) {
		RP_ERR_HINT("choose an index that 'rdmapush devices' lists "
			    "with -g (and the device with -d)",
			    "GID index %d not found on any active port",
			    cfg->gid_index);
		return;
	}
	if (w->loopback)
		hint = "the control connection runs over loopback, which "
		       "has no GID: connect to the address of the interface "
		       "that carries RDMA instead, or choose a GID with -g "
		       "INDEX and -d NAME";
	else if (!w->valid)
		hint = "no local address to match against: choose a GID with "
		       "-g INDEX and -d NAME";
	else
		hint = "choose a GID with -g INDEX and the device with -d "
		       "NAME, or add a Soft-RoCE device on the interface "
		       "that carries this address ('rdma link add rxe0 type "
		       "rxe netdev IFACE')";
	RP_ERR_HINT(hint, "no RoCE v2 GID equals the control connection's "
		    "local address %s (looked for GID %s; 'rdmapush devices' "
		    "lists the GIDs)", w->addr, w->valid ? w->gid_str : "-");
}

/* One device's ports (or only ib_port) into log; the ACTIVE ones counted. */
static int probe_ports(struct ibv_device *dev, int ib_port, struct sbuf *log)
{
	const char *name = ibv_get_device_name(dev);
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibv_device_attr da;
	int active = 0;

	if (!ctx) {
		sbuf_add(log, "; %s: ibv_open_device: %s", name,
			 strerror(errno));
		return 0;
	}
	if (ibv_query_device(ctx, &da)) {
		sbuf_add(log, "; %s: ibv_query_device failed", name);
	} else if (ib_port > da.phys_port_cnt) {
		sbuf_add(log, "; %s has no port %d (%u port(s))", name,
			 ib_port, da.phys_port_cnt);
	} else {
		for (int p = ib_port ? ib_port : 1;
		     p <= (ib_port ? ib_port : da.phys_port_cnt); p++) {
			struct ibv_port_attr pa;

			if (ibv_query_port(ctx, (uint8_t)p, &pa))
				continue;
			RP_EV("verbs", "probe", "probe: {dev} port {port} is "
			      "{state}", EV_S("dev", name), EV_I("port", p),
			      EV_S("state", ibv_port_state_str(pa.state)));
			if (pa.state == IBV_PORT_ACTIVE)
				active++;
			else
				sbuf_add(log, "; %s port %d is %s", name, p,
					 ibv_port_state_str(pa.state));
		}
	}
	ibv_close_device(ctx);
	return active;
}

int rp_verbs_probe(const char *dev_name, int ib_port)
{
	struct rp_verbs_cfg cfg = { .dev_name = dev_name, .ib_port = ib_port };
	struct ibv_device **list;
	struct sbuf *log;
	int active = 0;
	int rc = open_list(&cfg, &list, &log);

	if (rc)
		return rc;
	for (int i = 0; list[i]; i++)
		if (!dev_name || !strcmp(ibv_get_device_name(list[i]),
					 dev_name))
			active += probe_ports(list[i], ib_port, log);
	if (!active) {
		/* log is "; rxe0 port 1 is PORT_DOWN; ...": skip "; ". */
		/* ENETDOWN: devices exist, their ports are not up. */
		RP_ERR_WHY(ENETDOWN, "no active RDMA port: %s", log->buf[0] ?
			   log->buf + 2 : "no port found");
		rc = RP_ENODEV;
	}
	free(log);
	ibv_free_device_list(list);
	return rc;
}

static void sbuf_add(struct sbuf *s, const char *fmt, ...)
{
	size_t room = sizeof(s->buf) - s->len;
	va_list ap;
	int n;

	if (room <= 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->buf + s->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room)
		s->len = sizeof(s->buf) - 1;
	else
		s->len += (size_t)n;
}
