// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's packet index: per stream file, every packet's place, times
 * and accounting, with every packet-level rule (header, sizes, stream, CPU,
 * uuid, sequence, running discard total, time never going back) checked
 * once. It comes from the file's packet index file (evt_pindex.h: one
 * sequential read) when that is good, else from the headers, one pread()
 * each, and is then saved for the next reader. An index file's packets are
 * checked when they are read: each header against its entry, so nothing a
 * stale or forged index says is decoded (evt_stream.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/evt_io.h"
#include "ctf/evt_trace_priv.h"

/* The index stops at a bad packet header: the error waits for the reader. */
static void index_stop(const struct evt_trace *t, struct evt_stream *s, size_t off,
		       const struct evt_decode_err *e)
{
	evt_stream_error(t, s, s->tail_errmsg, sizeof(s->tail_errmsg), off, e);
	s->tail_err = 1;
}

void evt_trace_fail_at(const struct evt_trace *t, const struct evt_stream *s, char *buf, size_t len, size_t off,
		       enum evt_derr code, uint64_t a, uint64_t b)
{
	struct evt_decode_err e = { .code = code, .a = a, .b = b, .cpu = s->cpu, .desc = -1 };

	evt_stream_error(t, s, buf, len, off, &e);
}

/* The same for what only a whole file can say (stream, CPU, uuid, sequence). */
static void index_fail(const struct evt_trace *t, struct evt_stream *s, size_t off,
		       enum evt_derr code, uint64_t a, uint64_t b)
{
	evt_trace_fail_at(t, s, s->tail_errmsg, sizeof(s->tail_errmsg), off, code, a, b);
	s->tail_err = 1;
}

enum evt_derr evt_trace_stream_rules(const struct evt_stream *s, const struct evt_packet_header *h, uint64_t *a,
				     uint64_t *b)
{
	if (h->stream_id != s->channel) {
		*a = h->stream_id;
		*b = s->channel;
		return EVT_DERR_PKT_WRONG_STREAM;
	}
	if (h->cpu_id != s->cpu || h->stream_instance_id != s->cpu) {
		*a = h->cpu_id;
		*b = h->stream_instance_id;
		return EVT_DERR_PKT_WRONG_CPU;
	}
	if (s->ident.has_uuid && memcmp(h->uuid, s->ident.uuid, 16)) {
		*a = *b = 0;
		return EVT_DERR_PKT_UUID;
	}
	return EVT_DERR_NONE;
}

/*
 * Add the packet @p at @off of the file mapped at @base (its first packet
 * when @off is 0): the rules across packets checked. 0, 1 when a rule
 * ended the index, -1 when out of memory (@err).
 */
static int pk_add(const struct evt_trace *t, struct evt_stream *s, size_t base, const struct evt_pidx_pkt *p,
		  int unchecked, uint64_t *seam_lost, char *err)
{
	const size_t off = (size_t)p->off;
	struct evt_pkt *k;

	if (s->npk) {
		const struct evt_pkt *prev = &s->pk[s->npk - 1];

		if (p->seq <= s->last_seq) {
			index_fail(t, s, base + off, EVT_DERR_PKT_SEQ, p->seq, s->last_seq);
			return 1;
		}
		/* s->discarded: the previous packet's running total. */
		if (p->discarded < s->discarded) {
			index_fail(t, s, base + off, EVT_DERR_PKT_DISCARDED_BACK, p->discarded, s->discarded);
			return 1;
		}
		/* Time never goes back in a stream: not across packets (or chunks) either. */
		if (p->begin < prev->end) {
			index_fail(t, s, base + off, EVT_DERR_PKT_TIME_BACK, p->begin, prev->end);
			return 1;
		}
		s->seq_gaps += p->seq - s->last_seq - 1;
		if (seam_lost && !off)
			*seam_lost = p->seq - s->last_seq - 1;
	} else {
		s->seq_first = p->seq;
		s->first_ts = p->begin;
	}
	if (s->npk == s->pk_cap) {
		uint32_t cap = s->pk_cap ? s->pk_cap * 2 : 64;
		struct evt_pkt *n = realloc(s->pk, cap * sizeof(*n));

		if (!n) {
			evt_errf(err, EVT_TRACE_ERRLEN, "%s/%s: out of memory", t->dir, s->name);
			return -1;
		}
		s->pk = n;
		s->pk_cap = cap;
	}
	k = &s->pk[s->npk++];
	k->off = base + off;
	k->begin = p->begin;
	k->end = p->end;
	k->seq = p->seq;
	k->discarded = p->discarded;
	k->content = p->content_bytes;
	k->bytes = p->packet_bytes | (unchecked ? EVT_PKT_UNCHECKED : 0);
	s->discarded = p->discarded;
	s->end_ts = p->end;
	if (s->npk == 1 || p->end < s->min_end)
		s->min_end = p->end;
	if (p->end > s->max_end)
		s->max_end = p->end;
	s->last_seq = p->seq;
	return 0;
}

/*
 * Walk the headers of the file from @off to @size, one pread() each: the
 * index goes on from there. Stops at the first bad one: the error is kept
 * for when the reader reaches it. 0, or -1 when out of memory (@err).
 */
static int walk(const struct evt_trace *t, struct evt_stream *s, int fd, size_t base, size_t off, size_t size,
		uint64_t *seam_lost, char *err)
{
	struct evt_packet_info pi;
	struct evt_decode_err e;

	while (off < size && !s->tail_err) {
		uint8_t hdr[EVT_PACKET_HEADER_SIZE];
		/* Headers are read, not mapped: the index leaves no page resident. */
		ssize_t got = pread(fd, hdr, sizeof(hdr), (off_t)off);
		size_t left = size - off;
		struct evt_pidx_pkt p;
		enum evt_derr code;
		uint64_t a, b;
		int r;

		/* A file cut short since it was mapped ends here. */
		if (got < (ssize_t)sizeof(hdr) && (got < 0 || (size_t)got < left))
			left = got < 0 ? 0 : (size_t)got;
		if (evt_packet_check(hdr, left, &pi, &e)) {
			/* The file ends inside a packet that its writer is writing now. */
			if (t->writer_pid && (e.code == EVT_DERR_PKT_SHORT || e.code == EVT_DERR_PKT_TRUNCATED)) {
				s->partial_tail = left;
				break;
			}
			index_stop(t, s, base + off, &e);
			break;
		}
		code = evt_trace_stream_rules(s, &pi.h, &a, &b);
		if (code) {
			index_fail(t, s, base + off, code, a, b);
			break;
		}
		p = (struct evt_pidx_pkt){
			.off = off, .packet_bytes = (uint32_t)pi.packet_bytes,
			.content_bytes = (uint32_t)pi.content_bytes, .begin = pi.h.timestamp_begin,
			.end = pi.h.timestamp_end, .seq = pi.h.packet_seq_num, .discarded = pi.h.events_discarded,
		};
		r = pk_add(t, s, base, &p, 0, seam_lost, err);
		if (r)
			return r < 0 ? -1 : 0;
		off += pi.packet_bytes;
	}
	return 0;
}

/* A few of the index's packets, picked at random, and its last: their headers say what it says. */
static int spot_check(int fd, const struct evt_pidx *x, const struct evt_pidx_ident *id, char *why, size_t wl)
{
	uint64_t r = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uintptr_t)x->pk;
	unsigned int i;

	for (i = 0; i < 5 && x->n; i++) {
		struct evt_packet_header h;
		uint32_t k;

		/* xorshift64: nothing to predict, nothing to seed from outside. */
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		k = i == 4 ? x->n - 1 : (uint32_t)(r % x->n);
		if (pread(fd, &h, sizeof(h), (off_t)x->pk[k].off) != (ssize_t)sizeof(h) ||
		    !evt_pidx_matches(&x->pk[k], &h, id)) {
			snprintf(why, wl, "%.400s: the packet at byte %llu is not what it says", x->where,
				 (unsigned long long)x->pk[k].off);
			return -1;
		}
	}
	return 0;
}

