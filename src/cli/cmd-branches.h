/*
 * cmd-branches.h: the subcommands of `tdprof branches` (cmd-branches.c
 * dispatches): `record` (cmd-branches-record.c) and `report`
 * (cmd-branches-report.c). Each has the signature of a command (cmd.h) and is
 * called with argv[0] naming the subcommand.
 */
#ifndef TDPROF_CLI_CMD_BRANCHES_H
#define TDPROF_CLI_CMD_BRANCHES_H

struct tdp_ctx;

/** `tdprof branches record [opts] -o FILE -- CMD` (absent from builds without its file). */
int cmd_branches_record(int argc, char **argv, struct tdp_ctx *ctx);
extern const char cmd_branches_record_summary[];

/** `tdprof branches report -i FILE [opts]`. */
int cmd_branches_report(int argc, char **argv, struct tdp_ctx *ctx);
extern const char cmd_branches_report_summary[];

#endif
