// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the shapes of a run of chunks (a rotating evdrain's
 * directory, issue 41). The chunks' bytes are a real trace's (evsynth's,
 * cut into 4 chunks once, as evdrain cuts); the input decides the names,
 * what each entry is and how many there are:
 *
 *   byte 0        flags: bit 0 open on 3 threads too, bit 1 a map limit
 *                 32 above the mappings the process has
 *                 (EVTRACE_MAX_MAP_COUNT: room for about 10 of the run's
 *                 up to 32 stream files at once, read a window at a
 *                 time), bit 2 --cpu 0 only
 *   entries       [name][kind][arg], at most 8:
 *     name  % 7   0 a chunk's name, sequence number its index; 1 the same,
 *                 sequence number arg (duplicates, gaps); 2 a sequence
 *                 with a leading zero (-0N); 3 .inprogress-N; 4 "notes";
 *                 5 the end before the begin; 6 no sequence number
 *     kind  % 6   0 a copy of template chunk arg % 4; 1 a symlink to it;
 *                 2 no kernel/; 3 kernel a file; 4 kernel/ a symlink to
 *                 the template's; 5 a copy with compact_0 cut to arg * 64
 *                 bytes (a later entry of the same name is left out)
 *
 * Checked with FZ_ASSERT: the open never hangs or crashes; on one thread
 * and on three it gives the same result and message; a failure is one line
 * of printable text naming the run; an open run has chunks in sequence
 * order, no more than there are entries, and the tree and the list merge
 * count the same events (with the same error); with the map limit, a run
 * reads the same events and error as without it, or is refused naming
 * vm.max_map_count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "chunk/evt_chunk.h"
#include "fuzz_read.h"
#include "synth/evt_synth.h"

#define FR_CHUNKS 4
#define FR_ENTRIES 8

static char fu_tmpl[256], fu_dir[256];

static void fu_sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	FZ_ASSERT(system(cmd) == 0);
}

static void fu_atexit(void)
{
	if (fu_dir[0])
		fu_sh("rm -rf '%s' '%s'", fu_dir, fu_tmpl);
}

/* Append @len bytes of @from at @off to @to. */
static void fu_copy(const char *from, uint64_t off, uint64_t len, const char *to)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_APPEND, 0600);
	char *buf = malloc(len ? len : 1);

	FZ_ASSERT(in >= 0 && out >= 0 && buf);
	FZ_ASSERT(pread(in, buf, len, (off_t)off) == (ssize_t)len);
	FZ_ASSERT(write(out, buf, len) == (ssize_t)len);
	free(buf);
	close(in);
	close(out);
}

