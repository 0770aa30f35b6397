// SPDX-License-Identifier: GPL-2.0
/*
 * The one decoder: packet checks, payload layout, the lookup tables, the
 * packet iterator and every decoding error's text; see evt_decode.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_decode.h"
#include "ctf/evt_pindex.h"


static struct evt_catalogue builtin;
const struct evt_catalogue *const evt_builtin = &builtin;

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Before main: the tables never change after, so threads read them freely. */
__attribute__((constructor))
static void evt_builtin_init(void)
{
	char err[256];

	if (evt_catalogue_init(&builtin, evt_events, evt_nr_events, EVT_COMPACT_ID_WIDE, err, sizeof(err))) {
		fprintf(stderr, "evtrace: this build's event catalogue: %s\n", err);
		abort();
	}
}

/* Names are printed as they are, in text and in JSON: printable ASCII, no quote or backslash. */
static int name_ok(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++, n++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return 0;
	return s && n && n < 256;
}

int evt_catalogue_init(struct evt_catalogue *c, const struct evt_event_desc *ev, unsigned int n,
		       unsigned int compact_wide_id, char *err, size_t errlen)
{
	static const uint8_t zeros[4096];
	unsigned int ch, i, j;

	memset(c, 0, sizeof(*c));
	c->bad = -1;
	if (n > EVT_CATALOGUE_MAX) {
		snprintf(err, errlen, "%u events: at most %d are supported", n, EVT_CATALOGUE_MAX);
		return -1;
	}
	c->events = ev;
	c->nr_events = n;
	c->c_wide_id = compact_wide_id;
	for (ch = 0; ch < EVT_NR_CHANNELS; ch++)
		for (i = 0; i < EVT_DECODE_SMALL_IDS; i++)
			c->desc_by_id[ch][i] = -1;
	for (i = 0; i < n; i++) {
		const struct evt_event_desc *d = &ev[i];
		unsigned int var = 0;
		size_t fixed = 0;

		if (!name_ok(d->name)) {
			snprintf(err, errlen, "event %u: its name is empty, longer than 255 bytes or holds "
				 "a byte other than printable ASCII (or \" or \\)", i);
			c->bad = (int)i;
			return -1;
		}
		for (j = 0; j < d->nr_fields; j++)
			if (!name_ok(d->fields[j].name)) {
				snprintf(err, errlen, "event %s, field %u: the same about its name", d->name, j);
				c->bad = (int)i;
			return -1;
			}
		if (d->channel >= EVT_NR_CHANNELS) {
			snprintf(err, errlen, "event %s: stream %u is not one of evtrace's", d->name, d->channel);
			c->bad = (int)i;
			return -1;
		}
		for (j = 0; j < i; j++) {
			if (ev[j].channel == d->channel && ev[j].id == d->id) {
				snprintf(err, errlen, "events %s and %s have one id (%u) in stream %u",
					 ev[j].name, d->name, d->id, d->channel);
				c->bad = (int)i;
			return -1;
			}
			if (!strcmp(ev[j].name, d->name)) {
				snprintf(err, errlen, "two events are named %s", d->name);
				c->bad = (int)i;
			return -1;
			}
		}
		for (j = 0; j < d->nr_fields; j++) {
			enum evt_field_type ft = d->fields[j].type;

			if ((unsigned int)ft > EVT_F_LAST) {
				snprintf(err, errlen, "event %s, field %s: type %u is not one of evtrace's",
					 d->name, d->fields[j].name, (unsigned int)ft);
				c->bad = (int)i;
			return -1;
			}
			var |= evt_field_is_var(ft);
			fixed = align_up(fixed, evt_field_align(ft)) + evt_field_size(ft);
		}
		if (!var && fixed > sizeof(zeros)) {
			snprintf(err, errlen, "event %s: %zu payload bytes, more than %zu", d->name, fixed,
				 sizeof(zeros));
			c->bad = (int)i;
			return -1;
		}
		if (d->id < EVT_DECODE_SMALL_IDS)
			c->desc_by_id[d->channel][d->id] = (int16_t)i;
		c->fixed_len[i] = var ? -1 : (int32_t)evt_payload_size(d, zeros, sizeof(zeros));
		if (var) {
			const struct evt_field_desc *last = &d->fields[d->nr_fields - 1];
			size_t off = 0;

			/* The fixed fields before it, laid out as the walk would. */
			for (j = 0; j + 1 < d->nr_fields; j++) {
				enum evt_field_type ft = d->fields[j].type;

				if (evt_field_is_var(ft))
					break;
				off = align_up(off, evt_field_align(ft)) + evt_field_size(ft);
			}
			if (j + 1 == d->nr_fields && off < 0xffff &&
			    (last->type == EVT_F_STRING || last->type == EVT_F_SEQ_U8)) {
				c->var_type[i] = (uint8_t)(last->type + 1);
				c->var_off[i] = (uint16_t)align_up(off, evt_field_align(last->type));
			}
		}
	}
	for (i = 0; i < EVT_DECODE_SMALL_IDS; i++) {
		int16_t di = c->desc_by_id[EVT_CHAN_NORMAL][i];

		c->n_fixed[i] = di < 0 || c->fixed_len[di] < 0 ? 0x10000 : (uint32_t)c->fixed_len[di];
		if (di >= 0) {
			c->n_var_type[i] = c->var_type[di];
			c->n_var_off[i] = c->var_off[di];
		}
	}
	/* The ids of a small compact header: below the wide one (0.1: below 31). */
	for (i = 0; i < EVT_COMPACT_ID_EXT && i < compact_wide_id; i++) {
		int16_t di = c->desc_by_id[EVT_CHAN_COMPACT][i];

		if (di < 0 || c->fixed_len[di] < 0)
			continue;
		c->c_need[i] = EVT_COMPACT_HDR + (uint32_t)c->fixed_len[di];
		c->c_step[i] = (c->c_need[i] + EVT_EVENT_ALIGN - 1) & ~(uint32_t)(EVT_EVENT_ALIGN - 1);
		c->c_meta[i] = EVT_DMETA(0, c->fixed_len[di], di);
	}
	return 0;
}

