// SPDX-License-Identifier: GPL-2.0
/*
 * evsynth: write a synthetic evtrace trace through the portable ring core.
 * See usage() and userspace/lib/evt_synth.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evt_cpulist.h"
#include "evt_synth.h"
#include "evt_trace.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: evsynth DIR [options]\n"
"Write a synthetic evtrace trace (metadata + compact_N/normal_N files) into DIR\n"
"(DIR/kernel/ with --kernel), through the same ring core as the kernel module.\n"
"  --cpus K            CPUs 0..K-1 (default 4)\n"
"  --events N          events generated in total, spread over the active CPUs (100000)\n"
"  --seed S            random seed (1)\n"
"  --period NS         mean gap between two events of one CPU (1000)\n"
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
"  --subbuf BYTES      sub-buffer (packet) size (16384)\n"
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
"  --threads N         user threads at the start, in processes of 1-4 (6 per CPU)\n"
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
"Exit status: 0 ok, 1 error writing, 2 usage.\n");
}

static int num(const char *opt, const char *v, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (!v || !*v || *v == '-')
		goto bad;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || *end)
		goto bad;
	*out = x;
	return 0;
bad:
	fprintf(stderr, "evsynth: %s needs a non-negative number, not \"%s\"\n", opt, v ? v : "");
	return -1;
}

int main(int argc, char **argv)
{
	static uint8_t idle_bm[EVT_CPUSET_BYTES], off_bm[EVT_CPUSET_BYTES];
	static uint8_t idle[EVT_SYNTH_MAX_CPUS], offline[EVT_SYNTH_MAX_CPUS];
	struct evt_synth_params p;
	struct evt_synth_result r;
	const char *dir = NULL, *host = "synth", *release = "synthetic";
	char err[1024];
	uint64_t chunks = 0;
	int quiet = 0, i, have_idle = 0, have_off = 0;

	evt_synth_defaults(&p);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t x;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "--overwrite")) {
			p.overwrite = 1;
		} else if (!strcmp(a, "--no-index")) {
			p.no_index = 1;
		} else if (!strcmp(a, "--mix")) {
			p.mix = 1;
		} else if (!strcmp(a, "--kernel")) {
			p.kernel = 1;
		} else if (!strcmp(a, "--host")) {
			if (!v || !*v || strlen(v) > 200) {
				fprintf(stderr, "evsynth: --host wants a name of 1 to 200 bytes\n");
				return 2;
			}
			host = v;
			i++;
		} else if (!strcmp(a, "--kernel-release")) {
			if (!v || !*v || strlen(v) > 200) {
				fprintf(stderr, "evsynth: --kernel-release wants a name of 1 to 200 bytes\n");
				return 2;
			}
			release = v;
			i++;
		} else if (!strcmp(a, "--chunks")) {
			if (num(a, v, &chunks))
				return 2;
			if (chunks < 2 || chunks > 100000) {
				fprintf(stderr, "evsynth: --chunks is 2..100000\n");
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--skew")) {
			char *end;

			if (!v || !*v)
				goto usage_err;
			errno = 0;
			p.skew_ns = strtoll(v, &end, 0);
			if (errno || *end) {
				fprintf(stderr, "evsynth: --skew needs a number, not \"%s\"\n", v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--idle") || !strcmp(a, "--offline")) {
			int is_idle = a[2] == 'i';

			char why[200];

			if (!v || evt_cpulist_parse(v, is_idle ? idle_bm : off_bm, why, sizeof(why))) {
				fprintf(stderr, "evsynth: %s: %s\n", a, v ? why : "needs a CPU list");
				return 2;
			}
			if (is_idle)
				have_idle = 1;
			else
				have_off = 1;
			i++;
		} else if (a[0] == '-' && a[1] == '-') {
			static const char *const nopts[] = {
				"--cpus", "--events", "--seed", "--period", "--start", "--burst-every",
				"--burst-len", "--burst-gap", "--stall-every", "--stall-len",
				"--normal-pct", "--subbuf", "--num-subbuf", "--threads", "--syscall-pct",
				"--irq-pct", "--block-pct", "--error-pct", "--fork-every",
			};
			unsigned int k;

			for (k = 0; k < sizeof(nopts) / sizeof(nopts[0]); k++)
				if (!strcmp(a, nopts[k]))
					break;
			if (k == sizeof(nopts) / sizeof(nopts[0])) {
				fprintf(stderr, "evsynth: unknown option %s\n", a);
				goto usage_err;
			}
			if (num(a, v, &x))
				return 2;
			/* Counts are unsigned int inside: one that does not fit is refused, not cut. */
			if (x > UINT32_MAX && (k == 5 || k == 6 || k == 8 || k == 9 || k == 11 || k == 12)) {
				fprintf(stderr, "evsynth: %s is at most %u\n", a, UINT32_MAX);
				return 2;
			}
			i++;
			switch (k) {
			case 0: p.cpus = (unsigned int)(x > EVT_SYNTH_MAX_CPUS ? 0 : x); break;
			case 1: p.events = x; break;
			case 2: p.seed = x; break;
			case 3: p.period_ns = x; break;
			case 4: p.start_ns = x; break;
			case 5: p.burst_every = (unsigned int)x; break;
			case 6: p.burst_len = (unsigned int)x; break;
			case 7: p.burst_gap_ns = x; break;
			case 8: p.stall_every = (unsigned int)x; break;
			case 9: p.stall_len = (unsigned int)x; break;
			case 10:
				if (x > 100) {
					fprintf(stderr, "evsynth: --normal-pct is 0..100\n");
					return 2;
				}
				p.normal_pct = (unsigned int)x;
				break;
			case 11: p.subbuf_size = (unsigned long)x; break;
			case 12: p.num_subbuf = (unsigned long)x; break;
			case 13:
				if (x > 1000000) {
					fprintf(stderr, "evsynth: --threads is at most 1000000\n");
					return 2;
				}
				p.threads = (unsigned int)x;
				break;
			case 14: case 15: case 16: case 17:
				if (x > 100) {
					fprintf(stderr, "evsynth: %s is 0..100\n", a);
					return 2;
				}
				*(k == 14 ? &p.syscall_pct : k == 15 ? &p.irq_pct :
				  k == 16 ? &p.block_pct : &p.error_pct) = (unsigned int)x;
				break;
			case 18: p.fork_every = (unsigned int)(x > UINT32_MAX ? UINT32_MAX : x); break;
			}
		} else if (!dir) {
			dir = a;
		} else {
			fprintf(stderr, "evsynth: one directory only (\"%s\"?)\n", a);
			goto usage_err;
		}
	}
	if (!dir) {
		fprintf(stderr, "evsynth: no directory given\n");
		goto usage_err;
	}
	if (!p.cpus) {
		fprintf(stderr, "evsynth: --cpus is 1..%d\n", EVT_SYNTH_MAX_CPUS);
		return 2;
	}
	for (i = 0; i < EVT_SYNTH_MAX_CPUS; i++) {
		idle[i] = evt_cpuset_has(idle_bm, i);
		offline[i] = evt_cpuset_has(off_bm, i);
	}
	if (p.syscall_pct + p.irq_pct > 100) {
		fprintf(stderr, "evsynth: --syscall-pct and --irq-pct add up to more than 100\n");
		return 2;
	}
