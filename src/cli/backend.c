/* backend.c: --backend selection and the printing side of the runs of measure/run.h (see backend.h). */
#include "cli/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/progress.h"
#include "cpu/cpu.h"
#include "measure/run.h"
#include "model/model.h"
#include "sim/machine.h"

int backend_select(const char *cmd, const char *choice, const struct backend_select_opts *o,
		   enum tdp_backend *out)
{
	struct cpu_probe probe;
	bool want_pmu;

	if (!choice)
		choice = "auto";
	if (!strcmp(choice, "import")) {
		if (!o->can_import)
			return msg_usage(cmd, "'--backend=import' is not available here: 'tdprof %s' runs the "
					      "workload; read recorded counts with 'tdprof topdown --import FILE'", cmd);
		if (!o->has_import)
			return msg_usage(cmd, "'--backend=import' needs the file: '--import FILE'");
		*out = BACKEND_IMPORT;
		return EXIT_OK;
	}
	if (o->has_import) {
		if (strcmp(choice, "auto"))
			return msg_usage(cmd, "'--import' reads counts from a file: it cannot be used with "
					      "'--backend=%s'", choice);
		*out = BACKEND_IMPORT;
		return EXIT_OK;
	}
	if (!strcmp(choice, "sim")) {
		if (!o->can_sim)
			return msg_usage(cmd, "%s", o->no_sim_why ? o->no_sim_why
								   : "the simulation runs a command with the default events: it "
								     "cannot watch a running process, CPUs or custom events "
								     "('-e')");
		*out = BACKEND_SIM;
		return EXIT_OK;
	}
	want_pmu = !strcmp(choice, "pmu");
	if (!want_pmu && strcmp(choice, "auto"))
		return msg_usage(cmd, "unknown backend '%s' (auto, pmu, sim or import)", choice);
	if ((!want_pmu && (o->auto_pmu || !o->can_sim)) || (want_pmu && o->pmu_soft)) {
		/* auto keeps the PMU path whatever a probe would say: do not pay for one */
		*out = BACKEND_PMU;
		return EXIT_OK;
	}
	if (cpu_probe_hw_events(NULL, &probe, NULL) == 0) {
		*out = BACKEND_PMU;
		return EXIT_OK;
	}
	if (want_pmu) {
		msg_error("hardware counters are unavailable: %s", probe.msg[0] ? probe.msg : "no PMU");
		msg_hint("%s", probe.hint[0] ? probe.hint : "use '--backend=sim' for a simulated estimate");
		if (o->pmu_hint)
			msg_hint("%s", o->pmu_hint);
		return EXIT_ANALYSIS;
	}
	/* the probe's message says why already ("no hardware PMU is exposed to this machine (...)") */
	msg_note("%s: simulating with valgrind instead, every figure is an estimate",
		 probe.msg[0] ? probe.msg : "no hardware PMU here: hardware events do not open");
	*out = BACKEND_SIM;
	return EXIT_OK;
}

const char *backend_auto_name(void)
{
	struct cpu_probe probe;

	return cpu_probe_hw_events(NULL, &probe, NULL) == 0 ? "pmu" : "sim";
}

/* The preset this host's micro-architecture stands for (sim_machine_preset_for_uarch()), else NULL. */
static const char *host_preset(const char **uarch)
{
	struct cpu_info info;
	struct tdp_err err = TDP_ERR_INIT;
	const char *preset = NULL;

	*uarch = NULL;
	if (cpu_info_detect(&info, NULL, NULL, &err))
		return NULL;
	*uarch = info.uarch; /* static */
	preset = sim_machine_preset_for_uarch(info.uarch);
	cpu_info_release(&info);
	return preset;
}

