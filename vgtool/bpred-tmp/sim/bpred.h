/*
 * TEMPORARY stand-in for the predictor helper's src/sim/bpred.h (issue 19), with
 * the agreed API, so that the valgrind tool builds and runs until theirs is merged.
 * A plain gshare conditional predictor, a last-target indirect predictor and a
 * return stack. Delete this directory when src/sim/bpred.h lands on main.
 */
#ifndef TDPROF_SIM_BPRED_H
#define TDPROF_SIM_BPRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpred_config {
	const char *name;
	unsigned log_entries; /* gshare 2-bit counters */
	unsigned hist_bits;
	unsigned log_targets; /* indirect last-target entries */
	unsigned ras;         /* return stack entries */
};

struct bpred;

const struct bpred_config *bpred_preset(const char *name);
size_t bpred_size(const struct bpred_config *c);
struct bpred *bpred_init(void *mem, size_t len, const struct bpred_config *c);
bool bpred_cond(struct bpred *p, uint64_t pc, bool taken);
bool bpred_indirect(struct bpred *p, uint64_t pc, uint64_t target);
void bpred_call(struct bpred *p, uint64_t pc, uint64_t return_addr);
bool bpred_return(struct bpred *p, uint64_t pc, uint64_t target);
void bpred_uncond(struct bpred *p, uint64_t pc, uint64_t target);

#endif
