/* SPDX-License-Identifier: MIT */
/* Diagnostics: error lines, the educational --trace stream on stderr,
 * and the progress line. */
#ifndef RDMAPUSH_TRACE_H
#define RDMAPUSH_TRACE_H

#include "rdmapush/export.h"

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define RP_PRINTF(a, b) __attribute__((format(printf, a, b)))

enum rp_verbosity {
	RP_V_QUIET = 0,	/* errors only */
	RP_V_NORMAL,	/* + progress and summary */
	RP_V_TRACE,	/* + one line per verbs step and control message */
};

/* Set once from main(); "role" prefixes every line ("send", "recv") and
 * is every JSON event's "side". */
void rp_trace_init(enum rp_verbosity v, const char *role);
/* The calling thread's own role, in place of the process's (NULL: the
 * process's again): a relay's downstream session, on its own thread,
 * traces as "relay" beside its upstream's "recv". */
void rp_trace_thread_role(const char *role);
/* --trace: the text trace on stderr. */
bool rp_trace_on(void);
bool rp_trace_quiet(void);

/*
 * Hold the first error line of this process instead of printing it, so
 * that main can print one line that says what failed and why (the
 * cause, rp_trace_held_error()). Later errors, secondary ones during
 * teardown, print as they happen; with --trace the held one also shows
 * inline. A process forked after this holds its own first error. Reset
 * by rp_trace_init().
 */
#define RP_HELD_ERROR_MAX 8192
void rp_trace_hold_first_error(void);
/* Stop holding in the calling process only (a server once it listens:
 * its later errors are not the cause of a verdict); its children hold. */
void rp_trace_hold_stop(void);
/* Forget this process's held error, if any: what it held was no
 * verdict's cause after all (recv --once's connection that was no push). */
void rp_trace_hold_forget(void);
/* This process's held error, or NULL. */
const char *rp_trace_held_error(void);
/* Why the held error's call failed, as RP_ERR_WHY gave it (an errno
 * value; rp_err_hint_for() picks the hint by it), or 0. */
int rp_trace_held_cause(void);
/* The hint RP_ERR_HINT gave with the held error, or NULL. */
#define RP_HELD_HINT_MAX 512
const char *rp_trace_held_hint(void);

/*
 * The receiver's reason for its peer: from rp_trace_reason_start(), the
 * first error line the calling thread reports (RP_ERR, the words of the
 * place that found it) is kept, so that the FACK or ERR that follows
 * carries it to the sender, which otherwise hears only a status code.
 * rp_trace_reason_take() copies it into buf (cut at len) and forgets
 * it: true, or false when there is none (nothing started, or no error
 * since). Kept to RP_TEXT_MAX bytes, what a result's text holds.
 * Starting again forgets an error not taken. An RP_ERR_INSTEAD takes
 * the kept one's place, as it takes the held error's.
 */
void rp_trace_reason_start(void);
bool rp_trace_reason_take(char *buf, size_t len);
/* Started, holding text as if reported (a reason taken to be told
 * later, or one reason told for many entries). */
void rp_trace_reason_put(const char *text);

/* Prefer the macros below: they cost one branch when tracing is off. */
void rp_err_emit(const char *fmt, ...) RP_PRINTF(1, 2);
void rp_err_emit_why(int cause, const char *fmt, ...) RP_PRINTF(2, 3);
void rp_err_emit_instead(const char *fmt, ...) RP_PRINTF(1, 2);
void rp_err_emit_hint(const char *hint, const char *fmt, ...)
	RP_PRINTF(2, 3);
void rp_info_emit(const char *fmt, ...) RP_PRINTF(1, 2);

/*
 * Trace events. One call makes both the --trace text line and the
 * --trace-json object (docs/trace.md), so the two cannot disagree: the
 * text is a template whose "{key}" placeholders are replaced by the
 * field of that key, rendered as its type says; the JSON object's "f"
 * holds every field but the text-only ones, named ones or not. A "{"
 * that names no field stays as it is. "{key:ONE|MANY}" is the word a
 * number field's count asks for: ONE when it is 1, else MANY, so that
 * "{n} file{n:|s}" reads "1 file" and "2 files".
 *
 *   RP_EV("verbs", "qp.destroy", "{name} destroyed",
 *	   EV_S("name", q->name), EV_U("qp", i), EV_X("qpn", qpn, 0));
 */

