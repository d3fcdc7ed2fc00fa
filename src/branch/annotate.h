/*
 * annotate.h: names for the addresses of a branch aggregation (branch.h):
 * function, source line, inline chain and perf's symbol text per address;
 * perf's `--sort symbol_from,symbol_to,mispredict` rows; branch types decoded
 * from the binary when the recording did not save them; disassembly around the
 * top sites; instruction counts (hence IPC) of the top timed blocks.
 *
 * It is the one place where branch/ uses the symbol module (symbol/symbol.h,
 * elfutils + capstone). In a build without that module (annotate-none.c) every
 * address stays unresolved: perf's text is made from the address alone (a user
 * address is then printed as recorded, where perf prints it relative to its
 * binary), there are no types from disassembly, no disassembly and no
 * instruction counts, and `symbolizer` says "none".
 *
 * Lifecycle:
 *   1. branch_annot_new(&an, &opts, &err);
 *   2. branch_annot_features() once with the reader's features; then
 *      branch_load() with opts.on_record = branch_annot_record and opts.ctx = an:
 *      the maps of the recording (MMAP, MMAP2, COMM, FORK, build-ids) reach the
 *      symbol session;
 *   3. branch_agg_finish(); branch_sites_sort() in the order wanted;
 *   4. branch_annot_run(an, &res, &err): resolves every distinct address once
 *      (one symbol_resolve() call), fills unknown site types (then
 *      branch_result_retype() is called), groups the edges as perf does, and
 *      disassembles / counts as the options ask;
 *   5. branch_annot_symbols(an) for the renderers;
 *   6. branch_annot_free(an) (the strings of step 5 die with it).
 * Not thread-safe.
 */
#ifndef TDPROF_BRANCH_ANNOTATE_H
#define TDPROF_BRANCH_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "branch/branch.h"

struct tdp_err;
struct perfdata_features;
struct perfdata_record;

/** Most top sites disassembled. */
#define BRANCH_MAX_DISASM_SITES 64
/** Most instructions shown before and after a site. */
#define BRANCH_MAX_DISASM_CONTEXT 32
/** Most sites whose unknown type is decoded from the binary. */
#define BRANCH_MAX_TYPED_SITES 100000

struct branch_annot_opts {
	const char *symfs;                 /* --symfs DIR, or NULL */
	const char *const *buildid_dirs;   /* NULL-terminated ("$HOME/.debug"), or NULL */
	const char *kallsyms;              /* --kallsyms FILE, or NULL */
	const char *debuginfod_client;     /* symbol_opts' (symbol/symbol.h): fetch missing debug info; NULL: never */
	char *const *debuginfod_envp;      /* its environment */
	bool lines;                        /* file:line and inline chains */
	bool disasm;                       /* disassemble the top sites */
	size_t disasm_sites;               /* how many (at most BRANCH_MAX_DISASM_SITES) */
	size_t disasm_before, disasm_after; /* instructions around each (at most BRANCH_MAX_DISASM_CONTEXT) */
	size_t block_insns;                /* top blocks whose instructions are counted (0: none) */
	bool types;                        /* decode unknown site types from the binary */
};

/** One level of an inline chain (innermost first). */
struct branch_frame {
	const char *function;              /* NULL when DWARF names none */
	const char *file;                  /* NULL when unknown */
	uint32_t line;                     /* 0 when unknown */
};

/** What is known about one address. Strings belong to the annotator. */
struct branch_loc {
	uint64_t addr;
	uint32_t pid;
	bool resolved;                     /* a function symbol holds it */
	bool kernel;
	const char *function;              /* demangled; NULL when unknown */
	uint64_t offset;                   /* addr - function start */
	const char *dso;                   /* the mapped file as recorded; NULL when unmapped */
	uint64_t dso_addr;                 /* perf's address for an unresolved one */
	const char *file;                  /* source file; NULL without debug info */
	uint32_t line;
	const struct branch_frame *inlines; /* the inline chain, innermost first (nr_inlines) */
	size_t nr_inlines;
	const char *perf_text;             /* perf's symbol column: "[k] do_idle", "[.] 0x0000000003b48a20" */
	const char *note;                  /* why something is missing; NULL when complete */
	uint32_t group;                    /* perf's grouping key: equal for addresses perf
					    * merges (same function), unique otherwise */
};

