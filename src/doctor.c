// SPDX-License-Identifier: MIT
/*
 * `rdmapush doctor`, the judging half: the facts src/doctor_facts.c
 * gathered, turned into findings (each what is wrong, why it matters and
 * the command that fixes it) by rp_doctor_judge(), which does no I/O, and
 * printed as text or one JSON object. Unit-tested from crafted facts
 * (tests/unit/test_doctor.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <string.h>

#include "rdmapush/devices.h"
#include "rdmapush/doctor.h"
#include "rdmapush/err.h"
#include "rdmapush/json.h"
#include "rdmapush/proto.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

/* IBV_PORT_ACTIVE's value (src/verbs_devices.c copies the enum's). */
#define PORT_ACTIVE	4
/*
 * The most bytes RoCE v2 puts around a payload inside the netdev's MTU
 * (IPv6 40, UDP 8, BTH 12, RETH 16, ICRC 4): rdma_rxe's own
 * RXE_MAX_HDR_LENGTH, which it subtracts to pick its active MTU.
 */
#define ROCE_HDR_MAX	80

const char *rp_doctor_sev_name(enum rp_doc_sev s)
{
	static const char *const names[] = {
		[RP_DOC_OK] = "ok",
		[RP_DOC_NOTE] = "note",
		[RP_DOC_WARN] = "warning",
		[RP_DOC_ERROR] = "error",
	};

	return (unsigned int)s < RP_DOC_SEV_MAX ? names[s] : "?";
}

/* A finding; fix may be NULL (an ok, a note with nothing to do). The
 * report keeps the first RP_DOC_MAX and counts the rest's severity. */
static struct rp_doc_finding *add(struct rp_doc_report *r,
				  enum rp_doc_sev sev, const char *check,
				  const char *fix, const char *fmt, ...)
	RP_PRINTF(5, 6);

static struct rp_doc_finding *add(struct rp_doc_report *r,
				  enum rp_doc_sev sev, const char *check,
				  const char *fix, const char *fmt, ...)
{
	static struct rp_doc_finding spill;
	struct rp_doc_finding *f = r->n < RP_DOC_MAX ? &r->f[r->n++] : &spill;
	va_list ap;

	if (sev == RP_DOC_ERROR)
		r->errors++;
	else if (sev == RP_DOC_WARN)
		r->warnings++;
	memset(f, 0, sizeof(*f));
	f->sev = sev;
	f->check = check;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
	snprintf(f->fix, sizeof(f->fix), "%s", fix ? fix : "");
	return f;
}

static void why(struct rp_doc_finding *f, const char *fmt, ...)
	RP_PRINTF(2, 3);

static void why(struct rp_doc_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
}

/* The interface a Soft-RoCE device would go on: the first one up with
 * an address, else the first one at all, else "IFACE". */
static const char *candidate(const struct rp_doctor_facts *f)
{
	for (size_t i = 0; i < f->nnetdevs; i++)
		if (f->netdevs[i].up && f->netdevs[i].has_addr)
			return f->netdevs[i].name;
	return f->nnetdevs ? f->netdevs[0].name : "IFACE";
}

static const struct rp_doc_netdev *netdev(const struct rp_doctor_facts *f,
					  const char *name)
{
	for (size_t i = 0; i < f->nnetdevs; i++)
		if (!strcmp(f->netdevs[i].name, name))
			return &f->netdevs[i];
	return NULL;
}

/* The netdev a RoCE port's GIDs belong to, or NULL. */
static const char *port_netdev(const struct rp_port_info *p)
{
	for (size_t i = 0; i < p->ngids; i++)
		if (p->gids[i].netdev[0])
			return p->gids[i].netdev;
	return NULL;
}

/* No device listed: why, from the most basic cause up. */
static void judge_no_device(const struct rp_doctor_facts *f,
			    struct rp_doc_report *r)
{
	char fix[RP_DOC_TEXT];
	struct rp_doc_finding *d;
	const char *nd = candidate(f);

