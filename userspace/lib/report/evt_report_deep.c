// SPDX-License-Identifier: GPL-2.0
/*
 * evstat's deeper text sections: see evt_report.h. The figures are the
 * stats result's (lib/engine/evt_comps.h), the same as --json gives; every
 * name from the trace (a comm, a syscall's, an IRQ's) is escaped as evcat
 * escapes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "format/evt_format.h"
#include "report/evt_report.h"

#define ESC_LEN 512

static uint32_t nrows(unsigned long top, uint32_t n)
{
	return top && top < n ? (uint32_t)top : n;
}

static const char *esc(char *buf, const char *s)
{
	return evt_fmt_esc(buf, ESC_LEN, s);
}

/* Indexes 0..n-1 by a key, most first (ties: the lower index). */
static int cmp_key(const void *a, const void *b, void *keys)
{
	const uint64_t *k = keys;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return k[x] < k[y] ? 1 : k[x] > k[y] ? -1 : (x > y) - (x < y);
}

uint32_t *evt_report_order(const uint64_t *keys, uint32_t n)
{
	uint32_t *ix = malloc((n ? n : 1) * sizeof(*ix));

	if (!ix)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), cmp_key, (void *)keys);
	return ix;
}

/* "EAGAIN 17, ENOENT 3" (most first), or "-"; @buf of @len. */
static const char *errors_text(const struct evt_stats_rets *rets, char *buf, size_t len)
{
	uint64_t *keys = calloc(rets->n ? rets->n : 1, sizeof(*keys));
	uint32_t *ix, i;
	size_t o = 0;

	snprintf(buf, len, "-");
	if (!keys)
		return buf;
	for (i = 0; i < rets->n; i++)
		keys[i] = rets->v[i].count;
	ix = evt_report_order(keys, rets->n);
	for (i = 0; ix && i < rets->n && o < len; i++) {
		const struct evt_stats_ret *e = &rets->v[ix[i]];
		const char *name = evt_errno_name(e->ret);
		int w;

		if (name)
			w = snprintf(buf + o, len - o, "%s%s %llu", i ? ", " : "", name, (unsigned long long)e->count);
		else
			w = snprintf(buf + o, len - o, "%s%lld %llu", i ? ", " : "", (long long)e->ret,
				     (unsigned long long)e->count);
		o += w > 0 ? (size_t)w : 0;
	}
	free(ix);
	free(keys);
	return buf;
}

/* The percentiles of @h, in microseconds, as columns (dashes when empty). */
static void pct_cols(const struct evt_lathist *h)
{
	for (unsigned int i = 0; i < EVT_REPORT_NPCT; i++) {
		if (h->count)
			printf(" %11.3f", evt_report_us(evt_lathist_pct(h, evt_report_pct_permille[i])));
		else
			printf(" %11s", "-");
	}
}

int evt_report_print_percentiles(const struct evt_report *r, unsigned long top)
{
	const struct evt_stats *s = r->st;
	uint64_t *keys = calloc(s->nr_sys ? s->nr_sys : 1, sizeof(*keys));
	uint32_t *ix, i, n;
	char e1[ESC_LEN], errs[512];

	if (!keys)
		return -1;
	for (i = 0; i < s->nr_sys; i++)
		keys[i] = s->sys[i].count;
	ix = evt_report_order(keys, s->nr_sys);
	free(keys);
	if (!ix)
		return -1;
	printf("\nSystem call latency percentiles (us; at most 1/128 above the exact value) and errors\n"
	       "  %-28s %11s %11s %11s %11s  %s\n", "syscall", "p50", "p90", "p99", "p99.9", "errors (errno count)");
	for (i = 0, n = nrows(top, s->nr_sys); i < n; i++) {
		const struct evt_stats_syscall *y = &s->sys[ix[i]];

		printf("  %-28s", esc(e1, y->name));
		pct_cols(&y->pct);
		printf("  %s\n", errors_text(&y->rets, errs, sizeof(errs)));
	}
	free(ix);
	return 0;
}

