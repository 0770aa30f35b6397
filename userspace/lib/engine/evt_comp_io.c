// SPDX-License-Identifier: GPL-2.0
/*
 * The "io" computation: see evt_comp_io.h. One file over 900 lines: its
 * hooks, its look-ups (by hash: evt_idxmap) and its saved form all work on
 * the private state below and the look-ups' keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <evtrace/limits.h>
#include "engine/evt_comp_io.h"
#include "engine/evt_comp_util.h"
#include "engine/evt_idxmap.h"
#include "ctf/evt_decode.h"

#define IO_MAGIC 0x4f495345u		/* "ESIO" */
#define IO_VERSION 1
#define IO_NAME_MAX 4096		/* of a saved file name */

enum { SC_NONE, SC_READ, SC_WRITE, SC_OPEN, SC_CLOSE, SC_DUP };

struct io_thread {
	int32_t tid, pid;
	uint8_t sc;			/* the I/O syscall it is in (SC_*) */
	int32_t fd, newfd;		/* its descriptor; dup2/dup3's new one */
	uint32_t name;			/* open: its filename (a file index), UINT32_MAX: none */
};

struct io_rq {
	uint32_t dev;
	uint64_t sector, ts;
	uint32_t nr;
	uint8_t write;
	int32_t tid;
};

struct io_remap {
	uint32_t dev, old_dev;
	uint64_t sector, old_sector;
};

struct io_fd {
	uint64_t key;			/* pid << 32 | fd; 0: empty (no pid 0 has descriptors) */
	uint32_t file;
};

struct evt_io_priv {
	struct io_thread *th;
	uint32_t nr_th, cap_th;
	struct evt_tidmap tmap;
	int32_t *cur;			/* per CPU: its thread, -1 */
	uint32_t nr_cpus;
	struct io_rq *rq;
	uint32_t nr_rq, cap_rq;
	struct io_remap *rm;
	uint32_t nr_rm, cap_rm;
	struct io_fd *fds;		/* open addressing, cap a power of two */
	uint32_t nr_fds, cap_fds;
	/* By key: io->devs, io->procs, io->files; rq, rm (dev and sector). */
	struct evt_idxmap dev_map, proc_map, file_map, rq_map, rm_map;
	int failed;			/* out of memory: the result is not saved */
};

static void io_lat_init(struct evt_io_req_stats *r)
{
	memset(r, 0, sizeof(*r));
	r->lat.min_ns = UINT64_MAX;
}

static void io_lat_add(struct evt_io_req_stats *r, uint64_t bytes, uint64_t ns)
{
	r->count++;
	r->bytes += bytes;
	r->lat.count++;
	r->lat.total_ns += ns;
	if (ns < r->lat.min_ns)
		r->lat.min_ns = ns;
	if (ns > r->lat.max_ns)
		r->lat.max_ns = ns;
}

unsigned int evt_io_size_bucket(uint64_t bytes)
{
	unsigned int b = 0;

	while (b + 1 < EVT_IO_SIZE_BUCKETS && (1ULL << b) < bytes)
		b++;
	return b;
}

/* ---- Lookups ---- */

/* What the lookups' comparisons are given: the result, the key. */
struct dev_key { const struct evt_io *io; uint32_t dev; };
struct pid_key { const struct evt_io *io; int32_t pid; };
struct name_key { const struct evt_io *io; const char *name; size_t len; };

static int dev_eq(const void *ctx, uint32_t i)
{
	const struct dev_key *key = ctx;

	return key->io->devs[i].dev == key->dev;
}

static struct evt_io_dev *dev_of(struct evt_io *io, uint32_t dev)
{
	const struct dev_key key = { io, dev };
	const uint64_t h = evt_hash_u64(dev);
	struct evt_io_dev *d;
	long at = evt_idxmap_find(&io->priv->dev_map, h, dev_eq, &key);
	uint32_t i, k;

