// SPDX-License-Identifier: GPL-2.0
/*
 * What every handler uses: its query's arguments read and checked, its
 * answer (or its error) written as JSON.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <microhttpd.h>
#include "json/evt_json.h"
#include "evv.h"

const char *evv_arg(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

/* A decimal number into *v (absent: *v untouched): 0, or the status of the error answer made. */
unsigned int evv_get_u64(struct MHD_Connection *c, const char *name, uint64_t *v, char **body)
{
	const char *s = evv_arg(c, name);
	char *end;

	if (!s)
		return 0;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end || !*s || *s < '0' || *s > '9')
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "%s: \"%s\" is not a whole number", name, s);
	return 0;
}

/* from and to (realtime ns, the span when absent), inside the span: 0 or the error's status. */
unsigned int evv_get_range(struct evv *s, struct MHD_Connection *c, uint64_t *from, uint64_t *to, char **body)
{
	unsigned int st;

	*from = s->first_rt;
	*to = s->last_rt;
	if ((st = evv_get_u64(c, "from", from, body)) || (st = evv_get_u64(c, "to", to, body)))
		return st;
	if (*from > *to)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "from (%llu) is after to (%llu)",
				 (unsigned long long)*from, (unsigned long long)*to);
	if (*from < s->first_rt || *to > s->last_rt)
		return evv_error(MHD_HTTP_BAD_REQUEST, body,
				 "%s: %llu is outside the trace's span [%llu, %llu] (realtime ns)",
				 *from < s->first_rt ? "from" : "to",
				 (unsigned long long)(*from < s->first_rt ? *from : *to),
				 (unsigned long long)s->first_rt, (unsigned long long)s->last_rt);
	return 0;
}

/* A count as JSON (evt_json_u64: one past INT64_MAX is null, never negative). */
json_t *evv_json_u64(uint64_t v)
{
	return evt_json_u64(v);
}

/* ASCII only: a name's C1 control or bidi override goes out as \uXXXX, never raw to a terminal (curl). */
unsigned int evv_reply(json_t *o, char **body)
{
	*body = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(6)) : NULL;
	json_decref(o);
	return *body ? MHD_HTTP_OK : evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "out of memory");
}

unsigned int evv_reply_computing(struct evv *s, char **body)
{
	unsigned int p = evv_percent(s);

	evv_leave(s);
	return evv_reply(json_pack("{s:b,s:I}", "computing", 1, "percent", (json_int_t)p), body);
}

/* {"error": msg}, quoted names escaped by jansson (ASCII out). */
unsigned int evv_error(unsigned int status, char **body, const char *fmt, ...)
{
	char msg[EVT_ENGINE_ERRLEN + 256];
	json_t *o;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o = json_pack("{s:s}", "error", msg);
	*body = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	json_decref(o);
	return status;
}
