// SPDX-License-Identifier: MIT
/* End-to-end checksum: XXH3-128 over libxxhash, per chunk and per file
 * (the digest of the chunks' digests), canonical bytes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "rdmapush/csum.h"
#include "rdmapush/trace.h"

/*
 * A wrapper rather than XXH3_state_t itself: the state wants 64-byte
 * alignment, which XXH3_createState() provides and plain malloc does not.
 */
struct rp_csum {
	XXH3_state_t *state;
};

int rp_csum_new(struct rp_csum **out)
{
	struct rp_csum *c;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto err;
	c->state = XXH3_createState();
	if (!c->state)
		goto err_free;
	/* Only fails on a NULL state, which we just ruled out. */
	if (XXH3_128bits_reset(c->state) != XXH_OK)
		goto err_free_state;
	*out = c;
	return 0;

err_free_state:
	XXH3_freeState(c->state);
err_free:
	free(c);
err:
	RP_ERR("XXH3_createState: %s", strerror(ENOMEM));
	return -ENOMEM;
}

void rp_csum_update(struct rp_csum *c, const void *buf, size_t len)
{
	/* Fails only for NULL input with len > 0, a caller bug. */
	(void)XXH3_128bits_update(c->state, buf, len);
}

void rp_csum_chunk(const void *buf, size_t len, uint8_t out[RP_CSUM_LEN])
{
	XXH128_canonical_t canon;

	XXH128_canonicalFromHash(&canon, XXH3_128bits(buf, len));
	memcpy(out, canon.digest, RP_CSUM_LEN);
}

void rp_csum_fold(struct rp_csum *c, const uint8_t digest[RP_CSUM_LEN])
{
	rp_csum_update(c, digest, RP_CSUM_LEN);
}

void rp_csum_final(struct rp_csum *c, uint8_t out[RP_CSUM_LEN])
{
	XXH128_canonical_t canon;

	/* The digest leaves the state alone, so updates may continue. */
	XXH128_canonicalFromHash(&canon, XXH3_128bits_digest(c->state));
	memcpy(out, canon.digest, RP_CSUM_LEN);
}

void rp_csum_free(struct rp_csum *c)
{
	if (!c)
		return;
	XXH3_freeState(c->state);
	free(c);
}

char *rp_csum_hex(const uint8_t in[RP_CSUM_LEN], char out[33])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < RP_CSUM_LEN; i++) {
		out[2 * i] = hex[in[i] >> 4];
		out[2 * i + 1] = hex[in[i] & 0xf];
	}
	out[2 * RP_CSUM_LEN] = '\0';
	return out;
}