void evt_report_print_irq_percentiles(const struct evt_report *r)
{
	const struct evt_stats *s = r->st;
	char e1[ESC_LEN], what[ESC_LEN + 16], name[16];
	uint32_t i;

	printf("\nInterrupt and softirq duration percentiles (us; at most 1/128 above the exact value)\n"
	       "  %-28s %11s %11s %11s %11s\n", "irq or softirq", "p50", "p90", "p99", "p99.9");
	for (i = 0; i < s->nr_irqs; i++) {
		snprintf(what, sizeof(what), "irq %d %s", s->irqs[i].irq, esc(e1, s->irqs[i].name));
		printf("  %-28s", what);
		pct_cols(&s->irqs[i].pct);
		printf("\n");
	}
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++) {
		if (!s->softirq[i].count)
			continue;
		printf("  softirq %-20s", evt_softirq_name(i, name, sizeof(name)));
		pct_cols(&s->softirq[i].pct);
		printf("\n");
	}
}

/* What a worst latency of @kind was: "sys_read = -11 EAGAIN", "irq 25 eth0-rx-0", ... */
static const char *worst_what(const struct evt_report *r, unsigned int kind, const struct evt_stats_worst *w,
			      char *buf, size_t len)
{
	const struct evt_stats *s = r->st;
	char e1[ESC_LEN], name[16];

	switch (kind) {
	case EVT_WORST_SYSCALL: {
		const char *e = evt_errno_name(w->ret);

		snprintf(buf, len, "%s = %lld%s%s",
			 esc(e1, w->what >= 0 && (uint32_t)w->what < s->nr_sys ? s->sys[w->what].name : "?"),
			 (long long)w->ret, e ? " " : "", e ? e : "");
		break;
	}
	case EVT_WORST_IRQ: {
		const struct evt_stats_irq *q = evt_stats_irq(s, w->what);

		snprintf(buf, len, "irq %d %s", w->what, esc(e1, q ? q->name : ""));
		break;
	}
	case EVT_WORST_SOFTIRQ:
		snprintf(buf, len, "%s", evt_softirq_name((unsigned int)w->what, name, sizeof(name)));
		break;
	default:
		if (w->waker > 0)
			snprintf(buf, len, "prio %d, woken by %d %s", w->prio, w->waker, esc(e1, w->waker_comm));
		else
			snprintf(buf, len, "prio %d, woken by an interrupt or an unknown task", w->prio);
		break;
	}
	return buf;
}

void evt_report_print_worst(const struct evt_report *r, unsigned long top)
{
	static const char *const title[EVT_WORST_KINDS] = {
		"system calls (entry to exit)", "hard IRQs (handler entry to exit)", "softirqs (entry to exit)",
		"scheduling (wakeup to switch-in)",
	};
	char e1[ESC_LEN], when[40], what[2 * ESC_LEN];

	for (unsigned int k = 0; k < EVT_WORST_KINDS; k++) {
		const struct evt_stats_worstlist *l = &r->st->worst[k];
		uint32_t i, n = 0;

		printf("\nWorst latencies: %s\n  %-30s %12s %4s %8s %8s %-16s %s\n", title[k], "begin (UTC)", "us", "cpu",
		       "tid", "pid", "comm", k == EVT_WORST_SCHED ? "woken thread's prio, waker" : "what");
		for (i = 0; i < l->n && (!top || n < top); i++) {
			const struct evt_stats_worst *w = &l->v[i];
			const int32_t pid = evt_report_pid(r, w->tid);

			if (!evt_report_task_match(r, w->tid, pid, w->comm))
				continue;
			n++;
			evt_fmt_clock(when, w->begin + r->offset_ns, 1);
			printf("  %-30s %12.3f %4u %8d %8d %-16s %s\n", when, evt_report_us(w->end - w->begin), w->cpu, w->tid, pid,
			       esc(e1, w->comm), worst_what(r, k, w, what, sizeof(what)));
		}
		if (!n)
			printf("  none\n");
	}
}

