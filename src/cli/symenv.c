/* symenv.c: the environment's part in finding symbols (see symenv.h). */
#include "cli/symenv.h"
#include "cli/msg.h"
#include "base/path.h"

#include <stdlib.h>
#include <unistd.h>

extern char **environ;

char *symenv_debuginfod(char *const **envp)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *client = NULL;

	*envp = NULL;
	if (!urls || !*urls)
		return NULL;
	if (tdp_find_program("debuginfod-find", getenv("PATH"), &client) || !client) {
		msg_warning("DEBUGINFOD_URLS is set but libdebuginfod's client 'debuginfod-find' is not installed: "
			    "missing debug info is not fetched");
		msg_hint("sudo apt-get install debuginfod (Debian, Ubuntu), or elfutils-debuginfod-client (Fedora)");
		return NULL;
	}
	*envp = environ;
	return client;
}
