// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the trace reader on arbitrary bytes.
 *
 * The input is a small container that becomes a trace directory:
 *
 *   byte 0        flags: bits 0-1 the metadata (0: evtrace's own TSDL with
 *                 the uuid of the first record's packet header, so packets
 *                 match it; 1: the same with another uuid; 2: that TSDL
 *                 edited by the input's metadata records, each [offset: u16
 *                 LE][bytes] written over the text at offset % its length,
 *                 growing it past its end; 3: the text of the input's
 *                 metadata records), bit 2 a time range, bit 3 an event
 *                 filter, bits 4-7 where the range lies
 *   records       [sel][len: u16 LE][len bytes]: sel bit 7 set: metadata
 *                 text (mode 3); else bytes appended to the stream file of
 *                 channel sel & 1, CPU (sel >> 1) & 3 (a truncated last
 *                 record keeps what there is)
 *
 * The files are written to a private directory (on /dev/shm when there is
 * one) and opened with evt_trace_open. Then, checked with FZ_ASSERT:
 *   - per stream, the reader's packet-by-packet decoding equals
 *     evt_decode's iterator on the same packet (events, timestamps,
 *     payloads, and where an error stops it); timestamps never go back;
 *   - the merged reader with the tree and with the list gives the same
 *     events and the same error, in (ts, stream) order, no more events than
 *     the streams hold;
 *   - a range and an event filter give exactly the unfiltered output
 *     restricted to them (when the unfiltered run had no error);
 *   - evt_par on 1-3 threads with tiny slices gives the single-threaded
 *     output, error included, and so does its count_only mode;
 *   - counting (evt_merged_count, both merges) gives the number of events
 *     and the error of the merged pass; evt_merged_count_pair over two time
 *     slices gives what counting each alone gives;
 *   - every merged event is formatted as text and JSON;
 *   - evt_metadata_parse on the metadata text (modes 2 and 3: the
 *     fuzzer's): it accepts evtrace's own, and an error is one line of
 *     printable text (control bytes written as \xNN); evt_tsdl_parse on
 *     the same text: its errors name their line, and what the reader
 *     accepts it parses into the built-in catalogue.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_par.h"
#include "format/evt_format.h"
#include "ctf/evt_tsdl.h"
#include "ctf/evt_stream.h"

#define FZ_FILES 8	/* 2 channels x CPUs 0-3 */

static char fz_dir[256];

static void fz_cleanup(void)
{
	char path[512];
	unsigned int i;

	if (!fz_dir[0])
		return;
	for (i = 0; i < FZ_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s_%u", fz_dir, evt_channel_name(i & 1), i >> 1);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/metadata", fz_dir);
	unlink(path);
	rmdir(fz_dir);
	fz_dir[0] = 0;
}

static const char *fz_tmpdir(void)
{
	if (!fz_dir[0]) {
		const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

		snprintf(fz_dir, sizeof(fz_dir), "%s/evt-fuzz-XXXXXX", base);
		if (!mkdtemp(fz_dir)) {
			perror("mkdtemp");
			abort();
		}
		atexit(fz_cleanup);
	}
	return fz_dir;
}

static void fz_write(const char *name, const void *buf, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fz_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FZ_ASSERT(fd >= 0);
	if (len)
		FZ_ASSERT(write(fd, buf, len) == (ssize_t)len);
	close(fd);
}

struct fz_buf {
	uint8_t *p;
	size_t len, cap;
	int present;
};

static void fz_append(struct fz_buf *b, const uint8_t *p, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		FZ_ASSERT(b->p);
	}
	if (len)
		memcpy(b->p + b->len, p, len);
	b->len += len;
	b->present = 1;
}

/* The merged output of one pass. */
struct fz_refs {
	struct evt_ref *r;
	size_t n, cap;
	int err;
	char errmsg[EVT_TRACE_ERRLEN];
};

