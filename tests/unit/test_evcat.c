// SPDX-License-Identifier: GPL-2.0
/*
 * The trace suite's evcat cases: evcat against babeltrace2, bad input,
 * files cut while read, losses, threads, other CTF traces.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "unit.h"
#include "fastcheck.h"
#include "json/evt_json.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_tsdl.h"
#include "ctf/evt_par.h"
#include "synth/evt_synth.h"
#include "format/evt_format.h"

/* ---- evcat ---- */

static char evcat_path[1024];

static int have_evcat(void)
{
	char self[900];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return 0;
	self[n] = 0;
	/* build/tests/unit(-san) -> build/bin/evcat */
	slash = strrchr(self, '/');
	if (!slash)
		return 0;
	*slash = 0;
	snprintf(evcat_path, sizeof(evcat_path), "%s/../bin/evcat", self);
	return access(evcat_path, X_OK) == 0;
}

/*
 * The evcat tests need build/bin/evcat beside the unit binary (make builds
 * both): without it they fail, never pass without having looked.
 */
static void require_evcat(void)
{
	ck_assert_msg(have_evcat(), "no evcat at %s (the unit tests run from build/tests/, beside build/bin/)",
		      evcat_path);
}

static uint64_t sh_u64(const char *cmd)
{
	int st;
	char *out = unit_sh(cmd, &st);
	uint64_t v = strtoull(out, NULL, 10);

	ck_assert_msg(st == 0, "%s: exit %d: %s", cmd, st, out);
	free(out);
	return v;
}

/*
 * Bad input, plain and under the sanitizers (a leak on an error path made
 * the sanitized evcat exit 1 instead of 2): each case's exit status and a
 * word of its message. Numbers that wrapped (a --from beyond 2^64 ns read
 * every event), names that were skipped and directories that counted 0
 * with exit 0 are errors.
 */
START_TEST(evcat_refuses_bad_input)
{
	static const struct {
		const char *args;	/* after DIR (a good trace) */
		const char *dir;	/* another directory, from @dirs */
		int status;
		const char *says;
	} cases[] = {
		{ "--cpu 3-1", NULL, 2, "goes down" },
		{ "--event nosuch", NULL, 2, "the trace has no event \"nosuch\"\nevcat: its events include:\n  gen_compact\n" },
		{ "--event sched_swtch", NULL, 2, "names with \"sched\" in them:\n  sched_switch\n" },
		{ "--from @36893488147419103232 --count", NULL, 2, "beyond the trace clock" },
		{ "--from @18446744073709551616 --count", NULL, 2, "beyond the trace clock" },
		{ "--to +18446744074 --count", NULL, 2, "beyond the trace clock" },
		{ "--from 99999999999 --count", NULL, 2, "beyond the trace clock" },
		{ "--slice-bytes 0 --count", NULL, 2, "--slice-bytes needs a size from 1" },
		{ "--threads 257 --count", NULL, 2, "--threads needs a whole number from 1 to 256" },
		{ "--cpu 7 --count", NULL, 1, "no stream file of the CPUs asked for (it has CPUs 0-1)" },
		{ "--count", "meta-only", 1, "no stream files" },
		{ "--count", "odd-name", 1, "compact_00: not a stream file name" },
		{ "--count", "ctl-bytes", 1, "line 55: a character TSDL does not use: 0x01" },
		{ "--count", "offset", 1, "beyond 2^64 ns" },
	};
	const char *const bins[] = { "bin/evcat", "tests/bin/evcat-san" };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], other[128], cmd[2560], build[900];
	ssize_t n = readlink("/proc/self/exe", build, sizeof(build) - 1);
	unsigned int i, b;
	int ran = 0;

	require_evcat();
	ck_assert_msg(n > 0, "cannot read /proc/self/exe");
	/* BUILD/tests/unit(-san): BUILD is two components up. */
	build[n] = 0;
	*strrchr(build, '/') = 0;
	*strrchr(build, '/') = 0;
	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 2000;
	unit_synth(dir, &p, &r);
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; mkdir meta-only odd-name ctl-bytes offset; cp metadata meta-only/;"
		 "cp metadata compact_0 normal_0 odd-name/; mv odd-name/compact_0 odd-name/compact_00;"
		 "for d in ctl-bytes offset; do cp metadata compact_0 normal_0 $d/; done;"
		 "sed -i 's/offset_s = [0-9]*;/offset_s = 1\x01;/' ctl-bytes/metadata;"
		 "sed -i 's/offset_s = [0-9]*;/offset_s = 18446744073;/; s/offset = [0-9]*;/offset = 709551616;/'"
		 " offset/metadata", dir);
	ck_assert_int_eq(system(cmd), 0);
	for (b = 0; b < 2; b++) {
		char bin[1024];

		snprintf(bin, sizeof(bin), "%.900s/%s", build, bins[b]);
		if (access(bin, X_OK)) {
			ck_assert_msg(b == 1, "no %s", bin);
			continue;
		}
		ran++;
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char *out;
			int st;

			snprintf(other, sizeof(other), "%s/%s", dir, cases[i].dir ? cases[i].dir : "");
			snprintf(cmd, sizeof(cmd), "'%s' '%s' %s 2>&1 >/dev/null", bin, other, cases[i].args);
			out = unit_sh(cmd, &st);
			ck_assert_msg(st == cases[i].status && strstr(out, cases[i].says),
				      "%s: exit %d (want %d): %s", cmd, st, cases[i].status, out);
			ck_assert_msg(!strstr(out, "Sanitizer"), "%s: %s", cmd, out);
			free(out);
		}
	}
	ck_assert_int_ge(ran, 1);
	unit_rmtree(dir);
}
END_TEST

