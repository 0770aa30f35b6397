// SPDX-License-Identifier: GPL-2.0
/*
 * evdrain: drain evtrace's per-CPU rings into a CTF trace directory.
 *
 * Woken by the module's "notify" multicast (HIGH_WATER, FLUSHED, CPU_ONLINE)
 * and by a slow fallback timer; per ring it takes whole sub-buffers and
 * splices them device -> pipe -> file without copying (sendfile), releasing
 * each as it takes the next (PUT_GET_NEXT_SUBBUF). Files only ever hold whole packets:
 * a write that fails half-way is cut back to the last whole packet.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <evtrace/abi.h>
#include "evt_ctl.h"
#include "evt_io.h"
#include "evt_decode.h"
#include "evt_format.h"
#include "evt_reorder.h"
#include "evt_trace.h"

/* EVT_VERSION: the top-level VERSION file, passed by the Makefile. */
#ifndef EVT_VERSION
#define EVT_VERSION "unknown"
#endif

#define EXIT_OK		0
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define EXIT_RUNNING	3
#define EXIT_NOMODULE	4
#define EXIT_OUTDIR	5
#define EXIT_WRITE	6

#define MAX_RINGS	1024
#define FALLBACK_MS	1000
/*
 * A ring whose last pass took packets is looked at again after this nap
 * instead of at its next high-water wakeup: under a steady flow the drainer
 * stays a few sub-buffers behind the writer, not 70 % of a ring behind with
 * only the scheduler's wakeup latency between it and a loss. A pass that
 * finds nothing returns the ring to notifications alone (no busy polling).
 */
#define BUSY_NAP_MS	2

static const char usage_text[] =
"usage: evdrain -o DIR [options]\n"
"       evdrain --live [-o DIR] [--format text|json] [--delay-ticks D] [--tick-ms MS] [options]\n"
"Drain evtrace's rings into DIR as a CTF 1.8 trace (DIR/metadata and one\n"
"stream file per channel and CPU: DIR/compact_0, DIR/normal_3, ...).\n"
"\n"
"  -o, --output DIR         trace directory (created if missing)\n"
"  -d, --duration S         stop after S seconds (default: until SIGINT/SIGTERM)\n"
"  -c, --channels LIST      compact,normal (default both)\n"
"  -m, --mode MODE          discard or overwrite: set before starting\n"
"  -a, --attach             drain a session that is already tracing: do not\n"
"                           configure or start it; append to DIR's files\n"
"      --copy               read()/write() instead of splicing (sendfile())\n"
"  -q, --quiet              no progress line, no summary\n"
"      --stats-json FILE    write the final summary as JSON to FILE\n"
"      --live               print the merged, time-ordered stream while draining\n"
"                           (watermark reordering; -o still writes DIR)\n"
"      --format FMT         text (default) or json, with --live\n"
"      --delay-ticks D      emit up to the watermark of D ticks ago (default 2)\n"
"      --tick-ms MS         tick period (default 100)\n"
"  -V, --version            print the version and exit\n"
"  -h, --help               this text\n"
"\n"
"On SIGINT, SIGTERM or the end of --duration it stops tracing, flushes, drains\n"
"everything, fsyncs and prints a summary. On a terminal it prints a progress\n"
"line every second.\n"
"\n"
"Exit status: 0 done; 1 the kernel refused or another runtime error; 2 usage;\n"
"3 another evdrain is running; 4 module not loaded or no permission;\n"
"5 DIR is not writable; 6 a write failed (disk full): tracing is stopped and\n"
"every whole packet written so far stays readable.\n";

struct ring {
	int fd;
	int ready;		/* poll() said it has a whole sub-buffer */
	int busy;		/* the last pass took packets: BUSY_NAP_MS */
	int out;
	unsigned int channel;
	int cpu;
	char name[32];
	off_t size;		/* bytes of whole packets in the file */
	uint64_t packets;
	int copy;		/* zero-copy refused by the file system: copy */
	uint64_t packet;	/* bytes per packet (the sub-buffer size), asked once */
};

static struct ring rings[MAX_RINGS];
static int nr_rings;
static volatile sig_atomic_t stop_requested;
static int use_copy, quiet, want_chan[EVT_NR_CHANNELS] = { 1, 1 };
static const char *outdir;
static char *copybuf;
static size_t copybuf_size;
static uint64_t bytes_written;
static uint64_t packet_bytes = 4096;	/* the module's subbuf_size */
static int write_failed;
static char write_error[512];

