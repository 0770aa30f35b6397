// SPDX-License-Identifier: GPL-2.0
/*
 * Saved results (seed 001: precomputations "append data to the traces
 * attributes"; here they also outlive the process): a computation's result
 * is written beside the trace, TRACE/.evtrace-results/NAME.res, or under
 * the user's cache directory when the trace's is not writable. A file is
 * used only when everything matches:
 *
 *   "EVTRES01", u32 version, u32 name length, name,
 *   the trace's UUID (16 bytes), its key (2 x u64),
 *   u64 payload length, payload (the computation's save()),
 *   u32 CRC-32 (zlib) of all the bytes before it.
 *
 * The key hashes every file of the trace (path, size, mtime in ns; dot
 * entries, such as the results themselves and chunks in progress, left
 * out): a changed or growing trace, a new chunk, gives another key and the
 * result is computed again. A file that is not a result (magic, checksum,
 * a payload its computation refuses) is ignored with a warning: a result
 * is never trusted on less.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "evt_engine_priv.h"
#include "evt_io.h"

#define RES_MAGIC "EVTRES01"
#define RES_DIR ".evtrace-results"
#define RES_MAX_DEPTH 4			/* RUN/CHUNK/kernel/stream */

struct key_file {
	char *rel;
	uint64_t size, mtime_ns;
};

struct key_walk {
	struct key_file *v;
	size_t n, cap;
	int oom;
};

static void walk(struct key_walk *kw, const char *root, const char *rel, int depth)
{
	char path[4096];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char sub[4096];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name) >= sizeof(sub))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, sub) >= sizeof(path) || lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < RES_MAX_DEPTH)
				walk(kw, root, sub, depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		if (kw->n == kw->cap) {
			size_t cap = kw->cap ? 2 * kw->cap : 64;
			struct key_file *v = realloc(kw->v, cap * sizeof(*v));

			if (!v) {
				kw->oom = 1;
				break;
			}
			kw->v = v;
			kw->cap = cap;
		}
		kw->v[kw->n].rel = strdup(sub);
		if (!kw->v[kw->n].rel) {
			kw->oom = 1;
			break;
		}
		kw->v[kw->n].size = (uint64_t)st.st_size;
		kw->v[kw->n].mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec;
		kw->n++;
	}
	closedir(d);
}

static int by_rel(const void *a, const void *b)
{
	return strcmp(((const struct key_file *)a)->rel, ((const struct key_file *)b)->rel);
}

/* FNV-1a, 64 bits, from @h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int evt_results_key(struct evt_etrace *t, char *err, size_t errlen)
{
	char *first = evt_trace_run_first(t->path);
	char *dir = first ? first : evt_trace_dir(t->path);
	struct evt_metadata md;
	struct key_walk kw = { 0 };
	char *text = NULL, mpath[4096];
	size_t len, i;
	int fd, ret = -1;

	if (!dir) {
		evt_errf(err, errlen, "%s: out of memory", t->path);
		return -1;
	}
	/* The metadata alone: its UUID and clock offset, without mapping a stream. */
	snprintf(mpath, sizeof(mpath), "%s/metadata", dir);
	fd = open(mpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		evt_errf(err, errlen, "%s: not a trace (%s: %s)", t->path, mpath, strerror(errno));
		goto out;
	}
	if (evt_metadata_read(fd, &text, &len, err, errlen)) {
		close(fd);
		goto out;
	}
	close(fd);
	if (evt_metadata_parse(text, len, &md, err, errlen))
		goto out;
	memcpy(t->uuid, md.uuid, sizeof(t->uuid));
	t->offset_ns = evt_metadata_offset_ns(&md);
	evt_metadata_free(&md);
	t->growing = evt_trace_writer(dir) != 0;
	/* The files' key is only for saved results: without them (evcat), no walk. */
	if (t->eng->o.no_saved_results) {
		ret = 0;
		goto out;
	}

	walk(&kw, t->path, "", 0);
	if (kw.oom) {
		evt_errf(err, errlen, "%s: out of memory", t->path);
		goto free_walk;
	}
	qsort(kw.v, kw.n, sizeof(*kw.v), by_rel);
	t->key[0] = fnv(0xcbf29ce484222325ULL, t->uuid, sizeof(t->uuid));
	t->key[1] = fnv(0x84222325cbf29ce4ULL, t->uuid, sizeof(t->uuid));
	for (i = 0; i < kw.n; i++) {
		uint64_t sz[2] = { kw.v[i].size, kw.v[i].mtime_ns };

		for (int k = 0; k < 2; k++) {
			t->key[k] = fnv(t->key[k], kw.v[i].rel, strlen(kw.v[i].rel) + 1);
			t->key[k] = fnv(t->key[k], sz, sizeof(sz));
		}
	}
	ret = 0;
