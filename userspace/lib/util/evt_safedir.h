/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where derived files go (saved results, packet indexes) without being
 * anyone's trap (docs/design/reading.md, "Who may read what"): a directory beside a
 * trace or under the user's cache, opened without following a link and
 * used only when the user running owns it (root's is read too) and nobody
 * else may write into it; files created under a hidden name with O_EXCL |
 * O_NOFOLLOW and renamed into place inside that directory.
 */
#ifndef EVT_SAFEDIR_H
#define EVT_SAFEDIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* FNV-1a, 64 bits, from @h (0xcbf29ce484222325 to start). */
uint64_t evt_fnv64(uint64_t h, const void *p, size_t n);

/*
 * The directory @name under the directory @parent, made (@mode, less the
 * umask) when missing and @write is asked, opened without following a
 * link and used only when the user running owns it, or root does and
 * @write is not asked, and no one else may write into it. An fd, or -1
 * with errno (ELOOP or ENOTDIR: a link, EPERM: someone else's).
 */
int evt_safe_subdir(int parent, const char *name, mode_t mode, int write);

/*
 * The directory @name under the trace directory @dir (followed: the user
 * named it), as evt_safe_subdir(): made with the trace metadata's mode
 * @trace_mode with x where r (0640 gives 0750: nothing wider than the
 * trace), less the umask, and given to the trace's group @gid (or to
 * none). An fd, or -1 with errno.
 */
int evt_beside_subdir(const char *dir, const char *name, unsigned int trace_mode, gid_t gid, int write);

/*
 * The user's cache directory for @kind ("results", "index") and @key (a
 * path: its hash names the directory): BASE/evtrace/KIND/HASH, or
 * @base_override/KIND/HASH. BASE is $XDG_CACHE_HOME, else ~/.cache, as the
 * user names it (followed); below it nothing is followed and every level is
 * the user's alone (0700). Made when @write. An fd with its path in
 * @where, or -1 with errno.
 */
int evt_cache_subdir(const char *base_override, const char *kind, const char *key, int write, char *where,
		     size_t wlen);

/*
 * @len bytes as the file @name in the directory @dfd: written under a
 * hidden name made with O_CREAT | O_EXCL | O_NOFOLLOW and @mode, given to
 * @gid (-1: left; when that fails, the group loses its bits) and renamed
 * over @name. 0, or -1 with errno.
 */
int evt_safe_write_at(int dfd, const char *name, const void *p, size_t len, mode_t mode, gid_t gid);

#endif