const struct evt_event_desc *evt_catalogue_find(const struct evt_catalogue *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->nr_events; i++)
		if (!strcmp(c->events[i].name, name))
			return &c->events[i];
	return NULL;
}

int evt_catalogue_same(const struct evt_catalogue *a, const struct evt_catalogue *b)
{
	unsigned int i, j;

	if (a->nr_events != b->nr_events || a->c_wide_id != b->c_wide_id)
		return 0;
	for (i = 0; i < a->nr_events; i++) {
		const struct evt_event_desc *x = &a->events[i], *y = &b->events[i];

		if (strcmp(x->name, y->name) || x->channel != y->channel || x->id != y->id ||
		    x->nr_fields != y->nr_fields)
			return 0;
		for (j = 0; j < x->nr_fields; j++)
			if (strcmp(x->fields[j].name, y->fields[j].name) ||
			    x->fields[j].type != y->fields[j].type)
				return 0;
	}
	return 1;
}

/* ---- Errors: their text, here only ---- */

static const char *desc_name(const struct evt_decode_err *e)
{
	return e->cat && e->desc >= 0 && (unsigned int)e->desc < e->cat->nr_events ?
	       e->cat->events[e->desc].name : "?";
}

static void message(char *buf, size_t len, const struct evt_decode_err *e)
{
	const unsigned long long a = e->a, b = e->b, c = e->c;

	switch (e->code) {
	case EVT_DERR_NONE:
		snprintf(buf, len, "no error");
		break;
	case EVT_DERR_PKT_SHORT:
		snprintf(buf, len, "truncated packet header (%llu of %d bytes)", a, EVT_PACKET_HEADER_SIZE);
		break;
	case EVT_DERR_PKT_MAGIC:
		snprintf(buf, len, "bad magic 0x%08llx", a);
		break;
	case EVT_DERR_PKT_STREAM_ID:
		snprintf(buf, len, "unknown stream_id %llu", a);
		break;
	case EVT_DERR_PKT_SIZES:
		snprintf(buf, len, "bad sizes: content_size %llu, packet_size %llu bits", a, b);
		break;
	case EVT_DERR_PKT_TRUNCATED:
		snprintf(buf, len, "truncated packet: %llu of %llu bytes", a, b);
		break;
	case EVT_DERR_PKT_TIME_RANGE:
		snprintf(buf, len, "timestamp_end %llu before timestamp_begin %llu", b, a);
		break;
	case EVT_DERR_PKT_WRONG_STREAM:
		snprintf(buf, len, "packet of stream %llu (%s) in a %s file", a,
			 evt_channel_name((unsigned int)a), evt_channel_name((unsigned int)b));
		break;
	case EVT_DERR_PKT_WRONG_CPU:
		snprintf(buf, len, "packet of cpu_id %llu, stream_instance_id %llu in the file of CPU %u",
			 a, b, e->cpu);
		break;
	case EVT_DERR_PKT_UUID:
		snprintf(buf, len, "packet uuid differs from the metadata's trace uuid");
		break;
	case EVT_DERR_PKT_SEQ:
		snprintf(buf, len, "packet_seq_num %llu not after the previous packet's %llu", a, b);
		break;
	case EVT_DERR_PKT_DISCARDED_BACK:
		snprintf(buf, len, "events_discarded %llu below the previous packet's %llu", a, b);
		break;
	case EVT_DERR_PKT_TIME_BACK:
		snprintf(buf, len, "timestamp_begin %llu before the previous packet's timestamp_end %llu",
			 a, b);
		break;
	case EVT_DERR_PKT_OUT_OF_REACH:
		snprintf(buf, len, "timestamp_end %llu lies more than %llu ns after the trace's first "
			 "packet begins (%llu): too far apart to merge", a, b, c);
		break;
	case EVT_DERR_PKT_NOT_INDEXED:
		snprintf(buf, len, "the packet header is not what the stream's packet index (" EVT_PIDX_DIR
			 ") says: the file changed since it was indexed; read it again");
		break;
	case EVT_DERR_HDR_TRUNCATED:
		snprintf(buf, len, "truncated %s event header",
			 e->chan == EVT_CHAN_COMPACT ? "compact" : "normal");
		break;
	case EVT_DERR_EXT_HDR_TRUNCATED:
		snprintf(buf, len, "truncated extended event header");
		break;
	case EVT_DERR_WIDE_HDR_TRUNCATED:
		snprintf(buf, len, "truncated wide event header");
		break;
	case EVT_DERR_TS_BACK:
		snprintf(buf, len, "timestamp %llu goes back (previous %llu)", a, b);
		break;
	case EVT_DERR_TS_LATE:
		snprintf(buf, len, "timestamp %llu after the packet's timestamp_end %llu", a, b);
		break;
	case EVT_DERR_UNKNOWN_ID:
		snprintf(buf, len, "unknown event id %llu in stream %u", a, e->chan);
		break;
	case EVT_DERR_OVERRUN:
		snprintf(buf, len, "event %s overruns the packet content", desc_name(e));
		break;
	case EVT_DERR_LEN_MISMATCH:
		snprintf(buf, len, "event %s: header says %llu payload bytes, fields take %llu",
			 desc_name(e), a, b);
		break;
	case EVT_DERR_NOMEM:
		snprintf(buf, len, "out of memory");
		break;
	}
}

