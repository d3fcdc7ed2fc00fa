/* backend.c: --backend selection and the simulated run of a workload (see backend.h). */
#include "cli/backend.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cpu/cpu.h"

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
			return msg_usage(cmd, "the simulation runs a command with the default events: it cannot "
					      "watch a running process, CPUs or custom events ('-e')");
		*out = BACKEND_SIM;
		return EXIT_OK;
	}
	want_pmu = !strcmp(choice, "pmu");
	if (!want_pmu && strcmp(choice, "auto"))
		return msg_usage(cmd, "unknown backend '%s' (auto, pmu, sim or import)", choice);
	if (cpu_probe_hw_events(NULL, &probe, NULL) == 0) {
		*out = BACKEND_PMU;
		return EXIT_OK;
	}
	if (want_pmu) {
		msg_error("hardware counters are unavailable: %s", probe.msg[0] ? probe.msg : "no PMU");
		msg_hint("%s", probe.hint[0] ? probe.hint : "use '--backend=sim' for a simulated estimate");
		return EXIT_ANALYSIS;
	}
	if (o->auto_pmu || !o->can_sim) {
		*out = BACKEND_PMU;
		return EXIT_OK;
	}
	msg_note("no hardware PMU here (%s): simulating with valgrind instead, every figure is an estimate",
		 probe.msg[0] ? probe.msg : "hardware events do not open");
	*out = BACKEND_SIM;
	return EXIT_OK;
}

void backend_sim_init(struct backend_sim *s)
{
	memset(s, 0, sizeof(*s));
	sim_profile_init(&s->profile);
	if (sim_machine_preset(&s->machine, "generic", NULL))
		memset(&s->machine, 0, sizeof(s->machine));
}

void backend_sim_release(struct backend_sim *s)
{
	sim_profile_release(&s->profile);
	s->have_est = false;
}

int backend_sim_machine(const char *cmd, const char *spec, struct sim_machine *m)
{
	struct tdp_err err = TDP_ERR_INIT;
	int ret = sim_machine_load(m, spec ? spec : "generic", &err);

	if (!ret)
		return EXIT_OK;
	(void)cmd;
	msg_err(&err);
	return ret == TDP_EUSAGE ? EXIT_USAGE : exitcode_from_err(ret);
}

void backend_join_command(struct strbuf *sb, char *const *argv)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:=,@%";

	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];

		if (i)
			strbuf_addch(sb, ' ');
		if (*a && strspn(a, safe) == strlen(a)) {
			strbuf_adds(sb, a);
			continue;
		}
		strbuf_addch(sb, '\'');
		for (; *a; a++)
			if (*a == '\'')
				strbuf_adds(sb, "'\\''");
			else
				strbuf_addch(sb, *a);
		strbuf_addch(sb, '\'');
	}
}

int backend_sim_run(char *const *argv, struct backend_sim *s)
{
	struct sim_run_opts o = SIM_RUN_OPTS_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int ret;

	o.argv = argv;
	o.machine = &s->machine;
	o.path = getenv("PATH");
	o.tmpdir = getenv("TMPDIR");
	sim_machine_describe(&s->machine, s->machine_desc, sizeof(s->machine_desc));
	msg_progress("simulating '%s' under valgrind (cachegrind, machine %s): expect 20-100x its normal run time",
		     argv[0], s->machine.name);
	ret = sim_run(&o, &s->profile, &s->run, &err);
	if (ret) {
		msg_err(&err);
		switch (ret) {
		case TDP_ENOCMD: return EXIT_NOTFOUND;
		case TDP_ENOEXEC: return EXIT_NOEXEC;
		default: return EXIT_ANALYSIS;
		}
	}
	msg_progress("simulation done in %.1f s", s->run.wall_ns / 1e9);
	ret = sim_estimate(&s->profile, &s->machine, &s->est, &err);
	if (ret) {
		msg_warning("no estimate: %s", err.msg);
		if (err.hint[0])
			msg_hint("%s", err.hint);
		return EXIT_OK;
	}
	s->have_est = true;
	return EXIT_OK;
}
