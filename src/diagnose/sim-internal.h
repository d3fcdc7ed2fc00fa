/* sim-internal.h: the state of one simulated diagnosis, shared by sim.c and sim-findings.c. */
#ifndef TDPROF_DIAGNOSE_SIM_INTERNAL_H
#define TDPROF_DIAGNOSE_SIM_INTERNAL_H

#include "diagnose/diagnose.h"
#include "sim/sim.h"
#include "symbol/exe.h"

struct strbuf;

struct dsim {
	const struct sim_profile *p;  /* borrowed */
	const struct sim_machine *m;  /* borrowed */
	const struct diag_opts *o;    /* borrowed */
	struct symbol_exe x;            /* the executable, when have_exe */
	bool have_exe;
	char **files;                 /* normalised file names by name index (cache, owned) */
	const struct sim_site *all;   /* every site of the run: est->sites, or built_all */
	size_t nr_all;
	struct sim_site *built_all;   /* the sites when est had none (owned) */
	bool *in_prog;                /* per site of `all`: the program's own code */
	struct sim_site *scope;       /* copies of the scope's sites, ranked (owned) */
	size_t nr_scope;
	bool in_prog_top;             /* scope[0] is the program's own code */
	struct sim_estimate est;      /* the scope's estimate */
};

const char *dsim_abs_file(struct dsim *s, uint32_t idx);
const char *dsim_fn(const struct dsim *s, uint32_t idx);
char *dsim_display_file(const struct dsim *s, const char *abs);
void dsim_counts(const struct sim_cost *c, double cycles, struct diag_counts *out);
enum sim_bucket dsim_bucket(const char *category);

/* Front-end cycles by cause, of one line or summed over several (dsim_fe_add()). */
struct dsim_fe {
	double resteer;     /* refills after mispredicts, redirects at indirect branches */
	double bandwidth;   /* the taken-branch fetch limit and µop-cache misses (Fetch Bandwidth) */
	double icache;      /* the rest: instruction-cache misses */
	uint64_t mispredicts, indirect; /* the branches behind the resteers */
};
/** Add site ss's front-end cycles, by cause, to *f. */
void dsim_fe_add(struct dsim_fe *f, const struct sim_site *ss);
/** The findings of a simulated diagnosis (sim-findings.c); the sites are ranked for bucket b. */
int dsim_findings(struct dsim *s, struct diag *d, enum sim_bucket b, struct tdp_err *err);

#endif