char *evt_decode_format(char *buf, size_t len, const char *file, size_t off,
			const struct evt_decode_err *e)
{
	char msg[512];

	message(msg, sizeof(msg), e);
	if (!file)
		snprintf(buf, len, "offset %zu in packet: %s", e->off, msg);
	else if (e->code >= EVT_DERR_PKT_SHORT && e->code <= EVT_DERR_PKT_TIME_RANGE)
		snprintf(buf, len, "%s: offset %zu: packet: %s", file, off, msg);
	else
		snprintf(buf, len, "%s: offset %zu: %s", file, off, msg);
	return buf;
}

/* ---- Packets ---- */

int evt_packet_check(const void *buf, size_t avail, struct evt_packet_info *pi,
		     struct evt_decode_err *e)
{
	memset(e, 0, sizeof(*e));
	e->desc = -1;
	if (avail < EVT_PACKET_HEADER_SIZE) {
		e->code = EVT_DERR_PKT_SHORT;
		e->a = avail;
		return -1;
	}
	memcpy(&pi->h, buf, sizeof(pi->h));
	if (pi->h.magic != EVT_CTF_MAGIC) {
		e->code = EVT_DERR_PKT_MAGIC;
		e->a = pi->h.magic;
		return -1;
	}
	if (pi->h.stream_id >= EVT_NR_CHANNELS) {
		e->code = EVT_DERR_PKT_STREAM_ID;
		e->a = pi->h.stream_id;
		return -1;
	}
	if (pi->h.packet_size % 8 || pi->h.content_size % 8 ||
	    pi->h.packet_size < EVT_PACKET_HEADER_SIZE * 8ULL ||
	    pi->h.packet_size > (64ULL << 20) * 8 ||
	    pi->h.content_size < EVT_PACKET_HEADER_SIZE * 8ULL ||
	    pi->h.content_size > pi->h.packet_size) {
		e->code = EVT_DERR_PKT_SIZES;
		e->a = pi->h.content_size;
		e->b = pi->h.packet_size;
		return -1;
	}
	pi->content_bytes = pi->h.content_size / 8;
	pi->packet_bytes = pi->h.packet_size / 8;
	if (pi->packet_bytes > avail) {
		e->code = EVT_DERR_PKT_TRUNCATED;
		e->a = avail;
		e->b = pi->packet_bytes;
		return -1;
	}
	if (pi->h.timestamp_end < pi->h.timestamp_begin) {
		e->code = EVT_DERR_PKT_TIME_RANGE;
		e->a = pi->h.timestamp_begin;
		e->b = pi->h.timestamp_end;
		return -1;
	}
	return 0;
}

