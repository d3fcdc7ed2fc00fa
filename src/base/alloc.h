/*
 * alloc.h: every allocation of the project goes through these wrappers.
 *
 * They behave like malloc/calloc/realloc/strdup (return NULL on failure, never
 * abort), check size arithmetic for overflow, and let a test make the Nth
 * allocation fail (curl's torture mode) to exercise every ENOMEM path.
 *
 * The failure-injection countdown is the one piece of mutable global state below
 * main(): it is thread-local, off (-1) unless a test turns it on, and exists only
 * so that error paths can be tested.
 */
#ifndef TDPROF_BASE_ALLOC_H
#define TDPROF_BASE_ALLOC_H

#include <stddef.h>

/** malloc(size); NULL on failure. size 0 returns a unique non-NULL pointer. */
void *tdp_malloc(size_t size) __attribute__((malloc, warn_unused_result));

/** calloc(nr, size) with overflow check; NULL on failure or overflow. */
void *tdp_calloc(size_t nr, size_t size) __attribute__((malloc, warn_unused_result));

/**
 * realloc(ptr, nr * size) with overflow check. On failure returns NULL and leaves
 * ptr untouched (still owned by the caller).
 */
void *tdp_reallocarray(void *ptr, size_t nr, size_t size) __attribute__((warn_unused_result));

/** strdup(s); NULL on failure. s must not be NULL. */
char *tdp_strdup(const char *s) __attribute__((malloc, warn_unused_result));

/** strndup(s, n); NULL on failure. */
char *tdp_strndup(const char *s, size_t n) __attribute__((malloc, warn_unused_result));

/** free(ptr); NULL does nothing. */
void tdp_free(void *ptr);

/**
 * Grow an array so that it holds at least `need` elements of `elem_size` bytes.
 * *ptr and *alloc describe the array (NULL and 0 at first). Grows geometrically.
 * Returns 0, or TDP_ENOMEM leaving *ptr and *alloc unchanged.
 */
int tdp_grow(void **ptr, size_t *alloc, size_t need, size_t elem_size)
	__attribute__((warn_unused_result));

/*
 * Typed helper: TDP_GROW(arr, alloc, need) grows `arr` (any pointer type).
 * Evaluates to 0 or TDP_ENOMEM.
 */
#define TDP_GROW(arr, alloc, need) \
	tdp_grow((void **)&(arr), &(alloc), (need), sizeof(*(arr)))

/**
 * Testing only: let the next `n` allocations succeed and make the one after them
 * fail (n = 0: the next one fails); negative n turns injection off. Returns the
 * number of allocations made since the previous call (to size a torture loop).
 */
long tdp_alloc_fail_after(long n);

#endif
