/*
 * cmd-completion.c: `tdprof completion bash|zsh`: print a shell completion script
 * made from the commands' own option tables (see completion.h), as --help and the
 * man pages are. The build installs both (share/bash-completion/completions/tdprof,
 * share/zsh/site-functions/_tdprof).
 */
#include "cli/cmd.h"
#include "cli/completion.h"
#include "cli/exitcode.h"
#include "cli/msg.h"
#include "cli/opts.h"
#include "base/alloc.h"
#include "base/strbuf.h"
#include "model/model.h"
#include "sim/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SPEC_MAX (1u << 20) /* bytes of one command's spec */

const char cmd_completion_summary[] = "print a shell completion script (bash or zsh)";

static const struct cmd_doc doc = {
	.name = "completion",
	.summary = cmd_completion_summary,
	.usage = "completion bash|zsh",
	.description = "Prints a completion script for bash or zsh, made from the option tables of every "
		       "command (the same tables --help and the man pages come from): the commands and "
		       "subcommands, each command's options, and their values where they can be listed: "
		       "--format and the other choices, --cpu's models, --sim-machine's presets, the event "
		       "names of -e (asked of 'tdprof list events' when completing), files for -i, -o and "
		       "the other FILE options, the command after '--'.\n"
		       "\n"
		       "An installed tdprof has both in place (share/bash-completion/completions/tdprof and "
		       "share/zsh/site-functions/_tdprof); elsewhere, load one into the running shell.",
	.examples = "source <(tdprof completion bash)\n"
		    "complete tdprof's commands and options in this bash\n"
		    "tdprof completion zsh > ~/.zsh/functions/_tdprof\n"
		    "zsh: a directory of $fpath, then 'compinit'",
	.see_also = "tdprof(1), bash(1), zshcompsys(1)",
	.words = "bash|zsh",
};

struct command_entry {
	const char *name;
	cmd_fn *fn;
	const char *summary;
};

static const struct command_entry commands[] = {
#define CMD(name) { #name, cmd_##name, cmd_##name##_summary },
#include "commands.h"
#undef CMD
};

/* argv (NULL-ended) of fn, run in a child whose stdout is a pipe: what it printed into out. */
static int spec_of(cmd_fn *fn, char **argv, struct strbuf *out)
{
	int fd[2], status, argc = 0;
	pid_t pid;
	char buf[8192];
	ssize_t n;

	while (argv[argc])
		argc++;
	if (pipe2(fd, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		struct tdp_ctx ctx = { 0 };

		if (dup2(fd[1], STDOUT_FILENO) < 0)
			_exit(1);
		fn(argc, argv, &ctx);
		fflush(stdout);
		_exit(0);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && out->len + (size_t)n <= SPEC_MAX)
			strbuf_add(out, buf, (size_t)n);
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return strbuf_failed(out) ? -1 : 0;
}

static void copy(char *dst, size_t size, const char *src, size_t n)
{
	snprintf(dst, size, "%.*s", (int)n, src);
}

/* The value an option takes, from its kind and placeholder (opts.h's spec line). */
static enum comp_value value_of(const char *kind, const char *lname, const char *argh)
{
	if (!strcmp(kind, "flag") || !strcmp(kind, "count"))
		return COMP_NONE;
	if (!strcmp(kind, "choice"))
		return COMP_CHOICE;
	if (!strcmp(lname, "--event"))
		return COMP_EVENT;
	if (!strcmp(lname, "--sim-machine"))
		return COMP_MACHINE;
	if (!strcmp(argh, "MODEL"))
		return COMP_MODEL;
	if (!strcmp(argh, "FILE"))
		return COMP_FILE;
	if (!strcmp(argh, "DIR"))
		return COMP_DIR;
	return COMP_TYPED;
}

/* One "opt" line's fields (tab-separated, after "opt\t") into c's next option. */
static void parse_opt(struct comp_cmd *c, const char *line)
{
	const char *f[5];
	size_t len[5];
	char kind[16], argh[256];
	struct comp_opt *o;

	for (int i = 0; i < 5; i++) {
		f[i] = line;
		len[i] = i < 4 ? strcspn(line, "\t") : strlen(line);
		line += len[i] + (line[len[i]] == '\t');
	}
	if (c->nr_opts >= COMP_MAX_OPTS)
		return;
	o = &c->opts[c->nr_opts++];
	memset(o, 0, sizeof(*o));
	if (len[0] == 2)
		copy(o->short_name, sizeof(o->short_name), f[0], 2);
	if (len[1] > 2)
		copy(o->long_name, sizeof(o->long_name), f[1], len[1]);
	copy(kind, sizeof(kind), f[2], len[2]);
	copy(argh, sizeof(argh), f[3], len[3]);
	copy(o->help, sizeof(o->help), f[4], len[4]);
	o->value = value_of(kind, o->long_name, argh);
	if (o->value == COMP_CHOICE) {
		for (char *p = argh; *p; p++)
			if (*p == '|')
				*p = ' ';
		snprintf(o->choices, sizeof(o->choices), "%s", argh);
	}
}

/* The spec text of one command into c (its path and summary set by the caller). */
static void parse_spec(struct comp_cmd *c, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char line[1024];

		copy(line, sizeof(line), p, n);
		if (!strncmp(line, "opt\t", 4))
			parse_opt(c, line + 4);
		else if (!strncmp(line, "sub\t", 4) && c->nr_subs < COMP_MAX_WORDS && comp_word_ok(line + 4))
			copy(c->subs[c->nr_subs++], sizeof(c->subs[0]), line + 4, strlen(line + 4));
		else if (!strncmp(line, "word\t", 5) && c->nr_words < COMP_MAX_WORDS && comp_word_ok(line + 5))
			copy(c->words[c->nr_words++], sizeof(c->words[0]), line + 5, strlen(line + 5));
		p += n + (p[n] == '\n');
	}
}

