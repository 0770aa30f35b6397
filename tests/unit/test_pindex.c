// SPDX-License-Identifier: GPL-2.0
/*
 * Packet index files (lib/ctf/evt_pindex.h, issue 46): a trace opens from
 * them with one read per stream; one that does not match its stream (the
 * stream rewritten, bytes flipped, the file cut, a forged entry) is
 * ignored with a warning and rebuilt, and never changes what is read.
 * Runs longer than the mapping limit read (lazy mapping, evt_trace_run.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "unit.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_pindex.h"
#include "synth/evt_synth.h"
#include "ctf/evt_trace.h"

static void mktmp(char *dir, size_t len)
{
	unit_mktmp(dir, len, "pidx");
}

/* What a reading gave: the events' digest, their number, the error; the warnings said. */
struct reading {
	uint64_t digest, n;
	int rc;
	char err[EVT_TRACE_ERRLEN];
	char warn[4096];
	unsigned int warnings;
	unsigned int loaded, walked, saved;
};

static void on_warn(void *data, const char *msg)
{
	struct reading *r = data;
	size_t used = strlen(r->warn);

	r->warnings++;
	snprintf(r->warn + used, sizeof(r->warn) - used, "%s\n", msg);
}

/* Read @dir whole through the merge (with index files unless @no_index). */
static void read_all(const char *dir, int no_index, struct reading *r)
{
	struct evt_trace_opts o = { .no_index = no_index, .warn = on_warn };
	struct evt_trace t;
	struct evt_merged mt;
	struct evt_ref refs[101];
	long n;

	memset(r, 0, sizeof(*r));
	o.warn_data = r;
	r->digest = 0xcbf29ce484222325ULL;
	if (evt_trace_open(&t, dir, &o)) {
		r->rc = -1;
		snprintf(r->err, sizeof(r->err), "%s", t.err);
		return;
	}
	r->loaded = t.pidx_loaded;
	r->walked = t.pidx_walked;
	r->saved = t.pidx_saved;
	ck_assert_int_eq(evt_merged_init(&mt, &t, EVT_MERGE_TREE), 0);
	while ((n = evt_merged_next(&mt, refs, 101)) > 0) {
		for (long i = 0; i < n; i++) {
			uint64_t v[3] = { refs[i].ts, EVT_REF_STREAM(&refs[i]), EVT_REF_DESC(&refs[i]) };

			r->digest = (r->digest ^ crc32(0, (const void *)v, sizeof(v))) * 0x100000001b3ULL;
			r->digest = (r->digest ^ crc32(0, refs[i].payload, EVT_REF_LEN(&refs[i]))) * 0x100000001b3ULL;
		}
		r->n += (uint64_t)n;
	}
	if (n < 0) {
		r->rc = -1;
		snprintf(r->err, sizeof(r->err), "%s", mt.errmsg);
	}
	evt_merged_free(&mt);
	evt_trace_close(&t);
}

/* The files' mtimes a second back: settled, as a trace written a while ago is. */
static void age(const char *dir)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "find '%s' -type f -exec touch -d '-2 seconds' {} +", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void synth_small(const char *dir, int no_index, uint64_t seed)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	char err[512];

	evt_synth_defaults(&p);
	p.cpus = 3;
	p.events = 60000;
	p.mix = 1;
	p.normal_pct = 20;
	p.subbuf_size = 4096;
	p.seed = seed;
	p.no_index = no_index;
	ck_assert_msg(!evt_synth_write(dir, &p, &r, err, sizeof(err)), "%s", err);
}

static void path_of(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/" EVT_PIDX_DIR "/%s.idx", dir, name);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	ck_assert_int_eq(read(fd, b, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void spit(const char *path, const void *b, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b, len), (ssize_t)len);
	close(fd);
}

/* The index file's header says sealed. */
static int is_sealed(const char *path)
{
	size_t len;
	uint8_t *b = slurp(path, &len);
	int sealed = len >= EVT_PIDX_HEAD && (b[64] & EVT_PIDX_SEALED);

	free(b);
	return sealed;
}

