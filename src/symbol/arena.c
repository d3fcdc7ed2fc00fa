/*
 * arena.c: the memory behind what a session hands out (names, file names, inline
 * frames): bump allocation in chunks, all freed by symbol_session_free().
 */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/checked.h"
#include "symbol/symbol-internal.h"

#define ARENA_CHUNK (64u << 10)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

void *arena_alloc(struct symbol_arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	size_t need;

	if (size > SIZE_MAX - 15)
		return NULL;
	need = (size + 15) & ~(size_t)15;
	if (!c || c->size - c->used < need) {
		size_t cap = need > ARENA_CHUNK ? need : ARENA_CHUNK;
		size_t total;

		if (!chk_add(sizeof(*c), cap, &total))
			return NULL;
		c = tdp_malloc(total);
		if (!c)
			return NULL;
		c->size = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += need;
	return p;
}

char *arena_strndup(struct symbol_arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *arena_strdup(struct symbol_arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_release(struct symbol_arena *a)
{
	struct arena_chunk *c = a->head;

	while (c) {
		struct arena_chunk *next = c->next;

		tdp_free(c);
		c = next;
	}
	a->head = NULL;
}
