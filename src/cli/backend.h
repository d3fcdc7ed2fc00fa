/*
 * backend.h: `--backend=auto|pmu|sim|import`, shared by every command that
 * measures (stat, topdown, why, selftest), and the printing side of the runs
 * measure/run.h makes (progress, warnings, errors, exit statuses, the workload's
 * stdout diverted).
 *
 *   auto    the PMU when a hardware event opens here (cpu_probe_hw_events()),
 *           otherwise the simulation, with one `tdprof: note:` line saying that
 *           there is no PMU, why (the probe's explanation), and that every figure
 *           is an estimate;
 *   pmu     the PMU; where none exists: the probe's explanation and exit 1;
 *   sim     always the simulation (valgrind, src/sim/);
 *   import  counts read from a file (topdown --import FILE).
 *
 * Lives in cli/ because it reads options and the environment (PATH, TMPDIR for
 * valgrind) and prints (msg.h); measure/ does the runs.
 *
 * Usage:
 *   const char *backend = "auto";   OPT_CHOICE(0, "backend", &backend, BACKEND_CHOICES, BACKEND_HELP)
 *   enum tdp_backend b;
 *   rc = backend_select("why", backend, &(struct backend_select_opts){ .can_sim = true }, &b);
 *   if (rc) return rc;               (the message was printed)
 *   if (b == BACKEND_SIM) {
 *       struct measure_sim s; measure_sim_init(&s);
 *       rc = backend_sim_machine("why", spec, &s.machine);    (2 on a bad --sim-machine)
 *       rc = backend_sim_run(argv, &s);    0, or the exit status for the failure
 *       ... s.profile, s.est (when s.have_est), s.run.status ...
 *       measure_sim_release(&s);
 *   }
 */
#ifndef TDPROF_CLI_BACKEND_H
#define TDPROF_CLI_BACKEND_H

#include <stdbool.h>

#include "base/countset.h"
#include "base/err.h"
#include "measure/run.h"
#include "model/model.h"
#include "pmu/session.h"
#include "sim/sim.h"

#define BACKEND_CHOICES "auto|pmu|sim|import"
#define BACKEND_HELP                                                                                        \
	"where counts come from: auto (the PMU, else the simulation), pmu, sim (valgrind; estimates), import " \
	"(a file)"

struct backend_select_opts {
	bool can_sim;      /* the command can simulate (a command to run, default events) */
	const char *no_sim_why; /* when !can_sim: why, for the message (NULL: the general reason) */
	bool can_import;   /* the command reads counts from a file (--import) */
	bool has_import;   /* --import FILE was given */
	bool auto_pmu;     /* auto keeps the PMU even without hardware events: stat only, whose
			    * software counts are measurements and whose no-PMU behaviour issue 2
			    * fixes (the counts, the reason, the pointer to --backend=sim);
			    * topdown, why and selftest fall back to the simulation */
	bool pmu_soft;     /* the events were given (-e) and may all be software ones: '--backend=pmu' opens
			    * them without asking for hardware events first (they fail on their own) */
	const char *pmu_hint; /* a second hint when '--backend=pmu' finds no hardware event (NULL: none) */
};

/**
 * Decide the backend for command `cmd` from the --backend value `choice` (NULL:
 * "auto"). Prints the auto fallback note, or the error and hint. Returns 0 and
 * sets *out, or the exit status: 1 when `pmu` was asked for and no hardware event
 * opens (the probe's explanation and its remedy are printed), 2 for a choice the
 * command cannot take (`import` without --import, `sim` or `import` where the
 * command cannot).
 */
int backend_select(const char *cmd, const char *choice, const struct backend_select_opts *o,
		   enum tdp_backend *out);

/**
 * The backend --backend=auto picks on this machine: "pmu" when a hardware event
 * opens, "sim" otherwise. Documents that measure nothing (list, explain) carry it as
 * their `backend`, as `tdprof info` reports it, since design.md gives every JSON
 * document one. Opens and closes one event; does not print.
 */
const char *backend_auto_name(void);

/**
 * Load --sim-machine `spec` (a preset, KEY=VAL list or file) into m; NULL: the
 * environment's TDPROF_SIM_MACHINE, else the preset of this host's micro-architecture
 * (sim_machine_preset_for_uarch(), with a note saying so), else "generic". Returns 0, or prints the error and returns the exit status (2: bad spec,
 * 1: an unreadable file).
 */
int backend_sim_machine(const char *cmd, const char *spec, struct sim_machine *m);

/**
 * Run argv (NULL-terminated, borrowed) under valgrind on s->machine (set by
 * backend_sim_machine()), parse its cost files and estimate. PATH and TMPDIR are
 * taken from the environment. Prints a progress line before and after. Returns 0
 * when the workload ran (its status is s->run.status; s->have_est is false when
 * the profile could not be estimated, with a warning printed), or prints the error
 * and returns the exit status: 127 (not found), 126 (not executable), 1 (valgrind
 * missing or failed, cost files unreadable).
 */
int backend_sim_run(char *const *argv, struct measure_sim *s);

/**
 * Count the top-down events of this CPU's model (up to `level`) and the triage
 * events (cycles, instructions, branches, branch-misses, L1-icache-load-misses,
 * LLC-load-misses) over one run of argv, and evaluate the tree. Returns 0 when the
 * workload ran and the tree has a level-1 node, or prints the error and returns
 * the exit status (2: no model for this CPU, unless p->allow_no_model; 127/126: not
 * found / not executable, 1: counting or evaluation failed).
 */
int backend_pmu_run(char *const *argv, int level, struct measure_pmu *p);

/**
 * Point stdout at stderr (when `divert`) for the workload's run; returns the saved
 * stdout for backend_restore_stdout(), or -1 when nothing was changed.
 */
int backend_divert_stdout(bool divert);

/** Undo backend_divert_stdout() (saved < 0 does nothing). */
void backend_restore_stdout(int saved);

/** The usage error for --cpu NAME that names no model, with the closest names (EXIT_USAGE). */
int backend_unknown_model(const char *name);


#endif