free_walk:
	for (i = 0; i < kw.n; i++)
		free(kw.v[i].rel);
	free(kw.v);
out:
	free(text);
	free(dir);
	return ret;
}

/* The cache directory for @t's results (when its own is not writable), into @buf. */
static int cache_dir(const struct evt_etrace *t, char *buf, size_t len)
{
	const char *base = t->eng->o.cache_dir, *home;
	char tmp[4096];

	if (!base) {
		base = getenv("XDG_CACHE_HOME");
		if (!base || !*base) {
			home = getenv("HOME");
			if (!home || !*home)
				return -1;
			snprintf(tmp, sizeof(tmp), "%s/.cache/evtrace", home);
			base = tmp;
		} else {
			snprintf(tmp, sizeof(tmp), "%s/evtrace", base);
			base = tmp;
		}
	}
	if ((size_t)snprintf(buf, len, "%s/results/%016llx", base,
			     (unsigned long long)fnv(0xcbf29ce484222325ULL, t->path, strlen(t->path))) >= len)
		return -1;
	return 0;
}

static int res_path(const struct evt_etrace *t, int in_cache, const char *name, char *buf, size_t len)
{
	char dir[4096];

	if (in_cache) {
		if (cache_dir(t, dir, sizeof(dir)))
			return -1;
	} else if ((size_t)snprintf(dir, sizeof(dir), "%s/" RES_DIR, t->path) >= sizeof(dir)) {
		return -1;
	}
	return (size_t)snprintf(buf, len, "%s/%s.res", dir, name) >= len ? -1 : 0;
}

static void reject(struct evt_etrace *t, const char *path, const char *name, const char *why)
{
	char msg[4600];

	snprintf(msg, sizeof(msg), "%s: not a saved result of %s (%s): ignored, computing it again",
		 path, name, why);
	evt_engine_warn(t->eng, msg);
	t->eng->stats.results_rejected++;
}

/* 1: loaded, 0: none there or another trace's (stale), -1: rejected. */
static int load_one(struct evt_etrace *t, struct comp_slot *s, const char *path)
{
	const struct evt_computation *c = s->c;
	struct evt_rbuf r;
	struct stat st;
	uint8_t *buf;
	char magic[8], name[256];
	uint32_t version, nlen, crc;
	uint8_t uuid[16];
	uint64_t key[2], plen;
	void *res;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 8 + 8 + 16 + 16 + 8 + 4 ||
	    (uint64_t)st.st_size > (1ULL << 40)) {
		close(fd);
		reject(t, path, c->name, "not a results file");
		return -1;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf || pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		close(fd);
		reject(t, path, c->name, buf ? "short read" : "out of memory");
		return -1;
	}
	close(fd);
	r = (struct evt_rbuf){ .p = buf, .n = (size_t)st.st_size - 4 };
	memcpy(&crc, buf + r.n, 4);
	if (evt_rbuf_get(&r, magic, 8) || memcmp(magic, RES_MAGIC, 8)) {
		reject(t, path, c->name, "bad magic");
		goto out;
	}
	if (crc != (uint32_t)crc32_z(0, buf, r.n)) {
		reject(t, path, c->name, "checksum mismatch");
		goto out;
	}
	if (evt_rbuf_get(&r, &version, 4) || evt_rbuf_get(&r, &nlen, 4) || nlen >= sizeof(name) ||
	    evt_rbuf_get(&r, name, nlen)) {
		reject(t, path, c->name, "bad header");
		goto out;
	}
	name[nlen] = 0;
	if (strcmp(name, c->name)) {
		reject(t, path, c->name, "another computation's");
		goto out;
	}
	if (evt_rbuf_get(&r, uuid, 16) || evt_rbuf_get(&r, key, 16) || evt_rbuf_u64(&r, &plen) ||
	    plen != r.n - r.off) {
		reject(t, path, c->name, "bad header");
		goto out;
	}
	/* Another version, or the trace changed since: computed again, no fuss. */
	if (version != c->version || memcmp(uuid, t->uuid, 16) || key[0] != t->key[0] || key[1] != t->key[1]) {
		ret = 0;
		goto out;
	}
	res = c->create(t);
	if (!res)
		goto out;
	if (c->load(res, r.p + r.off, (size_t)plen)) {
		c->destroy(res);
		reject(t, path, c->name, "its contents do not hold together");
		goto out;
	}
	s->result = res;
	s->ready = 1;
	s->loaded = 1;
	t->eng->stats.results_loaded++;
	ret = 1;
