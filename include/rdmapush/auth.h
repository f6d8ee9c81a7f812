/* SPDX-License-Identifier: MIT */
/*
 * Pre-shared key (--psk): load the key, make nonces, and compute and check
 * the MACs of the AUTH exchange with libsodium. Each side MACs both nonces
 * with its own role byte, so neither proof can be replayed as the other.
 */
#ifndef RDMAPUSH_AUTH_H
#define RDMAPUSH_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmapush/proto.h"

#define RP_PSK_LEN	32
#define RP_PSK_MIN_FILE	16	/* bytes of key material, at the least */

enum rp_auth_role {
	RP_AUTH_ROLE_RECV = 'R',
	RP_AUTH_ROLE_SEND = 'S',
};

/*
 * Read the key file (16 bytes to 64 KiB of any content) and derive the
 * key from it (BLAKE2b). 0, -errno or RP_EUSAGE (too short/long),
 * reported with the path.
 */
int rp_auth_load(const char *path, uint8_t key[RP_PSK_LEN])
	__attribute__((warn_unused_result));
void rp_auth_nonce(uint8_t nonce[RP_AUTH_NONCE_LEN]);
/* HMAC-SHA-256 over role || first || second. */
void rp_auth_mac(const uint8_t key[RP_PSK_LEN], enum rp_auth_role role,
		 const uint8_t first[RP_AUTH_NONCE_LEN],
		 const uint8_t second[RP_AUTH_NONCE_LEN],
		 uint8_t mac[RP_AUTH_MAC_LEN]);
/* Constant-time check of a MAC computed as above. */
bool rp_auth_check(const uint8_t key[RP_PSK_LEN], enum rp_auth_role role,
		   const uint8_t first[RP_AUTH_NONCE_LEN],
		   const uint8_t second[RP_AUTH_NONCE_LEN],
		   const uint8_t mac[RP_AUTH_MAC_LEN]);

#endif