	if (f->dev && f->list_cause == ENOENT) {
		d = add(r, RP_DOC_ERROR, "device", "rdmapush devices (lists "
			"them), then -d NAME", "%s", f->list_error);
		why(d, "-d names a device this host does not have");
		return;
	}
	if (f->sysfs_devs > 0) {
		d = add(r, RP_DOC_ERROR, "device", "apt-get install "
			"ibverbs-providers (rdma-core's providers)",
			"the kernel has %d RDMA device%s but libibverbs lists "
			"none", f->sysfs_devs, rp_s((uint64_t)f->sysfs_devs));
		why(d, "the user-space provider for the device is missing");
		return;
	}
	if (f->rxe_loaded) {
		snprintf(fix, sizeof(fix), "rdma link add rxe0 type rxe "
			 "netdev %s", nd);
		d = add(r, RP_DOC_ERROR, "device", fix, "no RDMA device: "
			"rdma_rxe (Soft-RoCE) is loaded but on no interface");
	} else {
		/* Without the module, loading it is not yet the fix. */
		snprintf(fix, sizeof(fix), "%smodprobe rdma_rxe && rdma link "
			 "add rxe0 type rxe netdev %s", f->rxe_module ? "" :
			 "boot a kernel that has rdma_rxe (Debian's "
			 "linux-image-amd64 does), then: ", nd);
		d = add(r, RP_DOC_ERROR, "device", fix, "no RDMA device, and "
			"rdma_rxe (Soft-RoCE) is not loaded");
	}
	if (!f->rxe_loaded && !f->rxe_module)
		why(d, "rdmapush moves data by RDMA only, and this kernel has "
		    "no rdma_rxe module");
	else
		why(d, "rdmapush moves data by RDMA only; without an RDMA "
		    "NIC, Soft-RoCE on %s makes one", nd);
}

static void judge_devices(const struct rp_doctor_facts *f,
			  struct rp_doc_report *r)
{
	char names[RP_DOC_TEXT] = "";
	size_t len = 0;

	if (!f->devs.ndevs) {
		judge_no_device(f, r);
		return;
	}
	for (size_t i = 0; i < f->devs.ndevs && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len,
					"%s%s", i ? ", " : "",
					f->devs.devs[i].name);
	add(r, RP_DOC_OK, "device", NULL, "libibverbs lists %zu RDMA "
	    "device%s: %s", f->devs.ndevs, rp_s(f->devs.ndevs), names);
	for (size_t i = 0; i < f->devs.ndevs; i++) {
		const struct rp_dev_info *d = &f->devs.devs[i];
		struct rp_doc_finding *e;

		if (!d->error[0])
			continue;
		e = add(r, RP_DOC_ERROR, "device", "run as a user who may "
			"open /dev/infiniband/uverbs* (or as root)", "%s: %s",
			d->name, d->error);
		why(e, "a device that cannot be opened cannot be used");
	}
}

/* The RoCE MTU against its interface's: a full-size packet must fit. */
static void judge_mtu(const struct rp_doctor_facts *f,
		      const struct rp_dev_info *d,
		      const struct rp_port_info *p, struct rp_doc_report *r)
{
	const char *name = port_netdev(p);
	const struct rp_doc_netdev *n = name ? netdev(f, name) : NULL;
	struct rp_doc_finding *e;
	char fix[RP_DOC_TEXT];

	if (!n || n->mtu <= 0 || !p->active_mtu)
		return;
	if (p->active_mtu + ROCE_HDR_MAX <= n->mtu) {
		add(r, RP_DOC_OK, "mtu", NULL, "%s port %u: RoCE MTU %d fits "
		    "%s's MTU %d", d->name, p->num, p->active_mtu, name,
		    n->mtu);
		return;
	}
	snprintf(fix, sizeof(fix), "ip link set dev %s mtu %d (the same on "
		 "both hosts)", name, p->active_mtu + ROCE_HDR_MAX > 1500 ?
		 p->active_mtu + ROCE_HDR_MAX : 1500);
	e = add(r, RP_DOC_ERROR, "mtu", fix, "%s port %u: RoCE MTU %d does "
		"not fit %s's MTU %d", d->name, p->num, p->active_mtu, name,
		n->mtu);
	why(e, "a full RoCE v2 packet (%d bytes of payload and up to %d of "
	    "headers) is dropped, and every transfer stalls in retries",
	    p->active_mtu, ROCE_HDR_MAX);
}

