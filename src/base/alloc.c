/* alloc.c: allocation wrappers with overflow checks and failure injection. */
#include "base/alloc.h"
#include "base/err.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* See alloc.h: test-only, thread-local, off unless a test turns it on. */
static _Thread_local long fail_countdown = -1;
static _Thread_local long alloc_count;

static int should_fail(void)
{
	alloc_count++;
	if (fail_countdown < 0)
		return 0;
	if (fail_countdown == 0) {
		fail_countdown = -1;
		return 1;
	}
	fail_countdown--;
	return 0;
}

long tdp_alloc_fail_after(long n)
{
	long made = alloc_count;

	alloc_count = 0;
	fail_countdown = n;
	return made;
}

void *tdp_malloc(size_t size)
{
	if (should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *tdp_calloc(size_t nr, size_t size)
{
	size_t bytes;

	/* checked here, not left to calloc: sanitizer allocators abort on overflow */
	if (__builtin_mul_overflow(nr, size, &bytes))
		return NULL;
	if (should_fail())
		return NULL;
	if (!nr || !size)
		return calloc(1, 1);
	return calloc(nr, size);
}

void *tdp_reallocarray(void *ptr, size_t nr, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(nr, size, &bytes))
		return NULL;
	if (should_fail())
		return NULL;
	return realloc(ptr, bytes ? bytes : 1);
}

char *tdp_strdup(const char *s)
{
	return tdp_strndup(s, strlen(s));
}

char *tdp_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = tdp_malloc(len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void tdp_free(void *ptr)
{
	free(ptr);
}

int tdp_grow(void **ptr, size_t *alloc, size_t need, size_t elem_size)
{
	size_t nalloc;
	void *p;

	if (need <= *alloc)
		return 0;
	nalloc = *alloc < 8 ? 8 : *alloc;
	while (nalloc < need) {
		if (nalloc > SIZE_MAX / 2)
			return TDP_ENOMEM;
		nalloc *= 2;
	}
	p = tdp_reallocarray(*ptr, nalloc, elem_size);
	if (!p)
		return TDP_ENOMEM;
	*ptr = p;
	*alloc = nalloc;
	return 0;
}
