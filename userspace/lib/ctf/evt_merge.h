/* SPDX-License-Identifier: GPL-2.0 */
/*
 * k-way merge of sources by (timestamp, source id): one interface, two
 * implementations, identical output.
 *
 * A source is anything that yields keys in non-decreasing order (a stream
 * file, a reorder queue). The merge holds each source's head key and says
 * which source is on top; the caller consumes the top source's head, then
 * either replaces it with the source's next key or removes the source.
 * Ties between sources are broken by the source id (lower first), so the
 * output order is fully determined by the input: within one source, file
 * (or queue) order; across sources, (ts, id).
 *
 * EVT_MERGE_TREE: a tournament tree of losers over k leaves (padded to a
 *   power of two): replacing the top replays one leaf-to-root path,
 *   log2(k) branch-free comparisons.
 * EVT_MERGE_LIST: the seed-004 scheme: the sources sorted in a linked list
 *   by head key, plus a cache of the runner-up's key. While the top source's
 *   next key is not above the cached runner-up (runs: bursts, skewed or
 *   idle CPUs), the top stays where it is and nothing else is touched;
 *   otherwise it is unlinked and re-inserted by walking the list from the
 *   runner-up (short walks: the new key is usually close to the front).
 *
 * Everything is static inline so that the callers' per-event loops are
 * specialised per implementation without indirect calls.
 */
#ifndef EVT_MERGE_H
#define EVT_MERGE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum evt_merge_kind {
	EVT_MERGE_TREE = 0,
	EVT_MERGE_LIST = 1,
};

/*
 * A key is (rel_ts << shift) | source, shift the bits a source id needs:
 * one 64-bit comparison orders by (ts, source). rel_ts is the timestamp
 * minus a base the caller picks; it must not exceed max_rel (2^(64-shift)
 * - 2), so that no key equals EVT_MKEY_NONE.
 */
typedef uint64_t evt_mkey_t;
#define EVT_MKEY_NONE UINT64_MAX
#define EVT_MERGE_NONE 0xffffffffU
#define EVT_MERGE_MAX_SOURCES (1U << 24)

struct evt_merge {
	enum evt_merge_kind kind;
	uint32_t k;		/* sources */
	uint32_t p;		/* tree: leaves, a power of two >= k */
	uint32_t shift;		/* bits of the source id in a key */
	uint64_t src_mask;
	uint64_t max_rel;	/* largest rel_ts a key can hold */
	/* tree: node 0 = winner, 1..p-1 = losers. list: key per source. */
	evt_mkey_t *node;
	/* list */
	uint32_t *next;		/* next source in key order, EVT_MERGE_NONE at the end */
	uint32_t head;
	evt_mkey_t cache;	/* key of the runner-up (the head's next), or NONE */
};

static inline evt_mkey_t evt_mkey(const struct evt_merge *m, uint64_t rel_ts, uint32_t src)
{
	return (rel_ts << m->shift) | src;
}

static inline uint64_t evt_mkey_rel(const struct evt_merge *m, evt_mkey_t k)
{
	return k >> m->shift;
}

static inline uint32_t evt_mkey_src(const struct evt_merge *m, evt_mkey_t k)
{
	return (uint32_t)(k & m->src_mask);
}

/* 0, or -1 (no memory, too many sources). */
static inline int evt_merge_init(struct evt_merge *m, enum evt_merge_kind kind, uint32_t k)
{
	uint32_t p = 1, shift = 0;

	memset(m, 0, sizeof(*m));
	if (k > EVT_MERGE_MAX_SOURCES)
		return -1;
	while (p < k) {
		p <<= 1;
		shift++;
	}
	m->kind = kind;
	m->k = k;
	m->p = p;
	m->shift = shift;
	m->src_mask = ((uint64_t)1 << shift) - 1;
	m->max_rel = (UINT64_MAX >> shift) - 1;
	m->head = EVT_MERGE_NONE;
	m->cache = EVT_MKEY_NONE;
	if (kind == EVT_MERGE_TREE) {
		m->node = calloc(p, sizeof(*m->node));
	} else {
		m->node = calloc(k ? k : 1, sizeof(*m->node));
		m->next = calloc(k ? k : 1, sizeof(*m->next));
		if (!m->next) {
			free(m->node);
			m->node = NULL;
		}
	}
	if (!m->node)
		return -1;
	m->node[0] = EVT_MKEY_NONE;
	return 0;
}

static inline void evt_merge_free(struct evt_merge *m)
{
	free(m->node);
	free(m->next);
	m->node = NULL;
	m->next = NULL;
}

/*
 * (Re)build from every source's head: @ts[i] is source i's head rel_ts,
 * taken only when @has[i] is non-zero (else the source is empty). O(k log k)
 * at worst; used at start and when sources change other than at the top.
 */
