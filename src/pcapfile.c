// SPDX-License-Identifier: MIT
/* Reading a capture back (capture.h): pcap_open_offline and its frames,
 * with the file's flaws said once, naming the file. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap_api.h"
#include "rdmapush/capture.h"
#include "rdmapush/err.h"
#include "rdmapush/trace.h"

struct rp_pcapfile {
	pcap_t *pc;
	char *path;
};

int rp_pcapfile_open(struct rp_pcapfile **out, const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct rp_pcapfile *f;
	FILE *fp;
	int rc;

	*out = NULL;
	rc = rp_pcap_load(path);
	if (rc)
		return rc;
	/* Opened here, not by libpcap: an unreadable file is an errno
	 * (exit 5), apart from one that is not a capture (exit 3). */
	fp = fopen(path, "rb");
	if (!fp) {
		rc = -errno;
		RP_ERR("%s: %s", path, strerror(-rc));
		return rc;
	}
	f = calloc(1, sizeof(*f));
	if (f)
		f->path = strdup(path);
	if (!f || !f->path) {
		RP_ERR("%s: %s", path, strerror(ENOMEM));
		rc = -ENOMEM;
		goto err_free;
	}
	f->pc = rp_pcap.fopen_offline(fp, errbuf);
	if (!f->pc) {
		/* libpcap's reason is its own text about our file, not the
		 * file's bytes. */
		RP_ERR("%s: not a pcap capture (%s)", path, errbuf);
		rc = RP_EPROTO;
		goto err_free;
	}
	fp = NULL;	/* pcap_close closes it */
	if (rp_pcap.datalink(f->pc) != DLT_EN10MB) {
		RP_ERR("%s: link type %d, not Ethernet: not a capture of "
		       "RoCE v2", path, rp_pcap.datalink(f->pc));
		rc = RP_EPROTO;
		goto err_close;
	}
	*out = f;
	return 0;

err_close:
	rp_pcap.close(f->pc);
err_free:
	if (fp)
		fclose(fp);
	if (f)
		free(f->path);
	free(f);
	return rc;
}

int rp_pcapfile_next(struct rp_pcapfile *f, const uint8_t **data,
		     size_t *len, double *ts)
{
	struct pcap_pkthdr *h;
	const u_char *bytes;
	int rc = rp_pcap.next_ex(f->pc, &h, &bytes);

	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		RP_ERR("%s: %s", f->path,
		       rc == PCAP_ERROR ? rp_pcap.geterr(f->pc) : "unreadable");
		return RP_EPROTO;
	}
	*data = bytes;
	*len = h->caplen;
	*ts = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e6;
	return 1;
}

void rp_pcapfile_close(struct rp_pcapfile *f)
{
	if (!f)
		return;
	rp_pcap.close(f->pc);
	free(f->path);
	free(f);
}