/* Written by evsynth (sealed), then read from alone; none: the first reader walks and saves one. */
START_TEST(index_files_are_read_and_sealed)
{
	char dir[64], idx[200];
	struct reading ref, a, b;

	mktmp(dir, sizeof(dir));
	synth_small(dir, 0, 5);
	read_all(dir, 1, &ref);
	ck_assert_int_eq(ref.rc, 0);
	ck_assert_uint_eq(ref.n, 60000);
	path_of(idx, sizeof(idx), dir, "compact_0");
	ck_assert(is_sealed(idx));
	read_all(dir, 0, &a);
	ck_assert_uint_eq(a.digest, ref.digest);
	ck_assert_uint_eq(a.warnings, 0);
	ck_assert_uint_eq(a.loaded, 6);
	ck_assert_uint_eq(a.walked + a.saved, 0);
	unit_rmtree(dir);

	/*
	 * No index, the streams written just now (their mtimes a few seconds
	 * ahead, so that no load on the machine lets them settle): walked,
	 * nothing saved (a rewrite in the same clock tick would not show).
	 */
	mktmp(dir, sizeof(dir));
	synth_small(dir, 1, 5);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "find '%s' -type f -exec touch -d '+5 seconds' {} +", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
	read_all(dir, 0, &a);
	ck_assert_uint_eq(a.digest, ref.digest);
	ck_assert_uint_eq(a.walked, 6);
	ck_assert_uint_eq(a.saved, 0);
	/* Settled: the first reader walks and saves, the next reads it. */
	age(dir);
	read_all(dir, 0, &a);
	ck_assert_uint_eq(a.digest, ref.digest);
	ck_assert_uint_eq(a.walked, 6);
	ck_assert_uint_eq(a.saved, 6);
	ck_assert_uint_eq(a.warnings, 0);
	path_of(idx, sizeof(idx), dir, "compact_0");
	ck_assert(is_sealed(idx));
	read_all(dir, 0, &b);
	ck_assert_uint_eq(b.digest, ref.digest);
	ck_assert_uint_eq(b.loaded, 6);
	ck_assert_uint_eq(b.walked, 0);
	unit_rmtree(dir);
}
END_TEST

/*
 * An index that does not match its stream: said, ignored, rebuilt, and the
 * reading is the one without any index. _i: what goes wrong.
 */
enum stale_kind {
	STALE_REWRITTEN,	/* the stream file written again, the same bytes (mtime) */
	STALE_OTHER,		/* the stream replaced by another trace's of the same size */
	STALE_CUT_STREAM,	/* the stream cut to fewer packets */
	STALE_FLIP_HEAD,	/* a byte of the index's header flipped */
	STALE_FLIP_ENTRY,	/* a byte of an entry flipped */
	STALE_CUT_INDEX,	/* the index cut inside an entry */
	STALE_CUT_INDEX_WHOLE,	/* the index cut at an entry's end: covers less than the stream */
	STALE_LAST_FORGED,	/* the last entry's end time changed, its checksum mended */
	STALE_BIG,		/* a sparse index far larger than any of its stream */
	STALE_KINDS
};

static void mend_entry(uint8_t *e)
{
	uint32_t c = (uint32_t)crc32(0, e, 40);

	memcpy(e + 40, &c, 4);
}

START_TEST(stale_index_is_ignored_and_rebuilt)
{
	const enum stale_kind kind = (enum stale_kind)_i;
	char dir[64], other[64], idx[200], stream[200], cmd[600];
	struct reading ref, a, b;
	uint8_t *buf;
	size_t len;

	mktmp(dir, sizeof(dir));
	synth_small(dir, 0, 5);
	read_all(dir, 0, &a);		/* seals the indexes */
	path_of(idx, sizeof(idx), dir, "compact_1");
	snprintf(stream, sizeof(stream), "%s/compact_1", dir);
	ck_assert(is_sealed(idx));
	switch (kind) {
	case STALE_REWRITTEN:
		buf = slurp(stream, &len);
		spit(stream, buf, len);
		free(buf);
		break;
	case STALE_OTHER:
		/* The same session's layout (a uuid of its own, which the walk then refuses). */
		mktmp(other, sizeof(other));
		synth_small(other, 1, 9);
		snprintf(cmd, sizeof(cmd), "cp '%s/compact_1' '%s'", other, stream);
		ck_assert_int_eq(system(cmd), 0);
		unit_rmtree(other);
		break;
	case STALE_CUT_STREAM:
		ck_assert_int_eq(truncate(stream, 4096 * 3), 0);
		break;
	case STALE_FLIP_HEAD:
	case STALE_FLIP_ENTRY:
	case STALE_CUT_INDEX:
	case STALE_CUT_INDEX_WHOLE:
	case STALE_LAST_FORGED:
		buf = slurp(idx, &len);
		ck_assert_uint_gt(len, EVT_PIDX_HEAD + 3 * EVT_PIDX_ENTRY);
		if (kind == STALE_FLIP_HEAD)
			buf[20] ^= 0x10;
		else if (kind == STALE_FLIP_ENTRY)
			buf[EVT_PIDX_HEAD + EVT_PIDX_ENTRY + 9] ^= 0x01;
		else if (kind == STALE_CUT_INDEX)
			len -= EVT_PIDX_ENTRY / 2;
		else if (kind == STALE_CUT_INDEX_WHOLE)
			len -= EVT_PIDX_ENTRY;
		else {
			uint8_t *e = buf + len - EVT_PIDX_ENTRY;

			e[16] ^= 0x01;		/* timestamp_end's low byte */
			mend_entry(e);
		}
		spit(idx, buf, len);
		free(buf);
		break;
	case STALE_BIG:
		ck_assert_int_eq(truncate(idx, 1L << 31), 0);
		break;
	case STALE_KINDS:
		break;
	}
	/* The stream settled again (a reader seals only a settled stream's index). */
	if (kind <= STALE_CUT_STREAM)
		age(stream);
	read_all(dir, 1, &ref);
	read_all(dir, 0, &a);
	ck_assert_msg(a.warnings == 1 && strstr(a.warn, idx) && strstr(a.warn, "ignored"),
		      "kind %d: warnings %u: %s", kind, a.warnings, a.warn);
	ck_assert_uint_eq(a.digest, ref.digest);
	ck_assert_uint_eq(a.n, ref.n);
	ck_assert_int_eq(a.rc, ref.rc);
	ck_assert_str_eq(a.err, ref.err);
	ck_assert_uint_ge(a.walked, 1);
	/* Rebuilt: the next reading says nothing. */
	read_all(dir, 0, &b);
	ck_assert_msg(b.warnings == 0, "kind %d: %s", kind, b.warn);
	ck_assert_uint_eq(b.digest, ref.digest);
	ck_assert_str_eq(b.err, ref.err);
	if (!ref.rc)
		ck_assert_uint_eq(b.walked, 0);
	unit_rmtree(dir);
}
END_TEST

