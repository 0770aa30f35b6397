// SPDX-License-Identifier: GPL-2.0
/*
 * evview: a trace viewer in the browser. An HTTP server (libmicrohttpd:
 * Debian's, well kept; no HTTP parsing of our own) on the loopback serves
 * the page (www/) and a JSON API backed by one analysis engine: the
 * window a tab looks at is an ad hoc request (first), the whole-trace
 * statistics a background pass that every tab shares. See usage().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>
#include "util/evt_cli.h"
#include "engine/evt_comp_index.h"
#include "engine/evt_comp_marks.h"
#include "format/evt_format.h"
#include "view/evt_view.h"
#include "evv.h"

#define EXIT_TRACE EVT_EXIT_FAILURE
#define EXIT_USAGE EVT_EXIT_USAGE
/* Without --listen: the first free port from here. */
#define DEFAULT_PORT 8080
#define DEFAULT_PORT_TRIES 100
/*
 * Connections at once (a thread each), and how long an idle one stays
 * open: short, so that connections that never send a request (someone
 * holding every slot) are closed soon; a browser opens a new one when it
 * needs it. Another user's are refused as they arrive (peer_allowed).
 */
#define MAX_CONNECTIONS 64
#define IDLE_TIMEOUT_S 15
/* The secret in the printed URL: 32 random bytes, in hex. */
#define TOKEN_BYTES 32

#ifndef EVT_VIEWDIR
#define EVT_VIEWDIR "/usr/local/share/evtrace/view"
#endif

/* An error message; what it quotes (a file name, a name from the trace) escaped. */
static void say_err(const char *msg)
{
	evt_say_err("evview", msg);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: evview DIR [options]\n"
"Look at the evtrace trace in DIR (a trace directory or a run of chunks) in a\n"
"browser: a timeline per CPU (the running thread, idle time, interrupts, lost\n"
"events), zoom and pan, a selection's events and statistics, and the whole\n"
"trace's statistics once the background pass has computed them (saved beside\n"
"the trace, as evstat(1) saves them). evview prints the URL to open.\n"
"\n"
"  --listen ADDR:PORT  where to listen (default 127.0.0.1 and the first free port\n"
"                      from 8080; PORT 0: any free port). The trace is served to\n"
"                      whoever has the URL's secret token (#token=...): its API\n"
"                      answers nothing without it, and connections of other\n"
"                      users are refused. From another machine:\n"
"                      ssh -L PORT:127.0.0.1:PORT HOST, then open the URL\n"
"  --no-saved          neither read nor write saved results\n"
"  --version           print the version\n"
"  --help              this text\n"
"\n"
"Exit status: 0 stopped by SIGINT or SIGTERM; 1 trace error, or the port is in\n"
"use; 2 usage error.\n");
}

struct opts {
	const char *dir;
	struct in_addr addr;
	int port;			/* -1: the default search */
	int no_saved;
};

static int parse_listen(const char *v, struct opts *o)
{
	const char *colon = strrchr(v, ':');
	char host[64], *end;
	unsigned long port;

	if (!colon || (size_t)(colon - v) >= sizeof(host) || colon == v) {
		fprintf(stderr, "evview: --listen takes ADDR:PORT (e.g. 127.0.0.1:8080), not \"%s\"\n", v);
		return -1;
	}
	memcpy(host, v, (size_t)(colon - v));
	host[colon - v] = 0;
	if (inet_pton(AF_INET, host, &o->addr) != 1) {
		fprintf(stderr, "evview: --listen: \"%s\" is not an IPv4 address\n", host);
		return -1;
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || !colon[1] || colon[1] == '-' || port > 65535) {
		fprintf(stderr, "evview: --listen: \"%s\" is not a port (0-65535)\n", colon + 1);
		return -1;
	}
	o->port = (int)port;
	return 0;
}

enum { OPT_LISTEN = 256, OPT_NO_SAVED, OPT_VERSION };

static const struct option long_opts[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "no-saved", no_argument, NULL, OPT_NO_SAVED },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	o->port = -1;
	o->addr.s_addr = htonl(INADDR_LOOPBACK);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(EVT_EXIT_OK);
		case OPT_VERSION:
			printf("evview %s\n", EVT_VERSION);
			exit(EVT_EXIT_OK);
		case OPT_NO_SAVED:
			o->no_saved = 1;
			break;
		case OPT_LISTEN:
			if (parse_listen(optarg, o))
				return -1;
			break;
		default:
			evt_opt_error("evview", argv, "h", long_opts);
			return -1;
		}
	}
	for (; optind < argc; optind++) {
		if (o->dir) {
			fprintf(stderr, "evview: one trace directory only (\"%s\" is a second)\n", argv[optind]);
			return -1;
		}
		o->dir = argv[optind];
	}
	if (!o->dir) {
		fprintf(stderr, "evview: which trace? (evview DIR)\n");
		return -1;
	}
	return 0;
}

