// SPDX-License-Identifier: GPL-2.0
/* The programs' JSON documents with jansson: see evt_json.h. */
#include <stdlib.h>
#include <string.h>
#include "evt_format.h"
#include "evt_json.h"

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

int evt_json_write(FILE *f, json_t *doc, size_t flags)
{
	char *text, *p, *del;
	int ok = 1;

	if (!doc)
		return -1;
	text = json_dumps(doc, flags | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!text)
		return -1;
	/* jansson leaves DEL as it is (only inside a string can one be): escaped like a control. */
	for (p = text; ok && (del = strchr(p, 0x7f)); p = del + 1)
		ok = fwrite(p, 1, (size_t)(del - p), f) == (size_t)(del - p) && fputs("\\u007f", f) >= 0;
	ok = ok && fputs(p, f) >= 0 && fputc('\n', f) != EOF && !ferror(f);
	free(text);
	return ok ? 0 : -1;
}