/** perf's "Branch Mispredicted" column of a row. */
enum branch_pred_flag {
	BRANCH_PRED_N = 0,                 /* predicted */
	BRANCH_PRED_Y,                     /* mispredicted */
	BRANCH_PRED_NA,                    /* neither flag ("N/A") */
};

/** One row of perf's `--sort symbol_from,symbol_to,mispredict`. */
struct branch_sym_edge {
	const struct branch_loc *from, *to; /* the first addresses of the group */
	uint8_t flag;                      /* enum branch_pred_flag */
	uint64_t count;                    /* entries; overhead = count / branch_entries */
};

/** One disassembled instruction. */
struct branch_insn_line {
	uint64_t addr;
	bool target;                       /* the site itself */
	char text[200];                    /* "jne 0x401136" */
};

/** The code around one site. */
struct branch_site_disasm {
	uint64_t addr;                     /* the site */
	const char *function;              /* NULL when no symbol holds it */
	struct branch_insn_line *lines;
	size_t nr_lines;
	const char *error;                 /* why there is none (nr_lines 0), else NULL */
};

/** The annotator's results (branch_annot_symbols()). */
struct branch_symbols {
	const char *symbolizer;            /* "elfutils" or "none" */
	struct branch_loc *locs;           /* distinct addresses, ascending */
	size_t nr_locs;
	size_t nr_resolved;                /* locs with a function */
	uint32_t *edge_loc;                /* for edge i of the result: locs[edge_loc[2i]] is its
					    * source, locs[edge_loc[2i + 1]] its target (the
					    * result's edges must keep their order) */
	struct branch_sym_edge *sym_edges; /* perf's rows, ranked by count */
	size_t nr_sym_edges;
	struct branch_site_disasm *disasm; /* for the first nr_disasm sites, in order */
	size_t nr_disasm;
	int64_t *block_insns;              /* instructions of the first nr_block_insns blocks; -1 unknown */
	size_t nr_block_insns;
	const char *block_note;            /* why instruction counts are missing, or NULL */
};

struct branch_annot;

/** Fill o with the defaults: lines, disasm of 5 sites (6 before, 3 after), 20 blocks, types. */
void branch_annot_opts_init(struct branch_annot_opts *o);

/**
 * Make an annotator (and its symbol session). opts is copied; the strings it
 * points to are borrowed until branch_annot_free(). Returns 0, TDP_ENOMEM.
 */
int branch_annot_new(struct branch_annot **out, const struct branch_annot_opts *opts, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Free the annotator and every string it handed out. NULL is fine. */
void branch_annot_free(struct branch_annot *an);

/** Take the recording's build-ids and kernel identity. Returns 0, TDP_ENOMEM, TDP_ELIMIT. */
int branch_annot_features(struct branch_annot *an, const struct perfdata_features *f, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** A branch_record_fn (ctx is the annotator): feeds the maps to the symbol session. */
int branch_annot_record(void *an, const struct perfdata_record *rec, struct tdp_err *err);

/**
 * Resolve and annotate r (see the lifecycle). r's site types may be filled
 * (type_source BRANCH_TYPE_FROM_DISASM) and its type view rebuilt; the order of
 * r's arrays is kept. Returns 0 or TDP_ENOMEM (an address that cannot be
 * resolved is not an error).
 */
int branch_annot_run(struct branch_annot *an, struct branch_result *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** The results of branch_annot_run() (empty before). Never NULL. */
const struct branch_symbols *branch_annot_symbols(const struct branch_annot *an);

/** The location of addr (one of the result's addresses), or NULL. */
const struct branch_loc *branch_symbols_find(const struct branch_symbols *s, uint64_t addr);

/** The location of the source (to false) or target (to true) of the result's edge i. */
static inline const struct branch_loc *branch_symbols_edge(const struct branch_symbols *s, size_t i, bool to)
{
	return s->edge_loc ? &s->locs[s->edge_loc[2 * i + (to ? 1 : 0)]] : NULL;
}

#endif
