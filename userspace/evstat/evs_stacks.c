// SPDX-License-Identifier: GPL-2.0
/*
 * evstat --stacks and --folded EVENT: the kernel_stack events of a trace
 * (each the stack of the compact event of id event_id just before it),
 * their addresses named by the kernel symbols evdrain saved beside the
 * trace (evt_symbols.h), counted per event and distinct stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evs_stacks.h"
#include "ctf/evt_decode.h"
#include "format/evt_format.h"
#include "format/evt_symbols.h"

struct stack_rec {
	const char *event;		/* the catalogue's name */
	uint32_t n;
	uint64_t *ip;			/* innermost first */
};

struct stacks {
	const struct evt_catalogue *cat;
	const char *only;		/* --folded: this event's stacks alone */
	struct stack_rec *v;
	size_t n, cap;
	int oom;
};

static int on_stack(void *data, void *call)
{
	struct stacks *s = data;
	const struct evt_engine_event *ev = call;
	struct evt_field_val id, st;
	const struct evt_event_desc *d;
	struct stack_rec *r;
	int16_t di;

	if (s->oom || evt_payload_field(ev->desc, ev->payload, ev->len, "event_id", &id) ||
	    evt_payload_field(ev->desc, ev->payload, ev->len, "stack", &st) || id.u >= EVT_DECODE_SMALL_IDS)
		return 0;
	di = ev->tr->md.cat->desc_by_id[EVT_CHAN_COMPACT][id.u];
	if (di < 0)
		return 0;
	d = &ev->tr->md.cat->events[di];
	if (s->only && strcmp(s->only, d->name))
		return 0;
	if (s->n == s->cap) {
		struct stack_rec *v = realloc(s->v, (s->cap = s->cap ? 2 * s->cap : 1024) * sizeof(*v));

		if (!v) {
			s->oom = 1;
			return 0;
		}
		s->v = v;
	}
	r = &s->v[s->n];
	r->event = d->name;
	r->n = st.len;
	r->ip = malloc((st.len ? st.len : 1) * sizeof(*r->ip));
	if (!r->ip) {
		s->oom = 1;
		return 0;
	}
	for (uint32_t k = 0; k < st.len; k++)
		r->ip[k] = evt_ld64(st.bytes + 8 * k);
	s->n++;
	return 0;
}

static int by_event_and_stack(const void *a, const void *b)
{
	const struct stack_rec *x = a, *y = b;
	int c = strcmp(x->event, y->event);

	if (c)
		return c;
	for (uint32_t k = 0; k < x->n && k < y->n; k++)
		if (x->ip[k] != y->ip[k])
			return x->ip[k] < y->ip[k] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Every kernel_stack of the trace (of @only's event), read by an ad hoc request. */
static int collect(struct evt_engine *e, struct evt_etrace *t, struct stacks *s, char *err, size_t errlen)
{
	static const char *const events[] = { "kernel_stack", NULL };
	struct evt_traceset *ts = evt_traceset_new(e);
	struct evt_request r;
	int ret = -1;

	evt_request_init(&r, s);
	r.events = events;
	if (!ts || evt_traceset_add(ts, t) || evt_ctx_add_event(&r.ctx, "kernel_stack", on_stack, s) ||
	    evt_request_submit(ts, &r)) {
		snprintf(err, errlen, "%s", r.errmsg[0] ? r.errmsg : "out of memory");
		goto out;
	}
	evt_engine_run(e);
	if (r.error)
		snprintf(err, errlen, "%s", r.errmsg);
	else if (s->oom)
		snprintf(err, errlen, "out of memory");
	else
		ret = 0;
out:
	evt_request_release(&r);
	if (ts)
		evt_traceset_free(ts);
	return ret;
}

static void free_stacks(struct stacks *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].ip);
	free(s->v);
}

int evs_stacks_report(struct evt_engine *e, struct evt_etrace *t, const char *folded, unsigned long top,
		      FILE *out, char *err, size_t errlen)
{
	struct stacks s = { .only = folded };
	struct evt_trace *tr = evt_etrace_reader(t);
	struct evt_symbols *syms;
	char name[EVT_FMT_SYM_MAX], quoted[4 * EVT_FMT_SYM_MAX + 3];
	size_t i, j;

	if (!tr) {
		snprintf(err, errlen, "%s", evt_etrace_error(t));
		return -1;
	}
	if (folded && !evt_catalogue_find(tr->md.cat, folded)) {
		snprintf(err, errlen, "--folded: the trace has no event \"%s\"", folded);
		return -1;
	}
	syms = evt_symbols_of_trace(tr, err, errlen);
	if (!syms)
		return -1;
	if (collect(e, t, &s, err, errlen)) {
		evt_symbols_free(syms);
		free_stacks(&s);
		return -1;
	}
	qsort(s.v, s.n, sizeof(*s.v), by_event_and_stack);
	if (!folded)
		fprintf(out, "\nKernel stacks (evctl enable --stack), the most frequent of each event\n");
	for (i = 0; i < s.n; i = j) {
		unsigned long shown = 0;
		size_t total = 0, k;

		/* One event's stacks: runs of equal stacks, the biggest first in the text. */
		for (j = i; j < s.n && !strcmp(s.v[j].event, s.v[i].event); j++)
			total++;
		if (!folded)
			fprintf(out, "  %s: %zu stacks\n", s.v[i].event, total);
		while (!folded && shown < (top ? top : total)) {
			size_t best = 0, best_at = 0, run;

			for (k = i; k < j; k += run) {
				for (run = 1; k + run < j && !by_event_and_stack(&s.v[k], &s.v[k + run]); run++)
					;
				if (run > best && s.v[k].n != UINT32_MAX) {
					best = run;
					best_at = k;
				}
			}
			if (!best)
				break;
			fprintf(out, "    %zu x\n", best);
			for (uint32_t f = 0; f < s.v[best_at].n; f++) {
				evt_symbols_name(syms, s.v[best_at].ip[f], 1, name, sizeof(name));
				evt_fmt_esc(quoted, sizeof(quoted), name);
				fprintf(out, "      %s\n", quoted);
			}
			/* Shown: its run is marked so that the next pick is another. */
			for (k = best_at; k < best_at + best; k++)
				s.v[k].n = UINT32_MAX;
			shown++;
		}
		if (folded) {
			/* flamegraph.pl's input: frames outermost first, ';' between, a count. */
			for (k = i; k < j;) {
				size_t run;

				for (run = 1; k + run < j && !by_event_and_stack(&s.v[k], &s.v[k + run]); run++)
					;
				fputs(s.v[i].event, out);
				for (uint32_t f = s.v[k].n; f-- > 0;) {
					char *c;

					evt_symbols_name(syms, s.v[k].ip[f], 0, name, sizeof(name));
					/* No ';' inside a frame, no control byte (a space is one). */
					for (c = name; *c; c++)
						if (*c == ';' || (unsigned char)*c < 0x20 || *c == 0x7f)
							*c = '_';
					fprintf(out, ";%s", name);
				}
				fprintf(out, " %zu\n", run);
				k += run;
			}
		}
	}
	if (!s.n && !folded)
		fprintf(out, "  none\n");
	evt_symbols_free(syms);
	free_stacks(&s);
	return ferror(out) ? (snprintf(err, errlen, "writing the output failed"), -1) : 0;
}
