// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols for kernel stacks: see evt_symbols.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "format/evt_symbols.h"
#include "ctf/evt_trace.h"

/* The largest kallsyms evdrain writes is a few MB: anything far beyond is not one. */
#define SYMBOLS_MAX_BYTES (256u << 20)
/* A function's end is the next one's start; the last one's is taken this far. */
#define LAST_FUNCTION_MAX 0x10000

struct sym {
	uint64_t addr;
	uint32_t name, mod;	/* offsets in pool; mod 0: the kernel's */
};

struct evt_symbols {
	struct sym *v;
	size_t n;
	char *pool;		/* the file's text, its separators cut to NULs ("" at 0) */
	size_t pool_len;
};

const char *evt_symbols_path(const char *kdir, char *buf, size_t len)
{
	const char *slash = strrchr(kdir, '/');
	size_t parent = slash ? (size_t)(slash - kdir) : 0;

	/* TRACE/kernel -> TRACE/symbols/kallsyms (beside kernel/: babeltrace warns about directories in it). */
	if (slash && !strcmp(slash, "/kernel"))
		snprintf(buf, len, "%.*s/symbols/kallsyms", (int)parent, kdir);
	else
		snprintf(buf, len, "%s/symbols/kallsyms", kdir);
	return buf;
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct evt_symbols *evt_symbols_load(const char *path, char *err, size_t errlen)
{
	struct evt_symbols *s = calloc(1, sizeof(*s));
	size_t cap = 0, n = 0;
	char *p, *line, *next;
	struct stat st;
	FILE *f = NULL;
	long size;

	if (!s)
		goto nomem;
	f = fopen(path, "r");
	if (!f || fstat(fileno(f), &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)SYMBOLS_MAX_BYTES) {
		snprintf(err, errlen, "%s: not a kallsyms file", path);
		goto fail;
	}
	size = (long)st.st_size;
	s->pool = malloc((size_t)size + 2);
	if (!s->pool)
		goto nomem;
	s->pool[0] = '\0';
	if (fread(s->pool + 1, 1, (size_t)size, f) != (size_t)size) {
		snprintf(err, errlen, "%s: cut while read", path);
		goto fail;
	}
	s->pool[size + 1] = '\0';
	s->pool_len = (size_t)size + 2;
	/* "ADDR TYPE NAME[\t[MODULE]]" per line; functions only (t, T, w, W). */
	for (line = s->pool + 1; line < s->pool + size + 1; line = next) {
		char *type, *name, *mod = NULL, *end;
		unsigned long long addr;

		next = strchr(line, '\n');
		next = next ? next + 1 : s->pool + size + 1;
		if (next[-1] == '\n')
			next[-1] = '\0';
		errno = 0;
		addr = strtoull(line, &end, 16);
		if (errno || end == line || *end != ' ')
			continue;
		type = end + 1;
		if (!*type || !strchr("tTwW", *type) || type[1] != ' ')
			continue;
		name = type + 2;
		if ((p = strchr(name, '\t'))) {
			*p = '\0';
			mod = p + 1;
			if (*mod == '[' && (p = strchr(mod, ']'))) {
				*p = '\0';
				mod++;
			}
		}
		if (!*name || !addr)
			continue;
		if (n == cap) {
			struct sym *v = realloc(s->v, (cap = cap ? cap * 2 : 65536) * sizeof(*v));

			if (!v)
				goto nomem;
			s->v = v;
		}
		s->v[n].addr = addr;
		s->v[n].name = (uint32_t)(name - s->pool);
		s->v[n].mod = mod ? (uint32_t)(mod - s->pool) : 0;
		n++;
	}
	fclose(f);
	f = NULL;
	if (!n) {
		snprintf(err, errlen, "%s: no function with an address in it (kallsyms read without the right to see them?)",
			 path);
		goto fail;
	}
	qsort(s->v, n, sizeof(*s->v), by_addr);
	s->n = n;
	return s;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	if (f)
		fclose(f);
	evt_symbols_free(s);
	return NULL;
}

/* Add @b's functions to @a's (@b freed): those of modules loaded or unloaded while tracing. */
static struct evt_symbols *merge(struct evt_symbols *a, struct evt_symbols *b)
{
	size_t off = 0, i;
	struct sym *v;
	char *pool;

	if (!a || !b) {
		evt_symbols_free(b);
		return a;
	}
	/* The pools joined: b's offsets move by a's size. */
	off = a->pool_len;
	pool = malloc(off + b->pool_len);
	v = malloc((a->n + b->n) * sizeof(*v));
	if (!pool || !v) {
		free(pool);
		free(v);
		evt_symbols_free(b);
		return a;
	}
	memcpy(pool, a->pool, off);
	memcpy(pool + off, b->pool, b->pool_len);
	memcpy(v, a->v, a->n * sizeof(*v));
	for (i = 0; i < b->n; i++) {
		v[a->n + i] = b->v[i];
		v[a->n + i].name += (uint32_t)off;
		if (v[a->n + i].mod)
			v[a->n + i].mod += (uint32_t)off;
	}
	free(a->pool);
	free(a->v);
	a->pool = pool;
	a->pool_len = off + b->pool_len;
	a->v = v;
	a->n += b->n;
	qsort(a->v, a->n, sizeof(*a->v), by_addr);
	evt_symbols_free(b);
	return a;
}

/* A kernel directory's symbols: of its start, with those of its end. */
static struct evt_symbols *load_dir(const char *kdir, char *err, size_t errlen)
{
	char path[4200], end[4300];
	struct evt_symbols *s = evt_symbols_load(evt_symbols_path(kdir, path, sizeof(path)), err, errlen);
	char err2[256];
	int saved = errno;

	snprintf(end, sizeof(end), "%s-end", path);
	if (!s) {
		s = evt_symbols_load(end, err2, sizeof(err2));
		errno = s ? 0 : saved;
		return s;
	}
	return merge(s, evt_symbols_load(end, err2, sizeof(err2)));
}

struct evt_symbols *evt_symbols_of_trace(const struct evt_trace *t, char *err, size_t errlen)
{
	unsigned int i;

	if (!t->nr_chunks)
		return load_dir(t->dir, err, errlen);
	for (i = t->nr_chunks; i-- > 0;) {
		struct evt_symbols *s = load_dir(t->chunks[i].dir, err, errlen);

		if (s || errno != ENOENT || !i)
			return s;
	}
	return NULL;
}

void evt_symbols_free(struct evt_symbols *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->pool);
	free(s);
}

size_t evt_symbols_count(const struct evt_symbols *s)
{
	return s ? s->n : 0;
}

size_t evt_symbols_name(const struct evt_symbols *s, uint64_t addr, int with_offset, char *buf, size_t len)
{
	size_t lo = 0, hi = s ? s->n : 0;
	const struct sym *f;
	int n;

	/* The last function that starts at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || (lo == s->n && addr - s->v[lo - 1].addr >= LAST_FUNCTION_MAX)) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return 0;
	}
	f = &s->v[lo - 1];
	if (with_offset)
		n = snprintf(buf, len, "%s+0x%llx%s%s%s", s->pool + f->name, (unsigned long long)(addr - f->addr),
			     f->mod ? " [" : "", s->pool + f->mod, f->mod ? "]" : "");
	else
		n = snprintf(buf, len, "%s%s%s%s", s->pool + f->name, f->mod ? " [" : "", s->pool + f->mod,
			     f->mod ? "]" : "");
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}
