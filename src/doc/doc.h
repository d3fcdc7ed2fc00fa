/*
 * doc.h: a tdprof JSON document read back: the figures of a `topdown`, `why` or
 * `branches report` document in one typed structure, for `tdprof diff` (which
 * compares two of them and never measures) and for the HTML report (which draws
 * exactly what the JSON says: the HTML of `topdown --html` is made from the
 * command's own JSON document, so the picture cannot disagree with it).
 *
 * What is read (every key optional unless said; unknown keys are ignored, so
 * documents of later versions still load):
 *   kind       the "command" key when present ("topdown", "why", "branches report"),
 *              else inferred: "edges" or "branch_entries" -> branches report;
 *              "findings" -> why; "level1" -> topdown; a "diff" document is refused
 *   header     backend, cpu, model_kind, model.description, source (why: "command",
 *              a branch report: "file"), level, machine (an object or a string: the
 *              simulated machine)
 *   nodes      the "nodes" array when present (topdown: key, parent, level, label,
 *              extra, value, threshold, flagged), else level1 / level2 (keyed by
 *              parent) / cycle_accounting with "thresholds" and "flagged";
 *              levels 1 to 6 (Intel's TMA)
 *   runs       "runs": [{level1, level2}, ...] (-r N): each node's summary over the
 *              runs (mean, sd, Student's t interval: model/stats.h); "repeat":
 *              {runs, requested, deterministic, note}
 *   verdict    {category, node, value, node_value, over_threshold, next_step, advice}
 *   sites      ranked: function, file, line, address ("0x..." or a number),
 *              offset within the function (an "offset" key, or the "+0x1a" of a
 *              "symbol" such as "parse_token+0x1a"), type, every other numeric
 *              field as a named count (executions, mispredicts, misses, ...), and
 *              disassembly: a site's "disasm" lines (strings, or {address, text,
 *              target, in_line}), branches report's "disassembly" [{address,
 *              lines}] (by address), why's drilldown.disassembly (by function)
 *   edges      from, to, from_symbol, to_symbol ("func+0x1a"), count, mispredicts
 *   findings   why: title, category, evidence, site, fix (objects shown as text)
 *   summary    branches: samples, branch_entries, mispredicted_entries, lost_samples
 *   metrics    topdown: "info" and "bottlenecks" ([{name, group, value, unit,
 *              threshold, flagged, rank, description}]), "stage2" {node, metrics}
 *   branches   why: drilldown.line_branches [{address, text, executions,
 *              mispredicts, target}] (the top line's branches, each counted)
 *   notes      strings
 *
 * Input is hostile: the parser (jansson) is bounded by TDOC_MAX_BYTES and every
 * array by a named limit; a field of the wrong type is a TDP_EFORMAT naming the
 * file and the key.
 *
 * Lifecycle:
 *   1. struct tdoc *d; tdoc_parse(buf, len, "a.json", &d, &err);
 *   2. read d; optionally tdoc_attach_sources(d, ...) for source lines;
 *   3. tdoc_free(d).
 * Strings are borrowed from the parsed document and live until tdoc_free().
 */
#ifndef TDPROF_DOC_DOC_H
#define TDPROF_DOC_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/stats.h"

struct tdp_err;

#define TDOC_MAX_BYTES (256u << 20) /* a larger document is refused (TDP_ELIMIT) */
#define TDOC_MAX_NODES 160          /* nodes of one tree (Intel to level 6: ~120; MODEL_MAX_NODES) */
#define TDOC_MAX_SITES 65536        /* sites kept (a longer list is cut: sites_cut) */
#define TDOC_MAX_EDGES 65536        /* edges kept (edges_cut) */
#define TDOC_MAX_RUNS MODEL_RUNS_MAX
#define TDOC_MAX_COUNTS 16          /* numeric fields kept per site */
#define TDOC_MAX_DISASM 64          /* disassembly lines kept per site */
#define TDOC_MAX_FINDINGS 64
#define TDOC_MAX_NOTES 32
#define TDOC_MAX_FUNCTIONS 256      /* functions kept of --by function's list */
#define TDOC_MAX_METRICS 512        /* info, bottleneck or stage-2 metrics kept of each */
#define TDOC_MAX_LINE_BRANCHES 64
#define TDOC_MAX_SOURCE_LINES 15    /* source lines shown around a site */
#define TDOC_MAX_SOURCE_BYTES (64u << 20) /* a larger source file is not read */

enum tdoc_kind {
	TDOC_TOPDOWN = 0,
	TDOC_WHY,
	TDOC_BRANCHES,
};

