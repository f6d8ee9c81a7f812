// SPDX-License-Identifier: MIT
/*
 * `rdmapush devices`, the formatting half: the devices, ports and GIDs
 * that src/verbs_devices.c collected, as aligned text or one JSON
 * object, with the GID `--for HOST` would use marked and explained; and
 * the local address the kernel routes HOST through.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmapush/ctrl.h"
#include "rdmapush/devices.h"
#include "rdmapush/err.h"
#include "rdmapush/json.h"
#include "rdmapush/sys.h"
#include "rdmapush/trace.h"

const char *rp_devices_link_name(enum rp_link_layer l)
{
	static const char *const names[] = {
		[RP_LINK_IB] = "InfiniBand",
		[RP_LINK_ETHERNET] = "Ethernet",
		[RP_LINK_OTHER] = "unknown link layer",
	};

	return (unsigned int)l < RP_LINK_MAX ? names[l] : "?";
}

/*
 * IBA's codes (enum ib_port_speed and the PortInfo width bits), read
 * as rdma-core's ibv_devinfo reads them: speed per lane, times lanes.
 */
const char *rp_devices_speed_name(uint8_t code, double *gbps, char *buf,
				  size_t len)
{
	static const struct {
		uint8_t code;
		double gbps;
		const char *name;
	} speeds[] = {
		{ 1, 2.5, "2.5 Gb/s" },		/* SDR */
		{ 2, 5.0, "5 Gb/s" },		/* DDR */
		{ 4, 10.0, "10 Gb/s" },		/* QDR */
		{ 8, 10.0, "10 Gb/s" },		/* FDR10 */
		{ 16, 14.0, "14 Gb/s" },	/* FDR */
		{ 32, 25.0, "25 Gb/s" },	/* EDR */
		{ 64, 50.0, "50 Gb/s" },	/* HDR */
		{ 128, 100.0, "100 Gb/s" },	/* NDR */
	};

	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		if (speeds[i].code == code) {
			*gbps = speeds[i].gbps;
			return speeds[i].name;
		}
	}
	*gbps = 0;
	snprintf(buf, len, "speed code %u", code);
	return buf;
}

const char *rp_devices_width_name(uint8_t code, int *lanes, char *buf,
				  size_t len)
{
	switch (code) {
	case 1:
		*lanes = 1;
		return "1X";
	case 2:
		*lanes = 4;
		return "4X";
	case 4:
		*lanes = 8;
		return "8X";
	case 8:
		*lanes = 12;
		return "12X";
	case 16:
		*lanes = 2;
		return "2X";
	default:
		*lanes = 0;
		snprintf(buf, len, "width code %u", code);
		return buf;
	}
}

/* A UDP socket's connect() picks the route and source, sends nothing. */
static int source_for(const struct addrinfo *ai, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = 0;

	if (fd < 0)
		return -errno;
	*len = sizeof(*ss);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) ||
	    getsockname(fd, (struct sockaddr *)ss, len))
		rc = -errno;
	close(fd);
	return rc;
}

