// SPDX-License-Identifier: GPL-2.0
/* Whole strings and messages through the escaper (evt_esc.h). */
#include <stdio.h>
#include <string.h>
#include "util/evt_esc.h"

uint8_t evt_esc_class[256];

/* Filled before main: every printable ASCII byte, the quote and backslash apart. */
__attribute__((constructor))
static void evt_esc_class_init(void)
{
	unsigned int c;

	for (c = 0x20; c < 0x7f; c++)
		evt_esc_class[c] = c == '\\' || c == '"' ? EVT_ESC_PLAIN_BARE : EVT_ESC_PLAIN;
}

unsigned int evt_fmt_utf8_len(const uint8_t *s, unsigned int n)
{
	return evt_utf8_len(s, n);
}

const char *evt_fmt_esc(char *out, size_t len, const char *s)
{
	const uint8_t *b = (const uint8_t *)s;
	size_t o = 0, i = 0, n = strlen(s);

	if (!len)
		return out;
	/* A character at a time, so that an escape or a UTF-8 sequence is never cut. */
	while (i < n) {
		unsigned int u = b[i] >= 0x80 ? evt_utf8_len(b + i, (unsigned int)(n - i)) : 0;
		char tmp[16];
		size_t w;

		u = u ? u : 1;
		w = (size_t)(evt_put_esc(tmp, b + i, u, EVT_ESC_BARE) - tmp);
		if (o + w + 1 > len)
			break;
		memcpy(out + o, tmp, w);
		o += w;
		i += u;
	}
	out[o] = 0;
	return out;
}

int evt_fputs_esc(FILE *f, const char *s)
{
	const uint8_t *b = (const uint8_t *)s;
	size_t n = strlen(s), i = 0;
	char buf[512];

	/* In pieces of whole characters: a message of any length is written whole. */
	while (i < n) {
		char *p = buf;

		while (i < n && p + 16 < buf + sizeof(buf)) {
			unsigned int u = b[i] >= 0x80 ? evt_utf8_len(b + i, (unsigned int)(n - i)) : 0;

			u = u ? u : 1;
			p = evt_put_esc(p, b + i, u, EVT_ESC_BARE);
			i += u;
		}
		if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
			return -1;
	}
	return 0;
}
