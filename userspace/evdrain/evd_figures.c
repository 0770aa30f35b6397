// SPDX-License-Identifier: GPL-2.0
/*
 * evdrain's figures: the module's totals, the summary at the end and
 * --stats-json, the progress line on a terminal. See evd_figures.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "evd_figures.h"
#include "json/evt_json.h"

/* The channels' totals from the module's STATUS: 0, or -1 when it gave none. */
static int totals(struct evt_ctl *ctl, unsigned int channels, struct evt_status *st,
		  uint64_t *rec, uint64_t *disc, uint64_t *over)
{
	size_t i;

	*rec = *disc = *over = 0;
	evt_status_init(st);
	if (evt_ctl_status(ctl, st))
		return -1;
	for (i = 0; i < st->nr_rings; i++) {
		if (!(channels & (1U << st->rings[i].channel)))
			continue;
		*rec += st->rings[i].recorded;
		*disc += st->rings[i].discarded + st->rings[i].too_big + st->rings[i].refused;
		*over += st->rings[i].overwritten;
	}
	return 0;
}

/* --stats-json's rotation figures. */
static json_t *chunks_json(const struct evd_rot_stats *rs)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			 "completed", evt_json_u64(rs->completed), "recovered", evt_json_u64(rs->recovered),
			 "events", evt_json_u64(rs->events), "bytes", evt_json_u64(rs->bytes),
			 "lost_packets", evt_json_u64(rs->lost_packets), "deleted", evt_json_u64(rs->deleted),
			 "errors", evt_json_u64(rs->errors), "hooks_run", evt_json_u64(rs->hooks_run),
			 "hooks_failed", evt_json_u64(rs->hooks_failed), "hooks_skipped", evt_json_u64(rs->hooks_skipped),
			 "hooks_not_run", evt_json_u64(rs->hooks_not_run), "hook_queue_max",
			 evt_json_u64(rs->hooks_pending_max), "hooks_retried", evt_json_u64(rs->hooks_retried),
			 "hooks_given_up", evt_json_u64(rs->hooks_given_up), "removed_unshipped",
			 evt_json_u64(rs->removed_unshipped));
}

/*
 * The summary (unless --quiet) and --stats-json. Returns the events lost
 * (discarded, too big, refused or overwritten), or -1 when the module gave
 * no figures.
 */