/*
 * Stream files cut while evcat reads them (evcat blocked on a full pipe,
 * then every file truncated): an error naming the file, exit 1 (it was
 * SIGBUS, exit 135, no message), with the threads and with one.
 */
START_TEST(evcat_file_cut_while_read)
{
	/* Small slices: the threads format a slice's lines ahead, a window of them, in memory. */
	const char *const modes[] = { "--threads 2 --slice-bytes 65536", "--threads 1" };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], copy[80], cmd[4096];
	unsigned int i;

	require_evcat();
	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 400000;
	unit_synth(dir, &p, &r);
	snprintf(copy, sizeof(copy), "%s/cut", dir);
	for (i = 0; i < 2; i++) {
		char *out;
		int st;

		snprintf(cmd, sizeof(cmd),
			 "set -e; rm -rf '%s'; mkdir '%s'; cp '%s'/metadata '%s'/compact_* '%s'/normal_* '%s'/;"
			 "cd '%s'; { set +e; '%s' . %s 2> err; echo $? > status; } |"
			 " { sleep 1; truncate -s 0 compact_* normal_*; cat > /dev/null; }; cat status err",
			 copy, copy, dir, dir, dir, copy, copy, evcat_path, modes[i]);
		out = unit_sh(cmd, &st);
		ck_assert_msg(st == 0 && !strncmp(out, "1\n", 2) &&
			      strstr(out, "the file was cut while it was read") && strstr(out, "_0: ") ,
			      "%s: %s", modes[i], out);
		free(out);
	}
	unit_rmtree(dir);
}
END_TEST

/* evcat's loss warnings of @dir with @opts, as "STREAM N KIND FROM TO" sorted (KIND events or packets). */
static char *evcat_losses(const char *dir, const char *opts, int *status)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "'%.900s' '%.200s' %.200s 2>&1 >/dev/null | sed -nE 's/^evcat: warning: CPU [0-9]+ \\(([^)]*)\\): "
		 "([0-9]+) (events discarded|packets lost) between \\[([^]]*)\\] and \\[([^]]*)\\]$/\\1 \\2 \\3 \\4 \\5/p' |"
		 " sed -E 's/ events discarded / events /; s/ packets lost / packets /' | LC_ALL=C sort; "
		 "exit $(( $('%.900s' '%.200s' %.200s >/dev/null 2>&1; echo $?) ))", evcat_path, dir, opts, evcat_path, dir,
		 opts);
	return unit_sh(cmd, status);
}