	if (at >= 0)
		return &io->devs[at];
	if (evt_grow(&io->devs, &io->cap_devs, (size_t)io->nr_devs + 1, sizeof(*io->devs)) ||
	    evt_idxmap_add(&io->priv->dev_map, h, io->nr_devs))
		return NULL;
	d = &io->devs[io->nr_devs++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	for (k = 0; k < 2; k++) {
		io_lat_init(&d->rw[k]);
		for (i = 0; i < EVT_IO_SIZE_BUCKETS; i++)
			io_lat_init(&d->size[k][i]);
	}
	return d;
}

static int proc_eq(const void *ctx, uint32_t i)
{
	const struct pid_key *key = ctx;

	return key->io->procs[i].pid == key->pid;
}

static struct evt_io_proc *proc_of(struct evt_io *io, int32_t pid)
{
	const struct pid_key key = { io, pid };
	const uint64_t h = evt_hash_u64((uint32_t)pid);
	struct evt_io_proc *p;
	long at = evt_idxmap_find(&io->priv->proc_map, h, proc_eq, &key);

	if (at >= 0)
		return &io->procs[at];
	if (evt_grow(&io->procs, &io->cap_procs, (size_t)io->nr_procs + 1, sizeof(*io->procs)) ||
	    evt_idxmap_add(&io->priv->proc_map, h, io->nr_procs))
		return NULL;
	p = &io->procs[io->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static int file_eq(const void *ctx, uint32_t i)
{
	const struct name_key *key = ctx;
	const char *name = key->io->files[i].name;

	return strlen(name) == key->len && !memcmp(name, key->name, key->len);
}

/* The file named @name (made when new): its index, or UINT32_MAX. */
static uint32_t file_of(struct evt_io *io, const char *name, size_t len)
{
	const struct name_key key = { io, name, len };
	/* Under the name as kept (strndup stops at a NUL): a scan would find that one. */
	const uint64_t h = evt_hash_bytes(name, strnlen(name, len));
	long at = evt_idxmap_find(&io->priv->file_map, h, file_eq, &key);
	char *dup;

	if (at >= 0)
		return (uint32_t)at;
	if (evt_grow(&io->files, &io->cap_files, (size_t)io->nr_files + 1, sizeof(*io->files)) ||
	    !(dup = strndup(name, len)))
		return UINT32_MAX;
	if (evt_idxmap_add(&io->priv->file_map, h, io->nr_files)) {
		free(dup);
		return UINT32_MAX;
	}
	io->files[io->nr_files].name = dup;
	io->files[io->nr_files].read = io->files[io->nr_files].write = 0;
	return io->nr_files++;
}

static struct io_thread *thread_of(struct evt_io *io, int32_t tid)
{
	struct evt_io_priv *p = io->priv;
	long i = evt_tidmap_get(&p->tmap, tid);
	struct io_thread *t;

	if (i >= 0)
		return &p->th[i];
	if (evt_grow(&p->th, &p->cap_th, (size_t)p->nr_th + 1, sizeof(*p->th)) ||
	    evt_tidmap_set(&p->tmap, tid, p->nr_th))
		return NULL;
	t = &p->th[p->nr_th++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = tid;		/* until the state dump or a fork says otherwise */
	t->name = UINT32_MAX;
	return t;
}

/* The slot of descriptor (@pid, @fd): found, or empty for it; NULL: no memory. */
static struct io_fd *fd_slot(struct evt_io_priv *p, int32_t pid, int32_t fd, int add)
{
	const uint64_t key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)fd;
	uint32_t i;

	if (add && (p->nr_fds + 1) * 2 > p->cap_fds) {
		uint32_t cap = p->cap_fds ? p->cap_fds * 2 : 256, j;
		struct io_fd *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (j = 0; j < p->cap_fds; j++) {
			if (!p->fds[j].key)
				continue;
			for (i = (uint32_t)(p->fds[j].key * 0x9E3779B97F4A7C15ULL >> 40) & (cap - 1); n[i].key;
			     i = (i + 1) & (cap - 1))
				;
			n[i] = p->fds[j];
		}
		free(p->fds);
		p->fds = n;
		p->cap_fds = cap;
	}
	if (!p->cap_fds)
		return NULL;
	for (i = (uint32_t)(key * 0x9E3779B97F4A7C15ULL >> 40) & (p->cap_fds - 1);
	     p->fds[i].key && p->fds[i].key != key; i = (i + 1) & (p->cap_fds - 1))
		;
	return &p->fds[i];
}

static void fd_name(struct evt_io *io, int32_t pid, int32_t fd, uint32_t file)
{
	struct io_fd *s;

	if (pid <= 0 || fd < 0 || file == UINT32_MAX)
		return;
	s = fd_slot(io->priv, pid, fd, 1);
	if (!s) {
		io->priv->failed = 1;
		return;
	}
	if (!s->key)
		io->priv->nr_fds++;
	s->key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)fd;
	s->file = file;
}

/* The file of (@pid, @fd), named "fd N of PID" when nothing named it. */
static uint32_t fd_file(struct evt_io *io, int32_t pid, int32_t fd)
{
	struct io_fd *s = fd_slot(io->priv, pid, fd, 0);
	char name[64];
	int n;

	if (s && s->key)
		return s->file;
	n = snprintf(name, sizeof(name), "fd %d of %d", fd, pid);
	return file_of(io, name, (size_t)n);
}

/*
 * Removing with linear probing: the entries after the hole that would no
 * longer be found are put back.
 */
static void fd_close(struct evt_io_priv *p, int32_t pid, int32_t fd)
{
	struct io_fd *s = fd_slot(p, pid, fd, 0);
	uint32_t i, j;

	if (!s || !s->key)
		return;
	i = (uint32_t)(s - p->fds);
	p->fds[i].key = 0;
	p->nr_fds--;
	for (j = (i + 1) & (p->cap_fds - 1); p->fds[j].key; j = (j + 1) & (p->cap_fds - 1)) {
		struct io_fd e = p->fds[j];
		struct io_fd *t;

		p->fds[j].key = 0;
		t = fd_slot(p, (int32_t)(e.key >> 32), (int32_t)(uint32_t)e.key, 0);
		*t = e;
	}
}

/* ---- Fields ---- */

static int64_t field_int(const struct evt_engine_event *ev, const char *name, int *ok)
{
	struct evt_field_val v;

	if (evt_payload_field(ev->desc, ev->payload, ev->len, name, &v) || v.bytes) {
		*ok = 0;
		return 0;
	}
	return (int64_t)v.u;
}

/* A string or comm field: its bytes and length (NULL when absent). */
static const char *field_str(const struct evt_engine_event *ev, const char *name, size_t *len)
{
	struct evt_field_val v;

	if (evt_payload_field(ev->desc, ev->payload, ev->len, name, &v) || !v.bytes)
		return NULL;
	*len = v.len;
	return (const char *)v.bytes;
}

static int32_t *cpu_cur(struct evt_io_priv *p, unsigned int cpu)
{
	if (cpu >= EVT_MAX_CPUS)
		return NULL;
	if (cpu >= p->nr_cpus) {
		int32_t *c = realloc(p->cur, (cpu + 1) * sizeof(*c));
		uint32_t i;

		if (!c)
			return NULL;
		for (i = p->nr_cpus; i <= cpu; i++)
			c[i] = -1;
		p->cur = c;
		p->nr_cpus = cpu + 1;
	}
	return &p->cur[cpu];
}

/* ---- Hooks ---- */

static int on_switch(void *data, void *call)
{
	struct evt_io *io = data;
	const struct evt_engine_event *ev = call;
	int32_t *cur = cpu_cur(io->priv, ev->cpu);
	int ok = 1;
	int64_t next = field_int(ev, "next_tid", &ok);
	struct io_thread *t;
	struct evt_io_proc *pr;
	const char *comm;
	size_t n;

	if (!cur || !ok)
		return 0;
	*cur = (int32_t)next;
	/* A process's name: its main thread's, as the switch shows it. */
	t = next > 0 ? thread_of(io, (int32_t)next) : NULL;
	if (t && t->tid == t->pid && (comm = field_str(ev, "next_comm", &n)) && (pr = proc_of(io, t->pid))) {
		memset(pr->comm, 0, sizeof(pr->comm));
		memcpy(pr->comm, comm, n < 15 ? n : 15);
	}
	return 0;
}

static int on_process(void *data, void *call)
{
	struct evt_io *io = data;
	const struct evt_engine_event *ev = call;
	const int fork = !strcmp(ev->desc->name, "sched_process_fork");
	int ok = 1;
	int64_t tid = field_int(ev, fork ? "child_tid" : "tid", &ok);
	int64_t pid = field_int(ev, fork ? "child_pid" : "pid", &ok);
	struct io_thread *t;

	if (ok && tid > 0 && pid > 0 && (t = thread_of(io, (int32_t)tid)))
		t->pid = (int32_t)pid;
	return 0;
}

static int on_dump_fd(void *data, void *call)
{
	struct evt_io *io = data;
	const struct evt_engine_event *ev = call;
	int ok = 1;
	int64_t pid = field_int(ev, "pid", &ok), fd = field_int(ev, "fd", &ok);
	const char *name;
	size_t n;

	if (ok && (name = field_str(ev, "filename", &n)))
		fd_name(io, (int32_t)pid, (int32_t)fd, file_of(io, name, n));
	return 0;
}

static int on_dump_blockdev(void *data, void *call)
{
	struct evt_io *io = data;
	const struct evt_engine_event *ev = call;
	int ok = 1;
	int64_t dev = field_int(ev, "dev", &ok);
	struct evt_io_dev *d;
	const char *name;
	size_t n;

	if (ok && (name = field_str(ev, "diskname", &n)) && (d = dev_of(io, (uint32_t)dev)))
		snprintf(d->name, sizeof(d->name), "%.*s", (int)n, name);
	return 0;
}

/*
 * Requests in flight and remapped bios, by place (device, sector): found
 * through the maps, removed by moving the last in their place.
 */
struct place_key { const struct evt_io_priv *p; uint32_t dev; uint64_t sector; };

static uint64_t place_hash(uint32_t dev, uint64_t sector)
{
	return evt_hash_u64(evt_hash_u64(sector) ^ dev);
}

static int rm_eq(const void *ctx, uint32_t i)
{
	const struct place_key *k = ctx;

	return k->p->rm[i].dev == k->dev && k->p->rm[i].sector == k->sector;
}

static int rq_eq(const void *ctx, uint32_t i)
{
	const struct place_key *k = ctx;

	return k->p->rq[i].dev == k->dev && k->p->rq[i].sector == k->sector;
}

/* The first remap whose chain ends at (@dev, @sector), or -1. */
static long rm_find(const struct evt_io_priv *p, uint32_t dev, uint64_t sector)
{
	const struct place_key k = { p, dev, sector };

	return evt_idxmap_find(&p->rm_map, place_hash(dev, sector), rm_eq, &k);
}

static long rq_find(const struct evt_io_priv *p, uint32_t dev, uint64_t sector)
{
	const struct place_key k = { p, dev, sector };

	return evt_idxmap_find(&p->rq_map, place_hash(dev, sector), rq_eq, &k);
}

static void rm_del(struct evt_io_priv *p, uint32_t i)
{
	const uint32_t last = p->nr_rm - 1;

	evt_idxmap_del(&p->rm_map, place_hash(p->rm[i].dev, p->rm[i].sector), i);
	if (i != last) {
		evt_idxmap_move(&p->rm_map, place_hash(p->rm[last].dev, p->rm[last].sector), last, i);
		p->rm[i] = p->rm[last];
	}
	p->nr_rm--;
}

static void rq_del(struct evt_io_priv *p, uint32_t i)
{
	const uint32_t last = p->nr_rq - 1;

	evt_idxmap_del(&p->rq_map, place_hash(p->rq[i].dev, p->rq[i].sector), i);
	if (i != last) {
		evt_idxmap_move(&p->rq_map, place_hash(p->rq[last].dev, p->rq[last].sector), last, i);
		p->rq[i] = p->rq[last];
	}
	p->nr_rq--;
}

static int on_remap(void *data, void *call)
{
	struct evt_io *io = data;
	struct evt_io_priv *p = io->priv;
	const struct evt_engine_event *ev = call;
	int ok = 1;
	struct io_remap r = {
		.dev = (uint32_t)field_int(ev, "dev", &ok), .sector = (uint64_t)field_int(ev, "sector", &ok),
		.old_dev = (uint32_t)field_int(ev, "old_dev", &ok),
		.old_sector = (uint64_t)field_int(ev, "old_sector", &ok),
	};
	long at;

	if (!ok)
		return 0;
	/* A remap of a remapped bio (a partition on a mapped device): the chain's end moves. */
	at = rm_find(p, r.old_dev, r.old_sector);
	if (at >= 0) {
		evt_idxmap_del(&p->rm_map, place_hash(r.old_dev, r.old_sector), (uint32_t)at);
		p->rm[at].dev = r.dev;
		p->rm[at].sector = r.sector;
		if (evt_idxmap_add(&p->rm_map, place_hash(r.dev, r.sector), (uint32_t)at))
			p->failed = 1;
		return 0;
	}
	if (evt_grow(&p->rm, &p->cap_rm, (size_t)p->nr_rm + 1, sizeof(*p->rm)) ||
	    evt_idxmap_add(&p->rm_map, place_hash(r.dev, r.sector), p->nr_rm))
		p->failed = 1;
	else
		p->rm[p->nr_rm++] = r;
	return 0;
}

static int on_backmerge(void *data, void *call)
{
	struct evt_io *io = data;
	struct evt_io_priv *p = io->priv;
	const struct evt_engine_event *ev = call;
	int ok = 1;
	uint32_t dev = (uint32_t)field_int(ev, "dev", &ok);
	uint64_t sector = (uint64_t)field_int(ev, "sector", &ok);
	long at;

	while (ok && (at = rm_find(p, dev, sector)) >= 0)
		rm_del(p, (uint32_t)at);
	return 0;
}

static int on_issue(void *data, void *call)
{
	struct evt_io *io = data;
	struct evt_io_priv *p = io->priv;
	const struct evt_engine_event *ev = call;
	int ok = 1;
	struct io_rq r = {
		.dev = (uint32_t)field_int(ev, "dev", &ok), .sector = (uint64_t)field_int(ev, "sector", &ok),
		.nr = (uint32_t)field_int(ev, "nr_sector", &ok), .ts = ev->ts,
		.write = (uint8_t)(field_int(ev, "rwbs", &ok) & 1), .tid = (int32_t)field_int(ev, "tid", &ok),
	};
	long at;

	if (!ok || !r.nr)
		return 0;
	at = rm_find(p, r.dev, r.sector);
	if (at >= 0)
		r.dev = p->rm[at].old_dev;
	/* A request of the same place replaces the one pending there. */
	at = rq_find(p, r.dev, r.sector);
	if (at < 0) {
		if (evt_grow(&p->rq, &p->cap_rq, (size_t)p->nr_rq + 1, sizeof(*p->rq)) ||
		    evt_idxmap_add(&p->rq_map, place_hash(r.dev, r.sector), p->nr_rq)) {
			p->failed = 1;
			return 0;
		}
		at = p->nr_rq++;
	}
	p->rq[at] = r;
	if (!dev_of(io, r.dev))
		p->failed = 1;
	return 0;
}

static int on_complete(void *data, void *call)
{
	struct evt_io *io = data;
	struct evt_io_priv *p = io->priv;
	const struct evt_engine_event *ev = call;
	int ok = 1;
	uint32_t dev = (uint32_t)field_int(ev, "dev", &ok), nr = (uint32_t)field_int(ev, "nr_sector", &ok);
	uint64_t sector = (uint64_t)field_int(ev, "sector", &ok), bytes;
	struct evt_io_dev *d;
	struct io_thread *t;
	struct evt_io_proc *pr;
	struct io_rq r;
	long at;

	if (!ok || !nr)
		return 0;
	at = rm_find(p, dev, sector);
	if (at >= 0) {
		dev = p->rm[at].old_dev;
		rm_del(p, (uint32_t)at);
	}
	at = rq_find(p, dev, sector);
	if (at < 0 || p->rq[at].nr != nr) {
		io->unmatched++;
		return 0;
	}
	r = p->rq[at];
	rq_del(p, (uint32_t)at);
	d = dev_of(io, dev);
	if (!d) {
		p->failed = 1;
		return 0;
	}
	bytes = (uint64_t)nr * 512;
	io_lat_add(&d->rw[r.write], bytes, ev->ts >= r.ts ? ev->ts - r.ts : 0);
	io_lat_add(&d->size[r.write][evt_io_size_bucket(bytes)], bytes, ev->ts >= r.ts ? ev->ts - r.ts : 0);
	if (r.tid > 0 && (t = thread_of(io, r.tid)) && (pr = proc_of(io, t->pid)))
		*(r.write ? &pr->blk_write : &pr->blk_read) += bytes;
	return 0;
}

/* The I/O syscalls by name (without sys_ or compat_sys_): what each is. */
static const struct { const char *name; uint8_t sc; } io_syscalls[] = {
	{ "read", SC_READ }, { "pread64", SC_READ }, { "readv", SC_READ }, { "preadv", SC_READ },
	{ "preadv2", SC_READ }, { "recvfrom", SC_READ }, { "recvmsg", SC_READ },
	{ "write", SC_WRITE }, { "pwrite64", SC_WRITE }, { "writev", SC_WRITE }, { "pwritev", SC_WRITE },
	{ "pwritev2", SC_WRITE }, { "sendto", SC_WRITE }, { "sendmsg", SC_WRITE },
	{ "open", SC_OPEN }, { "openat", SC_OPEN }, { "close", SC_CLOSE },
	{ "dup", SC_DUP }, { "dup2", SC_DUP }, { "dup3", SC_DUP },
};
#define NR_IO_SYSCALLS (sizeof(io_syscalls) / sizeof(io_syscalls[0]))

static struct io_thread *current_thread(struct evt_io *io, const struct evt_engine_event *ev)
{
	int32_t *cur = cpu_cur(io->priv, ev->cpu);

