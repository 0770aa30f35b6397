// SPDX-License-Identifier: GPL-2.0
/* evdrain's rotation: chunks, their completion, retention, hooks. See evd_rotate.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "evd_rotate.h"
#include "evt_chunk.h"
#include "evt_consumer.h"
#include "evt_format.h"
#include "evt_io.h"
#include "evt_trace.h"

extern char **environ;

#define NO_SEQ		UINT64_MAX
/*
 * DIR's record of the chunks whose hook has succeeded (one sequence number
 * a line): a chunk completed but not shipped when evdrain stopped or was
 * killed (its hook failed every retry, or never ran) gets its hook from the
 * next evdrain (a hook killed mid-way runs again: at least once, so hooks
 * should be idempotent, as rsync is).
 */
#define HOOKED_FILE	".hooked"
/* The output directory's name at most; every path below it fits its buffer. */
#define OUTDIR_LEN	3072
#define DIR_LEN		(OUTDIR_LEN + 300)	/* outdir/NAME */
#define FILE_LEN	(DIR_LEN + 300)		/* outdir/NAME/kernel/FILE */

/* A closed chunk waiting for the finisher. */
struct closed {
	uint64_t seq;
	char dir[DIR_LEN];		/* outdir/.inprogress-SEQ */
	uint64_t opened_ns, closed_ns;	/* realtime: the name of a chunk without packets */
	struct evd_rot_ring_count *counts;
	size_t ncounts;
	int recovered;
	int final;			/* the session's last chunk */
	struct closed *next;
};

/* A complete chunk on disk. */
struct done {
	uint64_t seq, bytes;
	char name[EVT_CHUNK_NAME_MAX];
	int hook_queued;
	int shipped;			/* its hook succeeded (or there is none): retention may take it */
	int final;
	uint64_t begin_ns, end_ns, events, discarded, overwritten, lost_packets;
};

/* What a stream's last packet in the previous chunk said: the seam's checks. */
struct carry {
	uint64_t next_seq;		/* its packet_seq_num + 1 */
	uint64_t discarded;		/* its running total */
	uint64_t overwritten;		/* the module's count at the cut */
	int valid, counted;
};

struct evd_rot {
	struct evd_rot_opts o;
	char outdir[OUTDIR_LEN];
	uint64_t next_seq;
	struct closed *current;		/* in progress, the drain loop's */
	struct closed *next;		/* made by a cut, current once the cut is done */
	atomic_uint_fast64_t current_bytes;

	pthread_mutex_t mu;
	pthread_cond_t fin_cv, hook_cv;
	struct closed *queue, **queue_tail;	/* for the finisher */
	struct done *done;			/* complete chunks, oldest first */
	size_t ndone, capdone;
	uint64_t *hookq;			/* seqs waiting for the hook, in order */
	size_t nhookq, caphookq;
	uint64_t hooking;			/* the seq whose hook runs, or NO_SEQ */
	/*
	 * The last completed chunk, its hook held until the chunk after it
	 * records a packet (then it is not the session's last) or turns out
	 * empty at the stop (then it is: final), or NO_SEQ.
	 */
	uint64_t held;
	atomic_int held_waiting;		/* held != NO_SEQ, for the drain loop's look without the lock */
	int stopping;
	int finisher_done;			/* no chunk will be completed any more */
	uint64_t hook_deadline_ms;		/* set by evd_rot_stop: kill hooks after it */
	pthread_t finisher, hooker;
	struct carry *carry;			/* [channel * EVT_MAX_CPUS + cpu] */
	struct evd_rot_stats st;
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

/* A chunk directory and everything in it. */
static int remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static uint64_t du_total;

static int du_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	/* Directories too, as du -sb counts them (a chunk has three: itself, kernel/, .evtrace-index/). */
	if (flag == FTW_F || flag == FTW_D)
		du_total += (uint64_t)sb->st_size;
	return 0;
}

/* Bytes of the files and directories under @path, as du -sb (the finisher's thread and start only: one at a time). */
static uint64_t tree_bytes(const char *path)
{
	du_total = 0;
	nftw(path, du_entry, 16, FTW_PHYS);
	return du_total;
}

static void sync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Bytes of the stream files in @kdir (a chunk's kernel/): 0 when nothing was recorded. */
static uint64_t stream_bytes(const char *kdir)
{
	struct dirent *de;
	DIR *d = opendir(kdir);
	uint64_t bytes = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' || !strncmp(de->d_name, "metadata", 8))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
			bytes += (uint64_t)st.st_size;
	}
	closedir(d);
	return bytes;
}

/* fsync every file of @dir and @dir itself: 0, or -1 with errno. */
static int sync_files(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fsync(fd))
			ret = -1;
		if (fd >= 0)
			close(fd);
	}
	if (fsync(dirfd(d)))
		ret = -1;
	closedir(d);
	return ret;
}

static int mkdir_group(const struct evd_rot *r, const char *path)
{
	if (mkdir(path, 0750) && errno != EEXIST)
		return -1;
	if (r->o.has_group && chown(path, (uid_t)-1, r->o.group))
		return -1;
	return 0;
}

/* A chunk that could not be completed: the finisher and the drain loop both count them. */
static void count_error(struct evd_rot *r)
{
	pthread_mutex_lock(&r->mu);
	r->st.errors++;
	pthread_mutex_unlock(&r->mu);
}

/* ---- Completing a chunk ---- */

struct stream_sum {
	unsigned int channel, cpu;
	uint64_t events, packets, bytes, discarded, overwritten, lost, first_seq, last_seq;
};

