// SPDX-License-Identifier: MIT
/*
 * `rdmapush doctor`, the gathering half: what this host has (devices,
 * ports and GIDs as `rdmapush devices` lists them, rdma_rxe, the network
 * interfaces, the locked-memory limit, the receiver's port) and, with
 * HOST, what a push to it would meet (the GID it would use, the
 * receiver's and the ping server's ports, one ping round trip per data
 * op) into struct rp_doctor_facts, for rp_doctor_judge(). Each probe's
 * error is held (rp_trace_hold_first_error) and kept as a fact rather
 * than printed: the report says it once, as a finding.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rdmapush/config.h"
#include "rdmapush/ctrl.h"
#include "rdmapush/devices.h"
#include "rdmapush/doctor.h"
#include "rdmapush/err.h"
#include "rdmapush/ping.h"
#include "rdmapush/trace.h"

#define SYSFS_IB	"/sys/class/infiniband"
#define SYSFS_NET	"/sys/class/net"
/* CAP_IPC_LOCK's bit in /proc/PID/status's CapEff (linux/capability.h). */
#define CAP_IPC_LOCK_BIT	14
/* A ping's message in the probe: more than one full-size packet at any
 * RoCE MTU, so that an MTU the path drops shows too. */
#define PROBE_SIZE	8192

/*
 * The error a probe held (or rc's message), into buf; its errno cause
 * returned. Forgotten after, so the next probe holds its own.
 */
static int take(int rc, char *buf, size_t len)
{
	const char *held = rp_trace_held_error();
	int cause = rp_trace_held_cause();

	snprintf(buf, len, "%s", held ? held : rc ? rp_strerror(rc) : "");
	rp_trace_hold_forget();
	return cause;
}

/* Entries of a sysfs directory, -1 when it does not exist. */
static int count_dir(const char *path)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(path);

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* The first line of a small sysfs or proc file, without its newline. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		rc = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

static struct rp_doc_netdev *netdev_slot(struct rp_doctor_facts *f,
					 const char *name)
{
	char path[128], v[32];
	struct rp_doc_netdev *n;

	for (size_t i = 0; i < f->nnetdevs; i++)
		if (!strcmp(f->netdevs[i].name, name))
			return &f->netdevs[i];
	if (f->nnetdevs == RP_DOC_NETDEVS)
		return NULL;
	n = &f->netdevs[f->nnetdevs++];
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(path, sizeof(path), SYSFS_NET "/%s/mtu", name);
	if (!read_line(path, v, sizeof(v)))
		n->mtu = (int)strtol(v, NULL, 10);
	snprintf(path, sizeof(path), SYSFS_NET "/%s/operstate", name);
	/* "unknown": a virtual interface that does not say, but works. */
	n->up = !read_line(path, v, sizeof(v)) &&
		(!strcmp(v, "up") || !strcmp(v, "unknown"));
	return n;
}

/* An address that a GID can carry: not link-local IPv6. */
static bool routable(const struct sockaddr *sa)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET)
		return true;
	return sa->sa_family == AF_INET6 &&
	       !IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr);
}

/* Every interface but loopback, its MTU and whether it has an address. */
static void gather_netdevs(struct rp_doctor_facts *f)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa))
		return;
	for (i = ifa; i; i = i->ifa_next) {
		struct rp_doc_netdev *n;

		if (!i->ifa_name || !strcmp(i->ifa_name, "lo"))
			continue;
		n = netdev_slot(f, i->ifa_name);
		if (n && i->ifa_addr && routable(i->ifa_addr))
			n->has_addr = true;
	}
	freeifaddrs(ifa);
}

/* Whether CAP_IPC_LOCK is in our effective set (root's, usually). */
static bool cap_ipc_lock(void)
{
	char line[256];
	bool yes = false;
	FILE *s = fopen("/proc/self/status", "re");

	if (!s)
		return false;
	while (fgets(line, sizeof(line), s)) {
		unsigned long long eff;

		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			yes = (eff >> CAP_IPC_LOCK_BIT) & 1;
			break;
		}
	}
	fclose(s);
	return yes;
}

