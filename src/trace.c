// SPDX-License-Identifier: MIT
/* Diagnostics: error lines, the --trace stream and the progress meter. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "rdmapush/limits.h"
#include "rdmapush/trace.h"

/* Process-wide output settings, written once by main() before any work. */
static enum rp_verbosity verbosity = RP_V_NORMAL;
static const char *trace_role = "rdmapush";
/* A thread's own role (rp_trace_thread_role), NULL: the process's. Per
 * thread: a relay's downstream session runs beside its upstream one. */
static __thread const char *thread_role;
static double trace_t0;
/* --trace-json: the sink's fd (-1: none) and path, for its messages. */
static int json_fd = -1;
static char json_path[256];
/* A library caller's event callback (rp_trace_set_sink()), or NULL. */
static rp_trace_sink_fn *sink;
static void *sink_ctx;

double rp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The held first error (rp_trace_hold_first_error): the cause main's
 * verdict names. Scoped by process: a child forked after arming starts
 * with nothing held and holds its own first error (a receiver's
 * transfer has its own verdict); hold_stopped is the one process that
 * stopped holding. Guarded by stderr's lock, as the lines are.
 */
static bool hold_armed;
static pid_t hold_stopped;
static pid_t held_pid;
static char held[RP_HELD_ERROR_MAX];
static int held_cause;		/* RP_ERR_WHY's cause, 0 for RP_ERR's */
static char held_hint[RP_HELD_HINT_MAX];	/* RP_ERR_HINT's, or "" */

void rp_trace_init(enum rp_verbosity v, const char *role)
{
	verbosity = v;
	trace_role = role;
	trace_t0 = rp_now();
	hold_armed = false;
	hold_stopped = 0;
	held_pid = 0;
	held[0] = '\0';
	held_cause = 0;
	held_hint[0] = '\0';
}

void rp_trace_thread_role(const char *role)
{
	thread_role = role;
}

/* The calling thread's role: what prefixes its lines and is its
 * events' "side". */
static const char *role_now(void)
{
	return thread_role ? thread_role : trace_role;
}

void rp_trace_hold_first_error(void)
{
	hold_armed = true;
	hold_stopped = 0;
}

void rp_trace_hold_stop(void)
{
	hold_stopped = getpid();
}

void rp_trace_hold_forget(void)
{
	flockfile(stderr);
	if (held_pid == getpid())
		held[0] = '\0';
	funlockfile(stderr);
}

const char *rp_trace_held_error(void)
{
	const char *r;

	flockfile(stderr);
	r = held_pid == getpid() && held[0] ? held : NULL;
	funlockfile(stderr);
	return r;
}

int rp_trace_held_cause(void)
{
	int r;

	flockfile(stderr);
	r = held_pid == getpid() && held[0] ? held_cause : 0;
	funlockfile(stderr);
	return r;
}

const char *rp_trace_held_hint(void)
{
	const char *r;

	flockfile(stderr);
	r = held_pid == getpid() && held[0] && held_hint[0] ? held_hint :
	    NULL;
	funlockfile(stderr);
	return r;
}

/*
 * The reason this thread tells its peer (rp_trace_reason_start): the
 * first error line it reported since it started or last took one, or
 * the RP_ERR_INSTEAD that took its place. Per thread, not per process:
 * the in-memory tests run both ends in one.
 */
static __thread bool reason_on;
static __thread char reason[RP_TEXT_MAX + 1];

void rp_trace_reason_start(void)
{
	reason_on = true;
	reason[0] = '\0';
}

void rp_trace_reason_put(const char *text)
{
	reason_on = true;
	snprintf(reason, sizeof(reason), "%s", text);
}

bool rp_trace_reason_take(char *buf, size_t len)
{
	bool any = reason_on && reason[0];

	if (any)
		snprintf(buf, len, "%s", reason);
	reason[0] = '\0';
	return any;
}

/*
 * Under stderr's lock: true when msg became this process's cause, the
 * first error, or with instead the one it explains better.
 */