out:
	free(buf);
	return ret;
}

void evt_results_try_load(struct evt_etrace *t, struct comp_slot *s)
{
	char path[4200];
	int in_cache;

	if (t->eng->o.no_saved_results || !s->c->load || s->ready || s->in_progress)
		return;
	for (in_cache = 0; in_cache < 2; in_cache++)
		if (!res_path(t, in_cache, s->c->name, path, sizeof(path)) && load_one(t, s, path) == 1)
			return;
}

static int mkdirs(const char *dir)
{
	char p[4096];
	size_t i;

	if ((size_t)snprintf(p, sizeof(p), "%s", dir) >= sizeof(p))
		return -1;
	for (i = 1; p[i]; i++)
		if (p[i] == '/') {
			p[i] = 0;
			if (mkdir(p, 0755) && errno != EEXIST)
				return -1;
			p[i] = '/';
		}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* Write @b atomically as @path (its directory made): 0 or -1 with errno. */
static int write_file(const char *path, const struct evt_buf *b)
{
	char dir[4200], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = 0;
	if (mkdirs(dir))
		return -1;
	return evt_write_file_atomic(path, b->p, b->n, 0644, 0);
}

void evt_results_save(struct evt_etrace *t, struct comp_slot *s)
{
	const struct evt_computation *c = s->c;
	struct evt_buf b = { 0 };
	uint32_t version = c->version, nlen = (uint32_t)strlen(c->name), crc;
	size_t plen_at;
	uint64_t plen = 0;
	char path[4200], msg[4600];
	int in_cache, saved = 0, err = 0;

	/* A trace being written changes under the result; a pass cut by an error is not the trace's. */
	if (t->eng->o.no_saved_results || !c->save || t->growing || t->bg_error)
		return;
	evt_buf_put(&b, RES_MAGIC, 8);
	evt_buf_put(&b, &version, 4);
	evt_buf_put(&b, &nlen, 4);
	evt_buf_put(&b, c->name, nlen);
	evt_buf_put(&b, t->uuid, 16);
	evt_buf_put(&b, t->key, 16);
	plen_at = b.n;
	evt_buf_u64(&b, 0);
	if (c->save(s->result, &b) || b.oom) {
		evt_buf_free(&b);
		return;
	}
	plen = b.n - plen_at - 8;
	memcpy(b.p + plen_at, &plen, 8);
	crc = (uint32_t)crc32_z(0, b.p, b.n);
	if (evt_buf_put(&b, &crc, 4)) {
		evt_buf_free(&b);
		return;
	}
	for (in_cache = 0; in_cache < 2 && !saved; in_cache++) {
		if (res_path(t, in_cache, c->name, path, sizeof(path)))
			continue;
		if (!write_file(path, &b))
			saved = 1;
		else if (!err)
			err = errno;
	}
	if (saved) {
		t->eng->stats.results_saved++;
	} else {
		snprintf(msg, sizeof(msg), "%s: cannot save the result of %s (%s): it will be computed again next time",
			 t->path, c->name, strerror(err ? err : ENOENT));
		evt_engine_warn(t->eng, msg);
	}
	evt_buf_free(&b);
}