/* A trace, cut by time into FR_CHUNKS chunk directories tmpl/K/kernel (once). */
static void fu_setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t;
	char whole[300], path[700], err[256];
	uint64_t first = UINT64_MAX, last = 0;
	uint32_t next[64] = { 0 };

	if (fu_dir[0])
		return;
	snprintf(fu_tmpl, sizeof(fu_tmpl), "%s/evt-fuzzrun-tmpl-XXXXXX", base);
	FZ_ASSERT(mkdtemp(fu_tmpl));
	snprintf(fu_dir, sizeof(fu_dir), "%s/evt-fuzzrun-XXXXXX", base);
	FZ_ASSERT(mkdtemp(fu_dir));
	atexit(fu_atexit);
	snprintf(whole, sizeof(whole), "%s/whole", fu_tmpl);
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 4000;
	p.normal_pct = 20;
	p.subbuf_size = 4096;
	FZ_ASSERT(evt_synth_write(whole, &p, &r, err, sizeof(err)) == 0);
	FZ_ASSERT(evt_trace_open(&t, whole, NULL) == 0 && t.nr_streams <= 64);
	for (unsigned int i = 0; i < t.nr_streams; i++) {
		if (t.streams[i].npk && t.streams[i].first_ts < first)
			first = t.streams[i].first_ts;
		if (t.streams[i].end_ts > last)
			last = t.streams[i].end_ts;
	}
	for (unsigned int k = 0; k < FR_CHUNKS; k++) {
		const uint64_t cut = k + 1 == FR_CHUNKS ? UINT64_MAX : first + (last - first) * (k + 1) / FR_CHUNKS;

		snprintf(path, sizeof(path), "%s/%u", fu_tmpl, k);
		FZ_ASSERT(mkdir(path, 0700) == 0);
		snprintf(path, sizeof(path), "%s/%u/kernel", fu_tmpl, k);
		FZ_ASSERT(mkdir(path, 0700) == 0);
		fu_sh("cp '%s/metadata' '%s/'", whole, path);
		for (unsigned int i = 0; i < t.nr_streams; i++) {
			const struct evt_stream *s = &t.streams[i];
			char src[700], dst[800];

			snprintf(src, sizeof(src), "%s/%s", whole, s->name);
			snprintf(dst, sizeof(dst), "%s/%s", path, s->name);
			close(open(dst, O_WRONLY | O_CREAT, 0600));
			for (; next[i] < s->npk && s->pk[next[i]].end <= cut; next[i]++) {
				const uint64_t o = s->pk[next[i]].off;
				const uint64_t end = next[i] + 1 < s->npk ? s->pk[next[i] + 1].off : s->size;

				fu_copy(src, o, end - o, dst);
			}
		}
	}
	evt_trace_close(&t);
}

/* Entry @i's name: chunk-like names get times k ms apart. */
static void fu_name(char *buf, size_t len, unsigned int kind, unsigned int i, unsigned int arg)
{
	const uint64_t t0 = 1700000000000000000ULL + (uint64_t)i * 1000000ULL;
	char b[32], e[32];

	evt_chunk_time(b, sizeof(b), t0);
	evt_chunk_time(e, sizeof(e), t0 + 999000ULL);
	switch (kind % 7) {
	case 0: snprintf(buf, len, "%s-%s-%u", b, e, i); break;
	case 1: snprintf(buf, len, "%s-%s-%u", b, e, arg); break;
	case 2: snprintf(buf, len, "%s-%s-0%u", b, e, i); break;
	case 3: snprintf(buf, len, ".inprogress-%u", i); break;
	case 4: snprintf(buf, len, "notes"); break;
	case 5: snprintf(buf, len, "%s-%s-%u", e, b, i); break;
	default: snprintf(buf, len, "%s-%s-", b, e); break;
	}
}

static void fu_make(const char *name, unsigned int kind, unsigned int arg)
{
	char path[700], src[400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fu_dir, name);
	if (!lstat(path, &st))
		return;
	snprintf(src, sizeof(src), "%s/%u", fu_tmpl, arg % FR_CHUNKS);
	switch (kind % 6) {
	case 0:
	case 5:		/* cut by the caller */
		fu_sh("cp -r '%s' '%s'", src, path);
		break;
	case 1:
		FZ_ASSERT(symlink(src, path) == 0);
		break;
	case 2:
		FZ_ASSERT(mkdir(path, 0700) == 0);
		break;
	case 3:
		FZ_ASSERT(mkdir(path, 0700) == 0);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/kernel");
		close(open(path, O_WRONLY | O_CREAT, 0600));
		break;
	default:
		FZ_ASSERT(mkdir(path, 0700) == 0);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/kernel");
		snprintf(src + strlen(src), sizeof(src) - strlen(src), "/kernel");
		FZ_ASSERT(symlink(src, path) == 0);
		break;
	}
}

/* The process's mappings now. */
static long fu_maps_in_use(void)
{
	char line[512];
	long n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strchr(line, '\n') != NULL;
	fclose(f);
	return n;
}

