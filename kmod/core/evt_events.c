// SPDX-License-Identifier: GPL-2.0
/*
 * The event catalogue and the CTF metadata rendered from it. Portable: the
 * module serves the metadata, userspace tests render it to check a trace
 * written by the core with babeltrace2.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/stdarg.h>
#else
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#endif
#include <evtrace/events.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The field tables, one per class of <evtrace/event-defs.h> (f_<class>),
 * and how many fields each has (EVT_NF_<class>).
 */
#define EVT_FIELD_DESC(T, n) { .name = #n, .type = EVT_F_##T },
#define EVT_FIELD_COUNT(T, n) + 1
#define EVT_CLASS_TABLE(cls, doc)						\
	static const struct evt_field_desc f_##cls[] = {			\
		EVT_FIELDS_##cls(EVT_FIELD_DESC, EVT_FIELD_DESC)		\
	};									\
	enum { EVT_NF_##cls = 0 EVT_FIELDS_##cls(EVT_FIELD_COUNT, EVT_FIELD_COUNT) };
EVT_CLASSES(EVT_CLASS_TABLE)

/* The generated syscall events' (kmod/gen-syscalls) own tables and events. */
#define F(n, t) { .name = n, .type = t }
#define EV(nm, ch, i, f) { .name = nm, .channel = ch, .id = i, \
	.nr_fields = ARRAY_LEN(f), .fields = f }
#define EV0(nm, ch, i) { .name = nm, .channel = ch, .id = i, .nr_fields = 0, .fields = NULL }
#define EVT_EVENT_DESC(ev, cls, ch, ID, num, by)				\
	{ .name = #ev, .channel = EVT_CHAN_##ch, .id = EVT_ID_##ID,		\
	  .nr_fields = EVT_NF_##cls, .fields = EVT_NF_##cls ? f_##cls : NULL },

/* The build's kernel's syscalls (kmod/gen-syscalls): fields, EVT_SYSCALL_EVENTS. */
#include "evt_syscalls.h"

/*
 * Each table fits its id range: a native table longer than the gap before
 * the compat range would give its last syscalls the compat ones' ids (and
 * names), a compat table past EVT_ID_SYS_END ids nothing decodes.
 */
_Static_assert(EVT_ID_SYS_BASE + EVT_NR_SYSCALLS <= EVT_ID_COMPAT_SYS_BASE,
	       "this kernel has more native syscalls than the ids from EVT_ID_SYS_BASE to EVT_ID_COMPAT_SYS_BASE: move EVT_ID_COMPAT_SYS_BASE up");
_Static_assert(EVT_ID_COMPAT_SYS_BASE + EVT_NR_COMPAT_SYSCALLS <= EVT_ID_SYS_END,
	       "this kernel has more compat syscalls than the ids from EVT_ID_COMPAT_SYS_BASE to EVT_ID_SYS_END: move EVT_ID_SYS_END up");

/*
 * Every event but the syscall entries, then the syscall entries (they share
 * one enable switch, the last).
 */
#define EVT_PLAIN_EVENTS EVT_EVENTS(EVT_EVENT_DESC)

const struct evt_event_desc evt_events[] = {
	EVT_PLAIN_EVENTS
	/* From here on: the syscall entries, switch "sys_*". */
	EVT_SYSCALL_UNKNOWN_EVENTS(EVT_EVENT_DESC)
	EVT_SYSCALL_EVENTS
	EVT_COMPAT_SYSCALL_EVENTS
};
const unsigned int evt_nr_events = ARRAY_LEN(evt_events);
/* One per event before sys_unknown, and "sys_*". */
const unsigned int evt_nr_switches =
	ARRAY_LEN(((const struct evt_event_desc[]){ EVT_PLAIN_EVENTS })) + 1;

const char *evt_switch_name(unsigned int sw)
{
	return sw + 1 < evt_nr_switches ? evt_events[sw].name :
	       sw + 1 == evt_nr_switches ? EVT_SYSCALL_SWITCH_NAME : NULL;
}

int evt_find_switch(const char *name)
{
	unsigned int i;

	for (i = 0; i < evt_nr_switches; i++)
		if (!strcmp(evt_switch_name(i), name))
			return (int)i;
	return -1;
}

const struct evt_event_desc *evt_find_event(unsigned int channel, unsigned int id)
{
	unsigned int i;

	for (i = 0; i < evt_nr_events; i++)
		if (evt_events[i].channel == channel && evt_events[i].id == id)
			return &evt_events[i];
	return NULL;
}

const struct evt_event_desc *evt_find_event_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < evt_nr_events; i++)
		if (!strcmp(evt_events[i].name, name))
			return &evt_events[i];
	return NULL;
}