static void refs_add(struct fz_refs *o, const struct evt_ref *r, size_t n)
{
	if (!n)
		return;
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2 + 64;
		o->r = realloc(o->r, o->cap * sizeof(*o->r));
		FZ_ASSERT(o->r);
	}
	memcpy(o->r + o->n, r, n * sizeof(*r));
	o->n += n;
}

static int refs_equal(const struct fz_refs *a, const struct fz_refs *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->r[i].ts != b->r[i].ts || a->r[i].payload != b->r[i].payload ||
		    a->r[i].info != b->r[i].info)
			return 0;
	return 1;
}

/* One merged pass over a clone of @t. */
static void merged_pass(struct evt_trace *t, enum evt_merge_kind kind, uint64_t from, uint64_t to,
			uint8_t *mask, struct fz_refs *out)
{
	struct evt_trace c;
	struct evt_merged mt;
	struct evt_ref batch[7];
	long n;

	memset(out, 0, sizeof(*out));
	FZ_ASSERT(evt_trace_clone(&c, t) == 0);
	FZ_ASSERT(evt_merged_init(&mt, &c, kind) == 0);
	if (from || to != UINT64_MAX)
		evt_merged_set_range(&mt, from, to);
	if (mask)
		evt_merged_set_events(&mt, mask);
	/* Odd batches: the loop's exits at the batch end get exercised. */
	while ((n = evt_merged_next(&mt, batch, 1 + out->n % 7)) > 0)
		refs_add(out, batch, (size_t)n);
	if (n < 0) {
		out->err = 1;
		snprintf(out->errmsg, sizeof(out->errmsg), "%s", mt.errmsg);
		FZ_ASSERT(mt.errmsg[0]);
	}
	/* Once done, it stays done. */
	FZ_ASSERT(evt_merged_next(&mt, batch, 7) == n);
	evt_merged_free(&mt);
	evt_trace_close(&c);
}

/* Count (evt_merged_count) a clone of @t in [from, to]: the events, *err and its message. */
static uint64_t count_pass(struct evt_trace *t, enum evt_merge_kind kind, uint64_t from, uint64_t to,
			   int *err, char *errmsg)
{
	struct evt_trace c;
	struct evt_merged mt;
	uint64_t total = 0;
	long n;

	FZ_ASSERT(evt_trace_clone(&c, t) == 0);
	FZ_ASSERT(evt_merged_init(&mt, &c, kind) == 0);
	if (from || to != UINT64_MAX)
		evt_merged_set_range(&mt, from, to);
	while ((n = evt_merged_count(&mt, 1 + total % 13)) > 0)
		total += (uint64_t)n;
	*err = n < 0;
	errmsg[0] = 0;
	if (n < 0)
		snprintf(errmsg, EVT_TRACE_ERRLEN, "%s", mt.errmsg);
	evt_merged_free(&mt);
	evt_trace_close(&c);
	return total;
}

/* evt_merged_count_pair over [lo, mid] and (mid, hi] against counting each alone. */
static void count_pair_check(struct evt_trace *t, uint64_t lo, uint64_t mid, uint64_t hi)
{
	struct evt_trace ca, cb;
	struct evt_merged a, b;
	uint64_t na = 0, nb = 0, sa, sb;
	int ea, eb;
	char ma[EVT_TRACE_ERRLEN], mb[EVT_TRACE_ERRLEN];

	sa = count_pass(t, EVT_MERGE_TREE, lo, mid, &ea, ma);
	sb = count_pass(t, EVT_MERGE_TREE, mid + 1, hi, &eb, mb);
	FZ_ASSERT(evt_trace_clone(&ca, t) == 0);
	FZ_ASSERT(evt_trace_clone(&cb, t) == 0);
	FZ_ASSERT(evt_merged_init(&a, &ca, EVT_MERGE_TREE) == 0);
	FZ_ASSERT(evt_merged_init(&b, &cb, EVT_MERGE_TREE) == 0);
	evt_merged_set_range(&a, lo, mid);
	evt_merged_set_range(&b, mid + 1, hi);
	evt_merged_count_pair(&a, &b, &na, &nb);
	FZ_ASSERT(na == sa && nb == sb);
	FZ_ASSERT(!!a.err == ea && !!b.err == eb);
	if (ea)
		FZ_ASSERT(!strcmp(a.errmsg, ma));
	if (eb)
		FZ_ASSERT(!strcmp(b.errmsg, mb));
	evt_merged_free(&a);
	evt_merged_free(&b);
	evt_trace_close(&ca);
	evt_trace_close(&cb);
}

