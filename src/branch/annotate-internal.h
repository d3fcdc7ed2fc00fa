/*
 * annotate-internal.h: helpers shared by the two annotators (annotate.c with
 * the symbol module, annotate-none.c without it). Not part of the contract.
 */
#ifndef TDPROF_BRANCH_ANNOTATE_INTERNAL_H
#define TDPROF_BRANCH_ANNOTATE_INTERNAL_H

#include "branch/annotate.h"

struct strbuf;

/* The lowest kernel address on 64-bit machines (symbol.h's SYMBOL_KERNEL_START). */
#define BA_KERNEL_START 0xffff800000000000ull

/*
 * Collect the distinct addresses of r (sites, edge sources and targets, block
 * starts and ends) into s->locs, ascending, each with the pid of its first
 * edge (or block), and s->edge_loc. Returns 0 or TDP_ENOMEM.
 */
int ba_locs_collect(const struct branch_result *r, struct branch_symbols *s, struct tdp_err *err)
	__attribute__((warn_unused_result));

/*
 * Append perf's text for an address nothing resolved: "[k] 0x..." above
 * BA_KERNEL_START, else "[.] 0x...", in perf's "%#.16llx" (so 0 prints as 16
 * zeros without "0x").
 */
void ba_text_unresolved(uint64_t addr, uint64_t dso_addr, bool kernel, struct strbuf *sb);

/*
 * Set each loc's group (equal for resolved addresses of the same function of the
 * same binary, as perf's symbol sort keys merge them) and build s->sym_edges from
 * r's edges. Returns 0 or TDP_ENOMEM.
 */
int ba_sym_edges(struct branch_symbols *s, const struct branch_result *r, struct tdp_err *err)
	__attribute__((warn_unused_result));

/* Free what ba_* allocated in s (locs, edge_loc, sym_edges) and zero those fields. */
void ba_symbols_release(struct branch_symbols *s);

#endif
