/*
 * annot.h: one function's source lines and instructions with counts beside
 * each (`tdprof annotate`), as `perf annotate --stdio` shows them, from a
 * recording's branch records or plain samples, or from a simulated run.
 *
 * One address space: every address of the document is the binary's ELF virtual
 * address (as objdump and the symbol table print it), whatever the process's
 * load address was; counts recorded at runtime addresses are moved there by the
 * symbol module (symbol_result.vaddr), simulated ones by the load bias found for
 * the function (from-sim.c).
 *
 * The counts are the ones the other commands print, not recomputed: a
 * recording's per-instruction executions and mispredicts are the sites of
 * branch/branch.h's aggregation (`branches report` prints the same), its block
 * cycles that aggregation's timed blocks, its samples branch/ips.h's; a
 * simulated run's are valgrind's per-instruction costs (sim/profile.h), of which
 * a line's are the sums `why --backend=sim` gives its site (executions: the Ir of
 * the line's most executed instruction, as sim_sites_build() counts it).
 *
 * Columns are named, not fixed: a recording gives executions, mispredicts (when
 * its records carry the flag) or samples; a simulation gives executions,
 * branches, mispredicts and every event its profile has, by valgrind's name
 * ("Ir", "D1mr", ...), so a profile with other events shows those.
 *
 * Building a document (the cli does it; each step may fail with TDP_ENOMEM):
 *   1. annot_doc_init(&d); the functions of the input with their counts
 *      (annot_branch_funcs() or annot_sim_funcs()), ranked; annot_select();
 *   2. annot_branch_build() or annot_sim_build(): the chosen function's listing
 *      (annot_listing(): disassembly and source positions) and its counts;
 *   3. annot_sources(): source paths, display names and text;
 *   4. annot_finish(): per-line sums, percentages, the hottest lines, rates,
 *      block IPC, the source view's context lines;
 *   5. report/annotate.h renders d; annot_doc_release(&d).
 * Every string and array of a document is owned by it. Not thread-safe.
 */
#ifndef TDPROF_ANNOT_ANNOT_H
#define TDPROF_ANNOT_ANNOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;
struct symbol_session;
struct branch_result;
struct ips_ip;
struct sim_profile;

#define ANNOT_MAX_COLS 32              /* count columns of one document */
#define ANNOT_MAX_INSNS (1u << 16)     /* instructions listed of one function (more: cut, with a note) */
#define ANNOT_MAX_HOT 3                /* lines marked among the hottest */
#define ANNOT_HOT_PCT 5.0              /* ranks after the first are marked from this share up (perf annotate's
					* red: MIN_RED in tools/perf/ui/browser.h) */
#define ANNOT_MAX_CONTEXT 20           /* source lines around each line with code */
#define ANNOT_MAX_SOURCE_BYTES (64u << 20) /* a larger source file is not read */
#define ANNOT_MAX_SOURCE_LINE 512      /* bytes of one source line kept */
#define ANNOT_MAX_NOTES 8
#define ANNOT_MAX_LISTED 20            /* candidates listed for a name that matches none or several */
#define ANNOT_NONE SIZE_MAX            /* "no index" */

/** How a source line's value is made from its instructions'. */
enum annot_agg {
	ANNOT_AGG_SUM = 0,  /* the sum (counts) */
	ANNOT_AGG_MAX,      /* the largest (times the line ran: its most executed instruction) */
};

struct annot_col {
	const char *key;         /* JSON key and --sort name ("executions", "mispredicts", "D1mr") */
	const char *label;       /* text column header */
	const char *description; /* what it counts, one line */
	enum annot_agg agg;
};

/** One level of an inline chain, innermost first. */
struct annot_frame {
	const char *function;    /* NULL when DWARF names none */
	const char *file;        /* as DWARF names it; NULL unknown */
	uint32_t line;
};