/* ---- evt_par: slices on threads ---- */

struct par_ctx {
	struct fz_refs out;
	uint64_t counted;
	int err;
	char errmsg[EVT_TRACE_ERRLEN];
};

/* A slice's results: references, or a count. */
struct par_slice {
	struct fz_refs refs;
	uint64_t counted;
};

static void *par_begin(void *ctx, unsigned int slice, uint64_t lo, uint64_t hi)
{
	(void)ctx;
	(void)slice;
	(void)lo;
	(void)hi;
	return calloc(1, sizeof(struct par_slice));
}

static int par_refs(void *ctx, void *state, const struct evt_ref *r, size_t n)
{
	struct par_slice *ps = state;

	(void)ctx;
	refs_add(&ps->refs, r, n);
	return 0;
}

static int par_count(void *ctx, void *state, uint64_t n)
{
	struct par_slice *ps = state;

	(void)ctx;
	ps->counted += n;
	return 0;
}

static int par_end(void *ctx, void *state, const char *err)
{
	struct par_ctx *pc = ctx;
	struct par_slice *ps = state;

	refs_add(&pc->out, ps->refs.r, ps->refs.n);
	pc->counted += ps->refs.n + ps->counted;
	free(ps->refs.r);
	free(ps);
	if (err) {
		pc->err = 1;
		snprintf(pc->errmsg, sizeof(pc->errmsg), "%s", err);
		return -1;
	}
	return 0;
}

static void par_drop(void *ctx, void *state)
{
	struct par_slice *ps = state;

	(void)ctx;
	free(ps->refs.r);
	free(ps);
}

static void par_pass(struct evt_trace *t, unsigned int threads, uint64_t slice_bytes,
		     const struct fz_refs *seq, int count_only)
{
	struct evt_par_ops ops = { .begin = par_begin, .refs = par_refs, .end = par_end,
				   .drop = par_drop, .count = par_count };
	struct evt_par_opts o = { .threads = threads, .kind = EVT_MERGE_TREE, .from = 0,
				  .to = UINT64_MAX, .slice_bytes = slice_bytes,
				  .count_only = count_only };
	struct par_ctx pc;
	char err[256];
	int rc;

	memset(&pc, 0, sizeof(pc));
	rc = evt_par_run(t, &o, &ops, &pc, err, sizeof(err));
	FZ_ASSERT(rc >= 0);
	FZ_ASSERT(rc == pc.err);
	FZ_ASSERT(pc.err == seq->err);
	if (count_only)
		FZ_ASSERT(pc.counted == seq->n && pc.out.n == 0);
	else
		FZ_ASSERT(refs_equal(&pc.out, seq) && pc.counted == seq->n);
	if (seq->err)
		FZ_ASSERT(!strcmp(pc.errmsg, seq->errmsg));
	free(pc.out.r);
}

/* ---- Per stream: the reader against evt_decode's iterator ---- */