/** "topdown", "why" or "branches report". */
const char *tdoc_kind_name(enum tdoc_kind k);

struct tdoc_node {
	const char *key;          /* "bad_speculation" */
	const char *parent;       /* NULL at level 1 */
	const char *label;        /* "Bad Speculation" */
	int level;                /* 1..6 (Intel TMA goes to 6) */
	bool extra;               /* a vendor extra (smt_contention) */
	double value;             /* percent; NAN when null (not measurable) */
	double threshold;         /* percent; NAN when none */
	bool flagged;
	struct stats_summary s;   /* over the document's runs when it has them, else n = 1 (value) */
};

/** A named number of a site or of the document ("mispredicts", 1234). */
struct tdoc_count {
	const char *name;
	double value;
};

struct tdoc_asm {
	uint64_t address;         /* 0 when the line has none */
	const char *text;         /* "jne 0x401136" */
	bool mark;                /* the site's own instruction */
	bool in_line;             /* an instruction of the site's source line */
};

struct tdoc_src {
	uint64_t line;
	char *text;               /* heap (owned by the document), without the newline */
};

struct tdoc_site {
	size_t rank;              /* 1-based, in the document's order (most guilty first) */
	const char *function;     /* NULL when unknown */
	const char *file;         /* NULL when unknown */
	uint64_t line;            /* 0 when unknown */
	uint64_t address;
	bool has_address;
	uint64_t offset;          /* within function */
	bool has_offset;
	const char *type;         /* branch type ("COND"), or NULL */
	struct tdoc_count counts[TDOC_MAX_COUNTS];
	size_t nr_counts;
	struct tdoc_asm *disasm;  /* heap, owned; NULL when the document has none */
	size_t nr_disasm;
	struct tdoc_src *source;  /* heap, owned; filled by tdoc_attach_sources() */
	size_t nr_source;
};

/** A site's count called name, or NAN when it has none. */
double tdoc_site_count(const struct tdoc_site *s, const char *name);

struct tdoc_edge {
	uint64_t from, to;
	bool has_from, has_to;
	const char *from_symbol, *to_symbol;  /* as the document spells them */
	char *from_function, *to_function;    /* heap: the symbol without "+0x.."; NULL when unknown */
	uint64_t from_offset, to_offset;
	bool has_from_offset, has_to_offset;
	double count;                         /* NAN when absent */
	double mispredicts;                   /* NAN when absent */
};

struct tdoc_finding {
	const char *title, *category;
	char *evidence, *site, *fix;          /* heap text (objects are shown as "key: value, ...") */
};

/** A named metric of the document: an Info metric, a bottleneck, a stage-2 metric. */
struct tdoc_metric {
	const char *name;         /* "IPC", "Mispredictions", "branch_mpki" */
	const char *group;        /* "Info.Thread", "Bottleneck", "Branch_Effectiveness"; NULL */
	const char *unit;         /* "percent_of_slots", "ratio", ...; NULL */
	const char *description;  /* NULL */
	double value;             /* NAN when null (not measurable) */
	double threshold;         /* NAN when none */
	bool flagged;
	size_t rank;              /* bottlenecks: 1-based; 0 when none */
};

/** One function of --by function (topdown, why): its share and its own top-down. */
struct tdoc_function {
	const char *name;         /* never NULL */
	const char *dso;          /* NULL */
	bool kernel;
	double share;             /* percent of cycles (of the group leader's counts); NAN unknown */
	double level1[4];         /* retiring, bad_speculation, frontend_bound, backend_bound; NAN not measurable */
	const char *dominant;     /* level-1 key; NULL */
	const char *dominant_node; /* NULL */
	const char *why;          /* why level 1 is not measurable; NULL */
	const char *file;         /* the guilty line's file; NULL */
	uint64_t line;            /* 0 unknown */
	double line_share;        /* NAN unknown */
	uint64_t samples;         /* group reads; 0 (sim) */
};

/** One branch of why's top line, with its own counts. */
struct tdoc_branch {
	uint64_t address;
	bool has_address;
	const char *text;         /* "jne 0x1189"; NULL */
	double executions, mispredicts; /* NAN when absent */
	bool target;              /* the branch the drill-down marks */
};

struct tdoc_verdict {
	const char *category;     /* NULL when none */
	const char *node;
	double value, node_value; /* NAN when absent */
	bool over_threshold;
	const char *next_step, *advice;
};