void evt_report_print_cpus(const struct evt_report *r)
{
	const struct evt_stats *s = r->st;
	const uint64_t span = s->events ? s->last_ts - s->first_ts : 0;

	printf("\nCPU utilisation (%% of the span; lossy: inside a loss window, not measured;\n"
	       "unknown: before the CPU's first switch with none seen)\n"
	       "  %5s %8s %8s %8s %8s %8s %8s\n", "cpu", "busy", "idle", "irq", "softirq", "lossy", "unknown");
	for (uint32_t i = 0; i < s->nr_cpus; i++) {
		const struct evt_stats_cpu *c = &s->cpus[i];
		const uint64_t known = c->busy_ns + c->idle_ns + c->irq_ns + c->softirq_ns + c->lossy_ns;
		const double d = span ? (double)span / 100.0 : 1.0;

		if (!c->events)
			continue;
		printf("  %5u %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", i, (double)c->busy_ns / d, (double)c->idle_ns / d,
		       (double)c->irq_ns / d, (double)c->softirq_ns / d, (double)c->lossy_ns / d,
		       span > known ? (double)(span - known) / d : 0.0);
	}
}

/* The stats thread behind state thread @t (NULL when the tid is now another thread's). */
static const struct evt_stats_thread *stats_of(const struct evt_report *r, const struct evt_state_thread *t)
{
	return evt_state_thread(r->state, t->tid) == t ? evt_stats_thread(r->st, t->tid) : NULL;
}

int evt_report_print_wakeups(const struct evt_report *r, unsigned long top)
{
	const size_t nt = evt_state_nr_threads(r->state);
	uint64_t *keys = calloc(nt ? nt : 1, sizeof(*keys));
	uint32_t *ix, i, n;
	char e1[ESC_LEN], e2[ESC_LEN];

	if (!keys || nt > UINT32_MAX) {
		free(keys);
		return -1;
	}
	for (i = 0; i < nt; i++) {
		const struct evt_stats_thread *th = stats_of(r, evt_state_thread_nth(r->state, i));

		keys[i] = th ? th->wake.count + th->wake.spans_loss + th->migrations + th->cpu_changes : 0;
	}
	ix = evt_report_order(keys, (uint32_t)nt);
	if (!ix) {
		free(keys);
		return -1;
	}
	printf("\nThreads' wakeup latency (woken to running) and migrations\n"
	       "  %8s %8s %-16s %8s %10s %10s %10s %10s %6s %6s %6s  %s\n", "tid", "pid", "comm", "wakeups", "min us",
	       "avg us", "p99 us", "max us", "spans", "migr", "moved", "woken most by (tid comm, times)");
	for (i = 0, n = 0; i < nt && keys[ix[i]] && (!top || n < top); i++) {
		const struct evt_state_thread *t = evt_state_thread_nth(r->state, ix[i]);
		const struct evt_stats_thread *th = stats_of(r, t);
		const int32_t pid = t->pid >= 0 ? t->pid : evt_report_pid(r, t->tid);
		const struct evt_stats_waker *most = NULL;

		if (!th || t->tid <= 0 || !evt_report_task_match(r, t->tid, pid, t->comm))
			continue;
		n++;
		for (uint32_t k = 0; k < th->nwakers; k++)
			if (!most || th->wakers[k].count > most->count)
				most = &th->wakers[k];
		printf("  %8d %8d %-16s %8llu ", t->tid, pid, esc(e1, t->comm), (unsigned long long)th->wake.count);
		if (th->wake.count)
			printf("%10.3f %10.3f %10.3f %10.3f", evt_report_us(th->wake.min_ns), evt_report_avg_us(&th->wake),
			       evt_report_us(evt_lathist_pct(&th->wake_pct, 990)), evt_report_us(th->wake.max_ns));
		else
			printf("%10s %10s %10s %10s", "-", "-", "-", "-");
		printf(" %6llu %6llu %6llu  ", (unsigned long long)th->wake.spans_loss,
		       (unsigned long long)th->migrations, (unsigned long long)th->cpu_changes);
		if (most && most->tid > 0) {
			const struct evt_stats_thread *w = evt_stats_thread(r->st, most->tid);

			printf("%d %s, %llu\n", most->tid, esc(e2, w ? w->comm : ""), (unsigned long long)most->count);
		} else if (most) {
			printf("interrupt or unknown, %llu\n", (unsigned long long)most->count);
		} else {
			printf("-\n");
		}
	}
	if (!n)
		printf("  none\n");
	free(ix);
	free(keys);
	return 0;
}