/* An active RoCE port needs a routable RoCE v2 GID. true if it has one. */
static bool judge_gids(const struct rp_dev_info *d,
		       const struct rp_port_info *p, struct rp_doc_report *r)
{
	const char *name = port_netdev(p);
	char txt[RP_DEV_TEXT_MAX], fix[RP_DOC_TEXT];
	struct rp_doc_finding *e;
	size_t v2 = 0, routable = 0;
	const uint8_t *first = NULL;

	for (size_t i = 0; i < p->ngids; i++) {
		if (p->gids[i].type != RP_GID_ROCE_V2)
			continue;
		v2++;
		if (!rp_gid_link_local(p->gids[i].raw)) {
			routable++;
			if (!first)
				first = p->gids[i].raw;
		}
	}
	if (routable) {
		add(r, RP_DOC_OK, "gid", NULL, "%s port %u: %zu RoCE v2 GID%s, "
		    "%zu routable (%s first)", d->name, p->num, v2, rp_s(v2),
		    routable, rp_sys_gid_text(first, txt, sizeof(txt)));
		return true;
	}
	snprintf(fix, sizeof(fix), "ip addr add ADDR/PREFIX dev %s (each "
		 "address becomes a GID)", name ? name : "IFACE");
	e = add(r, RP_DOC_ERROR, "gid", fix, v2 ? "%s port %u: only "
		"link-local RoCE v2 GIDs" : "%s port %u: no RoCE v2 GID",
		d->name, p->num);
	why(e, "rdmapush uses the RoCE v2 GID equal to the control "
	    "connection's local address: it needs an IPv4 or global IPv6 "
	    "address on the interface");
	return false;
}

static void judge_port(const struct rp_doctor_facts *f,
		       const struct rp_dev_info *d,
		       const struct rp_port_info *p, bool any_active,
		       struct rp_doc_report *r)
{
	const char *name = port_netdev(p);
	char fix[RP_DOC_TEXT];
	struct rp_doc_finding *e;

	if (p->error[0] && !p->state_name[0]) {
		e = add(r, RP_DOC_ERROR, "port", "ibv_devinfo -d DEV (what "
			"the driver says)", "%s port %u: %s", d->name, p->num,
			p->error);
		why(e, "a port that cannot be queried cannot be used");
		return;
	}
	if (p->state != PORT_ACTIVE) {
		if (p->link == RP_LINK_ETHERNET)
			snprintf(fix, sizeof(fix), "ip link set dev %s up",
				 name ? name : "IFACE");
		else
			snprintf(fix, sizeof(fix), "check the cable and that "
				 "a subnet manager runs (opensm)");
		e = add(r, any_active ? RP_DOC_WARN : RP_DOC_ERROR, "port",
			fix, "%s port %u is %s (%s)", d->name, p->num,
			p->state_name, rp_devices_link_name(p->link));
		why(e, "only an ACTIVE port moves data%s", any_active ?
		    "; another port is active" : "");
		return;
	}
	add(r, RP_DOC_OK, "port", NULL, "%s port %u: %s, %s%s, MTU %d",
	    d->name, p->num, p->state_name, rp_devices_link_name(p->link),
	    p->link == RP_LINK_ETHERNET ? " (RoCE)" : "", p->active_mtu);
	if (p->link != RP_LINK_ETHERNET)
		return;
	judge_mtu(f, d, p, r);
	(void)judge_gids(d, p, r);
}

static void judge_ports(const struct rp_doctor_facts *f,
			struct rp_doc_report *r)
{
	bool any_active = false;

	for (size_t i = 0; i < f->devs.ndevs; i++)
		for (size_t k = 0; k < f->devs.devs[i].nports; k++)
			if (f->devs.devs[i].ports[k].state == PORT_ACTIVE)
				any_active = true;
	for (size_t i = 0; i < f->devs.ndevs; i++)
		for (size_t k = 0; k < f->devs.devs[i].nports; k++)
			judge_port(f, &f->devs.devs[i],
				   &f->devs.devs[i].ports[k], any_active, r);
}

/* KiB or MiB, whichever reads better. */
static const char *mem_text(uint64_t b, char *buf, size_t len)
{
	if (b >= (1u << 20) && !(b % (1u << 20)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b >> 10));
	return buf;
}

static void judge_memlock(const struct rp_doctor_facts *f,
			  struct rp_doc_report *r)
{
	char lim[32], ring[32];
	struct rp_doc_finding *e;

