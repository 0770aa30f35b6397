// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "evt_decode.h"

static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

int evt_packet_parse(const void *buf, size_t avail, struct evt_packet_info *pi,
		     char *err, size_t errlen)
{
	const struct evt_packet_header *h = buf;

	if (avail < EVT_PACKET_HEADER_SIZE) {
		snprintf(err, errlen, "truncated packet header (%zu of %d bytes)",
			 avail, EVT_PACKET_HEADER_SIZE);
		return -1;
	}
	memcpy(&pi->h, h, sizeof(pi->h));
	if (pi->h.magic != EVT_CTF_MAGIC) {
		snprintf(err, errlen, "bad magic 0x%08x", pi->h.magic);
		return -1;
	}
	if (pi->h.stream_id >= EVT_NR_CHANNELS) {
		snprintf(err, errlen, "unknown stream_id %u", pi->h.stream_id);
		return -1;
	}
	if (pi->h.packet_size % 8 || pi->h.content_size % 8 ||
	    pi->h.packet_size < EVT_PACKET_HEADER_SIZE * 8ULL ||
	    pi->h.packet_size > (64ULL << 20) * 8 ||
	    pi->h.content_size < EVT_PACKET_HEADER_SIZE * 8ULL ||
	    pi->h.content_size > pi->h.packet_size) {
		snprintf(err, errlen, "bad sizes: content_size %llu, packet_size %llu bits",
			 (unsigned long long)pi->h.content_size,
			 (unsigned long long)pi->h.packet_size);
		return -1;
	}
	pi->content_bytes = pi->h.content_size / 8;
	pi->packet_bytes = pi->h.packet_size / 8;
	if (pi->packet_bytes > avail) {
		snprintf(err, errlen, "truncated packet: %zu of %zu bytes", avail, pi->packet_bytes);
		return -1;
	}
	if (pi->h.timestamp_end < pi->h.timestamp_begin) {
		snprintf(err, errlen, "timestamp_end %llu before timestamp_begin %llu",
			 (unsigned long long)pi->h.timestamp_end,
			 (unsigned long long)pi->h.timestamp_begin);
		return -1;
	}
	return 0;
}

int evt_packet_iter_init(struct evt_packet_iter *it, const void *buf, size_t avail)
{
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	if (evt_packet_parse(buf, avail, &it->info, it->err, sizeof(it->err)))
		return -1;
	it->pos = EVT_PACKET_HEADER_SIZE;
	it->prev_ts = it->info.h.timestamp_begin;
	return 0;
}

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Walk @d's fields over @p; calls back per field when @want >= 0 matches. */
static long walk_fields(const struct evt_event_desc *d, const uint8_t *p, size_t avail,
			int want, struct evt_field_val *v)
{
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++) {
		const struct evt_field_desc *f = &d->fields[i];
		size_t sz = 0, a = 1;
		uint64_t u = 0;
		const uint8_t *bytes = NULL;
		unsigned int len = 0;

		switch (f->type) {
		case EVT_F_U8: sz = 1; break;
		case EVT_F_U16: sz = 2; a = 2; break;
		case EVT_F_U32: case EVT_F_S32: sz = 4; a = 4; break;
		case EVT_F_U64: case EVT_F_S64: case EVT_F_X64: sz = 8; a = 4; break;
		case EVT_F_STRING: break;
		case EVT_F_SEQ_U8: a = 2; break;
		case EVT_F_COMM: sz = 16; break;
		}
		off = align_up(off, a);
		if (off > avail)
			return -1;
		if (f->type == EVT_F_STRING) {
			const uint8_t *nul = memchr(p + off, 0, avail - off);

			if (!nul)
				return -1;
			bytes = p + off;
			len = (unsigned int)(nul - bytes);
			sz = len + 1;
		} else if (f->type == EVT_F_COMM) {
			if (avail - off < 16)
				return -1;
			bytes = p + off;
			len = (unsigned int)strnlen((const char *)bytes, 16);
		} else if (f->type == EVT_F_SEQ_U8) {
			if (avail - off < 2)
				return -1;
			len = get16(p + off);
			bytes = p + off + 2;
			sz = 2 + (size_t)len;
		}
		if (avail - off < sz)
			return -1;
		switch (f->type) {
		case EVT_F_U8: u = p[off]; break;
		case EVT_F_U16: u = get16(p + off); break;
		case EVT_F_U32: u = get32(p + off); break;
		case EVT_F_S32: u = (uint64_t)(int64_t)(int32_t)get32(p + off); break;
		case EVT_F_U64: case EVT_F_S64: case EVT_F_X64: u = get64(p + off); break;
		default: break;
		}
		if ((int)i == want) {
			v->desc = f;
			v->u = u;
			v->bytes = bytes;
			v->len = len;
			return 0;
		}
		off += sz;
	}
	return want >= 0 ? -1 : (long)off;
}

