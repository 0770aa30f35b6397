/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strict decoding of evtrace CTF packets: packet header and context, both
 * event header kinds, 64-bit timestamps rebuilt with the one-wrap rule,
 * payloads walked from the shared event catalogue. Every error names the
 * byte offset; nothing is skipped silently.
 */
#ifndef EVT_DECODE_H
#define EVT_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <evtrace/abi.h>
#include <evtrace/events.h>

struct evt_packet_info {
	struct evt_packet_header h;
	size_t content_bytes;
	size_t packet_bytes;
};

struct evt_event {
	unsigned int channel;
	unsigned int id;
	uint64_t ts;
	const struct evt_event_desc *desc;
	const uint8_t *payload;
	unsigned int payload_len;
	size_t offset;		/* of the event header within the packet */
};

struct evt_packet_iter {
	const uint8_t *buf;
	struct evt_packet_info info;
	size_t pos;
	uint64_t prev_ts;
	unsigned int count;
	char err[256];
};

/* One decoded field value. */
struct evt_field_val {
	const struct evt_field_desc *desc;
	uint64_t u;		/* integers (signed ones sign-extended) */
	const uint8_t *bytes;	/* strings (NUL excluded) and sequences */
	unsigned int len;
};

/*
 * Check a packet's header and context; @avail is how many bytes are there.
 * Returns 0, or -1 with @err set.
 */
int evt_packet_parse(const void *buf, size_t avail, struct evt_packet_info *pi,
		     char *err, size_t errlen);
/* Start iterating a parsed packet's events. */
int evt_packet_iter_init(struct evt_packet_iter *it, const void *buf, size_t avail);
/* 1: an event in @ev; 0: end of packet; -1: error in it->err. */
int evt_packet_next(struct evt_packet_iter *it, struct evt_event *ev);
/* Payload length an event of @d takes at @p (at most @avail bytes), or -1. */
long evt_payload_size(const struct evt_event_desc *d, const uint8_t *p, size_t avail);
/* Field @idx of @ev; 0 or -1. */
int evt_event_field(const struct evt_event *ev, unsigned int idx, struct evt_field_val *v);
/* Field by name; 0 or -1. */
int evt_event_field_by_name(const struct evt_event *ev, const char *name, struct evt_field_val *v);

#endif
