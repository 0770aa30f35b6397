// SPDX-License-Identifier: GPL-2.0
/*
 * Recording benchmark, side by side in one boot: the same loop and payload
 * through evtrace's compact and normal fast paths (private rings, overwrite
 * mode so the ring never fills) and through the kernel's own ftrace ring
 * buffer API. Write N to debugfs "bench"; read the table back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/ring_buffer.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/version.h>
#include "evtrace_rings.h"
#include "evtrace_record.h"
#include "evtrace_bench.h"

/* 6.3 dropped ring_buffer_unlock_commit()'s event argument. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define evt_rb_commit(buf, ev) ring_buffer_unlock_commit(buf)
#else
#define evt_rb_commit(buf, ev) ring_buffer_unlock_commit(buf, ev)
#endif

#define BENCH_SB	65536UL
#define BENCH_NSB	16UL
#define BENCH_ROUNDS	5

enum { B_NONE, B_COMPACT, B_NORMAL, B_FTRACE, B_COMPACT_STACK, B_NR };
static const char * const bench_names[B_NR] = {
	"loop_only", "evtrace_compact", "evtrace_normal", "ftrace_ring_buffer",
	/* The compact event and its kernel stack (evctl enable --stack), as a probe records them. */
	"evtrace_compact_stack",
};

static DEFINE_MUTEX(bench_lock);
static u64 bench_best_ns[B_NR];	/* best round, total ns */
static u64 bench_events;
static int bench_cpu = -1;

struct bench_ring {
	struct evt_ring ring;
	char *mem;
	struct evt_subbuf *sb;
};

static int bench_ring_init(struct bench_ring *b, unsigned int channel)
{
	struct evt_ring_params p = {
		.subbuf_size = BENCH_SB, .num_subbuf = BENCH_NSB, .channel = channel,
		.mode = EVT_MODE_OVERWRITE, .high_water = 100, .uuid = evt.uuid,
	};

	b->mem = vmalloc(evt_ring_mem_size(&p));
	b->sb = kcalloc(BENCH_NSB, sizeof(*b->sb), GFP_KERNEL);
	if (!b->mem || !b->sb) {
		vfree(b->mem);
		kfree(b->sb);
		return -ENOMEM;
	}
	evt_ring_init(&b->ring, &p, b->mem, b->sb);
	return 0;
}

static void bench_ring_free(struct bench_ring *b)
{
	vfree(b->mem);
	kfree(b->sb);
}

/* The same guards as evtrace_record_inline(), around a private ring (@stack: and its kernel stack). */
static __always_inline int bench_record(struct evt_ring *r, unsigned int id,
					const void *pl, unsigned int len, bool stack)
{
	int ret;

	preempt_disable_notrace();
	if (evt_filtered_out(r, r->channel, id)) {
		preempt_enable_notrace();
		return -ESRCH;
	}
	if (unlikely(this_cpu_inc_return(evt_nesting) > EVT_MAX_NESTING))
		ret = -EBUSY;
	else
		ret = evt_record_copy(r, id, pl, len);
	if (stack && !ret)
		evt_record_stack(r, id);
	this_cpu_dec(evt_nesting);
	preempt_enable_notrace();
	return ret;
}

static u64 bench_one(int which, u64 n, struct bench_ring *bc, struct bench_ring *bn,
		     struct trace_buffer *rb)
{
	struct { u32 cpu; u32 seq[2]; u16 len; u16 pad; } pl = { raw_smp_processor_id() };
	u64 i, t0 = ktime_get_ns();

	for (i = 0; i < n; i++) {
		pl.seq[0] = (u32)i;
		switch (which) {
		case B_NONE:
			barrier_data(&pl);
			break;
		case B_COMPACT:
			bench_record(&bc->ring, EVT_ID_GEN_COMPACT, &pl, 12, false);
			break;
		case B_COMPACT_STACK:
			bench_record(&bc->ring, EVT_ID_GEN_COMPACT, &pl, 12, true);
			break;
		case B_NORMAL:
			bench_record(&bn->ring, EVT_ID_GEN_NORMAL, &pl, 14, false);
			break;
		case B_FTRACE: {
			struct ring_buffer_event *ev = ring_buffer_lock_reserve(rb, 12);

			if (ev) {
				memcpy(ring_buffer_event_data(ev), &pl, 12);
				evt_rb_commit(rb, ev);
			}
			break;
		}
		}
	}
	return ktime_get_ns() - t0;
}

static int bench_run(u64 n)
{
	struct bench_ring bc, bn;
	struct trace_buffer *rb;
	int round, which, ret;

	ret = bench_ring_init(&bc, EVT_CHAN_COMPACT);
	if (ret)
		return ret;
	ret = bench_ring_init(&bn, EVT_CHAN_NORMAL);
	if (ret)
		goto out_bc;
	/* Same memory as evtrace's ring: overwrite mode, like ftrace's default. */
	rb = ring_buffer_alloc(BENCH_SB * BENCH_NSB, RB_FL_OVERWRITE);
	if (!rb) {
		ret = -ENOMEM;
		goto out_bn;
	}
	for (which = 0; which < B_NR; which++)
		bench_best_ns[which] = U64_MAX;
	/* Rounds interleave the variants so that noise hits them alike. */
	for (round = 0; round < BENCH_ROUNDS; round++) {
		for (which = 0; which < B_NR; which++) {
			u64 ns = bench_one(which, n, &bc, &bn, rb);

			bench_best_ns[which] = min(bench_best_ns[which], ns);
			cond_resched();
		}
	}
	bench_events = n;
	bench_cpu = raw_smp_processor_id();
	ring_buffer_free(rb);
out_bn:
	bench_ring_free(&bn);
out_bc:
	bench_ring_free(&bc);
	return ret;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	u64 n;
	int ret = kstrtou64_from_user(ubuf, count, 0, &n);

	if (ret)
		return ret;
	if (n < 1000 || n > 100000000)
		return -EINVAL;
	mutex_lock(&bench_lock);
	ret = bench_run(n);
	mutex_unlock(&bench_lock);
	return ret ? ret : count;
}

static int bench_show(struct seq_file *m, void *v)
{
	int which;

	mutex_lock(&bench_lock);
	if (!bench_events) {
		seq_puts(m, "no run yet: echo N > bench\n");
		goto out;
	}
	seq_printf(m, "events %llu rounds %d cpu %d (best round)\n", bench_events, BENCH_ROUNDS,
		   bench_cpu);
	seq_puts(m, "variant ns_per_event_x100 ratio_to_ftrace_x1000\n");
	for (which = 0; which < B_NR; which++)
		seq_printf(m, "%s %llu %llu\n", bench_names[which],
			   div64_u64(bench_best_ns[which] * 100, bench_events),
			   div64_u64(bench_best_ns[which] * 1000, max(bench_best_ns[B_FTRACE], 1ULL)));
out:
	mutex_unlock(&bench_lock);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, NULL);
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = bench_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = bench_write,
};

/**
 * evt_bench_init() - create the benchmark's debugfs file "bench"
 * @dir: the module's debugfs directory
 *
 * Return: 0 (no debugfs loses the benchmark, nothing else).
 */
int evt_bench_init(struct dentry *dir)
{
	debugfs_create_file("bench", 0600, dir, NULL, &bench_fops);
	return 0;
}

/**
 * evt_bench_exit() - nothing to undo: the file goes with the directory
 */
void evt_bench_exit(void)
{
}