/* ---- The engine thread and the handlers' turns ---- */

/* evt_comp_want's notification: the computation is ready (called in the engine thread). */
static int comp_ready(void *data, void *call)
{
	(void)call;
	*(int *)data = 1;
	return 0;
}

/* The pass reached the armed time: where it is, for /api/progress. */
static int pass_progress(void *data, void *call)
{
	struct evv *s = data;
	const struct evt_where *w = call;

	s->progress_armed = 0;
	if (w->rt > s->pass_rt)
		s->pass_rt = w->rt;
	return 0;
}

/* A notification at the next percent of the span while the pass runs. */
static void arm_progress(struct evv *s)
{
	uint64_t step = (s->last_rt - s->first_rt) / 100 + 1, at;

	if (s->progress_armed || evv_all_ready(s) || !evt_comp_in_progress(s->t, "stats"))
		return;
	at = (s->pass_rt > s->first_rt ? s->pass_rt : s->first_rt) + step;
	if (!evt_bg_notify_current(s->t, s, at, UINT64_MAX, pass_progress, s))
		s->progress_armed = 1;
}

static void *engine_thread(void *arg)
{
	struct evv *s = arg;
	struct timespec pause = { 0, 20000 };

	pthread_mutex_lock(&s->lock);
	while (!atomic_load(&s->quit)) {
		if (!evt_engine_busy(s->eng)) {
			pthread_cond_wait(&s->work, &s->lock);
			continue;
		}
		evt_engine_step(s->eng);
		arm_progress(s);
		pthread_cond_broadcast(&s->done);
		/* Handlers first: one chunk (~10 ms) is the most they wait. */
		if (atomic_load(&s->want_lock) || atomic_load(&s->wakeups)) {
			pthread_mutex_unlock(&s->lock);
			while ((atomic_load(&s->want_lock) || atomic_load(&s->wakeups)) && !atomic_load(&s->quit))
				nanosleep(&pause, NULL);
			pthread_mutex_lock(&s->lock);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* ---- Static files: a fixed list, nothing else is ever opened ---- */

static const struct {
	const char *url, *file, *type;
} www_files[] = {
	{ "/", "index.html", "text/html; charset=utf-8" },
	{ "/index.html", "index.html", "text/html; charset=utf-8" },
	{ "/view.js", "view.js", "text/javascript; charset=utf-8" },
	{ "/view.css", "view.css", "text/css; charset=utf-8" },
};

/*
 * The page's folder, the first that has index.html: the source tree's
 * beside build/bin/, the installed one beside BINDIR (PREFIX/share/...,
 * whatever PREFIX and DESTDIR were), the one this build was made for.
 */
static void find_www(struct evv *s)
{
	static const char *const rel[] = { "../../userspace/evview/www", "../share/evtrace/view" };
	char exe[PATH_MAX], probe[sizeof(s->www) + 16], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		for (size_t i = 0; slash && i < sizeof(rel) / sizeof(rel[0]); i++) {
			if ((size_t)snprintf(s->www, sizeof(s->www), "%s/%s", exe, rel[i]) >= sizeof(s->www))
				continue;
			snprintf(probe, sizeof(probe), "%s/index.html", s->www);
			if (!stat(probe, &st))
				return;
		}
	}
	snprintf(s->www, sizeof(s->www), "%s", EVT_VIEWDIR);
}

static struct MHD_Response *static_file(const struct evv *s, const char *url, unsigned int *status)
{
	struct MHD_Response *resp;
	char path[sizeof(s->www) + 32];
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(www_files) / sizeof(www_files[0]); i++)
		if (!strcmp(url, www_files[i].url))
			break;
	if (i == sizeof(www_files) / sizeof(www_files[0]))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", s->www, www_files[i].file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		return NULL;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, www_files[i].type);
	*status = MHD_HTTP_OK;
	return resp;
}

/* ---- Server-sent events: the pass's progress, then "ready" ---- */

struct sse {
	struct evv *s;
	int last;			/* percent sent last, -1 none */
	int over;
};

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *e = cls;
	struct timespec tick = { 0, 200 * 1000 * 1000 };
	int percent, ready, n;

	(void)pos;
	if (e->over)
		return MHD_CONTENT_READER_END_OF_STREAM;
	for (;;) {
		if (atomic_load(&e->s->quit))
			return MHD_CONTENT_READER_END_OF_STREAM;
		evv_enter(e->s);
		ready = evv_all_ready(e->s);
		percent = (int)evv_percent(e->s);
		evv_leave(e->s);
		if (ready) {
			e->over = 1;
			n = snprintf(buf, max, "event: ready\ndata: {\"percent\":100}\n\n");
			return n < 0 || (size_t)n >= max ? MHD_CONTENT_READER_END_WITH_ERROR : n;
		}
		if (percent != e->last) {
			e->last = percent;
			n = snprintf(buf, max, "event: progress\ndata: {\"percent\":%d}\n\n", percent);
			return n < 0 || (size_t)n >= max ? MHD_CONTENT_READER_END_WITH_ERROR : n;
		}
		nanosleep(&tick, NULL);
	}
}