/* --live: every drained packet is decoded into the watermark reorderer. */
static int live;
static struct evt_reorder reorder;
static struct evt_fmt live_fmt;
static struct evt_out live_out;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One evdrain at a time: a lock file with our pid in it. */
static int take_lock(void)
{
	const char *dirs[] = { "/run", "/var/run", "/tmp" };
	char path[256], buf[32];
	unsigned int i;
	int fd = -1;

	for (i = 0; i < 3 && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/evdrain.lock", dirs[i]);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		return 0;	/* nowhere to lock: the devices' one-reader rule still holds */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "evdrain is already running (pid %ld); stop it first\n",
			strtol(buf, NULL, 10));
		return -1;
	}
	if (ftruncate(fd, 0) == 0) {
		int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

		if (write(fd, buf, (size_t)n) < 0)
			return 0;
	}
	return 0;	/* the descriptor stays open: the lock lives as long as we do */
}

/*
 * DIR/metadata, written whole under another name and renamed: called before
 * START (a drainer killed early still leaves a readable trace) and again
 * after it, because the module takes the realtime clock's offset at START.
 */
static int copy_metadata(void)
{
	char path[4096], tmp[4200], buf[65536];
	int in, out;
	ssize_t n;

	in = open("/dev/evtrace/metadata", O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(stderr, "evdrain: cannot open /dev/evtrace/metadata: %s\n", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/metadata", outdir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		fprintf(stderr, "evdrain: cannot write %s: %s\n", tmp, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (evt_write_all(out, buf, (size_t)n)) {
			fprintf(stderr, "evdrain: cannot write %s: %s\n", path, strerror(errno));
			close(in);
			close(out);
			return -1;
		}
	}
	fsync(out);
	close(in);
	close(out);
	if (rename(tmp, path)) {
		fprintf(stderr, "evdrain: cannot rename %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	return 0;
}

static int have_ring(unsigned int ch, int cpu)
{
	int i;

	for (i = 0; i < nr_rings; i++)
		if (rings[i].channel == ch && rings[i].cpu == cpu)
			return 1;
	return 0;
}

/* Open every ring device not open yet (CPUs may come online later). */
static int open_rings(int append)
{
	static const char *const chans[EVT_NR_CHANNELS] = { "compact", "normal" };
	unsigned int ch;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		char dir[64];
		DIR *d;
		struct dirent *de;

		if (!want_chan[ch])
			continue;
		snprintf(dir, sizeof(dir), "/dev/evtrace/%s", chans[ch]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d)) && nr_rings < MAX_RINGS) {
			struct ring *r = &rings[nr_rings];
			char path[4096];
			int cpu;
			struct stat st;

			if (sscanf(de->d_name, "cpu%d", &cpu) != 1 || have_ring(ch, cpu))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			r->fd = open(path, O_RDONLY | O_CLOEXEC);
			if (r->fd < 0) {
				fprintf(stderr, "evdrain: cannot open %s: %s%s\n", path, strerror(errno),
					errno == EBUSY ? " (another reader has it)" : "");
				closedir(d);
				return -1;
			}
			r->channel = ch;
			r->cpu = cpu;
			snprintf(r->name, sizeof(r->name), "%s_%d", chans[ch], cpu);
			r->packets = 0;
			r->packet = 0;
			r->copy = use_copy || live;	/* --live reads the bytes itself */
			r->size = 0;
			r->out = -1;
			if (!outdir) {
				nr_rings++;
				continue;
			}
			snprintf(path, sizeof(path), "%s/%s", outdir, r->name);
			r->out = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? 0 : O_TRUNC), 0644);
			if (r->out < 0) {
				fprintf(stderr, "evdrain: cannot write %s: %s\n", path, strerror(errno));
				close(r->fd);
				closedir(d);
				return -1;
			}
			/* Appending: start after the last whole packet already there. */
			fstat(r->out, &st);
			r->size = st.st_size;
			if (append && r->size % (off_t)packet_bytes) {
				r->size -= r->size % (off_t)packet_bytes;
				if (ftruncate(r->out, r->size))
					r->size = st.st_size;
			}
			lseek(r->out, r->size, SEEK_SET);
			nr_rings++;
		}
		closedir(d);
	}
	return 0;
}