struct chunk_sum {
	struct stream_sum *s;
	unsigned int n;
	uint64_t begin_ns, end_ns, events, discarded, overwritten, lost, bytes;
	uint64_t per_channel[EVT_NR_CHANNELS];
	char err[EVT_TRACE_ERRLEN];
};

static const struct evd_rot_ring_count *find_count(const struct closed *c, unsigned int ch, unsigned int cpu)
{
	size_t i;

	for (i = 0; i < c->ncounts; i++)
		if (c->counts[i].channel == ch && c->counts[i].cpu == cpu)
			return &c->counts[i];
	return NULL;
}

/*
 * Read the chunk as a trace: events per stream, the packets' accounting,
 * the seams against the previous chunk. 1 when it holds no packet, 0, or -1
 * with cs->err (the trace could not be opened).
 */
static int scan_chunk(struct evd_rot *r, const struct closed *c, const char *kdir, struct chunk_sum *cs)
{
	/* The chunk is whole and nobody writes it: its packet indexes saved sealed for its readers. */
	struct evt_trace_opts topts = { .settle = 1 };
	struct evt_trace t;
	uint64_t first = UINT64_MAX, last = 0, packets = 0;
	unsigned int i;

	memset(cs, 0, sizeof(*cs));
	if (evt_trace_open(&t, kdir, &topts)) {
		snprintf(cs->err, sizeof(cs->err), "%s", t.err);
		return -1;
	}
	cs->s = calloc(t.nr_streams ? t.nr_streams : 1, sizeof(*cs->s));
	if (!cs->s) {
		snprintf(cs->err, sizeof(cs->err), "out of memory");
		evt_trace_close(&t);
		return -1;
	}
	cs->n = t.nr_streams;
	for (i = 0; i < t.nr_streams; i++) {
		struct evt_stream *s = &t.streams[i];
		struct stream_sum *ss = &cs->s[i];
		struct carry *k = &r->carry[s->channel * EVT_MAX_CPUS + s->cpu];
		const struct evd_rot_ring_count *rc = find_count(c, s->channel, s->cpu);
		int rcode;

		while ((rcode = evt_stream_has(&t, s)) == 1)
			s->i++;
		if (rcode < 0 && !cs->err[0])
			snprintf(cs->err, sizeof(cs->err), "%s", s->errmsg);
		ss->channel = s->channel;
		ss->cpu = s->cpu;
		ss->events = s->events;
		ss->packets = s->packets;
		ss->bytes = s->size;
		packets += s->packets;
		if (rc) {
			ss->overwritten = k->counted ? rc->overwritten - k->overwritten : rc->overwritten;
			k->overwritten = rc->overwritten;
			k->counted = 1;
		}
		if (s->packets) {
			ss->first_seq = s->seq_first;
			ss->last_seq = s->seq_first + s->packets + s->seq_gaps - 1;
			ss->lost = s->seq_gaps;
			if (k->valid && s->seq_first > k->next_seq)
				ss->lost += s->seq_first - k->next_seq;
			ss->discarded = k->valid && s->discarded >= k->discarded ? s->discarded - k->discarded :
					s->discarded;
			k->next_seq = ss->last_seq + 1;
			k->discarded = s->discarded;
			k->valid = 1;
			if (s->first_ts < first)
				first = s->first_ts;
			if (s->end_ts > last)
				last = s->end_ts;
		}
		cs->events += ss->events;
		cs->per_channel[ss->channel] += ss->events;
		cs->discarded += ss->discarded;
		cs->overwritten += ss->overwritten;
		cs->lost += ss->lost;
	}
	if (packets) {
		cs->begin_ns = first + evt_trace_offset_ns(&t);
		cs->end_ns = last + evt_trace_offset_ns(&t);
	}
	evt_trace_close(&t);
	return packets ? 0 : 1;
}

static void json_str(FILE *f, const char *s)
{
	char *q = malloc(6 * strlen(s) + 3);

	if (q) {
		evt_fmt_json_string(q, s);
		fputs(q, f);
		free(q);
	} else {
		fputs("null", f);
	}
}

