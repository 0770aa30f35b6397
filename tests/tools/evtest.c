// SPDX-License-Identifier: GPL-2.0
/*
 * evtest: the VM tests' reader and checker.
 *
 *   evtest drain DIR [--sleep-ms N] [--splice] [--hold-first]
 *       Read every /dev/evtrace/<channel>/cpuN into DIR/<channel>_<cpu>
 *       (whole packets) plus DIR/metadata, until SIGTERM/SIGINT; then flush
 *       and read what is left. --sleep-ms throttles the reader (a slow
 *       drainer); --hold-first takes one sub-buffer of compact/cpu0, keeps
 *       it while draining nothing else of that ring until the signal, and
 *       writes its bytes to DIR/held.bin on taking it and DIR/held-end.bin
 *       before releasing it.
 *   evtest poll DEVICE [TIMEOUT_MS]
 *       Wait for POLLIN; print the ring's fill and counters when it comes.
 *   evtest check DIR [--gen-events N] [--exact]
 *       Decode every stream file strictly; check per-file timestamp order
 *       and packet bounds; for generator events, each (channel, cpu, seq)
 *       at most once (--exact: every seq 0..N-1 exactly once;
 *       --contiguous: every seq from the lowest to the highest seen). Prints
 *       "channel cpu events" lines and a total.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "consumer/evt_consumer.h"
#include "ctf/evt_decode.h"
#include "util/evt_io.h"
#include "ctf/evt_metadata.h"
#include "ctf/evt_trace.h"

#define MAX_RINGS 512

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Copy the held sub-buffer, from its start, to DIR/NAME (written aside, renamed). */
static void dump_held(struct evt_consumer_ring *r, const char *dir, const char *name)
{
	char path[512], final[512];
	uint8_t *buf = malloc(r->packet);
	ssize_t n;
	int out;

	if (!buf || lseek(r->fd, 0, SEEK_SET) != 0) {
		fprintf(stderr, "evtest: cannot re-read the held sub-buffer: %s\n", strerror(errno));
		exit(1);
	}
	n = read(r->fd, buf, r->packet);
	if (n != (ssize_t)r->packet) {
		fprintf(stderr, "evtest: short read of the held sub-buffer\n");
		exit(1);
	}
	/* A test polling for the file never sees half of it. */
	snprintf(path, sizeof(path), "%s/.%s.tmp", dir, name);
	snprintf(final, sizeof(final), "%s/%s", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || evt_write_all(out, buf, (size_t)n) || close(out) || rename(path, final)) {
		fprintf(stderr, "evtest: cannot write %s: %s\n", final, strerror(errno));
		exit(1);
	}
	free(buf);
}

static void drain_or_die(struct evt_consumer *c, struct evt_consumer_ring *r)
{
	if (evt_consumer_drain(c, r) < 0) {
		fprintf(stderr, "evtest: %s\n", c->err);
		exit(1);
	}
}

/* The consumer library, driven by a plain loop (and a slow one with --sleep-ms). */
static int cmd_drain(int argc, char **argv)
{
	struct evt_consumer_opts o = { .out_dir = argv[0], .xfer = EVT_XFER_COPY };
	struct evt_consumer c;
	struct evt_consumer_ring *held = NULL;
	int sleep_ms = 0, hold_first = 0, i;

	/* First thing: a TERM that comes early (slow debug kernels) still ends cleanly. */
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sleep-ms") && i + 1 < argc)
			sleep_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--splice"))
			o.xfer = EVT_XFER_SPLICE;
		else if (!strcmp(argv[i], "--hold-first"))
			hold_first = 1;
	}
	mkdir(argv[0], 0755);
	if (evt_consumer_init(&c, &o) || evt_consumer_metadata(&c, NULL) ||
	    evt_consumer_open_rings(&c) <= 0) {
		fprintf(stderr, "evtest: %s\n", c.err[0] ? c.err : "no ring devices");
		return 1;
	}
	if (hold_first)
		held = evt_consumer_find(&c, EVT_CHAN_COMPACT, 0);
	while (!stop) {
		/* --hold-first: take compact/cpu0's first sub-buffer and keep it. */
		if (held && !held->holding && !held->packets && evt_consumer_take(&c, held) == 1)
			dump_held(held, argv[0], "held.bin");
		for (i = 0; i < c.nr_rings; i++)
			if (&c.rings[i] != held)
				drain_or_die(&c, &c.rings[i]);
		usleep(sleep_ms ? sleep_ms * 1000 : 2000);
	}
	if (held && held->holding) {
		/* Re-read the held packet as it is now, keep it, then let it go. */
		dump_held(held, argv[0], "held-end.bin");
		if (lseek(held->fd, 0, SEEK_SET) != 0 || evt_consumer_write(&c, held) ||
		    evt_consumer_release(&c, held)) {
			fprintf(stderr, "evtest: %s\n", c.err);
			return 1;
		}
	}
	if (evt_consumer_drain_final(&c)) {
		fprintf(stderr, "evtest: %s\n", c.err);
		return 1;
	}
	evt_consumer_close(&c);
	return 0;
}