	if (f->memlock_unlimited)
		snprintf(lim, sizeof(lim), "unlimited");
	else
		mem_text(f->memlock, lim, sizeof(lim));
	mem_text(f->ring, ring, sizeof(ring));
	if (f->cap_ipc_lock) {
		add(r, RP_DOC_OK, "memlock", NULL, "locked memory: ulimit -l "
		    "is %s, but this process has CAP_IPC_LOCK (root), which "
		    "the limit does not bind", lim);
		return;
	}
	if (f->memlock_unlimited || f->memlock >= f->ring) {
		add(r, RP_DOC_OK, "memlock", NULL, "locked memory: ulimit -l "
		    "%s covers a transfer's %s ring", lim, ring);
		return;
	}
	e = add(r, RP_DOC_ERROR, "memlock", "ulimit -l unlimited (or a "
		"memlock line in /etc/security/limits.conf; LimitMEMLOCK= "
		"for a service)", "locked memory: ulimit -l is %s, less than "
		"the %s ring of one transfer", lim, ring);
	why(e, "the ring is pinned (ibv_reg_mr), which fails with ENOMEM "
	    "past the limit; each transfer is a process of its own, so -m "
	    "does not add to it");
}

static void judge_listen(const struct rp_doctor_facts *f,
			 struct rp_doc_report *r)
{
	struct rp_doc_finding *e;
	char who[64] = "another process";

	if (!f->bind_rc) {
		add(r, RP_DOC_OK, "listen", NULL, "TCP port %u is free for "
		    "rdmapush recv", f->port);
		return;
	}
	if (f->bind_rc != -EADDRINUSE) {
		e = add(r, RP_DOC_WARN, "listen", "choose another with -p "
			"PORT (on both hosts)", "TCP port %u: bind: %s",
			f->port, strerror(-f->bind_rc));
		why(e, "rdmapush recv could not listen on it");
		return;
	}
	if (f->holder_pid && !strcmp(f->holder_comm, "rdmapush")) {
		add(r, RP_DOC_OK, "listen", NULL, "TCP port %u: rdmapush "
		    "(pid %d) listens on it", f->port, f->holder_pid);
		return;
	}
	if (f->holder_pid)
		snprintf(who, sizeof(who), "pid %d (%s)", f->holder_pid,
			 f->holder_comm);
	e = add(r, RP_DOC_WARN, "listen", "stop it, or give rdmapush recv "
		"and send another -p PORT", "TCP port %u is held by %s",
		f->port, who);
	why(e, "rdmapush recv cannot listen on it%s", f->holder_pid ? "" :
	    " (who holds it shows to root only)");
}

/* What a failed TCP connect to HOST's port means. */
static void judge_tcp(const struct rp_doctor_facts *f,
		      const struct rp_doc_tcp *t, const char *what,
		      const char *start, enum rp_doc_sev sev,
		      struct rp_doc_report *r)
{
	char fix[RP_DOC_TEXT];
	struct rp_doc_finding *e;

	if (!t->tried)
		return;
	if (!t->rc) {
		add(r, RP_DOC_OK, "tcp", NULL, "%s:%u answers: %s", f->host,
		    t->port, what);
		return;
	}
	if (t->rc == -ECONNREFUSED)
		snprintf(fix, sizeof(fix), "on %s: %s -p %u", f->host, start,
			 t->port);
	else
		snprintf(fix, sizeof(fix), "open TCP port %u on %s's firewall, "
			 "and check 'ip route get %s'", t->port, f->host,
			 f->host);
	e = add(r, sev, "tcp", fix, "%s:%u: no %s: %s", f->host, t->port,
		what, t->error[0] ? t->error : rp_strerror(t->rc));
	why(e, t->rc == -ECONNREFUSED ? "nothing listens on that port" :
	    "the control connection cannot be made");
}

static const char *op_name(uint8_t op)
{
	return rp_proto_op_name(op);
}

