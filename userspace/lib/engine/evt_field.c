// SPDX-License-Identifier: GPL-2.0
/* Payload fields by name, for the computations (evt_engine.h). */
#include <string.h>
#include "engine/evt_engine.h"

int evt_field_offset(const struct evt_event_desc *d, const char *name, enum evt_field_type *type)
{
	unsigned int i, off = 0;

	for (i = 0; i < d->nr_fields; i++) {
		const struct evt_field_desc *f = &d->fields[i];
		unsigned int a = evt_field_align(f->type);

		off = (off + a - 1) & ~(a - 1);
		if (!strcmp(f->name, name)) {
			if (type)
				*type = f->type;
			return (int)off;
		}
		if (evt_field_is_var(f->type))
			return -1;	/* what follows moves with it */
		off += evt_field_size(f->type);
	}
	return -1;
}

int64_t evt_event_int(const struct evt_engine_event *ev, int off, enum evt_field_type type)
{
	unsigned int sz = evt_field_size(type);

	if (off < 0 || !sz || sz > 8 || (uint64_t)off + sz > ev->len)
		return 0;
	switch (type) {
	case EVT_F_U8: return ev->payload[off];
	case EVT_F_U16: return evt_ld16(ev->payload + off);
	case EVT_F_U32: case EVT_F_X32: return evt_ld32(ev->payload + off);
	case EVT_F_S32: return (int32_t)evt_ld32(ev->payload + off);
	default: return (int64_t)evt_ld64(ev->payload + off);
	}
}
