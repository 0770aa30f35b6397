/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols for the return addresses of kernel_stack events: the
 * kallsyms text evdrain saved beside the trace at START (TRACE/symbols/
 * kallsyms, /proc/kallsyms as root read it: the kernel's functions and every
 * loaded module's, with their addresses), read back here. An address is
 * named by the function whose start is the nearest below it: "func+0x1a",
 * or "func+0x1a [module]".
 */
#ifndef EVT_SYMBOLS_H
#define EVT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct evt_symbols;
struct evt_trace;

/* The file a trace's kernel directory @kdir (TRACE/kernel) has its symbols in, into @buf. */
const char *evt_symbols_path(const char *kdir, char *buf, size_t len);
/*
 * Load a kallsyms text: NULL with @err (the file missing: errno ENOENT;
 * unreadable; no addresses in it, as an unprivileged reader of
 * /proc/kallsyms sees it).
 */
struct evt_symbols *evt_symbols_load(const char *path, char *err, size_t errlen);
/*
 * A trace's symbols: its own, or for a run of chunks the newest chunk's
 * that has some (it knows the modules loaded last). NULL with @err.
 */
struct evt_symbols *evt_symbols_of_trace(const struct evt_trace *t, char *err, size_t errlen);
void evt_symbols_free(struct evt_symbols *s);
/* How many functions. */
size_t evt_symbols_count(const struct evt_symbols *s);
/*
 * @addr's name into @buf ("func+0xOFF", " [module]" after it for a module's
 * function; @with_offset 0: the function's name alone): its length, or 0
 * when no function holds it (@buf then gets "0x" and the address).
 */
size_t evt_symbols_name(const struct evt_symbols *s, uint64_t addr, int with_offset, char *buf, size_t len);

#endif /* EVT_SYMBOLS_H */