static void judge_trip(const struct rp_doctor_facts *f,
		       const struct rp_doc_trip *t, struct rp_doc_report *r)
{
	struct rp_doc_finding *e;
	char fix[RP_DOC_TEXT];

	if (!t->tried)
		return;
	if (!t->rc) {
		add(r, RP_DOC_OK, "rdma", NULL, "--op %s: one RDMA round trip "
		    "with %s in %.0f us", op_name(t->op), f->host, t->us);
		return;
	}
	if (!t->connected) {
		e = add(r, RP_DOC_ERROR, "handshake", t->rc == RP_EVERSION ?
			"the same rdmapush release on both hosts" :
			t->rc == RP_EAUTH ? "the same --psk key file on both "
			"hosts" : "see the error; rdmapush ping -t HOST traces "
			"the handshake", "--op %s: the ping handshake with %s "
			"failed: %s", op_name(t->op), f->host, t->error);
		why(e, "the two sides could not agree on a QP");
		return;
	}
	snprintf(fix, sizeof(fix), "on both hosts: iptables -I INPUT -p udp "
		 "--dport 4791 -j ACCEPT (or its nft twin), no tc filter that "
		 "drops it, the same interface MTU ('rdmapush devices --for %s' "
		 "shows the GID we use)", f->host);
	e = add(r, RP_DOC_ERROR, "rdma", fix, "--op %s: the handshake "
		"passed but no RDMA round trip with %s: %s", op_name(t->op),
		f->host, t->error);
	why(e, "the control connection works but RoCE v2 packets (UDP "
	    "4791) do not arrive: dropped by a firewall or filter, too big "
	    "for the path, or sent to a GID the peer does not route");
}

/* The interface behind the port the choice names, or NULL. */
static const struct rp_doc_netdev *chosen_netdev(
	const struct rp_doctor_facts *f)
{
	for (size_t i = 0; i < f->devs.ndevs; i++) {
		const struct rp_dev_info *d = &f->devs.devs[i];

		for (size_t k = 0; k < d->nports; k++) {
			const char *name = port_netdev(&d->ports[k]);

			if (!strcmp(d->name, f->choice.dev) &&
			    d->ports[k].num == f->choice.port && name)
				return netdev(f, name);
		}
	}
	return NULL;
}

static void judge_peer(const struct rp_doctor_facts *f,
		       struct rp_doc_report *r)
{
	const struct rp_doc_netdev *n = chosen_netdev(f);
	char gid[RP_DEV_TEXT_MAX], fix[RP_DOC_TEXT];
	struct rp_doc_finding *e;

	if (!f->peer_mtu)
		return;
	rp_sys_gid_text(f->peer_gid, gid, sizeof(gid));
	add(r, RP_DOC_OK, "peer", NULL, "%s: GID %s, RoCE MTU %d, protocol "
	    "version %d", f->host, gid, f->peer_mtu, RP_PROTO_VERSION);
	if (!f->our_mtu || f->our_mtu == f->peer_mtu)
		return;
	if (f->our_mtu > f->peer_mtu && n && n->mtu > 0)
		snprintf(fix, sizeof(fix), "on %s: ip link set dev IFACE mtu "
			 "%d (as %s here)", f->host, n->mtu, n->name);
	else if (f->our_mtu > f->peer_mtu)
		snprintf(fix, sizeof(fix), "on %s: raise its interface's MTU "
			 "to ours (ip link set dev IFACE mtu N)", f->host);
	else
		snprintf(fix, sizeof(fix), "ip link set dev %s mtu N here, N "
			 "as on %s's interface (RoCE MTU %d needs at least %d)",
			 n ? n->name : "IFACE", f->host, f->peer_mtu,
			 f->peer_mtu + ROCE_HDR_MAX);
	e = add(r, RP_DOC_ERROR, "mtu", fix, "RoCE MTU differs: ours %d, "
		"%s's %d", f->our_mtu, f->host, f->peer_mtu);
	why(e, "the QPs run at the smaller one, and the interface MTUs behind "
	    "them differ: frames the larger side sends the other drops");
}

static void judge_host(const struct rp_doctor_facts *f,
		       struct rp_doc_report *r)
{
	char gid[RP_DEV_TEXT_MAX], fix[RP_DOC_TEXT];
	struct rp_doc_finding *e;
	bool recv_ok = f->recv_tcp.tried && !f->recv_tcp.rc;