static void addr_text(const struct sockaddr_storage *ss, char *text,
		      size_t len)
{
	const void *a = ss->ss_family == AF_INET ?
		(const void *)&((const struct sockaddr_in *)ss)->sin_addr :
		(const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if (!inet_ntop(ss->ss_family, a, text, (socklen_t)len))
		snprintf(text, len, "?");
}

/* getaddrinfo's order, the one rp_ctrl_connect() tries addresses in. */
int rp_devices_local_addr(const char *host, uint16_t port,
			  struct sockaddr_storage *ss, socklen_t *len,
			  char *text, size_t text_len)
{
	struct addrinfo *res, *ai;
	int rc = rp_ctrl_resolve(host, port, SOCK_DGRAM, &res);

	if (rc)
		return rc;
	rc = -EHOSTUNREACH;
	for (ai = res; ai && rc; ai = ai->ai_next)
		rc = source_for(ai, ss, len);
	freeaddrinfo(res);
	if (rc) {
		RP_ERR("no route to %s: connect(UDP): %s", host,
		       strerror(-rc));
		return rc;
	}
	addr_text(ss, text, text_len);
	return 0;
}

const char *rp_devices_reason(const struct rp_devices_for *f, char *buf,
			      size_t len)
{
	const struct rp_gid_choice *c = &f->choice;
	char gid[RP_DEV_TEXT_MAX];

	rp_sys_gid_text(c->gid, gid, sizeof(gid));
	switch (c->why) {
	case RP_PICK_BY_INDEX:
		snprintf(buf, len, "GID index %u was given with -g", c->gid_index);
		break;
	case RP_PICK_IB_DEFAULT:
		snprintf(buf, len, "%s port %u is InfiniBand: packets go by "
			 "LID, and GID 0 (%s) is the port's own", c->dev,
			 c->port, gid);
		break;
	default:
		snprintf(buf, len, "%s GID %s = the local address %s the "
			 "kernel routes %s through",
			 rp_gid_type_name(c->type), gid, f->local_addr,
			 f->host ? f->host : "HOST");
		break;
	}
	return buf;
}

/* Whether GID g of port p on device d is the one --for chose. */
static bool is_chosen(const struct rp_devices_for *f,
		      const struct rp_dev_info *d, const struct rp_port_info *p,
		      const struct rp_gid_info *g)
{
	return f && f->host && f->chosen && !strcmp(f->choice.dev, d->name) &&
	       f->choice.port == p->num && f->choice.gid_index == g->index;
}

static void print_limits(FILE *out, const struct rp_dev_info *d)
{
	char cols[9][48];
	int n = 0;

#define LIMIT(fmt, name, v) snprintf(cols[n++], sizeof(cols[0]), \
				     "%-20s" fmt, name, v)
	LIMIT("%d", "max_qp", d->max_qp);
	LIMIT("%d", "max_cq", d->max_cq);
	LIMIT("%d", "max_cqe", d->max_cqe);
	LIMIT("%d", "max_mr", d->max_mr);
	LIMIT("%" PRIu64, "max_mr_size", d->max_mr_size);
	LIMIT("%d", "max_qp_wr", d->max_qp_wr);
	LIMIT("%d", "max_sge", d->max_sge);
	LIMIT("%d", "max_qp_rd_atom", d->max_qp_rd_atom);
	LIMIT("%d", "max_qp_init_rd_atom", d->max_qp_init_rd_atom);
#undef LIMIT
	fprintf(out, "  limits (ibv_query_device):\n");
	for (int i = 0; i < n; i += 2)
		fprintf(out, "    %-*s%s\n", i + 1 < n ? 42 : 0, cols[i],
			i + 1 < n ? cols[i + 1] : "");
}

static void print_speed(FILE *out, const struct rp_port_info *p)
{
	char sb[32], wb[32];
	double gbps;
	int lanes;
	const char *s = rp_devices_speed_name(p->active_speed, &gbps, sb,
					      sizeof(sb));
	const char *w = rp_devices_width_name(p->active_width, &lanes, wb,
					      sizeof(wb));

	if (gbps > 0 && lanes > 0)
		fprintf(out, "speed %s x %s = %g Gb/s", s, w, gbps * lanes);
	else
		fprintf(out, "speed %s x %s", s, w);
}

