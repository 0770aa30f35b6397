// SPDX-License-Identifier: GPL-2.0
/*
 * Saved results (Desnoyers, "Linux Trace Toolkit Requests Servicing
 * Schedulers", 2004, docs/references.md: precomputations "append data to the traces
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
 * The key hashes every file of the trace as the reader reads it (symbolic
 * links followed: path, device, inode, size, mtime and ctime in ns; dot
 * entries, such as the results themselves and chunks in progress, left
 * out): a changed or growing trace, a new chunk, a link pointed elsewhere,
 * a copy (cp -a keeps mtimes, not inodes or ctimes) gives another key and
 * the result is computed again. A file that is not a result (magic,
 * checksum, a payload its computation refuses, totals that do not add up)
 * is ignored with a warning: a result is never trusted on less.
 *
 * Who may read and write them (docs/design/reading.md, "Who may read what"): the
 * results directory is opened with O_NOFOLLOW | O_DIRECTORY and used only
 * when the user running owns it (root's is read too), files are created
 * and renamed inside it with openat/renameat (never through a link), and
 * their mode is the trace metadata's, less the umask, in the trace's group
 * (owner-only in the user's cache): never readable by more people than
 * the trace. The header is checked before the payload is read, and a file
 * larger than the trace could give is refused unread.
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
#include "engine/evt_engine_priv.h"
#include "util/evt_io.h"
#include "util/evt_safedir.h"

#define RES_MAGIC "EVTRES01"
#define RES_DIR ".evtrace-results"
#define RES_MAX_DEPTH 4			/* RUN/CHUNK/kernel/stream */

struct key_file {
	char *rel;
	uint64_t id[5];			/* device, inode, size, mtime, ctime (ns) */
};

struct key_walk {
	struct key_file *v;
	size_t n, cap;
	uint64_t bytes;			/* the files' sizes added up */
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
		/* Followed, as the reader follows them: a link pointed elsewhere is another trace. */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, sub) >= sizeof(path) || stat(path, &st))
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
		kw->v[kw->n].id[0] = (uint64_t)st.st_dev;
		kw->v[kw->n].id[1] = (uint64_t)st.st_ino;
		kw->v[kw->n].id[2] = (uint64_t)st.st_size;
		kw->v[kw->n].id[3] = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec;
		kw->v[kw->n].id[4] = (uint64_t)st.st_ctim.tv_sec * 1000000000ULL + (uint64_t)st.st_ctim.tv_nsec;
		kw->bytes += (uint64_t)st.st_size;
		kw->n++;
	}
	closedir(d);
}

static int by_rel(const void *a, const void *b)
{
	return strcmp(((const struct key_file *)a)->rel, ((const struct key_file *)b)->rel);
}

