/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The event catalogue, shared by the module (which writes events and the CTF
 * metadata from it) and userspace (whose reader decodes payloads from it).
 * Payload fields are laid out in order; integers of 32 bits and more are
 * 4-byte aligned (events are), u16 2-byte, u8/strings byte-aligned.
 */
#ifndef EVTRACE_EVENTS_H
#define EVTRACE_EVENTS_H

#include <evtrace/abi.h>
#include <evtrace/limits.h>

enum evt_field_type {
	EVT_F_U8,
	EVT_F_U16,
	EVT_F_U32,
	EVT_F_U64,
	EVT_F_S32,
	EVT_F_S64,
	EVT_F_X64,	/* u64 shown in hex */
	EVT_F_STRING,	/* NUL-terminated */
	EVT_F_SEQ_U8,	/* u16 length, then that many bytes */
	EVT_F_COMM,	/* char[16], NUL-padded (a task's comm) */
	EVT_F_SEQ_X64,	/* u32 length, then that many u64 shown in hex (a stack) */
	EVT_F_X32,	/* u32 shown in hex (a 32-bit task's pointer) */
};
/* The last type (a new one goes after it, and this follows). */
#define EVT_F_LAST	EVT_F_X32

struct evt_field_desc {
	const char *name;
	enum evt_field_type type;
};

/*
 * How a field lies in a payload, the one table of it: its alignment, and
 * its size (a string: 0, it runs to its NUL; a sequence: its length's, u16
 * for bytes, u32 for u64s; the elements follow). The decoder, the printer and the synthesizer use it;
 * the metadata's type names (uint64a32_t ...) say the same to other readers.
 */
static inline unsigned int evt_field_align(enum evt_field_type t)
{
	switch (t) {
	case EVT_F_U16: case EVT_F_SEQ_U8:
		return 2;
	case EVT_F_U32: case EVT_F_S32: case EVT_F_X32: case EVT_F_U64: case EVT_F_S64: case EVT_F_X64:
	case EVT_F_SEQ_X64:
		return 4;
	default:
		return 1;
	}
}

static inline unsigned int evt_field_size(enum evt_field_type t)
{
	switch (t) {
	case EVT_F_U8: return 1;
	case EVT_F_U16: case EVT_F_SEQ_U8: return 2;
	case EVT_F_U32: case EVT_F_S32: case EVT_F_X32: case EVT_F_SEQ_X64: return 4;
	case EVT_F_U64: case EVT_F_S64: case EVT_F_X64: return 8;
	case EVT_F_COMM: return 16;
	default: return 0;
	}
}

/* A field whose size the payload says (a string, a sequence): what follows it moves. */
static inline int evt_field_is_var(enum evt_field_type t)
{
	return t == EVT_F_STRING || t == EVT_F_SEQ_U8 || t == EVT_F_SEQ_X64;
}

struct evt_event_desc {
	const char *name;
	unsigned char channel;		/* enum evt_channel */
	unsigned short id;		/* id within the channel's stream */
	unsigned char nr_fields;
	const struct evt_field_desc *fields;
};

/*
 * Ids, from the one definition of every event (<evtrace/event-defs.h>):
 * EVT_ID_<ID>, the id within its channel. Compact ids 0..29 fit the small
 * header's 5 bits (4 bytes); the others take the wide header (8 bytes, the
 * normal channel's size). Compact id 4 was sys_enter (0.1).
 */
#include <evtrace/event-defs.h>

enum {
#define EVT_ID_ENUM(ev, cls, ch, ID, num, by) EVT_ID_##ID = num,
	EVT_EVENTS(EVT_ID_ENUM)
	EVT_SYSCALL_UNKNOWN_EVENTS(EVT_ID_ENUM)
#undef EVT_ID_ENUM
	/*
	 * One entry event per syscall, sys_<name>, by number, in the ring of
	 * exit_syscall (entry and exit side by side, as 0.1's were). The id
	 * says which, in the wide header, so the
	 * payload is the arguments only: no entry event is larger than 0.1's
	 * sys_enter (8 bytes of header and at most 48 of arguments, against
	 * 4 + 52).
	 */
	EVT_ID_SYS_BASE = 256,
	EVT_ID_COMPAT_SYS_BASE = 1024,	/* compat_sys_<name> (32-bit tasks) */
	EVT_ID_SYS_END = 2048,
};