/* One task's syscalls, most called first. */
static int print_task_sys(const struct evt_report *r, const struct evt_stats_tsys *v, uint32_t nv)
{
	uint64_t *keys = calloc(nv ? nv : 1, sizeof(*keys));
	uint32_t *ix, i;
	char e1[ESC_LEN], errs[512];

	if (!keys)
		return -1;
	for (i = 0; i < nv; i++)
		keys[i] = v[i].count;
	ix = evt_report_order(keys, nv);
	free(keys);
	if (!ix)
		return -1;
	for (i = 0; i < nv; i++) {
		const struct evt_stats_tsys *y = &v[ix[i]];

		printf("    %-26s %8llu ", esc(e1, r->st->sys[y->sys].name), (unsigned long long)y->count);
		if (y->lat.count)
			printf("%11.3f %11.3f %11.3f", evt_report_us(y->lat.min_ns), evt_report_avg_us(&y->lat), evt_report_us(y->lat.max_ns));
		else
			printf("%11s %11s %11s", "-", "-", "-");
		pct_cols(&y->pct);
		printf(" %6llu  %s\n", (unsigned long long)y->lat.spans_loss, errors_text(&y->rets, errs, sizeof(errs)));
	}
	free(ix);
	return 0;
}

static void task_sys_head(void)
{
	printf("    %-26s %8s %11s %11s %11s %11s %11s %11s %11s %6s  %s\n", "syscall", "calls", "min us", "avg us",
	       "max us", "p50", "p90", "p99", "p99.9", "spans", "errors");
}

int evt_report_print_by(const struct evt_report *r, enum evt_report_by by, unsigned long top)
{
	char e1[ESC_LEN];
	uint32_t i, n = 0;

	if (by == EVT_REPORT_BY_PROCESS) {
		struct evt_report_procs ps;

		if (evt_report_procs_build(&ps, r))
			return -1;
		printf("\nSystem calls by process (most calls first; latencies in us)\n");
		for (i = 0; i < nrows(top, ps.n); i++) {
			const struct evt_report_proc *p = &ps.v[i];

			if (p->pid >= 0)
				printf("  pid %d %s: %llu calls, %u threads\n", p->pid, esc(e1, p->comm),
				       (unsigned long long)p->calls, p->nthreads);
			else
				printf("  pid unknown, tid %d %s: %llu calls\n", p->tid, esc(e1, p->comm),
				       (unsigned long long)p->calls);
			task_sys_head();
			if (print_task_sys(r, p->sys, p->nsys)) {
				evt_report_procs_free(&ps);
				return -1;
			}
		}
		if (!ps.n)
			printf("  none\n");
		evt_report_procs_free(&ps);
		return 0;
	}
	/* By thread: the threads with the most calls first. */
	{
		const struct evt_stats *s = r->st;
		uint64_t *keys = calloc(s->nr_threads ? s->nr_threads : 1, sizeof(*keys));
		uint32_t *ix;

		if (!keys)
			return -1;
		for (i = 0; i < s->nr_threads; i++) {
			keys[i] = 0;
			for (uint32_t k = 0; k < s->threads[i].ntsys; k++)
				keys[i] += s->threads[i].tsys[k].count;
		}
		ix = evt_report_order(keys, s->nr_threads);
		if (!ix) {
			free(keys);
			return -1;
		}
		printf("\nSystem calls by thread (most calls first; latencies in us)\n");
		for (i = 0; i < s->nr_threads && keys[ix[i]] && (!top || n < top); i++) {
			const struct evt_stats_thread *th = &s->threads[ix[i]];
			const int32_t pid = evt_report_pid(r, th->tid);

			if (th->tid <= 0 || !evt_report_task_match(r, th->tid, pid, th->comm))
				continue;
			n++;
			printf("  tid %d (pid %d) %s: %llu calls\n", th->tid, pid, esc(e1, th->comm),
			       (unsigned long long)keys[ix[i]]);
			task_sys_head();
			if (print_task_sys(r, th->tsys, th->ntsys)) {
				free(ix);
				free(keys);
				return -1;
			}
		}
		if (!n)
			printf("  none\n");
		free(ix);
		free(keys);
	}
	return 0;
}