/* CHUNK/summary.json, written aside and renamed: 0, or -1 with errno. */
static int write_summary(const struct evd_rot *r, const char *dir, const char *name, const struct closed *c,
			 const struct chunk_sum *cs)
{
	char path[FILE_LEN], tmp[FILE_LEN + 8], b[48], e[48];
	struct utsname u;
	unsigned int i;
	FILE *f;
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, EVT_CHUNK_SUMMARY);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, EVT_CONSUMER_FILE_MODE);
	if (fd < 0)
		return -1;
	if (r->o.has_group && fchown(fd, (uid_t)-1, r->o.group)) {
		close(fd);
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -1;
	}
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	evt_chunk_iso_time(b, sizeof(b), cs->begin_ns, 1);
	evt_chunk_iso_time(e, sizeof(e), cs->end_ns, 1);
	fputs("{\"chunk\": ", f);
	json_str(f, name);
	fprintf(f, ", \"seq\": %llu, \"host\": ", (unsigned long long)c->seq);
	json_str(f, u.nodename);
	fputs(", \"kernel\": ", f);
	json_str(f, u.release);
	fputs(", \"kernel_version\": ", f);
	json_str(f, u.version);
	fprintf(f, ", \"begin\": \"%s\", \"end\": \"%s\", \"begin_ns\": %llu, \"end_ns\": %llu", b, e,
		(unsigned long long)cs->begin_ns, (unsigned long long)cs->end_ns);
	fprintf(f, ", \"recovered\": %s, \"final\": %s, \"bytes\": %llu, \"events\": %llu, \"discarded\": %llu, "
		"\"overwritten\": %llu, \"lost_packets\": %llu, \"events_per_channel\": {",
		c->recovered ? "true" : "false", c->final ? "true" : "false", (unsigned long long)cs->bytes,
		(unsigned long long)cs->events, (unsigned long long)cs->discarded,
		(unsigned long long)cs->overwritten, (unsigned long long)cs->lost);
	for (i = 0; i < EVT_NR_CHANNELS; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", evt_channel_name(i),
			(unsigned long long)cs->per_channel[i]);
	fputs("}, \"streams\": [", f);
	for (i = 0; i < cs->n; i++) {
		const struct stream_sum *s = &cs->s[i];

		fprintf(f, "%s{\"channel\": \"%s\", \"cpu\": %u, \"events\": %llu, \"packets\": %llu, "
			"\"bytes\": %llu, \"discarded\": %llu, \"overwritten\": %llu, \"lost_packets\": %llu, "
			"\"first_seq\": %llu, \"last_seq\": %llu}", i ? ", " : "", evt_channel_name(s->channel),
			s->cpu, (unsigned long long)s->events, (unsigned long long)s->packets,
			(unsigned long long)s->bytes, (unsigned long long)s->discarded,
			(unsigned long long)s->overwritten, (unsigned long long)s->lost,
			(unsigned long long)s->first_seq, (unsigned long long)s->last_seq);
	}
	fputs("], \"error\": ", f);
	if (cs->err[0])
		json_str(f, cs->err);
	else
		fputs("null", f);
	fputs("}\n", f);
	ok = fflush(f) == 0 && !ferror(f) && fsync(fd) == 0;
	if (fclose(f))
		ok = 0;
	if (!ok || rename(tmp, path)) {
		int err = errno;

		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

static int done_cmp(const void *a, const void *b)
{
	return strcmp(((const struct done *)a)->name, ((const struct done *)b)->name);
}

/* Under r->mu. */
static int add_done(struct evd_rot *r, const struct done *d)
{
	if (r->ndone == r->capdone) {
		size_t cap = r->capdone ? 2 * r->capdone : 64;
		struct done *more = realloc(r->done, cap * sizeof(*more));

		if (!more)
			return -1;
		r->done = more;
		r->capdone = cap;
	}
	r->done[r->ndone++] = *d;
	qsort(r->done, r->ndone, sizeof(*r->done), done_cmp);
	return 0;
}

/* Under r->mu. */
static int push_hook(struct evd_rot *r, uint64_t seq)
{
	if (r->nhookq == r->caphookq) {
		size_t cap = r->caphookq ? 2 * r->caphookq : 64;
		uint64_t *more = realloc(r->hookq, cap * sizeof(*more));

		if (!more)
			return -1;
		r->hookq = more;
		r->caphookq = cap;
	}
	r->hookq[r->nhookq++] = seq;
	if (r->nhookq > r->st.hooks_pending_max)
		r->st.hooks_pending_max = r->nhookq;
	pthread_cond_signal(&r->hook_cv);
	return 0;
}

/*
 * The chunk retention takes now (an index in r->done), or -1. The oldest
 * shipped one (its hook succeeded, or there is no hook); an unshipped one
 * only when --max-total is passed and every shipped one is gone: *@forced
 * then. Never the chunk whose hook runs. Under r->mu.
 */
static long retention_victim(const struct evd_rot *r, int over_total, int *forced)
{
	size_t i;

	*forced = 0;
	for (i = 0; i < r->ndone; i++)
		if (r->done[i].seq != r->hooking && r->done[i].shipped)
			return (long)i;
	for (i = 0; over_total && i < r->ndone; i++)
		if (r->done[i].seq != r->hooking) {
			*forced = 1;
			return (long)i;
		}
	return -1;
}

/* Oldest complete chunks out while a limit is passed (see retention_victim()). */
static void retention(struct evd_rot *r)
{
	for (;;) {
		char from[DIR_LEN], to[DIR_LEN];
		uint64_t total = atomic_load(&r->current_bytes);
		struct done victim;
		size_t i;
		long v;
		int over_keep, over_total, forced;

		pthread_mutex_lock(&r->mu);
		for (i = 0; i < r->ndone; i++)
			total += r->done[i].bytes;
		over_keep = r->o.keep && r->ndone > r->o.keep;
		over_total = r->o.max_total && total > r->o.max_total;
		v = over_keep || over_total ? retention_victim(r, over_total, &forced) : -1;
		if (v < 0) {
			pthread_mutex_unlock(&r->mu);
			return;
		}
		victim = r->done[v];
		memmove(&r->done[v], &r->done[v + 1], (r->ndone - (size_t)v - 1) * sizeof(*r->done));
		r->ndone--;
		if (victim.hook_queued)
			r->st.hooks_skipped++;
		r->st.removed_unshipped += (uint64_t)forced;
		r->st.deleted++;
		pthread_mutex_unlock(&r->mu);
		/* Renamed first: nobody sees a half-removed chunk as complete. */
		snprintf(from, sizeof(from), "%s/%s", r->outdir, victim.name);
		snprintf(to, sizeof(to), "%s/" EVT_CHUNK_DEL_PREFIX "%llu", r->outdir,
			 (unsigned long long)victim.seq);
		if (rename(from, to) || remove_tree(to))
			fprintf(stderr, "evdrain: retention: cannot remove %s: %s\n", from, strerror(errno));
		else if (forced)
			fprintf(stderr, "evdrain: retention: removed %s before its hook succeeded (--max-total)\n",
				victim.name);
		else if (!r->o.quiet)
			fprintf(stderr, "evdrain: retention: removed %s\n", victim.name);
	}
}

/* The held chunk's hook is queued (the chunk after it has a packet, or evdrain stops). Under r->mu. */
static void release_held(struct evd_rot *r)
{
	if (r->held == NO_SEQ)
		return;
	push_hook(r, r->held);
	r->held = NO_SEQ;
	atomic_store(&r->held_waiting, 0);
}

/*
 * A completed chunk's hook, queued now or held until the chunk after it
 * shows it is not the last of its session (see held). Under r->mu.
 */
static void queue_hook(struct evd_rot *r, uint64_t seq, int final)
{
	release_held(r);
	if (final || atomic_load(&r->current_bytes)) {
		push_hook(r, seq);
		return;
	}
	r->held = seq;
	atomic_store(&r->held_waiting, 1);
}

/*
 * The session's last chunk closed empty (nothing recorded since the cut
 * before it): the held chunk is the last. Its summary.json says so now
 * ("final": false becomes "final": true in place: the file keeps its
 * owner and mode, and a reader sees either), then its hook is queued.
 */
static void held_is_final(struct evd_rot *r)
{
	char path[DIR_LEN + 32], buf[8192];
	uint64_t seq;
	size_t i;
	ssize_t n;
	char *at;
	int fd;

	pthread_mutex_lock(&r->mu);
	seq = r->held;
	for (i = 0; seq != NO_SEQ && i < r->ndone && r->done[i].seq != seq; i++)
		;
	if (seq == NO_SEQ || i == r->ndone) {
		release_held(r);
		pthread_mutex_unlock(&r->mu);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/" EVT_CHUNK_SUMMARY, r->outdir, r->done[i].name);
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n > 0) {
		buf[n] = '\0';
		at = strstr(buf, "\"final\": false");
		if (at && pwrite(fd, "true ", 5, at - buf + 9) == 5 && !fsync(fd))
			r->done[i].final = 1;
	}
	if (fd >= 0)
		close(fd);
	if (!r->done[i].final)
		fprintf(stderr, "evdrain: %s: cannot mark it the session's last chunk: %s\n", path,
			fd < 0 || n < 0 ? strerror(errno) : "no \"final\" in it");
	release_held(r);
	pthread_mutex_unlock(&r->mu);
}

/* A chunk left under its temporary name: said in one wording wherever it happens. */
static void left_incomplete(struct evd_rot *r, const char *dir, const char *why)
{
	fprintf(stderr, "evdrain: %s: %s; this chunk stays under its temporary name, not complete "
		"(its whole packets read with babeltrace2; the next evdrain in %s completes it)\n",
		dir, why, r->outdir);
	count_error(r);
}

/* The finisher's work on one closed chunk. */
static void complete_chunk(struct evd_rot *r, struct closed *c)
{
	char kdir[FILE_LEN], name[EVT_CHUNK_NAME_MAX], final[DIR_LEN];
	struct chunk_sum cs;
	struct done d = { 0 };
	int rc;

	snprintf(kdir, sizeof(kdir), "%s/kernel", c->dir);
	if (sync_files(kdir)) {
		char why[160];

		snprintf(why, sizeof(why), "fsync: %s", strerror(errno));
		left_incomplete(r, c->dir, why);
		return;
	}
	memset(&cs, 0, sizeof(cs));
	rc = stream_bytes(kdir) ? scan_chunk(r, c, kdir, &cs) : 1;
	if (rc == 1) {
		/* Nothing recorded in it: no chunk to keep (the last of the session: the one before is). */
		remove_tree(c->dir);
		free(cs.s);
		if (c->final && r->o.hook)
			held_is_final(r);
		return;
	}
	if (rc < 0) {
		left_incomplete(r, c->dir, cs.err);
		free(cs.s);
		return;
	}
	if (cs.err[0]) {
		fprintf(stderr, "evdrain: %s: %s (completed anyway: the events before it read)\n", c->dir, cs.err);
		count_error(r);
	}
	if (!cs.begin_ns) {
		cs.begin_ns = c->opened_ns;
		cs.end_ns = c->closed_ns;
	}
	evt_chunk_name(name, sizeof(name), cs.begin_ns, cs.end_ns, c->seq);
	cs.bytes = tree_bytes(c->dir);
	if (write_summary(r, c->dir, name, c, &cs)) {
		char why[160];

		snprintf(why, sizeof(why), "cannot write %s: %s", EVT_CHUNK_SUMMARY, strerror(errno));
		left_incomplete(r, c->dir, why);
		free(cs.s);
		return;
	}
	sync_dir(c->dir);
	snprintf(final, sizeof(final), "%s/%s", r->outdir, name);
	if (rename(c->dir, final)) {
		fprintf(stderr, "evdrain: cannot rename %s to %s: %s\n", c->dir, final, strerror(errno));
		count_error(r);
		free(cs.s);
		return;
	}
	sync_dir(r->outdir);
	d.seq = c->seq;
	d.bytes = tree_bytes(final);
	snprintf(d.name, sizeof(d.name), "%s", name);
	d.begin_ns = cs.begin_ns;
	d.end_ns = cs.end_ns;
	d.events = cs.events;
	d.discarded = cs.discarded;
	d.overwritten = cs.overwritten;
	d.lost_packets = cs.lost;
	d.hook_queued = r->o.hook != NULL;
	d.shipped = r->o.hook == NULL;
	d.final = c->final;
	pthread_mutex_lock(&r->mu);
	r->st.completed++;
	r->st.recovered += (uint64_t)c->recovered;
	r->st.events += cs.events;
	r->st.bytes += d.bytes;
	r->st.lost_packets += cs.lost;
	if (add_done(r, &d) == 0 && r->o.hook)
		queue_hook(r, d.seq, d.final);
	pthread_mutex_unlock(&r->mu);
	if (!r->o.quiet)
		fprintf(stderr, "evdrain: chunk %s: %llu events, %llu bytes%s\n", name,
			(unsigned long long)cs.events, (unsigned long long)d.bytes,
			c->recovered ? " (left in progress by an earlier evdrain, completed)" : "");
	free(cs.s);
}

static void *finisher_main(void *arg)
{
	struct evd_rot *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct closed *c;

		while (!r->queue && !r->stopping)
			pthread_cond_wait(&r->fin_cv, &r->mu);
		c = r->queue;
		if (!c)
			break;
		r->queue = c->next;
		if (!r->queue)
			r->queue_tail = &r->queue;
		pthread_mutex_unlock(&r->mu);
		complete_chunk(r, c);
		retention(r);
		free(c->counts);
		free(c);
		pthread_mutex_lock(&r->mu);
	}
	r->finisher_done = 1;
	pthread_cond_broadcast(&r->hook_cv);
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* ---- Hooks ---- */

static void set_env(char **env, size_t *n, const char *key, unsigned long long v, const char *s)
{
	char buf[DIR_LEN + 64];

	if (s)
		snprintf(buf, sizeof(buf), "%s=%s", key, s);
	else
		snprintf(buf, sizeof(buf), "%s=%llu", key, v);
	env[*n] = strdup(buf);
	if (env[*n])
		(*n)++;
}

/* The hook's exit status (as waitpid() gives it), or -1 when it could not be run. @attempt: 1, 2, ... */
static int run_hook(struct evd_rot *r, const struct done *d, unsigned int attempt)
{
	char path[DIR_LEN], b[48], e[48];
	char *argv[3], **env;
	size_t nenv = 0, i, n;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t dfl;
	int status = -1, killed = 0, spawn_err;
	uint64_t kill_at = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", r->outdir, d->name);
	for (n = 0; environ[n]; n++)
		;
	env = calloc(n + 16, sizeof(*env));
	if (!env)
		return -1;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "EVT_CHUNK", 9))
			env[nenv++] = strdup(environ[i]);
	evt_chunk_iso_time(b, sizeof(b), d->begin_ns, 1);
	evt_chunk_iso_time(e, sizeof(e), d->end_ns, 1);
	set_env(env, &nenv, "EVT_CHUNK", 0, path);
	set_env(env, &nenv, "EVT_CHUNK_NAME", 0, d->name);
	set_env(env, &nenv, "EVT_CHUNK_SEQ", d->seq, NULL);
	set_env(env, &nenv, "EVT_CHUNK_BEGIN", 0, b);
	set_env(env, &nenv, "EVT_CHUNK_END", 0, e);
	set_env(env, &nenv, "EVT_CHUNK_BEGIN_NS", d->begin_ns, NULL);
	set_env(env, &nenv, "EVT_CHUNK_END_NS", d->end_ns, NULL);
	set_env(env, &nenv, "EVT_CHUNK_BYTES", d->bytes, NULL);
	set_env(env, &nenv, "EVT_CHUNK_EVENTS", d->events, NULL);
	set_env(env, &nenv, "EVT_CHUNK_DISCARDED", d->discarded, NULL);
	set_env(env, &nenv, "EVT_CHUNK_OVERWRITTEN", d->overwritten, NULL);
	set_env(env, &nenv, "EVT_CHUNK_LOST_PACKETS", d->lost_packets, NULL);
	set_env(env, &nenv, "EVT_CHUNK_FINAL", (unsigned long long)d->final, NULL);
	set_env(env, &nenv, "EVT_CHUNK_ATTEMPT", attempt, NULL);
	argv[0] = (char *)r->o.hook;
	argv[1] = path;
	argv[2] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	/* evdrain ignores SIGPIPE; a hook's pipelines expect the default. */
	posix_spawnattr_init(&attr);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	spawn_err = posix_spawn(&pid, r->o.hook, &fa, &attr, argv, env);
	if (spawn_err) {
		fprintf(stderr, "evdrain: --on-chunk %s: cannot run it: %s\n", r->o.hook, strerror(spawn_err));
		pid = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	for (i = 0; i < nenv; i++)
		free(env[i]);
	free(env);
	while (pid > 0) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		uint64_t deadline;

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		pthread_mutex_lock(&r->mu);
		deadline = r->hook_deadline_ms;
		pthread_mutex_unlock(&r->mu);
		if (deadline && monotonic_ms() >= deadline && killed < 2) {
			if (!killed)
				fprintf(stderr, "evdrain: --on-chunk %s %s: still running as evdrain stops: killed\n",
					r->o.hook, path);
			if (!killed || monotonic_ms() >= kill_at) {
				kill(pid, killed ? SIGKILL : SIGTERM);
				kill_at = monotonic_ms() + 2000;
				killed++;
			}
		}
		usleep(20000);
	}
	return pid > 0 ? status : -1;
}