long long evd_summary(struct evt_ctl *ctl, struct evt_consumer *con, const struct options *o,
			 double secs, const struct evd_rot_stats *rs)
{
	struct evt_status st;
	uint64_t rec, disc, over;
	FILE *js = NULL;
	json_t *doc = NULL, *rings = NULL;
	size_t i;
	long long lost;

	lost = totals(ctl, o->channels, &st, &rec, &disc, &over) ? -1 : (long long)(disc + over);
	if (o->json_path) {
		js = fopen(o->json_path, "w");
		if (!js)
			fprintf(stderr, "evdrain: cannot write %s: %s\n", o->json_path, strerror(errno));
	}
	if (!o->quiet) {
		printf("evdrain: %.1f s, %llu bytes in %s\n", secs, (unsigned long long)con->bytes_written,
		       o->outdir ? o->outdir : "(no directory)");
		printf("%-8s %4s %12s %12s %12s %12s %10s\n", "channel", "cpu", "recorded", "discarded",
		       "overwritten", "bytes", "packets");
	}
	if (js) {
		rings = json_array();
		doc = json_pack("{s:s,s:o,s:o,s:o}", "schema", EVT_SCHEMA_DRAIN_STATS, "seconds",
				json_real((double)(uint64_t)(secs * 1000 + 0.5) / 1000), "bytes", evt_json_u64(con->bytes_written),
				"dir", evt_json_str(o->outdir ? o->outdir : ""));
	}
	for (i = 0; i < st.nr_rings; i++) {
		const struct evt_status_ring *sr = &st.rings[i];
		const struct evt_consumer_ring *r = evt_consumer_find(con, sr->channel, (int)sr->cpu);
		/* This run's: a file appended to (--attach) or a run of chunks holds other bytes too. */
		const uint64_t packets = r ? r->packets : 0, bytes = r ? r->packets * r->packet : 0;
		const uint64_t discarded = sr->discarded + sr->too_big + sr->refused;

		if (!(o->channels & (1U << sr->channel)))
			continue;
		if (!o->quiet)
			printf("%-8s %4u %12llu %12llu %12llu %12llu %10llu\n",
			       evt_channel_name(sr->channel), sr->cpu, (unsigned long long)sr->recorded,
			       (unsigned long long)discarded, (unsigned long long)sr->overwritten,
			       (unsigned long long)bytes, (unsigned long long)packets);
		if (rings && json_array_append_new(rings, json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:o}", "channel",
								    evt_channel_name(sr->channel), "cpu",
								    (json_int_t)sr->cpu, "recorded",
								    evt_json_u64(sr->recorded), "discarded",
								    evt_json_u64(discarded), "overwritten",
								    evt_json_u64(sr->overwritten), "bytes",
								    evt_json_u64(bytes), "packets",
								    evt_json_u64(packets)))) {
			json_decref(rings);
			rings = NULL;
		}
	}
	if (!o->quiet)
		printf("%-8s %4s %12llu %12llu %12llu %12llu\n", "total", "", (unsigned long long)rec,
		       (unsigned long long)disc, (unsigned long long)over,
		       (unsigned long long)con->bytes_written);
	if (rs && !o->quiet) {
		printf("chunks: %llu completed (%llu events, %llu bytes, %llu lost packets), %llu left "
		       "earlier and completed now, %llu removed by retention, %llu not completed\n",
		       (unsigned long long)rs->completed, (unsigned long long)rs->events,
		       (unsigned long long)rs->bytes, (unsigned long long)rs->lost_packets,
		       (unsigned long long)rs->recovered, (unsigned long long)rs->deleted,
		       (unsigned long long)rs->errors);
		if (o->rot.hook)
			printf("hooks: %llu run (%llu of them retries), %llu failed, %llu chunks given up "
			       "(shipped by the next evdrain), %llu chunks removed by --max-total before their hook "
			       "succeeded (%llu before it ran), %llu not run at exit; the queue held at most %llu\n",
			       (unsigned long long)rs->hooks_run, (unsigned long long)rs->hooks_retried,
			       (unsigned long long)rs->hooks_failed, (unsigned long long)rs->hooks_given_up,
			       (unsigned long long)rs->removed_unshipped, (unsigned long long)rs->hooks_skipped,
			       (unsigned long long)rs->hooks_not_run, (unsigned long long)rs->hooks_pending_max);
	}
	if (js) {
		if (doc && json_object_update_new(doc, json_pack("{s:o,s:o,s:o,s:o}", "rings", rings, "recorded",
								 evt_json_u64(rec), "discarded", evt_json_u64(disc),
								 "overwritten", evt_json_u64(over)))) {
			json_decref(doc);
			doc = NULL;
		} else if (!doc) {
			json_decref(rings);
		}
		if (doc && rs && json_object_set_new(doc, "chunks", chunks_json(rs))) {
			json_decref(doc);
			doc = NULL;
		}
		/* jansson's default separators: "key": value, as this document always had. */
		errno = 0;
		if (evt_json_write(js, doc, JSON_REAL_PRECISION(15)) | fclose(js))
			fprintf(stderr, "evdrain: cannot write %s: %s\n", o->json_path,
				errno ? strerror(errno) : "out of memory");
	}
	evt_status_free(&st);
	return lost;
}

void evd_progress(struct evt_ctl *ctl, const struct evt_consumer *con, unsigned int channels,
		     struct evd_progress *p, uint64_t t)
{
	struct evt_status st;
	uint64_t rec, disc, over;

	totals(ctl, channels, &st, &rec, &disc, &over);
	evt_status_free(&st);
	printf("\r%10.0f events/s %8.2f MB/s  discarded %llu  ",
	       (double)(rec - p->last_rec) * 1000.0 / (double)(t - p->last_ms),
	       (double)(con->bytes_written - p->last_bytes) / 1e6 * 1000.0 / (double)(t - p->last_ms),
	       (unsigned long long)disc);
	fflush(stdout);
	p->last_rec = rec;
	p->last_bytes = con->bytes_written;
	p->last_ms = t;
}