static void gather_memlock(struct rp_doctor_facts *f)
{
	struct rlimit rl;

	f->ring = (uint64_t)RP_DEFAULT_CHUNK * RP_DEFAULT_WINDOW;
	f->cap_ipc_lock = cap_ipc_lock();
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY) {
		f->memlock_unlimited = true;
		return;
	}
	f->memlock = rl.rlim_cur;
}

/* The socket inode listening on TCP port in /proc/net/tcp or tcp6. */
static unsigned long listener_inode(const char *table, uint16_t port)
{
	char line[512];
	unsigned long inode = 0;
	FILE *t = fopen(table, "re");

	if (!t)
		return 0;
	while (!inode && fgets(line, sizeof(line), t)) {
		unsigned int lport, st;
		unsigned long ino;

		/* sl local remote st tx:rx tr:when retr uid tmo inode */
		if (sscanf(line, " %*d: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x "
			   "%*x:%*x %*x:%*x %*x %*u %*u %lu", &lport, &st,
			   &ino) == 3 && lport == port && st == 0x0a)
			inode = ino;
	}
	fclose(t);
	return inode;
}

/* The process with a descriptor on socket inode, or 0. Cheap enough:
 * /proc/[pid]/fd of the processes we may look into (all, for root). */
static int socket_owner(unsigned long inode, char *comm, size_t len)
{
	char want[48], path[sizeof("/proc//fd/") + 2 * 256], target[64];
	struct dirent *p;
	DIR *procs = opendir("/proc");
	int pid = 0;

	if (!procs)
		return 0;
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	while (!pid && (p = readdir(procs))) {
		struct dirent *e;
		DIR *fds;

		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		while (fds && !pid && (e = readdir(fds))) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
				 p->d_name, e->d_name);
			n = readlink(path, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (!strcmp(target, want))
				pid = (int)strtol(p->d_name, NULL, 10);
		}
		if (fds)
			closedir(fds);
	}
	closedir(procs);
	if (pid) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (read_line(path, comm, len))
			snprintf(comm, len, "?");
	}
	return pid;
}

/* Whether rdmapush recv could listen on port here, and if not who
 * holds it. A bind with SO_REUSEADDR, as the receiver's, then closed. */
