// SPDX-License-Identifier: GPL-2.0
/*
 * evstat's text report (evt_report_text() in evt_report.h): the sections in
 * order, the deeper ones from evt_report_deep.c. Beside the JSON writer
 * (evt_report.c), which says the same numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/evt_format.h"
#include "report/evt_report.h"

/*
 * Names come from the trace, chosen by whoever ran the process (a comm
 * set with prctl(PR_SET_NAME), an IRQ's name): escaped as evcat escapes
 * them, never written raw to a terminal.
 */
#define EVT_ESC_NAME 512
#define ESC(s) evt_fmt_esc(e1, sizeof(e1), (s))

static const char *when(const struct evt_report *r, uint64_t ts, char *buf)
{
	evt_fmt_clock(buf, ts + r->offset_ns, 1);
	return buf;
}

static uint32_t rows(const struct evt_report_text *o, uint32_t n)
{
	return o->top && o->top < n ? (uint32_t)o->top : n;
}

/* Block I/O per device and request size; I/O syscalls' bytes per process and file. */
static int print_io(const struct evt_report *r, const struct evt_report_text *o)
{
	const struct evt_io *io = r->io;
	uint64_t *keys = malloc(((io->nr_procs > io->nr_files ? io->nr_procs : io->nr_files) + 1) * sizeof(*keys));
	char dev[32], size[32], name[4 * 255 + 3];
	uint32_t *ix, i, k, b, n;

	if (!keys)
		return -1;
	printf("\nBlock I/O (issue to completion)\n  %-12s %-9s %-5s %10s %12s %12s %12s %12s\n", "device", "dev",
	       "op", "requests", "bytes", "min us", "avg us", "max us");
	for (i = 0; i < io->nr_devs; i++)
		for (k = 0; k < 2; k++) {
			const struct evt_io_dev *d = &io->devs[i];
			const struct evt_io_req_stats *q = &d->rw[k];

			if (!q->count)
				continue;
			evt_fmt_esc(name, sizeof(name), d->name[0] ? d->name : "?");
			printf("  %-12s %-9s %-5s %10llu %12llu %12.3f %12.3f %12.3f\n", name,
			       evt_dev_name(d->dev, dev, sizeof(dev)), k ? "write" : "read",
			       (unsigned long long)q->count, (unsigned long long)q->bytes, evt_report_us(q->lat.min_ns),
			       evt_report_avg_us(&q->lat), evt_report_us(q->lat.max_ns));
		}
	if (!io->nr_devs)
		printf("  none\n");
	printf("\nBlock I/O by request size (up to)\n  %-12s %-5s %10s %10s %12s %12s %12s\n", "device", "op",
	       "size", "requests", "min us", "avg us", "max us");
	for (i = 0; i < io->nr_devs; i++)
		for (k = 0; k < 2; k++)
			for (b = 0; b < EVT_IO_SIZE_BUCKETS; b++) {
				const struct evt_io_req_stats *q = &io->devs[i].size[k][b];

				if (!q->count)
					continue;
				evt_fmt_esc(name, sizeof(name), io->devs[i].name[0] ? io->devs[i].name : "?");
				printf("  %-12s %-5s %10s %10llu %12.3f %12.3f %12.3f\n", name, k ? "write" : "read",
				       evt_io_size_name(b, size, sizeof(size)), (unsigned long long)q->count,
				       evt_report_us(q->lat.min_ns), evt_report_avg_us(&q->lat), evt_report_us(q->lat.max_ns));
			}
	printf("\nI/O by process (bytes: system calls, block requests issued)\n  %8s %-18s %12s %12s %12s %12s\n",
	       "pid", "comm", "read", "written", "block read", "block wr");
	for (i = 0; i < io->nr_procs; i++)
		keys[i] = io->procs[i].read + io->procs[i].write + io->procs[i].blk_read + io->procs[i].blk_write;
	ix = evt_report_order(keys, io->nr_procs);
	for (i = 0, n = rows(o, io->nr_procs); ix && i < n; i++) {
		const struct evt_io_proc *p = &io->procs[ix[i]];

		if (!keys[ix[i]])
			break;
		evt_fmt_esc(name, sizeof(name), p->comm);
		printf("  %8d %-18s %12llu %12llu %12llu %12llu\n", p->pid, name, (unsigned long long)p->read,
		       (unsigned long long)p->write, (unsigned long long)p->blk_read, (unsigned long long)p->blk_write);
	}
	free(ix);
	printf("\nI/O by file (bytes of system calls)\n  %12s %12s  %s\n", "read", "written", "file");
	for (i = 0; i < io->nr_files; i++)
		keys[i] = io->files[i].read + io->files[i].write;
	ix = evt_report_order(keys, io->nr_files);
	for (i = 0, n = rows(o, io->nr_files); ix && i < n; i++) {
		const struct evt_io_file *f = &io->files[ix[i]];

		if (!keys[ix[i]])
			break;
		evt_fmt_esc(name, sizeof(name), f->name);
		printf("  %12llu %12llu  %s\n", (unsigned long long)f->read, (unsigned long long)f->write, name);
	}
	free(ix);
	free(keys);
	return 0;
}