static bool hold(const char *msg, int cause, const char *hint,
		 bool instead)
{
	pid_t me;

	if (!hold_armed)
		return false;
	me = getpid();
	if (me == hold_stopped)
		return false;
	if (held_pid != me) {	/* a forked child: nothing held yet */
		held_pid = me;
		held[0] = '\0';
	}
	if (held[0] && !instead)
		return false;	/* a later, secondary error: printed */
	snprintf(held, sizeof(held), "%s", msg);
	held_cause = cause;
	snprintf(held_hint, sizeof(held_hint), "%s", hint ? hint : "");
	return true;
}

bool rp_trace_on(void)
{
	return verbosity >= RP_V_TRACE;
}

bool rp_trace_quiet(void)
{
	return verbosity == RP_V_QUIET;
}

/*
 * One whole line under stderr's lock, so that lines from two threads
 * (the in-process tests run both sides) never interleave; and in one
 * write(2) when it fits, because the receiver's children share its
 * stderr and stderr is unbuffered: a line written in pieces would
 * interleave with theirs.
 */
static void emit(const char *prefix, const char *fmt, va_list ap)
{
	char line[8192];
	size_t p = strlen(prefix);
	va_list again;
	int n = -1;

	va_copy(again, ap);
	if (p < sizeof(line)) {
		memcpy(line, prefix, p);
		n = vsnprintf(line + p, sizeof(line) - p, fmt, ap);
	}
	flockfile(stderr);
	if (n >= 0 && (size_t)n < sizeof(line) - p - 1) {
		line[p + (size_t)n] = '\n';
		fwrite(line, 1, p + (size_t)n + 1, stderr);
	} else {	/* too long for one write: in pieces */
		fputs(prefix, stderr);
		vfprintf(stderr, fmt, again);
		fputc('\n', stderr);
	}
	funlockfile(stderr);
	va_end(again);
}

static void RP_PRINTF(2, 3) emitf(const char *prefix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(prefix, fmt, ap);
	va_end(ap);
}

/* Bytes up to the end of the valid UTF-8 prefix of s. */
static size_t utf8_valid(const char *s);

/* s as a JSON string member: escaped by json-c; invalid UTF-8 (a local
 * path, say) shown as rp_fmt_peer shows it, so the line stays JSON. */
static json_object *json_str(const char *s)
{
	char safe[RP_PEER_TEXT_MAX];
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s);
	if (utf8_valid(s) == n)
		return json_object_new_string_len(s, (int)n);
	return json_object_new_string(rp_fmt_peer(safe, sizeof(safe), s, n));
}

static json_object *json_num(double d, int prec)
{
	char b[64];

	if (!isfinite(d))
		return NULL;
	snprintf(b, sizeof(b), "%.*f", prec, d);
	return json_object_new_double_s(d, b);
}

static json_object *json_field(const struct rp_ev_field *f)
{
	switch (f->type) {
	case RP_EVT_UINT:
	case RP_EVT_HEX:
	case RP_EVT_OCT:
		return json_object_new_uint64(f->v.u);
	case RP_EVT_INT:
		return json_object_new_int64(f->v.i);
	case RP_EVT_DBL:
		return json_num(f->v.d, f->fmt > 6 ? f->fmt : 6);
	case RP_EVT_STR:
		return json_str(f->v.s);
	case RP_EVT_PTR:
		return json_object_new_uint64((uint64_t)(uintptr_t)f->v.p);
	case RP_EVT_BOOL:
		return json_object_new_boolean(f->v.b);
	default:
		return NULL;
	}
}

/* The first write error stops the sink: said once, not as an error
 * (it would become the verdict's cause) and the transfer goes on. */
static void json_failed(int e)
{
	int fd = json_fd;

	json_fd = -1;
	close(fd);
	fprintf(stderr, "rdmapush %s: warning: --trace-json %s: write: %s; "
		"the JSON trace stops here\n", role_now(), json_path,
		strerror(e));
}