/* Ask `name [sub] --completion-spec` and add it to set (then its subcommands). */
static int gather(struct comp_set *set, const struct command_entry *e, const char *sub)
{
	char spec_arg[] = "--completion-spec";
	char *argv[4] = { (char *)e->name, sub ? (char *)sub : spec_arg, sub ? spec_arg : NULL, NULL };
	struct strbuf text = STRBUF_INIT;
	struct comp_cmd *c;
	int ret = 0;

	if (set->nr_cmds >= COMP_MAX_COMMANDS)
		return 0;
	if (spec_of(e->fn, argv, &text)) {
		strbuf_release(&text);
		return -1;
	}
	c = &set->cmds[set->nr_cmds++];
	snprintf(c->path, sizeof(c->path), "%s%s%s", e->name, sub ? " " : "", sub ? sub : "");
	snprintf(c->summary, sizeof(c->summary), "%s", sub ? "" : e->summary);
	parse_spec(c, text.len ? text.buf : "");
	strbuf_release(&text);
	for (size_t i = 0; !sub && !ret && i < c->nr_subs; i++)
		ret = gather(set, e, c->subs[i]);
	return ret;
}

int comp_word_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("-_.,:+=/@%", *s)))
			return 0;
	return 1;
}

/* Every model name and alias, and the presets, as space-separated words. */
static void value_lists(struct strbuf *models, struct strbuf *presets)
{
	size_t nr;
	const struct model *const *m = model_all(&nr);
	const struct sim_machine_preset *p;

	for (size_t i = 0; i < nr; i++) {
		if (comp_word_ok(m[i]->name))
			strbuf_addf(models, "%s%s", models->len ? " " : "", m[i]->name);
		for (size_t k = 0; k < MODEL_MAX_ALIASES && m[i]->aliases[k]; k++)
			if (comp_word_ok(m[i]->aliases[k]))
				strbuf_addf(models, " %s", m[i]->aliases[k]);
	}
	p = sim_machine_presets(&nr);
	for (size_t i = 0; i < nr; i++)
		if (comp_word_ok(p[i].name))
			strbuf_addf(presets, "%s%s", presets->len ? " " : "", p[i].name);
}

int cmd_completion(int argc, char **argv, struct tdp_ctx *ctx)
{
	const struct opt opts[] = { OPT_END() };
	struct strbuf models = STRBUF_INIT, presets = STRBUF_INIT;
	struct comp_set *set = NULL;
	int i = opts_parse(opts, &doc, argc, argv), rc = EXIT_OK;

	(void)ctx;
	if (i < 0)
		return opts_exit(i);
	if (i != argc - 1 || (strcmp(argv[i], "bash") && strcmp(argv[i], "zsh")))
		return msg_usage("completion", "give the shell: 'tdprof completion bash' or 'tdprof completion zsh'");
	set = tdp_calloc(1, sizeof(*set));
	if (!set) {
		msg_error("out of memory");
		return EXIT_ANALYSIS;
	}
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (gather(set, &commands[k], NULL)) {
			msg_error("cannot read the options of 'tdprof %s': %s", commands[k].name, strerror(errno));
			rc = EXIT_ANALYSIS;
			goto out;
		}
	value_lists(&models, &presets);
	set->models = strbuf_failed(&models) ? "" : models.len ? models.buf : "";
	set->presets = strbuf_failed(&presets) ? "" : presets.len ? presets.buf : "";
	if (!strcmp(argv[i], "bash"))
		completion_bash(stdout, set);
	else
		completion_zsh(stdout, set);
	if (fflush(stdout) || ferror(stdout)) {
		msg_error("cannot write the completion script: %s", strerror(errno));
		rc = EXIT_ANALYSIS;
	}
out:
	strbuf_release(&models);
	strbuf_release(&presets);
	tdp_free(set);
	return rc;
}
