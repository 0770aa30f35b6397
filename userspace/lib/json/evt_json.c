// SPDX-License-Identifier: GPL-2.0
/* The programs' JSON documents with jansson: see evt_json.h. */
#include <stdlib.h>
#include <string.h>
#include "util/evt_esc.h"
#include "json/evt_json.h"

json_t *evt_json_u64(uint64_t v)
{
	return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_null();
}

json_t *evt_json_bytes(const char *s, size_t n)
{
	const uint8_t *b = (const uint8_t *)s;
	size_t i, o = 0;
	unsigned int u;
	char *buf;
	json_t *j;

	n = strnlen(s, n);
	for (i = 0; i < n; i++)
		if (b[i] >= 0x80)
			break;
	if (i == n)	/* ASCII, the usual case: as it is */
		return json_stringn(s, n);
	buf = malloc(2 * n);	/* a byte outside UTF-8 becomes two */
	if (!buf)
		return NULL;
	for (i = 0; i < n; i++) {
		if (b[i] < 0x80) {
			buf[o++] = (char)b[i];
		} else if ((u = evt_fmt_utf8_len(b + i, (unsigned int)(n - i > 4 ? 4 : n - i)))) {
			memcpy(buf + o, b + i, u);
			o += u;
			i += u - 1;
		} else {
			buf[o++] = (char)(0xc0 | b[i] >> 6);
			buf[o++] = (char)(0x80 | (b[i] & 0x3f));
		}
	}
	j = json_stringn(buf, o);
	free(buf);
	return j;
}

json_t *evt_json_str(const char *s)
{
	return s ? evt_json_bytes(s, strlen(s)) : json_null();
}

/* @text (jansson's, ASCII) to @f with DEL escaped: jansson leaves it as it is, only inside a string can one be. */
static int put_text(FILE *f, const char *text)
{
	const char *p, *del;

	for (p = text; (del = strchr(p, 0x7f)); p = del + 1)
		if (fwrite(p, 1, (size_t)(del - p), f) != (size_t)(del - p) || fputs("\\u007f", f) < 0)
			return -1;
	return fputs(p, f) < 0 ? -1 : 0;
}

/* @v written by jansson (@flags), or -1. */
static int put_value(FILE *f, const json_t *v, size_t flags)
{
	char *text = json_dumps(v, flags | JSON_ENCODE_ANY | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	int ret;

	if (!text)
		return -1;
	ret = put_text(f, text);
	free(text);
	return ret;
}

int evt_json_write(FILE *f, json_t *doc, size_t flags)
{
	int ret;

	if (!doc)
		return -1;
	ret = put_value(f, doc, flags);
	json_decref(doc);
	return ret || fputc('\n', f) == EOF || ferror(f) ? -1 : 0;
}

/* An array whose members are all objects: one a line. */
static int array_of_objects(const json_t *v)
{
	size_t i;
	json_t *e;

	if (!json_is_array(v) || !json_array_size(v))
		return 0;
	json_array_foreach(v, i, e)
		if (!json_is_object(e))
			return 0;
	return 1;
}

int evt_json_write_lines(FILE *f, json_t *doc)
{
	const char *key;
	json_t *v;
	size_t n = 0;
	int bad;

	if (!json_is_object(doc)) {
		json_decref(doc);
		return -1;
	}
	bad = fputs("{\n", f) < 0;
	json_object_foreach(doc, key, v) {
		json_t *k = json_string(key);

		bad = bad || !k || fputs(n++ ? ",\n  " : "  ", f) < 0 || put_value(f, k, 0) || fputs(": ", f) < 0;
		json_decref(k);
		if (!bad && array_of_objects(v)) {
			size_t i;
			json_t *e;

			json_array_foreach(v, i, e)
				bad = bad || fputs(i ? ",\n    " : "[\n    ", f) < 0 || put_value(f, e, 0);
			bad = bad || fputs("\n  ]", f) < 0;
		} else {
			bad = bad || put_value(f, v, 0);
		}
	}
	bad = bad || fputs("\n}\n", f) < 0 || ferror(f);
	json_decref(doc);
	return bad ? -1 : 0;
}
