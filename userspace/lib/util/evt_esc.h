/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one escaper of what a trace holds (names, strings) for a terminal or
 * a JSON line: inline here for evcat's formatter (lib/format), whole strings
 * and messages in evt_esc.c (evt_io's evt_errf, every program's text).
 */
#ifndef EVT_ESC_H
#define EVT_ESC_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * Length of the well-formed UTF-8 sequence (RFC 3629: no overlong form, no
 * surrogate, nothing above U+10FFFF) at @s, of at most @n bytes; 0 when
 * there is none.
 */
static inline unsigned int evt_utf8_len(const uint8_t *s, unsigned int n)
{
	const uint8_t c = s[0];
	unsigned int len, i;
	uint8_t lo = 0x80, hi = 0xbf;	/* the second byte's range */

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/*
 * Whether the well-formed UTF-8 sequence @s (@u bytes) is a character a
 * terminal acts on rather than shows: a C1 control (U+0080..U+009F: 0x9b
 * is CSI on many terminals) or a bidirectional override or isolate
 * (U+202A..U+202E, U+2066..U+2069: they reorder what follows on the line).
 */
static inline int evt_utf8_control(const uint8_t *s, unsigned int u)
{
	return (u == 2 && s[0] == 0xc2 && s[1] <= 0x9f) ||
	       (u == 3 && s[0] == 0xe2 && ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
					   (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)));
}

enum evt_esc_mode { EVT_ESC_JSON, EVT_ESC_TEXT, EVT_ESC_BARE };

/*
 * Per byte value: EVT_ESC_PLAIN, printable ASCII evt_put_esc() copies in every
 * mode; EVT_ESC_PLAIN_BARE, the quote and the backslash, copied in EVT_ESC_BARE
 * only; 0, the rest (evt_put_esc()'s rules decide). Filled before main.
 */
enum { EVT_ESC_PLAIN_BARE = 1, EVT_ESC_PLAIN = 2 };
extern uint8_t evt_esc_class[256];

/*
 * The one escaper of names and strings from a trace (a thread's comm, an
 * IRQ's name, a file name), for every program's output: whoever ran the
 * process chose them. EVT_ESC_TEXT (evcat's fields) and EVT_ESC_BARE (tables,
 * messages: no quotes around, quotes and backslashes left as they are, so
 * that escaping twice changes nothing) write every control byte (C0,
 * DEL), every C1 control or bidirectional override and every byte that is
 * not part of well-formed UTF-8 as \xhh (EVT_ESC_TEXT also a backslash as
 * \\): what reaches a terminal is shown, never acted on. EVT_ESC_JSON keeps
 * well-formed UTF-8 but the controls and overrides (\uXXXX, their code
 * points) and writes other bytes \u00XX (U+00XX: the byte's value), so that
 * every line stays valid JSON and safe on a terminal. At most 6 bytes out
 * per byte in.
 */
static inline char *evt_put_esc(char *p, const uint8_t *s, unsigned int n, enum evt_esc_mode mode)
{
	static const char hx[] = "0123456789abcdef";
	/* A byte is copied as it is when its evt_esc_class is at least this. */
	const uint8_t plain = mode == EVT_ESC_BARE ? EVT_ESC_PLAIN_BARE : EVT_ESC_PLAIN;
	unsigned int i, u;

	for (i = 0; i < n; i++) {
		uint8_t c = s[i];

		/* Nearly every byte (one table look-up, evcat's hot path). */
		if (evt_esc_class[c] >= plain) {
			*p++ = (char)c;
			continue;
		}
		if ((c == '\\' || c == '"') && mode != EVT_ESC_BARE) {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else if (c == '\t') {
			*p++ = '\\';
			*p++ = 't';
		} else if (c >= 0x80 && (u = evt_utf8_len(s + i, n - i)) && !evt_utf8_control(s + i, u)) {
			memcpy(p, s + i, u);
			p += u;
			i += u - 1;
		} else if (c >= 0x80 && u && mode == EVT_ESC_JSON) {
			/* A control as its code point: the same string, nothing a terminal acts on. */
			const unsigned int cp = u == 2 ? (unsigned int)(c & 0x1f) << 6 | (s[i + 1] & 0x3f) :
					       (unsigned int)(c & 0x0f) << 12 | (unsigned int)(s[i + 1] & 0x3f) << 6 |
					       (s[i + 2] & 0x3f);

			*p++ = '\\';
			*p++ = 'u';
			*p++ = hx[cp >> 12];
			*p++ = hx[(cp >> 8) & 15];
			*p++ = hx[(cp >> 4) & 15];
			*p++ = hx[cp & 15];
			i += u - 1;
		} else if (c < 0x20 || c >= 0x7f) {
			if (mode == EVT_ESC_JSON) {
				memcpy(p, "\\u00", 4);
				p += 4;
			} else {
				*p++ = '\\';
				*p++ = 'x';
			}
			*p++ = hx[c >> 4];
			*p++ = hx[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	return p;
}

/*
 * Length of the well-formed UTF-8 sequence (RFC 3629) at @s, of at most
 * @n bytes; 0 when there is none (evt_utf8_len, not inlined: lib/json's).
 */
unsigned int evt_fmt_utf8_len(const uint8_t *s, unsigned int n);
/*
 * @s for a terminal, unquoted: the escaper of evcat's text fields (control
 * bytes, C1 controls, bidirectional overrides and bytes outside
 * well-formed UTF-8 as \xhh; escaping twice changes nothing), for every name or string
 * from a trace that a program prints as text (tables, messages). Into
 * @out of @len bytes, cut at a whole character when it does not fit;
 * returns @out. 4 * strlen(@s) + 1 bytes always fit.
 */
const char *evt_fmt_esc(char *out, size_t len, const char *s);
/* The same, written to @f whatever its length: 0, or -1 (a write error). */
int evt_fputs_esc(FILE *f, const char *s);

#endif /* EVT_ESC_H */