/* The hook of chunk @seq has succeeded: recorded in DIR/.hooked. */
static void note_hooked(const struct evd_rot *r, uint64_t seq)
{
	char path[DIR_LEN], line[24];
	int fd, n;

	snprintf(path, sizeof(path), "%s/" HOOKED_FILE, r->outdir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%llu\n", (unsigned long long)seq);
	if (write(fd, line, (size_t)n) != n)
		fprintf(stderr, "evdrain: %s: %s\n", path, strerror(errno));
	close(fd);
}

/*
 * At start, with a hook: the complete chunks whose hook never ran (an
 * evdrain killed before) are queued for it, oldest first; DIR/.hooked is
 * rewritten with the chunks still there.
 */
static void queue_unhooked(struct evd_rot *r)
{
	char path[DIR_LEN], tmp[DIR_LEN + 8];
	uint64_t *seen = NULL, v;
	size_t nseen = 0, cap = 0, i, j;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" HOOKED_FILE, r->outdir);
	f = fopen(path, "r");
	while (f && fscanf(f, "%llu", (unsigned long long *)&v) == 1) {
		if (nseen == cap) {
			uint64_t *m = realloc(seen, (cap = cap ? 2 * cap : 256) * sizeof(*m));

			if (!m)
				break;
			seen = m;
		}
		seen[nseen++] = v;
	}
	if (f)
		fclose(f);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	for (i = 0; i < r->ndone; i++) {
		for (j = 0; j < nseen && seen[j] != r->done[i].seq; j++)
			;
		if (j < nseen) {
			r->done[i].shipped = 1;
			if (f)
				fprintf(f, "%llu\n", (unsigned long long)r->done[i].seq);
		} else {
			r->done[i].hook_queued = 1;
			push_hook(r, r->done[i].seq);
		}
	}
	if (f && fclose(f) == 0)
		rename(tmp, path);
	free(seen);
}

/* A failed run of the hook, said. */
static void hook_failed(const struct evd_rot *r, const struct done *d, int status, unsigned int attempt)
{
	char when[64] = "";

	if (attempt > 1)
		snprintf(when, sizeof(when), " (run %u)", attempt);
	/* -1: run_hook() said why it could not start it. */
	if (status != -1 && WIFEXITED(status))
		fprintf(stderr, "evdrain: --on-chunk %s %s/%s: exit status %d%s\n", r->o.hook, r->outdir, d->name,
			WEXITSTATUS(status), when);
	else if (status != -1 && WIFSIGNALED(status))
		fprintf(stderr, "evdrain: --on-chunk %s %s/%s: killed by signal %d%s\n", r->o.hook, r->outdir,
			d->name, WTERMSIG(status), when);
}

/*
 * The pause before retry @attempt + 1: the backoff doubled per failure, at
 * most the maximum. 0 after it, -1 when evdrain's wait for hooks at exit
 * ran out meanwhile (no retry then).
 */
static int hook_backoff(struct evd_rot *r, unsigned int attempt)
{
	uint64_t ms = r->o.hook_backoff_ms, end;
	unsigned int i;

	for (i = 1; i < attempt && ms < r->o.hook_backoff_max_ms; i++)
		ms *= 2;
	if (ms > r->o.hook_backoff_max_ms)
		ms = r->o.hook_backoff_max_ms;
	end = monotonic_ms() + ms;
	for (;;) {
		uint64_t now = monotonic_ms(), deadline;

		pthread_mutex_lock(&r->mu);
		deadline = r->hook_deadline_ms;
		pthread_mutex_unlock(&r->mu);
		if (deadline && now >= deadline)
			return -1;
		if (now >= end)
			return 0;
		usleep(20000);
	}
}

/*
 * Chunk @d's hook, run again after a failure (--hook-retries, with
 * --hook-backoff pauses) while the chunk is there. 1 when it succeeded.
 * Called without r->mu.
 */
static int ship_chunk(struct evd_rot *r, struct done *d)
{
	unsigned int attempt;

	for (attempt = 1;; attempt++) {
		int status = run_hook(r, d, attempt), there;
		size_t i;

		pthread_mutex_lock(&r->mu);
		r->st.hooks_run++;
		r->st.hooks_retried += attempt > 1;
		if (status)
			r->st.hooks_failed++;
		for (i = 0; i < r->ndone && r->done[i].seq != d->seq; i++)
			;
		there = i < r->ndone;
		pthread_mutex_unlock(&r->mu);
		if (!status)
			return 1;
		hook_failed(r, d, status, attempt);
		/* Removed meanwhile (--max-total said so): nothing to ship any more. */
		if (!there)
			return 0;
		if (attempt > r->o.hook_retries)
			break;
		if (hook_backoff(r, attempt)) {
			fprintf(stderr, "evdrain: --on-chunk %s %s/%s: not run again as evdrain stops (the next "
				"evdrain in %s runs it)\n", r->o.hook, r->outdir, d->name, r->outdir);
			break;
		}
	}
	pthread_mutex_lock(&r->mu);
	r->st.hooks_given_up++;
	pthread_mutex_unlock(&r->mu);
	if (r->o.hook_retries && attempt > r->o.hook_retries)
		fprintf(stderr, "evdrain: --on-chunk %s %s/%s: failed %u times: given up for now (the next evdrain "
			"in %s runs it again)\n", r->o.hook, r->outdir, d->name, attempt, r->outdir);
	return 0;
}

static void *hooker_main(void *arg)
{
	struct evd_rot *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct done d;
		uint64_t seq;
		size_t i;
		int ok;

		while (!r->nhookq && !(r->stopping && !r->queue && r->finisher_done))
			pthread_cond_wait(&r->hook_cv, &r->mu);
		if (!r->nhookq)
			break;
		seq = r->hookq[0];
		memmove(r->hookq, r->hookq + 1, (r->nhookq - 1) * sizeof(*r->hookq));
		r->nhookq--;
		for (i = 0; i < r->ndone && r->done[i].seq != seq; i++)
			;
		if (i == r->ndone)
			continue;	/* removed by retention meanwhile (counted there) */
		if (r->hook_deadline_ms && monotonic_ms() >= r->hook_deadline_ms) {
			r->st.hooks_not_run++;
			r->done[i].hook_queued = 0;
			continue;
		}
		d = r->done[i];
		r->hooking = seq;
		pthread_mutex_unlock(&r->mu);
		ok = ship_chunk(r, &d);
		if (ok)
			note_hooked(r, seq);
		pthread_mutex_lock(&r->mu);
		r->hooking = NO_SEQ;
		for (i = 0; i < r->ndone; i++)
			if (r->done[i].seq == seq) {
				r->done[i].hook_queued = 0;
				r->done[i].shipped = ok;
			}
		pthread_mutex_unlock(&r->mu);
		/* Shipped: --keep may take it now. */
		if (ok)
			retention(r);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* ---- The run ---- */

/*
 * A chunk an earlier evdrain left in progress: its streams cut back to
 * their whole packets (it may have died inside one), then completed like
 * any other. One without metadata cannot be read: left as it is, said.
 */
static int recover_chunk(struct evd_rot *r, const char *name, uint64_t seq)
{
	char dir[DIR_LEN], kdir[FILE_LEN], path[FILE_LEN + 16];
	struct closed *c;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", r->outdir, name);
	snprintf(kdir, sizeof(kdir), "%s/kernel", dir);
	snprintf(path, sizeof(path), "%s/metadata", kdir);
	if (!stream_bytes(kdir)) {
		/* Killed before a packet went in (its metadata maybe half written): nothing to keep. */
		remove_tree(dir);
		return 0;
	}
	if (access(path, F_OK)) {
		fprintf(stderr, "evdrain: %s: a chunk left in progress without its metadata: not readable, "
			"left as it is\n", dir);
		return 0;
	}
	d = opendir(kdir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct stat st;
		int fd;

		if (!strncmp(de->d_name, "metadata", 8) || de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0) {
			off_t whole = evt_whole_packets(fd, st.st_size);

			char name[4 * sizeof(de->d_name) + 1];

			if (whole != st.st_size && ftruncate(fd, whole) == 0 && !r->o.quiet)
				fprintf(stderr, "evdrain: %s/%s: the packet an earlier evdrain was writing is "
					"cut off (%lld bytes)\n", kdir, evt_fmt_esc(name, sizeof(name), de->d_name),
					(long long)(st.st_size - whole));
		}
		close(fd);
	}
	closedir(d);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->seq = seq;
	c->recovered = 1;
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	c->opened_ns = c->closed_ns = realtime_ns();
	*r->queue_tail = c;
	r->queue_tail = &c->next;
	return 0;
}

/* A complete chunk's summary.json says it ended its session ("final": true). */
static int summary_says_final(const char *chunk)
{
	char path[DIR_LEN + 32], buf[8192];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" EVT_CHUNK_SUMMARY, chunk);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* evdrain writes it: this spelling, before the streams' list. */
	return strstr(buf, "\"final\": true") != NULL;
}

/* The complete chunks, the leftovers, the next sequence number. */
static int scan_outdir(struct evd_rot *r)
{
	struct dirent *de;
	DIR *d = opendir(r->outdir);
	uint64_t max_seq = 0;
	int any = 0, ret = 0;

	if (!d) {
		fprintf(stderr, "evdrain: cannot read %s: %s\n", r->outdir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) && !ret) {
		char path[DIR_LEN];
		uint64_t b, e, seq;

		snprintf(path, sizeof(path), "%s/%s", r->outdir, de->d_name);
		if (!strcmp(de->d_name, "kernel") || !strcmp(de->d_name, "metadata")) {
			fprintf(stderr, "evdrain: %s holds a trace recorded without rotation (%s): chunks go "
				"to a directory of their own\n", r->outdir, de->d_name);
			ret = -1;
		} else if (evt_chunk_parse(de->d_name, &b, &e, &seq) == 0) {
			struct done dn = { .seq = seq, .begin_ns = b, .end_ns = e, .shipped = r->o.hook == NULL };

			if (strlen(de->d_name) >= sizeof(dn.name))
				continue;
			memcpy(dn.name, de->d_name, strlen(de->d_name) + 1);
			dn.bytes = tree_bytes(path);
			dn.final = summary_says_final(path);
			if (add_done(r, &dn))
				ret = -1;
		} else if (evt_chunk_parse_hidden(de->d_name, EVT_CHUNK_DEL_PREFIX, &seq) == 0) {
			remove_tree(path);	/* retention was removing it */
			continue;
		} else if (evt_chunk_parse_hidden(de->d_name, EVT_CHUNK_TMP_PREFIX, &seq) == 0) {
			if (recover_chunk(r, de->d_name, seq))
				ret = -1;
		} else {
			continue;
		}
		if (seq > max_seq || !any)
			max_seq = seq;
		any = 1;
	}
	closedir(d);
	r->next_seq = any ? max_seq + 1 : 0;
	return ret;
}

int evd_rot_start(struct evd_rot **rp, const struct evd_rot_opts *o)
{
	struct evd_rot *r = calloc(1, sizeof(*r));

	*rp = NULL;
	if (!r) {
		fprintf(stderr, "evdrain: out of memory\n");
		return -1;
	}
	r->o = *o;
	if (strlen(o->outdir) >= sizeof(r->outdir)) {
		fprintf(stderr, "evdrain: %s: the directory name is too long for chunks (at most %d bytes)\n",
			o->outdir, OUTDIR_LEN - 1);
		free(r);
		return -1;
	}
	snprintf(r->outdir, sizeof(r->outdir), "%s", o->outdir);
	r->hooking = NO_SEQ;
	r->held = NO_SEQ;
	r->queue_tail = &r->queue;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->fin_cv, NULL);
	pthread_cond_init(&r->hook_cv, NULL);
	r->carry = calloc((size_t)EVT_NR_CHANNELS * EVT_MAX_CPUS, sizeof(*r->carry));
	if (!r->carry || scan_outdir(r)) {
		if (!r->carry)
			fprintf(stderr, "evdrain: out of memory\n");
		free(r->carry);
		free(r->done);
		while (r->queue) {
			struct closed *c = r->queue;

			r->queue = c->next;
			free(c);
		}
		free(r);
		return -1;
	}
	if (o->hook)
		queue_unhooked(r);
	if (pthread_create(&r->finisher, NULL, finisher_main, r)) {
		fprintf(stderr, "evdrain: cannot start the chunk finisher: %s\n", strerror(errno));
		free(r->carry);
		free(r->done);
		free(r);
		return -1;
	}
	if (pthread_create(&r->hooker, NULL, hooker_main, r)) {
		fprintf(stderr, "evdrain: cannot start the hook runner: %s\n", strerror(errno));
		pthread_mutex_lock(&r->mu);
		r->stopping = 1;
		pthread_cond_signal(&r->fin_cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->finisher, NULL);
		free(r->carry);
		free(r->done);
		free(r);
		return -1;
	}
	pthread_mutex_lock(&r->mu);
	if (r->queue)
		pthread_cond_signal(&r->fin_cv);
	pthread_mutex_unlock(&r->mu);
	*rp = r;
	return 0;
}

int evd_rot_open_chunk(struct evd_rot *r, char *kernel_dir, size_t len)
{
	struct closed *c = calloc(1, sizeof(*c));

	if (!c) {
		fprintf(stderr, "evdrain: out of memory\n");
		return -1;
	}
	c->seq = r->next_seq;
	c->opened_ns = realtime_ns();
	snprintf(c->dir, sizeof(c->dir), "%s/" EVT_CHUNK_TMP_PREFIX "%llu", r->outdir,
		 (unsigned long long)c->seq);
	if ((size_t)snprintf(kernel_dir, len, "%s/kernel", c->dir) >= len ||
	    mkdir_group(r, c->dir) || mkdir_group(r, kernel_dir)) {
		fprintf(stderr, "evdrain: cannot create %s: %s\n", kernel_dir, strerror(errno));
		rmdir(kernel_dir);
		rmdir(c->dir);
		free(c);
		return -1;
	}
	r->next_seq++;
	if (r->current) {
		free(r->next);
		r->next = c;
	} else {
		r->current = c;
	}
	return 0;
}

void evd_rot_close_final_chunk(struct evd_rot *r, const struct evd_rot_ring_count *counts, size_t n)
{
	if (r->current)
		r->current->final = 1;
	evd_rot_close_chunk(r, counts, n);
}

void evd_rot_close_chunk(struct evd_rot *r, const struct evd_rot_ring_count *counts, size_t n)
{
	struct closed *c = r->current;

	if (!c)
		return;
	r->current = r->next;
	r->next = NULL;
	c->closed_ns = realtime_ns();
	if (counts && n) {
		c->counts = malloc(n * sizeof(*counts));
		if (c->counts) {
			memcpy(c->counts, counts, n * sizeof(*counts));
			c->ncounts = n;
		}
	}
	atomic_store(&r->current_bytes, 0);
	pthread_mutex_lock(&r->mu);
	*r->queue_tail = c;
	r->queue_tail = &c->next;
	pthread_cond_signal(&r->fin_cv);
	pthread_mutex_unlock(&r->mu);
}

void evd_rot_abandon_chunk(struct evd_rot *r, const char *why)
{
	char kdir[FILE_LEN];

	if (!r->current)
		return;
	snprintf(kdir, sizeof(kdir), "%s/kernel", r->current->dir);
	if (!stream_bytes(kdir)) {
		/* Nothing recorded into it (the failure came first): no chunk at all. */
		remove_tree(r->current->dir);
	} else {
		left_incomplete(r, r->current->dir, why);
	}
	free(r->current);
	r->current = NULL;
}

void evd_rot_set_current_bytes(struct evd_rot *r, uint64_t bytes)
{
	atomic_store(&r->current_bytes, bytes);
	/* The chunk in progress has a packet: the one before it is not the session's last. */
	if (bytes && atomic_load(&r->held_waiting)) {
		pthread_mutex_lock(&r->mu);
		release_held(r);
		pthread_mutex_unlock(&r->mu);
	}
}

void evd_rot_stop(struct evd_rot *r, unsigned int hook_wait_s, struct evd_rot_stats *st)
{
	pthread_mutex_lock(&r->mu);
	r->stopping = 1;
	pthread_cond_signal(&r->fin_cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->finisher, NULL);
	pthread_mutex_lock(&r->mu);
	/* (a run that ended without its last chunk: a failed write, a failed start) */
	release_held(r);
	r->hook_deadline_ms = monotonic_ms() + (uint64_t)hook_wait_s * 1000;
	if (!r->hook_deadline_ms)
		r->hook_deadline_ms = 1;
	pthread_cond_broadcast(&r->hook_cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->hooker, NULL);
	*st = r->st;
	free(r->current);
	free(r->next);
	free(r->carry);
	free(r->done);
	free(r->hookq);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->fin_cv);
	pthread_cond_destroy(&r->hook_cv);
	free(r);
}