/*
 * Copy the held sub-buffer (@len bytes) to the ring's file. Zero-copy:
 * sendfile() from the ring device, which the kernel runs as a splice of the
 * sub-buffer's own pages into its internal pipe and from there into the file
 * (one system call per packet instead of splice in + splice out). A file
 * system that cannot take it gets the bytes copied, from then on.
 */
static int write_packet(struct ring *r, size_t len)
{
	size_t left = len;

	while (!r->copy && left) {
		ssize_t n = sendfile(r->out, r->fd, NULL, left);

		if (n < 0 && (errno == EINVAL || errno == ENOSYS) && left == len) {
			r->copy = 1;
			break;
		}
		if (n == 0)
			errno = EIO;	/* the device had less than a packet */
		if (n <= 0)
			return -1;
		left -= (size_t)n;
	}
	if (!r->copy)
		return 0;
	/* Copy: into copybuf (which --live decodes), then to the file if there is one. */
	if (len > copybuf_size) {
		free(copybuf);
		copybuf = malloc(len);
		copybuf_size = copybuf ? len : 0;
		if (!copybuf)
			return -1;
	}
	/* A sub-buffer just taken reads from its start (GET sets the offset). */
	if (read(r->fd, copybuf, len) != (ssize_t)len)
		return -1;
	return r->out < 0 ? 0 : evt_write_all(r->out, copybuf, len);
}

/* --live: the packet in copybuf goes into the reorderer, source = ring index. */
static void live_push(struct ring *r, size_t len)
{
	struct evt_packet_iter it;
	struct evt_event ev;
	int rc;

	if (evt_packet_iter_init(&it, copybuf, len)) {
		fprintf(stderr, "evdrain: %s: %s\n", r->name, it.err);
		return;
	}
	while ((rc = evt_packet_next(&it, &ev)) == 1)
		evt_reorder_push_event(&reorder, (uint32_t)(r - rings), (uint32_t)r->cpu, &ev);
	if (rc < 0)
		fprintf(stderr, "evdrain: %s: %s\n", r->name, it.err);
}

/* --live: print what the watermark lets out. */
static void live_emit(void)
{
	struct evt_reorder_item it;

	while (evt_reorder_pull(&reorder, &it) == 1)
		evt_fmt_event(&live_fmt, &live_out, it.ts, it.cpu, &evt_events[it.desc], it.data,
			      it.len, it.flags & EVT_REORDER_LATE ? EVT_FMT_LATE : 0);
	evt_out_flush(&live_out);
}

/*
 * Take, write and release every complete sub-buffer of @r: one ioctl per
 * packet releases the one written and takes the next (nothing is held when
 * this returns).
 */
static int drain_ring(struct ring *r)
{
	int got = 0;

	r->busy = 0;
	while (!write_failed) {
		if (ioctl(r->fd, EVT_IOC_PUT_GET_NEXT_SUBBUF) < 0) {
			if (errno != EAGAIN) {
				fprintf(stderr, "evdrain: PUT_GET_NEXT_SUBBUF on %s: %s\n", r->name, strerror(errno));
				return -1;
			}
			r->busy = got > 0;
			return got;
		}
		/* Every packet is a whole sub-buffer, padding included: ask once. */
		if (!r->packet && ioctl(r->fd, EVT_IOC_GET_PADDED_SUBBUF_SIZE, &r->packet) < 0) {
			fprintf(stderr, "evdrain: GET_PADDED_SUBBUF_SIZE on %s: %s\n", r->name, strerror(errno));
			r->packet = 0;
			return -1;
		}
		if (write_packet(r, (size_t)r->packet)) {
			int err = errno;

			/* Keep whole packets only: cut the half-written one off. */
			if (ftruncate(r->out, r->size) == 0)
				lseek(r->out, r->size, SEEK_SET);
			snprintf(write_error, sizeof(write_error), "writing %s/%s: %s", outdir,
				 r->name, strerror(err));
			write_failed = 1;
			ioctl(r->fd, EVT_IOC_PUT_NEXT_SUBBUF);
			return -1;
		}
		if (live)
			live_push(r, (size_t)r->packet);
		r->size += (off_t)r->packet;
		r->packets++;
		bytes_written += r->packet;
		got++;
	}
	return -1;
}