/* One line, one write(2): O_APPEND puts it whole at the end. */
static void json_write(double now, const char *area, const char *kind,
		       const char *text, const struct rp_ev_field *f, size_t n)
{
	json_object *o = json_object_new_object();
	json_object *fo = json_object_new_object();
	const char *s;
	char *line;
	size_t len;
	ssize_t w;

	if (!o || !fo) {
		json_object_put(o);
		json_object_put(fo);
		json_failed(ENOMEM);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (f[i].type != RP_EVT_TXT)
			json_object_object_add(fo, f[i].key,
					       json_field(&f[i]));
	json_object_object_add(o, "v", json_object_new_int(RP_TRACE_SCHEMA));
	json_object_object_add(o, "t", json_num(now, 6));
	json_object_object_add(o, "side", json_str(role_now()));
	json_object_object_add(o, "pid", json_object_new_int64(getpid()));
	json_object_object_add(o, "area", json_str(area));
	json_object_object_add(o, "kind", json_str(kind));
	json_object_object_add(o, "text", json_str(text));
	json_object_object_add(o, "f", fo);
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	len = s ? strlen(s) : 0;
	line = s ? malloc(len + 1) : NULL;
	if (!line) {
		json_object_put(o);
		json_failed(ENOMEM);
		return;
	}
	memcpy(line, s, len);
	line[len++] = '\n';
	json_object_put(o);
	do
		w = write(json_fd, line, len);
	while (w < 0 && errno == EINTR);
	if (w < 0 || (size_t)w != len)
		json_failed(w < 0 ? errno : ENOSPC);
	free(line);
}

bool rp_trace_any(void)
{
	return verbosity >= RP_V_TRACE || json_fd >= 0 || sink;
}

static const struct rp_ev_field *find(const char *key, size_t klen,
				      const struct rp_ev_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(f[i].key, key, klen) && !f[i].key[klen])
			return &f[i];
	return NULL;
}

static int render_one(char *out, size_t len, const struct rp_ev_field *f)
{
	switch (f->type) {
	case RP_EVT_UINT:
		return snprintf(out, len, "%" PRIu64, f->v.u);
	case RP_EVT_INT:
		return snprintf(out, len, "%" PRId64, f->v.i);
	case RP_EVT_HEX:
		return snprintf(out, len, "0x%0*" PRIx64, f->fmt, f->v.u);
	case RP_EVT_OCT:
		return snprintf(out, len, "%0*" PRIo64, f->fmt, f->v.u);
	case RP_EVT_DBL:
		return snprintf(out, len, "%.*f", f->fmt, f->v.d);
	case RP_EVT_PTR:
		return snprintf(out, len, "%p", f->v.p);
	case RP_EVT_BOOL:
		return snprintf(out, len, "%s", f->v.b ? "true" : "false");
	default:
		return snprintf(out, len, "%s", f->v.s ? f->v.s : "(null)");
	}
}

/* A number field's value is one (a count of one: singular words). */
static bool is_one(const struct rp_ev_field *f)
{
	switch (f->type) {
	case RP_EVT_UINT:
	case RP_EVT_HEX:
	case RP_EVT_OCT:
		return f->v.u == 1;
	case RP_EVT_INT:
		return f->v.i == 1;
	case RP_EVT_DBL:
		return f->v.d == 1.0;
	default:
		return false;
	}
}

/*
 * "{key:ONE|MANY}" at p (klen: the key's length): the form the field's
 * count asks for, as *form and *flen; the length of the whole
 * placeholder, or 0 when it is not one (no "}", or not a number).
 */
static size_t plural(const char *p, size_t klen, const struct rp_ev_field *f,
		     const char **form, size_t *flen)
{
	const char *forms = p + 2 + klen;
	size_t all = strcspn(forms, "{}");
	size_t one = strcspn(forms, "|}");

	if (forms[all] != '}' || one >= all || f->type == RP_EVT_STR ||
	    f->type == RP_EVT_TXT || f->type == RP_EVT_PTR ||
	    f->type == RP_EVT_BOOL)
		return 0;
	if (is_one(f)) {
		*form = forms;
		*flen = one;
	} else {
		*form = forms + one + 1;
		*flen = all - one - 1;
	}
	return klen + 2 + all + 1;
}

