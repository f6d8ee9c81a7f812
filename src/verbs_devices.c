// SPDX-License-Identifier: MIT
/*
 * `rdmapush devices`, the libibverbs half: every device's attributes,
 * ports and populated GIDs copied into the plain structs of
 * include/rdmapush/devices.h (src/devices.c formats them).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/err.h"
#include "rdmapush/trace.h"
#include "rdmapush/verbs_devices.h"
#include "verbs_int.h"

enum rp_gid_type rp_verbs_gid_type_rp(uint32_t ibv_gid_type)
{
	switch (ibv_gid_type) {
	case IBV_GID_TYPE_IB:
		return RP_GID_IB;
	case IBV_GID_TYPE_ROCE_V1:
		return RP_GID_ROCE_V1;
	case IBV_GID_TYPE_ROCE_V2:
		return RP_GID_ROCE_V2;
	default:
		return RP_GID_TYPE_MAX;
	}
}

static enum rp_link_layer link_rp(uint8_t ll)
{
	if (ll == IBV_LINK_LAYER_ETHERNET)
		return RP_LINK_ETHERNET;
	if (ll == IBV_LINK_LAYER_INFINIBAND || ll == IBV_LINK_LAYER_UNSPECIFIED)
		return RP_LINK_IB;
	return RP_LINK_OTHER;
}

/* As ibv_devinfo names them (ibv_port_state_str says "active"). */
static const char *state_name(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_NOP:
		return "PORT_NOP";
	case IBV_PORT_DOWN:
		return "PORT_DOWN";
	case IBV_PORT_INIT:
		return "PORT_INIT";
	case IBV_PORT_ARMED:
		return "PORT_ARMED";
	case IBV_PORT_ACTIVE:
		return "PORT_ACTIVE";
	case IBV_PORT_ACTIVE_DEFER:
		return "PORT_ACTIVE_DEFER";
	default:
		return "PORT_?";
	}
}

static void copy_device_attr(struct rp_dev_info *d,
			     const struct ibv_device_attr *da)
{
	d->node_guid = be64toh(da->node_guid);
	snprintf(d->fw_ver, sizeof(d->fw_ver), "%s", da->fw_ver);
	d->max_qp = da->max_qp;
	d->max_cq = da->max_cq;
	d->max_cqe = da->max_cqe;
	d->max_mr = da->max_mr;
	d->max_mr_size = da->max_mr_size;
	d->max_qp_wr = da->max_qp_wr;
	d->max_sge = da->max_sge;
	d->max_qp_rd_atom = da->max_qp_rd_atom;
	d->max_qp_init_rd_atom = da->max_qp_init_rd_atom;
}

static void copy_port_attr(struct rp_port_info *p, uint32_t num,
			   const struct ibv_port_attr *pa)
{
	p->num = num;
	p->state = pa->state;
	snprintf(p->state_name, sizeof(p->state_name), "%s",
		 state_name(pa->state));
	p->link = link_rp(pa->link_layer);
	p->active_mtu = rp_verbs_mtu_bytes(pa->active_mtu);
	p->max_mtu = rp_verbs_mtu_bytes(pa->max_mtu);
	p->active_speed = pa->active_speed;
	p->active_width = pa->active_width;
	p->lid = p->link == RP_LINK_ETHERNET ? 0 : pa->lid;
	p->gid_tbl_len = pa->gid_tbl_len;
}

/*
 * Every populated GID of every port in one ibv_query_gid_table() (one
 * call instead of a query per slot; rxe has 1024 slots a port), handed
 * out to the ports by port number. Failure is noted on each port.
 */