int fz_run_one(const uint8_t *data, size_t size)
{
	static uint8_t cpu0[1] = { 1 };
	struct evt_trace_opts o1 = { .threads = 1, .warn = fz_warn }, o3 = { .threads = 3, .warn = fz_warn };
	struct evt_trace t1, t3;
	char e1[EVT_TRACE_ERRLEN], e2[EVT_TRACE_ERRLEN];
	unsigned int i, n = 0;
	int r1;

	if (size < 1)
		return 0;
	fu_setup();
	fu_sh("rm -rf '%s'/* '%s'/.[!.]*", fu_dir, fu_dir);
	for (i = 1; i + 3 <= size && n < FR_ENTRIES; i += 3, n++) {
		char name[160];

		fu_name(name, sizeof(name), data[i], n, data[i + 2]);
		if (data[i + 1] % 6 == 5) {
			char path[700], sz[24];

			fu_make(name, 0, data[i + 2]);
			snprintf(path, sizeof(path), "%s/%s/kernel/compact_0", fu_dir, name);
			snprintf(sz, sizeof(sz), "%u", (unsigned int)data[i + 2] * 64);
			if (!access(path, F_OK))
				fu_sh("truncate -s %s '%s'", sz, path);
		} else {
			fu_make(name, data[i + 1], data[i + 2]);
		}
	}
	if (data[0] & 2) {
		char lim[32];

		snprintf(lim, sizeof(lim), "%ld", fu_maps_in_use() + 32);
		setenv("EVTRACE_MAX_MAP_COUNT", lim, 1);
	} else
		unsetenv("EVTRACE_MAX_MAP_COUNT");
	if (data[0] & 4) {
		o1.cpu_set = o3.cpu_set = cpu0;
		o1.cpu_set_bits = o3.cpu_set_bits = 8;
	}
	r1 = evt_trace_open(&t1, fu_dir, &o1);
	if (r1) {
		FZ_ASSERT(strstr(t1.err, fu_dir) && !strchr(t1.err, '\n'));
		fz_printable(t1.err);
	}
	if (data[0] & 1) {
		int r3 = evt_trace_open(&t3, fu_dir, &o3);

		FZ_ASSERT(r3 == r1);
		/* The same words; the mappings in use differ with the threads (their stacks). */
		if (r3 && strstr(t1.err, "mapped at once"))
			FZ_ASSERT(!strncmp(t3.err, t1.err, (size_t)(strstr(t1.err, " more than") - t1.err)));
		else if (r3)
			FZ_ASSERT(!strcmp(t3.err, t1.err));
		else
			evt_trace_close(&t3);
	}
	if (!r1) {
		long a, b;

		FZ_ASSERT(t1.nr_chunks <= n && t1.run_chunks <= n);
		for (i = 1; i < t1.nr_chunks; i++)
			FZ_ASSERT(t1.chunks[i - 1].seq <= t1.chunks[i].seq);
		a = fz_count_events(&t1, EVT_MERGE_TREE, e1, sizeof(e1));
		b = fz_count_events(&t1, EVT_MERGE_LIST, e2, sizeof(e2));
		FZ_ASSERT(a == b && !strcmp(e1, e2));
		fz_printable(e1);
		evt_trace_close(&t1);
		/* Within the limit, a window of files at a time: what the whole run mapped at once reads. */
		if (data[0] & 2) {
			struct evt_trace tw;

			unsetenv("EVTRACE_MAX_MAP_COUNT");
			FZ_ASSERT(!evt_trace_open(&tw, fu_dir, &o1));
			b = fz_count_events(&tw, EVT_MERGE_TREE, e2, sizeof(e2));
			FZ_ASSERT(a == b && !strcmp(e1, e2));
			evt_trace_close(&tw);
		}
	} else if (data[0] & 2 && strstr(t1.err, "mapped at once")) {
		FZ_ASSERT(strstr(t1.err, "vm.max_map_count"));
	}
	unsetenv("EVTRACE_MAX_MAP_COUNT");
	return 0;
}

FZ_TARGET(fz_run_one)
