/* SPDX-License-Identifier: MIT */
/*
 * Pre-shared key (--psk): load and make key files, make nonces, compute
 * and check the MACs of the AUTH exchange, derive the session key from
 * both nonces, and tag every later control message with it (libsodium).
 * Each side MACs both nonces with its own role byte, so neither proof can
 * be replayed as the other; each tag covers a direction byte and a
 * per-direction sequence number, so no message can be reflected, replayed,
 * reordered or dropped unseen.
 */
#ifndef RDMAPUSH_AUTH_H
#define RDMAPUSH_AUTH_H

#include "rdmapush/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmapush/proto.h"

#define RP_PSK_LEN	32
#define RP_PSK_MIN_FILE	32	/* bytes of key material, at the least */
#define RP_PSK_MAX_FILE	65536
#define RP_SKEY_LEN	32	/* session key */
#define RP_TAG_LEN	32	/* HMAC-SHA-256 at the end of each payload */
#define RP_KEY_ID_LEN	32

_Static_assert(RP_TAG_LEN <= RP_PROTO_TAG_ROOM,
	       "every message leaves room for its tag");

/* Role byte of the AUTH proofs, and direction byte of the tags. */
enum rp_auth_role {
	RP_AUTH_ROLE_RECV = 'R',	/* receiver -> sender */
	RP_AUTH_ROLE_SEND = 'S',	/* sender -> receiver */
};

/*
 * Read the key file and derive the key from it (BLAKE2b-256 of its
 * contents). The file must be 32 bytes to 64 KiB and readable by its
 * owner only. 0 or RP_ECONFIG (every key-file problem: missing,
 * unreadable, not a regular file, too open, too short, too long),
 * reported with the path.
 */
int rp_auth_load(const char *path, uint8_t key[RP_PSK_LEN])
	__attribute__((warn_unused_result));
/*
 * Write a new key file of RP_PSK_MIN_FILE random bytes, mode 0600, never
 * replacing anything at path. 0, RP_ECONFIG (path exists) or -errno,
 * reported with the path.
 */
int rp_auth_keygen(const char *path) __attribute__((warn_unused_result));
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

/*
 * The session key, once both proofs are checked: BLAKE2b-256 keyed with
 * the PSK over "rdmapush v2 session key" || sender's nonce || receiver's.
 */
void rp_auth_session_key(const uint8_t psk[RP_PSK_LEN],
			 const uint8_t send_nonce[RP_AUTH_NONCE_LEN],
			 const uint8_t recv_nonce[RP_AUTH_NONCE_LEN],
			 uint8_t skey[RP_SKEY_LEN]);
/*
 * A control message's tag: HMAC-SHA-256(skey, dir || be64(seq) || hdr ||
 * body), where hdr is the 12-byte header as sent (its length counts the
 * tag) and body the payload without the tag.
 */
void rp_auth_tag(const uint8_t skey[RP_SKEY_LEN], enum rp_auth_role dir,
		 uint64_t seq, const uint8_t hdr[RP_PROTO_HDR_LEN],
		 const uint8_t *body, size_t len, uint8_t tag[RP_TAG_LEN]);
/* Constant-time check of a tag computed as above. */
bool rp_auth_tag_check(const uint8_t skey[RP_SKEY_LEN], enum rp_auth_role dir,
		       uint64_t seq, const uint8_t hdr[RP_PROTO_HDR_LEN],
		       const uint8_t *body, size_t len,
		       const uint8_t tag[RP_TAG_LEN]);

/* The key's id, as kept partials' journals record it: whether a later
 * push comes with the same key, without writing the key down. */
void rp_auth_key_id(const uint8_t key[RP_PSK_LEN], uint8_t out[RP_KEY_ID_LEN]);

#endif
