/*
 * advice.h: the diagnosis-to-action knowledge base, one entry per node of the
 * top-down tree (docs/tma-diagnosis-actions.md, compiled in at build time by
 * gen-kb.py into a constant table; nothing is read at run time).
 *
 * An entry says what the node means, how to confirm it (which counters, which
 * tdprof mode), its typical causes and concrete fixes with code, and its sources.
 * The sections are Markdown as written in the document; report/explain.h turns
 * an entry into wrapped plain text for a terminal, advice_summary() gives the
 * one paragraph a verdict prints.
 *
 * Nodes: level 1 frontend_bound, bad_speculation, backend_bound, retiring; the
 * extra level-1 nodes smt_contention (AMD Zen 4/5), frontend_stalled_cycles and
 * backend_stalled_cycles (cycle accounting on Neoverse N1 / Cortex-A76 and the
 * Zen 2/3 approximation); level 2 fetch_latency, fetch_bandwidth,
 * branch_mispredicts, machine_clears, memory_bound, core_bound, light_operations,
 * heavy_operations (design.md's shared vocabulary).
 *
 * Everything here is constant data and pure functions: thread-safe, no
 * allocation except into the caller's strbuf, nothing printed.
 */
#ifndef TDPROF_MODEL_ADVICE_H
#define TDPROF_MODEL_ADVICE_H

#include <stddef.h>

struct strbuf;

struct advice_entry {
	const char *key;            /* "fetch_latency": the JSON key of the node */
	const char *title;          /* "Fetch Latency" */
	const char *parent;         /* "frontend_bound"; NULL at level 1 */
	int level;                  /* 1 or 2 */
	const char *const *aliases; /* NULL-terminated: other names of the node (perf, Intel, AMD, Arm) */
	const char *summary;        /* one paragraph, for verdicts (Markdown) */
	const char *meaning;        /* the sections, Markdown as in the document */
	const char *confirm;
	const char *causes;
	const char *fixes;
	const char *sources;
};

/**
 * The entry for `node`, or NULL when there is none. Matching ignores case, treats
 * '-', ' ', '.' and ':' like '_' and drops a leading "tma_"; aliases count, so
 * "tma_fetch_latency", "Fetch-Latency", "frontend_bound_latency" (AMD) and
 * "stalled-cycles-frontend" all find their entry. node may be NULL (returns NULL).
 * The entry is static: never freed.
 */
const struct advice_entry *advice_find(const char *node);

/** Number of entries (15); they are advice_get(0 .. advice_count() - 1). */
size_t advice_count(void);

/** Entry i in the document's order (level-1 nodes followed by their children); NULL past the end. */
const struct advice_entry *advice_get(size_t i);

/**
 * The one-paragraph summary a verdict prints for `node` (found as advice_find()
 * does), as Markdown; NULL when the node is unknown. Static.
 */
const char *advice_summary(const char *node);

/**
 * Up to max names of entries (keys) close to `wanted`, for "did you mean" hints
 * (str_suggest over keys and aliases; an alias suggests its entry's key). Writes
 * the keys (static strings) to out and returns how many.
 */
size_t advice_suggest(const char *wanted, const char **out, size_t max);

#endif