/*
 * Losses are never silent: evcat says each lost range on standard error,
 * as babeltrace2 does (the stream, how many events or packets, from and
 * to), in every output format and on threads or one; --fail-on-loss exits
 * 7 after printing, and a range that holds no loss is not warned about.
 * Before issue 43 evcat printed the events of such a trace and said
 * nothing (exit 0, empty standard error).
 */
START_TEST(evcat_says_losses)
{
	static const char *const formats[] = { "", "--threads 1", "--format json", "--count", "--stats",
					       "--format json --stats --threads 3 --slice-bytes 5000" };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], kdir[80], cmd[2048];
	unsigned int ow, i;

	require_evcat();
	for (ow = 0; ow < 2; ow++) {
		char *want, *got;
		int st;

		unit_mktmp(dir, sizeof(dir), "trace");
		evt_synth_defaults(&p);
		p.kernel = 1;
		p.events = 60000;
		p.stall_every = 6000;
		p.overwrite = ow;
		unit_synth(dir, &p, &r);
		snprintf(kdir, sizeof(kdir), "%s/kernel", dir);
		snprintf(cmd, sizeof(cmd), "TZ=UTC babeltrace2 '%s' 2>&1 >/dev/null | sed -nE 's#^WARNING: Tracer discarded "
			 "([0-9]+) (events|packets) between \\[([^]]*)\\] and \\[([^]]*)\\].* within stream \"[^\"]*/"
			 "([^\"/]*)\".*#\\5 \\1 \\2 \\3 \\4#p' | LC_ALL=C sort", kdir);
		want = unit_sh(cmd, &st);
		ck_assert_msg(st == 0 && strchr(want, '\n') && strchr(want, '\n')[1], "babeltrace2 warns: %s", want);
		got = evcat_losses(kdir, "", &st);
		ck_assert_msg(st == 0, "evcat exits %d without --fail-on-loss", st);
		ck_assert_str_eq(got, want);
		free(got);
		/* Every format says them (JSON with whole UTC dates): the streams and counts. */
		for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
			char opts[200], *a, *b;

			snprintf(opts, sizeof(opts), "%s --fail-on-loss", formats[i]);
			got = evcat_losses(kdir, opts, &st);
			ck_assert_msg(st == 7, "%s: exit %d, not 7", opts, st);
			snprintf(cmd, sizeof(cmd), "printf '%%s' '%s' | cut -d' ' -f1-3", got);
			a = unit_sh(cmd, &st);
			snprintf(cmd, sizeof(cmd), "printf '%%s' '%s' | cut -d' ' -f1-3", want);
			b = unit_sh(cmd, &st);
			ck_assert_msg(!strcmp(a, b), "%s: evcat warns\n%s, babeltrace2\n%s", opts, a, b);
			free(a);
			free(b);
			free(got);
		}
		/* A range before the first loss: nothing to say, nothing to fail on. */
		got = evcat_losses(kdir, "--to +0.001 --fail-on-loss", &st);
		ck_assert_msg(st == 0 && !*got, "--to +0.001: exit %d, warns %s", st, got);
		free(got);
		free(want);
		unit_rmtree(dir);
	}
}
END_TEST

/*
 * Every line says which task ran, an exit its syscall, a switch its
 * prev_state in letters; the selections by task, event glob and field:
 * all against tests/tools/evcat-ctx-check.py's own computation from the
 * events, byte for byte, on one thread and on several, on a trace with
 * losses. Before issue 43 a line said "cpu N" alone (the check fails on
 * every event) and --event 'sys_*' was refused.
 */
