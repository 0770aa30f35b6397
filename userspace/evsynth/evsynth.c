// SPDX-License-Identifier: GPL-2.0
/*
 * evsynth: write a synthetic evtrace trace through the portable ring core.
 * See usage() and userspace/lib/evt_synth.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/evt_cli.h"
#include "util/evt_cpulist.h"
#include "synth/evt_synth.h"
#include "ctf/evt_trace.h"
#include "util/evt_units.h"

/* EVT_VERSION: the top-level VERSION file, passed by the Makefile. */
#ifndef EVT_VERSION
#define EVT_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
"usage: evsynth DIR [options]\n"
"Write a synthetic evtrace trace (metadata + compact_N/normal_N files) into DIR\n"
"(DIR/kernel/ with --kernel), through the same ring core as the kernel module.\n"
"  --cpus K            CPUs 0..K-1 (default 4)\n"
"  --events N          events generated in total, spread over the active CPUs (100000)\n"
"  --seed S            random seed (1)\n"
"  --period NS         mean gap between two events of one CPU (1000); NS here and\n"
"                      below: ns, or with a unit (us, ms, s, ...: 2us)\n"
"  --skew NS           CPU c's timeline starts c*NS later (may be negative; 0)\n"
"  --start NS          clock value of the first event (1000000000000)\n"
"  --burst-every N     every N events of a CPU, a burst ... (0: none)\n"
"  --burst-len L       ... of L events ...\n"
"  --burst-gap NS      ... at most NS apart (20)\n"
"  --stall-every N     every N events of a CPU the drainer stalls (losses; 0: none)\n"
"  --stall-len N       for N events (default: two rings' worth)\n"
"  --overwrite         overwrite mode: stalls lose whole packets (seq gaps), not new events\n"
"  --normal-pct P      P%% of the events go to the normal channel (0)\n"
"  --mix               every compact event kind, not only gen_compact\n"
"  --subbuf BYTES      sub-buffer (packet) size (16384; K: 16K)\n"
"  --num-subbuf N      sub-buffers per ring (8)\n"
"  --idle LIST         CPUs that record nothing (empty stream files), e.g. 2,5-6\n"
"  --offline LIST      CPUs without stream files at all\n"
"  --no-index          no packet index files (DIR/.evtrace-index/), as evdrain\n"
"                      0.1 wrote traces: the first reader walks the headers\n"
"  --quiet             print nothing\n"
"Kernel mode: a simulated machine's kernel events, into DIR/kernel/ (LTTng's\n"
"layout, for the LTTng analyses): a state dump, then per CPU a scheduler over\n"
"its threads with sched_switch, wakeups, syscalls (some failing, some blocking),\n"
"hard IRQs, softirqs, idle, and now and then fork, exec, exit and free.\n"
"--burst-* are not used there.\n"
"  --kernel            kernel mode\n"
"  --sim-threads N     simulated user threads at the start, in processes of 1-4\n"
"                      (6 per CPU; --threads, its old name, still works)\n"
"  --syscall-pct P     P%% of a running thread's steps are syscalls (60)\n"
"  --irq-pct P         P%% of its steps (and of its syscalls) take a hard IRQ (5)\n"
"  --block-pct P       P%% of the syscalls that can block do (30)\n"
"  --error-pct P       P%% of the syscalls fail (10)\n"
"  --fork-every N      a thread forks about once every N steps (5000; 0: never)\n"
"Chunks: the trace cut into N chunks in DIR, as a rotating evdrain writes them\n"
"(every ring flushed at each cut, each stream cut at packet boundaries, a\n"
"summary.json each; for tests and benchmarks of what reads chunks):\n"
"  --chunks N          N chunks (2..100000) instead of one trace\n"
"  --host NAME         the host their summary.json names (default synth)\n"
"  --kernel-release R  the kernel it names (default synthetic)\n"
"Prints a summary: events generated, recorded, discarded, overwritten, written\n"
"(and with --kernel, the events generated of each kind).\n"
"  --version           print the version\n"
"  --help              this text\n"
"Exit status: 0 ok, 1 error writing, 2 usage (docs/exit-codes.md).\n");
}

