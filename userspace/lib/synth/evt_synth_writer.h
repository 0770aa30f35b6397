/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The synthesizer's writer (evt_synth_writer.c), private to lib/synth: what
 * the synthesizer and its simulated kernel both record through. It calls
 * neither of them.
 */
#ifndef EVT_SYNTH_WRITER_H
#define EVT_SYNTH_WRITER_H

#include <stdint.h>
#include <stdio.h>
#include "evt_ring.h"
#include "ctf/evt_pindex.h"
#include "synth/evt_synth.h"

/* The time the ring core reads (evt_clock_fn = evt_synth_clock while writing). */
extern uint64_t evt_synth_now;
u64 evt_synth_clock(void);
/* xorshift64*: the run's one random sequence, from its seed. */
uint64_t evt_synth_rnd(uint64_t *s);

/* One ring of a CPU and its stream file. */
struct evt_synth_ring {
	struct evt_ring r;
	char *mem;
	struct evt_subbuf *sb;
	FILE *f;
	char *fbuf;
	struct evt_pidx_writer idx;	/* the stream's packet index, as evdrain writes it */
};

/* The ring's whole packets into its file (and index): 0, or -1 on a write error. */
int evt_synth_drain(struct evt_synth_ring *s, struct evt_synth_result *res);
/* Ring @ch of @cpu and its file DIR/<channel>_<cpu>: 0, or -1 with @err. */
int evt_synth_ring_open(struct evt_synth_ring *s, const char *dir, unsigned int cpu, enum evt_channel ch,
			const struct evt_synth_params *p, const uint8_t *uuid, char *err, size_t errlen);
/* A CPU's two rings (compact, normal): 0, or -1 with @err, both closed again. */
int evt_synth_cpu_open(struct evt_synth_ring rings[2], const char *dir, unsigned int cpu,
		       const struct evt_synth_params *p, const uint8_t *uuid, struct evt_synth_result *res,
		       char *err, size_t errlen);
/* A random version-4 UUID from the run's sequence @rs. */
void evt_synth_uuid(uint8_t uuid[16], uint64_t *rs);
/* Flushes the CPU's rings at the cuts before @now (p->flush_at): 0, or -1 on a write error. */
int evt_synth_flush_cuts(const struct evt_synth_params *p, struct evt_synth_ring *rings, unsigned int cpu,
			 uint64_t now, unsigned int *next, struct evt_synth_result *res);
/* Flushes, drains and closes the ring, its counts added to @res: 0, or -1 on a write error. */
int evt_synth_ring_close(struct evt_synth_ring *s, struct evt_synth_result *res);
/* DIR/metadata for the run: 0, or -1 with @err. */
int evt_synth_write_metadata(const char *dir, const struct evt_synth_params *p, const uint8_t *uuid,
			     const char *tracer_version, const char *trace_name, char *err, size_t errlen);
/* The run's last event within 2^63 ns: 0, or -1 with @err. */
int evt_synth_last_time_fits(const struct evt_synth_params *p, char *err, size_t errlen);

#endif /* EVT_SYNTH_WRITER_H */
