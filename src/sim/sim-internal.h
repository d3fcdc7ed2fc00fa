/*
 * sim-internal.h: helpers shared by the files of src/sim/ (included only there).
 */
#ifndef TDPROF_SIM_SIM_INTERNAL_H
#define TDPROF_SIM_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/profile.h"

struct tdp_err;

/*
 * An open-addressing table of uint32_t values (0 marks an empty slot, so values are
 * stored +1). The caller hashes and compares; the table only finds slots.
 */
struct sim_hashtab {
	uint32_t *slot;
	size_t cap; /* a power of two, or 0 */
	size_t nr;
};

/**
 * Make room for one more value (grows at half load; `rehash(ctx, value)` gives the
 * hash of a stored value). Returns 0 or TDP_ENOMEM (table unchanged).
 */
int sim_hashtab_reserve(struct sim_hashtab *t, uint64_t (*rehash)(const void *ctx, uint32_t value),
			const void *ctx) __attribute__((warn_unused_result));

/** Free the table. */
void sim_hashtab_release(struct sim_hashtab *t);

/** 64-bit FNV-1a over bytes, chained from `h` (start with SIM_HASH_SEED). */
#define SIM_HASH_SEED 0xcbf29ce484222325ull
uint64_t sim_hash_bytes(uint64_t h, const void *data, size_t len);

/** Mix a 64-bit value into a hash. */
uint64_t sim_hash_u64(uint64_t h, uint64_t v);

/*
 * Intern the name s[0..len) in p (a copy is made once per distinct name).
 * Returns 0 and *out, TDP_ENOMEM, or TDP_ELIMIT past SIM_MAX_NAMES (no message:
 * the parser adds the file and line).
 */
int sim_profile_intern(struct sim_profile *p, const char *s, size_t len, uint32_t *out)
	__attribute__((warn_unused_result));

/*
 * Add `cost` to the entry (obj, file, fn, line, addr), creating it on first use,
 * and to p->totals. Returns 0, TDP_ENOMEM, TDP_ELIMIT past SIM_MAX_ENTRIES, or
 * TDP_EFORMAT when a sum would overflow 64 bits (nothing is added then).
 */
int sim_profile_add(struct sim_profile *p, uint32_t obj, uint32_t file, uint32_t fn, uint64_t line,
		    uint64_t addr, const struct sim_cost *cost) __attribute__((warn_unused_result));

/*
 * True when every count of a and of b is below 2^62, so that no sum of them can
 * overflow: the quick test before the exact one (an OR of all counts, which the
 * compiler vectorises; the parsers add a cost line to two totals per line).
 */
static inline bool sim_cost_small(const struct sim_cost *a, const struct sim_cost *b)
{
	uint64_t any = 0;

	for (size_t i = 0; i < SIM_NR_EVENTS; i++)
		any |= a->v[i] | b->v[i];
	return !(any >> 62);
}

/* The format a parse runs in (parse.c). */
enum sim_format {
	SIM_FORMAT_CACHEGRIND,
	SIM_FORMAT_CALLGRIND,
};

int sim_parse(struct sim_profile *p, const uint8_t *buf, size_t len, const char *name, enum sim_format fmt,
	      struct tdp_err *err) __attribute__((warn_unused_result));

/* ---- tdprof's valgrind tool (vglib.c) ---- */

/*
 * The tool's path into path[0..size): the one built beside tdprof when this is
 * the build tree's tdprof, else the installed one, else the other. Returns 0, or
 * TDP_ENOENT when it was not built or is not there.
 */
int sim_vgtool_find(char *path, size_t size);

/*
 * Make dir a valgrind library directory for one run: links to every file of the
 * system's (found beside `valgrind`, the launcher's path, or in the usual
 * places) and to `tool`. Returns 0, TDP_ENOTSUP (no valgrind directory) or
 * TDP_EIO.
 */
int sim_vglib_make(const char *dir, const char *valgrind, const char *tool, struct tdp_err *err)
	__attribute__((warn_unused_result));

/*
 * envp (NULL-terminated) with the variable of "KEY=VALUE" kv set: a new array
 * (tdp_free it) whose strings are borrowed from envp and kv; NULL on ENOMEM.
 */
char **sim_env_with(char *const *envp, const char *kv);

#endif