/*
 * A forged entry in the middle (its checksum mended, the stream's size and
 * mtime kept): whether or not the random check at open meets it, nothing it
 * says is decoded: an error at that packet, or the reading without it.
 */
START_TEST(forged_entry_is_never_decoded)
{
	char dir[64], idx[200];
	struct reading ref, a;
	uint8_t *buf, *e;
	size_t len;
	unsigned int round, caught = 0, errors = 0;

	mktmp(dir, sizeof(dir));
	synth_small(dir, 0, 5);
	read_all(dir, 1, &ref);
	read_all(dir, 0, &a);
	path_of(idx, sizeof(idx), dir, "compact_2");
	buf = slurp(idx, &len);
	e = buf + EVT_PIDX_HEAD + ((len - EVT_PIDX_HEAD) / EVT_PIDX_ENTRY / 2) * EVT_PIDX_ENTRY;
	{
		uint64_t begin;

		/* timestamp_begin a nanosecond later: within the packet, after the one before. */
		memcpy(&begin, e + 8, 8);
		begin++;
		memcpy(e + 8, &begin, 8);
	}
	mend_entry(e);
	for (round = 0; round < 6; round++) {
		spit(idx, buf, len);
		read_all(dir, 0, &a);
		if (a.warnings) {
			caught++;
			ck_assert_uint_eq(a.digest, ref.digest);
		} else {
			errors++;
			ck_assert_int_eq(a.rc, -1);
			ck_assert_msg(strstr(a.err, "compact_2") && strstr(a.err, "packet index"), "%s", a.err);
			ck_assert_uint_lt(a.n, ref.n);
		}
	}
	ck_assert_uint_eq(caught + errors, 6);
	free(buf);
	unit_rmtree(dir);
}
END_TEST