static inline void evt_merge_build(struct evt_merge *m, const uint64_t *ts, const unsigned char *has)
{
	uint32_t i;

	if (m->kind == EVT_MERGE_TREE) {
		uint32_t p = m->p, n;
		evt_mkey_t *win = malloc(2 * (size_t)p * sizeof(*win)), a, b;

		if (!win) {
			/* Fall back to inserting leaves one by one: O(k log k), no memory. */
			for (n = 0; n < p; n++)
				m->node[n] = EVT_MKEY_NONE;
			for (i = 0; i < m->k; i++) {
				evt_mkey_t cur = has[i] ? evt_mkey(m, ts[i], i) : EVT_MKEY_NONE, t;

				for (n = (p + i) >> 1; n; n >>= 1) {
					if (m->node[n] < cur) {
						t = m->node[n];
						m->node[n] = cur;
						cur = t;
					}
				}
				if (cur < m->node[0])
					m->node[0] = cur;
			}
			return;
		}
		for (i = 0; i < p; i++)
			win[p + i] = i < m->k && has[i] ? evt_mkey(m, ts[i], i) : EVT_MKEY_NONE;
		for (n = p - 1; n >= 1; n--) {
			a = win[2 * n];
			b = win[2 * n + 1];
			win[n] = a < b ? a : b;
			m->node[n] = a < b ? b : a;
		}
		m->node[0] = p > 1 ? win[1] : win[p];
		free(win);
		return;
	}
	/* List: insertion sort of the non-empty sources (k is small). */
	m->head = EVT_MERGE_NONE;
	for (i = 0; i < m->k; i++) {
		uint32_t *pp = &m->head;

		if (!has[i])
			continue;
		m->node[i] = evt_mkey(m, ts[i], i);
		while (*pp != EVT_MERGE_NONE && m->node[*pp] < m->node[i])
			pp = &m->next[*pp];
		m->next[i] = *pp;
		*pp = i;
	}
	m->cache = m->head != EVT_MERGE_NONE && m->next[m->head] != EVT_MERGE_NONE ?
		   m->node[m->next[m->head]] : EVT_MKEY_NONE;
}

/* The top key (EVT_MKEY_NONE when every source is empty). */
static inline evt_mkey_t evt_merge_top(const struct evt_merge *m)
{
	if (m->kind == EVT_MERGE_TREE)
		return m->node[0];
	return m->head == EVT_MERGE_NONE ? EVT_MKEY_NONE : m->node[m->head];
}

/*
 * Tree replay on the raw arrays: the top source (@src) has the new head
 * @key; returns the new top, which the caller keeps (node[0] is only
 * written back by evt_merge_tree_replace()).
 */
static inline __attribute__((always_inline))
evt_mkey_t evt_merge_tree_replay(evt_mkey_t *node, uint32_t p, uint32_t src, evt_mkey_t key)
{
	evt_mkey_t cur = key, t;
	uint32_t n = (p + src) >> 1;

	for (; n; n >>= 1) {
		t = node[n];
		/* Branch-free: the smaller goes on up, the larger stays as loser. */
		node[n] = t < cur ? cur : t;
		cur = t < cur ? t : cur;
	}
	return cur;
}

/* Tree: the top source's head is now @key (EVT_MKEY_NONE: it is empty). */
static inline void evt_merge_tree_replace(struct evt_merge *m, evt_mkey_t key)
{
	m->node[0] = evt_merge_tree_replay(m->node, m->p, evt_mkey_src(m, m->node[0]), key);
}

/* List: the head source's new head key is @key (EVT_MKEY_NONE: empty). */
static inline void evt_merge_list_replace(struct evt_merge *m, evt_mkey_t key)
{
	uint32_t h = m->head, prev, cur;

	if (key <= m->cache) {
		/* The cache hit: still at the front, nothing moves. */
		if (key == EVT_MKEY_NONE) {
			/* Only when the list held one source. */
			m->head = EVT_MERGE_NONE;
			return;
		}
		m->node[h] = key;
		return;
	}
	/* Unlink the head; the runner-up leads. */
	m->head = m->next[h];
	if (key != EVT_MKEY_NONE) {
		m->node[h] = key;
		/* key > cache = the new head's key: insert after it. */
		prev = m->head;
		cur = m->next[prev];
		while (cur != EVT_MERGE_NONE && m->node[cur] < key) {
			prev = cur;
			cur = m->next[cur];
		}
		m->next[h] = cur;
		m->next[prev] = h;
	}
	cur = m->next[m->head];
	m->cache = cur != EVT_MERGE_NONE ? m->node[cur] : EVT_MKEY_NONE;
}

/*
 * Either implementation: the top source's new head key, or EVT_MKEY_NONE
 * when it ran out. @key's source must be the top's.
 */
static inline void evt_merge_replace(struct evt_merge *m, evt_mkey_t key)
{
	if (m->kind == EVT_MERGE_TREE)
		evt_merge_tree_replace(m, key);
	else
		evt_merge_list_replace(m, key);
}

#endif /* EVT_MERGE_H */