	if (f->route_rc) {
		snprintf(fix, sizeof(fix), "check the address, and 'ip route "
			 "get %s'", f->host);
		e = add(r, RP_DOC_ERROR, "route", fix, "%s", f->route_error);
		why(e, "without a route there is no control connection");
		return;
	}
	if (f->choose_rc && !f->devs.ndevs) {
		/* No device: its finding says it all. */
	} else if (f->choose_rc) {
		snprintf(fix, sizeof(fix), "rdmapush devices --for %s",
			 f->host);
		e = add(r, RP_DOC_ERROR, "gid", fix, "for %s (from %s): %s",
			f->host, f->local_addr, f->choose_error);
		why(e, "a push to %s would fail the same way", f->host);
	} else {
		rp_sys_gid_text(f->choice.gid, gid, sizeof(gid));
		add(r, RP_DOC_OK, "gid", NULL, "for %s: %s port %u GID %u %s "
		    "(%s), the local address %s", f->host, f->choice.dev,
		    f->choice.port, f->choice.gid_index, gid,
		    rp_gid_type_name(f->choice.type), f->local_addr);
	}
	judge_tcp(f, &f->recv_tcp, "rdmapush receiver", "rdmapush recv",
		  RP_DOC_ERROR, r);
	/* A receiver alone is fine: it answers no ping, so no RDMA then. */
	judge_tcp(f, &f->ping_tcp, "rdmapush ping server",
		  "rdmapush ping --server", recv_ok ? RP_DOC_NOTE :
		  RP_DOC_ERROR, r);
	if (f->ping_tcp.tried && f->ping_tcp.rc && recv_ok) {
		e = &r->f[r->n - 1];
		why(e, "a file receiver answers no ping: the RDMA path to %s "
		    "(UDP 4791, GIDs, MTU) was not tried", f->host);
	}
	if (f->ping_tcp.tried && !f->ping_tcp.rc && !f->trips[0].tried)
		add(r, RP_DOC_NOTE, "rdma", NULL, "no RDMA round trip with %s "
		    "was tried: this host has no GID for it (above)",
		    f->host);
	for (size_t i = 0; i < 2; i++)
		judge_trip(f, &f->trips[i], r);
	judge_peer(f, r);
}

void rp_doctor_judge(const struct rp_doctor_facts *f,
		     struct rp_doc_report *r)
{
	memset(r, 0, sizeof(*r));
	judge_devices(f, r);
	judge_ports(f, r);
	judge_memlock(f, r);
	judge_listen(f, r);
	if (f->host)
		judge_host(f, r);
}

int rp_doctor_exit_code(const struct rp_doc_report *r)
{
	return r->errors ? RP_EXIT_TRANSPORT : RP_EXIT_OK;
}

void rp_doctor_print_text(FILE *out, const struct rp_doc_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rp_doc_finding *f = &r->f[i];

		fprintf(out, "%-7s %s", rp_doctor_sev_name(f->sev), f->what);
		if (f->why[0])
			fprintf(out, ": %s", f->why);
		if (f->fix[0])
			fprintf(out, "; fix: %s", f->fix);
		fputc('\n', out);
	}
}

static struct json_object *finding_json(const struct rp_doc_finding *f)
{
	struct json_object *o = json_object_new_object();
	int rc = 0;

	if (!o)
		return NULL;
	rc |= rp_json_add(o, "severity", json_object_new_string(
			  rp_doctor_sev_name(f->sev)));
	rc |= rp_json_add(o, "check", json_object_new_string(f->check));
	rc |= rp_json_add(o, "what", json_object_new_string(f->what));
	rc |= rp_json_add(o, "why", json_object_new_string(f->why));
	rc |= rp_json_add(o, "fix", json_object_new_string(f->fix));
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int rp_doctor_print_json(FILE *out, const struct rp_doc_report *r,
			 const char *host)
{
	struct json_object *o = json_object_new_object();
	struct json_object *a = json_object_new_array();
	int err = 0;

	if (!o || !a) {
		json_object_put(a);
		json_object_put(o);
		RP_ERR("doctor --json: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct json_object *f = finding_json(&r->f[i]);

		if (!f || json_object_array_add(a, f)) {
			json_object_put(f);
			err = -ENOMEM;
		}
	}
	err |= rp_json_add(o, "type", json_object_new_string("doctor"));
	if (host)
		err |= rp_json_add(o, "host", json_object_new_string(host));
	err |= rp_json_add(o, "status", json_object_new_string(
			   r->errors ? "error" : "ok"));
	err |= rp_json_add(o, "exit_code", json_object_new_int(
			   rp_doctor_exit_code(r)));
	err |= rp_json_add(o, "errors", json_object_new_int64(
			   (int64_t)r->errors));
	err |= rp_json_add(o, "warnings", json_object_new_int64(
			   (int64_t)r->warnings));
	err |= rp_json_add(o, "findings", a);
	err = rp_json_print(out, o, err ? -ENOMEM : 0);
	if (err)
		RP_ERR("doctor --json: %s", strerror(err == -EIO ? EIO :
						      ENOMEM));
	return err ? (err == -EIO ? -EIO : -ENOMEM) : 0;
}