char *rp_trace_render(char *buf, size_t len, const char *tmpl,
		      const struct rp_ev_field *f, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const char *p = tmpl; *p && used + 1 < len;) {
		const struct rp_ev_field *hit = NULL;
		const char *form = NULL;
		size_t klen = 0, skip = 0, flen = 0;
		int w;

		if (*p == '{') {
			klen = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (p[1 + klen] == '}' || p[1 + klen] == ':')
				hit = find(p + 1, klen, f, n);
			if (hit && p[1 + klen] == '}')
				skip = klen + 2;
			else if (hit)
				skip = plural(p, klen, hit, &form, &flen);
		}
		if (!skip) {
			buf[used++] = *p++;
			buf[used] = '\0';
			continue;
		}
		if (form) {
			w = snprintf(buf + used, len - used, "%.*s", (int)flen,
				     form);
		} else {
			w = render_one(buf + used, len - used, hit);
		}
		if (w > 0)
			used += (size_t)w < len - used ? (size_t)w :
				len - used - 1;
		p += skip;
	}
	return buf;
}

/* Under stderr's lock, so that the times of one process's lines and
 * events never go back, even with two threads (the in-process tests). */
static void event(const char *area, const char *kind, const char *text,
		  const struct rp_ev_field *f, size_t n, bool show)
{
	double now = rp_now();

	if (show) {
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "[%9.6f] %s %-7s ",
			 now - trace_t0, role_now(), area);
		emitf(prefix, "%s", text);
	}
	if (json_fd >= 0)
		json_write(now, area, kind, text, f, n);
	if (sink)
		sink(sink_ctx, area, kind, text);
}

void rp_trace_set_sink(rp_trace_sink_fn *fn, void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

void rp_trace_event(const char *area, const char *kind, const char *tmpl,
		    const struct rp_ev_field *f, size_t n)
{
	char text[8192];

	rp_trace_render(text, sizeof(text), tmpl, f, n);
	flockfile(stderr);
	event(area, kind, text, f, n, rp_trace_on());
	funlockfile(stderr);
}

/* The trace holds addresses and rkeys: readable by its owner only. A
 * symbolic link at the path is refused, not followed (it could point at
 * a file of someone else's); a regular file is emptied only once opened,
 * so the file emptied is the one written; a device (/dev/null) is used
 * as it is. */
int rp_trace_json_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
		      O_CLOEXEC, 0600);
	struct stat st;
	int e = errno;

	if (fd < 0) {
		if (e == ELOOP)
			RP_ERR("--trace-json %s: a symbolic link; not "
			       "followed", path);
		else
			RP_ERR("--trace-json %s: open: %s", path,
			       strerror(e));
		return -e;
	}
	if (fstat(fd, &st)) {
		e = errno;
		RP_ERR("--trace-json %s: fstat: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	if (S_ISREG(st.st_mode)) {
		const char *call = "ftruncate";

		if (!ftruncate(fd, 0)) {
			call = "fchmod";
			if (!(st.st_mode & 077) ||
			    !fchmod(fd, st.st_mode & 0700))
				call = NULL;
		}
		if (call) {
			e = errno;
			RP_ERR("--trace-json %s: %s: %s", path, call,
			       strerror(e));
			close(fd);
			return -e;
		}
	}
	rp_trace_json_close();
	snprintf(json_path, sizeof(json_path), "%s", path);
	json_fd = fd;
	return 0;
}

void rp_trace_json_close(void)
{
	if (json_fd >= 0)
		close(json_fd);
	json_fd = -1;
}

/*
 * An error line, or, when main asked for it, the first one held as the
 * cause for its verdict (with why the call failed, for the hint). With
 * --trace a held error still shows inline, tagged "error", so the trace
 * reads in order; every error line is an "error" event in the JSON
 * trace.
 */
static void err_emit(int cause, const char *hint, bool instead,
		     const char *fmt, va_list ap)
{
	char msg[RP_HELD_ERROR_MAX];
	struct rp_ev_field f[] = { EV_S("message", msg) };
	bool kept;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* The peer hears the first, or what says it better (instead). */
	if (reason_on && (!reason[0] || instead)) {
		size_t n = strnlen(msg, sizeof(reason) - 1);

		memcpy(reason, msg, n);	/* cut: the peer gets that much */
		reason[n] = '\0';
	}
	flockfile(stderr);
	kept = hold(msg, cause, hint, instead);
	if (!kept)
		fprintf(stderr, "rdmapush %s: error: %s\n", role_now(), msg);
	if (!kept && hint)
		fprintf(stderr, "rdmapush %s: hint: %s\n", role_now(), hint);
	if (rp_trace_any())	/* stderr's lock is recursive */
		event("error", "error", msg, f, 1, kept && rp_trace_on());
	funlockfile(stderr);
}

