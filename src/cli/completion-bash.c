/*
 * completion-bash.c: the bash completion script of `tdprof completion bash` (see
 * completion.h). The commands' options and values are data here, printed from
 * the specs; the functions that walk the command line are fixed text. zsh runs the
 * same functions through its bashcompinit (completion-zsh.c).
 */
#include "cli/completion.h"

#include <stdbool.h>
#include <string.h>

/* The walk of the command line: global options, the command, its subcommand, its options, '--'. */
static const char walk[] =
	"_tdprof_files()\n"
	"{\n"
	"\tcompopt -o filenames 2>/dev/null\n"
	"\tCOMPREPLY=($(compgen -f -- \"$1\"))\n"
	"}\n"
	"\n"
	"_tdprof_dirs()\n"
	"{\n"
	"\tcompopt -o filenames 2>/dev/null\n"
	"\tCOMPREPLY=($(compgen -d -- \"$1\"))\n"
	"}\n"
	"\n"
	"# -e's events: the names 'tdprof list events' prints on this machine (asked once\n"
	"# per shell, of the tdprof being completed, $2), the last item of a comma list.\n"
	"_tdprof_events()\n"
	"{\n"
	"\tlocal pre= cur=\"$1\" name rest\n"
	"\tif [ -z \"${_tdprof_event_names+set}\" ]; then\n"
	"\t\t_tdprof_event_names=\n"
	"\t\twhile read -r name rest; do\n"
	"\t\t\t_tdprof_event_names=\"$_tdprof_event_names $name\"\n"
	"\t\tdone < <(command \"$2\" list events 2>/dev/null)\n"
	"\tfi\n"
	"\tcase \"$cur\" in *,*) pre=\"${cur%,*},\"; cur=\"${cur##*,}\" ;; esac\n"
	"\tCOMPREPLY=($(compgen -P \"$pre\" -W \"$_tdprof_event_names\" -- \"$cur\"))\n"
	"}\n"
	"\n"
	"# The command to run after '--' (word $1): its own completion where bash-completion\n"
	"# has one (not in zsh, whose declare -F is not bash's), else a command name, then files.\n"
	"_tdprof_command()\n"
	"{\n"
	"\tif [ -n \"${BASH_VERSION-}\" ] && declare -F _command_offset >/dev/null; then\n"
	"\t\t_command_offset \"$1\"\n"
	"\telif [ \"$1\" -eq \"$COMP_CWORD\" ]; then\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tCOMPREPLY=($(compgen -c -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
	"\telse\n"
	"\t\t_tdprof_files \"$cur\"\n"
	"\tfi\n"
	"}\n"
	"\n"
	"_tdprof_main()\n"
	"{\n"
	"\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\" prev= i=1 w cpath opt nwords=0\n"
	"\tCOMPREPLY=()\n"
	"\t[ \"$COMP_CWORD\" -gt 0 ] && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
	"\t# (no variable is named path or words: zsh, through bashcompinit, has its own)\n"
	"\t# global options before the command ('=' and its value: --color=WHEN, split by bash)\n"
	"\twhile [ $i -lt $COMP_CWORD ]; do\n"
	"\t\tcase \"${COMP_WORDS[i]}\" in\n"
	"\t\t=) i=$((i+2)) ;;\n"
	"\t\t-*) i=$((i+1)) ;;\n"
	"\t\t*) break ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\tif [ $i -ge $COMP_CWORD ]; then\n"
	"\t\tif [ \"$cur\" = = ] || [ \"$prev\" = = ]; then\n"
	"\t\t\t[ \"$cur\" = = ] && cur=\n"
	"\t\t\tCOMPREPLY=($(compgen -W 'auto always never' -- \"$cur\"))\n"
	"\t\telif [[ \"$cur\" == -* ]]; then\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"$_tdprof_globals\" -- \"$cur\"))\n"
	"\t\telse\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"$_tdprof_commands\" -- \"$cur\"))\n"
	"\t\tfi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tcpath=\"${COMP_WORDS[i]}\"\n"
	"\ti=$((i+1))\n"
	"\tif [ \"$cpath\" = help ]; then\n"
	"\t\tif [ $i -eq $COMP_CWORD ]; then\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"$_tdprof_commands\" -- \"$cur\"))\n"
	"\t\telif [ $((i+1)) -eq $COMP_CWORD ] && _tdprof_spec \"${COMP_WORDS[i]}\"; then\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"$_tdprof_subs\" -- \"$cur\"))\n"
	"\t\tfi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\t_tdprof_spec \"$cpath\" || return 0\n"
	"\tif [ -n \"$_tdprof_subs\" ]; then\n"
	"\t\twhile [ $i -lt $COMP_CWORD ] && [[ \"${COMP_WORDS[i]}\" == -* ]]; do i=$((i+1)); done\n"
	"\t\tif [ $i -ge $COMP_CWORD ]; then\n"
	"\t\t\tif [[ \"$cur\" == -* ]]; then\n"
	"\t\t\t\tCOMPREPLY=($(compgen -W \"$_tdprof_opts\" -- \"$cur\"))\n"
	"\t\t\telse\n"
	"\t\t\t\tCOMPREPLY=($(compgen -W \"$_tdprof_subs\" -- \"$cur\"))\n"
	"\t\t\tfi\n"
	"\t\t\treturn 0\n"
	"\t\tfi\n"
	"\t\tcpath=\"$cpath ${COMP_WORDS[i]}\"\n"
	"\t\ti=$((i+1))\n"
	"\t\t_tdprof_spec \"$cpath\" || return 0\n"
	"\tfi\n"
	"\t# the words before the cursor: an option's value is skipped, '--' starts the command to run\n"
	"\twhile [ $i -lt $COMP_CWORD ]; do\n"
	"\t\tw=\"${COMP_WORDS[i]}\"\n"
	"\t\tcase \"$w\" in\n"
	"\t\t--) _tdprof_command $((i+1)); return 0 ;;\n"
	"\t\t=) i=$((i+1)) ;;\n"
	"\t\t-*) if [[ \"$_tdprof_args\" == *\" $w \"* ]] && [ \"${COMP_WORDS[i+1]}\" != = ]; then i=$((i+1)); fi ;;\n"
	"\t\t*) nwords=$((nwords+1)) ;;\n"
	"\t\tesac\n"
	"\t\ti=$((i+1))\n"
	"\tdone\n"
	"\topt=\n"
	"\tif [ \"$cur\" = = ]; then\n"
	"\t\topt=\"$prev\"\n"
	"\t\tcur=\n"
	"\telif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
	"\t\topt=\"${COMP_WORDS[COMP_CWORD-2]}\"\n"
	"\telif [[ \"$_tdprof_args\" == *\" $prev \"* ]]; then\n"
	"\t\topt=\"$prev\"\n"
	"\tfi\n"
	"\tif [ -n \"$opt\" ]; then\n"
	"\t\t_tdprof_value \"$cpath\" \"$opt\" \"$cur\" \"${COMP_WORDS[0]}\"\n"
	"\telif [[ \"$cur\" == -* ]]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$_tdprof_opts\" -- \"$cur\"))\n"
	"\telif [ $nwords -eq 0 ] && [ -n \"$_tdprof_words\" ]; then\n"
	"\t\tCOMPREPLY=($(compgen -W \"$_tdprof_words\" -- \"$cur\"))\n"
	"\telse\n"
	"\t\t_tdprof_files \"$cur\"\n"
	"\tfi\n"
	"\treturn 0\n"
	"}\n";