static struct MHD_Response *progress_stream(struct evv *s)
{
	struct sse *e = calloc(1, sizeof(*e));
	struct MHD_Response *resp;

	if (!e)
		return NULL;
	e->s = s;
	e->last = -1;
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 256, sse_read, e, free);
	if (!resp) {
		free(e);
		return NULL;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	return resp;
}

/* ---- Requests ---- */

/*
 * DNS rebinding: a page of another site whose name was made to resolve to
 * this machine would reach the server from the browser, with its own name
 * in Host. Only requests for an address (or localhost) are answered, as a
 * user typing the printed URL or going through ssh -L sends.
 */
static int host_allowed(struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	char name[INET6_ADDRSTRLEN + 8];
	unsigned char addr[sizeof(struct in6_addr)];
	const char *end;
	size_t n;

	if (!h)
		return 1;	/* HTTP/1.0 without Host: no name to rebind */
	if (h[0] == '[') {
		end = strchr(h, ']');
		if (!end || (end[1] && end[1] != ':'))
			return 0;
		h++;
	} else {
		end = strchr(h, ':');
		if (!end)
			end = h + strlen(h);
	}
	n = (size_t)(end - h);
	if (!n || n >= sizeof(name))
		return 0;
	memcpy(name, h, n);
	name[n] = 0;
	return !strcasecmp(name, "localhost") || inet_pton(AF_INET, name, addr) == 1 ||
	       inet_pton(AF_INET6, name, addr) == 1;
}

/*
 * The owner of the peer's socket: the kernel's socket diagnostics asked for
 * exactly that TCP connection (sock_diag, as ss(8) asks). -1 when it does
 * not say (no sock_diag, another namespace).
 */
static long peer_uid(const struct sockaddr_in *peer, const struct sockaddr_in *self)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST },
		.r = {
			.sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP, .idiag_states = ~0U,
			.id = {
				.idiag_sport = peer->sin_port, .idiag_dport = self->sin_port,
				.idiag_src = { peer->sin_addr.s_addr }, .idiag_dst = { self->sin_addr.s_addr },
				.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
			},
		},
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	long buf[2048 / sizeof(long)];
	const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
	struct timeval tv = { 1, 0 };
	long uid = -1;
	ssize_t n;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) == (ssize_t)sizeof(req) &&
	    (n = recv(fd, buf, sizeof(buf), 0)) > 0 && NLMSG_OK(h, (size_t)n) &&
	    h->nlmsg_type == SOCK_DIAG_BY_FAMILY && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
		uid = (long)((const struct inet_diag_msg *)NLMSG_DATA(h))->idiag_uid;
	close(fd);
	return uid;
}

/*
 * The loopback is no boundary between users: a connection is taken only
 * from a socket of the user running evview (or root's). Through ssh -L the
 * peer is the user's own sshd. When the kernel does not say, the token
 * still guards.
 */
static enum MHD_Result peer_allowed(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	const struct evv *s = cls;
	long uid;

	if (addr->sa_family != AF_INET || addrlen < sizeof(struct sockaddr_in))
		return MHD_YES;
	uid = peer_uid((const struct sockaddr_in *)addr, &s->self);
	return uid < 0 || uid == (long)geteuid() || uid == 0 ? MHD_YES : MHD_NO;
}