START_TEST(evcat_context_against_reference)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], cmd[2048], *out;
	int st, mix;

	require_evcat();
	for (mix = 0; mix < 2; mix++) {
		unit_mktmp(dir, sizeof(dir), "trace");
		evt_synth_defaults(&p);
		/*
		 * A kernel's trace, and every event kind with random fields (tids
		 * negative, names empty, exits of random numbers: what a damaged
		 * trace may say).
		 */
		p.kernel = !mix;
		p.mix = mix;
		p.normal_pct = mix ? 20 : 0;
		p.events = mix ? 20000 : 60000;
		p.stall_every = mix ? 3000 : 8000;
		if (mix) {
			p.stall_len = 2500;
			p.subbuf_size = 4096;
			p.num_subbuf = 4;
		}
		unit_synth(dir, &p, &r);
		ck_assert_uint_gt(r.discarded, 0);
		snprintf(cmd, sizeof(cmd), "python3 tests/tools/evcat-ctx-check.py '%s' '%s%s' 2>&1", evcat_path, dir,
			 mix ? "" : "/kernel");
		out = unit_sh(cmd, &st);
		ck_assert_msg(st == 0, "%s:\n%s", cmd, out);
		free(out);
		unit_rmtree(dir);
	}
}
END_TEST

/*
 * On threads, a slice starts in the middle: before the first switch on
 * each CPU (its task known only from the slices before), inside syscalls
 * (an exit's name from an entry before it), and threads renamed on the
 * way (exec, wakeups and switches naming them). Its lines are resolved on
 * the main thread against what came before; they must be one thread's,
 * byte for byte, text and JSON, at slice sizes from a few events a CPU
 * to thousands. The mixed trace is also damaged (random tids: a task on
 * two CPUs at once, switches whose prev_tid is not the task running):
 * before the fix at 100000 slice bytes on bench-merge's mix trace an exit
 * lost its syscall's name, and smaller slices named another syscall.
 */
START_TEST(evcat_threads_print_what_one_thread_prints)
{
	static const char *const fmts[] = { "", "--format json" };
	static const unsigned int slices[] = { 600, 2500, 9000, 40000 };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], trace[128], cmd[4096], *one, *many;
	unsigned int kind, f, i;
	int st;

	require_evcat();
	for (kind = 0; kind < 2; kind++) {
		unit_mktmp(dir, sizeof(dir), "trace");
		evt_synth_defaults(&p);
		p.kernel = !kind;
		p.mix = kind;
		p.cpus = kind ? 8 : 4;
		p.events = kind ? 200000 : 40000;
		unit_synth(dir, &p, &r);
		snprintf(trace, sizeof(trace), "%s%s", dir, kind ? "" : "/kernel");
		for (f = 0; f < 2; f++) {
			snprintf(cmd, sizeof(cmd), "'%s' '%s' %s --threads 1 | md5sum", evcat_path, trace, fmts[f]);
			one = unit_sh(cmd, &st);
			ck_assert_int_eq(st, 0);
			for (i = 0; i < sizeof(slices) / sizeof(slices[0]); i++) {
				snprintf(cmd, sizeof(cmd), "'%s' '%s' %s --threads 3 --slice-bytes %u | md5sum", evcat_path,
					 trace, fmts[f], slices[i]);
				many = unit_sh(cmd, &st);
				ck_assert_int_eq(st, 0);
				ck_assert_msg(!strcmp(one, many), "%s differs from --threads 1 (%s trace)", cmd,
					      kind ? "mixed" : "kernel");
				free(many);
			}
			free(one);
		}
		unit_rmtree(dir);
	}
}
END_TEST

/*
 * babeltrace's CTF test traces (tests/data, none written by evtrace): every
 * one refused with a line that says why, plain and sanitized; 45 of the 62
 * printed nothing with exit status 0, including traces babeltrace2 reads
 * and one with a metadata syntax error.
 */
