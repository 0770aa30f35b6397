// SPDX-License-Identifier: GPL-2.0
/* evdrain's rotation: chunks, the cut, their completion, recovery (retention: evd_retention.c). See evd_rotate.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "evd_rot_priv.h"
#include "consumer/evt_consumer.h"
#include "format/evt_format.h"
#include "util/evt_io.h"

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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
	rc = stream_bytes(kdir) ? evd_sum_scan(r, c, kdir, &cs) : 1;
	if (rc == 1) {
		/* Nothing recorded in it: no chunk to keep (the last of the session: the one before is). */
		evd_remove_tree(c->dir);
		free(cs.s);
		if (c->final && r->o.hook)
			evd_hook_held_is_final(r);
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
	if (evd_sum_write(r, c->dir, name, c, &cs)) {
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
		evd_hook_queue(r, d.seq, d.final);
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
		evd_rot_retention(r);
		free(c->counts);
		free(c);
		pthread_mutex_lock(&r->mu);
	}
	r->finisher_done = 1;
	pthread_cond_broadcast(&r->hook_cv);
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
		evd_remove_tree(dir);
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
			dn.final = evd_sum_says_final(path);
			if (add_done(r, &dn))
				ret = -1;
		} else if (evt_chunk_parse_hidden(de->d_name, EVT_CHUNK_DEL_PREFIX, &seq) == 0) {
			evd_remove_tree(path);	/* retention was removing it */
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
		evd_hook_queue_unhooked(r);
	if (pthread_create(&r->finisher, NULL, finisher_main, r)) {
		fprintf(stderr, "evdrain: cannot start the chunk finisher: %s\n", strerror(errno));
		free(r->carry);
		free(r->done);
		free(r);
		return -1;
	}
	if (pthread_create(&r->hooker, NULL, evd_hook_main, r)) {
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
		evd_remove_tree(r->current->dir);
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
		evd_hook_release_held(r);
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
	evd_hook_release_held(r);
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