void rp_err_emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_emit(0, NULL, false, fmt, ap);
	va_end(ap);
}

void rp_err_emit_hint(const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_emit(0, hint, false, fmt, ap);
	va_end(ap);
}

void rp_err_emit_instead(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_emit(0, NULL, true, fmt, ap);
	va_end(ap);
}

void rp_err_emit_why(int cause, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_emit(cause, NULL, false, fmt, ap);
	va_end(ap);
}

void rp_info_emit(const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "rdmapush %s: ", role_now());
	va_start(ap, fmt);
	emit(prefix, fmt, ap);
	va_end(ap);
}

size_t rp_utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;

	if (!len || s[0] > 0xf4 || len > n)
		return 0;
	*cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min[len] || *cp > 0x10ffff ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

static size_t utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;
	uint32_t cp;

	while (i < n) {
		size_t l = p[i] < 0x80 ? 1 : rp_utf8_seq(p + i, n - i, &cp);

		if (!l)
			break;
		i += l;
	}
	return i;
}

/* Code points that can move or hide text on a terminal. */
static bool unsafe_cp(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* One input unit as shown: its text in piece, its input length. A '"'
 * is escaped unless a JSON writer escapes it (quote false): in a line of
 * key="value" fields, a raw quote in a name could forge the next field. */
static size_t escape_one(const unsigned char *s, size_t n, char piece[16],
			 bool quote)
{
	uint32_t cp = s[0];
	size_t len = s[0] < 0x80 ? 1 : rp_utf8_seq(s, n, &cp);

	if (!len) {
		snprintf(piece, 16, "\\x%02x", s[0]);
		return 1;
	}
	if (unsafe_cp(cp))
		snprintf(piece, 16, "\\u{%04x}", (unsigned int)cp);
	else if (cp == '\\')
		snprintf(piece, 16, "\\\\");
	else if (cp == '"' && quote)
		snprintf(piece, 16, "\\\"");
	else {
		memcpy(piece, s, len);
		piece[len] = '\0';
	}
	return len;
}

/* Bytes rp_fmt_peer() would write for all of s, without the NUL. */
static size_t escaped_len(const unsigned char *p, size_t n, bool quote)
{
	size_t total = 0;
	char piece[16];

	for (size_t i = 0; i < n;) {
		i += escape_one(p + i, n - i, piece, quote);
		total += strlen(piece);
	}
	return total;
}

/* Whether s shows as it is: printable ASCII, nothing to escape. */
static bool plain(const unsigned char *s, size_t n, bool quote)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '\\' ||
		    (s[i] == '"' && quote))
			return false;
	return true;
}

static char *fmt_peer(char *out, size_t len, const char *s, size_t n,
		      bool quote)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t room, used = 0;

	/* The usual name, once per file of a tree: copied as it is. */
	if (n < len && plain(p, n, quote)) {
		memcpy(out, s, n);
		out[n] = '\0';
		return out;
	}
	/* When it cannot all fit, stop where "..." still fits. */
	room = escaped_len(p, n, quote) < len ? len : len - 3;
	out[0] = '\0';
	for (size_t i = 0; i < n;) {
		char piece[16];
		size_t step = escape_one(p + i, n - i, piece, quote);
		size_t pl = strlen(piece);

		if (used + pl + 1 > room) {
			snprintf(out + used, len - used, "...");
			break;
		}
		memcpy(out + used, piece, pl + 1);
		used += pl;
		i += step;
	}
	return out;
}

char *rp_fmt_peer(char *out, size_t len, const char *s, size_t n)
{
	return fmt_peer(out, len, s, n, true);
}

char *rp_peer_text_dup(const char *s, size_t n)
{
	size_t len = escaped_len((const unsigned char *)s, n, false) + 1;
	char *out = malloc(len);

	return out ? fmt_peer(out, len, s, n, false) : NULL;
}