/*
 * The walk's packets of @s from @first (the file at @base), saved as the
 * file's sealed index for the next reader, when the stream had settled by
 * @st_time (else the next reader saves it), or, with t->o.settle (the
 * writer's own finisher), its mtime set back so that it has.
 */
static void save_walked(const struct evt_trace *t, struct evt_stream *s, const struct evt_pidx_place *pl,
			int fd, const struct stat *st, uint64_t st_time, size_t base, uint32_t first)
{
	struct stat now_st = *st;
	struct evt_pidx_pkt *v;
	uint32_t k;

	if (!evt_pidx_settled(&now_st, st_time)) {
		/* Its writer (t->o.settle) makes it settled; anyone else leaves it to the next reader. */
		if (!t->o.settle || evt_pidx_backdate(fd, &now_st, &st_time))
			return;
		/* Written since it was walked: not what was walked. */
		if (now_st.st_size != st->st_size)
			return;
	}
	v = malloc((size_t)(s->npk - first) * sizeof(*v) + 1);
	if (!v)
		return;
	for (k = first; k < s->npk; k++)
		v[k - first] = (struct evt_pidx_pkt){
			.off = s->pk[k].off - base, .packet_bytes = EVT_PKT_BYTES(&s->pk[k]),
			.content_bytes = s->pk[k].content, .begin = s->pk[k].begin,
			.end = s->pk[k].end, .seq = s->pk[k].seq, .discarded = s->pk[k].discarded,
		};
	if (!evt_pidx_save(pl, s->name, &s->ident, v, s->npk - first, &now_st, st_time, s->tail_err))
		s->pidx_saved++;
	free(v);
}

