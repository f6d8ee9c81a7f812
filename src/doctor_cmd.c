// SPDX-License-Identifier: MIT
/*
 * `rdmapush doctor`, the command: gather (src/doctor_facts.c), judge and
 * print (src/doctor.c), then say on stderr, as every failure, one line
 * and a hint: how many problems, the first one and its fix. Kept apart
 * from doctor.c so that the judge's unit test links without the verbs
 * backend.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdmapush/config.h"
#include "rdmapush/doctor.h"
#include "rdmapush/err.h"
#include "rdmapush/trace.h"

/* The first error of the report, or NULL. */
static const struct rp_doc_finding *first_error(const struct rp_doc_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].sev == RP_DOC_ERROR)
			return &r->f[i];
	return NULL;
}

int rp_doctor_run(const struct rp_config *o, uint16_t ping_port,
		  const uint8_t *ops, size_t nops)
{
	/* Static: the report's texts are some 50 KB, too much for a stack
	 * frame; the command runs once per process. */
	static struct rp_doctor_facts facts;
	static struct rp_doc_report r;
	const struct rp_doc_finding *e;
	int prc = 0;

	rp_trace_init(o->trace ? RP_V_TRACE : RP_V_NORMAL, "doctor");
	/* Each probe's error becomes a fact, not a line of its own. */
	rp_trace_hold_first_error();
	rp_doctor_gather(o, ping_port, ops, nops, &facts);
	/* From here on an error is ours, said as it happens. */
	rp_trace_hold_stop();
	rp_doctor_judge(&facts, &r);
	rp_doctor_facts_free(&facts);
	if (o->json)
		prc = rp_doctor_print_json(stdout, &r, o->host);
	else
		rp_doctor_print_text(stdout, &r);
	if (fflush(stdout) && !prc) {
		prc = -EIO;
		RP_ERR("standard output: %s", strerror(EIO));
	}
	e = first_error(&r);
	if (e) {
		flockfile(stderr);
		fprintf(stderr, "rdmapush doctor: %zu problem%s found; the "
			"first: %s\n", r.errors, rp_s(r.errors), e->what);
		if (e->fix[0])
			fprintf(stderr, "rdmapush doctor: hint: %s\n", e->fix);
		funlockfile(stderr);
	}
	if (prc)
		return RP_EXIT_INTERNAL;
	return rp_doctor_exit_code(&r);
}
