/* SPDX-License-Identifier: GPL-2.0 */
/* evdrain's lock and its output directory (evd_outdir.c). Each says what went wrong on stderr. */
#ifndef EVD_OUTDIR_H
#define EVD_OUTDIR_H

#include <stddef.h>
#include "evd_options.h"

/* One evdrain at a time: the lock file taken, our pid in it. 0, or -1 (another runs: said). */
int evd_take_lock(void);
/* The lock names @dir, the directory being written, for its readers (evt_trace_writer()). */
void evd_lock_names_dir(const char *dir);
/*
 * The trace files in @dir: with @force deleted, else the first one found is
 * named in @found. 0 (none left), 1 (one found), -1 (said why).
 */
int evd_trace_files(const char *dir, int force, char *found, size_t len);
/* -o DIR checked before anything is made (sets o->tracedir): 0, or -1 said. */
int evd_check_outdir(struct options *o);
/* Make -o DIR (and DIR/kernel), checked by evd_check_outdir() first: 0, or -1 said. */
int evd_prepare_outdir(struct options *o);

#endif /* EVD_OUTDIR_H */
