// SPDX-License-Identifier: GPL-2.0
/*
 * The table of events (docs/events.md), from the one definition of every event
 * (<evtrace/event-defs.h>) and this build's catalogue:
 *
 *   evcatalogue                 print the table (markdown)
 *   evcatalogue --check FILE    exit 1 (saying which line differs) unless
 *                               FILE's table is the one printed
 *   evcatalogue --update FILE   rewrite FILE's table in place
 *
 * The table lies between FILE's lines EVT_BEGIN and EVT_END below.
 * `make events-table` updates it; the unit test events_doc_lists_the_catalogue
 * checks it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <evtrace/events.h>

#define EVT_BEGIN "<!-- events: made by `make events-table` from include/evtrace/event-defs.h -->"
#define EVT_END "<!-- end of events -->"

static const struct { const char *cls, *doc; } classes[] = {
#define CLASS_DOC(cls, doc) { #cls, doc },
	EVT_CLASSES(CLASS_DOC)
};
static const struct { const char *name, *cls; unsigned int ch; } events[] = {
#define EVENT_CLASS(ev, cls, ch, ID, num, by) { #ev, #cls, EVT_CHAN_##ch },
	EVT_EVENTS(EVENT_CLASS)
	EVT_SYSCALL_UNKNOWN_EVENTS(EVENT_CLASS)
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *doc_of(const char *cls)
{
	size_t i;

	for (i = 0; i < N(classes); i++)
		if (!strcmp(classes[i].cls, cls))
			return classes[i].doc;
	return "";
}

/* The table into a malloc()ed string. */
static char *table(void)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);
	unsigned char *done = calloc(N(events), 1);

	if (!f || !done)
		exit(2);
	fprintf(f, "| event | channel | fields | what |\n|---|---|---|---|\n");
	fprintf(f, "| `sys_<name>`, `compat_sys_<name>` | compact | the syscall's arguments as its "
		"prototype names them (`fd`, `buf`, `count`, ...) | one event per syscall of the kernel "
		"the module was built for (`kmod/gen-syscalls`), `sys_unknown_N` where its table has no "
		"name |\n");
	/* One row per class and channel, its events in the catalogue's order. */
	for (i = 0; i < N(events); i++) {
		const struct evt_event_desc *d;
		const char *sep = "";

		if (done[i])
			continue;
		fprintf(f, "| ");
		for (j = i; j < N(events); j++)
			if (!strcmp(events[j].cls, events[i].cls) && events[j].ch == events[i].ch) {
				fprintf(f, "%s`%s`", sep, events[j].name);
				sep = ", ";
				done[j] = 1;
			}
		d = evt_find_event_by_name(events[i].name);
		if (!d)
			exit(2);
		fprintf(f, " | %s | ", evt_channel_name(d->channel));
		for (j = 0; j < d->nr_fields; j++)
			fprintf(f, "%s`%s`", j ? ", " : "", d->fields[j].name);
		if (!d->nr_fields)
			fprintf(f, "none");
		fprintf(f, " | %s |\n", doc_of(events[i].cls));
	}
	free(done);
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "evcatalogue: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(2);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	char *t = table(), *readme, *b, *e;

	if (argc == 1) {
		fputs(t, stdout);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "--check") && strcmp(argv[1], "--update"))) {
		fprintf(stderr, "usage: evcatalogue [--check|--update FILE]\n");
		return 2;
	}
	readme = slurp(argv[2]);
	b = strstr(readme, EVT_BEGIN "\n");
	e = b ? strstr(b, EVT_END) : NULL;
	if (!b || !e) {
		fprintf(stderr, "evcatalogue: %s has no table between \"%s\" and \"%s\"\n", argv[2],
			EVT_BEGIN, EVT_END);
		return 1;
	}
	b += strlen(EVT_BEGIN "\n");
	if (!strcmp(argv[1], "--check")) {
		size_t n = (size_t)(e - b), i = 0, line = 1;

		if (n == strlen(t) && !memcmp(b, t, n))
			return 0;
		while (i < n && t[i] && b[i] == t[i])
			line += b[i++] == '\n';
		fprintf(stderr, "evcatalogue: %s's table of events differs from the catalogue's at its "
			"line %zu (make events-table writes it); the catalogue says:\n%s", argv[2], line, t);
		return 1;
	} else {
		FILE *f = fopen(argv[2], "w");

		if (!f || fwrite(readme, 1, (size_t)(b - readme), f) != (size_t)(b - readme) ||
		    fputs(t, f) < 0 || fputs(e, f) < 0 || fclose(f)) {
			fprintf(stderr, "evcatalogue: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
	}
	return 0;
}
