/*
 * checked.h: overflow-checked arithmetic and bounds checks for parsers of
 * untrusted input. Each returns true when the operation is safe and writes the
 * result; false means it would overflow (nothing is written).
 */
#ifndef TDPROF_BASE_CHECKED_H
#define TDPROF_BASE_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool chk_add(size_t a, size_t b, size_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

static inline bool chk_mul(size_t a, size_t b, size_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

static inline bool chk_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

static inline bool chk_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

/** True when [off, off+len) lies inside a buffer of `size` bytes (no overflow). */
static inline bool chk_range(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

#endif
