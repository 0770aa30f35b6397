/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace reader's insides, shared by its files, each calling only
 * those below it: evt_trace_open.c (opening a directory or a run, streams
 * on threads, closing), evt_trace_run.c (runs of chunks laid out as one
 * trace), evt_trace_pk.c (the packet index: index files, the header walk,
 * the packet rules), evt_stream.c (a stream read one packet at a time:
 * loaded, checked, decoded), evt_trace_maps.c (a run's files
 * mapped lazily) and evt_trace.c (names, files, metadata, the stream
 * table, messages).
 */
#ifndef EVT_TRACE_PRIV_H
#define EVT_TRACE_PRIV_H

#include <sys/stat.h>
#include "ctf/evt_trace.h"

/* evt_trace.c */

/*
 * A stream file's name: 0 with *@chan and *@cpu; -1 for a name that is
 * not a stream's; -2 for one that starts like one and is not (refused).
 */
int evt_trace_parse_stream_name(const char *name, unsigned int *chan, unsigned int *cpu);
/* Open a file of the trace for reading: 0 with *@fd and *@st, or -1 with @err. */
int evt_trace_open_regular(char *err, const char *path, int *fd, struct stat *st);
/* @dir's metadata text (malloc'd) and its file's stat: 0, or -1 with @err. */
int evt_trace_read_metadata_text(const char *dir, char **text, size_t *len, struct stat *st, char *err);
/* @dir's metadata parsed into t->md (its text kept in *@keep when asked): 0, or -1 with t->err. */
int evt_trace_read_metadata_of(struct evt_trace *t, const char *dir, char **keep, size_t *keep_len);
/* The stream (@chan, @cpu) of t->streams, added if new: NULL when out of memory. */
struct evt_stream *evt_trace_stream_of(struct evt_trace *t, unsigned int *cap, unsigned int chan,
				       unsigned int cpu);
/* A warning through t->o.warn (or to stderr). */
void evt_trace_warn(const struct evt_trace *t, const char *msg);

/* evt_trace_pk.c */

/*
 * Index one file of @s (@fd, whose fstat() is @st; @dir its directory,
 * its metadata's @md_mode and @md_gid; at @base in the stream's mapping):
 * from its index file when that is good (a sealed one whole, an unsealed
 * one as a prefix), else and after that prefix by walking the headers;
 * what a walk found is saved. An index file ignored is said in @warn
 * (empty: none). The packet-level rules are checked as the packets are
 * added; a bad header ends the index (s->tail_err). 0, or -1 when out of
 * memory (@err).
 */
int evt_trace_index_file(const struct evt_trace *t, struct evt_stream *s, int fd, const struct stat *st,
			 const char *dir, unsigned int md_mode, unsigned int md_gid, size_t base,
			 uint64_t *seam_lost, char *err, char *warn, size_t warnlen);

/* What a header says of its stream, against the file's: 0, or the error's code (@a, @b). */
enum evt_derr evt_trace_stream_rules(const struct evt_stream *s, const struct evt_packet_header *h, uint64_t *a,
				     uint64_t *b);
/* The error @code (@a, @b) of @s at byte @off, as text, into @buf. */
void evt_trace_fail_at(const struct evt_trace *t, const struct evt_stream *s, char *buf, size_t len, size_t off,
		       enum evt_derr code, uint64_t a, uint64_t b);

/* evt_trace_run.c */

/* @dir holds a trace of its own (DIR/metadata or DIR/kernel/metadata). */
int evt_trace_has_own(const char *dir);
/*
 * @dir holds chunks and no trace of its own: its streams' files listed,
 * its metadata read and its mappings' budget set (1; the streams are then
 * opened and indexed as a directory's are), or 0 when it holds none (a
 * plain trace, or nothing), or -1 with t->err.
 */
int evt_trace_open_run(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o);
/*
 * A run's stream: its files' places reserved and indexed (mapped later).
 * 0, or -1 with @err; index files ignored said in @warn.
 */
int evt_trace_open_run_stream(const struct evt_trace *t, struct evt_stream *s, char *err, char *warn,
			      size_t warnlen);

/* evt_trace_maps.c */

/* The run @t's mappings state, with its budget within vm.max_map_count: 0, or -1 with t->err. */
int evt_trace_run_maps_init(struct evt_trace *t, const char *dir);
/* The file (@st, at @path) is the one @g listed when the run was opened: 0, or -1 with @err. */
int evt_trace_run_same_file(const struct evt_seg *g, const struct stat *st, const char *path, char *err,
			    size_t len);
/*
 * The run's file @g of @s is mapped and held by this reader (its last two
 * files held; a file nobody holds may be given back). 0, or -1 with
 * s->errmsg.
 */
int evt_trace_run_hold(const struct evt_trace *t, struct evt_stream *s, unsigned int g);
/* The reader @s holds nothing any more (a clone closing, a seek). */
void evt_trace_run_release(const struct evt_trace *t, struct evt_stream *s);
/* The run's mappings state, freed (the original trace closing). */
void evt_trace_run_free(struct evt_trace *t);
/* The file of @s that holds byte @off of its mapping. */
unsigned int evt_trace_run_seg_of(const struct evt_stream *s, uint64_t off);

#endif