struct annot_insn {
	uint64_t addr;           /* ELF virtual address */
	uint8_t size;            /* 0: not decoded (an address with counts, no disassembly) */
	uint8_t bytes[16];
	uint8_t branch_type;     /* enum branch_type (perfdata/branch-entry.h); 0: not a branch */
	const char *text;        /* "jle 0x11d2"; "" when not decoded */
	const char *target;      /* a direct branch's or call's target, "main+0x89"; NULL */
	size_t line;             /* its source line (index in lines); ANNOT_NONE: none */
	const struct annot_frame *frames; /* its inline chain (frames[0]: the code's own function) */
	size_t nr_frames;
	bool chunk_start;        /* first of a run of consecutive instructions of one line */
	bool first_chunk;        /* that run is the line's first in address order */
	uint64_t v[ANNOT_MAX_COLS];
	double rate;             /* mispredicts per execution or branch; NAN: none executed */
	double pct;              /* percent of the function's total of the sort column; NAN: total 0 */
	uint64_t blk_cycles;     /* cycles of the timed blocks that end here (their closing branch) */
	uint64_t blk_timed;      /* their timed executions */
	double avg_cycles;       /* blk_cycles / blk_timed; NAN: no block ends here */
	double ipc;              /* IPC of the hottest timed block covering it; NAN: none */
};

struct annot_line {
	const char *file;        /* as shown: relative to the working directory when under it */
	const char *path;        /* the file read for its text; NULL when none was found */
	uint32_t line;
	const char *text;        /* its source text; NULL when unread */
	const char *function;    /* the innermost function of its code; NULL: a context line */
	bool inlined;            /* that code was inlined into the annotated function */
	bool has_code;           /* instructions of the function are at this line */
	size_t nr_insns;
	uint64_t v[ANNOT_MAX_COLS];
	double rate, pct;        /* as an instruction's */
	uint64_t cycles;         /* of the timed blocks ending on its instructions */
	unsigned hot;            /* 1..ANNOT_MAX_HOT: its rank among the hottest lines; 0: not */
};

/** A timed block inside the function (annot_block()), for the IPC. */
struct annot_block {
	size_t first, last;      /* instruction indices */
	uint64_t count, timed, cycles;
};

struct annot_doc {
	const char *backend;     /* "import", "pmu", "sim" (static) */
	bool estimate;           /* simulated: every figure is an estimate */
	const char *input;       /* the recording read; NULL */
	const char *command;     /* the simulated command; NULL */
	const char *machine;     /* the simulated machine; NULL */
	const char *function;    /* demangled, with its parameters */
	const char *dso;         /* the binary as recorded (valgrind: its object) */
	const char *binary;      /* the file read for code and symbols; NULL */
	char build_id[41];       /* hex; "" when it has none */
	uint64_t addr, size;     /* ELF virtual address and bytes */
	const char *file;        /* the source file of its first instruction (display); NULL */
	bool hottest;            /* no name was given: the hottest function */
	const char *hottest_by;  /* what "hottest" ranked by (a column key) */
	const char *scope;       /* sim, hottest: "program" (the executable's own code) or "whole run" */

	struct annot_col cols[ANNOT_MAX_COLS];
	size_t nr_cols;
	size_t col_exec, col_misp, col_rate_den; /* ANNOT_NONE when absent */
	size_t col_primary;      /* the count that says how hot (a sum): executions, samples, Ir */
	size_t sort_col;         /* the percent column; set before annot_finish() */
	uint64_t totals[ANNOT_MAX_COLS]; /* the function's (MAX columns: the largest instruction's) */
	double rate;             /* the function's mispredict rate; NAN */

	bool disassembled;       /* insns were decoded (else: the counted addresses alone) */
	const char *no_disasm;   /* why not; NULL */
	bool truncated;          /* more than ANNOT_MAX_INSNS instructions: the rest is left out */
	struct annot_insn *insns; /* address order */
	size_t nr_insns;
	struct annot_line *lines; /* source order: the first instruction's file, then the others by address */
	size_t nr_lines;
	size_t hottest_line;     /* index in lines of hot rank 1; ANNOT_NONE */
	size_t hottest_insn;     /* the instruction with the most of the sort column; ANNOT_NONE */
	uint64_t unplaced;       /* of the sort column: counts at addresses between instructions */

	bool has_timing;         /* the input had timed blocks (timed LBR) */
	struct annot_block *blocks;
	size_t nr_blocks, alloc_blocks;
	uint64_t cycles;         /* of the timed blocks inside the function */
	double ipc;              /* their instructions per cycle; NAN */
	double coverage_pct;     /* instructions covered by a timed block; NAN */

	const char *notes[ANNOT_MAX_NOTES];
	size_t nr_notes;

	/* owned storage */
	char **strs;
	size_t nr_strs, alloc_strs;
	const char **intern;     /* open addressing over strings kept once */
	size_t nr_intern, intern_cap;
	struct annot_frame *frames;
	size_t nr_frames, alloc_frames;
};

