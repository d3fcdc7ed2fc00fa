/*
 * cmd-skill.c: `tdprof skill`: print the skill file for coding assistants
 * (docs/SKILL.md, installed as share/tdprof/SKILL.md), so that an assistant that
 * can run shell commands learns how to drive tdprof from tdprof itself.
 *
 * Where the file is: beside this binary when it runs from its build tree (the
 * source tree's copy, so an edit shows without installing), else the installed
 * copy (../share/tdprof from the binary, which is PREFIX/share/tdprof unless the
 * install was moved, then PREFIX/share/tdprof), then the source tree's as a last resort.
 */
#include "cli/cmd.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "cli-paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char cmd_skill_summary[] = "print the skill file that tells a coding assistant how to use tdprof";

static const struct cmd_doc doc = {
	.name = "skill",
	.summary = cmd_skill_summary,
	.usage = "skill [-o FILE] [--path]",
	.description =
		"Prints SKILL.md, the instructions for AI coding assistants that drive tdprof through shell "
		"commands: when to use tdprof, the workflow as commands (why first; topdown, branches, loop, "
		"diff), how to read each JSON document, the thresholds and what each verdict asks to do next, "
		"the exit codes, and what needs a PMU.\n"
		"\n"
		"The file is installed as share/tdprof/SKILL.md; run from its build tree, tdprof prints the "
		"source tree's docs/SKILL.md instead. --path prints where the file is instead of its text.",
	.examples = "tdprof skill > .claude/skills/tdprof/SKILL.md\n"
		    "give an assistant's project the skill\n"
		    "tdprof skill --path\n"
		    "where the installed skill file is",
	.exit_status = "1 when the skill file is not found or cannot be read.",
	.see_also = "tdprof-why(1), tdprof-completion(1)",
};

/* Most bytes of SKILL.md read (it is a few KiB). */
#define SKILL_MAX_BYTES (1u << 20)

/* The directory of the running binary into dir (no trailing '/'); false when unknown. */
static bool exe_dir(char *dir, size_t size)
{
	const char *exe = tdp_exe_path();
	const char *slash = exe ? strrchr(exe, '/') : NULL;

	if (!slash || (size_t)(slash - exe) >= size)
		return false;
	memcpy(dir, exe, (size_t)(slash - exe));
	dir[slash - exe] = '\0';
	return true;
}

/* The candidates, in the order tried (see the top of the file); returns how many. */
static size_t skill_candidates(char paths[][4096], size_t max)
{
	char dir[4096];
	size_t n = 0;
	bool have_dir = exe_dir(dir, sizeof(dir));
	bool in_build = have_dir && !strcmp(dir, CLI_BUILD_ROOT);

	if (in_build && n < max)
		snprintf(paths[n++], 4096, "%s", CLI_SOURCE_SKILL);
	if (have_dir && n < max)
		snprintf(paths[n++], 4096, "%.3900s/../share/tdprof/SKILL.md", dir);
	if (n < max)
		snprintf(paths[n++], 4096, "%s", CLI_INSTALL_SKILL);
	if (!in_build && n < max)
		snprintf(paths[n++], 4096, "%s", CLI_SOURCE_SKILL);
	return n;
}

int cmd_skill(int argc, char **argv, struct tdp_ctx *ctx)
{
	const char *output = NULL;
	bool path_only = false;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &output, "FILE", "write the skill file to FILE instead of stdout"),
		OPT_BOOL(0, "path", &path_only, "print the skill file's path instead of its text"),
		OPT_END(),
	};
	char paths[4][4096];
	struct tdp_err err = TDP_ERR_INIT;
	char *text = NULL;
	size_t len = 0, n;
	int i, rc = EXIT_ANALYSIS, fd = -1;

	(void)ctx;
	i = opts_parse(opts, &doc, argc, argv);
	if (i < 0)
		return opts_exit(i);
	if (i < argc)
		return msg_usage("skill", "unexpected argument '%s'", argv[i]);
	n = skill_candidates(paths, 4);
	for (size_t k = 0; k < n && fd < 0; k++) {
		fd = open(paths[k], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (path_only) {
				char line[4200];
				int m = snprintf(line, sizeof(line), "%s\n", paths[k]);

				rc = output_write(output, line, (size_t)m);
			} else if (tdp_read_fd(fd, paths[k], SKILL_MAX_BYTES, &text, &len, &err)) {
				msg_err(&err);
			} else {
				rc = output_write(output, text, len);
			}
		}
	}
	if (fd < 0) {
		msg_error("the skill file is not installed: none of '%s' or '%s' can be read", CLI_INSTALL_SKILL,
			  CLI_SOURCE_SKILL);
		msg_hint("'meson install -C build' installs it; docs/SKILL.md in the source is the same text");
	} else {
		close(fd);
	}
	tdp_free(text);
	return rc;
}