const char *evt_channel_name(unsigned int channel)
{
	return channel == EVT_CHAN_COMPACT ? "compact" :
	       channel == EVT_CHAN_NORMAL ? "normal" : "?";
}

/* snprintf that appends and keeps counting past the end, like snprintf. */
struct evt_out {
	char *buf;
	unsigned long size;
	unsigned long len;
};

#ifdef __KERNEL__
__printf(2, 3)
#else
__attribute__((format(printf, 2, 3)))
#endif
static void out(struct evt_out *o, const char *fmt, ...)
{
	va_list ap;
	unsigned long room = o->len < o->size ? o->size - o->len : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (unsigned long)n;
}

static void out_uuid(struct evt_out *o, const unsigned char *u)
{
	out(o, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	    u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
	    u[12], u[13], u[14], u[15]);
}

/*
 * An env entry "\tKEY = "VALUE";": quotes and backslashes escaped, control
 * bytes and bytes past ASCII (a hostname is the administrator's) as '?', at
 * most 200 bytes of @s.
 */
static void out_env_string(struct evt_out *o, const char *key, const char *s)
{
	unsigned int n;

	out(o, "\t%s = \"", key);
	for (n = 0; s && *s && n < 200; s++, n++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			out(o, "\\%c", c);
		else
			out(o, "%c", c >= 0x20 && c < 0x7f ? c : '?');
	}
	out(o, "\";\n");
}

static const char *field_type(enum evt_field_type t)
{
	switch (t) {
	case EVT_F_U8: return "uint8_t";
	case EVT_F_U16: return "uint16_t";
	case EVT_F_U32: return "uint32_t";
	case EVT_F_U64: return "uint64a32_t";
	case EVT_F_S32: return "int32_t";
	case EVT_F_S64: return "int64a32_t";
	case EVT_F_X64: return "uint64a32_hex_t";
	case EVT_F_STRING: return "string";
	case EVT_F_SEQ_U8: return "uint8_t";
	case EVT_F_SEQ_X64: return "uint64a32_hex_t";
	case EVT_F_COMM: return "char_t";
	case EVT_F_X32: return "uint32_hex_t";
	}
	return "uint8_t";
}

static const char metadata_head[] =
	"/* CTF 1.8 */\n\n"
	"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 16; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 32; signed = false; } := uint32_t;\n"
	"typealias integer { size = 32; align = 32; signed = true; } := int32_t;\n"
	"typealias integer { size = 32; align = 32; signed = false; base = 16; } := uint32_hex_t;\n"
	"typealias integer { size = 32; align = 1; signed = false; } := uint32a1_t;\n"
	"typealias integer { size = 64; align = 64; signed = false; } := uint64_t;\n"
	"/* Events are 4-byte aligned, so are their 64-bit fields. */\n"
	"typealias integer { size = 64; align = 32; signed = false; } := uint64a32_t;\n"
	"typealias integer { size = 64; align = 32; signed = true; } := int64a32_t;\n"
	"typealias integer { size = 64; align = 32; signed = false; base = 16; } := uint64a32_hex_t;\n"
	"typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := char_t;\n\n";