/* The same for a message built in code: "%u QP%s", n, rp_s(n). */
static inline const char *rp_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}
enum rp_ev_type {
	RP_EVT_UINT,	/* text %llu; JSON integer */
	RP_EVT_INT,	/* text %lld; JSON integer */
	RP_EVT_HEX,	/* text 0x%0*llx (fmt: width); JSON integer */
	RP_EVT_OCT,	/* text %0*llo (fmt: width); JSON integer */
	RP_EVT_DBL,	/* text %.*f (fmt: precision); JSON number */
	RP_EVT_STR,	/* text %s; JSON string (NULL: "(null)", null) */
	RP_EVT_PTR,	/* text %p; JSON integer (the address) */
	RP_EVT_TXT,	/* text %s only: wording, not a value; not in JSON */
	RP_EVT_BOOL,	/* text "true"/"false"; JSON boolean */
	RP_EVT_MAX
};

struct rp_ev_field {
	const char *key;
	enum rp_ev_type type;
	int fmt;		/* width (HEX, OCT) or precision (DBL) */
	union {
		uint64_t u;
		int64_t i;
		double d;
		const char *s;
		const void *p;
		bool b;
	} v;
};

#define EV_U(k, x) { .key = (k), .type = RP_EVT_UINT, .v.u = (uint64_t)(x) }
#define EV_I(k, x) { .key = (k), .type = RP_EVT_INT, .v.i = (int64_t)(x) }
#define EV_X(k, x, w)							\
	{ .key = (k), .type = RP_EVT_HEX, .fmt = (w), .v.u = (uint64_t)(x) }
#define EV_O(k, x, w)							\
	{ .key = (k), .type = RP_EVT_OCT, .fmt = (w), .v.u = (uint64_t)(x) }
#define EV_D(k, x, prec)						\
	{ .key = (k), .type = RP_EVT_DBL, .fmt = (prec), .v.d = (double)(x) }
#define EV_S(k, x) { .key = (k), .type = RP_EVT_STR, .v.s = (x) }
#define EV_P(k, x) { .key = (k), .type = RP_EVT_PTR, .v.p = (x) }
#define EV_T(k, x) { .key = (k), .type = RP_EVT_TXT, .v.s = (x) }
#define EV_B(k, x) { .key = (k), .type = RP_EVT_BOOL, .v.b = (x) }

/* True when any trace is on: --trace (text), --trace-json, or a sink. */
bool rp_trace_any(void);
/*
 * Each event also goes to fn (area, kind, the --trace line's text), under
 * stderr's lock, until set again (fn NULL: none). For the public API's
 * event callback; process-wide, like the rest of the trace settings.
 */
typedef void rp_trace_sink_fn(void *ctx, const char *area, const char *kind,
			      const char *text);
void rp_trace_set_sink(rp_trace_sink_fn *fn, void *ctx);
/* One event; n fields. Prefer RP_EV/RP_EV0, which test the gate first. */
void rp_trace_event(const char *area, const char *kind, const char *tmpl,
		    const struct rp_ev_field *f, size_t n);

#define RP_EV(area, kind, tmpl, ...)					\
	do {								\
		if (rp_trace_any()) {					\
			const struct rp_ev_field rp_ev_f_[] = {		\
				__VA_ARGS__					\
			};						\
			rp_trace_event(area, kind, tmpl, rp_ev_f_,	\
				       sizeof(rp_ev_f_) /		\
				       sizeof(rp_ev_f_[0]));		\
		}							\
	} while (0)
/* An event with no fields: its text is fixed. */
#define RP_EV0(area, kind, text)					\
	do {								\
		if (rp_trace_any())					\
			rp_trace_event(area, kind, text, NULL, 0);	\
	} while (0)

/* The text an event's template makes with its fields, into buf (always
 * terminated, cut if it must be); returns buf. Pure: unit tested. */
char *rp_trace_render(char *buf, size_t len, const char *tmpl,
		      const struct rp_ev_field *f, size_t n);

/*
 * --trace-json FILE: from now on every event is also one JSON line in
 * path (created or truncated, mode 0644, opened O_APPEND so that the
 * lines of forked children sharing it never interleave: each is one
 * write(2)). Returns 0, or -errno after reporting the error (naming the
 * path). A later write failure is reported once, on stderr, and stops
 * the JSON trace only; the transfer goes on.
 */
#define RP_TRACE_SCHEMA 1
int rp_trace_json_open(const char *path) __attribute__((warn_unused_result));
/* Closes the sink if open; safe to call more than once. */
void rp_trace_json_close(void);