START_TEST(evcat_refuses_other_ctf_traces)
{
	static const char *const whys[] = {
		"not an evtrace trace", "packetized metadata is not supported", "NUL byte in the metadata",
	};
	const char *const bins[] = { "bin/evcat", "tests/bin/evcat-san" };
	char dir[64], cmd[4096], build[900], *list, *line, *save = NULL;
	ssize_t n = readlink("/proc/self/exe", build, sizeof(build) - 1);
	unsigned int b, i, traces = 0;
	int st;

	ck_assert_msg(have_evcat() && n > 0, "no evcat beside the unit tests");
	build[n] = 0;
	*strrchr(build, '/') = 0;
	*strrchr(build, '/') = 0;
	unit_mktmp(dir, sizeof(dir), "trace");
	/* The unit tests run from the top of the tree. */
	snprintf(cmd, sizeof(cmd), "tar -xzf tests/data/babeltrace-ctf-test-traces.tar.gz -C '%s' && "
		 "cd '%s' && find . -name metadata | sort", dir, dir);
	list = unit_sh(cmd, &st);
	ck_assert_msg(st == 0, "cannot unpack tests/data/babeltrace-ctf-test-traces.tar.gz: %s", list);
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		*strrchr(line, '/') = 0;
		traces++;
		for (b = 0; b < 2; b++) {
			char *out;
			int ok = 0;

			snprintf(cmd, sizeof(cmd), "'%.900s/%s' '%s/%s' --count 2>&1", build, bins[b], dir, line);
			out = unit_sh(cmd, &st);
			for (i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
				ok |= strstr(out, whys[i]) != NULL;
			ck_assert_msg(st == 1 && ok && !strstr(out, "Sanitizer") && !strchr(out, '\n')[1],
				      "%s: exit %d: %s", cmd, st, out);
			free(out);
		}
	}
	ck_assert_uint_eq(traces, 62);
	free(list);
	unit_rmtree(dir);
}
END_TEST

/*
 * evcat's text of @dir (with @opts) is babeltrace2's, line for line, once
 * its "HOST name: { cpu_id = N }, { ... }" is put as "cpu N name: { ... }"
 * and evcat's context taken off ("comm/tid [CPU]" as "cpu N", an exit's
 * "syscall = NAME," dropped, prev_state's letters as the number); compared
 * sorted and without the delta, since equal timestamps on different CPUs
 * may come in another order. The context itself is checked against
 * evcat-ctx-check.py.
 */
static void same_text_as_babeltrace2(const char *dir, const char *opts)
{
	char cmd[2048], *a, *b;
	int st;

	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-gmt '%s' 2>/dev/null | sed -E "
		 "'s/ [^ ]+ ([a-z_0-9]+): \\{ cpu_id = ([0-9]+) \\}, \\{/ cpu \\2 \\1: {/; "
		 "s/ [^ ]+ ([a-z_0-9]+): \\{ cpu_id = ([0-9]+) \\}$/ cpu \\2 \\1: { }/; "
		 "s/\\(.[0-9?.]+\\) //' | LC_ALL=C sort | md5sum", dir);
	a = unit_sh(cmd, &st);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' %s | sed -E 's/\\(.[0-9?.]+\\) //; "
		 "s/^(\\[[^]]*\\]) [^[]* \\[0*([0-9]+)\\] /\\1 cpu \\2 /; s/^(.* exit_syscall: \\{) syscall = [^ ,]*,/\\1/; "
		 "s/prev_state = R,/prev_state = 0,/; s/prev_state = S,/prev_state = 1,/; "
		 "s/prev_state = D,/prev_state = 2,/; s/prev_state = T,/prev_state = 4,/; "
		 "s/prev_state = t,/prev_state = 8,/; s/prev_state = X,/prev_state = 16,/; "
		 "s/prev_state = Z,/prev_state = 32,/; s/prev_state = P,/prev_state = 64,/; "
		 "s/prev_state = I,/prev_state = 128,/' | LC_ALL=C sort | md5sum",
		 evcat_path, dir, opts);
	b = unit_sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(!strcmp(a, b), "evcat's text of %s is not babeltrace2's", dir);
	free(a);
	free(b);
}

/*
 * Decoding follows the trace's metadata, not this build's catalogue: events
 * renamed, ids swapped, fields renamed, a u64 shown in hex, a u64 split
 * into two u32, written the way a later catalogue would. evcat prints what
 * babeltrace2 prints of the same trace, and --event and --stats know the
 * new names (before, evcat printed this build's names and layouts).
 */