/* Equal in a time that does not depend on where they differ. */
static int same_secret(const char *a, const char *b)
{
	size_t n = strlen(b), i;
	unsigned char d = 0;

	if (strlen(a) != n)
		return 0;
	for (i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return !d;
}

/*
 * The API answers only with the token: "Authorization: Bearer TOKEN" (the
 * page's calls), or ?token=TOKEN (the progress stream, which a browser
 * opens without headers, and curl). The page itself holds no data and is
 * served to anyone who connects; it reads the token from the URL's
 * fragment, which the browser never sends (no Referer, no log carries it).
 */
static int authorized(const struct evv *s, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");

	if (h && !strncasecmp(h, "Bearer ", 7) && same_secret(h + 7, s->token))
		return 1;
	return q && same_secret(q, s->token);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	static const struct {
		const char *url;
		unsigned int (*fn)(struct evv *, struct MHD_Connection *, char **);
	} api[] = {
		{ "/api/trace", evv_api_trace },
		{ "/api/window", evv_api_window },
		{ "/api/events", evv_api_events },
		{ "/api/stats", evv_api_stats },
		{ "/api/thread", evv_api_thread },
		{ "/api/latency", evv_api_latency },
		{ "/api/slice", evv_api_slice },
	};
	struct evv *s = cls;
	struct MHD_Response *resp = NULL;
	unsigned int status = MHD_HTTP_NOT_FOUND;
	enum MHD_Result ret;
	char *body = NULL;
	size_t i;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	if (!host_allowed(c)) {
		status = evv_error(MHD_HTTP_FORBIDDEN, &body,
				   "Host: evview answers requests for an address or localhost only, as its URL says");
	} else if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		status = evv_error(MHD_HTTP_METHOD_NOT_ALLOWED, &body, "%s: only GET", method);
	} else if (!strncmp(url, "/api/", 5) && !authorized(s, c)) {
		status = evv_error(MHD_HTTP_UNAUTHORIZED, &body,
				   "this needs the token of the URL evview printed (http://HOST:PORT/#token=...)");
	} else if (!strcmp(url, "/api/progress")) {
		resp = progress_stream(s);
		status = MHD_HTTP_OK;
	} else if (!strncmp(url, "/api/", 5)) {
		for (i = 0; i < sizeof(api) / sizeof(api[0]); i++)
			if (!strcmp(url, api[i].url))
				break;
		if (i < sizeof(api) / sizeof(api[0]))
			status = api[i].fn(s, c, &body);
		else
			status = evv_error(MHD_HTTP_NOT_FOUND, &body, "%s: no such API", url);
	} else {
		resp = static_file(s, url, &status);
	}
	if (!resp) {
		if (!body && status == MHD_HTTP_NOT_FOUND)
			evv_error(status, &body, "not found");
		if (!body) {
			status = MHD_HTTP_INTERNAL_SERVER_ERROR;
			body = strdup("{\"error\":\"out of memory\"}");
			if (!body)
				return MHD_NO;
		}
		resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
		if (!resp) {
			free(body);
			return MHD_NO;
		}
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	/* No address of this page goes anywhere, and no other site frames it. */
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * URL decoding as libmicrohttpd's, but a %00 spoils the whole string: a
 * C string would end there ("/index.html%00.js" would be "/index.html").
 * What is left matches no file and parses as no number.
 */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	size_t n = MHD_http_unescape(s);

	(void)cls;
	(void)c;
	if (strlen(s) != n) {
		strcpy(s, "\x7f");
		return 1;
	}
	return n;
}

/* ---- Start ---- */

/* A listening socket on @addr:@port: the fd, -1 with errno. */
static int listen_on(struct in_addr addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = addr, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, saved;

	if (fd < 0)
		return -1;
	/* Restarting right after a stop must not wait for TIME_WAIT; a live listener still refuses. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static int open_trace(struct evv *s, const struct opts *o)
{
	char err[EVT_ENGINE_ERRLEN];
	struct evt_engine_opts eo = { .no_saved_results = o->no_saved };
	unsigned int i;

	s->eng = evt_engine_new(&eo);
	if (!s->eng || evt_engine_register_builtin(s->eng) || evt_engine_register(s->eng, &evt_comp_marks) ||
	    !(s->ts = evt_traceset_new(s->eng))) {
		fprintf(stderr, "evview: out of memory\n");
		return -1;
	}
	/*
	 * The packet index reads every packet's header: on a cold page cache
	 * that is one disk read per packet, so the streams are indexed in
	 * parallel (the reads queue together).
	 */
	s->t = evt_etrace_get_opts(s->eng, o->dir, &(struct evt_trace_opts){ .threads = EVT_TRACE_OPEN_THREADS },
				  err, sizeof(err));
	if (!s->t) {
		say_err(err);
		return -1;
	}
	/* A stream file cut under the server (a copy over the trace): a message and exit 1, not SIGBUS. */
	evt_etrace_catch_cut(s->t, "evview");
	s->tr = evt_etrace_reader(s->t);
	if (!s->tr || evt_etrace_span(s->t, &s->first_rt, &s->last_rt)) {
		say_err(evt_etrace_error(s->t));
		return -1;
	}
	/* Kernel stacks by function name where the trace has the symbols (evdrain saved them). */
	s->syms = evt_symbols_of_trace(s->tr, err, sizeof(err));
	if (!s->syms && errno != ENOENT) {
		char esc[1024];

		fprintf(stderr, "evview: kernel stacks shown as addresses: %s\n", evt_fmt_esc(esc, sizeof(esc), err));
	}
	if (evt_traceset_add(s->ts, s->t)) {
		fprintf(stderr, "evview: out of memory\n");
		return -1;
	}
	s->offset_ns = evt_etrace_offset_ns(s->t);
	/* Times go out as JSON integers (signed): a trace whose times do not fit is refused. */
	if (s->last_rt > (uint64_t)INT64_MAX) {
		fprintf(stderr, "evview: %s: its times reach beyond 2^63 ns (the year 2262): not served\n",
			evt_etrace_path(s->t));
		return -1;
	}
	for (i = 0; i < s->tr->nr_streams; i++) {
		if (s->tr->streams[i].cpu + 1 > s->nr_slot_of)
			s->nr_slot_of = s->tr->streams[i].cpu + 1;
		/* A bad packet header ends a stream's index: the events before it are served. */
		if (s->tr->streams[i].tail_err && !s->error[0])
			snprintf(s->error, sizeof(s->error), "%s", s->tr->streams[i].tail_errmsg);
	}
	/* Streams are sorted by CPU: each CPU once, in order. */
	s->slot_of = malloc((s->nr_slot_of ? s->nr_slot_of : 1) * sizeof(*s->slot_of));
	s->cpu_of = malloc((s->tr->nr_streams ? s->tr->nr_streams : 1) * sizeof(*s->cpu_of));
	if (!s->slot_of || !s->cpu_of) {
		fprintf(stderr, "evview: out of memory\n");
		return -1;
	}
	for (i = 0; i < s->nr_slot_of; i++)
		s->slot_of[i] = -1;
	for (i = 0; i < s->tr->nr_streams; i++) {
		unsigned int cpu = s->tr->streams[i].cpu;

		if (s->slot_of[cpu] < 0) {
			s->slot_of[cpu] = (int32_t)s->nr_cpus;
			s->cpu_of[s->nr_cpus++] = cpu;
		}
	}
	s->losses = evt_stats_new();
	if (!s->losses || evt_stats_read_losses(s->losses, s->tr) || evt_lossmap_of_trace(&s->lossmap, s->tr)) {
		fprintf(stderr, "evview: out of memory\n");
		return -1;
	}
	/* One background pass for the four, shared by every tab. */
	if ((s->ready_state = evt_comp_want(s->t, "state", s, comp_ready, &s->ready_state)) < 0 ||
	    (s->ready_stats = evt_comp_want(s->t, "stats", s, comp_ready, &s->ready_stats)) < 0 ||
	    (s->ready_index = evt_comp_want(s->t, "index", s, comp_ready, &s->ready_index)) < 0 ||
	    (s->ready_marks = evt_comp_want(s->t, "marks", s, comp_ready, &s->ready_marks)) < 0 ||
	    (s->ready_io = evt_comp_want(s->t, "io", s, comp_ready, &s->ready_io)) < 0 ||
	    (s->ready_power = evt_comp_want(s->t, "power", s, comp_ready, &s->ready_power)) < 0) {
		fprintf(stderr, "evview: out of memory\n");
		return -1;
	}
	return 0;
}

static void close_trace(struct evv *s)
{
	evt_window_summary_free(s->summary);
	s->summary = NULL;
	evt_symbols_free(s->syms);
	free(s->slot_of);
	free(s->cpu_of);
	if (s->sample_open)
		evt_trace_close(&s->sample_tr);
	if (s->losses)
		evt_stats_free(s->losses);
	evt_lossmap_free(&s->lossmap);
	if (s->ts)
		evt_traceset_free(s->ts);
	if (s->t) {
		evt_bg_remove_owner(s->t, s);
		evt_etrace_put(s->t);
	}
	if (s->eng)
		evt_engine_free(s->eng);
}

/* TOKEN_BYTES from the kernel's random source, in hex, into @out: 0 or -1 with errno. */
static int make_token(char *out)
{
	unsigned char b[TOKEN_BYTES];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

int main(int argc, char **argv)
{
	static struct evv s = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.work = PTHREAD_COND_INITIALIZER,
		.done = PTHREAD_COND_INITIALIZER,
	};
	struct opts o = { 0 };
	struct MHD_Daemon *d = NULL;
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	pthread_t engine;
	char host[INET_ADDRSTRLEN], self[256], esc[4 * EVT_ENGINE_ERRLEN + 1];
	sigset_t sigs;
	int fd = -1, port, sig, ret = EXIT_TRACE;

	if (parse_args(argc, argv, &o)) {
		return EXIT_USAGE;
	}
	/* Signals go to sigwait() below, not to the server's threads. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (open_trace(&s, &o))
		goto out;
	find_www(&s);
	inet_ntop(AF_INET, &o.addr, host, sizeof(host));
	if (o.port >= 0) {
		fd = listen_on(o.addr, o.port);
		if (fd < 0) {
			if (errno == EADDRINUSE)
				fprintf(stderr, "evview: %s:%d is in use (choose another with --listen)\n",
					host, o.port);
			else
				fprintf(stderr, "evview: listening on %s:%d: %s\n", host, o.port, strerror(errno));
			goto out;
		}
	} else {
		for (port = DEFAULT_PORT; port < DEFAULT_PORT + DEFAULT_PORT_TRIES && fd < 0; port++)
			fd = listen_on(o.addr, port);
		if (fd < 0) {
			fprintf(stderr, "evview: no free port in %s:%d-%d (choose one with --listen)\n", host,
				DEFAULT_PORT, DEFAULT_PORT + DEFAULT_PORT_TRIES - 1);
			goto out;
		}
	}
	if (getsockname(fd, (struct sockaddr *)&sa, &salen)) {
		say_err(strerror(errno));
		goto out;
	}
	port = ntohs(sa.sin_port);
	s.self = sa;
	if (make_token(s.token)) {
		fprintf(stderr, "evview: no random bytes for the token: %s\n", strerror(errno));
		goto out;
	}
	/* A thread per connection: a handler may wait for the engine, and /api/progress streams. */
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
			     0, peer_allowed, &s, answer, &s, MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
			     /* A thread each: bounded, and an idle one closed. */
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)IDLE_TIMEOUT_S, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "evview: cannot start the HTTP server\n");
		goto out;
	}
	fd = -1;		/* the daemon's now */
	if (pthread_create(&engine, NULL, engine_thread, &s)) {
		fprintf(stderr, "evview: cannot start the engine thread\n");
		goto out;
	}
	/* The token in the fragment: the browser keeps it to itself (evview(1), SECURITY). */
	printf("evview: serving %s at http://%s:%d/#token=%s\n", evt_fmt_esc(esc, sizeof(esc), evt_etrace_path(s.t)),
	       host, port, s.token);
	if (gethostname(self, sizeof(self)) || !self[0])
		snprintf(self, sizeof(self), "HOST");
	self[sizeof(self) - 1] = 0;
	printf("evview: from another machine: ssh -L %d:127.0.0.1:%d %s, then open http://127.0.0.1:%d/#token=%s\n",
	       port, port, self, port, s.token);
	if (s.error[0])
		printf("evview: %s (the events before it are shown)\n", evt_fmt_esc(esc, sizeof(esc), s.error));
	fflush(stdout);
	while (sigwait(&sigs, &sig))
		;
	atomic_store(&s.quit, 1);
	pthread_mutex_lock(&s.lock);
	pthread_cond_broadcast(&s.work);
	pthread_mutex_unlock(&s.lock);
	pthread_join(engine, NULL);
	/* Handlers still waiting for a request give up. */
	pthread_mutex_lock(&s.lock);
	pthread_cond_broadcast(&s.done);
	pthread_mutex_unlock(&s.lock);
	MHD_stop_daemon(d);
	d = NULL;
	ret = 0;
out:
	if (d)
		MHD_stop_daemon(d);
	if (fd >= 0)
		close(fd);
	close_trace(&s);
	return ret;
}