/* One line on stderr at the place an error is detected. */
#define RP_ERR(...) rp_err_emit(__VA_ARGS__)
/* An error line and why its call failed (an errno value: EADDRINUSE,
 * ENOSYS...), so that main's hint fits the cause (rp_err_hint_for). */
#define RP_ERR_WHY(cause, ...) rp_err_emit_why(cause, __VA_ARGS__)
/* An error line and what to do about it, where only the detection site
 * can say (which GID, which device): held with the error for main's
 * hint line, or printed at once as "rdmapush ROLE: hint: ...". */
#define RP_ERR_HINT(hint, ...) rp_err_emit_hint(hint, __VA_ARGS__)
/* An error that says better what the callee's error just said (a
 * message out of place that means "no --psk here"): it takes the held
 * error's place as the cause, so a failure stays one line; printed as
 * RP_ERR's when nothing is held. */
#define RP_ERR_INSTEAD(...) rp_err_emit_instead(__VA_ARGS__)
/* Summary-level information, silenced by -q. */
#define RP_INFO(...)							\
	do {								\
		if (!rp_trace_quiet())					\
			rp_info_emit(__VA_ARGS__);			\
	} while (0)

/*
 * Text that came from the peer (ERR text, a file name), made safe to show
 * on a terminal, in a log or in JSON: printable ASCII and valid UTF-8
 * pass; a backslash becomes "\\" and a double quote \" (so neither can
 * forge an escape or a key="value" field); control characters (C0, DEL,
 * C1), bidi controls (U+061C, U+200E-F, U+202A-E, U+2066-9) become
 * "\u{XXXX}"; every byte of invalid UTF-8 becomes "\xHH". Reads n bytes
 * of s (NULs included, shown as \u{0000}); out (len >= 4) ends in "..."
 * when it had to be cut, never mid-sequence. Returns out.
 */
/*
 * Length of the valid UTF-8 sequence at s (n bytes left; s[0] >= 0x80)
 * and its code point, or 0 if it is invalid (overlong, surrogate, >
 * U+10FFFF, cut). Reads no further than the first byte that is not a
 * continuation byte, so a NUL-terminated s may pass n = 4.
 */
size_t rp_utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);
#define RP_PEER_TEXT_MAX (4 * 255 + 8)	/* room for 255 bytes escaped */
char *rp_fmt_peer(char *out, size_t len, const char *s, size_t n);
/* All of s, escaped as rp_fmt_peer() escapes it but for '"', which the
 * JSON writer it is for escapes; malloc'd, NULL when out of memory. */
char *rp_peer_text_dup(const char *s, size_t n);

/* "1.50 MiB", "812 B"; returns buf. */
char *rp_fmt_bytes(char *buf, size_t len, uint64_t bytes);
/* "93.4 Mb/s" from bytes over seconds; returns buf. */
char *rp_fmt_rate(char *buf, size_t len, uint64_t bytes, double secs);
/* "1h02m", "3m05s", "12s"; returns buf. */
char *rp_fmt_eta(char *buf, size_t len, double secs);

/* Progress meter: redrawn with '\r' at most every 250 ms, only on a tty. */
struct rp_progress {
	uint64_t total;
	double start;		/* rp_now() at start */
	double last_draw;
	bool enabled;
	bool drawn;
	/* The entry in progress: the end of its path, raw (escaped only
	 * when drawn: a tree of small files names one every few
	 * microseconds, most never drawn); cut when its start was left
	 * off. */
	char tail[20];
	bool cut;
};
/* total: bytes of the whole session, UINT64_MAX if unknown. */
void rp_progress_start(struct rp_progress *p, uint64_t total);
/* The entry now in progress (its path; shown escaped, its end kept). */
void rp_progress_label(struct rp_progress *p, const char *path);
void rp_progress_update(struct rp_progress *p, uint64_t done);
/* Say what holds the transfer up on the progress line, at once, in
 * place of its rate and ETA (the next update draws them again). */
void RP_PRINTF(2, 3) rp_progress_note(struct rp_progress *p,
				      const char *fmt, ...);
/* Clears the line so a summary or error can follow. */
void rp_progress_end(struct rp_progress *p);
/* Pure gate, unit tested: true when a redraw is due at time now. */
bool rp_progress_due(const struct rp_progress *p, double now, bool final);

/* Monotonic seconds. */
double rp_now(void);

#endif
