/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CTF metadata as evtrace writes it (TSDL, plain text): reading it whole from
 * a file or the module's metadata device, and parsing it: the events it
 * declares become the catalogue the trace is decoded by, and what a reader
 * checks against the stream files (the clock's offset and frequency, the
 * trace uuid). Its own struct: no reader state, so the drainer and the
 * reader both use it.
 */
#ifndef EVT_METADATA_H
#define EVT_METADATA_H

#include <stddef.h>
#include <stdint.h>

/* Refuse metadata larger than this (evtrace's is a few KiB). */
#define EVT_METADATA_MAX (64 << 20)

struct evt_catalogue;
struct evt_metadata_own;

struct evt_metadata {
	int has_clock;
	uint64_t clock_offset_s;	/* the clock block's offset_s */
	uint64_t clock_offset_ns;	/* and offset (cycles of a 1 GHz clock: ns) */
	int has_uuid;
	uint8_t uuid[16];		/* the trace block's uuid */
	/*
	 * The events the metadata declares: evt_builtin when they are this
	 * build's (names, ids, fields), else a catalogue of their own (own).
	 */
	const struct evt_catalogue *cat;
	struct evt_metadata_own *own;
};

/*
 * Read @fd to its end, whatever the size of each read() (a regular file or
 * /dev/evtrace/metadata): 0 with a malloc()ed NUL-terminated *@text of
 * *@len bytes, or -1 with @err.
 */
int evt_metadata_read(int fd, char **text, size_t *len, char *err, size_t errlen);

/*
 * Check and parse: an evtrace trace (env.tracer_name), CTF 1.8,
 * little-endian, a clock of 1 GHz, a trace uuid; the TSDL whole
 * (evt_tsdl_parse()), with the packet header, the streams, their packet
 * contexts and event headers evtrace's (the decoder's own code reads
 * those), and the events as the catalogue md->cat: their names, ids and
 * field layouts are the metadata's, whatever this build's are. 0, or -1
 * with @err (what is wrong, with its line where it has one). Free with
 * evt_metadata_free() after 0.
 */
int evt_metadata_parse(const char *text, size_t len, struct evt_metadata *md,
		       char *err, size_t errlen);
void evt_metadata_free(struct evt_metadata *md);

/* Realtime = clock value + this (nanoseconds). */
static inline uint64_t evt_metadata_offset_ns(const struct evt_metadata *md)
{
	return md->clock_offset_s * 1000000000ULL + md->clock_offset_ns;
}

#endif /* EVT_METADATA_H */