long evt_payload_size(const struct evt_event_desc *d, const uint8_t *p, size_t avail)
{
	return walk_fields(d, p, avail, -1, NULL);
}

int evt_event_field(const struct evt_event *ev, unsigned int idx, struct evt_field_val *v)
{
	if (!ev->desc || idx >= ev->desc->nr_fields)
		return -1;
	return (int)walk_fields(ev->desc, ev->payload, ev->payload_len, (int)idx, v);
}

int evt_event_field_by_name(const struct evt_event *ev, const char *name, struct evt_field_val *v)
{
	unsigned int i;

	for (i = 0; ev->desc && i < ev->desc->nr_fields; i++)
		if (!strcmp(ev->desc->fields[i].name, name))
			return evt_event_field(ev, i, v);
	return -1;
}

#define FAIL(it, ...) do { \
	int n_ = snprintf((it)->err, sizeof((it)->err), "offset %zu in packet: ", (it)->pos); \
	snprintf((it)->err + n_, sizeof((it)->err) - (size_t)n_, __VA_ARGS__); \
	return -1; } while (0)

int evt_packet_next(struct evt_packet_iter *it, struct evt_event *ev)
{
	const uint8_t *p;
	size_t end = it->info.content_bytes, hdr, room;
	unsigned int chan = it->info.h.stream_id, low_bits, id;
	uint64_t ts, low, mask;
	long psize;
	int ext;

	it->pos = align_up(it->pos, EVT_EVENT_ALIGN);
	if (it->pos >= end)
		return 0;
	p = it->buf + it->pos;
	room = end - it->pos;
	if (chan == EVT_CHAN_COMPACT) {
		uint32_t w;

		if (room < 4)
			FAIL(it, "truncated compact event header");
		w = get32(p);
		id = w & ((1U << EVT_COMPACT_ID_BITS) - 1);
		ext = id == EVT_COMPACT_ID_EXT;
		low = w >> EVT_COMPACT_ID_BITS;
		low_bits = EVT_COMPACT_TS_BITS;
		hdr = ext ? EVT_COMPACT_EXT_HDR : EVT_COMPACT_HDR;
	} else {
		if (room < EVT_NORMAL_HDR)
			FAIL(it, "truncated normal event header");
		id = get16(p);
		ext = id == EVT_NORMAL_ID_EXT;
		low = get32(p + 4);
		low_bits = EVT_NORMAL_TS_BITS;
		hdr = ext ? EVT_NORMAL_EXT_HDR : EVT_NORMAL_HDR;
	}
	if (room < hdr)
		FAIL(it, "truncated extended event header");
	if (ext) {
		id = get32(p + 4);
		ts = get64(p + 8);
	} else {
		/* At most one wrap of the low bits since the previous event. */
		mask = (1ULL << low_bits) - 1;
		ts = (it->prev_ts & ~mask) | low;
		if (ts < it->prev_ts)
			ts += mask + 1;
	}
	if (ts < it->prev_ts)
		FAIL(it, "timestamp %llu goes back (previous %llu)",
		     (unsigned long long)ts, (unsigned long long)it->prev_ts);
	if (ts > it->info.h.timestamp_end)
		FAIL(it, "timestamp %llu after the packet's timestamp_end %llu",
		     (unsigned long long)ts, (unsigned long long)it->info.h.timestamp_end);
	ev->desc = evt_find_event(chan, id);
	if (!ev->desc)
		FAIL(it, "unknown event id %u in stream %u", id, chan);
	psize = evt_payload_size(ev->desc, p + hdr, room - hdr);
	if (psize < 0)
		FAIL(it, "event %s overruns the packet content", ev->desc->name);
	if (chan == EVT_CHAN_NORMAL && (unsigned long)psize != get16(p + 2))
		FAIL(it, "event %s: header says %u payload bytes, fields take %ld",
		     ev->desc->name, get16(p + 2), psize);
	ev->channel = chan;
	ev->id = id;
	ev->ts = ts;
	ev->payload = p + hdr;
	ev->payload_len = (unsigned int)psize;
	ev->offset = it->pos;
	it->prev_ts = ts;
	it->pos += hdr + (size_t)psize;
	if (it->pos > end)
		FAIL(it, "event overruns the packet content");
	it->count++;
	return 1;
}