static void query_gids(struct ibv_context *ctx, struct rp_dev_info *d)
{
	struct ibv_gid_entry *e;
	size_t slots = 0;
	ssize_t n;

	for (size_t i = 0; i < d->nports; i++)
		if (!d->ports[i].error[0] && d->ports[i].gid_tbl_len > 0)
			slots += (size_t)d->ports[i].gid_tbl_len;
	if (!slots)
		return;
	e = calloc(slots, sizeof(*e));
	n = e ? ibv_query_gid_table(ctx, e, slots, 0) : -ENOMEM;
	for (size_t i = 0; i < d->nports; i++) {
		struct rp_port_info *p = &d->ports[i];

		if (n < 0 && !p->error[0])
			snprintf(p->error, sizeof(p->error),
				 "ibv_query_gid_table: %s", strerror((int)-n));
		if (n <= 0 || p->error[0])
			continue;
		p->gids = calloc((size_t)n, sizeof(*p->gids));
		if (!p->gids) {
			snprintf(p->error, sizeof(p->error), "calloc: %s",
				 strerror(ENOMEM));
			continue;
		}
		for (ssize_t k = 0; k < n; k++) {
			struct rp_gid_info *g = &p->gids[p->ngids];

			if (e[k].port_num != p->num)
				continue;
			g->index = e[k].gid_index;
			g->type = rp_verbs_gid_type_rp(e[k].gid_type);
			memcpy(g->raw, e[k].gid.raw, sizeof(g->raw));
			/* A RoCE GID belongs to a netdev; IB ones to none. */
			if (e[k].ndev_ifindex &&
			    !if_indextoname(e[k].ndev_ifindex, g->netdev))
				snprintf(g->netdev, sizeof(g->netdev), "#%u",
					 e[k].ndev_ifindex);
			p->ngids++;
		}
	}
	free(e);
}

/* One opened device: its attributes and ports. Errors go in d->error. */
static void query_device(struct ibv_context *ctx, struct rp_dev_info *d)
{
	struct ibv_device_attr da;
	int rc = ibv_query_device(ctx, &da);

	if (rc) {
		snprintf(d->error, sizeof(d->error), "ibv_query_device: %s",
			 strerror(rc));
		return;
	}
	copy_device_attr(d, &da);
	d->ports = calloc(da.phys_port_cnt, sizeof(*d->ports));
	if (!d->ports) {
		snprintf(d->error, sizeof(d->error), "calloc: %s",
			 strerror(ENOMEM));
		return;
	}
	d->nports = da.phys_port_cnt;
	for (uint32_t i = 0; i < d->nports; i++) {
		struct ibv_port_attr pa;

		d->ports[i].num = i + 1;
		rc = ibv_query_port(ctx, (uint8_t)(i + 1), &pa);
		if (rc)
			snprintf(d->ports[i].error, sizeof(d->ports[i].error),
				 "ibv_query_port: %s", strerror(rc));
		else
			copy_port_attr(&d->ports[i], i + 1, &pa);
	}
	query_gids(ctx, d);
}

static void collect_one(struct ibv_device *dev, struct rp_dev_info *d)
{
	struct ibv_context *ctx;

	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	ctx = ibv_open_device(dev);
	if (!ctx) {
		snprintf(d->error, sizeof(d->error), "ibv_open_device: %s",
			 strerror(errno));
		return;
	}
	query_device(ctx, d);
	rp_verbs_close_device(ctx, d->name);
}

/* -d names no device: the session's own words (verbs_select.c). */
static void report_not_found(struct ibv_device **list, const char *dev_name)
{
	char names[512] = "";
	size_t len = 0;

	for (int i = 0; list[i] && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len,
					"%s%s", i ? ", " : "",
					ibv_get_device_name(list[i]));
	/* ENOENT: others exist, so the hint names -d, not rdma link add. */
	RP_ERR_WHY(ENOENT, "RDMA device \"%s\" not found; devices: %s",
		   dev_name, names);
}

int rp_verbs_devices(const char *dev_name, struct rp_dev_list *out)
{
	struct ibv_device **list;
	int ndev = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	rp_verbs_load_providers();
	errno = 0;
	list = ibv_get_device_list(&ndev);
	if (!list || !ndev) {
		rp_verbs_report_no_device(list ? 0 : errno);
		rc = RP_ENODEV;
		goto out_free;
	}
	out->devs = calloc((size_t)ndev, sizeof(*out->devs));
	if (!out->devs) {
		rc = -ENOMEM;
		RP_ERR("calloc: %s", strerror(ENOMEM));
		goto out_free;
	}
	for (int i = 0; list[i]; i++) {
		if (dev_name && strcmp(ibv_get_device_name(list[i]), dev_name))
			continue;
		collect_one(list[i], &out->devs[out->ndevs++]);
	}
	if (!out->ndevs) {
		report_not_found(list, dev_name);
		rc = RP_ENODEV;
		rp_verbs_devices_free(out);
	}
out_free:
	if (list)
		ibv_free_device_list(list);
	return rc;
}