static void drain_all(void)
{
	int i;

	for (i = 0; i < nr_rings && !write_failed; i++)
		drain_ring(&rings[i]);
}

struct wake {
	int drain_all;
	int rescan;
	int channel;
	int cpu;
};

static void on_notify(const struct evt_notification *n, void *arg)
{
	struct wake *w = arg;

	switch (n->reason) {
	case EVT_NOTIFY_CPU_ONLINE:
		w->rescan = 1;
		w->drain_all = 1;
		break;
	case EVT_NOTIFY_HIGH_WATER:
	case EVT_NOTIFY_FLUSHED:
	case EVT_NOTIFY_DISCARDING:
	case EVT_NOTIFY_CPU_OFFLINE:
		if (w->channel == -2) {
			w->channel = n->channel;
			w->cpu = n->cpu;
		} else if (w->channel != n->channel || w->cpu != n->cpu) {
			w->drain_all = 1;
		}
		break;
	default:
		break;
	}
}

/*
 * Sleep until a notification or a ring's own wakeup. The rings' poll wakes
 * at the high-water mark straight from the recording CPU's irq_work, which
 * is quicker than the netlink message (sent from a work item): with one CPU
 * generating flat out, that latency decides whether the ring overflows. The
 * netlink side still brings what poll cannot: CPUs coming online, flushes,
 * first losses. Return: as evt_ctl_notify_wait().
 */
