/*
 * symenv.h: what the environment says about where symbols come from, read here
 * (cli/) and passed down in symbol_opts (symbol/symbol.h): DEBUGINFOD_URLS (the
 * servers libdebuginfod's client fetches missing debug info from; unset or empty:
 * never asked, no network).
 */
#ifndef TDPROF_CLI_SYMENV_H
#define TDPROF_CLI_SYMENV_H

/**
 * The debuginfod client to run when DEBUGINFOD_URLS is set and not empty
 * (debuginfod-find found in PATH; heap, tdp_free), with *envp the
 * environment it is given (this process's); NULL when it is not set. When it is
 * set and the client is missing, a warning says how to install it (once).
 */
char *symenv_debuginfod(char *const **envp);

#endif