static const char metadata_streams[] =
	"typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;\n"
	"typealias integer { size = 32; align = 32; signed = false; map = clock.monotonic.value; } := uint32_clock_monotonic_t;\n"
	"typealias integer { size = 64; align = 32; signed = false; map = clock.monotonic.value; } := uint64a32_clock_monotonic_t;\n"
	"typealias integer { size = 64; align = 64; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n"
	"struct packet_context {\n"
	"\tuint64_clock_monotonic_t timestamp_begin;\n"
	"\tuint64_clock_monotonic_t timestamp_end;\n"
	"\tuint64_t content_size;\n"
	"\tuint64_t packet_size;\n"
	"\tuint64_t packet_seq_num;\n"
	"\tuint64_t events_discarded;\n"
	"\tuint32_t cpu_id;\n"
	"};\n\n"
	"/* wide: ids beyond the 5 bits, with the small header's timestamp */\n"
	"struct event_header_compact {\n"
	"\tenum : uint5_t { compact = 0 ... 29, wide = 30, extended = 31 } id;\n"
	"\tvariant <id> {\n"
	"\t\tstruct { uint27_clock_monotonic_t timestamp; } compact;\n"
	"\t\tstruct { uint27_clock_monotonic_t timestamp; uint32a1_t id; } wide;\n"
	"\t\tstruct { uint32_t id; uint64a32_clock_monotonic_t timestamp; } extended;\n"
	"\t} v;\n"
	"} align(32);\n\n"
	"struct event_header_normal {\n"
	"\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
	"\t/* bytes 2-3: alignment padding here; evtrace keeps the payload size in them */\n"
	"\tvariant <id> {\n"
	"\t\tstruct { uint32_clock_monotonic_t timestamp; } compact;\n"
	"\t\tstruct { uint32_t id; uint64a32_clock_monotonic_t timestamp; } extended;\n"
	"\t} v;\n"
	"} align(32);\n\n"
	"stream {\n"
	"\tid = 0;\n"
	"\tevent.header := struct event_header_compact;\n"
	"\tpacket.context := struct packet_context;\n"
	"};\n\n"
	"stream {\n"
	"\tid = 1;\n"
	"\tevent.header := struct event_header_normal;\n"
	"\tpacket.context := struct packet_context;\n"
	"};\n\n";

