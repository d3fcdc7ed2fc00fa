/* drill-pmu-internal.h: the state of one PMU drill-down, shared by drill-pmu*.c (not a contract for others). */
#ifndef TDPROF_DIAGNOSE_DRILL_PMU_INTERNAL_H
#define TDPROF_DIAGNOSE_DRILL_PMU_INTERNAL_H

#include "diagnose/drill-pmu.h"
#include "symbol/exe.h"

struct symbol_session;
struct strbuf;
struct perfdata_mmap;
struct dpmu_data;

/* One source line (or, without debug info, one function or binary) of the samples. */
struct dpmu_line {
	const char *function;   /* the symbol (session's string); NULL: unresolved */
	const char *file;       /* the source file as DWARF names it (session's); NULL: unknown */
	const char *dso;        /* the binary as recorded (session's); NULL: unmapped */
	uint32_t line;          /* 0: unknown */
	bool kernel;
	uint64_t func_size;     /* the function's bytes (0: unknown) */
	uint64_t samples;       /* IP samples, or branch records from the line */
	uint64_t executions, mispredicts;          /* branch records (sampled) */
	uint64_t cond, cond_mis, ind, ind_mis;     /* of which by kind */
	uint64_t top_addr;      /* the address weighing most in it (disassembly) */
	uint64_t top_vaddr;     /* its ELF virtual address (0: no binary was read) */
	uint32_t top_pid;
	uint64_t top_weight;
};

struct dpmu {
	struct diag *d;
	const struct diag_pmu_drill_opts *opts;
	const struct diag_opts *o;
	const struct diag_pmu_plan *plan;
	struct symbol_session *sym;
	struct symbol_exe x;           /* the workload's executable (compiler flags), when have_exe */
	bool have_exe;
	struct dpmu_line *lines;     /* ranked, most guilty first (owned) */
	size_t nr_lines;
	uint64_t total;              /* what the shares are of: samples, or (mispredicted) branch records */
	uint64_t touched_lines;      /* IP: distinct DIAG_PMU_CACHE_LINE-byte lines of code the samples hit */
	struct dpmu_data *data;      /* the samples' data addresses and the data mappings (drill-pmu-data.c);
	                                NULL: the samples carry none */
};

/** The site's function as shown: the symbol, "[kernel]" or "[BINARY]" ("[unknown]"); a new string or NULL. */
char *dpmu_function_label(const struct dpmu_line *l);

/**
 * The line's source file as a normalised absolute path into buf when one can be
 * made (DWARF may name it relative to its unit's compilation directory, which the
 * executable's DWARF gives); else the name as recorded. NULL when unknown.
 */
const char *dpmu_source(const struct dpmu *s, const struct dpmu_line *l, char *buf, size_t size);

/** The line's source as shown: relative to o->cwd when under it; a new string (NULL: unknown or no memory). */
char *dpmu_display_file(const struct dpmu *s, const struct dpmu_line *l);

/** True when the line is in the workload's executable (o->exe). */
bool dpmu_in_program(const struct dpmu *s, const struct dpmu_line *l);

/*
 * Data addresses (drill-pmu-data.c): each sample's (pid, ip, addr) of a recording with PERF_SAMPLE_ADDR
 * (addr 0: the event gave none; latency: cycles, -1 unknown) and each MMAP/MMAP2 record; then dpmu_data_finish() fills d->data (the
 * hottest lines, their mapping, the code line that touched each most; after the symbol session has every
 * mapping); dpmu_data_free(). Return 0, TDP_ENOMEM or TDP_ELIMIT (past DIAG_PMU_MAX_ADDRS lines).
 */
int dpmu_data_sample(struct dpmu *s, uint32_t pid, uint64_t ip, uint64_t addr, int latency, struct tdp_err *err)
	__attribute__((warn_unused_result));
/*
 * An SPE load recording (diag_pmu_plan.spe_loads): each AUXTRACE record's load records (a PC, their data
 * address and total latency) counted as samples, each PC given to ip_fn(arg, pid, pc, err); COMM and FORK
 * records map SPE's thread ids to processes. Returns 0, TDP_ENOMEM or ip_fn's error.
 */
struct perfdata_record;
typedef int (*dpmu_ip_fn)(void *arg, uint32_t pid, uint64_t ip, struct tdp_err *err);
int dpmu_data_spe(struct dpmu *s, const struct perfdata_record *rec, dpmu_ip_fn ip_fn, void *arg, struct tdp_err *err)
	__attribute__((warn_unused_result));
int dpmu_data_mmap(struct dpmu *s, const struct perfdata_mmap *m, struct tdp_err *err)
	__attribute__((warn_unused_result));
int dpmu_data_finish(struct dpmu *s, struct tdp_err *err) __attribute__((warn_unused_result));
void dpmu_data_free(struct dpmu *s);

/** The findings of the drill-down (drill-pmu-findings.c), after the sites. Returns 0 or TDP_ENOMEM. */
int dpmu_findings(struct dpmu *s, struct tdp_err *err) __attribute__((warn_unused_result));

/** The hot code footprint (Frontend) and the loop command (drill-pmu-findings.c). Returns 0 or TDP_ENOMEM. */
int dpmu_footprint(struct dpmu *s, struct tdp_err *err) __attribute__((warn_unused_result));
int dpmu_loop_command(struct dpmu *s, struct tdp_err *err) __attribute__((warn_unused_result));

#endif