#ifdef EVT_VERSION
	/* The module's version, as its traces say it. */
	p.tracer_version = EVT_VERSION;
#endif
	p.idle = have_idle ? idle : NULL;
	p.offline = have_off ? offline : NULL;
	if (chunks ? evt_synth_write_chunks(dir, &p, (unsigned int)chunks, host, release, &r, err, sizeof(err)) :
		     evt_synth_write(dir, &p, &r, err, sizeof(err))) {
		fprintf(stderr, "evsynth: %s\n", err);
		return 1;
	}
	if (!quiet)
		printf("%s: %llu events written (generated %llu, recorded %llu, discarded %llu, "
		       "overwritten %llu), %llu packets%s\n", dir,
		       (unsigned long long)r.written, (unsigned long long)r.generated,
		       (unsigned long long)r.recorded, (unsigned long long)r.discarded,
		       (unsigned long long)r.overwritten, (unsigned long long)r.packets,
		       chunks ? ", cut into chunks" : "");
	if (!quiet && p.kernel)
		printf("kernel: %llu sched_switch, %llu syscall entries, %llu exits, %llu hard IRQs, "
		       "%llu softirqs, %llu wakeups, %llu forks, %llu threads in the state dump "
		       "(generated)\n", (unsigned long long)r.switches, (unsigned long long)r.syscalls,
		       (unsigned long long)r.syscall_exits, (unsigned long long)r.irqs,
		       (unsigned long long)r.softirqs, (unsigned long long)r.wakeups,
		       (unsigned long long)r.forks, (unsigned long long)r.dumped);
	return 0;
usage_err:
	usage(stderr);
	return 2;
}