/* Per CPU: the time in each idle state and at each frequency (the CPU's own events say which). */
static void print_power(const struct evt_report *r)
{
	const struct evt_power *pw = r->power;
	uint32_t i, k;

	printf("\nCPU idle states and frequencies (power_cpu_idle, power_cpu_frequency)\n"
	       "  %5s %-10s %12s %14s %8s\n", "cpu", "what", "value", "ms", "% known");
	for (i = 0; i < pw->nr_cpus; i++) {
		const struct evt_power_cpu *c = &pw->cpus[i];
		uint64_t known = 0;

		for (k = 0; k < c->nr_idle_ns; k++)
			known += c->idle_ns[k].ns;
		for (k = 0; k < c->nr_idle_ns; k++) {
			char v[24];

			if (c->idle_ns[k].value == EVT_POWER_RUNNING)
				snprintf(v, sizeof(v), "running");
			else
				snprintf(v, sizeof(v), "state %u", c->idle_ns[k].value);
			printf("  %5u %-10s %12s %14.3f %8.2f\n", c->cpu, "idle", v, (double)c->idle_ns[k].ns / 1e6,
			       known ? 100.0 * (double)c->idle_ns[k].ns / (double)known : 0.0);
		}
		known = 0;
		for (k = 0; k < c->nr_freq_ns; k++)
			known += c->freq_ns[k].ns;
		for (k = 0; k < c->nr_freq_ns; k++) {
			char v[24];

			snprintf(v, sizeof(v), "%u MHz", c->freq_ns[k].value / 1000);
			printf("  %5u %-10s %12s %14.3f %8.2f\n", c->cpu, "frequency", v, (double)c->freq_ns[k].ns / 1e6,
			       known ? 100.0 * (double)c->freq_ns[k].ns / (double)known : 0.0);
		}
	}
	if (!pw->nr_cpus)
		printf("  none\n");
}