static void print_gids(FILE *out, const struct rp_dev_info *d,
		       const struct rp_port_info *p,
		       const struct rp_devices_for *f)
{
	char txt[RP_DEV_TEXT_MAX];
	int aw = (int)strlen("address");
	int nw = (int)strlen("netdev");

	for (size_t i = 0; i < p->ngids; i++) {
		int w = (int)strlen(rp_sys_gid_text(p->gids[i].raw, txt,
						    sizeof(txt)));
		if (w > aw)
			aw = w;
		w = (int)strlen(p->gids[i].netdev);
		if (w > nw)
			nw = w;
	}
	fprintf(out, "    GID table (%zu of %d slots in use):\n", p->ngids,
		p->gid_tbl_len);
	fprintf(out, "      %5s  %-7s  %-*s  %s\n", "index", "type", aw,
		"address", "netdev");
	for (size_t i = 0; i < p->ngids; i++) {
		const struct rp_gid_info *g = &p->gids[i];
		bool mark = is_chosen(f, d, p, g);

		rp_sys_gid_text(g->raw, txt, sizeof(txt));
		fprintf(out, "    %c %5u  %-7s  %-*s  %-*s%s%s\n",
			mark ? '*' : ' ', g->index,
			rp_gid_type_name(g->type), aw, txt,
			mark ? nw : 0, g->netdev[0] ? g->netdev : "-",
			mark ? "  <- for " : "", mark ? f->host : "");
	}
}

static void print_port(FILE *out, const struct rp_dev_info *d,
		       const struct rp_port_info *p,
		       const struct rp_devices_for *f)
{
	fprintf(out, "  port %u: ", p->num);
	if (p->error[0] && !p->state_name[0]) {
		fprintf(out, "%s\n", p->error);
		return;
	}
	fprintf(out, "%s, %s%s, MTU %d (max %d)", p->state_name,
		rp_devices_link_name(p->link),
		p->link == RP_LINK_ETHERNET ? " (RoCE)" : "",
		p->active_mtu, p->max_mtu);
	if (p->link != RP_LINK_ETHERNET)
		fprintf(out, ", LID 0x%04x", p->lid);
	fputs("\n    ", out);
	print_speed(out, p);
	fputc('\n', out);
	if (p->error[0])
		fprintf(out, "    %s\n", p->error);
	else if (!p->ngids)
		fprintf(out, "    GID table: empty\n");
	else
		print_gids(out, d, p, f);
}

static void print_for(FILE *out, const struct rp_devices_for *f)
{
	char gid[RP_DEV_TEXT_MAX], why[256];
	const char *e;

	fprintf(out, "\nfor %s:", f->host);
	if (f->local_addr[0])
		fprintf(out, " the kernel reaches it from %s\n",
			f->local_addr);
	else
		fputc('\n', out);
	if (!f->chosen) {
		e = f->error ? f->error : "(no reason given)";
		/* The first line; the whole report and the hint: stderr. */
		fprintf(out, "  no GID would be used: %.*s\n",
			(int)strcspn(e, "\n"), e);
		return;
	}
	rp_sys_gid_text(f->choice.gid, gid, sizeof(gid));
	fprintf(out, "  rdmapush would use: %s port %u GID %u %s (%s), "
		"marked *\n", f->choice.dev, f->choice.port,
		f->choice.gid_index, gid,
		rp_gid_type_name(f->choice.type));
	fprintf(out, "  why: %s\n", rp_devices_reason(f, why, sizeof(why)));
}

void rp_devices_print_text(FILE *out, const struct rp_dev_list *l,
			   const struct rp_devices_for *f)
{
	for (size_t i = 0; i < l->ndevs; i++) {
		const struct rp_dev_info *d = &l->devs[i];
		uint64_t g = d->node_guid;

		if (i)
			fputc('\n', out);
		if (d->error[0]) {
			fprintf(out, "%s: %s\n", d->name, d->error);
			continue;
		}
		fprintf(out, "%s: node GUID %04x:%04x:%04x:%04x, firmware %s\n",
			d->name, (unsigned int)(g >> 48) & 0xffff,
			(unsigned int)(g >> 32) & 0xffff,
			(unsigned int)(g >> 16) & 0xffff,
			(unsigned int)g & 0xffff,
			d->fw_ver[0] ? d->fw_ver : "(none)");
		print_limits(out, d);
		for (size_t p = 0; p < d->nports; p++)
			print_port(out, d, &d->ports[p], f);
	}
	if (f && f->host)
		print_for(out, f);
}