extern const struct evt_event_desc evt_events[];
extern const unsigned int evt_nr_events;

/*
 * What evctl enables and disables: one switch per event, except that the
 * syscall entry events (every sys_<name>, compat_sys_<name> and the two
 * unknowns), which come last in evt_events[], share the switch "sys_*".
 */
extern const unsigned int evt_nr_switches;
#define EVT_SYSCALL_SWITCH_NAME "sys_*"
static inline unsigned int evt_event_switch(unsigned int event_index)
{
	return event_index < evt_nr_switches ? event_index : evt_nr_switches - 1;
}
const char *evt_switch_name(unsigned int sw);
/* The switch named @name, or -1. */
int evt_find_switch(const char *name);

const struct evt_event_desc *evt_find_event(unsigned int channel, unsigned int id);
const struct evt_event_desc *evt_find_event_by_name(const char *name);
const char *evt_channel_name(unsigned int channel);

/*
 * The LTTng kernel tracer version whose event fields evtrace's carry, as
 * the metadata's env.tracer_major/minor/patchlevel (the analyses key their
 * version-specific fixes on these): 2.7.1, the first that records the
 * kernel's prio in sched_wakeup as in sched_switch (lttng-analyses'
 * PRIO_OFFSET_FIX_VERSION). The event names stay LTTng's before 2.6,
 * which the tools take by prefix whatever the version (docs/design/module.md).
 */
#define EVT_LTTNG_LAYOUT_MAJOR		2
#define EVT_LTTNG_LAYOUT_MINOR		7
#define EVT_LTTNG_LAYOUT_PATCHLEVEL	1

/* What the metadata says about the trace besides the catalogue. */
struct evt_meta_params {
	unsigned char uuid[16];
	unsigned long long clock_offset_s;	/* realtime - monotonic, seconds */
	unsigned long long clock_offset_ns;	/* and nanoseconds */
	const char *hostname;
	const char *kernel_release;
	const char *kernel_version;
	const char *tracer_version;	/* evtrace's: "MAJOR.MINOR[.PATCHLEVEL]" (env.evtrace_version) */
	const char *trace_name;
	const char *trace_creation_datetime;	/* ISO 8601 basic, as LTTng: 20261125T153012+0000 */
};

/*
 * Render the CTF 1.8 TSDL metadata into @buf (NUL-terminated).
 * Returns the length it needs (like snprintf).
 */
unsigned long evt_meta_render(char *buf, unsigned long size, const struct evt_meta_params *p);

/*
 * The system's strings the metadata names (hostname, kernel release and
 * version: utsname fields of at most 64 bytes), copied: another task may
 * change them between the pass that sizes the text and the one that writes
 * it (sethostname()).
 */
#define EVT_META_SYS_STRING	65
struct evt_meta_strings {
	char hostname[EVT_META_SYS_STRING];
	char kernel_release[EVT_META_SYS_STRING];
	char kernel_version[EVT_META_SYS_STRING];
};

/* Copy @p's system strings into @s (at most 64 bytes each) and point @p at the copies. */
void evt_meta_params_copy(struct evt_meta_params *p, struct evt_meta_strings *s);

/*
 * The second pass: render into @buf of @size bytes, sized by a first pass
 * (evt_meta_render(NULL, 0, @p) + 1). Returns the text's length, or 0 when
 * it does not fit (@p's strings changed between the passes): never a
 * length beyond @buf, which a reader would be served.
 */
unsigned long evt_meta_render_sized(char *buf, unsigned long size, const struct evt_meta_params *p);

#endif /* EVTRACE_EVENTS_H */
