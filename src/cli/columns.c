/* columns.c: the width of the text output (see columns.h). */
#include "cli/columns.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

unsigned cli_columns(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && *env) {
		char *end = NULL;
		long v = strtol(env, &end, 10);

		if (end && !*end && v >= 20 && v <= 1000)
			return (unsigned)v;
	}
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 0;
}
