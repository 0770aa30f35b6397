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
#include "evt_decode.h"
#include "evt_io.h"

#define MAX_RINGS 512

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct ring_fd {
	int fd;
	int out;
	char name[64];
	int hold;
	int holding;
};

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		evt_write_all(out, buf, (size_t)n);
	close(in);
	close(out);
	return 0;
}

/* Copy the held sub-buffer, from its start, to DIR/NAME. */
static void dump_held(struct ring_fd *r, const char *dir, const char *name)
{
	char path[512];
	char *buf;
	uint64_t padded;
	ssize_t n;
	int out;

	if (ioctl(r->fd, EVT_IOC_GET_PADDED_SUBBUF_SIZE, &padded) || lseek(r->fd, 0, SEEK_SET) != 0) {
		fprintf(stderr, "evtest: cannot re-read the held sub-buffer: %s\n", strerror(errno));
		exit(1);
	}
	buf = malloc(padded);
	n = read(r->fd, buf, padded);
	if (n != (ssize_t)padded) {
		fprintf(stderr, "evtest: short read of the held sub-buffer\n");
		exit(1);
	}
	/* Written aside and renamed so a test polling for the file never sees half of it. */
	snprintf(path, sizeof(path), "%s/.%s.tmp", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || evt_write_all(out, buf, (size_t)n) || close(out)) {
		fprintf(stderr, "evtest: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	{
		char final[512];

		snprintf(final, sizeof(final), "%s/%s", dir, name);
		if (rename(path, final)) {
			fprintf(stderr, "evtest: cannot rename %s: %s\n", path, strerror(errno));
			exit(1);
		}
	}
	free(buf);
}

/* Take, copy and release every complete sub-buffer of one ring. */
static int drain_ring(struct ring_fd *r, int use_splice, int *pipefd, char *buf, size_t bufsz)
{
	int got = 0;

	for (;;) {
		uint64_t padded;

		if (r->holding)
			return got;
		if (ioctl(r->fd, EVT_IOC_GET_NEXT_SUBBUF) < 0) {
			if (errno != EAGAIN)
				fprintf(stderr, "evtest: GET_NEXT_SUBBUF %s: %s\n", r->name, strerror(errno));
			return got;
		}
		if (ioctl(r->fd, EVT_IOC_GET_PADDED_SUBBUF_SIZE, &padded) < 0 || padded > bufsz) {
			fprintf(stderr, "evtest: bad padded size on %s\n", r->name);
			exit(1);
		}
		if (r->hold) {
			r->holding = 1;
			r->hold = 0;
			return got;
		}
		if (use_splice) {
			size_t left = padded;

			while (left) {
				ssize_t n = splice(r->fd, NULL, pipefd[1], NULL, left, SPLICE_F_MOVE);
				ssize_t m;

				if (n <= 0) {
					fprintf(stderr, "evtest: splice %s: %s\n", r->name, strerror(errno));
					exit(1);
				}
				while (n > 0) {
					m = splice(pipefd[0], NULL, r->out, NULL, (size_t)n, SPLICE_F_MOVE);
					if (m <= 0) {
						fprintf(stderr, "evtest: splice out: %s\n", strerror(errno));
						exit(1);
					}
					n -= m;
					left -= (size_t)m;
				}
			}
		} else {
			ssize_t n = read(r->fd, buf, padded);

			if (n != (ssize_t)padded) {
				fprintf(stderr, "evtest: short read on %s\n", r->name);
				exit(1);
			}
			evt_write_all(r->out, buf, padded);
		}
		if (ioctl(r->fd, EVT_IOC_PUT_NEXT_SUBBUF) < 0) {
			fprintf(stderr, "evtest: PUT_NEXT_SUBBUF %s: %s\n", r->name, strerror(errno));
			exit(1);
		}
		got++;
	}
}

static int cmd_drain(int argc, char **argv)
{
	const char *dir = argv[0];
	struct ring_fd rings[MAX_RINGS];
	int nr = 0, sleep_ms = 0, use_splice = 0, hold_first = 0, i, pipefd[2];
	const char *chans[] = { "compact", "normal" };
	size_t bufsz = 8 << 20;
	char *buf = malloc(bufsz);
	char path[512];

	/* First thing: a TERM that comes early (slow debug kernels) still ends cleanly. */
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sleep-ms") && i + 1 < argc)
			sleep_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--splice"))
			use_splice = 1;
		else if (!strcmp(argv[i], "--hold-first"))
			hold_first = 1;
	}
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (copy_file("/dev/evtrace/metadata", path)) {
		perror("evtest: metadata");
		return 1;
	}
	for (unsigned int c = 0; c < 2; c++) {
		for (int cpu = 0; cpu < 256; cpu++) {
			char dev[128];
			int fd;

			snprintf(dev, sizeof(dev), "/dev/evtrace/%s/cpu%d", chans[c], cpu);
			fd = open(dev, O_RDONLY);
			if (fd < 0)
				continue;
			rings[nr].fd = fd;
			snprintf(rings[nr].name, sizeof(rings[nr].name), "%s_%d", chans[c], cpu);
			snprintf(path, sizeof(path), "%s/%s", dir, rings[nr].name);
			rings[nr].out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			rings[nr].hold = hold_first && c == 0 && cpu == 0;
			rings[nr].holding = 0;
			nr++;
		}
	}
	if (!nr) {
		fprintf(stderr, "evtest: no ring devices\n");
		return 1;
	}
	if (pipe(pipefd))
		return 1;
	fcntl(pipefd[1], F_SETPIPE_SZ, 1 << 20);
	while (!stop) {
		for (i = 0; i < nr; i++) {
			int was_holding = rings[i].holding;

			drain_ring(&rings[i], use_splice, pipefd, buf, bufsz);
			if (!was_holding && rings[i].holding)
				dump_held(&rings[i], dir, "held.bin");
		}
		usleep(sleep_ms ? sleep_ms * 1000 : 2000);
	}
	for (i = 0; i < nr; i++) {
		if (rings[i].holding) {
			/* Re-read the held packet as it is now, keep it, then let it go. */
			dump_held(&rings[i], dir, "held-end.bin");
			snprintf(path, sizeof(path), "%s/held-end.bin", dir);
			{
				int in = open(path, O_RDONLY);
				ssize_t n = in >= 0 ? read(in, buf, bufsz) : -1;

				if (n > 0)
					evt_write_all(rings[i].out, buf, (size_t)n);
				if (in >= 0)
					close(in);
			}
			rings[i].holding = 0;
			ioctl(rings[i].fd, EVT_IOC_PUT_NEXT_SUBBUF);
		}
		/* Drain, flush, drain: a flush needs room to report trailing losses. */
		drain_ring(&rings[i], use_splice, pipefd, buf, bufsz);
		ioctl(rings[i].fd, EVT_IOC_FLUSH);
		drain_ring(&rings[i], use_splice, pipefd, buf, bufsz);
		close(rings[i].out);
		close(rings[i].fd);
	}
	free(buf);
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
		evt_packet_iter_init(&it, pkt, h.packet_size / 8);
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
	d = opendir(dir);
	if (!d) {
		perror(dir);
		return 2;
	}
	while ((de = readdir(d))) {
		char path[1024];
		uint64_t before = events;

		if (strncmp(de->d_name, "compact_", 8) && strncmp(de->d_name, "normal_", 7))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		check_file(path, sets, limit, &events, &bad);
		printf("file %s events %llu\n", de->d_name, (unsigned long long)(events - before));
	}
	closedir(d);
	for (int c = 0; c < 2; c++) {
		for (int cpu = 0; cpu < MAX_RINGS; cpu++) {
			struct seqset *s = &sets[c][cpu];

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