/* Packet @k of @s decoded by evt_decode: must give @n events equal to ev[], then end or fail. */
static void iter_check(const struct evt_catalogue *cat, const struct evt_stream *s, uint32_t k, const struct evt_decoded *ev, uint32_t n,
		       int err)
{
	const struct evt_pkt *p = &s->pk[k];
	struct evt_packet_iter it;
	struct evt_event e;
	uint32_t i;
	int rc = 0;

	FZ_ASSERT(evt_packet_iter_init(&it, cat, s->map + p->off, s->size - p->off) == 0);
	FZ_ASSERT(it.info.content_bytes == p->content);
	for (i = 0; i < n; i++) {
		rc = evt_packet_next(&it, &e);
		FZ_ASSERT(rc == 1);
		FZ_ASSERT(e.ts == ev[i].ts);
		FZ_ASSERT(e.desc == &cat->events[EVT_DMETA_DESC(ev[i].meta)]);
		FZ_ASSERT(e.payload == s->map + p->off + EVT_DMETA_OFF(ev[i].meta));
		FZ_ASSERT(e.payload_len == EVT_DMETA_LEN(ev[i].meta));
		FZ_ASSERT(e.ts >= p->begin && e.ts <= p->end);
		FZ_ASSERT(i == 0 || e.ts >= ev[i - 1].ts);
	}
	rc = evt_packet_next(&it, &e);
	FZ_ASSERT(rc == (err ? -1 : 0));
}

/* Packet @k of @s by evt_decode alone: -1 error at its first event, 0 empty (no event). */
static int iter_empty(const struct evt_catalogue *cat, const struct evt_stream *s, uint32_t k)
{
	const struct evt_pkt *p = &s->pk[k];
	struct evt_packet_iter it;
	struct evt_event e;
	int rc;

	FZ_ASSERT(evt_packet_iter_init(&it, cat, s->map + p->off, s->size - p->off) == 0);
	rc = evt_packet_next(&it, &e);
	FZ_ASSERT(rc <= 0);
	return rc;
}

/* Decode every stream on its own; returns the events in all. */
static uint64_t stream_pass(struct evt_trace *t)
{
	struct evt_trace c;
	uint64_t total = 0;
	unsigned int i;

	FZ_ASSERT(evt_trace_clone(&c, t) == 0);
	for (i = 0; i < c.nr_streams; i++) {
		struct evt_stream *s = &c.streams[i];
		uint32_t next = 0;	/* next packet not yet compared */
		uint64_t last = 0, here = 0;
		int r, decode_err = 0;

		for (;;) {
			r = evt_stream_fill(&c, s);
			if (r <= 0)
				break;
			/* Packets skipped by the fill decoded to nothing, cleanly. */
			for (; next + 1 < s->ipk; next++)
				FZ_ASSERT(iter_empty(t->md.cat, s, next) == 0);
			FZ_ASSERT(s->n > 0 && s->i == 0);
			FZ_ASSERT(s->ev[0].ts >= last);
			iter_check(t->md.cat, s, s->ipk - 1, s->ev, s->n, s->err);
			next = s->ipk;
			last = s->ev[s->n - 1].ts;
			here += s->n;
			s->i = s->n;
		}
		FZ_ASSERT(s->events == here);
		total += here;
		if (r == 0) {
			FZ_ASSERT(!s->tail_err && s->ipk == s->npk);
			for (; next < s->npk; next++)
				FZ_ASSERT(iter_empty(t->md.cat, s, next) == 0);
			continue;
		}
		FZ_ASSERT(s->errmsg[0]);
		/* The error names the file. */
		FZ_ASSERT(strstr(s->errmsg, s->name));
		if (next == s->ipk && s->ipk && s->n) {
			/* After events of the last packet given: iter_check saw the error. */
			decode_err = 1;
		}
		for (; !decode_err && next < s->ipk; next++) {
			if (iter_empty(t->md.cat, s, next) < 0) {
				/* Only the last packet decoded can hold the error. */
				FZ_ASSERT(next + 1 == s->ipk);
				decode_err = 1;
			}
		}
		if (!decode_err)
			FZ_ASSERT(s->tail_err && s->ipk == s->npk && !strcmp(s->errmsg, s->tail_errmsg));
	}
	evt_trace_close(&c);
	return total;
}

/* ---- Formatting ---- */