/* ---- Histograms ---- */

int evt_report_hist_valid(const char *spec)
{
	if (!strcmp(spec, "sched"))
		return 0;
	if ((!strncmp(spec, "syscall=", 8) && spec[8]) || (!strncmp(spec, "softirq=", 8) && spec[8]))
		return 0;
	if (!strncmp(spec, "irq=", 4) && spec[4]) {
		char *end;

		strtol(spec + 4, &end, 10);
		return *end ? -1 : 0;
	}
	return -1;
}

/* "1.024 us" for 2^k ns: the bucket bounds. */
static const char *bound(unsigned int b, char *buf, size_t len)
{
	const uint64_t v = b ? 1ULL << (b - 1) : 0;

	if (v < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)v);
	else if (v < 1000000)
		snprintf(buf, len, "%.3f us", (double)v / 1e3);
	else if (v < 1000000000)
		snprintf(buf, len, "%.3f ms", (double)v / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)v / 1e9);
	return buf;
}

int evt_report_print_hist(const struct evt_report *r, const char *spec)
{
	const struct evt_stats *s = r->st;
	const uint64_t *h = NULL;
	uint64_t total = 0, most = 0;
	char title[2 * ESC_LEN], e1[ESC_LEN], lo[24], hi[24], name[16];
	int first = -1, last = -1;

	if (!strcmp(spec, "sched")) {
		h = s->sched_hist;
		snprintf(title, sizeof(title), "scheduling latency (wakeup to switch-in)");
	} else if (!strncmp(spec, "syscall=", 8)) {
		const struct evt_stats_syscall *y = evt_stats_syscall(s, spec + 8);
		char sysname[256];

		if (!y && strncmp(spec + 8, "sys_", 4)) {
			snprintf(sysname, sizeof(sysname), "sys_%s", spec + 8);
			y = evt_stats_syscall(s, sysname);
		}
		if (y) {
			h = y->hist;
			snprintf(title, sizeof(title), "%s latency (entry to exit)", esc(e1, y->name));
		}
	} else if (!strncmp(spec, "irq=", 4)) {
		const struct evt_stats_irq *q = evt_stats_irq(s, (int32_t)strtol(spec + 4, NULL, 10));

		if (q) {
			h = q->hist;
			snprintf(title, sizeof(title), "irq %d %s duration", q->irq, esc(e1, q->name));
		}
	} else {
		for (unsigned int v = 0; v < EVT_STATS_SOFTIRQS && !h; v++) {
			char num[16];

			snprintf(num, sizeof(num), "%u", v);
			if ((s->softirq[v].count || s->softirq[v].raises) &&
			    (!strcasecmp(spec + 8, evt_softirq_name(v, name, sizeof(name))) || !strcmp(spec + 8, num))) {
				h = s->softirq[v].hist;
				snprintf(title, sizeof(title), "softirq %s duration", evt_softirq_name(v, name, sizeof(name)));
			}
		}
	}
	if (!h) {
		fputs("evstat: --hist ", stderr);
		evt_fputs_esc(stderr, spec);
		fputs(": no such syscall, irq or softirq in the trace\n", stderr);
		return 1;
	}
	for (int b = 0; b < 64; b++) {
		total += h[b];
		if (h[b] > most)
			most = h[b];
		if (h[b] && first < 0)
			first = b;
		if (h[b])
			last = b;
	}
	printf("\nHistogram: %s, %llu measured (log2 buckets: [from, to))\n", title, (unsigned long long)total);
	for (int b = first; b >= 0 && b <= last; b++) {
		const unsigned int bar = most ? (unsigned int)((h[b] * 50 + most - 1) / most) : 0;
		char bars[51];

		memset(bars, '#', bar);
		bars[bar] = 0;
		printf("  %12s .. %-12s %10llu |%s\n", bound((unsigned int)b, lo, sizeof(lo)),
		       bound((unsigned int)b + 1, hi, sizeof(hi)), (unsigned long long)h[b], bars);
	}
	if (first < 0)
		printf("  none\n");
	return 0;
}
