// SPDX-License-Identifier: GPL-2.0
/*
 * Rotation's --on-chunk hooks: the queue of completed chunks waiting for
 * their hook (the session's last one held until it is known to be last),
 * the hook thread that runs them one at a time and in order, with retries
 * after a doubling pause, and DIR/.hooked, the record of the chunks
 * shipped. See evd_rotate.h and evd_rot_priv.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "evd_rot_priv.h"

extern char **environ;

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

void evd_hook_release_held(struct evd_rot *r)
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
void evd_hook_queue(struct evd_rot *r, uint64_t seq, int final)
{
	evd_hook_release_held(r);
	if (final || atomic_load(&r->current_bytes)) {
		push_hook(r, seq);
		return;
	}
	r->held = seq;
	atomic_store(&r->held_waiting, 1);
}

/*
 * The session's last chunk closed empty (nothing recorded since the cut
 * before it): the held chunk is the last. Its summary.json says so now,
 * then its hook is queued.
 */
void evd_hook_held_is_final(struct evd_rot *r)
{
	char dir[DIR_LEN];
	uint64_t seq;
	size_t i;

	pthread_mutex_lock(&r->mu);
	seq = r->held;
	for (i = 0; seq != NO_SEQ && i < r->ndone && r->done[i].seq != seq; i++)
		;
	if (seq != NO_SEQ && i < r->ndone) {
		snprintf(dir, sizeof(dir), "%s/%s", r->outdir, r->done[i].name);
		if (!evd_sum_mark_final(dir))
			r->done[i].final = 1;
	}
	evd_hook_release_held(r);
	pthread_mutex_unlock(&r->mu);
}

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
void evd_hook_queue_unhooked(struct evd_rot *r)
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

void *evd_hook_main(void *arg)
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
			evd_rot_retention(r);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

