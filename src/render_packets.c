// SPDX-License-Identifier: MIT
/* rdmapush render --packets FILE.pcap: one line per RoCE v2 packet of a
 * capture, as our decoder reads it (render.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/capture.h"
#include "rdmapush/err.h"
#include "rdmapush/render.h"
#include "rdmapush/roce.h"
#include "rdmapush/trace.h"

int rp_render_packets(const char *path, FILE *out)
{
	struct rp_pcapfile *f;
	double t0 = -1;
	int rc = rp_pcapfile_open(&f, path);

	if (rc)
		return rc;
	for (;;) {
		const uint8_t *data;
		struct rp_roce_pkt p;
		char line[512];
		double ts;
		size_t len;

		rc = rp_pcapfile_next(f, &data, &len, &ts);
		if (rc <= 0)
			break;
		if (t0 < 0)
			t0 = ts;
		rc = rp_roce_decode(data, len, &p);
		if (rc == -ENOMSG)
			continue;	/* not RoCE v2: not ours to show */
		if (rc)
			snprintf(line, sizeof(line), "malformed RoCE v2 frame "
				 "(%zu bytes)", len);
		else
			rp_roce_format(&p, line, sizeof(line));
		fprintf(out, "%.6f %s\n", ts - t0, line);
	}
	rp_pcapfile_close(f);
	if (!rc && (fflush(out) || ferror(out))) {
		rc = -errno;
		RP_ERR("writing the packets: %s", strerror(errno));
		if (!rc)
			rc = -EIO;
	}
	return rc;
}
