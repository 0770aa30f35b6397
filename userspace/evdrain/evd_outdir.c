// SPDX-License-Identifier: GPL-2.0
/*
 * evdrain's lock (one evdrain at a time) and its output directory: -o DIR
 * checked before anything is made, then made, an earlier trace never
 * overwritten unless asked. See evd_outdir.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "evd_outdir.h"
#include "ctf/evt_trace.h"

/* The lock's descriptor, held while evdrain runs (-1: no lock file). */
static int lock_fd = -1;

/* One evdrain at a time: a lock file with our pid in it. */
int evd_take_lock(void)
{
	static const char *const paths[] = EVT_WRITER_LOCKS;
	char buf[32];
	unsigned int i;
	int fd = -1;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && fd < 0; i++)
		fd = open(paths[i], O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return 0;	/* nowhere to lock: the devices' one-reader rule still holds */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "evdrain is already running (pid %ld); stop it first\n",
			strtol(buf, NULL, 10));
		return -1;
	}
	if (ftruncate(fd, 0) == 0) {
		int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

		if (write(fd, buf, (size_t)n) < 0)
			return 0;
	}
	lock_fd = fd;
	return 0;	/* the descriptor stays open: the lock lives as long as we do */
}

/*
 * The lock also names the directory being written (realpath), after the
 * pid: a reader of it (evt_trace_writer()) then reads each stream up to
 * its last whole packet instead of refusing the one being written.
 */
void evd_lock_names_dir(const char *dir)
{
	char real[4096], buf[4200];
	int n;

	if (lock_fd < 0 || !realpath(dir, real))
		return;
	n = snprintf(buf, sizeof(buf), "%ld\n%s\n", (long)getpid(), real);
	if (n > 0 && (size_t)n < sizeof(buf) && ftruncate(lock_fd, 0) == 0 &&
	    pwrite(lock_fd, buf, (size_t)n, 0) != n)
		return;
}

/* A file of a trace: metadata (or its temporary name), compact_N, normal_N. */
static int is_trace_file(const char *name)
{
	const char *p = NULL;

	if (!strcmp(name, "metadata") || !strcmp(name, "metadata.tmp"))
		return 1;
	if (!strncmp(name, "compact_", 8))
		p = name + 8;
	else if (!strncmp(name, "normal_", 7))
		p = name + 7;
	if (!p || !*p)
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return !*p;
}

/*
 * The trace files in DIR: with @force deleted, else the first one found is
 * named in @found. 0 (none left), 1 (one found), -1 (said why).
 */
int evd_trace_files(const char *dir, int force, char *found, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d) {
		fprintf(stderr, "evdrain: cannot read %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (!is_trace_file(de->d_name))
			continue;
		if (!force) {
			snprintf(found, len, "%s", de->d_name);
			ret = 1;
			break;
		}
		if (unlinkat(dirfd(d), de->d_name, 0)) {
			fprintf(stderr, "evdrain: --force: cannot delete %s/%s: %s\n", dir, de->d_name,
				strerror(errno));
			ret = -1;
			break;
		}
	}
	closedir(d);
	return ret;
}

/*
 * DIR exists (made if missing, 0750 and the --group), takes a new file and
 * holds no trace: an existing one is never overwritten, only appended to
 * (--attach) or deleted on request (--force, once the module answered:
 * delete_trace()).
 */
static int make_dir(const char *dir, const struct options *o)
{
	if (mkdir(dir, 0750)) {
		if (errno == EEXIST)
			return 0;
		fprintf(stderr, "evdrain: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (o->has_group && chown(dir, (uid_t)-1, o->group)) {
		fprintf(stderr, "evdrain: --group: cannot give %s to group %u: %s\n", dir,
			(unsigned int)o->group, strerror(errno));
		return -1;
	}
	return 0;
}

/* @dir takes a new file (tried, not guessed from its mode): 0, or -1 said. */
static int check_writable(const char *dir)
{
	char probe[4200];
	int fd;

	snprintf(probe, sizeof(probe), "%s/.evdrain-probe", dir);
	fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "evdrain: %s is not writable: %s\n", dir, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}

/*
 * @dir could be made by make_dir (its parent is a writable directory), or
 * is a writable directory: 0, or -1 said as make_dir or check_writable say it.
 */
static int can_make_dir(const char *dir)
{
	char parent[4096];
	struct stat st;
	char *slash;

	if (!stat(dir, &st)) {
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "evdrain: cannot create %s: %s\n", dir, strerror(ENOTDIR));
			return -1;
		}
		return check_writable(dir);
	}
	if (errno != ENOENT) {
		fprintf(stderr, "evdrain: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(parent, sizeof(parent), "%s", dir);
	while ((slash = strrchr(parent, '/')) && slash != parent && !slash[1])
		*slash = 0;	/* "a/b/" is "a/b" */
	slash = strrchr(parent, '/');
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else
		slash[slash == parent] = 0;	/* "/x": "/" */
	if (stat(parent, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "evdrain: cannot create %s: %s\n", dir, strerror(errno ? errno : ENOTDIR));
		return -1;
	}
	if (access(parent, W_OK | X_OK)) {
		fprintf(stderr, "evdrain: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* DIR/kernel (or DIR, rotating) holds an earlier trace evdrain must not overwrite: -1 said. */
static int holds_trace(const struct options *o)
{
	char found[256];
	const char *where;
	struct stat st;
	int r = 0;

	if (rotating(o) || o->attach || o->force)
		return 0;
	/* DIR/kernel/, or DIR/ itself as evdrain 0.1 wrote it. */
	where = o->tracedir;
	if (!stat(where, &st))
		r = evd_trace_files(where, 0, found, sizeof(found));
	if (!r && !stat(o->outdir, &st)) {
		where = o->outdir;
		r = evd_trace_files(where, 0, found, sizeof(found));
	}
	if (r > 0)
		fprintf(stderr, "evdrain: %s holds a trace (%s%s): evdrain does not overwrite one; "
			"use another directory, --attach to append to it, or --force to delete it\n",
			o->outdir, where == o->tracedir ? "kernel/" : "", found);
	return r ? -1 : 0;
}

/*
 * -o DIR checked before anything is made: the module may yet be missing, and
 * a refused run leaves no directory behind. 0, or -1 said.
 */
int evd_check_outdir(struct options *o)
{
	struct stat st;

	if (!rotating(o) && (size_t)snprintf(o->tracedir, sizeof(o->tracedir), "%s/kernel", o->outdir) >=
	    sizeof(o->tracedir)) {
		fprintf(stderr, "evdrain: %s: the directory name is too long\n", o->outdir);
		return -1;
	}
	if (can_make_dir(o->outdir))
		return -1;
	if (!rotating(o) && !stat(o->outdir, &st) && can_make_dir(o->tracedir))
		return -1;
	return holds_trace(o);
}

/* Make -o DIR (and DIR/kernel), checked by evd_check_outdir() first: 0, or -1 said. */
int evd_prepare_outdir(struct options *o)
{
	/* Chunks go into DIR itself; evd_rot_start() refuses a trace of its own there. */
	if (rotating(o))
		return make_dir(o->outdir, o) || check_writable(o->outdir) ? -1 : 0;
	if (make_dir(o->outdir, o) || make_dir(o->tracedir, o) || check_writable(o->tracedir))
		return -1;
	return holds_trace(o);
}