char *rp_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	while (v >= 1024.0 && u < 3) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, units[u]);
	return buf;
}

char *rp_fmt_rate(char *buf, size_t len, uint64_t bytes, double secs)
{
	double bps = secs > 0 ? (double)bytes * 8.0 / secs : 0.0;

	if (bps >= 1e9)
		snprintf(buf, len, "%.2f Gb/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.1f Mb/s", bps / 1e6);
	else
		snprintf(buf, len, "%.1f kb/s", bps / 1e3);
	return buf;
}

char *rp_fmt_eta(char *buf, size_t len, double secs)
{
	unsigned long s = secs > 0 ? (unsigned long)(secs + 0.5) : 0;

	if (s >= 3600)
		snprintf(buf, len, "%luh%02lum", s / 3600, (s / 60) % 60);
	else if (s >= 60)
		snprintf(buf, len, "%lum%02lus", s / 60, s % 60);
	else
		snprintf(buf, len, "%lus", s);
	return buf;
}

#define PROGRESS_INTERVAL 0.25

bool rp_progress_due(const struct rp_progress *p, double now, bool final)
{
	if (!p->enabled)
		return false;
	if (final)
		return p->drawn;
	return now - p->last_draw >= PROGRESS_INTERVAL;
}

void rp_progress_start(struct rp_progress *p, uint64_t total)
{
	p->total = total;
	p->start = rp_now();
	p->last_draw = p->start;
	/* A progress line is for a person watching: not in traces or pipes. */
	p->enabled = verbosity == RP_V_NORMAL && isatty(STDERR_FILENO);
	p->drawn = false;
	p->tail[0] = '\0';
	p->cut = false;
}

void rp_progress_label(struct rp_progress *p, const char *path)
{
	size_t n = strlen(path), keep = sizeof(p->tail) - 1;

	/* A long path keeps its end: the file name is what people read. */
	p->cut = n > keep;
	if (p->cut)
		path += n - keep;
	memcpy(p->tail, path, p->cut ? keep + 1 : n + 1);
}

/* The entry's label as drawn, escaped, in out[LABEL_LEN]. */
#define LABEL_LEN	40
static const char *label(const struct rp_progress *p, char *out)
{
	char shown[RP_PEER_TEXT_MAX];

	rp_fmt_peer(shown, sizeof(shown), p->tail, strlen(p->tail));
	snprintf(out, LABEL_LEN, "%s%.*s", p->cut ? "..." : "",
		 LABEL_LEN - 4, shown);
	return out;
}

void rp_progress_update(struct rp_progress *p, uint64_t done)
{
	char b1[32], b2[32], b3[32], lb[LABEL_LEN];
	double now = rp_now();
	double el = now - p->start;
	bool known = p->total != UINT64_MAX;
	double pct = p->total ? 100.0 * (double)done / (double)p->total : 100.0;
	double eta = done && p->total > done ?
		el * (double)(p->total - done) / (double)done : 0.0;

	if (!rp_progress_due(p, now, false))
		return;
	p->last_draw = now;
	p->drawn = true;
	/* \033[K: a shorter line leaves nothing of the longer one. */
	if (known)
		fprintf(stderr, "\r%s  %5.1f%%  %s  %s  ETA %s\033[K",
			label(p, lb), pct,
			rp_fmt_bytes(b1, sizeof(b1), done),
			rp_fmt_rate(b2, sizeof(b2), done, el),
			rp_fmt_eta(b3, sizeof(b3), eta));
	else
		fprintf(stderr, "\r%s  %s  %s\033[K", label(p, lb),
			rp_fmt_bytes(b1, sizeof(b1), done),
			rp_fmt_rate(b2, sizeof(b2), done, el));
	fflush(stderr);
}

void rp_progress_note(struct rp_progress *p, const char *fmt, ...)
{
	char lb[LABEL_LEN];
	va_list ap;

	if (!p->enabled)
		return;
	fprintf(stderr, "\r%s  ", label(p, lb));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\033[K", stderr);
	fflush(stderr);
	p->last_draw = rp_now();
	p->drawn = true;
}

void rp_progress_end(struct rp_progress *p)
{
	if (!rp_progress_due(p, rp_now(), true))
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->drawn = false;
}
