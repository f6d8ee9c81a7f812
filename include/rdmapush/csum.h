/* SPDX-License-Identifier: MIT */
/*
 * End-to-end checksum over libxxhash, canonical (big-endian) bytes.
 * Protocol version 4: a file's checksum is XXH3-128 over the
 * concatenation of the XXH3-128 digests of its non-empty chunks, in
 * order, each chunk cut at the session's chunk size. An empty file has
 * no chunk: its checksum is XXH3-128 of nothing. Chunks can so be hashed
 * in parallel, and each checked on its own.
 */
#ifndef RDMAPUSH_CSUM_H
#define RDMAPUSH_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a digest: XXH3-128, canonical (big-endian) form. The wire
 * carries checksums of this size (proto.h). */
#define RP_CSUM_LEN		16

struct rp_csum;

/* One chunk's digest: pure, safe from any thread. */
void rp_csum_chunk(const void *buf, size_t len, uint8_t out[RP_CSUM_LEN]);

/* A running XXH3-128. Returns 0 or -ENOMEM. */
int rp_csum_new(struct rp_csum **out) __attribute__((warn_unused_result));
void rp_csum_update(struct rp_csum *c, const void *buf, size_t len);
/* Append the next chunk's digest to a file's checksum (version 4). */
void rp_csum_fold(struct rp_csum *c, const uint8_t digest[RP_CSUM_LEN]);
/* Canonical big-endian 16 bytes; the state may keep being updated. */
void rp_csum_final(struct rp_csum *c, uint8_t out[RP_CSUM_LEN]);
void rp_csum_free(struct rp_csum *c);
/* 32 lowercase hex digits + NUL into out[33]; returns out. */
char *rp_csum_hex(const uint8_t in[RP_CSUM_LEN], char out[33]);

#endif