enum {
	OPT_CPUS = 256, OPT_EVENTS, OPT_SEED, OPT_PERIOD, OPT_START, OPT_BURST_EVERY, OPT_BURST_LEN,
	OPT_BURST_GAP, OPT_STALL_EVERY, OPT_STALL_LEN, OPT_NORMAL_PCT, OPT_SUBBUF, OPT_NUM_SUBBUF,
	OPT_SIM_THREADS, OPT_THREADS_OLD, OPT_SYSCALL_PCT, OPT_IRQ_PCT, OPT_BLOCK_PCT, OPT_ERROR_PCT,
	OPT_FORK_EVERY, OPT_SKEW, OPT_IDLE, OPT_OFFLINE, OPT_HOST, OPT_RELEASE, OPT_CHUNKS, OPT_QUIET,
	OPT_OVERWRITE, OPT_NO_INDEX, OPT_MIX, OPT_KERNEL, OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "start", required_argument, NULL, OPT_START },
	{ "burst-every", required_argument, NULL, OPT_BURST_EVERY },
	{ "burst-len", required_argument, NULL, OPT_BURST_LEN },
	{ "burst-gap", required_argument, NULL, OPT_BURST_GAP },
	{ "stall-every", required_argument, NULL, OPT_STALL_EVERY },
	{ "stall-len", required_argument, NULL, OPT_STALL_LEN },
	{ "normal-pct", required_argument, NULL, OPT_NORMAL_PCT },
	{ "subbuf", required_argument, NULL, OPT_SUBBUF },
	{ "num-subbuf", required_argument, NULL, OPT_NUM_SUBBUF },
	{ "sim-threads", required_argument, NULL, OPT_SIM_THREADS },
	{ "threads", required_argument, NULL, OPT_THREADS_OLD },
	{ "syscall-pct", required_argument, NULL, OPT_SYSCALL_PCT },
	{ "irq-pct", required_argument, NULL, OPT_IRQ_PCT },
	{ "block-pct", required_argument, NULL, OPT_BLOCK_PCT },
	{ "error-pct", required_argument, NULL, OPT_ERROR_PCT },
	{ "fork-every", required_argument, NULL, OPT_FORK_EVERY },
	{ "skew", required_argument, NULL, OPT_SKEW },
	{ "idle", required_argument, NULL, OPT_IDLE },
	{ "offline", required_argument, NULL, OPT_OFFLINE },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "kernel-release", required_argument, NULL, OPT_RELEASE },
	{ "chunks", required_argument, NULL, OPT_CHUNKS },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "no-index", no_argument, NULL, OPT_NO_INDEX },
	{ "mix", no_argument, NULL, OPT_MIX },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A count for --@opt, 0 to @max (strtoull's bases: 0x.. too): 0, or -1 (said). */
static int num(const char *opt, const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = *v && *v != '-' ? strtoull(v, &end, 0) : 0;
	if (!*v || *v == '-' || errno || *end || x > max) {
		fprintf(stderr, "evsynth: --%s needs a whole number from 0 to %llu, not \"%s\"\n", opt,
			(unsigned long long)max, v);
		return -1;
	}
	*out = x;
	return 0;
}

/* A duration for --@opt, a bare number in ns (as it always was): 0, or -1 (said). */
static int ns_arg(const char *opt, const char *v, uint64_t *out)
{
	if (evt_parse_duration(v, 1, 1, out)) {
		fprintf(stderr, "evsynth: --%s needs a duration (ns, or with a unit: 5us, 1ms, 2s), not \"%s\"\n",
			opt, v);
		return -1;
	}
	return 0;
}

struct cli {
	const char *dir, *host, *release;
	uint64_t chunks;
	int quiet, have_idle, have_off;
	uint8_t idle_bm[EVT_CPUSET_BYTES], off_bm[EVT_CPUSET_BYTES];
};

/* argv into @p and @c: 0, 1 (--help or --version printed) or -1 (said). */
static int parse_args(int argc, char **argv, struct evt_synth_params *p, struct cli *c)
{
	const char *const name_of[] = { "syscall-pct", "irq-pct", "block-pct", "error-pct" };
	unsigned int *const pct_of[] = { &p->syscall_pct, &p->irq_pct, &p->block_pct, &p->error_pct };
	char why[200];
	uint64_t x;
	int o;

	opterr = 0;
	while ((o = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		const char *v = optarg;

		switch (o) {
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("evsynth %s\n", EVT_VERSION);
			return 1;
		case OPT_QUIET: c->quiet = 1; break;
		case OPT_OVERWRITE: p->overwrite = 1; break;
		case OPT_NO_INDEX: p->no_index = 1; break;
		case OPT_MIX: p->mix = 1; break;
		case OPT_KERNEL: p->kernel = 1; break;
		case OPT_HOST:
		case OPT_RELEASE:
			if (!*v || strlen(v) > 200) {
				fprintf(stderr, "evsynth: --%s wants a name of 1 to 200 bytes\n",
					o == OPT_HOST ? "host" : "kernel-release");
				return -1;
			}
			*(o == OPT_HOST ? &c->host : &c->release) = v;
			break;
		case OPT_CHUNKS:
			if (num("chunks", v, 100000, &c->chunks))
				return -1;
			if (c->chunks < 2) {
				fprintf(stderr, "evsynth: --chunks is 2..100000, not \"%s\"\n", v);
				return -1;
			}
			break;
		case OPT_SKEW: {
			/* May be negative: CPU c starts c*NS earlier. */
			int neg = *v == '-';

			if (ns_arg("skew", v + neg, &x))
				return -1;
			if (x > INT64_MAX) {
				fprintf(stderr, "evsynth: --skew is too large: \"%s\"\n", v);
				return -1;
			}
			p->skew_ns = neg ? -(int64_t)x : (int64_t)x;
			break;
		}
		case OPT_IDLE:
		case OPT_OFFLINE:
			if (evt_cpulist_parse(v, o == OPT_IDLE ? c->idle_bm : c->off_bm, why, sizeof(why))) {
				fprintf(stderr, "evsynth: --%s: %s\n", o == OPT_IDLE ? "idle" : "offline", why);
				return -1;
			}
			*(o == OPT_IDLE ? &c->have_idle : &c->have_off) = 1;
			break;
		case OPT_CPUS:
			if (num("cpus", v, EVT_SYNTH_MAX_CPUS, &x))
				return -1;
			p->cpus = (unsigned int)x;
			break;
		case OPT_EVENTS:
			if (num("events", v, UINT64_MAX, &p->events))
				return -1;
			break;
		case OPT_SEED:
			if (num("seed", v, UINT64_MAX, &p->seed))
				return -1;
			break;
		case OPT_PERIOD:
			if (ns_arg("period", v, &p->period_ns))
				return -1;
			break;
		case OPT_START:
			if (ns_arg("start", v, &p->start_ns))
				return -1;
			break;
		case OPT_BURST_GAP:
			if (ns_arg("burst-gap", v, &p->burst_gap_ns))
				return -1;
			break;
		/* Counts are unsigned int inside: one that does not fit is refused, not cut. */
		case OPT_BURST_EVERY:
		case OPT_BURST_LEN:
		case OPT_STALL_EVERY:
		case OPT_STALL_LEN:
		case OPT_NUM_SUBBUF:
			if (num(o == OPT_BURST_EVERY ? "burst-every" : o == OPT_BURST_LEN ? "burst-len" :
				o == OPT_STALL_EVERY ? "stall-every" : o == OPT_STALL_LEN ? "stall-len" : "num-subbuf",
				v, UINT32_MAX, &x))
				return -1;
			if (o == OPT_NUM_SUBBUF)
				p->num_subbuf = (unsigned long)x;
			else
				*(o == OPT_BURST_EVERY ? &p->burst_every : o == OPT_BURST_LEN ? &p->burst_len :
				  o == OPT_STALL_EVERY ? &p->stall_every : &p->stall_len) = (unsigned int)x;
			break;
		case OPT_SUBBUF:
			if (evt_parse_size(v, &x) || x > UINT32_MAX) {
				fprintf(stderr, "evsynth: --subbuf needs a size (bytes, or with K, M), not \"%s\"\n", v);
				return -1;
			}
			p->subbuf_size = (unsigned long)x;
			break;
		case OPT_NORMAL_PCT:
			if (num("normal-pct", v, 100, &x))
				return -1;
			p->normal_pct = (unsigned int)x;
			break;
		case OPT_THREADS_OLD:
			fprintf(stderr, "evsynth: --threads is deprecated, say --sim-threads (evcat's --threads are "
				"worker threads)\n");
			/* fall through */
		case OPT_SIM_THREADS:
			if (num("sim-threads", v, 1000000, &x))
				return -1;
			p->threads = (unsigned int)x;
			break;
		case OPT_SYSCALL_PCT:
		case OPT_IRQ_PCT:
		case OPT_BLOCK_PCT:
		case OPT_ERROR_PCT:
			if (num(name_of[o - OPT_SYSCALL_PCT], v, 100, &x))
				return -1;
			*pct_of[o - OPT_SYSCALL_PCT] = (unsigned int)x;
			break;
		case OPT_FORK_EVERY:
			if (num("fork-every", v, UINT64_MAX, &x))
				return -1;
			p->fork_every = (unsigned int)(x > UINT32_MAX ? UINT32_MAX : x);
			break;
		default:
			evt_opt_error("evsynth", argv, "h", long_opts);
			return -1;
		}
	}
	for (; optind < argc; optind++) {
		if (c->dir) {
			fprintf(stderr, "evsynth: one directory only (\"%s\"?)\n", argv[optind]);
			return -1;
		}
		c->dir = argv[optind];
	}
	if (!c->dir) {
		fprintf(stderr, "evsynth: no directory given\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t idle[EVT_SYNTH_MAX_CPUS], offline[EVT_SYNTH_MAX_CPUS];
	static struct cli c = { .host = "synth", .release = "synthetic" };
	struct evt_synth_params p;
	struct evt_synth_result r;
	const char *dir;
	char err[1024];
	int i, ret;

	evt_synth_defaults(&p);
	ret = parse_args(argc, argv, &p, &c);
	if (ret)
		return ret > 0 ? EVT_EXIT_OK : EVT_EXIT_USAGE;
	dir = c.dir;
	if (!p.cpus) {
		fprintf(stderr, "evsynth: --cpus is 1..%d\n", EVT_SYNTH_MAX_CPUS);
		return EVT_EXIT_USAGE;
	}
	for (i = 0; i < EVT_SYNTH_MAX_CPUS; i++) {
		idle[i] = evt_cpuset_has(c.idle_bm, i);
		offline[i] = evt_cpuset_has(c.off_bm, i);
	}
	if (p.syscall_pct + p.irq_pct > 100) {
		fprintf(stderr, "evsynth: --syscall-pct and --irq-pct add up to more than 100\n");
		return EVT_EXIT_USAGE;
	}
	/* The module's version, as its traces say it. */
	p.tracer_version = EVT_VERSION;
	p.idle = c.have_idle ? idle : NULL;
	p.offline = c.have_off ? offline : NULL;
	if (c.chunks ? evt_synth_write_chunks(dir, &p, (unsigned int)c.chunks, c.host, c.release, &r, err, sizeof(err)) :
		     evt_synth_write(dir, &p, &r, err, sizeof(err))) {
		fprintf(stderr, "evsynth: %s\n", err);
		return EVT_EXIT_FAILURE;
	}
	if (!c.quiet)
		printf("%s: %llu events written (generated %llu, recorded %llu, discarded %llu, "
		       "overwritten %llu), %llu packets%s\n", dir,
		       (unsigned long long)r.written, (unsigned long long)r.generated,
		       (unsigned long long)r.recorded, (unsigned long long)r.discarded,
		       (unsigned long long)r.overwritten, (unsigned long long)r.packets,
		       c.chunks ? ", cut into chunks" : "");
	if (!c.quiet && p.kernel)
		printf("kernel: %llu sched_switch, %llu syscall entries, %llu exits, %llu hard IRQs, "
		       "%llu softirqs, %llu wakeups, %llu forks, %llu threads in the state dump "
		       "(generated)\n", (unsigned long long)r.switches, (unsigned long long)r.syscalls,
		       (unsigned long long)r.syscall_exits, (unsigned long long)r.irqs,
		       (unsigned long long)r.softirqs, (unsigned long long)r.wakeups,
		       (unsigned long long)r.forks, (unsigned long long)r.dumped);
	return EVT_EXIT_OK;
}