struct tdoc {
	enum tdoc_kind kind;
	char *name;               /* the file it came from (copied), for messages */
	const char *backend;      /* "pmu", "sim", "import"; NULL when the document does not say */
	const char *cpu;          /* the model ("zen4"); NULL when none */
	const char *model_kind;   /* "slots", "cycle_accounting"; NULL */
	const char *model_description;
	const char *source;       /* what was measured or imported */
	char *machine;            /* heap: the simulated machine in words; NULL when none */
	int level;                /* deepest level (0 when the document does not say) */
	const char *scope;        /* why: "program" or "whole_run" (what the shares cover); NULL */
	double cycles;            /* the cycles the shares are of (counts.cycles); NAN when absent */
	struct tdoc_node nodes[TDOC_MAX_NODES];
	size_t nr_nodes;          /* level 1 first, then level 2, as the document lists them */
	double level1_sum;        /* NAN when absent */
	size_t runs;              /* runs behind the figures (1 without -r) */
	size_t runs_requested;    /* -r N as asked (may exceed runs: see repeat_note) */
	bool deterministic;       /* the backend repeats exactly (simulated) */
	const char *repeat_note;
	struct tdoc_verdict verdict;
	struct tdoc_site *sites;  /* heap, owned */
	size_t nr_sites;
	bool sites_cut;           /* the document had more than TDOC_MAX_SITES, or was larger than 8 MiB
				   * and had more than the 16384 kept of it (doc-trim.c) */
	struct tdoc_edge *edges;  /* heap, owned */
	size_t nr_edges;
	bool edges_cut;           /* the same for the edges */
	struct tdoc_finding *findings; /* heap, owned */
	size_t nr_findings;
	const char *notes[TDOC_MAX_NOTES];
	size_t nr_notes;
	struct tdoc_count summary[TDOC_MAX_COUNTS]; /* branches: samples, branch_entries, ... */
	size_t nr_summary;
	struct tdoc_metric *info, *bottlenecks, *stage2; /* heap, owned; NULL when none */
	size_t nr_info, nr_bottlenecks, nr_stage2;
	const char *stage2_node;  /* the level-1 node whose stage-2 groups are shown; NULL */
	struct tdoc_branch *line_branches; /* heap, owned; NULL when none */
	size_t nr_line_branches;
	struct tdoc_function *functions; /* --by function: heap, owned (at most TDOC_MAX_FUNCTIONS); NULL */
	size_t nr_functions;
	const char *functions_source;    /* "sim" or "group_read"; NULL */
	const char *functions_leader;    /* group reads: the event the shares are of; NULL */
	double functions_other;          /* percent in the functions not listed; NAN */
	void *root;               /* the parsed JSON (json_t): owns the borrowed strings */
};

/**
 * Parse a tdprof JSON document buf[0..len) (borrowed; need not be NUL-terminated)
 * named name (for messages). On success *out is new (tdoc_free()). Returns 0;
 * TDP_EFORMAT (not JSON: the message gives the line and column; not a tdprof
 * document; a diff document; a key of the wrong type: named); TDP_ELIMIT (larger
 * than TDOC_MAX_BYTES); TDP_ENOMEM. *out is untouched on failure.
 */
int tdoc_parse(const uint8_t *buf, size_t len, const char *name, struct tdoc **out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free a document (NULL does nothing). */
void tdoc_free(struct tdoc *d);

/** The node with key, or NULL. */
const struct tdoc_node *tdoc_find(const struct tdoc *d, const char *key);

/**
 * Read the source lines around the first max_sites sites that name a file and a
 * line (context lines before and after, at most TDOC_MAX_SOURCE_LINES in all) into
 * site->source. A relative file name is looked up as given (from the current
 * directory), then under each of dirs[0..nr_dirs) (borrowed; may be NULL). A file
 * that cannot be read is skipped silently (the site shows no source): that is not
 * an error. Returns 0 or TDP_ENOMEM.
 */
int tdoc_attach_sources(struct tdoc *d, size_t max_sites, unsigned context, const char *const *dirs,
			size_t nr_dirs, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Split a perf-style symbol "name+0x1a" into its function (heap, *fn; the whole
 * string when it has no offset) and offset (*has_off). "[.] name+0x1a" and
 * "[k] name" are accepted (perf's column). A bare address ("0x4011a0") is no
 * function: *fn = NULL. Returns 0 or TDP_ENOMEM.
 */
int tdoc_split_symbol(const char *sym, char **fn, uint64_t *off, bool *has_off, struct tdp_err *err)
	__attribute__((warn_unused_result));

#endif