/* --- JSON ---------------------------------------------------------------- */

static int append(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *gid_json(const struct rp_dev_info *d,
				    const struct rp_port_info *p,
				    const struct rp_gid_info *g,
				    const struct rp_devices_for *f)
{
	struct json_object *o = json_object_new_object();
	char txt[RP_DEV_TEXT_MAX];
	int rc = 0;

	if (!o)
		return NULL;
	rc |= rp_json_add(o, "index", json_object_new_int64(g->index));
	rc |= rp_json_add(o, "type", json_object_new_string(
			  rp_gid_type_name(g->type)));
	rc |= rp_json_add(o, "gid", json_object_new_string(
			  rp_sys_gid_text(g->raw, txt, sizeof(txt))));
	rc |= rp_json_add(o, "netdev", json_object_new_string(g->netdev));
	rc |= rp_json_add(o, "chosen",
			  json_object_new_boolean(is_chosen(f, d, p, g)));
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *port_json(const struct rp_dev_info *d,
				     const struct rp_port_info *p,
				     const struct rp_devices_for *f)
{
	struct json_object *o = json_object_new_object();
	struct json_object *gids = json_object_new_array();
	char sb[32], wb[32];
	double gbps;
	int lanes, rc = 0;
	const char *s = rp_devices_speed_name(p->active_speed, &gbps, sb,
					      sizeof(sb));
	const char *w = rp_devices_width_name(p->active_width, &lanes, wb,
					      sizeof(wb));

	if (!o || !gids)
		goto err;
	for (size_t i = 0; i < p->ngids; i++)
		rc |= append(gids, gid_json(d, p, &p->gids[i], f));
	rc |= rp_json_add(o, "port", json_object_new_int64(p->num));
	rc |= rp_json_add(o, "state", json_object_new_string(p->state_name));
	rc |= rp_json_add(o, "link_layer", json_object_new_string(
			  rp_devices_link_name(p->link)));
	rc |= rp_json_add(o, "active_mtu", json_object_new_int(p->active_mtu));
	rc |= rp_json_add(o, "max_mtu", json_object_new_int(p->max_mtu));
	rc |= rp_json_add(o, "active_speed", json_object_new_string(s));
	rc |= rp_json_add(o, "active_width", json_object_new_string(w));
	rc |= rp_json_add(o, "speed_gbps",
			  json_object_new_double(gbps * lanes));
	rc |= rp_json_add(o, "lid", json_object_new_int(p->lid));
	rc |= rp_json_add(o, "gid_tbl_len",
			  json_object_new_int(p->gid_tbl_len));
	if (p->error[0])
		rc |= rp_json_add(o, "error", json_object_new_string(p->error));
	rc |= rp_json_add(o, "gids", gids);
	gids = NULL;
	if (!rc)
		return o;
err:
	json_object_put(gids);
	json_object_put(o);
	return NULL;
}

static struct json_object *dev_json(const struct rp_dev_info *d,
				    const struct rp_devices_for *f)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ports = json_object_new_array();
	char guid[24];
	int rc = 0;

	if (!o || !ports)
		goto err;
	snprintf(guid, sizeof(guid), "%04x:%04x:%04x:%04x",
		 (unsigned int)(d->node_guid >> 48) & 0xffff,
		 (unsigned int)(d->node_guid >> 32) & 0xffff,
		 (unsigned int)(d->node_guid >> 16) & 0xffff,
		 (unsigned int)d->node_guid & 0xffff);
	for (size_t i = 0; i < d->nports; i++)
		rc |= append(ports, port_json(d, &d->ports[i], f));
	rc |= rp_json_add(o, "name", json_object_new_string(d->name));
	rc |= rp_json_add(o, "node_guid", json_object_new_string(guid));
	rc |= rp_json_add(o, "fw_ver", json_object_new_string(d->fw_ver));
	rc |= rp_json_add(o, "max_qp", json_object_new_int(d->max_qp));
	rc |= rp_json_add(o, "max_cq", json_object_new_int(d->max_cq));
	rc |= rp_json_add(o, "max_cqe", json_object_new_int(d->max_cqe));
	rc |= rp_json_add(o, "max_mr", json_object_new_int(d->max_mr));
	rc |= rp_json_add(o, "max_mr_size",
			  json_object_new_uint64(d->max_mr_size));
	rc |= rp_json_add(o, "max_qp_wr", json_object_new_int(d->max_qp_wr));
	rc |= rp_json_add(o, "max_sge", json_object_new_int(d->max_sge));
	rc |= rp_json_add(o, "max_qp_rd_atom",
			  json_object_new_int(d->max_qp_rd_atom));
	rc |= rp_json_add(o, "max_qp_init_rd_atom",
			  json_object_new_int(d->max_qp_init_rd_atom));
	if (d->error[0])
		rc |= rp_json_add(o, "error", json_object_new_string(d->error));
	rc |= rp_json_add(o, "ports", ports);
	ports = NULL;
	if (!rc)
		return o;
err:
	json_object_put(ports);
	json_object_put(o);
	return NULL;
}

/* "chosen": {device, port, gid_index, gid, type, reason}, or null. */
static int for_json(struct json_object *o, const struct rp_devices_for *f)
{
	struct json_object *c;
	char gid[RP_DEV_TEXT_MAX], why[256];
	int rc = 0;

	rc |= rp_json_add(o, "for", json_object_new_string(f->host));
	rc |= rp_json_add(o, "local_address",
			  json_object_new_string(f->local_addr));
	if (!f->chosen)
		return rc | json_object_object_add(o, "chosen", NULL);
	c = json_object_new_object();
	if (!c)
		return -ENOMEM;
	rp_sys_gid_text(f->choice.gid, gid, sizeof(gid));
	rc |= rp_json_add(c, "device", json_object_new_string(f->choice.dev));
	rc |= rp_json_add(c, "port", json_object_new_int64(f->choice.port));
	rc |= rp_json_add(c, "gid_index",
			  json_object_new_int64(f->choice.gid_index));
	rc |= rp_json_add(c, "gid", json_object_new_string(gid));
	rc |= rp_json_add(c, "type", json_object_new_string(
			  rp_gid_type_name(f->choice.type)));
	rc |= rp_json_add(c, "reason", json_object_new_string(
			  rp_devices_reason(f, why, sizeof(why))));
	return rc | rp_json_add(o, "chosen", c);
}

int rp_devices_print_json(FILE *out, const struct rp_dev_list *l,
			  const struct rp_devices_for *f, int rc,
			  const char *error)
{
	struct json_object *o = json_object_new_object();
	struct json_object *devs = json_object_new_array();
	int err = 0;

	if (!o || !devs) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l->ndevs; i++)
		err |= append(devs, dev_json(&l->devs[i], f));
	err |= rp_json_add(o, "type", json_object_new_string("devices"));
	err |= rp_json_add(o, "devices", devs);
	devs = NULL;
	if (f && f->host)
		err |= for_json(o, f);
	err |= rp_json_add(o, "status",
			   json_object_new_string(rc ? "error" : "ok"));
	if (rc) {
		err |= rp_json_add(o, "error", json_object_new_string(
				   error ? error : rp_strerror(rc)));
		err |= rp_json_add(o, "error_code",
				   json_object_new_string(rp_err_name(rc)));
		err |= rp_json_add(o, "exit_code",
				   json_object_new_int(rp_err_exit_code(rc)));
	}
	err = rp_json_print(out, o, err ? -ENOMEM : 0);
	o = NULL;	/* released by rp_json_print() */
out:
	if (err)
		RP_ERR("devices --json: %s", strerror(err == -EIO ? EIO :
							ENOMEM));
	json_object_put(devs);
	json_object_put(o);
	return err ? (err == -EIO ? -EIO : -ENOMEM) : 0;
}
