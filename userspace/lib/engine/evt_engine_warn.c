// SPDX-License-Identifier: GPL-2.0
/* The engine's warnings: to the caller's function, or stderr. */
#include <stdarg.h>
#include <stdio.h>
#include "engine/evt_engine_priv.h"

void evt_engine_warnf(struct evt_engine *e, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e->o.warn)
		e->o.warn(e->o.warn_data, msg);
	else
		fprintf(stderr, "evtrace: %s\n", msg);
}

void evt_engine_warn(struct evt_engine *e, const char *msg)
{
	evt_engine_warnf(e, "%s", msg);
}
