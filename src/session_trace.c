// SPDX-License-Identifier: MIT
/* --trace of what the session itself does beside its messages (those
 * are msg_trace.c's): the data phase's summary, a directory entry. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/sys.h"
#include "rdmapush/trace.h"
#include "session_int.h"

void rp_xfer_trace_data_summary(const struct xfer *x, uint64_t bytes,
				uint64_t files)
{
	double secs = x->data_end > x->data_start && x->data_start > 0 ?
		x->data_end - x->data_start : 0.0;
	char b[32], rate[32];

	if (!rp_trace_any())
		return;
	RP_EV("data", "data.summary", "data phase: {bytes} byte{bytes:|s} "
	      "({bytes_text}) in {chunks} chunk{chunks:|s}, {files} "
	      "entr{files:y|ies}, in {data_seconds} s ({rate}); {credits} "
	      "credit{credits:|s} {how}", EV_U("bytes", bytes),
	      EV_T("bytes_text", rp_fmt_bytes(b, sizeof(b), bytes)),
	      EV_U("chunks", x->done), EV_U("files", files),
	      EV_D("data_seconds", secs, 6),
	      EV_T("rate", rp_fmt_rate(rate, sizeof(rate), bytes, secs)),
	      EV_U("credits", x->credits),
	      EV_T("how", !strcmp(x->rep.role, "send") ?
		   "from the receiver" : "sent to the sender"),
	      EV_U("chunk", x->chunk), EV_U("window", x->window),
	      EV_U("qps", x->qps), EV_S("op", rp_proto_op_name(x->op)));
}

void rp_xfer_trace_dir(const struct rp_file *f, const char *result)
{
	char shown[RP_PEER_TEXT_MAX];

	if (!rp_trace_any())
		return;
	RP_EV("file", "file.dir", "directory \"{path}\" {result}",
	      EV_S("path", rp_fmt_peer(shown, sizeof(shown), f->path,
				       f->path_len)),
	      EV_S("result", result), EV_U("id", f->id));
}