void annot_doc_init(struct annot_doc *d);
void annot_doc_release(struct annot_doc *d);

/** A copy of s owned by d (NULL for NULL or when memory runs out: check). */
const char *annot_str(struct annot_doc *d, const char *s);

/** s kept once by d (equal strings share one copy; pointers compare equal). NULL for NULL or no memory. */
const char *annot_intern(struct annot_doc *d, const char *s);

/** Add a column (key, label, description: static or d's). Returns its index, or ANNOT_NONE when full. */
size_t annot_col_add(struct annot_doc *d, const char *key, const char *label, const char *description,
		     enum annot_agg agg);

/** The column called key, or ANNOT_NONE. */
size_t annot_col_find(const struct annot_doc *d, const char *key);

/** Add a note (static, or d's string). */
void annot_note(struct annot_doc *d, const char *note);

/** The instruction at ELF virtual address vaddr (binary search), or ANNOT_NONE. */
size_t annot_insn_at(const struct annot_doc *d, uint64_t vaddr);

/**
 * Add v to column col of the instruction at vaddr; a count at an address that
 * is no instruction's start is added to d->unplaced when col is the sort column
 * (set it first) and otherwise dropped. Returns false when it was not placed.
 */
bool annot_count(struct annot_doc *d, uint64_t vaddr, size_t col, uint64_t v);

/**
 * A timed block [start, end] (ELF virtual addresses: from a branch target to the
 * next taken branch) seen count times, timed of them with cycles. Kept when both
 * ends are instructions of the listing, in order (else ignored; returns false).
 * Returns TDP_ENOMEM, 0 (kept) or 1 (ignored).
 */
int annot_block(struct annot_doc *d, uint64_t start, uint64_t end, uint64_t count, uint64_t timed,
		uint64_t cycles);

/** Where the function's code is, for annot_listing(). */
struct annot_where {
	struct symbol_session *s;   /* maps the function's binary */
	uint32_t pid;               /* of the process the addresses below are in */
	uint64_t start;             /* the function's first byte, runtime */
	uint64_t vaddr;             /* the same as an ELF virtual address */
	uint64_t size;              /* bytes; 0: up to its symbol's end */
	const uint64_t *counted;    /* ELF virtual addresses with counts (any order, duplicates fine): */
	size_t nr_counted;          /*   the listing when the code cannot be decoded */
};

/**
 * The listing of the function w describes (d->function set): every instruction
 * decoded, in address order, with its ELF virtual address, bytes, text and the
 * name of a direct branch's target ("main+0x89"); its source line and inline
 * chain (one symbol_resolve() over them). When the code cannot be decoded (a
 * kernel function without vmlinux, a debug file without code) d->no_disasm
 * says why and the listing is w->counted's addresses, still with their source
 * lines. Returns 0 or TDP_ENOMEM.
 */
int annot_listing(struct annot_doc *d, const struct annot_where *w, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Source files: each line's path (as DWARF names it; relative names are looked
 * up under comp_dir, then as given from the working directory cwd), its display
 * name (relative to cwd when under it) and the text of the lines the views show
 * (those with code and up to `context` around them). comp_dir and cwd may be
 * NULL. A file that cannot be read leaves its lines without text (not an
 * error). Call after the listing, before annot_finish(). Returns 0, TDP_ENOMEM.
 */
