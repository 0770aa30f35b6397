// SPDX-License-Identifier: GPL-2.0
/* Derived files' directories, never anyone's trap: see evt_safedir.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/evt_io.h"
#include "util/evt_safedir.h"

uint64_t evt_fnv64(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int evt_safe_subdir(int parent, const char *name, mode_t mode, int write)
{
	struct stat st;
	int fd;

	if (write && mkdirat(parent, name, mode) && errno != EEXIST)
		return -1;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (st.st_uid != geteuid() && (write || st.st_uid != 0)) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int evt_beside_subdir(const char *dir, const char *name, unsigned int trace_mode, gid_t gid, int write)
{
	/* The trace's own directory: whoever owns it decides what is there, so check what is in it. */
	mode_t mode = (mode_t)(trace_mode & 0666) | 0600;
	struct stat st;
	int fd, sub;

	mode |= (mode & 0444) >> 2;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	sub = evt_safe_subdir(fd, name, mode, write);
	close(fd);
	/* In the trace's group, or in none. */
	if (sub >= 0 && write && !fstat(sub, &st) && st.st_gid != gid && fchown(sub, (uid_t)-1, gid))
		fchmod(sub, st.st_mode & 0700);
	return sub;
}

int evt_cache_subdir(const char *base_override, const char *kind, const char *key, int write, char *where,
		     size_t wlen)
{
	const char *base = base_override, *home;
	const char *parts[3];
	char hash[20];
	unsigned int n = 0, i;
	int fd, sub;

	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)evt_fnv64(0xcbf29ce484222325ULL, key,
									       strlen(key)));
	if (!base) {
		base = getenv("XDG_CACHE_HOME");
		if (!base || !*base) {
			home = getenv("HOME");
			if (!home || !*home) {
				errno = ENOENT;
				return -1;
			}
			snprintf(where, wlen, "%s/.cache", home);
		} else {
			snprintf(where, wlen, "%s", base);
		}
		parts[n++] = "evtrace";
	} else {
		snprintf(where, wlen, "%s", base);
	}
	parts[n++] = kind;
	parts[n++] = hash;
	/* The base as the user names it; below it nothing is followed (a link there is someone's trap). */
	if (write && mkdir(where, 0700) && errno != EEXIST)
		return -1;
	fd = open(where, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; fd >= 0 && i < n; i++) {
		sub = evt_safe_subdir(fd, parts[i], 0700, write);
		close(fd);
		fd = sub;
		snprintf(where + strlen(where), wlen - strlen(where), "/%s", parts[i]);
	}
	return fd;
}

int evt_safe_write_at(int dfd, const char *name, const void *p, size_t len, mode_t mode, gid_t gid)
{
	char tmp[400];
	unsigned int tries;
	int fd = -1, e;

	for (tries = 0; tries < 100 && fd < 0; tries++) {
		snprintf(tmp, sizeof(tmp), ".%s.%ld.%u", name, (long)getpid(), (unsigned int)rand());
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return -1;
	/* The trace's group, or none: a group the process happens to be in must not read it. */
	if (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid))
		fchmod(fd, mode & 0700);
	if (evt_write_all(fd, p, len)) {
		e = errno;
		close(fd);
		unlinkat(dfd, tmp, 0);
		errno = e;
		return -1;
	}
	if (close(fd) || renameat(dfd, tmp, dfd, name)) {
		e = errno;
		unlinkat(dfd, tmp, 0);
		errno = e;
		return -1;
	}
	return 0;
}