static int wait_for_work(struct evt_ctl *ctl, int timeout_ms, struct wake *w)
{
	static struct pollfd pfd[MAX_RINGS + 1];
	int i, n, ret;

	pfd[0].fd = evt_ctl_notify_fd(ctl);
	pfd[0].events = POLLIN;
	for (i = 0; i < nr_rings; i++) {
		pfd[i + 1].fd = rings[i].fd;
		pfd[i + 1].events = POLLIN;
	}
	n = poll(pfd, (nfds_t)nr_rings + 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return 0;
	for (i = 0; i < nr_rings; i++)
		if (pfd[i + 1].revents & POLLIN)
			rings[i].ready = 1;
	ret = 0;
	if (pfd[0].revents & POLLIN)
		ret = evt_ctl_notify_read(ctl, on_notify, w);
	return ret;
}

static void totals(struct evt_ctl *ctl, struct evt_status *st, uint64_t *rec, uint64_t *disc,
		   uint64_t *over)
{
	size_t i;

	*rec = *disc = *over = 0;
	evt_status_init(st);
	if (evt_ctl_status(ctl, st))
		return;
	for (i = 0; i < st->nr_rings; i++) {
		if (!want_chan[st->rings[i].channel])
			continue;
		*rec += st->rings[i].recorded;
		*disc += st->rings[i].discarded + st->rings[i].too_big + st->rings[i].refused;
		*over += st->rings[i].overwritten;
	}
}

static void summary(struct evt_ctl *ctl, const char *json_path, double secs)
{
	struct evt_status st;
	uint64_t rec, disc, over;
	FILE *js = NULL;
	size_t i;

	totals(ctl, &st, &rec, &disc, &over);
	if (json_path) {
		js = fopen(json_path, "w");
		if (!js)
			fprintf(stderr, "evdrain: cannot write %s: %s\n", json_path, strerror(errno));
	}
	if (!quiet) {
		printf("evdrain: %.1f s, %llu bytes in %s\n", secs, (unsigned long long)bytes_written,
		       outdir ? outdir : "(no directory)");
		printf("%-8s %4s %12s %12s %12s %12s %10s\n", "channel", "cpu", "recorded", "discarded",
		       "overwritten", "bytes", "packets");
	}
	if (js)
		fprintf(js, "{\"seconds\": %.3f, \"bytes\": %llu, \"dir\": \"%s\", \"rings\": [", secs,
			(unsigned long long)bytes_written, outdir ? outdir : "");
	for (i = 0; i < st.nr_rings; i++) {
		const struct evt_status_ring *sr = &st.rings[i];
		uint64_t bytes = 0, packets = 0;
		int j;

		if (!want_chan[sr->channel])
			continue;
		for (j = 0; j < nr_rings; j++) {
			if (rings[j].channel == sr->channel && rings[j].cpu == (int)sr->cpu) {
				bytes = (uint64_t)rings[j].size;
				packets = rings[j].packets;
			}
		}
		if (!quiet)
			printf("%-8s %4u %12llu %12llu %12llu %12llu %10llu\n",
			       sr->channel ? "normal" : "compact", sr->cpu,
			       (unsigned long long)sr->recorded,
			       (unsigned long long)(sr->discarded + sr->too_big + sr->refused),
			       (unsigned long long)sr->overwritten, (unsigned long long)bytes,
			       (unsigned long long)packets);
		if (js)
			fprintf(js, "%s{\"channel\": \"%s\", \"cpu\": %u, \"recorded\": %llu, "
				"\"discarded\": %llu, \"overwritten\": %llu, \"bytes\": %llu, \"packets\": %llu}",
				i ? ", " : "", sr->channel ? "normal" : "compact", sr->cpu,
				(unsigned long long)sr->recorded,
				(unsigned long long)(sr->discarded + sr->too_big + sr->refused),
				(unsigned long long)sr->overwritten, (unsigned long long)bytes,
				(unsigned long long)packets);
	}
	if (!quiet)
		printf("%-8s %4s %12llu %12llu %12llu %12llu\n", "total", "", (unsigned long long)rec,
		       (unsigned long long)disc, (unsigned long long)over,
		       (unsigned long long)bytes_written);
	if (js) {
		fprintf(js, "], \"recorded\": %llu, \"discarded\": %llu, \"overwritten\": %llu}\n",
			(unsigned long long)rec, (unsigned long long)disc, (unsigned long long)over);
		fclose(js);
	}
	evt_status_free(&st);
}

static void sync_all(void)
{
	int i, dfd;

	if (!outdir)
		return;
	for (i = 0; i < nr_rings; i++)
		fsync(rings[i].out);
	dfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "channels", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "attach", no_argument, NULL, 'a' },
		{ "copy", no_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stats-json", required_argument, NULL, 'j' },
		{ "live", no_argument, NULL, 'L' },
		{ "format", required_argument, NULL, 'F' },
		{ "delay-ticks", required_argument, NULL, 'D' },
		{ "tick-ms", required_argument, NULL, 'T' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json_path = NULL;
	enum evt_fmt_kind live_kind = EVT_FMT_TEXT;
	long delay_ticks = 2, tick_ms = 100;
	uint64_t last_tick;
	double duration = 0;
	int mode = -1, attach = 0, c, ret, rc = EXIT_OK, tty;
	struct evt_ctl *ctl = NULL;
	struct sigaction sa;
	uint64_t start_ms, last_progress, last_drain, last_rec = 0, last_bytes = 0;
	char probe[4096];

	while ((c = getopt_long(argc, argv, "o:d:c:m:aqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			outdir = optarg;
			break;
		case 'd': {
			char *end;

			duration = strtod(optarg, &end);
			if (*end || duration <= 0) {
				fprintf(stderr, "evdrain: --duration wants a positive number of seconds\n");
				return EXIT_USAGE;
			}
			break;
		}
		case 'c': {
			char *s = strdup(optarg), *tok, *save = NULL;

			want_chan[0] = want_chan[1] = 0;
			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (!strcmp(tok, "compact")) {
					want_chan[EVT_CHAN_COMPACT] = 1;
				} else if (!strcmp(tok, "normal")) {
					want_chan[EVT_CHAN_NORMAL] = 1;
				} else {
					fprintf(stderr, "evdrain: unknown channel '%s' (compact, normal)\n", tok);
					free(s);
					return EXIT_USAGE;
				}
			}
			free(s);
			break;
		}
		case 'm':
			if (!strcmp(optarg, "discard")) {
				mode = 0;
			} else if (!strcmp(optarg, "overwrite")) {
				mode = 1;
			} else {
				fprintf(stderr, "evdrain: --mode is discard or overwrite\n");
				return EXIT_USAGE;
			}
			break;
		case 'a':
			attach = 1;
			break;
		case 'C':
			use_copy = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'L':
			live = 1;
			break;
		case 'F':
			if (!strcmp(optarg, "text")) {
				live_kind = EVT_FMT_TEXT;
			} else if (!strcmp(optarg, "json")) {
				live_kind = EVT_FMT_JSON;
			} else {
				fprintf(stderr, "evdrain: --format is text or json\n");
				return EXIT_USAGE;
			}
			break;
		case 'D':
		case 'T': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || v < (c == 'D' ? 0 : 1) || v > 100000) {
				fprintf(stderr, "evdrain: --%s wants a number%s\n",
					c == 'D' ? "delay-ticks" : "tick-ms", c == 'D' ? " >= 0" : " >= 1");
				return EXIT_USAGE;
			}
			if (c == 'D')
				delay_ticks = v;
			else
				tick_ms = v;
			break;
		}
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case 'V':
			printf("evdrain %s\n", EVT_VERSION);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return EXIT_USAGE;
		}
	}
	if ((!outdir && !live) || optind != argc) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (attach && mode >= 0) {
		fprintf(stderr, "evdrain: --attach leaves the session as it is: no --mode\n");
		return EXIT_USAGE;
	}
	/* Early: a stop that comes during set-up still stops cleanly. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (take_lock())
		return EXIT_RUNNING;
	ret = evt_ctl_open(&ctl);
	if (ret) {
		fprintf(stderr, "evdrain: %s\n", evt_ctl_strerror(ret));
		return EXIT_NOMODULE;
	}
	if (!outdir)
		goto no_outdir;
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		fprintf(stderr, "evdrain: cannot create %s: %s\n", outdir, strerror(errno));
		return EXIT_OUTDIR;
	}
	snprintf(probe, sizeof(probe), "%s/.evdrain-probe", outdir);
	c = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c < 0) {
		fprintf(stderr, "evdrain: %s is not writable: %s\n", outdir, strerror(errno));
		return EXIT_OUTDIR;
	}
	close(c);
	unlink(probe);
no_outdir:

	ret = evt_ctl_subscribe(ctl);
	if (ret) {
		fprintf(stderr, "evdrain: cannot join the notify group: %s\n", evt_ctl_errmsg(ctl));
		return EXIT_RUNTIME;
	}
	{
		struct evt_status st;

		evt_status_init(&st);
		if (evt_ctl_status(ctl, &st) == 0 && st.subbuf_size)
			packet_bytes = st.subbuf_size;
		if (!attach && st.tracing) {
			fprintf(stderr, "evdrain: tracing is already running: use --attach to drain it\n");
			evt_status_free(&st);
			return EXIT_RUNTIME;
		}
		evt_status_free(&st);
	}
	if (!attach) {
		if (mode >= 0) {
			struct evt_config cfg = { .set = EVT_CFG_MODE, .mode = mode };

			if (evt_ctl_config(ctl, &cfg)) {
				fprintf(stderr, "evdrain: the kernel refused the mode: %s\n", evt_ctl_errmsg(ctl));
				return EXIT_RUNTIME;
			}
		}
	}
	if ((outdir && copy_metadata()) || open_rings(attach))
		return EXIT_OUTDIR;
	if (!nr_rings) {
		fprintf(stderr, "evdrain: no ring devices under /dev/evtrace\n");
		return EXIT_RUNTIME;
	}
	if (!attach && evt_ctl_start(ctl)) {
		fprintf(stderr, "evdrain: the kernel refused to start: %s\n", evt_ctl_errmsg(ctl));
		return EXIT_RUNTIME;
	}
	/* The clock offset the module took at START. */
	if (outdir && copy_metadata())
		return EXIT_OUTDIR;
	if (live) {
		struct evt_metadata meta = { 0 };
		char *text = NULL, err[256] = "cannot open it";
		size_t len = 0;
		int mfd = open("/dev/evtrace/metadata", O_RDONLY | O_CLOEXEC);
		int bad = mfd < 0 || evt_metadata_read(mfd, &text, &len, err, sizeof(err)) ||
			  evt_metadata_parse(text, len, &meta, err, sizeof(err));

		if (mfd >= 0)
			close(mfd);
		free(text);
		if (bad) {
			fprintf(stderr, "evdrain: the module's metadata: %s\n", err);
			return EXIT_RUNTIME;
		}
		if (evt_reorder_init(&reorder, MAX_RINGS, (uint32_t)delay_ticks, EVT_MERGE_TREE) ||
		    evt_fmt_init(&live_fmt, live_kind, evt_metadata_offset_ns(&meta)) ||
		    evt_out_init(&live_out, STDOUT_FILENO, 1 << 16)) {
			fprintf(stderr, "evdrain: out of memory\n");
			return EXIT_RUNTIME;
		}
		quiet = 1;	/* stdout carries the events */
		/* Sources without a ring would hold the watermark back. */
		for (int i = nr_rings; i < MAX_RINGS; i++)
			evt_reorder_source_done(&reorder, (uint32_t)i);
	}
	tty = isatty(STDOUT_FILENO) && !quiet;
	start_ms = last_progress = last_drain = last_tick = now_ms();
	while (!stop_requested && !write_failed) {
		struct wake w = { .channel = -2 };
		uint64_t t;
		int i;

		int timeout = live ? (int)tick_ms : 250;

		for (i = 0; i < nr_rings; i++)
			if (rings[i].busy && timeout > BUSY_NAP_MS)
				timeout = BUSY_NAP_MS;
		ret = wait_for_work(ctl, timeout, &w);
		t = now_ms();
		if (live && t - last_tick >= (uint64_t)tick_ms) {
			/*
			 * A tick: each ring flushes and says before when nothing new
			 * can come (its quiescent time), is drained, and then the
			 * watermark moves.
			 */
			for (i = 0; i < nr_rings; i++) {
				struct evt_quiescent q;

				if (ioctl(rings[i].fd, EVT_IOC_GET_QUIESCENT, &q) == 0) {
					drain_ring(&rings[i]);
					evt_reorder_quiescent(&reorder, (uint32_t)i, q.timestamp);
				}
			}
			evt_reorder_tick(&reorder);
			live_emit();
			last_tick = t;
			last_drain = t;
		}
		if (ret == -ENOBUFS)
			w.drain_all = 1;	/* notifications were lost: look everywhere */
		if (w.rescan) {
			int before = nr_rings;

			if (open_rings(1))
				break;
			for (i = before; live && i < nr_rings; i++)
				evt_reorder_source_add(&reorder, (uint32_t)i);
		}
		if (w.drain_all || t - last_drain >= FALLBACK_MS) {
			drain_all();
			last_drain = t;
		} else {
			for (i = 0; i < nr_rings; i++)
				if (rings[i].ready || rings[i].busy ||
				    ((int)rings[i].channel == w.channel && rings[i].cpu == w.cpu))
					drain_ring(&rings[i]);
		}
		for (i = 0; i < nr_rings; i++)
			rings[i].ready = 0;
		if (duration > 0 && t - start_ms >= (uint64_t)(duration * 1000))
			break;
		if (tty && t - last_progress >= 1000) {
			struct evt_status st;
			uint64_t rec, disc, over;

			totals(ctl, &st, &rec, &disc, &over);
			evt_status_free(&st);
			printf("\r%10.0f events/s %8.2f MB/s  discarded %llu  ",
			       (double)(rec - last_rec) * 1000.0 / (double)(t - last_progress),
			       (double)(bytes_written - last_bytes) / 1e6 * 1000.0 / (double)(t - last_progress),
			       (unsigned long long)disc);
			fflush(stdout);
			last_rec = rec;
			last_bytes = bytes_written;
			last_progress = t;
		}
	}
	if (tty)
		printf("\n");
	/* Stop (the kernel closes every partial sub-buffer), then take everything. */
	if (evt_ctl_stop(ctl)) {
		fprintf(stderr, "evdrain: the kernel refused to stop: %s\n", evt_ctl_errmsg(ctl));
		rc = EXIT_RUNTIME;
	}
	if (!write_failed) {
		int i;

		/*
		 * Drain, then flush again: losses after the last closed packet
		 * need a free sub-buffer to be carried in a packet.
		 */
		drain_all();
		for (i = 0; i < nr_rings; i++)
			ioctl(rings[i].fd, EVT_IOC_FLUSH);
		drain_all();
	}
	sync_all();
	if (live) {
		evt_reorder_finish(&reorder);
		live_emit();
		if (reorder.st.late)
			fprintf(stderr, "evdrain: %llu events arrived after their time was emitted (flagged late)\n",
				(unsigned long long)reorder.st.late);
	}
	if (write_failed) {
		fprintf(stderr, "evdrain: %s; tracing stopped, every whole packet so far is in %s\n",
			write_error, outdir);
		rc = EXIT_WRITE;
	}
	summary(ctl, json_path, (double)(now_ms() - start_ms) / 1000.0);
	evt_ctl_close(ctl);
	return rc;
}