int backend_sim_machine(const char *cmd, const char *spec, struct sim_machine *m)
{
	struct tdp_err err = TDP_ERR_INIT;
	static bool noted; /* selftest simulates six programs: one note */
	const char *env = getenv("TDPROF_SIM_MACHINE"), *uarch = NULL;
	bool from_env = !spec && env && *env;
	int ret;

	/* --sim-machine, else TDPROF_SIM_MACHINE, else the preset of this host's CPU, else generic */
	if (from_env)
		spec = env;
	if (!spec) {
		const char *preset = host_preset(&uarch);

		spec = preset ? preset : "generic";
		if (preset && !noted)
			msg_note("simulating the '%s' machine, the preset for this host's CPU (%s); --sim-machine "
				 "NAME chooses another", preset, uarch);
		noted = true;
	}
	ret = sim_machine_load(m, spec, &err);
	if (ret && from_env)
		tdp_err_prefix(&err, "TDPROF_SIM_MACHINE");

	if (!ret)
		return EXIT_OK;
	(void)cmd;
	msg_err(&err);
	return ret == TDP_EUSAGE ? EXIT_USAGE : exitcode_from_err(ret);
}

int backend_divert_stdout(bool divert)
{
	int saved;

	if (!divert)
		return -1;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		close(saved);
		saved = -1;
	}
	return saved;
}

void backend_restore_stdout(int saved)
{
	if (saved < 0)
		return;
	dup2(saved, STDOUT_FILENO);
	close(saved);
}

static void note_progress(const char *line)
{
	msg_progress("%s", line);
}

static void note_warning(const char *line, const char *hint)
{
	msg_warning("%s", line);
	if (hint)
		msg_hint("%s", hint);
}

static const struct measure_notify notify = { note_progress, note_warning };

/* The exit status of a run that failed with ret: 127 and 126 when the workload cannot be run. */
static int run_status(int ret)
{
	switch (ret) {
	case TDP_ENOCMD: return EXIT_NOTFOUND;
	case TDP_ENOEXEC: return EXIT_NOEXEC;
	default: return exitcode_from_err(ret);
	}
}

int backend_sim_run(char *const *argv, struct measure_sim *s)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct strbuf cmd = STRBUF_INIT;
	int saved = backend_divert_stdout(s->stdout_to_stderr), ret;

	strbuf_add_shell_words(&cmd, argv);
	/* the workload writes to the terminal meanwhile: the line keeps to the last row (progress.h) */
	progress_begin(true, "simulating %s under valgrind", strbuf_failed(&cmd) ? argv[0] : cmd.buf);
	ret = measure_sim_run(argv, getenv("PATH"), getenv("TMPDIR"), s, &notify, &err);
	progress_end();
	strbuf_release(&cmd);
	backend_restore_stdout(saved);
	if (!ret)
		return EXIT_OK;
	msg_err(&err);
	return ret == TDP_ENOCMD || ret == TDP_ENOEXEC ? run_status(ret) : EXIT_ANALYSIS;
}

int backend_pmu_run(char *const *argv, int level, struct measure_pmu *p)
{
	struct tdp_err err = TDP_ERR_INIT;
	int ret = measure_pmu_run(argv, level, p, &notify, &err);

	if (!ret)
		return EXIT_OK;
	msg_err(&err);
	if (ret == TDP_EUSAGE && p->no_model[0] && !p->allow_no_model) {
		msg_hint("use '--backend=sim' for a simulated estimate");
		return EXIT_USAGE;
	}
	return run_status(ret);
}

int backend_unknown_model(const char *name)
{
	const char *names[128];
	size_t nr, n = 0, idx[3], k;
	const struct model *const *all = model_all(&nr);

	for (size_t i = 0; i < nr && n < 128; i++) {
		names[n++] = all[i]->name;
		for (size_t a = 0; a < MODEL_MAX_ALIASES && all[i]->aliases[a] && n < 128; a++)
			names[n++] = all[i]->aliases[a];
	}
	msg_error("'%s' is not a top-down model", name);
	k = str_suggest(name, names, n, idx, 3);
	for (size_t i = 0; i < k; i++)
		msg_hint("did you mean '--cpu %s'?", model_find(names[idx[i]])->name);
	msg_hint("'tdprof list models' shows them all");
	return EXIT_USAGE;
}
