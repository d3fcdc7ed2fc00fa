/*
 * sim.h: the simulated backend, for machines without a hardware PMU. It runs the
 * workload once under valgrind with an explicit machine model and turns what
 * valgrind counted into the structures the PMU paths produce, every figure marked
 * as an estimate. docs/sim-machine.md describes the model, its sources and limits.
 *
 * The module is four contracts, used in this order:
 *   machine.h  the simulated machine (--sim-machine): presets, KEY=VAL, files,
 *              validation, valgrind's --I1/--D1/--LL;
 *   runner.h   sim_run(): valgrind (tdprof's own tool where it was built, else
 *              cachegrind, or callgrind for instruction addresses) on the workload,
 *              its exit status, its cost files parsed;
 *   mach.h     the machine tdprof's valgrind tool (vgtool/) simulates: caches,
 *              prefetchers, the interval model, BTB, µop cache, predictor
 *              (freestanding; compiled into the tool);
 *   profile.h  the parsed costs and the hostile-input parsers of cachegrind.out and
 *              callgrind.out (also usable on files recorded elsewhere);
 *   cost.h     sim_estimate() (cycles and level-1 top-down, struct sim_topdown),
 *              sim_estimate_countset() (perf-named counts, BACKEND_SIM) and
 *              sim_sites_build()/sim_sites_sort() (per-source-line sites).
 *
 * A typical caller:
 *   struct sim_machine m;          sim_machine_load(&m, spec_or_"generic", &err);
 *   struct sim_profile p;          sim_profile_init(&p);
 *   struct sim_run_opts o = SIM_RUN_OPTS_INIT;  o.argv = argv; o.machine = &m; o.path = PATH;
 *   sim_run(&o, &p, &r, &err);     the workload's status is r.status
 *   sim_estimate(&p, &m, &est, &err);   est.topdown, est.dominant
 *   sim_estimate_countset(&p, &est, &cs, &err);
 *   sim_sites_build(&p, &m, &sites, &nr, &err); sim_sites_sort(sites, nr, est.dominant);
 *   ... sim_sites_free(sites); sim_profile_release(&p);
 */
#ifndef TDPROF_SIM_SIM_H
#define TDPROF_SIM_SIM_H

#include "sim/cost.h"
#include "sim/machine.h"
#include "sim/profile.h"
#include "sim/runner.h"

#endif