/* One generator stream: seen bitmap per (channel, cpu). */
struct seqset {
	uint8_t *seen;
	uint64_t n;
	uint64_t count;
	uint64_t dups;
};

static uint64_t packets_lost;	/* packet_seq_num gaps, all files */
static const struct evt_catalogue *check_cat;	/* the trace's own, from its metadata */
static struct evt_metadata check_md;

static int check_file(const char *path, struct seqset sets[2][MAX_RINGS], uint64_t limit,
		      uint64_t *events, uint64_t *bad)
{
	uint64_t prev_seq = 0;
	int first = 1;
	FILE *f = fopen(path, "rb");
	struct evt_packet_info pi;
	uint8_t hdr[EVT_PACKET_HEADER_SIZE];
	uint64_t prev_end = 0, offset = 0;
	char err[256];

	if (!f)
		return -1;
	while (fread(hdr, 1, sizeof(hdr), f) == sizeof(hdr)) {
		struct evt_packet_iter it;
		struct evt_event ev;
		struct evt_packet_header h;
		uint8_t *pkt;
		int rc;

		memcpy(&h, hdr, sizeof(h));
		if (h.packet_size / 8 > (64 << 20) || h.packet_size < sizeof(hdr) * 8) {
			fprintf(stderr, "%s: offset %llu: bad packet_size\n", path, (unsigned long long)offset);
			(*bad)++;
			break;
		}
		pkt = malloc(h.packet_size / 8);
		memcpy(pkt, hdr, sizeof(hdr));
		if (fread(pkt + sizeof(hdr), 1, h.packet_size / 8 - sizeof(hdr), f) !=
		    h.packet_size / 8 - sizeof(hdr)) {
			fprintf(stderr, "%s: offset %llu: truncated packet\n", path, (unsigned long long)offset);
			(*bad)++;
			free(pkt);
			break;
		}
		if (evt_packet_parse(pkt, h.packet_size / 8, &pi, err, sizeof(err))) {
			fprintf(stderr, "%s: offset %llu: %s\n", path, (unsigned long long)offset, err);
			(*bad)++;
			free(pkt);
			break;
		}
		if (pi.h.timestamp_begin < prev_end) {
			fprintf(stderr, "%s: offset %llu: packet begins before the previous one ended\n",
				path, (unsigned long long)offset);
			(*bad)++;
		}
		prev_end = pi.h.timestamp_end;
		if (!first && pi.h.packet_seq_num > prev_seq + 1)
			packets_lost += pi.h.packet_seq_num - prev_seq - 1;
		prev_seq = pi.h.packet_seq_num;
		first = 0;
		evt_packet_iter_init(&it, check_cat, pkt, h.packet_size / 8);
		while ((rc = evt_packet_next(&it, &ev)) == 1) {
			struct evt_field_val vc, vs;

			(*events)++;
			if (evt_event_field_by_name(&ev, "cpu", &vc) || evt_event_field_by_name(&ev, "seq", &vs))
				continue;
			if (ev.id == EVT_ID_TIMER_TICK && ev.channel == EVT_CHAN_COMPACT)
				continue;
			if (vc.u >= MAX_RINGS)
				continue;
			{
				struct seqset *s = &sets[ev.channel][vc.u];

				if (vs.u >= s->n) {
					uint64_t nn = vs.u + 1 > limit ? vs.u + 1 : limit;

					s->seen = realloc(s->seen, nn);
					memset(s->seen + s->n, 0, nn - s->n);
					s->n = nn;
				}
				if (s->seen[vs.u])
					s->dups++;
				s->seen[vs.u] = 1;
				s->count++;
			}
		}
		if (rc < 0) {
			fprintf(stderr, "%s: packet at offset %llu: %s\n", path, (unsigned long long)offset, it.err);
			(*bad)++;
		}
		offset += h.packet_size / 8;
		free(pkt);
	}
	fclose(f);
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	static struct seqset sets[2][MAX_RINGS];
	static char has_file[2][MAX_RINGS];
	int chan_gen[2] = { 0, 0 };
	const char *dir = argv[0];
	uint64_t limit = 0, events = 0, bad = 0, total_gen = 0;
	int exact = 0, contiguous = 0, i;
	DIR *d;
	struct dirent *de;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gen-events") && i + 1 < argc)
			limit = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--exact"))
			exact = 1;
		else if (!strcmp(argv[i], "--contiguous"))
			contiguous = 1;
	}
	/* evdrain's layout (DIR/kernel/) or a flat one; decoded by its metadata. */
	{
		char mpath[1100], merr[256], *text;
		size_t mlen;
		int fd;

		dir = evt_trace_dir(dir);
		if (!dir) {
			perror("evtest");
			return 2;
		}
		snprintf(mpath, sizeof(mpath), "%s/metadata", dir);
		fd = open(mpath, O_RDONLY);
		if (fd < 0 || evt_metadata_read(fd, &text, &mlen, merr, sizeof(merr)) ||
		    evt_metadata_parse(text, mlen, &check_md, merr, sizeof(merr))) {
			fprintf(stderr, "%s: %s\n", mpath, fd < 0 ? strerror(errno) : merr);
			return 2;
		}
		close(fd);
		free(text);
		check_cat = check_md.cat;
	}
	d = opendir(dir);
	if (!d) {
		perror(dir);
		return 2;
	}
	while ((de = readdir(d))) {
		char path[1400];
		uint64_t before = events;

		if (strncmp(de->d_name, "compact_", 8) && strncmp(de->d_name, "normal_", 7))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		{
			/* Which ring the file is: compact_N or normal_N. */
			int ch = de->d_name[0] == 'n';
			long cpu = strtol(de->d_name + (ch ? 7 : 8), NULL, 10);

			if (cpu >= 0 && cpu < MAX_RINGS)
				has_file[ch][cpu] = 1;
		}
		check_file(path, sets, limit, &events, &bad);
		printf("file %s events %llu\n", de->d_name, (unsigned long long)(events - before));
	}
	closedir(d);
	for (int c = 0; c < 2; c++)
		for (int cpu = 0; cpu < MAX_RINGS; cpu++)
			chan_gen[c] |= sets[c][cpu].count > 0;
	for (int c = 0; c < 2; c++) {
		for (int cpu = 0; cpu < MAX_RINGS; cpu++) {
			struct seqset *s = &sets[c][cpu];

			/*
			 * --exact: a ring of a channel the generator wrote to
			 * (it has a stream file) that holds none of its events
			 * is missing all of them, not out of the count.
			 */
			if (!s->count && exact && chan_gen[c] && has_file[c][cpu] && limit) {
				fprintf(stderr, "missing %s cpu %d: no generator event at all (want seq 0..%llu)\n",
					evt_channel_name(c), cpu, (unsigned long long)limit - 1);
				bad++;
			}
			if (!s->count)
				continue;
			total_gen += s->count;
			printf("gen %s cpu %d events %llu dups %llu\n", evt_channel_name(c), cpu,
			       (unsigned long long)s->count, (unsigned long long)s->dups);
			if (s->dups)
				bad++;
			if (exact || contiguous) {
				/* --contiguous: lowest..highest seen, none missing. */
				uint64_t upto = exact ? limit : s->n, from = 0;

				while (!exact && from < s->n && !s->seen[from])
					from++;
				for (uint64_t q = from; q < upto; q++) {
					if (!s->seen[q]) {
						fprintf(stderr, "missing %s cpu %d seq %llu\n",
							evt_channel_name(c), cpu, (unsigned long long)q);
						bad++;
						break;
					}
				}
			}
			free(s->seen);
		}
	}
	printf("packets lost %llu\n", (unsigned long long)packets_lost);
	printf("total events %llu generator %llu errors %llu\n", (unsigned long long)events,
	       (unsigned long long)total_gen, (unsigned long long)bad);
	return bad ? 1 : 0;
}

/* Wait for POLLIN on one ring device; print how long it took. */
static int cmd_poll(int argc, char **argv)
{
	struct pollfd pfd;
	struct evt_ring_stats st;
	int timeout_ms = argc > 1 ? atoi(argv[1]) : 10000, n;

	pfd.fd = open(argv[0], O_RDONLY);
	if (pfd.fd < 0) {
		perror(argv[0]);
		return 2;
	}
	pfd.events = POLLIN;
	n = poll(&pfd, 1, timeout_ms);
	if (ioctl(pfd.fd, EVT_IOC_GET_STATS, &st)) {
		perror("GET_STATS");
		return 2;
	}
	printf("poll %s fill %u recorded %llu discarded %llu\n", n > 0 ? "POLLIN" : "timeout",
	       st.fill_pct, (unsigned long long)st.recorded, (unsigned long long)st.discarded);
	return n > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "poll"))
		return cmd_poll(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "drain"))
		return cmd_drain(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	fprintf(stderr, "usage: evtest drain DIR [--sleep-ms N] [--splice] [--hold-first]\n"
			"       evtest check DIR [--gen-events N] [--exact | --contiguous]\n");
	return 2;
}