static void format_all(const struct evt_trace *t, const struct fz_refs *refs)
{
	struct evt_fmt ft, fj;
	struct evt_out o;
	size_t i;

	FZ_ASSERT(evt_out_init(&o, -1, 4096) == 0);
	FZ_ASSERT(evt_fmt_init(&ft, EVT_FMT_TEXT, evt_trace_offset_ns(t), t->md.cat->events,
			       t->md.cat->nr_events) == 0);
	FZ_ASSERT(evt_fmt_init(&fj, EVT_FMT_JSON, evt_trace_offset_ns(t), t->md.cat->events,
			       t->md.cat->nr_events) == 0);
	for (i = 0; i < refs->n; i++) {
		const struct evt_ref *r = &refs->r[i];
		const struct evt_stream *s = &t->streams[EVT_REF_STREAM(r)];
		const struct evt_event_desc *d = &t->md.cat->events[EVT_REF_DESC(r)];

		FZ_ASSERT(EVT_REF_STREAM(r) < t->nr_streams);
		FZ_ASSERT(EVT_REF_DESC(r) < t->md.cat->nr_events);
		FZ_ASSERT(d->channel == s->channel);
		FZ_ASSERT(r->payload >= s->map && r->payload + EVT_REF_LEN(r) <= s->map + s->size);
		FZ_ASSERT(evt_fmt_event(&ft, &o, r->ts, s->cpu, d, r->payload, EVT_REF_LEN(r),
					i & 1 ? EVT_FMT_LATE : 0) == 0);
		FZ_ASSERT(o.len > 0 && o.buf[o.len - 1] == '\n');
		FZ_ASSERT(memchr(o.buf, 0, o.len) == NULL);
		o.len = 0;
		FZ_ASSERT(evt_fmt_event(&fj, &o, r->ts, s->cpu, d, r->payload, EVT_REF_LEN(r), 0) == 0);
		FZ_ASSERT(o.len > 1 && o.buf[0] == '{' && o.buf[o.len - 1] == '\n');
		o.len = 0;
	}
	evt_fmt_free(&ft);
	evt_fmt_free(&fj);
	evt_out_free(&o);
}

/* ---- The metadata variants ---- */

static char *render_meta(const uint8_t *uuid)
{
	struct evt_meta_params mp = {
		.clock_offset_s = 1700000000, .clock_offset_ns = 123456789,
		.hostname = "fuzz", .kernel_release = "fuzz", .tracer_version = "fuzz",
	};
	unsigned long need;
	char *buf;

	memcpy(mp.uuid, uuid, 16);
	need = evt_meta_render(NULL, 0, &mp);
	buf = malloc(need + 1);
	FZ_ASSERT(buf);
	evt_meta_render(buf, need + 1, &mp);
	return buf;
}

