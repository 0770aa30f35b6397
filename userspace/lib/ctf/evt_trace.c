// SPDX-License-Identifier: GPL-2.0
/*
 * Trace directory reader and merged reader: see evt_trace.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "evt_trace.h"

/* ---- The catalogue as lookup tables ---- */

#define SMALL_IDS 256
static int16_t desc_by_id[EVT_NR_CHANNELS][SMALL_IDS];
static int32_t fixed_len[256];	/* payload bytes of a fixed-size event, -1: variable */
/*
 * The compact fast path, by the 5-bit id of a small header: header +
 * payload bytes (0: take the slow path), the step to the next event
 * (aligned), and the meta bits other than the offset.
 */
static uint32_t c_need[32], c_step[32];
static uint64_t c_meta[32];
static int tables_ready;

static void tables_init(void)
{
	static const uint8_t zeros[1024];
	unsigned int c, i;

	if (tables_ready)
		return;
	for (c = 0; c < EVT_NR_CHANNELS; c++)
		for (i = 0; i < SMALL_IDS; i++)
			desc_by_id[c][i] = -1;
	for (i = 0; i < evt_nr_events && i < 256; i++) {
		const struct evt_event_desc *d = &evt_events[i];
		unsigned int j, var = 0;

		if (d->channel < EVT_NR_CHANNELS && d->id < SMALL_IDS &&
		    desc_by_id[d->channel][d->id] < 0)
			desc_by_id[d->channel][d->id] = (int16_t)i;
		for (j = 0; j < d->nr_fields; j++)
			var |= d->fields[j].type == EVT_F_STRING || d->fields[j].type == EVT_F_SEQ_U8;
		fixed_len[i] = var ? -1 : (int32_t)evt_payload_size(d, zeros, sizeof(zeros));
	}
	for (i = 0; i < EVT_COMPACT_ID_EXT; i++) {
		int16_t di = desc_by_id[EVT_CHAN_COMPACT][i];

		if (di < 0 || fixed_len[di] < 0)
			continue;
		c_need[i] = EVT_COMPACT_HDR + (uint32_t)fixed_len[di];
		c_step[i] = (c_need[i] + EVT_EVENT_ALIGN - 1) & ~(uint32_t)(EVT_EVENT_ALIGN - 1);
		c_meta[i] = EVT_DMETA(0, fixed_len[di], di);
	}
	tables_ready = 1;
}

static long lookup_desc(unsigned int chan, uint32_t id)
{
	const struct evt_event_desc *d;

	if (id < SMALL_IDS)
		return desc_by_id[chan][id];
	d = evt_find_event(chan, id);
	return d && d - evt_events < 256 ? d - evt_events : -1;
}

/* ---- Errors ---- */

