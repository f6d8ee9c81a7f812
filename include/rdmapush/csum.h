/* SPDX-License-Identifier: MIT */
/* End-to-end checksum: streaming XXH3-128 (libxxhash), canonical bytes. */
#ifndef RDMAPUSH_CSUM_H
#define RDMAPUSH_CSUM_H

#include <stddef.h>
#include <stdint.h>

#include "rdmapush/proto.h"

struct rp_csum;

/* Returns 0 or -ENOMEM. */
int rp_csum_new(struct rp_csum **out) __attribute__((warn_unused_result));
void rp_csum_update(struct rp_csum *c, const void *buf, size_t len);
/* Canonical big-endian 16 bytes; the state may keep being updated. */
void rp_csum_final(struct rp_csum *c, uint8_t out[RP_CSUM_LEN]);
void rp_csum_free(struct rp_csum *c);
/* 32 lowercase hex digits + NUL into out[33]; returns out. */
char *rp_csum_hex(const uint8_t in[RP_CSUM_LEN], char out[33]);

#endif