int evt_report_text(const struct evt_report *r, const struct evt_report_text *o)
{
	const struct evt_stats *s = r->st;
	const struct evt_state_thread **top = NULL;
	uint64_t *keys = NULL, span;
	uint32_t *ix = NULL, i, n, cap;
	char b1[40], b2[40], name[16];
	size_t ntop, nthreads;
	const char *saved;
	int hist_missing = 0;
	char e1[EVT_ESC_NAME];

	cap = s->nr_ev;
	if (s->nr_sys > cap)
		cap = s->nr_sys;
	if (s->nr_irqs > cap)
		cap = s->nr_irqs;
	/* No more rows than threads, whatever --top says: --top 2^61 must not wrap the size. */
	nthreads = evt_state_nr_threads(r->state);
	if (o->top && o->top < nthreads)
		nthreads = o->top;
	keys = malloc((cap ? cap : 1) * sizeof(*keys));
	top = malloc((nthreads ? nthreads : 1) * sizeof(*top));
	if (!keys || !top)
		goto oom;

	printf("Trace %s%s\n", ESC(r->path), r->window ? " (a window)" : "");
	/* Whether the figures below are the whole story comes first. */
	{
		uint64_t disc = 0, lostp = 0;

		for (i = 0; i < s->nr_losses; i++) {
			disc += s->losses[i].discarded;
			lostp += s->losses[i].lost_packets;
		}
		if (!s->nr_losses)
			printf("  complete: no event or packet lost\n");
		else
			printf("  INCOMPLETE: %llu events discarded, %llu packets lost, in %u ranges (see Losses);\n"
			       "  a latency or duration that spans one is counted apart (spans loss), not measured\n",
			       (unsigned long long)disc, (unsigned long long)lostp, s->nr_losses);
	}
	/* Figures an earlier run saved are said to be, with where (whoever can write there made them). */
	if (!r->window && (saved = o->saved_from))
		printf("  (saved results: %s; --no-saved computes them again)\n", ESC(saved));
	span = s->events ? s->last_ts - s->first_ts : 0;
	if (s->events)
		printf("  %s .. %s UTC (%.9f s), %llu events\n", when(r, s->first_ts, b1), when(r, s->last_ts, b2),
		       (double)span / 1e9, (unsigned long long)s->events);
	else
		printf("  no events\n");

	printf("\nEvents per CPU\n  %5s %12s\n", "cpu", "events");
	for (i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].events)
			printf("  %5u %12llu\n", i, (unsigned long long)s->cpus[i].events);

	printf("\nEvents by name\n  %-32s %12s\n", "event", "count");
	for (i = 0; i < s->nr_ev; i++)
		keys[i] = s->ev[i].count;
	ix = evt_report_order(keys, s->nr_ev);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(o, s->nr_ev); i < n; i++)
		printf("  %-32s %12llu\n", ESC(s->ev[ix[i]].name), (unsigned long long)s->ev[ix[i]].count);
	free(ix);

	ntop = evt_state_top_threads(r->state, top, nthreads);
	printf("\nThreads by CPU time\n  %8s %8s %-16s %14s %7s %12s\n", "tid", "pid", "comm", "cpu ms",
	       "% span", "events");
	for (i = 0; i < ntop; i++) {
		const struct evt_stats_thread *th = evt_stats_thread(s, top[i]->tid);

		printf("  %8d %8d %-16s %14.3f %7.2f %12llu\n", top[i]->tid, top[i]->pid, ESC(top[i]->comm),
		       (double)top[i]->cpu_ns / 1e6, span ? 100.0 * (double)top[i]->cpu_ns / (double)span : 0.0,
		       (unsigned long long)(th ? th->events : 0));
	}

	printf("\nSystem calls\n  %-28s %10s %8s %12s %12s %12s %10s\n", "syscall", "count", "errors", "min us",
	       "avg us", "max us", "spans loss");
	for (i = 0; i < s->nr_sys; i++)
		keys[i] = s->sys[i].count;
	ix = evt_report_order(keys, s->nr_sys);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(o, s->nr_sys); i < n; i++) {
		const struct evt_stats_syscall *y = &s->sys[ix[i]];

		printf("  %-28s %10llu %8llu ", ESC(y->name), (unsigned long long)y->count, (unsigned long long)y->errors);
		/* No latency where no call returned (exit_group): none rather than 0. */
		if (y->lat.count)
			printf("%12.3f %12.3f %12.3f", evt_report_us(y->lat.min_ns), evt_report_avg_us(&y->lat), evt_report_us(y->lat.max_ns));
		else
			printf("%12s %12s %12s", "-", "-", "-");
		printf(" %10llu\n", (unsigned long long)y->lat.spans_loss);
	}
	free(ix);

	if (evt_report_print_percentiles(r, o->top))
		goto oom;

	printf("\nInterrupts\n  %6s %-20s %10s %12s %12s %12s %10s\n", "irq", "name", "count", "min us", "avg us",
	       "max us", "spans loss");
	for (i = 0; i < s->nr_irqs; i++)
		keys[i] = s->irqs[i].count;
	ix = evt_report_order(keys, s->nr_irqs);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(o, s->nr_irqs); i < n; i++) {
		const struct evt_stats_irq *q = &s->irqs[ix[i]];

		printf("  %6d %-20s %10llu %12.3f %12.3f %12.3f %10llu\n", q->irq, ESC(q->name),
		       (unsigned long long)q->count, q->dur.count ? evt_report_us(q->dur.min_ns) : 0.0, evt_report_avg_us(&q->dur),
		       evt_report_us(q->dur.max_ns), (unsigned long long)q->dur.spans_loss);
	}
	free(ix);
	ix = NULL;

	printf("\nSoftirqs\n  %-10s %10s %10s %12s %12s %12s %10s\n", "softirq", "count", "raised", "min us",
	       "avg us", "max us", "spans loss");
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++) {
		const struct evt_stats_softirq *q = &s->softirq[i];

		if (q->count || q->raises)
			printf("  %-10s %10llu %10llu %12.3f %12.3f %12.3f %10llu\n",
			       evt_softirq_name(i, name, sizeof(name)), (unsigned long long)q->count,
			       (unsigned long long)q->raises, q->dur.count ? evt_report_us(q->dur.min_ns) : 0.0, evt_report_avg_us(&q->dur),
			       evt_report_us(q->dur.max_ns), (unsigned long long)q->dur.spans_loss);
	}

	evt_report_print_irq_percentiles(r);

	printf("\nScheduling latency (wakeup to switch-in)\n");
	if (s->sched_lat.count)
		printf("  %llu wakeups: min %.3f us, avg %.3f us, max %.3f us\n",
		       (unsigned long long)s->sched_lat.count, evt_report_us(s->sched_lat.min_ns), evt_report_avg_us(&s->sched_lat),
		       evt_report_us(s->sched_lat.max_ns));
	else
		printf("  none\n");
	if (s->sched_lat.spans_loss)
		printf("  spans a loss: %llu (not measured)\n", (unsigned long long)s->sched_lat.spans_loss);
	if (s->sched_lat.count) {
		printf("  percentiles:");
		for (i = 0; i < EVT_REPORT_NPCT; i++)
			printf(" %s %.3f us%s", evt_report_pct_names[i],
			       evt_report_us(evt_lathist_pct(&s->sched_pct, evt_report_pct_permille[i])), i + 1 < EVT_REPORT_NPCT ? "," : "\n");
	}

	evt_report_print_cpus(r);
	if (evt_report_print_wakeups(r, o->top))
		goto oom;
	evt_report_print_worst(r, o->top);
	if (o->by != EVT_REPORT_BY_NONE && evt_report_print_by(r, o->by, o->top))
		goto oom;

	if (r->io && print_io(r, o))
		goto oom;
	if (r->power)
		print_power(r);

	printf("\nLosses\n  %6s %5s %-8s %12s %12s\n", "stream", "cpu", "channel", "discarded", "lost packets");
	for (i = 0; i < s->nr_streams; i++) {
		const struct evt_stats_stream *q = &s->streams[i];

		if (q->discarded || q->lost_packets)
			printf("  %6u %5u %-8s %12llu %12llu\n", q->id, q->cpu, evt_channel_name(q->channel),
			       (unsigned long long)q->discarded, (unsigned long long)q->lost_packets);
	}
	if (!s->nr_losses)
		printf("  none\n");
	for (i = 0, n = rows(o, s->nr_losses); i < n; i++) {
		const struct evt_stats_loss *l = &s->losses[i];

		printf("  at %s: stream %u lost %llu events, %llu packets\n", when(r, l->ts, b1), l->stream,
		       (unsigned long long)l->discarded, (unsigned long long)l->lost_packets);
	}
	for (i = 0; i < o->nr_hists; i++)
		if (evt_report_print_hist(r, o->hists[i]))
			hist_missing = 1;
	free(keys);
	free(top);
	return hist_missing ? 1 : 0;
oom:
	free(keys);
	free(top);
	return -1;
}