/* Neither a link nor a directory of someone else's is read or written through. */
START_TEST(index_links_are_not_followed)
{
	char dir[64], idx[200], target[200], cmd[1200];
	struct reading ref, a;
	uint8_t *before, *after;
	size_t lb, la;

	mktmp(dir, sizeof(dir));
	synth_small(dir, 0, 5);
	read_all(dir, 1, &ref);
	path_of(idx, sizeof(idx), dir, "normal_0");
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && rm '%s' && ln -s '%s' '%s'", idx, target, idx, target, idx);
	ck_assert_int_eq(system(cmd), 0);
	before = slurp(target, &lb);
	read_all(dir, 0, &a);
	ck_assert_msg(a.warnings == 1 && strstr(a.warn, "symbolic link"), "%s", a.warn);
	ck_assert_uint_eq(a.digest, ref.digest);
	after = slurp(target, &la);
	ck_assert(lb == la && !memcmp(before, after, lb));
	free(before);
	free(after);
	/* The index directory itself a link: said, not read, nothing written there. */
	snprintf(cmd, sizeof(cmd), "mv '%s/" EVT_PIDX_DIR "' '%s/real' && ln -s real '%s/" EVT_PIDX_DIR "' && "
		 "rm -f '%s/real/'*", dir, dir, dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	setenv("XDG_CACHE_HOME", dir, 1);
	read_all(dir, 0, &a);
	unsetenv("XDG_CACHE_HOME");
	ck_assert_msg(a.warnings >= 1 && strstr(a.warn, "symbolic link or not a directory"), "%s", a.warn);
	ck_assert_uint_eq(a.digest, ref.digest);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/real')\"", dir);
	ck_assert_int_eq(system(cmd), 0);
	unit_rmtree(dir);
}
END_TEST

/*
 * An unsealed index (its writer killed, or the stream rewritten since by
 * someone else) with no writer at work: nothing vouches for it; walked
 * without a word, replaced by a sealed one.
 */
START_TEST(unsealed_without_writer_is_walked)
{
	char dir[64], idx[200];
	struct reading ref, a, b;
	uint8_t *buf;
	size_t len, keep;

	mktmp(dir, sizeof(dir));
	synth_small(dir, 0, 5);
	read_all(dir, 1, &ref);
	path_of(idx, sizeof(idx), dir, "compact_0");
	buf = slurp(idx, &len);
	keep = EVT_PIDX_HEAD + ((len - EVT_PIDX_HEAD) / EVT_PIDX_ENTRY / 2) * EVT_PIDX_ENTRY;
	/* Half of it, a torn entry, and unsealed, as a writer killed leaves it (header checksum mended). */
	memset(buf + 40, 0, 28);
	{
		uint32_t c = (uint32_t)crc32(0, buf, 76);

		memcpy(buf + 76, &c, 4);
	}
	spit(idx, buf, keep + 7);
	free(buf);
	read_all(dir, 0, &a);
	ck_assert_msg(a.warnings == 0, "%s", a.warn);
	ck_assert_uint_eq(a.digest, ref.digest);
	ck_assert_uint_eq(a.loaded, 5);		/* the other streams' sealed ones */
	ck_assert_uint_eq(a.walked, 1);
	ck_assert_uint_eq(a.saved, 1);
	ck_assert(is_sealed(idx));
	read_all(dir, 0, &b);
	ck_assert_uint_eq(b.digest, ref.digest);
	ck_assert_uint_eq(b.loaded, 6);
	ck_assert_uint_eq(b.walked, 0);
	unit_rmtree(dir);
}
END_TEST

/* A stream that ends in a bad packet header: its index stops short of it, the next reader meets the same error. */
START_TEST(index_stops_at_a_bad_header)
{
	char dir[64], idx[200], stream[200];
	struct reading ref, a, b;
	uint8_t *buf;
	size_t len;

	mktmp(dir, sizeof(dir));
	synth_small(dir, 1, 5);
	snprintf(stream, sizeof(stream), "%s/compact_1", dir);
	buf = slurp(stream, &len);
	ck_assert_uint_gt(len, 4 * 4096);
	buf[3 * 4096] ^= 0xff;		/* the fourth packet's magic */
	spit(stream, buf, len);
	free(buf);
	age(dir);
	read_all(dir, 1, &ref);
	ck_assert_int_eq(ref.rc, -1);
	read_all(dir, 0, &a);
	ck_assert_uint_eq(a.walked, 6);
	ck_assert_uint_eq(a.saved, 6);
	path_of(idx, sizeof(idx), dir, "compact_1");
	ck_assert(is_sealed(idx));
	read_all(dir, 0, &b);
	ck_assert_msg(b.warnings == 0, "%s", b.warn);
	ck_assert_uint_eq(b.loaded, 6);
	ck_assert_uint_eq(b.walked, 1);
	ck_assert_uint_eq(b.saved, 0);
	ck_assert_int_eq(b.rc, -1);
	ck_assert_str_eq(b.err, ref.err);
	ck_assert_uint_eq(b.n, ref.n);
	ck_assert_uint_eq(b.digest, ref.digest);
	unit_rmtree(dir);
}
END_TEST

Suite *pindex_suite(void)
{
	Suite *s = suite_create("pindex");
	TCase *tc = tcase_create("pindex");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, index_files_are_read_and_sealed);
	tcase_add_loop_test(tc, stale_index_is_ignored_and_rebuilt, 0, STALE_KINDS);
	tcase_add_test(tc, forged_entry_is_never_decoded);
	tcase_add_test(tc, index_links_are_not_followed);
	tcase_add_test(tc, unsealed_without_writer_is_walked);
	tcase_add_test(tc, index_stops_at_a_bad_header);
	suite_add_tcase(s, tc);
	return s;
}
