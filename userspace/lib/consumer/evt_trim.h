/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trimming a saved trace (a flight-recorder snapshot) to its newest data:
 * whole packets are dropped from the start of its stream files.
 */
#ifndef EVT_TRIM_H
#define EVT_TRIM_H

#include <stddef.h>
#include <stdint.h>

struct evt_trim_result {
	uint64_t packets_kept, packets_dropped;
	uint64_t bytes_kept, bytes_dropped;	/* a partial tail counts as dropped bytes */
};

/*
 * Keep a saved trace's newest packets only: in every stream file of @dir
 * (every regular file but "metadata" and names starting with '.'), drop
 * the packets whose timestamp_end is below @not_before (0: no time cut),
 * then, oldest first across all streams (by timestamp_end), drop packets
 * while the streams hold more than @max_bytes (0: no size cut). A stream
 * keeps a suffix of its packets (their timestamps grow within a stream), so
 * a reader sees no gap. Files are rewritten in place (shifted with
 * pread/pwrite, then ftruncate and fsync). Fills @res (packets and bytes
 * kept and dropped), returns 0, or -1 with a message in err (errlen bytes).
 *
 * Every file is read and checked before any is changed: a directory
 * without a metadata file, or a non-empty file that does not start with a
 * packet header, is refused untouched. A file whose tail is not a whole
 * packet keeps its whole packets only. Ties in timestamp_end go by file
 * name. The shift is not atomic: a crash (or an error) during it can leave
 * a stream file damaged, and the files cut before an error stay cut.
 */
int evt_trim_trace(const char *dir, uint64_t not_before, uint64_t max_bytes,
		   struct evt_trim_result *res, char *err, size_t errlen);

#endif
