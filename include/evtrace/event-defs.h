/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Every event evtrace records but the per-syscall entries, defined once.
 * Everything else is derived from these lists by the C preprocessor (no
 * generator to run, the same in the kernel build and in userspace's):
 *
 *   - the ids (<evtrace/events.h>: EVT_ID_<ID>),
 *   - the field tables, the catalogue and so the CTF metadata
 *     (kmod/core/evt_events.c),
 *   - each class's payload as a packed struct, struct evt_pl_<class>, whose
 *     offsets and size are checked at compile time against the layout the
 *     metadata declares (<evtrace/event-layout.h>), which the probes
 *     (kmod/evtrace_probes.c, evtrace_statedump.c, ...) and the synthesizer
 *     (userspace/lib/synth/evt_synth_kernel.c) fill,
 *   - the table of events in docs/events.md (tests/tools/evcatalogue.c,
 *     checked by the unit test events_doc_lists_the_catalogue).
 *
 * Adding an event is one EVT_EVENTS line (and a class if no existing one
 * has its fields), then its probe body.
 *
 * EVT_CLASSES(C): C(class, doc): a payload layout, shared by the events of
 * the class (as LTTng's event classes; a class may have no field); @doc is
 * its note in docs/events.md's table.
 * EVT_FIELDS_<class>(F, V): its fields in order, F(TYPE, name) for fixed-size
 * ones (EVT_F_<TYPE>: U8, U16, U32, U64, S32, S64, X64, COMM), then
 * V(TYPE, name) for the variable-size ones (STRING, SEQ_U8, SEQ_X64), which
 * come last. Fields are laid out as <evtrace/events.h> says (32- and 64-bit
 * integers 4-byte aligned, u16 2-byte, the rest byte-aligned); a packed
 * struct that does not lie that way (a U32 after a U8) fails to compile.
 *
 * EVT_EVENTS(E): E(name, class, CHAN, ID, id, by): the event @name of
 * @class, in channel EVT_CHAN_<CHAN> with the id @id there (EVT_ID_<ID>).
 * Compact ids 0-29 take the one-word header; keep ids stable (a trace names
 * its events by them, readers go by the metadata). Events of fixed size (or
 * whose size their fields say) belong in the compact channel: its header is
 * half the normal one's (4 bytes); the normal channel is for big or
 * user-sized ones (a marker's text, the state dump). Issue 45 moved the
 * wakeups, migrations, forks, execs, exits, frees and user page faults
 * there (normal ids 1-5, 7-10 until then). @by says whose task
 * filter applies (evtrace_filter.c): CURRENT, the task running; SUBJECT,
 * the task(s) the event is about, which its probe checks; NONE, never
 * filtered (a completion, a CPU's state: no task's). The order is the
 * catalogue's (and the metadata's, evctl's).
 *
 * EVT_SYSCALL_UNKNOWN_EVENTS(E): the two syscall entries that are not
 * per-syscall, which come after every other event and share the switch
 * "sys_*" with the generated ones (kmod/gen-syscalls).
 */
#ifndef EVTRACE_EVENT_DEFS_H
#define EVTRACE_EVENT_DEFS_H

#define EVT_CLASSES(C)								\
	C(gen_compact, "the generator's and the hrtimer's events: CPU, count")	\
	C(gen_compact_wide, "the generator's, with two more words")		\
	C(ping, "the generator's event without a payload: a header alone")	\
	C(gen_normal, "the generator's, with a byte sequence of 0 to 63 bytes")	\
	C(sys_unknown, "a number beyond the kernel's syscall table (x32)")	\
	C(sc_generic, "a syscall without a single prototype: its six registers") \
	C(sc32_generic, "a 32-bit task's syscall without a single prototype: its six registers") \
	C(exit_syscall, "the syscall's number and its return value")		\
	C(irq_entry, "`name` is the handler's, at most 63 bytes")		\
	C(irq_exit, "the handler's return value")				\
	C(softirq, "the softirq's vector")					\
	C(sched_switch, "`prev_state` is one bit per state letter (1 S, 2 D, 4 T, 8 t, 16 X, 32 Z, 64 P, 128 I), 0 when running or preempted") \
	C(sched_wakeup, "the woken task and the CPU it will run on")		\
	C(sched_migrate, "the task and its old and new CPU")			\
	C(sched_fork, "both processes, each with its thread and process ID")	\
	C(sched_exec, "`filename` at most 127 bytes")				\
	C(sched_task, "the task that exits, or whose last reference goes")	\
	C(page_fault, "a user-space fault's address, instruction and error code") \
	C(marker, "text written to `/dev/evtrace/marker`")			\
	C(trigger, "a kernel report (`reason`: 0 KFENCE, 1 KASAN, 2 WARN, 3 oops) fired a trigger") \
	C(statedump_bound, "around the state dump recorded at every START")	\
	C(statedump_process, "lttng-modules' codes, one per thread")		\
	C(statedump_interrupt, "the chip's name, the handler's")		\
	C(statedump_fd, "every open file of every process: `flags` with O_CLOEXEC, `fmode` the kernel's f_mode, the path") \
	C(statedump_blockdev, "every block device and partition, `dev` as the block events carry it") \
	C(block_rq, "a request (lttng-modules' layout): `dev` the disk's dev_t, `bytes`, `rwbs` LTTng's bits (1 write, 2 discard, 4 read, 8 read-ahead, 32 sync, 64 metadata, 256 flush, 512 FUA, 1024 preflush), the task that inserted or issued it") \
	C(block_rq_complete, "a request completed: its first sector and sectors done, the error (an errno, 0)") \
	C(block_bio_remap, "a bio mapped from a partition (`old_dev`, `old_sector`) to its disk") \
	C(block_bio, "a bio merged at the back of a request")			\
	C(power_cpu, "`state`: for idle the C-state index (4294967295 on leaving it), for frequency kHz; `cpu_id` the CPU") \
	C(kernel_stack, "the kernel call stack of the event just before it in its stream with the id `event_id` (`evctl enable --stack`): return addresses, innermost first")

#define EVT_FIELDS_ping(F, V)
#define EVT_FIELDS_statedump_bound(F, V)
#define EVT_FIELDS_gen_compact(F, V) F(U32, cpu) F(U64, seq)
#define EVT_FIELDS_gen_compact_wide(F, V) F(U32, cpu) F(U64, seq) F(X64, a) F(X64, b)
#define EVT_FIELDS_gen_normal(F, V) F(U32, cpu) F(U64, seq) V(SEQ_U8, fill)
#define EVT_FIELDS_sys_unknown(F, V)						\
	F(S32, id) F(X64, arg0) F(X64, arg1) F(X64, arg2) F(X64, arg3) F(X64, arg4) F(X64, arg5)
#define EVT_FIELDS_sc_generic(F, V)						\
	F(X64, arg0) F(X64, arg1) F(X64, arg2) F(X64, arg3) F(X64, arg4) F(X64, arg5)
#define EVT_FIELDS_sc32_generic(F, V)						\
	F(X32, arg0) F(X32, arg1) F(X32, arg2) F(X32, arg3) F(X32, arg4) F(X32, arg5)
#define EVT_FIELDS_exit_syscall(F, V) F(S32, id) F(S64, ret)
#define EVT_FIELDS_irq_entry(F, V) F(S32, irq) V(STRING, name)
#define EVT_FIELDS_irq_exit(F, V) F(S32, irq) F(S32, ret)
#define EVT_FIELDS_softirq(F, V) F(U32, vec)
#define EVT_FIELDS_sched_switch(F, V)						\
	F(COMM, prev_comm) F(S32, prev_tid) F(S32, prev_prio) F(U32, prev_state)	\
	F(COMM, next_comm) F(S32, next_tid) F(S32, next_prio)
#define EVT_FIELDS_sched_wakeup(F, V) F(COMM, comm) F(S32, tid) F(S32, prio) F(S32, target_cpu)
#define EVT_FIELDS_sched_migrate(F, V)						\
	F(COMM, comm) F(S32, tid) F(S32, prio) F(S32, orig_cpu) F(S32, dest_cpu)
#define EVT_FIELDS_sched_fork(F, V)						\
	F(COMM, parent_comm) F(S32, parent_tid) F(S32, parent_pid)		\
	F(COMM, child_comm) F(S32, child_tid) F(S32, child_pid)
#define EVT_FIELDS_sched_exec(F, V) F(S32, tid) F(S32, old_tid) V(STRING, filename)
#define EVT_FIELDS_sched_task(F, V) F(COMM, comm) F(S32, tid) F(S32, prio)
#define EVT_FIELDS_page_fault(F, V) F(X64, address) F(X64, ip) F(X64, error_code)
#define EVT_FIELDS_marker(F, V) F(S32, tid) V(STRING, text)
#define EVT_FIELDS_trigger(F, V) F(U32, reason) F(X64, id) F(U64, seq)
#define EVT_FIELDS_statedump_process(F, V)					\
	F(S32, tid) F(S32, pid) F(S32, ppid) F(COMM, name) F(S32, type) F(S32, mode) \
	F(S32, submode) F(S32, status) F(U32, cpu)
#define EVT_FIELDS_statedump_interrupt(F, V) F(U32, irq) V(STRING, name) V(STRING, action)
#define EVT_FIELDS_statedump_fd(F, V)						\
	F(S32, pid) F(S32, fd) F(U32, flags) F(U32, fmode) V(STRING, filename)
#define EVT_FIELDS_statedump_blockdev(F, V) F(U32, dev) V(STRING, diskname)
#define EVT_FIELDS_block_rq(F, V)						\
	F(U32, dev) F(U64, sector) F(U32, nr_sector) F(U32, bytes) F(S32, tid) F(U32, rwbs) \
	F(COMM, comm)
#define EVT_FIELDS_block_rq_complete(F, V)					\
	F(U32, dev) F(U64, sector) F(U32, nr_sector) F(S32, error) F(U32, rwbs)
#define EVT_FIELDS_block_bio_remap(F, V)					\
	F(U32, dev) F(U64, sector) F(U32, nr_sector) F(U32, rwbs) F(U32, old_dev) F(U64, old_sector)
#define EVT_FIELDS_block_bio(F, V)						\
	F(U32, dev) F(U64, sector) F(U32, nr_sector) F(U32, rwbs) F(S32, tid) F(COMM, comm)
#define EVT_FIELDS_power_cpu(F, V) F(U32, state) F(U32, cpu_id)
#define EVT_FIELDS_kernel_stack(F, V) F(U32, event_id) V(SEQ_X64, stack)

#define EVT_EVENTS(E)								\
	E(gen_compact, gen_compact, COMPACT, GEN_COMPACT, 0, CURRENT)		\
	E(gen_compact_wide, gen_compact_wide, COMPACT, GEN_COMPACT_WIDE, 1, CURRENT) \
	E(gen_ping, ping, COMPACT, GEN_PING, 2, CURRENT)			\
	E(timer_tick, gen_compact, COMPACT, TIMER_TICK, 3, CURRENT)		\
	E(gen_normal, gen_normal, NORMAL, GEN_NORMAL, 0, CURRENT)		\
	E(exit_syscall, exit_syscall, COMPACT, EXIT_SYSCALL, 5, CURRENT)	\
	E(irq_handler_entry, irq_entry, COMPACT, IRQ_ENTRY, 6, CURRENT)		\
	E(irq_handler_exit, irq_exit, COMPACT, IRQ_EXIT, 7, CURRENT)		\
	E(softirq_entry, softirq, COMPACT, SOFTIRQ_ENTRY, 8, CURRENT)		\
	E(softirq_exit, softirq, COMPACT, SOFTIRQ_EXIT, 9, CURRENT)		\
	E(softirq_raise, softirq, COMPACT, SOFTIRQ_RAISE, 11, CURRENT)		\
	E(sched_switch, sched_switch, COMPACT, SCHED_SWITCH, 10, SUBJECT)	\
	E(sched_wakeup, sched_wakeup, COMPACT, SCHED_WAKEUP, 20, SUBJECT)		\
	E(sched_wakeup_new, sched_wakeup, COMPACT, SCHED_WAKEUP_NEW, 21, SUBJECT)	\
	E(sched_waking, sched_wakeup, COMPACT, SCHED_WAKING, 22, SUBJECT)		\
	E(sched_migrate_task, sched_migrate, COMPACT, SCHED_MIGRATE, 23, SUBJECT) \
	E(sched_process_fork, sched_fork, COMPACT, SCHED_FORK, 24, CURRENT)	\
	E(sched_process_exec, sched_exec, COMPACT, SCHED_EXEC, 25, CURRENT)	\
	E(sched_process_exit, sched_task, COMPACT, SCHED_EXIT, 26, SUBJECT)	\
	E(sched_process_free, sched_task, COMPACT, SCHED_FREE, 27, SUBJECT)	\
	E(page_fault_user, page_fault, COMPACT, PAGE_FAULT_USER, 28, CURRENT)	\
	E(marker, marker, NORMAL, MARKER, 6, CURRENT)				\
	E(evtrace_trigger, trigger, NORMAL, TRIGGER, 15, NONE)			\
	E(lttng_statedump_start, statedump_bound, NORMAL, STATEDUMP_START, 11, NONE)	\
	E(lttng_statedump_process_state, statedump_process, NORMAL, STATEDUMP_PROCESS, 13, NONE) \
	E(lttng_statedump_interrupt, statedump_interrupt, NORMAL, STATEDUMP_INTERRUPT, 14, NONE) \
	E(lttng_statedump_file_descriptor, statedump_fd, NORMAL, STATEDUMP_FD, 16, NONE) \
	E(lttng_statedump_block_device, statedump_blockdev, NORMAL, STATEDUMP_BLOCKDEV, 17, NONE) \
	E(lttng_statedump_end, statedump_bound, NORMAL, STATEDUMP_END, 12, NONE) \
	E(block_rq_insert, block_rq, COMPACT, BLOCK_RQ_INSERT, 12, CURRENT)	\
	E(block_rq_issue, block_rq, COMPACT, BLOCK_RQ_ISSUE, 13, CURRENT)	\
	E(block_rq_complete, block_rq_complete, COMPACT, BLOCK_RQ_COMPLETE, 14, NONE) \
	E(block_bio_remap, block_bio_remap, COMPACT, BLOCK_BIO_REMAP, 15, CURRENT) \
	E(block_bio_backmerge, block_bio, COMPACT, BLOCK_BIO_BACKMERGE, 16, CURRENT) \
	E(power_cpu_idle, power_cpu, COMPACT, POWER_CPU_IDLE, 17, NONE)		\
	E(power_cpu_frequency, power_cpu, COMPACT, POWER_CPU_FREQUENCY, 18, NONE) \
	E(kernel_stack, kernel_stack, COMPACT, KERNEL_STACK, 19, NONE)

#define EVT_SYSCALL_UNKNOWN_EVENTS(E)						\
	E(sys_unknown, sys_unknown, COMPACT, SYS_UNKNOWN, 254, CURRENT)		\
	E(compat_sys_unknown, sys_unknown, COMPACT, COMPAT_SYS_UNKNOWN, 255, CURRENT)

#endif /* EVTRACE_EVENT_DEFS_H */