int evt_trace_index_file(const struct evt_trace *t, struct evt_stream *s, int fd, const struct stat *st,
			 const char *dir, unsigned int md_mode, unsigned int md_gid, size_t base,
			 uint64_t *seam_lost, char *err, char *warn, size_t warnlen)
{
	const struct evt_pidx_place pl = {
		.dir = dir, .cache_base = t->o.cache_dir, .trace_mode = md_mode, .trace_gid = (gid_t)md_gid,
	};
	const size_t size = (size_t)st->st_size;
	const uint32_t first = s->npk;
	struct evt_pidx x = { 0 };
	enum evt_pidx_status r = EVT_PIDX_NONE;
	char why[EVT_TRACE_ERRLEN];
	size_t off = 0;
	/* When @st was taken, about: a stream that settled by then is sealed with it. */
	const uint64_t st_time = evt_pidx_now();
	uint32_t k;
	int sealed_used = 0;

	/* An empty file needs no index. */
	if (!t->o.no_index && size) {
		r = evt_pidx_load(&pl, s->name, st, &s->ident, &x, why, sizeof(why));
		/*
		 * Unsealed: only its writer, at work now, vouches for it. Without
		 * one (killed, or the stream rewritten by someone else) it is
		 * walked again and replaced, without a word.
		 */
		if (r == EVT_PIDX_OK && !x.sealed && !t->writer_pid) {
			evt_pidx_free(&x);
			r = EVT_PIDX_NONE;
		}
		if (r == EVT_PIDX_OK && spot_check(fd, &x, &s->ident, why, sizeof(why))) {
			evt_pidx_free(&x);
			r = EVT_PIDX_BAD;
		}
		if (r == EVT_PIDX_BAD)
			evt_errf(warn, warnlen, "%s: ignored, the packets are read from %s/%s", why, dir, s->name);
	}
	if (r == EVT_PIDX_OK) {
		for (k = 0; k < x.n && !s->tail_err; k++) {
			int rc = pk_add(t, s, base, &x.pk[k], 1, seam_lost, err);

			if (rc < 0) {
				evt_pidx_free(&x);
				return -1;
			}
			if (!rc)
				off = (size_t)(x.pk[k].off + x.pk[k].packet_bytes);
		}
		sealed_used = x.sealed;
		s->pidx_loaded++;
	}
	/* What the index file does not say (all of it, what its writer added since, what follows a bad header). */
	if (off < size && !s->tail_err) {
		if (walk(t, s, fd, base, off, size, seam_lost, err)) {
			evt_pidx_free(&x);
			return -1;
		}
		s->pidx_walked++;
	}
	s->packets = s->npk;
	/*
	 * What the walk found, saved for the next reader, sealed with the
	 * file's size and mtime: up to a bad header, if there is one (the
	 * next reader walks on from there to the same error). Not while a
	 * writer is at work: it writes the index itself.
	 */
	if (!t->o.no_index && size && !sealed_used && !s->partial_tail && !t->writer_pid)
		save_walked(t, s, &pl, fd, st, st_time, base, first);
	evt_pidx_free(&x);
	return 0;
}