unsigned long evt_meta_render(char *buf, unsigned long size, const struct evt_meta_params *p)
{
	struct evt_out o = { .buf = buf, .size = size, .len = 0 };
	const char *v;
	unsigned int i, j;

	if (size)
		buf[0] = '\0';
	out(&o, "%s", metadata_head);
	out(&o, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
	out_uuid(&o, p->uuid);
	out(&o, "\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n"
		"\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n"
		"\t\tuint64_t stream_instance_id;\n"
		"\t};\n};\n\n");
	/* As LTTng's kernel traces: the analysis tools read these keys. */
	out(&o, "env {\n");
	out_env_string(&o, "hostname", p->hostname);
	out_env_string(&o, "domain", "kernel");
	out_env_string(&o, "sysname", "Linux");
	out_env_string(&o, "kernel_release", p->kernel_release);
	out_env_string(&o, "kernel_version", p->kernel_version);
	/*
	 * tracer_major/minor/patchlevel name the LTTng kernel tracer whose
	 * field values evtrace's events carry, not evtrace's version: the
	 * analyses apply version-specific fixes on them (lttng-analyses
	 * subtracts 100 from sched_wakeup's prio below 2.7.1; evtrace records
	 * the kernel's p->prio everywhere, as 2.7.1 on). evtrace's own version
	 * is evtrace_version and its numbers.
	 */
	out_env_string(&o, "tracer_name", "evtrace");
	out(&o, "\ttracer_major = %u;\n\ttracer_minor = %u;\n\ttracer_patchlevel = %u;\n",
	    EVT_LTTNG_LAYOUT_MAJOR, EVT_LTTNG_LAYOUT_MINOR, EVT_LTTNG_LAYOUT_PATCHLEVEL);
	out_env_string(&o, "evtrace_version", p->tracer_version);
	for (i = 0, v = p->tracer_version ? p->tracer_version : ""; i < 3; i++) {
		unsigned long n = 0;

		while (*v >= '0' && *v <= '9' && n < 100000)
			n = n * 10 + (unsigned long)(*v++ - '0');
		out(&o, "\tevtrace_%s = %lu;\n", i == 0 ? "major" : i == 1 ? "minor" : "patchlevel", n);
		if (*v == '.')
			v++;
	}
	out_env_string(&o, "trace_buffering_scheme", "global");
	out_env_string(&o, "trace_name", p->trace_name);
	out_env_string(&o, "trace_creation_datetime", p->trace_creation_datetime);
	out(&o, "};\n\n");
	out(&o, "clock {\n\tname = \"monotonic\";\n\tuuid = \"");
	out_uuid(&o, p->uuid);
	out(&o, "\";\n\tdescription = \"CLOCK_MONOTONIC (ktime_get_mono_fast_ns)\";\n"
		"\tfreq = 1000000000;\n\tprecision = 1;\n"
		"\toffset_s = %llu;\n\toffset = %llu;\n\tabsolute = false;\n};\n\n",
	    p->clock_offset_s, p->clock_offset_ns);
	out(&o, "%s", metadata_streams);
	for (i = 0; i < evt_nr_events; i++) {
		const struct evt_event_desc *e = &evt_events[i];

		out(&o, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = %u;\n"
			"\tfields := struct {\n", e->name, e->id, e->channel);
		for (j = 0; j < e->nr_fields; j++) {
			const struct evt_field_desc *f = &e->fields[j];

			if (f->type == EVT_F_COMM)
				out(&o, "\t\tchar_t %s[16];\n", f->name);
			else if (f->type == EVT_F_SEQ_U8)
				out(&o, "\t\tuint16_t %s_len;\n\t\tuint8_t %s[%s_len];\n",
				    f->name, f->name, f->name);
			else if (f->type == EVT_F_SEQ_X64)
				out(&o, "\t\tuint32_t %s_len;\n\t\tuint64a32_hex_t %s[%s_len];\n",
				    f->name, f->name, f->name);
			else
				out(&o, "\t\t%s %s;\n", field_type(f->type), f->name);
		}
		out(&o, "\t};\n};\n\n");
	}
	return o.len;
}

/*
 * A string another task may be writing (the kernel's uts_sem, which orders
 * its own readers, is not exported to modules): each byte read once, so a
 * blend of old and new at worst, always terminated within @size.
 */
#ifdef __KERNEL__
#define evt_racy_byte(p)	data_race(READ_ONCE(*(p)))
#else
#define evt_racy_byte(p)	(*(const volatile char *)(p))
#endif

static void copy_string(char *dst, const char *src, unsigned long size)
{
	unsigned long n = 0;

	while (src && n + 1 < size && (dst[n] = evt_racy_byte(&src[n])))
		n++;
	dst[n] = '\0';
}

void evt_meta_params_copy(struct evt_meta_params *p, struct evt_meta_strings *s)
{
	copy_string(s->hostname, p->hostname, sizeof(s->hostname));
	copy_string(s->kernel_release, p->kernel_release, sizeof(s->kernel_release));
	copy_string(s->kernel_version, p->kernel_version, sizeof(s->kernel_version));
	p->hostname = s->hostname;
	p->kernel_release = s->kernel_release;
	p->kernel_version = s->kernel_version;
}

unsigned long evt_meta_render_sized(char *buf, unsigned long size, const struct evt_meta_params *p)
{
	unsigned long len = evt_meta_render(buf, size, p);

	return len < size ? len : 0;
}
