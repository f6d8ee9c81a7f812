// SPDX-License-Identifier: MIT
/*
 * libpcap, loaded only by what uses it (--capture, render --packets).
 *
 * Linked, libpcap brings eight libraries of its own (D-Bus, systemd,
 * libgcrypt, three compressors...) into every start of the tool: in the
 * lab 'rdmapush --version' took 157 ms with them, 110 without. So the
 * two modules that use it call it through rp_pcap, filled by
 * rp_pcap_load() with dlopen(3). The header still comes from
 * libpcap-dev: each pointer has the type of the function it stands for.
 */
#ifndef RP_PCAP_API_H
#define RP_PCAP_API_H

#include <pcap/pcap.h>

struct rp_pcap_api {
	__typeof__(pcap_create) *create;
	__typeof__(pcap_set_snaplen) *set_snaplen;
	__typeof__(pcap_set_immediate_mode) *set_immediate_mode;
	__typeof__(pcap_set_buffer_size) *set_buffer_size;
	__typeof__(pcap_activate) *activate;
	__typeof__(pcap_datalink) *datalink;
	__typeof__(pcap_compile) *compile;
	__typeof__(pcap_setfilter) *setfilter;
	__typeof__(pcap_freecode) *freecode;
	__typeof__(pcap_setnonblock) *setnonblock;
	__typeof__(pcap_get_selectable_fd) *get_selectable_fd;
	__typeof__(pcap_dispatch) *dispatch;
	__typeof__(pcap_stats) *stats;
	__typeof__(pcap_geterr) *geterr;
	__typeof__(pcap_close) *close;
	__typeof__(pcap_dump_fopen) *dump_fopen;
	__typeof__(pcap_dump) *dump;
	__typeof__(pcap_dump_flush) *dump_flush;
	__typeof__(pcap_dump_close) *dump_close;
	__typeof__(pcap_fopen_offline) *fopen_offline;
	__typeof__(pcap_next_ex) *next_ex;
};

/* Valid once rp_pcap_load() returned 0. */
extern struct rp_pcap_api rp_pcap;

/*
 * Loads libpcap once per process (RP_PCAP_SONAME, or the path in
 * RDMAPUSH_LIBPCAP) and fills rp_pcap; thread-safe, and cheap after the
 * first call. 0, or RP_ECONFIG reported (for is what needs it: the
 * option or the file, as the error line starts).
 */
int rp_pcap_load(const char *for_what) __attribute__((warn_unused_result));

#endif
