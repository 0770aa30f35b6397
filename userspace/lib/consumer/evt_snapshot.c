// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "control/evt_ctl.h"
#include "consumer/evt_snapshot.h"
#include "ctf/evt_pindex.h"

static int failed(struct evt_consumer *c, int ret, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", c->err);
	return ret;
}

int evt_snapshot_save(struct evt_ctl *ctl, const char *dir, uint64_t trigger_seq,
		      enum evt_xfer xfer, struct evt_snapshot_result *res, char *err, size_t errlen)
{
	struct evt_consumer_opts o = { .out_dir = dir, .xfer = xfer };
	struct evt_snapshot_bound *b = NULL;
	struct evt_consumer c;
	size_t nb = 0, i;
	int n, ret;

	memset(res, 0, sizeof(*res));
	if (evt_consumer_init(&c, &o)) {
		snprintf(err, errlen, "%s", strerror(errno));
		return EVT_SNAPSHOT_ERR_RINGS;
	}
	n = evt_consumer_open_rings(&c);
	if (n < 0) {
		if (strstr(c.err, "another reader"))
			ret = failed(&c, EVT_SNAPSHOT_ERR_BUSY, err, errlen);
		else if (strstr(c.err, "ermission denied") || strstr(c.err, "not permitted"))
			ret = failed(&c, EVT_SNAPSHOT_ERR_ACCESS, err, errlen);
		else
			ret = failed(&c, EVT_SNAPSHOT_ERR_RINGS, err, errlen);
		goto out;
	}
	if (n == 0) {
		snprintf(err, errlen, "no ring device under /dev/evtrace");
		ret = EVT_SNAPSHOT_ERR_NO_RING;
		goto out;
	}
	if (evt_consumer_metadata(&c, NULL)) {
		ret = failed(&c, EVT_SNAPSHOT_ERR_RINGS, err, errlen);
		goto out;
	}
	if (evt_ctl_snapshot(ctl, trigger_seq, &b, &nb) < 0) {
		const char *ext = evt_ctl_extack(ctl);

		snprintf(err, errlen, "%s", ext[0] ? ext : evt_ctl_errmsg(ctl));
		ret = EVT_SNAPSHOT_ERR_MODULE;
		goto out;
	}
	ret = EVT_SNAPSHOT_ERR_RINGS;
	for (i = 0; i < nb; i++) {
		struct evt_consumer_ring *r = evt_consumer_find(&c, b[i].channel, (int)b[i].cpu);

		if (!r) {
			/* A CPU that came online since the devices were opened. */
			if (evt_consumer_open_rings(&c) < 0) {
				failed(&c, 0, err, errlen);
				goto out;
			}
			r = evt_consumer_find(&c, b[i].channel, (int)b[i].cpu);
			if (!r)
				continue;
		}
		if (b[i].unanswered) {
			res->unanswered++;
			res->left_out += b[i].left_out;
			if (b[i].cpu < EVT_MAX_CPUS)
				res->unanswered_cpus[b[i].cpu / 8] |= (uint8_t)(1u << (b[i].cpu % 8));
		}
		n = evt_consumer_drain_below(&c, r, b[i].seq);
		if (n < 0) {
			failed(&c, 0, err, errlen);
			goto out;
		}
		res->packets += (uint64_t)n;
	}
	if (evt_consumer_sync(&c)) {
		failed(&c, 0, err, errlen);
		goto out;
	}
	res->bytes = c.bytes_written;
	res->streams = c.nr_rings;
	ret = 0;
out:
	evt_consumer_close(&c);
	free(b);
	return ret;
}

void evt_snapshot_note_unanswered(FILE *f, const char *prog, const struct evt_snapshot_result *res)
{
	unsigned int cpu, n = 0, start;

	if (!res->unanswered)
		return;
	fprintf(f, "%s: CPU ", prog);
	/* As ranges: "1,3-5". */
	for (cpu = 0; cpu < EVT_MAX_CPUS; cpu++) {
		if (!evt_cpuset_has(res->unanswered_cpus, cpu))
			continue;
		for (start = cpu; cpu + 1 < EVT_MAX_CPUS && evt_cpuset_has(res->unanswered_cpus, cpu + 1); cpu++)
			;
		fprintf(f, start == cpu ? "%s%u" : "%s%u-%u", n++ ? "," : "", start, cpu);
	}
	fprintf(f, " did not answer the flush (spinning with interrupts off?): %u ring%s saved as "
		"they were, without the %llu event%s of their open sub-buffers\n", res->unanswered,
		res->unanswered == 1 ? "" : "s", (unsigned long long)res->left_out,
		res->left_out == 1 ? "" : "s");
}

/* The files directly in @dir unlinked (a snapshot writes no deeper, but for its index directory). */
static void unlink_files_in(const char *dir)
{
	char path[4096 + 256 + 2];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	closedir(d);
}

void evt_snapshot_undo(const char *dir, int remove_dir)
{
	char index_dir[4096 + sizeof(EVT_PIDX_DIR) + 1];

	/* The stream files' packet indexes too, or the directory cannot go. */
	snprintf(index_dir, sizeof(index_dir), "%s/%s", dir, EVT_PIDX_DIR);
	unlink_files_in(index_dir);
	rmdir(index_dir);
	unlink_files_in(dir);
	if (remove_dir)
		rmdir(dir);
}