	return cur && *cur > 0 ? thread_of(io, *cur) : NULL;
}

static int on_sys_entry(void *data, void *call)
{
	struct evt_io *io = data;
	const struct evt_engine_event *ev = call;
	const char *nm = ev->desc->name + (strncmp(ev->desc->name, "compat_", 7) ? 4 : 11);
	struct io_thread *t = current_thread(io, ev);
	const char *name;
	unsigned int i;
	size_t n;
	int ok = 1;

	if (!t)
		return 0;
	t->sc = SC_NONE;
	for (i = 0; i < NR_IO_SYSCALLS; i++)
		if (!strcmp(io_syscalls[i].name, nm))
			break;
	if (i == NR_IO_SYSCALLS)
		return 0;
	t->sc = io_syscalls[i].sc;
	switch (t->sc) {
	case SC_OPEN:
		name = field_str(ev, "filename", &n);
		t->name = name ? file_of(io, name, n) : UINT32_MAX;
		break;
	case SC_DUP:
		t->fd = (int32_t)field_int(ev, !strcmp(nm, "dup") ? "fildes" : "oldfd", &ok);
		t->newfd = strcmp(nm, "dup") ? (int32_t)field_int(ev, "newfd", &ok) : -1;
		break;
	default:
		t->fd = (int32_t)field_int(ev, "fd", &ok);
		break;
	}
	if (!ok)
		t->sc = SC_NONE;
	return 0;
}

static int on_sys_exit(void *data, void *call)
{
	struct evt_io *io = data;
	const struct evt_engine_event *ev = call;
	struct io_thread *t = current_thread(io, ev);
	struct evt_io_proc *pr;
	int ok = 1;
	int64_t ret = field_int(ev, "ret", &ok);
	uint32_t f;

	if (!t || !ok || t->sc == SC_NONE)
		return 0;
	switch (t->sc) {
	case SC_READ:
	case SC_WRITE:
		if (ret <= 0)
			break;
		pr = proc_of(io, t->pid);
		f = fd_file(io, t->pid, t->fd);
		if (!pr || f == UINT32_MAX) {
			io->priv->failed = 1;
			break;
		}
		*(t->sc == SC_WRITE ? &pr->write : &pr->read) += (uint64_t)ret;
		*(t->sc == SC_WRITE ? &io->files[f].write : &io->files[f].read) += (uint64_t)ret;
		break;
	case SC_OPEN:
		if (ret >= 0)
			fd_name(io, t->pid, (int32_t)ret, t->name);
		break;
	case SC_CLOSE:
		if (ret == 0)
			fd_close(io->priv, t->pid, t->fd);
		break;
	case SC_DUP:
		if (ret >= 0)
			fd_name(io, t->pid, (int32_t)ret, fd_file(io, t->pid, t->fd));
		break;
	}
	t->sc = SC_NONE;
	return 0;
}

/* ---- The computation ---- */

static void *io_create(struct evt_etrace *t)
{
	struct evt_io *io = calloc(1, sizeof(*io));

	(void)t;
	if (io && !(io->priv = calloc(1, sizeof(*io->priv)))) {
		free(io);
		return NULL;
	}
	return io;
}

static void io_free_priv(struct evt_io *io)
{
	struct evt_io_priv *p = io->priv;

	if (!p)
		return;
	free(p->th);
	evt_tidmap_free(&p->tmap);
	free(p->cur);
	free(p->rq);
	free(p->rm);
	free(p->fds);
	evt_idxmap_free(&p->dev_map);
	evt_idxmap_free(&p->proc_map);
	evt_idxmap_free(&p->file_map);
	evt_idxmap_free(&p->rq_map);
	evt_idxmap_free(&p->rm_map);
	free(p);
	io->priv = NULL;
}

static void io_destroy(void *r)
{
	struct evt_io *io = r;
	uint32_t i;

	io_free_priv(io);
	for (i = 0; i < io->nr_files; i++)
		free(io->files[i].name);
	free(io->files);
	free(io->devs);
	free(io->procs);
	free(io);
}

static const struct { const char *event; evt_hook_fn fn; } io_hooks[] = {
	{ "sched_switch", on_switch },
	{ "sched_process_fork", on_process },
	{ "lttng_statedump_process_state", on_process },
	{ "lttng_statedump_file_descriptor", on_dump_fd },
	{ "lttng_statedump_block_device", on_dump_blockdev },
	{ "block_bio_remap", on_remap },
	{ "block_bio_backmerge", on_backmerge },
	{ "block_rq_issue", on_issue },
	{ "block_rq_complete", on_complete },
	{ "exit_syscall", on_sys_exit },
};

static int io_adder(struct evt_ctx *ctx, void *r)
{
	char name[64];
	unsigned int i;

	for (i = 0; i < sizeof(io_hooks) / sizeof(io_hooks[0]); i++)
		if (evt_ctx_add_event(ctx, io_hooks[i].event, io_hooks[i].fn, r))
			return -1;
	/* Every I/O syscall's entry, 64- and 32-bit; a thread in another syscall is in none. */
	for (i = 0; i < NR_IO_SYSCALLS; i++) {
		snprintf(name, sizeof(name), "sys_%s", io_syscalls[i].name);
		if (evt_ctx_add_event(ctx, name, on_sys_entry, r))
			return -1;
		snprintf(name, sizeof(name), "compat_sys_%s", io_syscalls[i].name);
		if (evt_ctx_add_event(ctx, name, on_sys_entry, r))
			return -1;
	}
	return 0;
}

static void io_remover(struct evt_ctx *ctx, void *r)
{
	char name[64];
	unsigned int i;

	for (i = 0; i < sizeof(io_hooks) / sizeof(io_hooks[0]); i++)
		evt_ctx_remove_event(ctx, io_hooks[i].event, io_hooks[i].fn, r);
	for (i = 0; i < NR_IO_SYSCALLS; i++) {
		snprintf(name, sizeof(name), "sys_%s", io_syscalls[i].name);
		evt_ctx_remove_event(ctx, name, on_sys_entry, r);
		snprintf(name, sizeof(name), "compat_sys_%s", io_syscalls[i].name);
		evt_ctx_remove_event(ctx, name, on_sys_entry, r);
	}
}

static void io_finish(void *r, const struct evt_where *w)
{
	struct evt_io *io = r;

	(void)w;
	if (io->priv && io->priv->failed)
		io->unmatched = UINT64_MAX;	/* incomplete: never saved (io_save) */
	io_free_priv(io);
}

static void put_req(struct evt_buf *b, const struct evt_io_req_stats *q)
{
	evt_buf_u64(b, q->count);
	evt_buf_u64(b, q->bytes);
	evt_buf_u64(b, q->lat.count);
	evt_buf_u64(b, q->lat.total_ns);
	evt_buf_u64(b, q->lat.min_ns);
	evt_buf_u64(b, q->lat.max_ns);
}

static int get_req(struct evt_rbuf *rb, struct evt_io_req_stats *q)
{
	return evt_rbuf_u64(rb, &q->count) || evt_rbuf_u64(rb, &q->bytes) || evt_rbuf_u64(rb, &q->lat.count) ||
	       evt_rbuf_u64(rb, &q->lat.total_ns) || evt_rbuf_u64(rb, &q->lat.min_ns) ||
	       evt_rbuf_u64(rb, &q->lat.max_ns) ? -1 : 0;
}

static int io_save(const void *r, struct evt_buf *b)
{
	const struct evt_io *io = r;
	uint32_t i, k, s;

	if (io->unmatched == UINT64_MAX)
		return -1;
	evt_buf_u64(b, IO_MAGIC);
	evt_buf_u64(b, io->unmatched);
	evt_buf_u64(b, io->nr_devs);
	for (i = 0; i < io->nr_devs; i++) {
		const struct evt_io_dev *d = &io->devs[i];

		evt_buf_u64(b, d->dev);
		evt_buf_put(b, d->name, sizeof(d->name));
		for (k = 0; k < 2; k++) {
			put_req(b, &d->rw[k]);
			for (s = 0; s < EVT_IO_SIZE_BUCKETS; s++)
				put_req(b, &d->size[k][s]);
		}
	}
	evt_buf_u64(b, io->nr_procs);
	for (i = 0; i < io->nr_procs; i++) {
		const struct evt_io_proc *p = &io->procs[i];

		evt_buf_u64(b, (uint64_t)(int64_t)p->pid);
		evt_buf_put(b, p->comm, sizeof(p->comm));
		evt_buf_u64(b, p->read);
		evt_buf_u64(b, p->write);
		evt_buf_u64(b, p->blk_read);
		evt_buf_u64(b, p->blk_write);
	}
	evt_buf_u64(b, io->nr_files);
	for (i = 0; i < io->nr_files; i++) {
		const size_t n = strlen(io->files[i].name);

		evt_buf_u64(b, n);
		evt_buf_put(b, io->files[i].name, n);
		evt_buf_u64(b, io->files[i].read);
		evt_buf_u64(b, io->files[i].write);
	}
	return b->oom ? -1 : 0;
}

static int io_load(void *res, const uint8_t *p, size_t n)
{
	struct evt_io *io = res;
	struct evt_rbuf rb = { .p = p, .n = n };
	uint64_t v, cnt;
	uint32_t i, k, s;

	if (evt_rbuf_u64(&rb, &v) || v != IO_MAGIC || evt_rbuf_u64(&rb, &io->unmatched) ||
	    evt_rbuf_u64(&rb, &cnt) || cnt > n / 64)
		return -1;
	for (i = 0; i < cnt; i++) {
		struct evt_io_dev *d;

		if (evt_rbuf_u64(&rb, &v) || v > UINT32_MAX || !(d = dev_of(io, (uint32_t)v)) ||
		    evt_rbuf_get(&rb, d->name, sizeof(d->name)))
			return -1;
		d->name[sizeof(d->name) - 1] = '\0';
		for (k = 0; k < 2; k++) {
			if (get_req(&rb, &d->rw[k]))
				return -1;
			for (s = 0; s < EVT_IO_SIZE_BUCKETS; s++)
				if (get_req(&rb, &d->size[k][s]))
					return -1;
		}
	}
	if (evt_rbuf_u64(&rb, &cnt) || cnt > n / 64)
		return -1;
	for (i = 0; i < cnt; i++) {
		struct evt_io_proc *pr;

		if (evt_rbuf_u64(&rb, &v) || !(pr = proc_of(io, (int32_t)(int64_t)v)) ||
		    evt_rbuf_get(&rb, pr->comm, sizeof(pr->comm)) || evt_rbuf_u64(&rb, &pr->read) ||
		    evt_rbuf_u64(&rb, &pr->write) || evt_rbuf_u64(&rb, &pr->blk_read) ||
		    evt_rbuf_u64(&rb, &pr->blk_write))
			return -1;
		pr->comm[sizeof(pr->comm) - 1] = '\0';
	}
	if (evt_rbuf_u64(&rb, &cnt) || cnt > n / 24)
		return -1;
	for (i = 0; i < cnt; i++) {
		char name[IO_NAME_MAX];
		uint32_t f;

		if (evt_rbuf_u64(&rb, &v) || v >= sizeof(name) || evt_rbuf_get(&rb, name, (size_t)v) ||
		    (f = file_of(io, name, (size_t)v)) == UINT32_MAX || evt_rbuf_u64(&rb, &io->files[f].read) ||
		    evt_rbuf_u64(&rb, &io->files[f].write))
			return -1;
	}
	if (rb.off != n)
		return -1;
	io_free_priv(io);
	return 0;
}

const struct evt_computation evt_comp_io = {
	.name = "io", .version = IO_VERSION,
	.create = io_create, .destroy = io_destroy,
	.hook_adder = io_adder, .hook_remover = io_remover, .finish = io_finish,
	.save = io_save, .load = io_load,
};