static const char *value_call[] = {
	[COMP_FILE] = "_tdprof_files \"$3\"",
	[COMP_DIR] = "_tdprof_dirs \"$3\"",
	[COMP_EVENT] = "_tdprof_events \"$3\" \"$4\"",
	[COMP_MODEL] = "COMPREPLY=($(compgen -W \"$_tdprof_models\" -- \"$3\"))",
	[COMP_MACHINE] = "COMPREPLY=($(compgen -W \"$_tdprof_presets\" -- \"$3\") $(compgen -f -- \"$3\"))",
};

/* "'stat -e'|'stat --event')" and what completes it, for an option with a value to offer. */
static void value_case(FILE *out, const struct comp_cmd *c, const struct comp_opt *o)
{
	if (o->value == COMP_NONE || o->value == COMP_TYPED)
		return;
	fputc('\t', out);
	if (o->short_name[0])
		fprintf(out, "'%s %s'%s", c->path, o->short_name, o->long_name[0] ? "|" : "");
	if (o->long_name[0])
		fprintf(out, "'%s %s'", c->path, o->long_name);
	fputs(")\n\t\t", out);
	if (o->value == COMP_CHOICE)
		fprintf(out, "COMPREPLY=($(compgen -W '%s' -- \"$3\"))", o->choices);
	else
		fputs(value_call[o->value], out);
	fputs(" ;;\n", out);
}