int fz_trace_one(const uint8_t *data, size_t size)
{
	struct fz_buf files[FZ_FILES], meta;
	uint8_t flags, uuid[16] = { 0 };
	const uint8_t *first_pkt = NULL;
	size_t first_len = 0, pos = 1;
	struct evt_trace t;
	struct evt_metadata mt_meta;
	char err[EVT_TRACE_ERRLEN], *mtext = NULL;
	size_t mlen = 0;
	int edited = 0;
	unsigned int i;

	if (size < 1)
		return 0;
	fz_tmpdir();
	memset(files, 0, sizeof(files));
	memset(&meta, 0, sizeof(meta));
	flags = data[0];
	while (pos < size) {
		uint8_t sel = data[pos];
		size_t len = 0;

		if (pos + 3 <= size)
			len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		pos += 3;
		if (pos > size)
			break;
		if (len > size - pos)
			len = size - pos;
		if (sel & 0x80) {
			fz_append(&meta, data + pos, len);
		} else {
			fz_append(&files[sel & 7], data + pos, len);
			if (!first_pkt) {
				first_pkt = data + pos;
				first_len = len;
			}
		}
		pos += len;
	}
	if (first_pkt && first_len >= 20)
		memcpy(uuid, first_pkt + 4, 16);
	switch (flags & 3) {
	case 0:
		mtext = render_meta(uuid);
		break;
	case 1:
		uuid[0] ^= 0x5a;
		mtext = render_meta(uuid);
		break;
	case 2: {
		size_t mp = 0, tl;

		mtext = render_meta(uuid);
		tl = strlen(mtext);
		while (mp + 2 <= meta.len) {
			size_t at = ((size_t)meta.p[mp] | (size_t)meta.p[mp + 1] << 8) % tl;
			size_t n = 0;

			mp += 2;
			/* The bytes up to the next record's would-be offset: at most 16. */
			while (mp + n < meta.len && n < 16)
				n++;
			if (at + n > tl) {
				mtext = realloc(mtext, at + n + 1);
				FZ_ASSERT(mtext);
				tl = at + n;
				mtext[tl] = 0;
			}
			memcpy(mtext + at, meta.p + mp, n);
			mp += n;
		}
		/* The edits may put NULs in it: its length is the text's, not strlen's. */
		edited = meta.len > 0;
		mlen = tl;
		break;
	}
	default:
		mtext = malloc(meta.len + 1);
		FZ_ASSERT(mtext);
		if (meta.len)
			memcpy(mtext, meta.p, meta.len);
		mtext[meta.len] = 0;
		break;
	}
	FZ_ASSERT(mtext);
	{
		if ((flags & 3) == 3)
			mlen = meta.len;
		else if ((flags & 3) < 2)
			mlen = strlen(mtext);
		/* The parser on its own, on the same bytes. */
		if (evt_metadata_parse(mtext, mlen, &mt_meta, err, sizeof(err))) {
			FZ_ASSERT(err[0] && memchr(err, 0, sizeof(err)));
			for (i = 0; err[i]; i++)
				FZ_ASSERT((unsigned char)err[i] >= 0x20 && err[i] != 0x7f);
		} else if ((flags & 3) < 2 || ((flags & 3) == 2 && !edited))
			FZ_ASSERT(mt_meta.has_uuid && mt_meta.has_clock &&
				  mt_meta.clock_offset_s == 1700000000 &&
				  mt_meta.clock_offset_ns == 123456789 && !memcmp(mt_meta.uuid, uuid, 16));
		evt_metadata_free(&mt_meta);
		/*
		 * The TSDL parser on the same bytes: never a crash; its errors one
		 * printable line with the line number; what the reader accepts it
		 * parses, into the catalogue the reader decodes by.
		 */
		{
			struct evt_tsdl ts;
			int r = evt_tsdl_parse(mtext, mlen, &ts, err, sizeof(err));
			unsigned int k;

			if (r) {
				FZ_ASSERT(!strncmp(err, "line ", 5));
				for (k = 0; err[k]; k++)
					FZ_ASSERT((unsigned char)err[k] >= 0x20 && err[k] != 0x7f);
			}
			if (!evt_metadata_parse(mtext, mlen, &mt_meta, err, sizeof(err))) {
				const struct evt_catalogue *cat = mt_meta.cat;

				FZ_ASSERT(r == 0 && ts.nr_events == cat->nr_events);
				for (k = 0; k < cat->nr_events; k++)
					FZ_ASSERT(!strcmp(ts.events[k].name, cat->events[k].name) &&
						  ts.events[k].nr_fields == cat->events[k].nr_fields);
				evt_metadata_free(&mt_meta);
			}
			evt_tsdl_free(&ts);
		}
		fz_write("metadata", mtext, mlen);
	}
	free(mtext);
	for (i = 0; i < FZ_FILES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s_%u", evt_channel_name(i & 1), i >> 1);
		if (files[i].present) {
			fz_write(name, files[i].p, files[i].len);
		} else {
			char path[512];

			snprintf(path, sizeof(path), "%s/%s", fz_dir, name);
			unlink(path);
		}
		free(files[i].p);
	}
	free(meta.p);

	if (evt_trace_open(&t, fz_dir, NULL)) {
		FZ_ASSERT(t.err[0]);
		return 0;
	}
	{
		struct fz_refs tree, list, filt;
		uint64_t total = stream_pass(&t), from = 0, to = UINT64_MAX, span = 0, end = 0;
		uint8_t mask[256], *maskp = NULL;
		size_t j, k;

		merged_pass(&t, EVT_MERGE_TREE, 0, UINT64_MAX, NULL, &tree);
		merged_pass(&t, EVT_MERGE_LIST, 0, UINT64_MAX, NULL, &list);
		FZ_ASSERT(tree.err == list.err);
		FZ_ASSERT(refs_equal(&tree, &list));
		if (tree.err)
			FZ_ASSERT(!strcmp(tree.errmsg, list.errmsg));
		FZ_ASSERT(tree.n <= total);
		if (!tree.err)
			FZ_ASSERT(tree.n == total);
		for (j = 1; j < tree.n; j++) {
			const struct evt_ref *a = &tree.r[j - 1], *b = &tree.r[j];

			FZ_ASSERT(a->ts < b->ts || (a->ts == b->ts && (EVT_REF_STREAM(a) < EVT_REF_STREAM(b) ||
				  (EVT_REF_STREAM(a) == EVT_REF_STREAM(b) && a->payload < b->payload))));
		}
		format_all(&t, &tree);

		/* Filters: the unfiltered output restricted to them. */
		for (i = 0; i < t.nr_streams; i++)
			if (t.streams[i].npk && t.streams[i].end_ts > end)
				end = t.streams[i].end_ts;
		if (t.base != UINT64_MAX && end >= t.base)
			span = end - t.base;
		if (flags & 4) {
			from = t.base == UINT64_MAX ? 0 : t.base + span / 4 * ((flags >> 4) & 3);
			to = t.base == UINT64_MAX ? UINT64_MAX : from + span / 4 * (((flags >> 6) & 3) + 1);
		}
		if (flags & 8) {
			for (k = 0; k < sizeof(mask); k++)
				mask[k] = (uint8_t)((k ^ (flags >> 4)) & 1);
			maskp = mask;
		}
		if (flags & 12) {
			merged_pass(&t, (flags & 16) ? EVT_MERGE_LIST : EVT_MERGE_TREE, from, to, maskp, &filt);
			if (!tree.err) {
				FZ_ASSERT(!filt.err);
				for (j = 0, k = 0; j < tree.n; j++) {
					const struct evt_ref *r = &tree.r[j];

					if (r->ts < from || r->ts > to || (maskp && !maskp[EVT_REF_DESC(r)]))
						continue;
					FZ_ASSERT(k < filt.n);
					FZ_ASSERT(filt.r[k].ts == r->ts && filt.r[k].payload == r->payload &&
						  filt.r[k].info == r->info);
					k++;
				}
				FZ_ASSERT(k == filt.n);
			}
			free(filt.r);
		}

		/* Threads: the same output, the same error. */
		par_pass(&t, 1 + (flags >> 6) % 3, 1 + (uint64_t)(flags >> 4) * 512, &tree, 0);
		par_pass(&t, 1 + (flags >> 5) % 3, 1 + (uint64_t)(flags >> 3) * 256, &tree, 1);

		/* Counting: the same number, the same error. */
		for (k = 0; k < 2; k++) {
			int cerr;
			char cmsg[EVT_TRACE_ERRLEN];
			uint64_t cn = count_pass(&t, k ? EVT_MERGE_LIST : EVT_MERGE_TREE, 0, UINT64_MAX,
						 &cerr, cmsg);

			FZ_ASSERT(cn == tree.n && cerr == tree.err);
			if (cerr)
				FZ_ASSERT(!strcmp(cmsg, tree.errmsg));
		}
		if (t.base != UINT64_MAX)
			count_pair_check(&t, t.base, t.base + span / 16 * (flags >> 4), end);

		free(tree.r);
		free(list.r);
	}
	evt_trace_close(&t);
	return 0;
}

FZ_TARGET(fz_trace_one)