int annot_sources(struct annot_doc *d, const char *comp_dir, const char *cwd, unsigned context,
		  struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Per-line values, rates and percentages of d->sort_col, the hottest lines
 * (rank 1 in d->hottest_line: the line with the most; ranks 2 to ANNOT_MAX_HOT
 * the next ones that hold at least ANNOT_HOT_PCT % of the function's total),
 * the hottest instruction, the runs
 * of instructions per line (chunk_start, first_chunk), the totals, and with
 * timed blocks the IPC of each instruction (the block with the most cycles
 * covering it, as perf annotate gives the first block that covers it) and of the
 * function. Pure: reads only d. Returns 0.
 */
int annot_finish(struct annot_doc *d);

/* ---------------------------------------------------------------------------
 * Choosing the function
 * ------------------------------------------------------------------------- */

/** One function of the input, with its counts. */
struct annot_func {
	const char *name;        /* demangled, with parameters (perf.data) or valgrind's name */
	const char *dso;         /* its binary as recorded; NULL unknown */
	uint64_t addr;           /* ELF virtual address of its start; 0 unknown */
	uint64_t count;          /* of the primary column (executions, samples, Ir) */
	uint64_t mispredicts;
	bool preferred;          /* the program's own code (sim: the executable's) */
	/* for the builder */
	uint32_t pid;            /* a process it ran in */
	uint64_t runtime;        /* its start in that process */
	uint64_t size;           /* bytes; 0 unknown */
	uint32_t obj, fn;        /* sim: name indices in the profile */
};

enum annot_sel {
	ANNOT_SEL_ONE = 0,       /* one function chosen */
	ANNOT_SEL_NONE,          /* the name matches none (similar names listed) */
	ANNOT_SEL_AMBIGUOUS,     /* the name matches several (listed) */
	ANNOT_SEL_EMPTY,         /* the input has no named function with counts */
};

/** Rank v: by mispredicts (when by_mispredicts), then count, then name, then address. */
void annot_funcs_rank(struct annot_func *v, size_t nr, bool by_mispredicts);

/**
 * True when `name` is what the user called `want`: equal, or equal up to the
 * parameter list ("ns::f" names "ns::f(int)" and "ns::f(int) const"), or when
 * want is a mangled name (C++ "_Z...", Rust "_R..." or legacy "_ZN...17h...E")
 * whose demangled form (want_demangled, from symbol_demangle()) is, by the same
 * rule.
 */
bool annot_name_matches(const char *name, const char *want, const char *want_demangled);

/**
 * Choose among v[0..nr) (ranked): want NULL: the first function with counts,
 * the first preferred one when prefer is set and one has counts; else the
 * functions annot_name_matches() names, restricted to those whose dso is `dso`
 * or ends in "/dso" when dso is set. *chosen is the index (ANNOT_SEL_ONE); the
 * indices listed (the matches, or for NONE the names closest to want, or the
 * hottest) go to listed[0..*nr_listed), at most ANNOT_MAX_LISTED.
 */
enum annot_sel annot_select(const struct annot_func *v, size_t nr, const char *want, const char *dso, bool prefer,
			    size_t *chosen, size_t *listed, size_t *nr_listed);

/* ---------------------------------------------------------------------------
 * Inputs
 * ------------------------------------------------------------------------- */

/** A recording's counts (perf.data): its aggregation and its plain samples. */
struct annot_branch_in {
	struct symbol_session *sess;      /* fed the recording's maps */
	const struct branch_result *res;  /* branch records; NULL: none */
	const struct ips_ip *ips;         /* plain samples per IP; may be NULL */
	size_t nr_ips;
};

/**
 * The named functions of the recording with their counts (executions and
 * mispredicts of the sites in them; samples), ranked, into *out (heap, freed
 * with annot_funcs_free(); names are d's) and the columns of d. Resolves every
 * counted address once (kept in st for annot_branch_build()).
 */
struct annot_branch_state;
int annot_branch_funcs(struct annot_doc *d, const struct annot_branch_in *in, struct annot_branch_state **st,
		       struct annot_func **out, size_t *nr, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The listing of f with the recording's counts (and timed blocks); the
 * compilation directory of its code to *comp_dir (d's; NULL when unknown).
 */
int annot_branch_build(struct annot_doc *d, const struct annot_branch_in *in, struct annot_branch_state *st,
		       const struct annot_func *f, const char **comp_dir, struct tdp_err *err)
	__attribute__((warn_unused_result));

void annot_branch_state_free(struct annot_branch_state *st);

/** A simulated run's counts. */
struct annot_sim_in {
	const struct sim_profile *p;      /* per instruction (callgrind --dump-instr) */
	const char *exe;                  /* the workload's executable (absolute); NULL */
};

/** The functions of the profile (by object and function name) with their counts, ranked; and d's columns. */
int annot_sim_funcs(struct annot_doc *d, const struct annot_sim_in *in, struct annot_func **out, size_t *nr,
		    struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The listing of f (its object read from disk, its load bias found from its
 * first instruction's address) with the profile's per-instruction costs. The
 * compilation directory of f's code goes to *comp_dir (d's string; NULL none).
 */
int annot_sim_build(struct annot_doc *d, const struct annot_sim_in *in, const struct annot_func *f,
		    const char **comp_dir, struct tdp_err *err) __attribute__((warn_unused_result));

/** Free a function table. */
void annot_funcs_free(struct annot_func *v);

#endif
