// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark of the portable ring core against the floor: a loop that
 * only reads the clock and stores 4 bytes. Each variant is timed over the
 * same number of events, rounds interleaved, best round kept.
 *
 *   bench-native [EVENTS] [VARIANT]   (VARIANT alone: run just it, for callgrind)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#include "evt_ring.h"
#include <evtrace/events.h>

#define SB	65536UL
#define NSB	16UL

static uint32_t floor_buf[1 << 16];

static u64 clock_tsc(void)
{
	return __rdtsc();
}

static u64 clock_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static u64 now_ns(void)
{
	return clock_mono();
}

struct variant {
	const char *name;
	u64 (*clock)(void);
	int kind;	/* 0 floor, 1 compact ping (4 B), 2 compact 12 B payload, 3 normal 14 B */
};

static const struct variant variants[] = {
	{ "floor_tsc_store4", clock_tsc, 0 },
	{ "core_compact_ping_tsc", clock_tsc, 1 },
	{ "core_compact_12B_tsc", clock_tsc, 2 },
	{ "core_normal_14B_tsc", clock_tsc, 3 },
	{ "floor_clock_gettime_store4", clock_mono, 0 },
	{ "core_compact_ping_clock_gettime", clock_mono, 1 },
	{ "core_compact_12B_clock_gettime", clock_mono, 2 },
};
#define NVAR (sizeof(variants) / sizeof(variants[0]))

static struct evt_ring rc, rn;

static void setup(struct evt_ring *r, enum evt_channel ch)
{
	static const u8 uuid[16];
	struct evt_ring_params p = {
		.subbuf_size = SB, .num_subbuf = NSB, .channel = ch,
		.mode = EVT_MODE_OVERWRITE, .high_water = 100, .uuid = uuid,
	};

	evt_ring_init(r, &p, calloc(1, SB * NSB), calloc(NSB, sizeof(struct evt_subbuf)));
}

static __attribute__((noinline)) void run(const struct variant *v, u64 n)
{
	struct { u32 cpu; u32 seq[2]; u16 len; u16 pad; } pl = { 0 };
	u64 i;

	evt_clock_fn = v->clock;
	for (i = 0; i < n; i++) {
		pl.seq[0] = (u32)i;
		switch (v->kind) {
		case 0:
			/* The floor: what any tracer must do at least. */
			floor_buf[i & 0xffff] = (u32)v->clock();
			break;
		case 1:
			evt_record_copy(&rc, EVT_ID_GEN_PING, NULL, 0);
			break;
		case 2:
			evt_record_copy(&rc, EVT_ID_GEN_COMPACT, &pl, 12);
			break;
		case 3:
			evt_record_copy(&rn, EVT_ID_GEN_NORMAL, &pl, 14);
			break;
		}
	}
}

int main(int argc, char **argv)
{
	u64 n = argc > 1 ? strtoull(argv[1], NULL, 0) : 5000000;
	u64 best[NVAR];
	unsigned int v, round;

	setup(&rc, EVT_CHAN_COMPACT);
	setup(&rn, EVT_CHAN_NORMAL);
	if (argc > 2) {
		for (v = 0; v < NVAR; v++)
			if (!strcmp(argv[2], variants[v].name))
				run(&variants[v], n);
		return 0;
	}
	for (v = 0; v < NVAR; v++)
		best[v] = ~0ULL;
	for (round = 0; round < 5; round++) {
		for (v = 0; v < NVAR; v++) {
			u64 t0 = now_ns(), dt;

			run(&variants[v], n);
			dt = now_ns() - t0;
			if (dt < best[v])
				best[v] = dt;
		}
	}
	printf("%-34s %10s %14s\n", "variant", "ns/event", "x its floor");
	for (v = 0; v < NVAR; v++) {
		unsigned int fl = v < 4 ? 0 : 4;

		printf("%-34s %10.2f %14.2f\n", variants[v].name, (double)best[v] / (double)n,
		       (double)best[v] / (double)best[fl]);
	}
	return 0;
}
