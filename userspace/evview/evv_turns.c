// SPDX-License-Identifier: GPL-2.0
/*
 * The handlers' turns at the engine: the lock taken between the engine
 * thread's chunks, a request submitted and waited for, the background
 * pass's progress.
 */
#include <pthread.h>
#include <stdio.h>
#include "evv.h"

void evv_enter(struct evv *s)
{
	atomic_fetch_add(&s->want_lock, 1);
	pthread_mutex_lock(&s->lock);
	atomic_fetch_sub(&s->want_lock, 1);
}

void evv_leave(struct evv *s)
{
	pthread_mutex_unlock(&s->lock);
}

struct req_wait {
	struct evv *s;
	int done;
};

static int req_done(void *data, void *call)
{
	struct req_wait *w = data;

	(void)call;
	w->done = 1;
	atomic_fetch_add(&w->s->wakeups, 1);
	return 0;
}

int evv_run_request(struct evv *s, struct evt_traceset *ts, struct evt_request *r)
{
	struct req_wait w = { .s = s };

	if (evt_hooks_add(&r->after_request, req_done, &w))
		return -1;
	if (evt_request_submit(ts, r))
		return -1;
	pthread_cond_signal(&s->work);
	while (!w.done) {
		if (atomic_load(&s->quit)) {
			evt_request_remove(r);
			snprintf(r->errmsg, sizeof(r->errmsg), "the server is stopping");
			return -1;
		}
		pthread_cond_wait(&s->done, &s->lock);
	}
	atomic_fetch_sub(&s->wakeups, 1);
	return 0;
}

int evv_all_ready(const struct evv *s)
{
	return s->ready_state && s->ready_stats && s->ready_index && s->ready_marks && s->ready_io &&
	       s->ready_power;
}

unsigned int evv_percent(const struct evv *s)
{
	uint64_t span = s->last_rt - s->first_rt;

	if (evv_all_ready(s))
		return 100;
	if (!span || s->pass_rt <= s->first_rt)
		return 0;
	/* 99 at most: the pass is done when the engine says so, not before. */
	return s->pass_rt >= s->last_rt ? 99 : (unsigned int)((s->pass_rt - s->first_rt) * 100.0 / (double)span);
}