/* A path or option is written between single quotes: only what comp_word_ok() lets through. */
static bool names_ok(const struct comp_cmd *c, const struct comp_opt *o)
{
	char path[64];

	snprintf(path, sizeof(path), "%s", c->path);
	for (char *p = path; *p; p++)
		if (*p == ' ')
			*p = '_';
	if (!comp_word_ok(path))
		return false;
	if (!o)
		return true;
	if ((o->short_name[0] && !comp_word_ok(o->short_name)) || (o->long_name[0] && !comp_word_ok(o->long_name)))
		return false;
	if (o->value != COMP_CHOICE)
		return true;
	for (const char *p = o->choices; *p; p++)
		if (*p != ' ' && !comp_word_ok((char[2]){ *p, 0 }))
			return false;
	return true;
}

static void spec_case(FILE *out, const struct comp_cmd *c)
{
	fprintf(out, "\t'%s')\n\t\t_tdprof_opts='", c->path);
	for (size_t i = 0; i < c->nr_opts; i++) {
		const struct comp_opt *o = &c->opts[i];

		if (names_ok(c, o))
			fprintf(out, "%s%s%s%s", i ? " " : "", o->short_name, o->short_name[0] && o->long_name[0] ? " " : "",
				o->long_name);
	}
	fputs("'\n\t\t_tdprof_args=' ", out);
	for (size_t i = 0; i < c->nr_opts; i++) {
		const struct comp_opt *o = &c->opts[i];

		if (o->value != COMP_NONE && names_ok(c, o))
			fprintf(out, "%s%s%s ", o->short_name, o->short_name[0] && o->long_name[0] ? " " : "", o->long_name);
	}
	fputs("'\n\t\t_tdprof_subs='", out);
	for (size_t i = 0; i < c->nr_subs; i++)
		fprintf(out, "%s%s", i ? " " : "", c->subs[i]);
	fputs("'\n\t\t_tdprof_words='", out);
	for (size_t i = 0; i < c->nr_words; i++)
		fprintf(out, "%s%s", i ? " " : "", c->words[i]);
	fputs("' ;;\n", out);
}

void completion_bash_body(FILE *out, const struct comp_set *set)
{
	fputs("_tdprof_commands='", out);
	for (size_t i = 0; i < set->nr_cmds; i++)
		if (!strchr(set->cmds[i].path, ' ') && names_ok(&set->cmds[i], NULL))
			fprintf(out, "%s ", set->cmds[i].path);
	fputs("help'\n", out);
	fputs("_tdprof_globals='--help --version --quiet -q --verbose -v --color --colour --no-color'\n", out);
	fprintf(out, "_tdprof_models='%s'\n_tdprof_presets='%s'\n\n", set->models, set->presets);
	fputs("# The options of a command path ('stat', 'branches record') in _tdprof_opts, those\n"
	      "# taking a value in _tdprof_args, its subcommands and its first words; 1: none such.\n"
	      "_tdprof_spec()\n{\n\tcase \"$1\" in\n",
	      out);
	for (size_t i = 0; i < set->nr_cmds; i++)
		if (names_ok(&set->cmds[i], NULL))
			spec_case(out, &set->cmds[i]);
	fputs("\t*) return 1 ;;\n\tesac\n\treturn 0\n}\n\n", out);
	fputs("# The value of option $2 of command path $1, completing $3 ($4: the tdprof completed).\n"
	      "_tdprof_value()\n{\n\tcase \"$1 $2\" in\n",
	      out);
	for (size_t i = 0; i < set->nr_cmds; i++)
		for (size_t k = 0; k < set->cmds[i].nr_opts; k++)
			if (names_ok(&set->cmds[i], &set->cmds[i].opts[k]))
				value_case(out, &set->cmds[i], &set->cmds[i].opts[k]);
	fputs("\t*) COMPREPLY=() ;;\n\tesac\n}\n\n", out);
	fputs(walk, out);
}

void completion_bash(FILE *out, const struct comp_set *set)
{
	fputs("# bash completion for tdprof                               -*- shell-script -*-\n"
	      "# Generated by 'tdprof completion bash' from tdprof's option tables: do not edit.\n"
	      "# Installed as share/bash-completion/completions/tdprof; or, in one shell:\n"
	      "#   source <(tdprof completion bash)\n\n",
	      out);
	completion_bash_body(out, set);
	fputs("\ncomplete -F _tdprof_main tdprof\n", out);
}
