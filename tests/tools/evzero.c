// SPDX-License-Identifier: GPL-2.0
/*
 * evzero: check that a trace carries no byte it was not meant to.
 *
 *   evzero DIR [PATTERN]
 *
 * For every stream file of DIR (all but metadata), packet by packet: every
 * byte outside the packet header and the event records (event header and
 * payload, as the strict decoder walks them) — the alignment padding before
 * event headers and the tail between content_size and packet_size — must be
 * zero; and PATTERN (a string the test wrote into free memory before the
 * module was loaded) must appear nowhere in the file. Prints one line per
 * file and a total; exit 0 when clean, 1 when not, 2 on errors.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_decode.h"
#include "ctf/evt_trace.h"

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf) {
				fclose(f);
				return NULL;
			}
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return buf;
}

/* Returns the number of bad bytes in the file, or -1 on a decoding error. */
static long check_file(const char *path, const char *pattern, unsigned long *packets,
		       unsigned long *uncovered, unsigned long *hits)
{
	size_t len, off = 0;
	unsigned char *buf = slurp(path, &len), *cover;
	unsigned long index = 0;
	long bad = 0;

	if (!buf) {
		fprintf(stderr, "evzero: cannot read %s\n", path);
		return -1;
	}
	if (pattern && *pattern) {
		const unsigned char *p = buf, *end = buf + len;

		while ((p = memmem(p, (size_t)(end - p), pattern, strlen(pattern)))) {
			if (*hits < 3)
				printf("%s: pattern at byte %zu\n", path, (size_t)(p - buf));
			(*hits)++;
			p++;
		}
	}
	cover = malloc(len ? len : 1);
	while (off < len) {
		struct evt_packet_iter it;
		struct evt_event ev;
		size_t i, psize;
		int r;

		if (evt_packet_iter_init(&it, evt_builtin, buf + off, len - off)) {
			fprintf(stderr, "evzero: %s: packet at byte %zu: %s\n", path, off, it.err);
			bad = -1;
			break;
		}
		psize = it.info.packet_bytes;
		memset(cover, 0, psize);
		memset(cover, 1, EVT_PACKET_HEADER_SIZE);
		while ((r = evt_packet_next(&it, &ev)) == 1) {
			size_t end = (size_t)(ev.payload - (buf + off)) + ev.payload_len;

			memset(cover + ev.offset, 1, end - ev.offset);
		}
		if (r < 0) {
			fprintf(stderr, "evzero: %s: packet at byte %zu: %s\n", path, off, it.err);
			bad = -1;
			break;
		}
		for (i = 0; i < psize; i++) {
			if (cover[i])
				continue;
			(*uncovered)++;
			if (buf[off + i]) {
				if (bad < 5)
					printf("%s: packet %lu at byte %zu: byte %zu (%s) is 0x%02x\n",
					       path, index, off, i,
					       i >= it.info.content_bytes ? "after content_size" : "padding",
					       buf[off + i]);
				bad++;
			}
		}
		(*packets)++;
		index++;
		off += psize;
	}
	free(cover);
	free(buf);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long packets = 0, uncovered = 0, hits = 0, files = 0;
	const char *pattern = argc > 2 ? argv[2] : NULL;
	long bad = 0;
	struct dirent *de;
	DIR *d;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: evzero DIR [PATTERN]\n");
		return 2;
	}
	/* evdrain's layout: the streams are in DIR/kernel/. */
	argv[1] = evt_trace_dir(argv[1]);
	if (!argv[1]) {
		perror("evzero");
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 2;
	}
	while ((de = readdir(d))) {
		char path[4096];
		long b;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata") ||
		    !strncmp(de->d_name, "held", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
		b = check_file(path, pattern, &packets, &uncovered, &hits);
		if (b < 0) {
			closedir(d);
			return 2;
		}
		bad += b;
		files++;
	}
	closedir(d);
	printf("evzero: %lu files, %lu packets, %lu bytes outside headers and events, %ld of them not zero, pattern found %lu times\n",
	       files, packets, uncovered, bad, hits);
	if (!files || !packets) {
		fprintf(stderr, "evzero: no packets in %s\n", argv[1]);
		return 2;
	}
	return bad || hits ? 1 : 0;
}