__attribute__((format(printf, 3, 4)))
static void seterr(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* ---- Opening ---- */

static int parse_stream_name(const char *name, unsigned int *chan, unsigned int *cpu)
{
	const char *p;
	unsigned long v = 0;
	unsigned int c;

	for (c = 0; c < EVT_NR_CHANNELS; c++) {
		size_t l = strlen(evt_channel_name(c));

		if (!strncmp(name, evt_channel_name(c), l) && name[l] == '_')
			break;
	}
	if (c == EVT_NR_CHANNELS)
		return -1;
	p = name + strlen(evt_channel_name(c)) + 1;
	if (!*p || strlen(p) > 7 || (p[0] == '0' && p[1]))
		return -1;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	*chan = c;
	*cpu = (unsigned int)v;
	return 0;
}

static int index_stream(struct evt_trace *t, struct evt_stream *s);

static int stream_cmp(const void *a, const void *b)
{
	const struct evt_stream *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->channel < y->channel ? -1 : x->channel > y->channel;
}

static int read_metadata(struct evt_trace *t)
{
	char path[4096], msg[EVT_TRACE_ERRLEN];
	struct stat st;
	char *text;
	size_t len;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/metadata", t->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		seterr(t->err, sizeof(t->err), "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		seterr(t->err, sizeof(t->err), "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	ret = evt_metadata_read(fd, &text, &len, msg, sizeof(msg));
	close(fd);
	if (!ret) {
		ret = evt_metadata_parse(text, len, &t->md, msg, sizeof(msg));
		free(text);
	}
	if (ret)
		seterr(t->err, sizeof(t->err), "%s: %s", path, msg);
	return ret;
}

static int open_stream(struct evt_trace *t, struct evt_stream *s)
{
	char path[4096];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, s->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		seterr(t->err, sizeof(t->err), "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		seterr(t->err, sizeof(t->err), "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	s->size = (size_t)st.st_size;
	if (s->size) {
		void *p = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			seterr(t->err, sizeof(t->err), "%s: mmap: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		madvise(p, s->size, MADV_SEQUENTIAL);
		s->map = p;
	}
	close(fd);
	return 0;
}

int evt_trace_open(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o)
{
	struct dirent *de;
	DIR *d;
	unsigned int cap = 0, i;

	tables_init();
	memset(t, 0, sizeof(*t));
	t->dir = strdup(dir);
	if (!t->dir) {
		seterr(t->err, sizeof(t->err), "out of memory");
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		seterr(t->err, sizeof(t->err), "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (read_metadata(t)) {
		closedir(d);
		goto fail;
	}
	while ((de = readdir(d))) {
		unsigned int chan, cpu;
		struct evt_stream *s;

		if (parse_stream_name(de->d_name, &chan, &cpu))
			continue;
		if (o && o->cpu_set && (cpu >= o->cpu_set_bits ||
					!(o->cpu_set[cpu / 8] & (1U << (cpu % 8)))))
			continue;
		if (t->nr_streams == cap) {
			struct evt_stream *n;

			cap = cap ? cap * 2 : 16;
			n = realloc(t->streams, cap * sizeof(*n));
			if (!n) {
				closedir(d);
				seterr(t->err, sizeof(t->err), "out of memory");
				goto fail;
			}
			t->streams = n;
		}
		s = &t->streams[t->nr_streams++];
		memset(s, 0, sizeof(*s));
		s->channel = chan;
		s->cpu = cpu;
		/* Canonical (no leading zeros): the same name as on disk. */
		snprintf(s->name, sizeof(s->name), "%s_%u", evt_channel_name(chan), cpu);
	}
	closedir(d);
	if (t->nr_streams)
		qsort(t->streams, t->nr_streams, sizeof(*t->streams), stream_cmp);
	t->base = UINT64_MAX;
	for (i = 0; i < t->nr_streams; i++) {
		struct evt_stream *s = &t->streams[i];

		s->id = i;
		if (open_stream(t, s) || index_stream(t, s))
			goto fail;
		if (s->npk && s->pk[0].begin < t->base)
			t->base = s->pk[0].begin;
	}
	return 0;
fail:
	{
		char msg[EVT_TRACE_ERRLEN];

		memcpy(msg, t->err, sizeof(msg));
		evt_trace_close(t);
		memcpy(t->err, msg, sizeof(msg));
	}
	return -1;
}

void evt_trace_close(struct evt_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->nr_streams; i++) {
		struct evt_stream *s = &t->streams[i];

		if (s->map && !s->shared)
			munmap((void *)s->map, s->size);
		if (!s->shared)
			free(s->pk);
		free(s->ev);
	}
	free(t->streams);
	free(t->dir);
	t->streams = NULL;
	t->dir = NULL;
	t->nr_streams = 0;
}

int evt_trace_clone(struct evt_trace *dst, const struct evt_trace *src)
{
	unsigned int i;

	memcpy(dst, src, sizeof(*dst));
	dst->streams = NULL;
	dst->dir = strdup(src->dir);
	if (src->nr_streams)
		dst->streams = calloc(src->nr_streams, sizeof(*dst->streams));
	if (!dst->dir || (src->nr_streams && !dst->streams)) {
		free(dst->dir);
		free(dst->streams);
		memset(dst, 0, sizeof(*dst));
		return -1;
	}
	for (i = 0; i < src->nr_streams; i++) {
		struct evt_stream *d = &dst->streams[i];
		const struct evt_stream *s = &src->streams[i];

		/* Identity, mapping, index and accounting; fresh cursors. */
		memcpy(d, s, offsetof(struct evt_stream, ipk));
		d->packets = s->packets;
		d->discarded = s->discarded;
		d->seq_first = s->seq_first;
		d->seq_gaps = s->seq_gaps;
		d->first_ts = s->first_ts;
		d->end_ts = s->end_ts;
		d->min_end = s->min_end;
		d->max_end = s->max_end;
		d->shared = 1;
	}
	return 0;
}

/* ---- Decoding a stream, one packet at a time ---- */

static inline uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

#define SFAIL(t, s, off, ...) do { \
	char m_[EVT_TRACE_ERRLEN]; \
	snprintf(m_, sizeof(m_), __VA_ARGS__); \
	seterr((s)->errmsg, sizeof((s)->errmsg), "%s/%s: offset %zu: %s", \
	       (t)->dir, (s)->name, (size_t)(off), m_); \
} while (0)

#define IFAIL(t, s, off, ...) do { \
	char m_[EVT_TRACE_ERRLEN]; \
	snprintf(m_, sizeof(m_), __VA_ARGS__); \
	seterr((s)->tail_errmsg, sizeof((s)->tail_errmsg), "%s/%s: offset %zu: %s", \
	       (t)->dir, (s)->name, (size_t)(off), m_); \
	(s)->tail_err = 1; \
} while (0)

/*
 * Index a stream's packets from their headers. Stops at the first bad
 * one: the error is kept for when the reader reaches it. 0, or -1 when
 * out of memory (t->err).
 */
static int index_stream(struct evt_trace *t, struct evt_stream *s)
{
	size_t off = 0, cap = 0;
	const struct evt_packet_header *h;
	struct evt_packet_info pi;
	char msg[256];

	s->npk = 0;
	s->min_end = s->max_end = 0;
	h = &pi.h;
	while (off < s->size) {
		if (evt_packet_parse(s->map + off, s->size - off, &pi, msg, sizeof(msg))) {
			IFAIL(t, s, off, "packet: %s", msg);
			break;
		}
		if (h->stream_id != s->channel) {
			IFAIL(t, s, off, "packet of stream %u (%s) in a %s file", h->stream_id,
			      evt_channel_name(h->stream_id), evt_channel_name(s->channel));
			break;
		}
		if (h->cpu_id != s->cpu || h->stream_instance_id != s->cpu) {
			IFAIL(t, s, off, "packet of cpu_id %u, stream_instance_id %llu in the file of CPU %u",
			      h->cpu_id, (unsigned long long)h->stream_instance_id, s->cpu);
			break;
		}
		if (t->md.has_uuid && memcmp(h->uuid, t->md.uuid, 16)) {
			IFAIL(t, s, off, "packet uuid differs from the metadata's trace uuid");
			break;
		}
		if (s->npk) {
			const struct evt_pkt *prev = &s->pk[s->npk - 1];
			const struct evt_packet_header *ph = (const void *)(s->map + prev->off);
			uint64_t pseq, pdisc;

			memcpy(&pseq, &ph->packet_seq_num, 8);
			memcpy(&pdisc, &ph->events_discarded, 8);
			if (h->packet_seq_num <= pseq) {
				IFAIL(t, s, off, "packet_seq_num %llu not after the previous packet's %llu",
				      (unsigned long long)h->packet_seq_num, (unsigned long long)pseq);
				break;
			}
			if (h->events_discarded < pdisc) {
				IFAIL(t, s, off, "events_discarded %llu below the previous packet's %llu",
				      (unsigned long long)h->events_discarded, (unsigned long long)pdisc);
				break;
			}
			/* Time never goes back in a stream: not across packets either. */
			if (h->timestamp_begin < prev->end) {
				IFAIL(t, s, off, "timestamp_begin %llu before the previous packet's timestamp_end %llu",
				      (unsigned long long)h->timestamp_begin, (unsigned long long)prev->end);
				break;
			}
			s->seq_gaps += h->packet_seq_num - pseq - 1;
		} else {
			s->seq_first = h->packet_seq_num;
			s->first_ts = h->timestamp_begin;
		}
		if (s->npk == cap) {
			struct evt_pkt *n;

			cap = cap ? cap * 2 : 64;
			n = realloc(s->pk, cap * sizeof(*n));
			if (!n) {
				seterr(t->err, sizeof(t->err), "%s/%s: out of memory", t->dir, s->name);
				return -1;
			}
			s->pk = n;
		}
		s->pk[s->npk].off = off;
		s->pk[s->npk].begin = h->timestamp_begin;
		s->pk[s->npk].end = h->timestamp_end;
		s->pk[s->npk].content = pi.content_bytes;
		s->npk++;
		s->discarded = h->events_discarded;
		s->end_ts = h->timestamp_end;
		if (s->npk == 1 || h->timestamp_end < s->min_end)
			s->min_end = h->timestamp_end;
		if (h->timestamp_end > s->max_end)
			s->max_end = h->timestamp_end;
		off += pi.packet_bytes;
	}
	s->packets = s->npk;
	return 0;
}

/* Make packet s->ipk current (its header was checked by the index). */
static void load_packet(struct evt_stream *s)
{
	const struct evt_pkt *k = &s->pk[s->ipk++];

	memcpy(&s->pi.h, s->map + k->off, sizeof(s->pi.h));
	s->pi.content_bytes = (size_t)k->content;
	s->pi.packet_bytes = (size_t)(s->pi.h.packet_size / 8);
	s->pkt_off = (size_t)k->off;
}

void evt_stream_seek(struct evt_stream *s, uint64_t ts)
{
	uint32_t lo = 0, hi = s->npk;

	/* Packet ends never go back: the first one ending at or after ts. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->pk[mid].end < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	s->ipk = lo;
	s->n = s->i = 0;
	s->err = s->eof = 0;
}

/* Room for @need events (+ two look-ahead slots) in ev[]. */
static int grow(struct evt_stream *s, uint32_t need)
{
	struct evt_dev *ev;

	if (need + 2 <= s->cap)
		return 0;
	ev = malloc(((size_t)need + 2) * sizeof(*ev));
	if (!ev)
		return -1;
	free(s->ev);
	s->ev = ev;
	s->cap = need + 2;
	return 0;
}

/*
 * The compact fast path: small headers of fixed-size events, in runs of
 * one event id. A run's payload size, step and meta bits are constants in
 * registers, and a single comparison per event both ends the run at the
 * packet's end and proves the whole event lies in the packet. Within a
 * run timestamps never go back (the one-wrap rule), so timestamp_end is
 * checked once per run, on its last event; when that one is late, the run
 * is cut back to the first late event, which the general path then
 * reports. Returns where it stopped (an event for the general path, or the
 * end), with every event before it decoded.
 */
static inline size_t compact_fast(const uint8_t *pkt, size_t pos, const size_t end,
				  uint64_t *prevp, const uint64_t tend, struct evt_dev **evp)
{
	const uint64_t mask = (1ULL << EVT_COMPACT_TS_BITS) - 1;
	const uint32_t idmask = (1U << EVT_COMPACT_ID_BITS) - 1;
	struct evt_dev *e = *evp;
	uint64_t prev = *prevp;

	while (__builtin_expect(pos + EVT_COMPACT_HDR <= end, 1)) {
		uint32_t w = ld32(pkt + pos);
		const uint32_t id = w & idmask;
		const size_t need = c_need[id], step = c_step[id];
		/* The run's meta bits; the payload offset is pos + header (an add). */
		const uint64_t meta = c_meta[id] + EVT_COMPACT_HDR;
		struct evt_dev *const first = e;
		const uint64_t prev0 = prev;
		size_t last;

		/* need - 1 wraps for ids without a fast entry: one test for both. */
		if (__builtin_expect(need - 1 >= end - pos, 0))
			break;
		/* An event of this id at pos <= last lies wholly in the packet. */
		last = end - need;
		for (;;) {
			/* The one-wrap rule: the first time >= prev with these low bits. */
			const uint64_t ts = prev + (((w >> EVT_COMPACT_ID_BITS) - prev) & mask);

			e->ts = ts;
			e->meta = meta + pos;
			e++;
			prev = ts;
			pos += step;
			if (__builtin_expect(pos > last, 0))
				break;
			w = ld32(pkt + pos);
			if (__builtin_expect((w & idmask) != id, 0))
				break;
		}
		if (__builtin_expect(prev > tend, 0)) {
			/* Back to the run's first late event: the general path says so. */
			struct evt_dev *q = first;

			while (q->ts <= tend)
				q++;
			prev = q == first ? prev0 : q[-1].ts;
			pos = EVT_DMETA_OFF(q->meta) - EVT_COMPACT_HDR;
			e = q;
			break;
		}
	}
	*evp = e;
	*prevp = prev;
	return pos;
}

/*
 * One event at @pos by the general rules (evt_packet_next()'s): its
 * timestamp, EVT_DMETA and the offset of the event after it. 0, or -1 with
 * s->errmsg naming the file and offset.
 */
static inline __attribute__((always_inline))
int decode_one(struct evt_trace *t, struct evt_stream *s, const uint8_t *pkt, size_t pos,
	       const size_t end, const uint64_t tend, const uint64_t prev,
	       uint64_t *tsp, uint64_t *metap, size_t *nextp)
{
	const unsigned int chan = s->channel;
	const size_t room = end - pos;
	uint32_t id, hdr, hsize = 0;
	uint64_t ts = 0;
	long di, plen;
	int ext;

#define EFAIL(...) do { SFAIL(t, s, s->pkt_off + pos, __VA_ARGS__); return -1; } while (0)
	if (chan == EVT_CHAN_COMPACT) {
		const uint64_t mask = (1ULL << EVT_COMPACT_TS_BITS) - 1;
		uint32_t w;

		if (room < EVT_COMPACT_HDR)
			EFAIL("truncated compact event header");
		w = ld32(pkt + pos);
		id = w & ((1U << EVT_COMPACT_ID_BITS) - 1);
		ext = id == EVT_COMPACT_ID_EXT;
		hdr = ext ? EVT_COMPACT_EXT_HDR : EVT_COMPACT_HDR;
		if (!ext) {
			ts = (prev & ~mask) | (w >> EVT_COMPACT_ID_BITS);
			ts += ts < prev ? mask + 1 : 0;
		}
	} else {
		const uint64_t mask = (1ULL << EVT_NORMAL_TS_BITS) - 1;

		if (room < EVT_NORMAL_HDR)
			EFAIL("truncated normal event header");
		id = ld16(pkt + pos);
		hsize = ld16(pkt + pos + 2);
		ext = id == EVT_NORMAL_ID_EXT;
		hdr = ext ? EVT_NORMAL_EXT_HDR : EVT_NORMAL_HDR;
		if (!ext) {
			ts = (prev & ~mask) | ld32(pkt + pos + 4);
			ts += ts < prev ? mask + 1 : 0;
		}
	}
	if (ext) {
		if (end - pos < hdr)
			EFAIL("truncated extended event header");
		id = ld32(pkt + pos + 4);
		ts = ld64(pkt + pos + 8);
		if (ts < prev)
			EFAIL("timestamp %llu goes back (previous %llu)",
			      (unsigned long long)ts, (unsigned long long)prev);
	}
	if (ts > tend)
		EFAIL("timestamp %llu after the packet's timestamp_end %llu",
		      (unsigned long long)ts, (unsigned long long)tend);
	di = lookup_desc(chan, id);
	if (di < 0)
		EFAIL("unknown event id %u in stream %u", id, chan);
	plen = fixed_len[di];
	if (plen < 0)
		plen = evt_payload_size(&evt_events[di], pkt + pos + hdr, end - pos - hdr);
	if (plen < 0 || (size_t)plen > end - pos - hdr)
		EFAIL("event %s overruns the packet content", evt_events[di].name);
	if (chan == EVT_CHAN_NORMAL && (uint32_t)plen != hsize)
		EFAIL("event %s: header says %u payload bytes, fields take %ld",
		      evt_events[di].name, hsize, plen);
#undef EFAIL
	*tsp = ts;
	*metap = EVT_DMETA(pos + hdr, plen, di);
	*nextp = (pos + hdr + (size_t)plen + EVT_EVENT_ALIGN - 1) & ~(size_t)(EVT_EVENT_ALIGN - 1);
	return 0;
}

/*
 * Decode the current packet's events into s->ev[]: the rules of
 * evt_packet_next(), with a fast path for small compact headers of
 * fixed-size events. Returns 0, or -1 (s->n events decoded before the error).
 */
static int decode_packet(struct evt_trace *t, struct evt_stream *s)
{
	const uint8_t *pkt = s->map + s->pkt_off;
	const size_t end = s->pi.content_bytes;
	const uint64_t tend = s->pi.h.timestamp_end;
	const unsigned int chan = s->channel;
	size_t pos = EVT_PACKET_HEADER_SIZE;
	uint64_t prev = s->pi.h.timestamp_begin;
	struct evt_dev *ev;
	uint32_t n = 0;
	int ret = 0;

	s->n = s->i = 0;
	if (grow(s, (uint32_t)((end - EVT_PACKET_HEADER_SIZE) / EVT_EVENT_ALIGN + 1))) {
		SFAIL(t, s, s->pkt_off, "out of memory");
		return -1;
	}
	ev = s->ev;
	while (pos < end) {
		uint64_t ts, meta;
		size_t next;

		if (chan == EVT_CHAN_COMPACT) {
			struct evt_dev *e = ev + n;

			pos = compact_fast(pkt, pos, end, &prev, tend, &e);
			n = (uint32_t)(e - ev);
			if (pos >= end)
				break;
		}
		/* The general path, for one event. */
		if (decode_one(t, s, pkt, pos, end, tend, prev, &ts, &meta, &next)) {
			ret = -1;
			break;
		}
		ev[n].ts = ts;
		ev[n].meta = meta;
		n++;
		prev = ts;
		pos = next;
	}
	/* The merge's look-ahead reads two slots past the end. */
	memset(ev + n, 0, 2 * sizeof(*ev));
	s->n = n;
	s->events += n;
	return ret;
}

int evt_stream_fill(struct evt_trace *t, struct evt_stream *s)
{
	while (s->i >= s->n) {
		if (s->err)
			return -1;
		if (s->eof)
			return 0;
		s->n = s->i = 0;
		if (s->ipk >= s->npk) {
			if (s->tail_err) {
				memcpy(s->errmsg, s->tail_errmsg, sizeof(s->errmsg));
				s->err = 1;
				return -1;
			}
			s->eof = 1;
			return 0;
		}
		load_packet(s);
		if (decode_packet(t, s))
			s->err = 1;
	}
	return 1;
}

/* ---- The merged reader ---- */

int evt_mtrace_init(struct evt_mtrace *mt, struct evt_trace *t, enum evt_merge_kind kind)
{
	unsigned int i;

	memset(mt, 0, sizeof(*mt));
	mt->t = t;
	mt->to = UINT64_MAX;
	mt->done = -1;		/* not started */
	mt->cur = calloc(t->nr_streams ? t->nr_streams : 1, sizeof(*mt->cur));
	mt->next = calloc(t->nr_streams ? t->nr_streams : 1, sizeof(*mt->next));
	if (!mt->cur || !mt->next) {
		free(mt->cur);
		free(mt->next);
		mt->cur = NULL;
		mt->next = NULL;
		return -1;
	}
	/* A stream without packets (and no error) delivers nothing: no leaf. */
	for (i = 0; i < t->nr_streams; i++)
		if (t->streams[i].npk || t->streams[i].tail_err)
			mt->cur[mt->nsrc++].sid = i;
	if (evt_merge_init(&mt->m, kind, mt->nsrc)) {
		free(mt->cur);
		free(mt->next);
		mt->cur = NULL;
		mt->next = NULL;
		return -1;
	}
	return 0;
}

void evt_mtrace_free(struct evt_mtrace *mt)
{
	evt_merge_free(&mt->m);
	free(mt->cur);
	free(mt->next);
	mt->cur = NULL;
	mt->next = NULL;
}

void evt_mtrace_set_range(struct evt_mtrace *mt, uint64_t from, uint64_t to)
{
	unsigned int i;

	mt->from = from;
	mt->to = to;
	/* Whole packets that end before @from are not even decoded. */
	if (from)
		for (i = 0; i < mt->t->nr_streams; i++)
			evt_stream_seek(&mt->t->streams[i], from);
}

void evt_mtrace_set_events(struct evt_mtrace *mt, uint8_t *mask)
{
	mt->event_mask = mask;
}

/* Point the cursor at the stream's current event: 0, or -1 out of key range. */
static int cur_load(struct evt_mtrace *mt, struct evt_mcur *c, struct evt_stream *s, uint32_t src)
{
	const struct evt_merge *m = &mt->m;

	/* Every event of the packet is <= timestamp_end: one check for all. */
	if (s->pi.h.timestamp_end - mt->base > m->max_rel) {
		snprintf(mt->errmsg, sizeof(mt->errmsg),
			 "%s/%s: offset %zu: timestamp_end %llu lies more than %llu ns after the "
			 "trace's first packet begins (%llu): too far apart to merge",
			 mt->t->dir, s->name, s->pkt_off, (unsigned long long)s->pi.h.timestamp_end,
			 (unsigned long long)m->max_rel, (unsigned long long)mt->base);
		return -1;
	}
	c->p = s->ev + s->i;
	c->end = s->ev + s->n;
	mt->next[src] = evt_mkey(m, c->p[1].ts - mt->base, src);
	c->pkt = s->map + s->pkt_off;
	return 0;
}

static int mtrace_start(struct evt_mtrace *mt)
{
	struct evt_trace *t = mt->t;
	unsigned int k = mt->nsrc, i;
	uint64_t *ts = calloc(k ? k : 1, sizeof(*ts));
	unsigned char *has = calloc(k ? k : 1, 1);
	int ret = 0;

	if (!ts || !has) {
		snprintf(mt->errmsg, sizeof(mt->errmsg), "out of memory");
		ret = -1;
		goto out;
	}
	/* The same base for every reader of the trace (threads): the same keys. */
	mt->base = t->base;
	for (i = 0; i < k; i++) {
		struct evt_stream *s = &t->streams[mt->cur[i].sid];
		int r = evt_stream_has(t, s);

		if (r < 0) {
			/* An error before the stream's first event: nothing precedes it. */
			snprintf(mt->errmsg, sizeof(mt->errmsg), "%s", s->errmsg);
			ret = -1;
			goto out;
		}
		has[i] = (unsigned char)r;
	}
	for (i = 0; i < k; i++) {
		struct evt_stream *s = &t->streams[mt->cur[i].sid];

		if (!has[i])
			continue;
		if (cur_load(mt, &mt->cur[i], s, i)) {
			ret = -1;
			goto out;
		}
		ts[i] = evt_stream_ts(s) - mt->base;
	}
	evt_merge_build(&mt->m, ts, has);
out:
	free(ts);
	free(has);
	return ret;
}

/* A stream's packet is used up: the next one, and the stream's new key. */
static evt_mkey_t __attribute__((noinline))
mtrace_refill(struct evt_mtrace *mt, struct evt_mcur *c, uint32_t src)
{
	struct evt_stream *s = &mt->t->streams[c->sid];
	int r;

	s->i = s->n;
	r = evt_stream_fill(mt->t, s);
	if (r > 0) {
		if (cur_load(mt, c, s, src)) {
			mt->err = 1;
			return EVT_MKEY_NONE;
		}
		return evt_mkey(&mt->m, c->p->ts - mt->base, src);
	}
	if (r < 0) {
		mt->err = 1;
		snprintf(mt->errmsg, sizeof(mt->errmsg), "%s", s->errmsg);
	}
	return EVT_MKEY_NONE;
}

/*
 * The per-event loop, specialised per merge kind, for filtering, for
 * giving references or only counting, with the merge state in locals (the
 * build uses -fno-strict-aliasing: any store through a pointer would
 * otherwise reload it). Its critical path is top -> the source's
 * precomputed next key -> the replay: no load of the stream state sits
 * between two replays.
 */
static inline __attribute__((always_inline))
long mtrace_next(struct evt_mtrace *mt, struct evt_ref *out, size_t max,
		 const int kind, const int filt, const int depth, const int refs)
{
	struct evt_merge *m = &mt->m;
	struct evt_mcur *const cur = mt->cur;
	evt_mkey_t *const nextk = mt->next;
	const uint8_t *const mask = mt->event_mask;
	const uint64_t base = mt->base;
	const uint64_t from = mt->from > base ? mt->from - base : 0;
	const uint64_t to = mt->to - base;	/* the caller checked to >= base */
	/* A tree of known depth: its keys' shift is the depth, a constant. */
	const unsigned int shift = kind == EVT_MERGE_TREE && depth >= 0 ? (unsigned int)depth : m->shift;
	const uint64_t src_mask = ((uint64_t)1 << shift) - 1;
	evt_mkey_t *const node = m->node;
	const uint32_t p = m->p;
	uint32_t head = m->head;
	evt_mkey_t cache = m->cache;
	evt_mkey_t top = kind == EVT_MERGE_TREE ? node[0] :
			 head == EVT_MERGE_NONE ? EVT_MKEY_NONE : node[head];
	size_t n = 0;

	while (n < max) {
		const uint32_t src = (uint32_t)(top & src_mask);
		const uint64_t rel = top >> shift;
		struct evt_mcur *c;
		const struct evt_dev *ep;
		evt_mkey_t key;

		if (top == EVT_MKEY_NONE || (filt && rel > to)) {
			mt->done = 1;
			break;
		}
		c = &cur[src];
		ep = c->p;
		if (refs) {
			const uint64_t m64 = ep->meta;
			struct evt_ref *o = &out[n];

			o->ts = rel + base;
			o->payload = c->pkt + EVT_DMETA_OFF(m64);
			o->info = (m64 & ~(uint64_t)0x3ffffff) | c->sid;
		}
		if (filt) {
			unsigned int keep = rel >= from;

			if (mask)
				keep &= mask[EVT_DMETA_DESC(ep->meta)];
			n += keep;
		} else {
			n++;
		}
		if (__builtin_expect(ep + 1 < c->end, 1)) {
			key = nextk[src];
			c->p = ep + 1;
			nextk[src] = ((ep[2].ts - base) << shift) | src;
		} else {
			key = mtrace_refill(mt, c, src);
			/* An error is final: the events before it are out, stop. */
			if (mt->err)
				break;
		}
		if (kind == EVT_MERGE_TREE && depth >= 0) {
			/* The tree's depth known here: the replay fully unrolled. */
			uint32_t nd = ((1U << depth) + src) >> 1;
			int d;

#pragma GCC unroll 8
			for (d = 0; d < depth; d++, nd >>= 1) {
				evt_mkey_t t = node[nd];

				node[nd] = t < key ? key : t;
				key = t < key ? t : key;
			}
			top = key;
		} else if (kind == EVT_MERGE_TREE) {
			top = evt_merge_tree_replay(node, p, src, key);
		} else if (key <= cache) {
			/* The cache hit: the head stays the head. */
			if (key == EVT_MKEY_NONE)
				head = EVT_MERGE_NONE;
			else
				node[head] = key;
			top = key;
		} else {
			m->head = head;
			m->cache = cache;
			evt_merge_list_replace(m, key);
			head = m->head;
			cache = m->cache;
			top = node[head];
		}
	}
	if (kind == EVT_MERGE_TREE) {
		node[0] = top;
	} else {
		m->head = head;
		m->cache = cache;
	}
	return (long)n;
}

/* One specialised loop per merge kind, filtering, and tree depth up to 5 (32 streams). */
#define TREE_DEPTHS(filt, refs) \
	switch (mt->m.shift) { \
	case 0: return mtrace_next(mt, out, max, EVT_MERGE_TREE, filt, 0, refs); \
	case 1: return mtrace_next(mt, out, max, EVT_MERGE_TREE, filt, 1, refs); \
	case 2: return mtrace_next(mt, out, max, EVT_MERGE_TREE, filt, 2, refs); \
	case 3: return mtrace_next(mt, out, max, EVT_MERGE_TREE, filt, 3, refs); \
	case 4: return mtrace_next(mt, out, max, EVT_MERGE_TREE, filt, 4, refs); \
	case 5: return mtrace_next(mt, out, max, EVT_MERGE_TREE, filt, 5, refs); \
	default: return mtrace_next(mt, out, max, EVT_MERGE_TREE, filt, -1, refs); \
	}

/* @refs (a constant): write references to @out, or only count. */
static inline __attribute__((always_inline))
long mtrace_dispatch_kind(struct evt_mtrace *mt, struct evt_ref *out, size_t max, int filt,
			  const int refs)
{
	if (mt->m.kind == EVT_MERGE_LIST)
		return filt ? mtrace_next(mt, out, max, EVT_MERGE_LIST, 1, -1, refs) :
			      mtrace_next(mt, out, max, EVT_MERGE_LIST, 0, -1, refs);
	if (filt) {
		TREE_DEPTHS(1, refs)
	}
	TREE_DEPTHS(0, refs)
}

static long mtrace_dispatch(struct evt_mtrace *mt, struct evt_ref *out, size_t max, int filt)
{
	return mtrace_dispatch_kind(mt, out, max, filt, 1);
}

/* Counting: no references written. */
static long mtrace_dispatch_count(struct evt_mtrace *mt, size_t max, int filt)
{
	return mtrace_dispatch_kind(mt, NULL, max, filt, 0);
}

/*
 * Two merges counted in turn (evt_mtrace_count_pair). A merge step is a
 * chain of dependent operations (the top, the source's next key, a
 * compare-and-move per tree level, the new top) that leaves most of the
 * CPU idle; two independent chains, stepped one after the other in the
 * same loop, overlap. The rules are mtrace_next()'s for a tree of known
 * depth, counting, without an event mask, the time range as keys.
 *
 * A lane decodes as it merges: each source reads the packet in place, one
 * event ahead of its head (the event whose key replays the tree when the
 * head is taken). The event after that is decoded in the step itself, off
 * the chain: within a run of one small compact id of fixed size (the
 * decoder's fast path: the run's id, step and last position in the source's
 * state) it is a load, the one-wrap rule and three compares (in the packet,
 * same id, not after timestamp_end); anything else goes by the general
 * rules (decode_one(), the same code and messages as decode_packet()), as
 * do packet changes. An error is kept with the source until the event
 * before it is taken: then the lane stops, with the same events counted.
 *
 * A lane's keys hold the source times 64 (its state's offset) below the
 * time: ((ts - base) << (depth + 6)) | (source << 6). Lanes run when
 * every packet's timestamp_end is within that reach (2^55 ns from the
 * trace's start with 8 sources), which the merge's own keys then are too.
 */
#define LANE_MAX_DEPTH 5
#define LANE_SRC_SHIFT 6

enum { FSRC_OK, FSRC_EOF, FSRC_ERR };

/* A source's decoding state (64 bytes: an index is a shift). */
struct fsrc {
	const uint8_t *pos;		/* header of the event after the head */
	const uint8_t *last;		/* a run event at <= last lies in the packet */
	uint64_t prev;			/* its timestamp */
	uint64_t tend;			/* the packet's timestamp_end */
	evt_mkey_t nk;			/* its key; EVT_MKEY_NONE: end or error (state) */
	uint64_t kb;			/* key = (ts << shift) - kb: (base << shift) - source */
	uint32_t id, step;		/* its compact id, its size (aligned) */
	const uint8_t *pkt;		/* the packet */
};

/* What only the general rules need. */
struct fsrc_cold {
	size_t end;			/* the packet's content bytes */
	struct evt_stream *s;
	int state;
};

struct mlane {
	/* First: the sources, then the tree (one base register for both). */
	struct fsrc f[1 << LANE_MAX_DEPTH];
	evt_mkey_t node[1 << LANE_MAX_DEPTH];	/* the tree's losers at 1..P-1 */
	struct fsrc_cold fc[1 << LANE_MAX_DEPTH];
	struct evt_mtrace *mt;
	evt_mkey_t fromk, tok;		/* in range: fromk <= top <= tok */
	evt_mkey_t top;
	uint64_t n;
} __attribute__((aligned(64)));

/*
 * The source's next event by the general rules: the one @f->step bytes
 * after @f->pos, in this packet or the stream's next ones. Sets its
 * position, timestamp, key and run, or the end or an error (kept in
 * s->errmsg).
 */
static void __attribute__((noinline))
fsrc_next(struct mlane *L, uint32_t src)
{
	struct evt_mtrace *mt = L->mt;
	struct evt_trace *t = mt->t;
	struct fsrc *f = &L->f[src];
	struct fsrc_cold *fc = &L->fc[src];
	struct evt_stream *s = fc->s;
	size_t off = (size_t)(f->pos - f->pkt) + f->step;
	int fresh = 0;

	for (;;) {
		uint64_t ts, meta;
		size_t next;

		if (off < fc->end) {
			if (decode_one(t, s, f->pkt, off, fc->end, f->tend, f->prev, &ts, &meta, &next))
				break;
			/* A packet's first event: the packet is within the keys' reach. */
			if (fresh && s->pi.h.timestamp_end - mt->base > mt->m.max_rel) {
				snprintf(s->errmsg, sizeof(s->errmsg),
					 "%s/%s: offset %zu: timestamp_end %llu lies more than %llu ns after the "
					 "trace's first packet begins (%llu): too far apart to merge",
					 t->dir, s->name, s->pkt_off, (unsigned long long)s->pi.h.timestamp_end,
					 (unsigned long long)mt->m.max_rel, (unsigned long long)mt->base);
				break;
			}
			f->pos = f->pkt + off;
			f->prev = ts;
			f->step = (uint32_t)(next - off);
			f->nk = (ts << (mt->m.shift + LANE_SRC_SHIFT)) - f->kb;
			f->last = f->pkt;	/* no run: the general rules again */
			if (s->channel == EVT_CHAN_COMPACT) {
				const uint32_t id = ld32(f->pkt + off) & ((1U << EVT_COMPACT_ID_BITS) - 1);

				if (id != EVT_COMPACT_ID_EXT && c_need[id]) {
					f->id = id;
					f->last = f->pkt + (fc->end - c_need[id]);
				}
			}
			return;
		}
		/* The packet is used up: the next one (its header checked by the index). */
		if (s->ipk >= s->npk) {
			if (s->tail_err) {
				memcpy(s->errmsg, s->tail_errmsg, sizeof(s->errmsg));
				break;
			}
			f->nk = EVT_MKEY_NONE;
			fc->state = FSRC_EOF;
			return;
		}
		load_packet(s);
		f->pkt = s->map + s->pkt_off;
		fc->end = s->pi.content_bytes;
		f->tend = s->pi.h.timestamp_end;
		f->prev = s->pi.h.timestamp_begin;
		off = EVT_PACKET_HEADER_SIZE;
		fresh = 1;
	}
	f->nk = EVT_MKEY_NONE;
	fc->state = FSRC_ERR;
}

/*
 * Take the top event: its source's next key replays the tree, and the
 * source decodes the event after that. The lane's per-step values are the
 * caller's locals (registers). 0, or 1 on a decode error (mt->err).
 */
static inline __attribute__((always_inline))
int lane_adv(struct mlane *const L, evt_mkey_t *topp, const int depth)
{
	const uint64_t mask = (1ULL << EVT_COMPACT_TS_BITS) - 1;
	const size_t P = (size_t)1 << depth;
	/* The source's state at the key's low bits (size_t: constants fold). */
	const size_t soff = (size_t)(*topp & ((P - 1) << LANE_SRC_SHIFT));
	const size_t src = soff >> LANE_SRC_SHIFT;
	struct fsrc *const f = (struct fsrc *)((char *)L->f + soff);
	evt_mkey_t key = f->nk;
	const uint8_t *const np = f->pos + f->step;
	int d;

	if (__builtin_expect(np <= f->last, 1)) {
		const uint32_t w = ld32(np);
		const uint64_t prev = f->prev;
		const uint64_t ts = prev + (((w >> EVT_COMPACT_ID_BITS) - prev) & mask);

		if (__builtin_expect(((w & ((1U << EVT_COMPACT_ID_BITS) - 1)) == f->id) & (ts <= f->tend), 1)) {
			f->pos = np;
			f->prev = ts;
			f->nk = (ts << (depth + LANE_SRC_SHIFT)) - f->kb;
			goto replay;
		}
	}
	if (key == EVT_MKEY_NONE) {
		if (L->fc[src].state == FSRC_ERR) {
			struct evt_mtrace *mt = L->mt;

			mt->err = 1;
			memcpy(mt->errmsg, L->fc[src].s->errmsg, sizeof(mt->errmsg));
			return 1;
		}
	} else {
		fsrc_next(L, (uint32_t)src);
	}
replay:
	/* Level d's node on the source's path: P >> d + src >> d. */
#pragma GCC unroll 8
	for (d = 1; d <= depth; d++) {
		evt_mkey_t *const q = &L->node[(P >> d) + (soff >> (LANE_SRC_SHIFT + d))];
		const evt_mkey_t t = *q;

		*q = t < key ? key : t;
		key = t < key ? t : key;
	}
	*topp = key;
	return 0;
}

/* Events before the lane's range: merged, not counted. 0, or 1 when it stopped. */
static inline __attribute__((always_inline))
int lane_skip(struct mlane *L, const int depth)
{
	evt_mkey_t top = L->top;
	int ret = 0;

	while (top < L->fromk)
		if (lane_adv(L, &top, depth)) {
			ret = 1;
			break;
		}
	L->top = top;
	return ret;
}

/* One lane to its end (the range's last key, the merge's end or an error), @k counted so far. */
static inline __attribute__((always_inline))
void lane_rest(struct mlane *const a, evt_mkey_t ta, uint64_t k, const int depth)
{
	const evt_mkey_t ea = a->tok;

	for (;;) {
		if (ta > ea) {
			a->mt->done = 1;
			break;
		}
		k++;
		if (lane_adv(a, &ta, depth))
			break;
	}
	a->top = ta;
	a->n = k;
}

static inline __attribute__((always_inline))
void pair_loop(struct mlane *const a, struct mlane *const b, const int depth)
{
	/* EVT_MKEY_NONE (no source left) is above any tok. */
	const evt_mkey_t ea = a->tok, eb = b->tok;
	evt_mkey_t ta, tb;
	uint64_t k = 0;		/* events each lane counted */

	/* A lane stopped before its range: the other one alone. */
	if (lane_skip(a, depth)) {
		if (!lane_skip(b, depth))
			lane_rest(b, b->top, 0, depth);
		return;
	}
	if (lane_skip(b, depth)) {
		lane_rest(a, a->top, 0, depth);
		return;
	}
	ta = a->top;
	tb = b->top;
	for (;;) {
		if (__builtin_expect(ta > ea, 0)) {
			a->mt->done = 1;
			a->top = ta;
			a->n = k;
			lane_rest(b, tb, k, depth);
			return;
		}
		if (lane_adv(a, &ta, depth)) {
			a->top = ta;
			a->n = k + 1;
			lane_rest(b, tb, k, depth);
			return;
		}
		if (__builtin_expect(tb > eb, 0)) {
			b->mt->done = 1;
			b->top = tb;
			b->n = k;
			lane_rest(a, ta, k + 1, depth);
			return;
		}
		if (lane_adv(b, &tb, depth)) {
			b->top = tb;
			b->n = k + 1;
			lane_rest(a, ta, k + 1, depth);
			return;
		}
		k++;
	}
}

/* The largest time (minus the base) a lane's key holds. */
static uint64_t lane_max_rel(const struct evt_mtrace *mt)
{
	return ((uint64_t)1 << (64 - mt->m.shift - LANE_SRC_SHIFT)) - 2;
}

/* A merge key as a lane's key, and back. */
static evt_mkey_t lane_key(const struct evt_mtrace *mt, evt_mkey_t k)
{
	if (k == EVT_MKEY_NONE)
		return k;
	return ((k >> mt->m.shift) << (mt->m.shift + LANE_SRC_SHIFT)) |
	       ((k & mt->m.src_mask) << LANE_SRC_SHIFT);
}

static evt_mkey_t merge_key(const struct evt_mtrace *mt, evt_mkey_t k)
{
	if (k == EVT_MKEY_NONE)
		return k;
	return ((k >> (mt->m.shift + LANE_SRC_SHIFT)) << mt->m.shift) |
	       ((k >> LANE_SRC_SHIFT) & mt->m.src_mask);
}

/* Every packet a lane may read is within its keys' reach. */
static int lane_reach(const struct evt_mtrace *mt)
{
	const uint64_t max = lane_max_rel(mt);
	uint32_t i;

	for (i = 0; i < mt->nsrc; i++) {
		const struct evt_stream *s = &mt->t->streams[mt->cur[i].sid];

		if (s->npk && (s->min_end < mt->base || s->max_end - mt->base > max))
			return 0;
	}
	return 1;
}

/* The lane's sources from the merge's cursors: each decodes the event after its head. */
static void lane_init(struct mlane *L, struct evt_mtrace *mt)
{
	const uint32_t P = mt->m.p, shift = mt->m.shift;
	const uint64_t from = mt->from > mt->base ? mt->from - mt->base : 0;
	const uint64_t to = mt->to - mt->base;
	uint32_t i;

	memset(L, 0, sizeof(*L));
	L->mt = mt;
	for (i = 1; i < P; i++)
		L->node[i] = lane_key(mt, mt->m.node[i]);
	for (i = 0; i < mt->nsrc; i++) {
		struct fsrc *f = &L->f[i];
		struct fsrc_cold *fc = &L->fc[i];
		const struct evt_mcur *c = &mt->cur[i];
		struct evt_stream *s = &mt->t->streams[c->sid];

		fc->s = s;
		f->nk = EVT_MKEY_NONE;
		fc->state = FSRC_EOF;
		f->kb = (mt->base << (shift + LANE_SRC_SHIFT)) - ((uint64_t)i << LANE_SRC_SHIFT);
		if (s->eof)
			continue;	/* no head: the tree holds no key of it */
		/* The head, decoded in s->ev[]: the lane reads on after it. */
		fc->state = FSRC_OK;
		f->pkt = s->map + s->pkt_off;
		fc->end = s->pi.content_bytes;
		f->tend = s->pi.h.timestamp_end;
		f->prev = c->p->ts;
		f->pos = f->pkt + ((EVT_DMETA_OFF(c->p->meta) + EVT_DMETA_LEN(c->p->meta) +
				    EVT_EVENT_ALIGN - 1) & ~(size_t)(EVT_EVENT_ALIGN - 1));
		f->step = 0;
		f->last = f->pkt;
		fsrc_next(L, i);
	}
	/* A from beyond the keys' reach: nothing is in range (to >= from is too). */
	L->fromk = from > lane_max_rel(mt) ? EVT_MKEY_NONE : from << (shift + LANE_SRC_SHIFT);
	/* The last key in range; to beyond the keys' reach: every key is. */
	L->tok = to > lane_max_rel(mt) ? EVT_MKEY_NONE - 1 :
		 (to << (shift + LANE_SRC_SHIFT)) | (((uint64_t)1 << (shift + LANE_SRC_SHIFT)) - 1);
	L->top = lane_key(mt, mt->m.node[0]);
	L->n = 0;
}

/* The lane ran its merge to the end (done, or mt->err): the tree as it left it. */
static void lane_done(struct mlane *L)
{
	struct evt_mtrace *mt = L->mt;
	uint32_t i;

	for (i = 1; i < mt->m.p; i++)
		mt->m.node[i] = merge_key(mt, L->node[i]);
	mt->m.node[0] = merge_key(mt, L->top);
	if (!mt->err)
		mt->done = 1;
}

/* Started, not at its end, no error, something in range: a lane can run it. */
static int lane_ready(struct evt_mtrace *mt)
{
	if (mt->done < 0) {
		if (mtrace_start(mt)) {
			mt->err = 1;
			mt->done = 1;
			return 0;
		}
		mt->done = 0;
	}
	return !mt->err && !mt->done && mt->to >= mt->base && mt->from <= mt->to && !mt->event_mask &&
	       mt->m.kind == EVT_MERGE_TREE && mt->m.shift <= LANE_MAX_DEPTH && lane_reach(mt);
}

void evt_mtrace_count_pair(struct evt_mtrace *a, struct evt_mtrace *b, uint64_t *na, uint64_t *nb)
{
	long n;

	*na = *nb = 0;
	if (lane_ready(a) && lane_ready(b) && a->m.shift == b->m.shift && a->base == b->base) {
		struct mlane *la = aligned_alloc(64, 2 * sizeof(*la)), *lb = la + 1;

		if (la) {
			lane_init(la, a);
			lane_init(lb, b);
			switch (a->m.shift) {
			case 0: pair_loop(la, lb, 0); break;
			case 1: pair_loop(la, lb, 1); break;
			case 2: pair_loop(la, lb, 2); break;
			case 3: pair_loop(la, lb, 3); break;
			case 4: pair_loop(la, lb, 4); break;
			default: pair_loop(la, lb, 5); break;
			}
			lane_done(la);
			lane_done(lb);
			*na = la->n;
			*nb = lb->n;
			free(la);
		}
	}
	/* Whichever is not at its end: on its own. */
	while ((n = evt_mtrace_count(a, 1U << 20)) > 0)
		*na += (uint64_t)n;
	while ((n = evt_mtrace_count(b, 1U << 20)) > 0)
		*nb += (uint64_t)n;
}

static long mtrace_batch(struct evt_mtrace *mt, struct evt_ref *out, size_t max)
{
	long n;

	if (mt->done < 0) {
		if (mtrace_start(mt)) {
			mt->err = 1;
			mt->done = 1;
			return -1;
		}
		mt->done = 0;
	}
	for (;;) {
		int filt;

		if (mt->err)
			return -1;
		if (mt->done)
			return 0;
		if (mt->to < mt->base) {
			mt->done = 1;
			return 0;
		}
		filt = !(mt->from == 0 && mt->to == UINT64_MAX && !mt->event_mask);
		n = out ? mtrace_dispatch(mt, out, max, filt) : mtrace_dispatch_count(mt, max, filt);
		if (n > 0)
			return n;
		/* A whole batch filtered out: go on. */
	}
}

long evt_mtrace_next(struct evt_mtrace *mt, struct evt_ref *out, size_t max)
{
	return mtrace_batch(mt, out, max);
}

long evt_mtrace_count(struct evt_mtrace *mt, size_t max)
{
	return mtrace_batch(mt, NULL, max);
}
