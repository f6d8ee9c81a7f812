/* SPDX-License-Identifier: MIT */
/* Diagnostics: error lines, the educational --trace stream on stderr,
 * and the progress line. */
#ifndef RDMAPUSH_TRACE_H
#define RDMAPUSH_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define RP_PRINTF(a, b) __attribute__((format(printf, a, b)))

enum rp_verbosity {
	RP_V_QUIET = 0,	/* errors only */
	RP_V_NORMAL,	/* + progress and summary */
	RP_V_TRACE,	/* + one line per verbs step and control message */
};

/* Set once from main(); "role" prefixes every line ("send", "recv"). */
void rp_trace_init(enum rp_verbosity v, const char *role);
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
/* This process's held error, or NULL. */
const char *rp_trace_held_error(void);

/* Prefer the macros below: they cost one branch when tracing is off. */
void rp_trace_emit(const char *area, const char *fmt, ...) RP_PRINTF(2, 3);
void rp_err_emit(const char *fmt, ...) RP_PRINTF(1, 2);
void rp_info_emit(const char *fmt, ...) RP_PRINTF(1, 2);

/* area is a short tag: "verbs", "ctrl", "data", "file", "session". */
#define RP_TRACE(area, ...)						\
	do {								\
		if (rp_trace_on())					\
			rp_trace_emit(area, __VA_ARGS__);		\
	} while (0)
/* One line on stderr at the place an error is detected. */
#define RP_ERR(...) rp_err_emit(__VA_ARGS__)
/* Summary-level information, silenced by -q. */
#define RP_INFO(...)							\
	do {								\
		if (!rp_trace_quiet())					\
			rp_info_emit(__VA_ARGS__);			\
	} while (0)

/*
 * Text that came from the peer (ERR text, a file name), made safe to show
 * on a terminal, in a log or in JSON: printable ASCII and valid UTF-8
 * pass; a backslash becomes "\\"; control characters (C0, DEL, C1), bidi
 * controls (U+061C, U+200E-F, U+202A-E, U+2066-9) become "\u{XXXX}";
 * every byte of invalid UTF-8 becomes "\xHH". Reads n bytes of s (NULs
 * included, shown as \u{0000}); out (len >= 4) ends in "..." when it had
 * to be cut, never mid-sequence. Returns out.
 */
#define RP_PEER_TEXT_MAX (4 * 255 + 8)	/* room for 255 bytes escaped */
char *rp_fmt_peer(char *out, size_t len, const char *s, size_t n);

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
	char label[40];		/* the entry in progress, escaped, shortened */
};
/* total: bytes of the whole session, UINT64_MAX if unknown. */
void rp_progress_start(struct rp_progress *p, uint64_t total);
/* The entry now in progress (its path; shown escaped, its end kept). */
void rp_progress_label(struct rp_progress *p, const char *path);
void rp_progress_update(struct rp_progress *p, uint64_t done);
/* Clears the line so a summary or error can follow. */
void rp_progress_end(struct rp_progress *p);
/* Pure gate, unit tested: true when a redraw is due at time now. */
bool rp_progress_due(const struct rp_progress *p, double now, bool final);

/* Monotonic seconds. */
double rp_now(void);

#endif
