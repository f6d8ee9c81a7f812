/* SPDX-License-Identifier: MIT */
/*
 * What the RDMA devices, their ports and GID tables look like, and which
 * GID a session would use: plain structs that the verbs backend
 * (src/verbs_devices.c, src/verbs_select.c) fills, so that the
 * `devices` command above formats them without ibverbs types.
 */
#ifndef RDMAPUSH_VERBS_DEVICES_H
#define RDMAPUSH_VERBS_DEVICES_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmapush/verbs.h"

#define RP_DEV_NAME_MAX		64	/* IBV_SYSFS_NAME_MAX */
#define RP_DEV_FW_MAX		64	/* ibv_device_attr.fw_ver */
#define RP_DEV_TEXT_MAX		46	/* INET6_ADDRSTRLEN */
#define RP_DEV_ERR_MAX		128

/* enum ibv_gid_type's values, which verbs_devices.c maps one to one. */
enum rp_gid_type {
	RP_GID_IB = 0,
	RP_GID_ROCE_V1,
	RP_GID_ROCE_V2,
	RP_GID_TYPE_MAX,
};

/* IBV_LINK_LAYER_*: UNSPECIFIED is InfiniBand, as ibv_devinfo shows it. */
enum rp_link_layer {
	RP_LINK_IB = 0,
	RP_LINK_ETHERNET,
	RP_LINK_OTHER,
	RP_LINK_MAX,
};

/* One populated entry of a port's GID table. */
struct rp_gid_info {
	uint32_t index;
	enum rp_gid_type type;
	uint8_t raw[16];
	char netdev[IF_NAMESIZE];	/* "" when the entry has none (IB) */
};

struct rp_port_info {
	uint32_t num;			/* 1-based, as verbs count ports */
	int state;			/* enum ibv_port_state's value */
	char state_name[24];		/* "PORT_ACTIVE" (ibv_port_state_str) */
	enum rp_link_layer link;
	int active_mtu;			/* bytes; 0 for a code we do not know */
	int max_mtu;
	uint8_t active_speed;		/* ibv_port_attr's codes, as given */
	uint8_t active_width;
	uint16_t lid;			/* InfiniBand only */
	int gid_tbl_len;		/* slots, populated or not */
	struct rp_gid_info *gids;	/* the populated ones, by index */
	size_t ngids;
	char error[RP_DEV_ERR_MAX];	/* a failed query, "" */
};

struct rp_dev_info {
	char name[RP_DEV_NAME_MAX];
	uint64_t node_guid;		/* host byte order */
	char fw_ver[RP_DEV_FW_MAX];
	int max_qp, max_cq, max_cqe, max_mr;
	uint64_t max_mr_size;
	int max_qp_wr, max_sge, max_qp_rd_atom, max_qp_init_rd_atom;
	struct rp_port_info *ports;
	size_t nports;
	char error[RP_DEV_ERR_MAX];	/* open or query failed, "" */
};

struct rp_dev_list {
	struct rp_dev_info *devs;
	size_t ndevs;
};

/* Why the GID was chosen: the rule of src/verbs_select.c, in order. */
enum rp_pick_why {
	RP_PICK_BY_INDEX = 0,	/* -g INDEX was given */
	RP_PICK_IB_DEFAULT,	/* InfiniBand port: LID routing, GID 0 */
	RP_PICK_BY_ADDR,	/* RoCE v2 GID equal to the local address */
};

/* The device, port and GID the session would use (rp_verbs_choose()). */
struct rp_gid_choice {
	char dev[RP_DEV_NAME_MAX];
	uint32_t port;
	uint32_t gid_index;
	uint8_t gid[16];
	enum rp_gid_type type;
	enum rp_pick_why why;
};

/*
 * Every device (or only dev_name when not NULL), its limits, ports and
 * populated GIDs, in ibv_get_device_list's order. A device or port that
 * cannot be opened or queried is kept with its error field set. 0 with
 * *out ours (rp_verbs_devices_free), or RP_ENODEV when there is no
 * device or none named dev_name, or -ENOMEM; reported, *out then empty.
 */
int rp_verbs_devices(const char *dev_name, struct rp_dev_list *out)
	__attribute__((warn_unused_result));

/*
 * The device, port and GID rp_verbs_open() would choose for cfg (its
 * dev_name, ib_port, gid_index and local_addr), by the very same code.
 * Opens and closes the devices, nothing more. 0, or RP_ENODEV /
 * RP_ENOGID / -errno, reported as a session reports them (with what to
 * do).
 */
int rp_verbs_choose(const struct rp_verbs_cfg *cfg, struct rp_gid_choice *out)
	__attribute__((warn_unused_result));

/* Frees what rp_verbs_devices() allocated; NULL-safe, idempotent. */
void rp_verbs_devices_free(struct rp_dev_list *l);

/* The GID type's name: a static string, "?" outside the enum. */
const char *rp_gid_type_name(enum rp_gid_type t);

#endif