START_TEST(evcat_follows_the_metadata)
{
	static const struct {
		const char *from, *to;
	} edits[] = {
		{ "name = \"exit_syscall\";", "name = \"syscall_exit\";" },
		{ "int32_t id;\n\t\tint64a32_t ret;", "int32_t nr;\n\t\tint64a32_t ret;" },
		{ "uint64a32_t seq;", "uint64a32_hex_t seq;" },
		{ "uint64a32_hex_t a;", "uint32_t a_lo;\n\t\tuint32_t a_hi;" },
		{ "name = \"gen_compact\";\n\tid = 0;", "name = \"gen_compact\";\n\tid = 3;" },
		{ "name = \"timer_tick\";\n\tid = 3;", "name = \"timer_tick\";\n\tid = 0;" },
		{ "name = \"gen_normal\";", "name = \"filler\";" },
		{ "uint16_t fill_len;\n\t\tuint8_t fill[fill_len];",
		  "uint16_t bytes_len;\n\t\tuint8_t bytes[bytes_len];" },
	};
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], path[128], cmd[2560], *text, *out;
	uint64_t n_exit, n_tick;
	unsigned int i;
	FILE *f;
	long len;
	int st;

	require_evcat();
	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 6000;
	p.mix = 1;
	p.normal_pct = 20;
	unit_synth(dir, &p, &r);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event exit_syscall --count", evcat_path, dir);
	n_exit = sh_u64(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event gen_compact --count", evcat_path, dir);
	n_tick = sh_u64(cmd);
	ck_assert_uint_gt(n_exit, 0);
	ck_assert_uint_gt(n_tick, 0);

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char *t = unit_replaced(text, edits[i].from, edits[i].to);

		free(text);
		text = t;
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	free(text);

	same_text_as_babeltrace2(dir, "");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | grep -c 'syscall_exit: { nr = -\\?[0-9]*, ret = '",
		 evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n_exit);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event syscall_exit --count", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n_exit);
	/* What this build calls gen_compact (id 0) the metadata calls timer_tick. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event timer_tick --count", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n_tick);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | grep -m1 'gen_compact_wide: {'", evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_msg(strstr(out, ", a_lo = ") && strstr(out, ", a_hi = ") && strstr(out, ", b = 0x"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event filler --format json | grep -m1 -o '\"fields\":{[^}]*}'",
		 evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_msg(strstr(out, "\"bytes\":["), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event gen_compact --format json | grep -m1 -o '\"fields\":{[^}]*}'",
		 evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_msg(strstr(out, "\"seq\":\"0x"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --stats --format json", evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "\"syscall_exit\":") && !strstr(out, "\"exit_syscall\":"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event exit_syscall --count 2>&1", evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(out, "the trace has no event \"exit_syscall\"") && strstr(out, " syscall_exit"),
		      "%s", out);
	free(out);
	unit_rmtree(dir);
}
END_TEST

/*
 * A trace written by an earlier catalogue (tests/data: evtrace 0.1's module
 * and evdrain, every kind of event) reads as babeltrace2 reads it, with the
 * statistics recorded when it was made, whatever this build's catalogue is.
 */