int evt_results_key(struct evt_etrace *t, char *err, size_t errlen)
{
	char *first = evt_trace_run_first(t->path);
	char *dir = first ? first : evt_trace_dir(t->path);
	struct evt_metadata md;
	struct stat mst;
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
	if (!fstat(fd, &mst)) {
		t->mode = mst.st_mode & 0777;
		t->gid = mst.st_gid;
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
	t->key[0] = evt_fnv64(0xcbf29ce484222325ULL, t->uuid, sizeof(t->uuid));
	t->key[1] = evt_fnv64(0x84222325cbf29ce4ULL, t->uuid, sizeof(t->uuid));
	for (i = 0; i < kw.n; i++) {
		for (int k = 0; k < 2; k++) {
			t->key[k] = evt_fnv64(t->key[k], kw.v[i].rel, strlen(kw.v[i].rel) + 1);
			t->key[k] = evt_fnv64(t->key[k], kw.v[i].id, sizeof(kw.v[i].id));
		}
	}
	t->bytes = kw.bytes;
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

/*
 * The directory that holds @t's results, opened: beside the trace
 * (TRACE/.evtrace-results, its mode the trace's) or in the user's cache
 * (CACHE/evtrace/results/HASH, the user's alone). An fd, or -1 with errno.
 */
static int res_dir(const struct evt_etrace *t, int in_cache, int write, char *where, size_t wlen)
{
	if (!in_cache) {
		snprintf(where, wlen, "%s/" RES_DIR, t->path);
		return evt_beside_subdir(t->path, RES_DIR, t->mode, (gid_t)t->gid, write);
	}
	return evt_cache_subdir(t->eng->o.cache_dir, "results", t->path, write, where, wlen);
}

static void reject(struct evt_etrace *t, const char *path, const char *name, const char *why)
{
	char msg[4600];

	snprintf(msg, sizeof(msg), "%s: not a saved result of %s (%s): ignored, computing it again",
		 path, name, why);
	evt_engine_warn(t->eng, msg);
	t->eng->stats.results_rejected++;
}

/* The fixed part before the payload: magic, version, name length. */
#define RES_HEAD (8 + 4 + 4)

/* 1: loaded, 0: none there or another trace's (stale), -1: rejected. */
static int load_one(struct evt_etrace *t, struct comp_slot *s, int dfd, const char *path)
{
	const struct evt_computation *c = s->c;
	/* What a result can be, at most: far more than any computation saves from a trace's bytes. */
	const uint64_t max = (64ULL << 20) + 4 * t->bytes;
	struct evt_rbuf r;
	struct stat st;
	uint8_t *buf = NULL, head[RES_HEAD + 255 + 16 + 16 + 8];
	char magic[8], name[256];
	uint32_t version, nlen, crc;
	uint8_t uuid[16];
	uint64_t key[2], plen;
	size_t hlen;
	void *res;
	int fd, ret = -1;

	fd = openat(dfd, strrchr(path, '/') + 1, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < RES_HEAD + 16 + 16 + 8 + 4) {
		close(fd);
		reject(t, path, c->name, "not a results file");
		return -1;
	}
	/* The header first: a file that is no result, or another trace's, is not read further. */
	r = (struct evt_rbuf){ .p = head, .n = (size_t)pread(fd, head, sizeof(head), 0) };
	if (r.n > sizeof(head) || evt_rbuf_get(&r, magic, 8) || memcmp(magic, RES_MAGIC, 8)) {
		close(fd);
		reject(t, path, c->name, "bad magic");
		return -1;
	}
	if (evt_rbuf_get(&r, &version, 4) || evt_rbuf_get(&r, &nlen, 4) || nlen >= sizeof(name) ||
	    evt_rbuf_get(&r, name, nlen) || evt_rbuf_get(&r, uuid, 16) || evt_rbuf_get(&r, key, 16) ||
	    evt_rbuf_u64(&r, &plen)) {
		close(fd);
		reject(t, path, c->name, "bad header");
		return -1;
	}
	name[nlen] = 0;
	hlen = r.off;
	if (strcmp(name, c->name)) {
		close(fd);
		reject(t, path, c->name, "another computation's");
		return -1;
	}
	/* Another version, or the trace changed since: computed again, no fuss. */
	if (version != c->version || memcmp(uuid, t->uuid, 16) || key[0] != t->key[0] || key[1] != t->key[1]) {
		close(fd);
		return 0;
	}
	if (plen > max || (uint64_t)st.st_size != hlen + plen + 4) {
		close(fd);
		reject(t, path, c->name, plen > max ? "larger than this trace's result can be" : "bad header");
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
	memcpy(&crc, buf + hlen + plen, 4);
	if (memcmp(buf, head, hlen) || crc != (uint32_t)crc32_z(0, buf, hlen + plen)) {
		reject(t, path, c->name, "checksum mismatch");
		goto out;
	}
	res = c->create(t);
	if (!res)
		goto out;
	if (c->load(res, buf + hlen, (size_t)plen)) {
		c->destroy(res);
		reject(t, path, c->name, "its contents do not hold together");
		goto out;
	}
	s->result = res;
	s->ready = 1;
	s->loaded = 1;
	free(s->loaded_from);
	s->loaded_from = strdup(path);
	t->eng->stats.results_loaded++;
	ret = 1;
out:
	free(buf);
	return ret;
}

void evt_results_try_load(struct evt_etrace *t, struct comp_slot *s)
{
	char dir[4096], path[4400];
	int in_cache, fd, r;

	if (t->eng->o.no_saved_results || !s->c->load || s->ready || s->in_progress)
		return;
	for (in_cache = 0; in_cache < 2; in_cache++) {
		fd = res_dir(t, in_cache, 0, dir, sizeof(dir));
		if (fd < 0) {
			/*
			 * Never read: a link where the directory should be (said: someone
			 * set a trap), or another user's (not said: reading a colleague's
			 * trace is ordinary; this user's own results go to its cache).
			 */
			if (errno == ELOOP || errno == ENOTDIR) {
				snprintf(path, sizeof(path), "%s: a symbolic link or not a directory, not the results "
					 "directory: not read", dir);
				evt_engine_warn(t->eng, path);
			}
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s.res", dir, s->c->name);
		r = load_one(t, s, fd, path);
		close(fd);
		if (r == 1)
			return;
	}
}

void evt_results_save(struct evt_etrace *t, struct comp_slot *s)
{
	const struct evt_computation *c = s->c;
	struct evt_buf b = { 0 };
	uint32_t version = c->version, nlen = (uint32_t)strlen(c->name), crc;
	size_t plen_at;
	uint64_t plen = 0;
	char dir[4096], where[4096] = "", name[300], msg[4600];
	int in_cache, saved = 0, err = 0;

	/* A trace being written changes under the result; a pass cut by an error is not the trace's. */
	if (t->eng->o.no_saved_results || !c->save || t->growing || t->bg.error)
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
	snprintf(name, sizeof(name), "%s.res", c->name);
	for (in_cache = 0; in_cache < 2 && !saved; in_cache++) {
		/* Beside the trace: its mode, less the umask, in its group; in the cache: the user's alone. */
		const mode_t mode = in_cache ? (mode_t)(t->mode & 0600) | 0600 : (mode_t)(t->mode & 0666) | 0600;
		int fd = res_dir(t, in_cache, 1, dir, sizeof(dir));

		if (fd >= 0 && !evt_safe_write_at(fd, name, b.p, b.n, in_cache ? mode & 0600 : mode,
					   in_cache ? (gid_t)-1 : (gid_t)t->gid))
			saved = 1;
		else if (!err)
			err = errno, snprintf(where, sizeof(where), "%s", dir);
		if (fd >= 0)
			close(fd);
	}
	if (saved) {
		t->eng->stats.results_saved++;
	} else {
		snprintf(msg, sizeof(msg), "%s: cannot save the result of %s (%s%s): it will be computed again next time",
			 where, c->name, strerror(err ? err : ENOENT),
			 err == EPERM || err == ELOOP ? ": a link, or another user's directory" : "");
		evt_engine_warn(t->eng, msg);
	}
	evt_buf_free(&b);
}
