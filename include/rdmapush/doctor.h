/* SPDX-License-Identifier: MIT */
/*
 * `rdmapush doctor [HOST]`: is this host (and the path to HOST) fit for
 * RDMA? In three steps that stay apart so that the middle one is
 * unit-tested from crafted values: gather the facts into the plain
 * struct below (src/doctor_facts.c: devices, sysfs, limits, sockets, a
 * one-round-trip ping to HOST), judge them into findings
 * (rp_doctor_judge(), pure), print the findings (text or JSON).
 */
#ifndef RDMAPUSH_DOCTOR_H
#define RDMAPUSH_DOCTOR_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmapush/verbs_devices.h"

#define RP_DOC_TEXT	512	/* bytes of a fact's or finding's text */
#define RP_DOC_NETDEVS	16	/* network interfaces looked at */
#define RP_DOC_MAX	32	/* findings in one report */

/* A network interface rxe could sit on, and its MTU. */
struct rp_doc_netdev {
	char name[IF_NAMESIZE];
	int mtu;		/* bytes; 0 when unknown */
	bool up;		/* operstate "up" (or "unknown": virtual) */
	bool has_addr;		/* an IPv4 or a global IPv6 address */
};

/* A TCP port of HOST, connected to and closed again. */
struct rp_doc_tcp {
	uint16_t port;
	bool tried;
	int rc;			/* 0: it accepted, else the error */
	char error[RP_DOC_TEXT];
};

/* One round trip of a data op with the ping server of HOST. */
struct rp_doc_trip {
	uint8_t op;		/* RP_OP_SEND or RP_OP_WRITE */
	bool tried;
	bool connected;		/* the handshake passed */
	int rc;			/* 0: the round trip came back */
	char error[RP_DOC_TEXT];
	double us;		/* its round-trip time */
};

struct rp_doctor_facts {
	/* The devices. */
	int sysfs_devs;		/* /sys/class/infiniband's entries, -1:
				 * no such directory */
	int list_rc;		/* rp_verbs_devices(): 0 or its error */
	int list_cause;		/* its errno (ENOENT: no -d DEV) */
	char list_error[RP_DOC_TEXT];
	struct rp_dev_list devs;
	const char *dev;	/* -d, or NULL */
	bool rxe_loaded;	/* /sys/module/rdma_rxe */
	bool rxe_module;	/* rdma_rxe.ko* in this kernel's modules */
	struct rp_doc_netdev netdevs[RP_DOC_NETDEVS];
	size_t nnetdevs;
	/* Locked memory: what one transfer's ring pins. */
	bool memlock_unlimited;
	uint64_t memlock;	/* bytes, RLIMIT_MEMLOCK's soft limit */
	bool cap_ipc_lock;	/* not bound by it (root, usually) */
	uint64_t ring;		/* bytes the default ring registers */
	/* The receiver's port on this host. */
	uint16_t port;
	int bind_rc;		/* 0: free, -EADDRINUSE, ... */
	int holder_pid;		/* who listens on it, 0: unknown */
	char holder_comm[32];
	/* With HOST. */
	const char *host;	/* NULL: local checks only */
	int route_rc;		/* a route to HOST: 0 or the error */
	char route_error[RP_DOC_TEXT];
	char local_addr[RP_DEV_TEXT_MAX];
	int choose_rc;		/* rp_verbs_choose(): 0 or its error */
	char choose_error[RP_DOC_TEXT];
	struct rp_gid_choice choice;
	int our_mtu;		/* the chosen port's active MTU, bytes */
	struct rp_doc_tcp recv_tcp;	/* the receiver's port */
	struct rp_doc_tcp ping_tcp;	/* the ping server's */
	struct rp_doc_trip trips[2];	/* send, then write */
	uint8_t peer_gid[16];	/* from the first trip that connected */
	int peer_mtu;		/* its active MTU, bytes; 0: not known */
};

enum rp_doc_sev {
	RP_DOC_OK = 0,		/* a check that passed */
	RP_DOC_NOTE,		/* what could not be checked, and why */
	RP_DOC_WARN,		/* matters in some roles only */
	RP_DOC_ERROR,		/* a push or ping would fail: exit 4 */
	RP_DOC_SEV_MAX,
};

/* One line of the report: what, why it matters, the command that fixes
 * it ("" for an ok or a note that needs none). */
struct rp_doc_finding {
	enum rp_doc_sev sev;
	const char *check;	/* "device", "memlock", ...: a static name */
	char what[RP_DOC_TEXT];
	char why[RP_DOC_TEXT];
	char fix[RP_DOC_TEXT];
};

struct rp_doc_report {
	struct rp_doc_finding f[RP_DOC_MAX];
	size_t n;
	size_t errors, warnings;
};

/* --- src/doctor.c: the judge and the printers, no I/O but out ------- */

/* "ok", "note", "warning", "error"; "?" outside the enum. */
const char *rp_doctor_sev_name(enum rp_doc_sev s);
/*
 * The findings facts f call for, in the order of the checks (devices,
 * ports and MTU, GIDs, memory, port; then HOST's), into *r. Pure: the
 * same facts give the same report, so it is unit-tested from crafted
 * facts.
 */
void rp_doctor_judge(const struct rp_doctor_facts *f,
		     struct rp_doc_report *r);
/* One line per finding: "error: WHAT: WHY; fix: FIX". */
void rp_doctor_print_text(FILE *out, const struct rp_doc_report *r);
/* One JSON object: {"type":"doctor", "status", "exit_code", "host",
 * "findings": [...]}. 0 or -ENOMEM / -EIO (reported). */
int rp_doctor_print_json(FILE *out, const struct rp_doc_report *r,
			 const char *host)
	__attribute__((warn_unused_result));
/* The exit status for r: 0, or RP_EXIT_TRANSPORT when it has an error. */
int rp_doctor_exit_code(const struct rp_doc_report *r);

/* --- src/doctor_facts.c: gathering ---------------------------------- */

struct rp_config;
/*
 * Everything the judge looks at, as o says (o->host: the peer, or NULL;
 * o->port: the receiver's; o->timeout: each probe's bound); with HOST,
 * one round trip of each of ops[0..nops) (data ops a ping supports, at
 * most 2) with the ping server on ping_port. Never fails as a whole:
 * what could not be learnt is in the facts, each probe's error as its
 * text (not printed). Free with rp_doctor_facts_free().
 */
void rp_doctor_gather(const struct rp_config *o, uint16_t ping_port,
		      const uint8_t *ops, size_t nops,
		      struct rp_doctor_facts *f);
void rp_doctor_facts_free(struct rp_doctor_facts *f);

/* --- src/doctor_cmd.c: the command ------------------------------------ */

/*
 * Gather (as rp_doctor_gather), judge, print the report on stdout (text,
 * or JSON with o->json) and, when something is wrong, one line and a
 * hint on stderr. The exit status: 0, RP_EXIT_TRANSPORT (a finding is an
 * error) or RP_EXIT_INTERNAL (the report could not be written).
 */
int rp_doctor_run(const struct rp_config *o, uint16_t ping_port,
		  const uint8_t *ops, size_t nops);

#endif