START_TEST(evcat_reads_old_traces)
{
	static const char *const fixtures[] = { "evdrain-0.1-fixture", "evdrain-0.1-wide-fixture" };
	char dir[64], cmd[4096], *out;
	unsigned int i;
	int st;

	require_evcat();
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char trace[128];

		unit_mktmp(dir, sizeof(dir), "trace");
		uint64_t theirs;

		snprintf(cmd, sizeof(cmd), "tar -C '%s' -xJf 'tests/data/%s.tar.xz'", dir, fixtures[i]);
		ck_assert_int_eq(system(cmd), 0);
		snprintf(trace, sizeof(trace), "%s/%s", dir, fixtures[i]);
		snprintf(cmd, sizeof(cmd), "babeltrace2 -c sink.utils.counter '%s' 2>/dev/null | "
			 "awk '/Event messages/ { n = $1 } END { print n }'", trace);
		theirs = sh_u64(cmd);
		snprintf(cmd, sizeof(cmd), "'%s' '%s' --count", evcat_path, trace);
		ck_assert_uint_gt(theirs, 0);
		ck_assert_uint_eq(sh_u64(cmd), theirs);
		same_text_as_babeltrace2(trace, "");
		snprintf(cmd, sizeof(cmd), "'%s' '%s' --stats | tail -n +2 | diff -u 'tests/data/%s.stats' - 2>&1",
			 evcat_path, trace, fixtures[i]);
		out = unit_sh(cmd, &st);
		ck_assert_msg(st == 0, "%s: evcat --stats differs from tests/data/%s.stats:\n%s", fixtures[i],
			      fixtures[i], out);
		free(out);
		unit_rmtree(dir);
	}
}
END_TEST