static void gather_listen(struct rp_doctor_facts *f, uint16_t port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1;
	unsigned long inode;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	f->port = port;
	if (fd < 0) {
		f->bind_rc = -errno;
		return;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		f->bind_rc = -errno;
	close(fd);
	if (f->bind_rc != -EADDRINUSE)
		return;
	inode = listener_inode("/proc/net/tcp", port);
	if (!inode)
		inode = listener_inode("/proc/net/tcp6", port);
	if (inode)
		f->holder_pid = socket_owner(inode, f->holder_comm,
					     sizeof(f->holder_comm));
}

/* Whether this kernel's modules have rdma_rxe (modprobe can load it). */
static bool rxe_module(void)
{
	char pat[sizeof(struct utsname) + 64];
	struct utsname u;
	glob_t g;
	bool yes;

	if (uname(&u))
		return false;
	snprintf(pat, sizeof(pat), "/lib/modules/%s/kernel/drivers/"
		 "infiniband/sw/rxe/rdma_rxe.ko*", u.release);
	yes = !glob(pat, 0, NULL, &g);
	if (yes)
		globfree(&g);
	return yes;
}

static void gather_devices(const struct rp_config *o,
			   struct rp_doctor_facts *f)
{
	f->dev = o->dev;
	f->sysfs_devs = count_dir(SYSFS_IB);
	f->rxe_loaded = !access("/sys/module/rdma_rxe", F_OK);
	f->rxe_module = rxe_module();
	f->list_rc = rp_verbs_devices(o->dev, &f->devs);
	f->list_cause = take(f->list_rc, f->list_error,
			     sizeof(f->list_error));
	gather_netdevs(f);
}

/* The active MTU of the port the choice names, bytes (0: not found). */
static int chosen_mtu(const struct rp_doctor_facts *f)
{
	for (size_t i = 0; i < f->devs.ndevs; i++) {
		const struct rp_dev_info *d = &f->devs.devs[i];

		if (strcmp(d->name, f->choice.dev))
			continue;
		for (size_t k = 0; k < d->nports; k++)
			if (d->ports[k].num == f->choice.port)
				return d->ports[k].active_mtu;
	}
	return 0;
}

/* TCP to HOST:port, closed at once (or kept in *keep). */
static void probe_tcp(const struct rp_config *o, struct rp_doc_tcp *t,
		      uint16_t port, int *keep)
{
	int fd = -1;

	t->port = port;
	t->tried = true;
	t->rc = rp_ctrl_connect(o->host, port, rp_now() + o->timeout, &fd);
	(void)take(t->rc, t->error, sizeof(t->error));
	if (keep && !t->rc)
		*keep = fd;
	else
		rp_ctrl_close(&fd);
}

/* IBV_MTU_* as the wire carries it (1 = 256 .. 5 = 4096), in bytes. */
static int wire_mtu_bytes(uint8_t m)
{
	return m >= 1 && m <= 5 ? 128 << m : 0;
}

/* One round trip of op with HOST's ping server, over fd (taken). */
static void probe_trip(const struct rp_config *o, uint16_t ping_port,
		       uint8_t op, int fd, struct rp_doctor_facts *f,
		       struct rp_doc_trip *t)
{
	struct rp_config c = *o;
	struct rp_ping_result res;
	char peer[80];

	c.port = ping_port;
	c.ping_op = op;
	c.ping_iters = 1;
	c.ping_size = PROBE_SIZE;
	snprintf(peer, sizeof(peer), "%s:%u", o->host, ping_port);
	t->op = op;
	t->tried = true;
	t->rc = rp_ping_client_fd(&c, fd, peer, &res);
	(void)take(t->rc, t->error, sizeof(t->error));
	/* What failed, without the general advice after it: the finding
	 * gives its own, for this situation. */
	t->error[strcspn(t->error, ";")] = '\0';
	t->connected = res.connected;
	if (!t->rc)
		t->us = res.rtt.min;
	if (res.connected && !f->peer_mtu) {
		memcpy(f->peer_gid, res.remote.gid, sizeof(f->peer_gid));
		f->peer_mtu = wire_mtu_bytes(res.remote.mtu);
	}
}

static void gather_host(const struct rp_config *o, uint16_t ping_port,
			const uint8_t *ops, size_t nops,
			struct rp_doctor_facts *f)
{
	struct rp_devices_for df = { .host = o->host };
	int fd = -1;

	f->host = o->host;
	f->choose_rc = rp_devices_answer_for(o, &df);
	snprintf(f->local_addr, sizeof(f->local_addr), "%s", df.local_addr);
	if (f->choose_rc && !df.local_addr[0]) {
		/* Not even a route: nothing further can be tried. */
		f->route_rc = f->choose_rc;
		(void)take(f->route_rc, f->route_error,
			   sizeof(f->route_error));
		return;
	}
	(void)take(f->choose_rc, f->choose_error, sizeof(f->choose_error));
	if (!f->choose_rc) {
		f->choice = df.choice;
		f->our_mtu = chosen_mtu(f);
	}
	probe_tcp(o, &f->recv_tcp, o->port, NULL);
	for (size_t i = 0; i < nops && i < 2; i++) {
		probe_tcp(o, &f->ping_tcp, ping_port, &fd);
		/* Without a port of ours, or a server there, no trip: the
		 * findings say why already. */
		if (f->ping_tcp.rc || f->choose_rc) {
			rp_ctrl_close(&fd);
			break;
		}
		probe_trip(o, ping_port, ops[i], fd, f, &f->trips[i]);
		fd = -1;
	}
}

void rp_doctor_gather(const struct rp_config *o, uint16_t ping_port,
		      const uint8_t *ops, size_t nops,
		      struct rp_doctor_facts *f)
{
	memset(f, 0, sizeof(*f));
	gather_devices(o, f);
	gather_memlock(f);
	gather_listen(f, o->port);
	if (o->host)
		gather_host(o, ping_port, ops, nops, f);
}

void rp_doctor_facts_free(struct rp_doctor_facts *f)
{
	if (f)
		rp_verbs_devices_free(&f->devs);
}
