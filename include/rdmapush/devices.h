/* SPDX-License-Identifier: MIT */
/*
 * `rdmapush devices`: what the RDMA devices, their ports and GID tables
 * look like, and which GID rdmapush would use to reach a host. The
 * backend (src/verbs_devices.c, src/verbs_select.c) fills the plain
 * structs below; src/devices.c formats them as text or JSON without
 * ever seeing ibverbs types, so its output is unit-tested from
 * synthetic values.
 */
#ifndef RDMAPUSH_DEVICES_H
#define RDMAPUSH_DEVICES_H

#include "rdmapush/export.h"

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

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

/* What `devices --for HOST` found, for the formatters. */
struct rp_devices_for {
	const char *host;		/* NULL: no --for */
	char local_addr[RP_DEV_TEXT_MAX]; /* "" when HOST did not resolve */
	bool chosen;			/* choice is valid */
	struct rp_gid_choice choice;
	const char *error;		/* why nothing was chosen, or NULL */
};

/* --- backend: src/verbs_devices.c and src/verbs_select.c ------------- */

/*
 * Every device (or only dev_name when not NULL), its limits, ports and
 * populated GIDs, in ibv_get_device_list's order. A device or port that
 * cannot be opened or queried is kept with its error field set. 0 with
 * *out ours (rp_devices_free), or RP_ENODEV when there is no device or
 * none named dev_name, or -ENOMEM; reported, *out then empty.
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

/* --- the command: src/devices_cmd.c --------------------------------- */

struct rp_config;
/*
 * Run `rdmapush devices` as o says, for_host (--for, or NULL) marking
 * the GID a session to it would use: the report on stdout, what failed
 * and what to do on stderr. Returns the exit code (enum rp_exit).
 */
RP_TOOL int rp_devices_run(const struct rp_config *o, const char *for_host);

/* --- formatting and the command: src/devices.c ----------------------- */

/* Frees what rp_verbs_devices() allocated; NULL-safe, idempotent. */
void rp_devices_free(struct rp_dev_list *l);

/* Names: static strings, "?" for a value outside the enum. */
const char *rp_devices_gid_type_name(enum rp_gid_type t);
const char *rp_devices_link_name(enum rp_link_layer l);
/*
 * ibv_port_attr's active_speed / active_width codes, as rdma-core's
 * ibv_devinfo reads them: per-lane "2.5 Gb/s" (and its Gb/s in *gbps,
 * 0 when unknown), lanes "4X" (and their count in *lanes, 0 when
 * unknown). An unknown code gives "code N" in buf; returns buf.
 */
const char *rp_devices_speed_name(uint8_t code, double *gbps, char *buf,
				  size_t len);
const char *rp_devices_width_name(uint8_t code, int *lanes, char *buf,
				  size_t len);

/*
 * The local address the kernel would use to reach host (resolved as the
 * session's control connection resolves it; a UDP socket's connect()
 * and getsockname(), no packet sent). 0, RP_ERESOLVE or -errno
 * (reported).
 */
int rp_devices_local_addr(const char *host, uint16_t port,
			  struct sockaddr_storage *ss, socklen_t *len,
			  char *text, size_t text_len)
	__attribute__((warn_unused_result));

/* Why f->choice was chosen, one sentence into buf; returns buf. */
const char *rp_devices_reason(const struct rp_devices_for *f, char *buf,
			      size_t len);

/* The report as aligned text; f NULL or f->host NULL: no --for part. */
void rp_devices_print_text(FILE *out, const struct rp_dev_list *l,
			   const struct rp_devices_for *f);
/*
 * The report as one JSON object and a newline. rc: the command's result
 * (0, or the error its "error" member names with exit_code).
 * 0 or -ENOMEM / -EIO (reported).
 */
int rp_devices_print_json(FILE *out, const struct rp_dev_list *l,
			  const struct rp_devices_for *f, int rc,
			  const char *error)
	__attribute__((warn_unused_result));

#endif