START_TEST(evcat_against_babeltrace2)
{
	static uint8_t offline[4] = { 0, 1, 0, 0 };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], cmd[8192];
	uint64_t ours, theirs, n;
	char *out, *a, *b;
	int st;

	require_evcat();
	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 4;
	p.offline = offline;
	p.events = 30000;
	p.subbuf_size = 4096;
	p.num_subbuf = 4;
	p.mix = 1;
	p.normal_pct = 10;
	p.skew_ns = 2500;
	p.burst_every = 300;
	p.burst_len = 40;
	p.stall_every = 4000;
	p.stall_len = 2500;
	unit_synth(dir, &p, &r);
	ck_assert_uint_gt(r.discarded, 0);

	/* Counts: ours (both merges) = babeltrace2's = what was written. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --count", evcat_path, dir);
	ours = sh_u64(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --count --merge list", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), ours);
	snprintf(cmd, sizeof(cmd), "babeltrace2 -c sink.utils.counter '%s' 2>/dev/null | "
		 "awk '/Event messages/ { n = $1 } END { print n }'", dir);
	theirs = sh_u64(cmd);
	ck_assert_uint_eq(ours, theirs);
	ck_assert_uint_eq(ours, r.written);

	same_text_as_babeltrace2(dir, "");
	/* On threads, in small slices: byte for byte the same output. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --threads 1 | md5sum", evcat_path, dir);
	a = unit_sh(cmd, &st);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --threads 3 --slice-bytes 5000 --merge list | md5sum",
		 evcat_path, dir);
	b = unit_sh(cmd, &st);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --threads 1 --format json --stats | md5sum", evcat_path, dir);
	a = unit_sh(cmd, &st);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --threads 2 --slice-bytes 3000 --format json --stats | md5sum",
		 evcat_path, dir);
	b = unit_sh(cmd, &st);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	/* ... and the merged output is in time order. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | cut -c2-19 | LC_ALL=C sort -c && echo sorted",
		 evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_str_eq(out, "sorted\n");
	free(out);

	/* Stats: losses equal what the rings counted. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --stats --format json", evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	{
		char want[128];

		snprintf(want, sizeof(want), "\"events\":%llu,", (unsigned long long)r.written);
		ck_assert_msg(strstr(out, want), "%s", out);
		snprintf(want, sizeof(want), "\"discarded\":%llu,", (unsigned long long)r.discarded);
		ck_assert_msg(strstr(out, want), "%s", out);
		ck_assert_ptr_nonnull(strstr(out, "\"lost_packets\":0,"));
	}
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --stats", evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "losses: "));
	ck_assert_ptr_nonnull(strstr(out, "gen_compact_wide"));
	free(out);

	/* JSON: one object per event line. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --format json | grep -c '^{\"ts\":[0-9]*,\"time\":\"2023-.*Z\",\"cpu\":[0-9]*,\"tid\":[-0-9nul]*,\"pid\":[-0-9nul]*,\"comm\":\\(null\\|\".*\"\\),\"event\":\"[a-z_0-9]*\"\\(,\"syscall\":\"[a-z_0-9]*\",\"syscall_from\":\"[a-z]*\"\\)\\?,\"fields\":{.*}}$'",
		 evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), r.written);

	/* Filters: CPUs, events, a time window (ends included). */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --cpu 0,2-3 --count", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), ours);	/* CPU 1 is offline */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --cpu 2 --count", evcat_path, dir);
	n = sh_u64(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | grep -c ') [^[]* \\[002\\] '", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event gen_ping --event timer_tick,gen_normal --count",
		 evcat_path, dir);
	n = sh_u64(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | grep -c ' \\(gen_ping\\|timer_tick\\|gen_normal\\): '",
		 evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n);
	{
		uint64_t t0 = r.first_ts + 2000000, t1 = r.first_ts + 3000000;

		snprintf(cmd, sizeof(cmd), "'%s' '%s' --from @%llu --to @%llu --format json | "
			 "awk -F'[:,]' '$2 < %llu || $2 > %llu { bad++ } END { print NR + 1000000000 * bad }'",
			 evcat_path, dir, (unsigned long long)t0, (unsigned long long)t1,
			 (unsigned long long)t0, (unsigned long long)t1);
		n = sh_u64(cmd);
		ck_assert_uint_gt(n, 0);
		ck_assert_uint_lt(n, 1000000000);
		/* The same window as UTC times of day and as seconds after the start. */
		snprintf(cmd, sizeof(cmd), "'%s' '%s' --from 22:30:00.002 --to 22:30:00.003 --count",
			 evcat_path, dir);
		ck_assert_uint_eq(sh_u64(cmd), n);
		snprintf(cmd, sizeof(cmd), "'%s' '%s' --from +0.002 --to '2023-11-14 22:30:00.003' --count",
			 evcat_path, dir);
		ck_assert_uint_eq(sh_u64(cmd), n);
	}

	/* Exit codes: usage 2, trace errors 1 with the file and offset. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --bogus 2>&1", evcat_path, dir);
	free(unit_sh(cmd, &st));
	ck_assert_int_eq(st, 2);
	snprintf(cmd, sizeof(cmd), "'%s' 2>&1", evcat_path);
	free(unit_sh(cmd, &st));
	ck_assert_int_eq(st, 2);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event nosuch 2>&1", evcat_path, dir);
	free(unit_sh(cmd, &st));
	ck_assert_int_eq(st, 2);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --from yesterday 2>&1", evcat_path, dir);
	free(unit_sh(cmd, &st));
	ck_assert_int_eq(st, 2);
	snprintf(cmd, sizeof(cmd), "'%s' --help", evcat_path);
	out = unit_sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "Exit status"));
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' /nonexistent/trace 2>&1", evcat_path);
	free(unit_sh(cmd, &st));
	ck_assert_int_eq(st, 1);
	snprintf(cmd, sizeof(cmd), "truncate -s -100 '%s/compact_2' && '%s' '%s' 2>&1 >/dev/null",
		 dir, evcat_path, dir);
	out = unit_sh(cmd, &st);
	ck_assert_int_eq(st, 1);
	ck_assert_msg(strstr(out, "compact_2: offset ") && strstr(out, "truncated packet"), "%s", out);
	free(out);
	unit_rmtree(dir);
}
END_TEST

/* The trace suite's "evcat" case. */
void trace_evcat_tests(TCase *tc)
{
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, evcat_against_babeltrace2);
	tcase_add_test(tc, evcat_follows_the_metadata);
	tcase_add_test(tc, evcat_reads_old_traces);
	tcase_add_test(tc, evcat_refuses_bad_input);
	tcase_add_test(tc, evcat_file_cut_while_read);
	tcase_add_test(tc, evcat_says_losses);
	tcase_add_test(tc, evcat_context_against_reference);
	tcase_add_test(tc, evcat_threads_print_what_one_thread_prints);
	tcase_add_test(tc, evcat_refuses_other_ctf_traces);
}
