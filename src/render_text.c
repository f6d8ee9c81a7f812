// SPDX-License-Identifier: MIT
/* rdmapush render's text: the trace fields read as numbers, hex and sizes,
 * and every text written into the SVG, escaped for XML (paths and status
 * texts in a trace came from a peer). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <string.h>

#include "rdmapush/render.h"
#include "rdmapush/trace.h"
#include "render_int.h"

/* --- field helpers ------------------------------------------------------- */

bool rp_render_int(json_object *f, const char *k, int64_t *v)
{
	json_object *m;

	if (!f || !json_object_object_get_ex(f, k, &m))
		return false;
	if (!json_object_is_type(m, json_type_int) &&
	    !json_object_is_type(m, json_type_double))
		return false;
	*v = json_object_get_int64(m);
	return true;
}

const char *rp_render_str(json_object *f, const char *k)
{
	json_object *m;

	if (!f || !json_object_object_get_ex(f, k, &m) ||
	    !json_object_is_type(m, json_type_string))
		return NULL;
	return json_object_get_string(m);
}

const char *rp_render_hex(json_object *f, const char *k, char *buf, size_t len)
{
	json_object *m;
	size_t used = 0, i, n;

	snprintf(buf, len, "?");
	if (!f || !json_object_object_get_ex(f, k, &m))
		return buf;
	if (json_object_is_type(m, json_type_int)) {
		snprintf(buf, len, "0x%" PRIx64,
			 (uint64_t)json_object_get_int64(m));
		return buf;
	}
	if (!json_object_is_type(m, json_type_array))
		return buf;
	n = json_object_array_length(m);
	buf[0] = '\0';
	for (i = 0; i < n && used + 1 < len; i++) {
		json_object *e = json_object_array_get_idx(m, i);
		int w = snprintf(buf + used, len - used, "%s0x%" PRIx64,
				 i ? "," : "",
				 (uint64_t)json_object_get_int64(e));

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return buf;
}

const char *rp_render_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", b);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

/* --- XML text ------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (NUL-terminated) that XML 1.0
 * allows, or 0: the decoder --trace's escaping uses, less U+FFFE/FFFF. */
static int xml_char(const unsigned char *s)
{
	uint32_t c;
	size_t n;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' ? 1 : 0;
	n = rp_utf8_seq(s, 4, &c);
	return n && c != 0xfffe && c != 0xffff ? (int)n : 0;
}

int rp_render_xml_text(FILE *f, const char *s, int max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int chars = 0;

	while (*p) {
		int n = xml_char(p);

		if (max > 0 && chars == max - 3 &&
		    strlen((const char *)p) > 3) {
			fputs("...", f);
			return chars + 3;
		}
		chars++;
		if (!n) {
			fputc('?', f);
			p++;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fwrite(p, 1, (size_t)n, f); break;
		}
		p += n;
	}
	return chars;
}

int64_t rp_render_iv(json_object *f, const char *k)
{
	int64_t v = 0;

	(void)rp_render_int(f, k, &v);
	return v;
}

const char *rp_render_sv(json_object *f, const char *k)
{
	const char *s = rp_render_str(f, k);

	return s ? s : "?";
}