int evt_packet_parse(const void *buf, size_t avail, struct evt_packet_info *pi,
		     char *err, size_t errlen)
{
	struct evt_decode_err e;
	char msg[512];

	if (!evt_packet_check(buf, avail, pi, &e))
		return 0;
	message(msg, sizeof(msg), &e);
	snprintf(err, errlen, "%s", msg);
	return -1;
}

/* ---- Payloads ---- */

/* Walk @d's fields over @p; calls back per field when @want >= 0 matches. */
static long walk_fields(const struct evt_event_desc *d, const uint8_t *p, size_t avail,
			int want, struct evt_field_val *v)
{
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++) {
		const struct evt_field_desc *f = &d->fields[i];
		size_t sz = evt_field_size(f->type);
		uint64_t u = 0;
		const uint8_t *bytes = NULL;
		unsigned int len = 0;

		off = align_up(off, evt_field_align(f->type));
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
			if (avail - off < sz)
				return -1;
			bytes = p + off;
			len = (unsigned int)strnlen((const char *)bytes, sz);
		} else if (f->type == EVT_F_SEQ_U8) {
			if (avail - off < sz)
				return -1;
			len = evt_ld16(p + off);
			bytes = p + off + 2;
			sz = 2 + (size_t)len;
		} else if (f->type == EVT_F_SEQ_X64) {
			if (avail - off < sz)
				return -1;
			len = evt_ld32(p + off);
			if (len > (avail - off - 4) / 8)
				return -1;
			bytes = p + off + 4;
			sz = 4 + 8 * (size_t)len;
		}
		if (avail - off < sz)
			return -1;
		switch (f->type) {
		case EVT_F_U8: u = p[off]; break;
		case EVT_F_U16: u = evt_ld16(p + off); break;
		case EVT_F_U32: case EVT_F_X32: u = evt_ld32(p + off); break;
		case EVT_F_S32: u = (uint64_t)(int64_t)(int32_t)evt_ld32(p + off); break;
		case EVT_F_U64: case EVT_F_S64: case EVT_F_X64: u = evt_ld64(p + off); break;
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

int evt_payload_field(const struct evt_event_desc *d, const uint8_t *p, size_t len, const char *name,
		      struct evt_field_val *v)
{
	unsigned int i;

	for (i = 0; d && i < d->nr_fields; i++)
		if (!strcmp(d->fields[i].name, name))
			return (int)walk_fields(d, p, len, (int)i, v);
	return -1;
}

int evt_event_field_by_name(const struct evt_event *ev, const char *name, struct evt_field_val *v)
{
	return evt_payload_field(ev->desc, ev->payload, ev->payload_len, name, v);
}

/* ---- The packet iterator ---- */

int evt_packet_iter_init(struct evt_packet_iter *it, const struct evt_catalogue *cat,
			 const void *buf, size_t avail)
{
	memset(it, 0, sizeof(*it));
	it->cat = cat;
	it->buf = buf;
	if (evt_packet_parse(buf, avail, &it->info, it->err, sizeof(it->err)))
		return -1;
	it->pos = EVT_PACKET_HEADER_SIZE;
	it->prev_ts = it->info.h.timestamp_begin;
	return 0;
}

int evt_packet_next(struct evt_packet_iter *it, struct evt_event *ev)
{
	const unsigned int chan = it->info.h.stream_id;
	struct evt_decoded d;
	size_t next;
	uint32_t di;

	it->pos = align_up(it->pos, EVT_EVENT_ALIGN);
	if (it->pos >= it->info.content_bytes)
		return 0;
	if (evt_decode_event(it->cat, it->buf, it->pos, it->info.content_bytes, chan, it->prev_ts,
			     it->info.h.timestamp_end, &d, &next, &it->derr)) {
		evt_decode_format(it->err, sizeof(it->err), NULL, 0, &it->derr);
		return -1;
	}
	di = EVT_DMETA_DESC(d.meta);
	ev->desc = &it->cat->events[di];
	ev->desc_index = di;
	ev->channel = chan;
	ev->id = ev->desc->id;
	ev->ts = d.ts;
	ev->payload = it->buf + EVT_DMETA_OFF(d.meta);
	ev->payload_len = EVT_DMETA_LEN(d.meta);
	ev->offset = it->pos;
	it->prev_ts = d.ts;
	it->pos = next;
	it->count++;
	return 1;
}
