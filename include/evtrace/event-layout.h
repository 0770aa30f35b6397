/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Each event class's payload as C, from <evtrace/event-defs.h>: what the
 * probes and the synthesizer fill, so that no one counts offsets by hand.
 *
 *   struct evt_pl_<class>   the payload, packed: its fixed-size fields in
 *                           order, then var[0], where the variable-size
 *                           fields (strings, sequences) go, in order (a
 *                           zero-length array: a class may have no field);
 *   EVT_CHAN_OF_<ID>        the channel of event EVT_ID_<ID>;
 *   evt_pl_of_<ID>          its payload type (the struct of its class).
 *
 * The layout the metadata declares and every reader decodes (32- and 64-bit
 * integers 4-byte aligned, u16 2-byte, the rest byte-aligned) is computed
 * here by the compiler too, as struct evt_cl_<class> (not packed, with
 * members of exactly those alignments); every field's offset and the fixed
 * part's size of evt_pl_<class> must equal it, or the build stops.
 */
#ifndef EVTRACE_EVENT_LAYOUT_H
#define EVTRACE_EVENT_LAYOUT_H

#include <linux/types.h>
#include <evtrace/abi.h>
#include <evtrace/event-defs.h>
#ifndef __KERNEL__
#include <stddef.h>
#endif

/* The C type of each fixed-size field type, and its array suffix. */
#define EVT_CT_U8	__u8
#define EVT_CT_U16	__u16
#define EVT_CT_U32	__u32
#define EVT_CT_U64	__u64
#define EVT_CT_S32	__s32
#define EVT_CT_S64	__s64
#define EVT_CT_X64	__u64
#define EVT_CT_X32	__u32
#define EVT_CT_COMM	char
#define EVT_DIM_U8
#define EVT_DIM_U16
#define EVT_DIM_U32
#define EVT_DIM_U64
#define EVT_DIM_S32
#define EVT_DIM_S64
#define EVT_DIM_X64
#define EVT_DIM_X32
#define EVT_DIM_COMM	[16]

/* The metadata's alignment of each type (<evtrace/events.h>), as C types. */
typedef __u8 evt_ca_U8;
typedef __u16 evt_ca_U16 __attribute__((aligned(2)));
typedef __u32 evt_ca_U32 __attribute__((aligned(4)));
typedef __u64 evt_ca_U64 __attribute__((aligned(4)));
typedef __s32 evt_ca_S32 __attribute__((aligned(4)));
typedef __s64 evt_ca_S64 __attribute__((aligned(4)));
typedef __u64 evt_ca_X64 __attribute__((aligned(4)));
typedef __u32 evt_ca_X32 __attribute__((aligned(4)));
typedef char evt_ca_COMM;

#define EVT_PL_FIELD(T, n)	EVT_CT_##T n EVT_DIM_##T;
#define EVT_CL_FIELD(T, n)	evt_ca_##T n EVT_DIM_##T;
#define EVT_NO_FIELD(T, n)

#define EVT_PL_STRUCTS(cls, doc)						\
	struct evt_pl_##cls {							\
		EVT_FIELDS_##cls(EVT_PL_FIELD, EVT_NO_FIELD)			\
		char var[0];							\
	} __attribute__((packed));						\
	struct evt_cl_##cls {							\
		EVT_FIELDS_##cls(EVT_CL_FIELD, EVT_NO_FIELD)			\
		char var[0];							\
	};
EVT_CLASSES(EVT_PL_STRUCTS)
#undef EVT_PL_STRUCTS

/* The checks: never called, they only hold the assertions. */
#define EVT_PL_CHECK_FIELD(T, n)						\
	_Static_assert(offsetof(pl_t, n) == offsetof(cl_t, n),		\
		       "payload field " #n " is not where the metadata says: reorder, or pad with a U8/U16");
#define EVT_PL_CHECK(cls, doc)							\
	static inline void evt_pl_check_##cls(void)				\
	{									\
		typedef struct evt_pl_##cls pl_t;				\
		typedef struct evt_cl_##cls cl_t;				\
		EVT_FIELDS_##cls(EVT_PL_CHECK_FIELD, EVT_NO_FIELD)		\
		_Static_assert(offsetof(pl_t, var) == offsetof(cl_t, var) &&	\
			       sizeof(pl_t) == offsetof(pl_t, var),		\
			       "payload of class " #cls ": fixed part's size");	\
	}
EVT_CLASSES(EVT_PL_CHECK)
#undef EVT_PL_CHECK
#undef EVT_PL_CHECK_FIELD

/* Per event: its channel, its payload type. */
#define EVT_EV_CHAN(ev, cls, ch, ID, num, by) EVT_CHAN_OF_##ID = EVT_CHAN_##ch,
enum {
	EVT_EVENTS(EVT_EV_CHAN)
	EVT_SYSCALL_UNKNOWN_EVENTS(EVT_EV_CHAN)
};
#undef EVT_EV_CHAN
#define EVT_EV_TYPE(ev, cls, ch, ID, num, by) typedef struct evt_pl_##cls evt_pl_of_##ID;
EVT_EVENTS(EVT_EV_TYPE)
EVT_SYSCALL_UNKNOWN_EVENTS(EVT_EV_TYPE)
#undef EVT_EV_TYPE

#endif /* EVTRACE_EVENT_LAYOUT_H */
