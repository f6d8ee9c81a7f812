// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the RoCE v2 decoder refuses garbage cleanly (-ENOMSG
 * or -EBADMSG, *out untouched) and what it accepts is consistent: 24-bit
 * fields within 24 bits, a pad of 0..3, headers and data within the
 * frame, and a formatted line of printable ASCII only, cut cleanly in a
 * small buffer. Built by scripts/fuzz --target roce from src/roce.c
 * alone, seeded from tests/fuzz/corpus/roce (frames of a lab capture of
 * a push, and hand-made ones of the other headers).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdmapush/roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* abort() rather than assert(): the check must survive -DNDEBUG. */
static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_roce_pkt p, before;
	char line[512], small[24];
	int rc, n;

	memset(&p, 0xa5, sizeof(p));
	before = p;
	rc = rp_roce_decode(data, size, &p);
	if (rc) {
		check(rc == -ENOMSG || rc == -EBADMSG);
		check(!memcmp(&p, &before, sizeof(p)));
		return 0;
	}
	check(p.dqpn <= 0xffffff && p.psn <= 0xffffff && p.msn <= 0xffffff);
	check(p.pad <= 3 && p.tver <= 15);
	check(rp_roce_opcode_name(p.opcode) != NULL);
	/* Ethernet, IP, UDP, BTH, ICRC at least, and the data within. */
	check(size >= 14 + 20 + 8 + RP_ROCE_BTH_LEN + RP_ROCE_ICRC_LEN);
	check(p.payload_len <= size);
	n = rp_roce_format(&p, line, sizeof(line));
	check(n > 0 && (size_t)n < sizeof(line) && strlen(line) == (size_t)n);
	for (int i = 0; i < n; i++)
		check(line[i] >= 0x20 && line[i] < 0x7f);
	check(rp_roce_format(&p, small, sizeof(small)) == n);
	check(strlen(small) == sizeof(small) - 1);
	check(!memcmp(small, line, sizeof(small) - 1));
	return 0;
}
