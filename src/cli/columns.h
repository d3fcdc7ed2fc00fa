/* columns.h: how wide the text output may be: COLUMNS, else the terminal's, else 80 (report/fit.h). */
#ifndef TDPROF_CLI_COLUMNS_H
#define TDPROF_CLI_COLUMNS_H

/**
 * The columns of stdout: $COLUMNS when it is a number from 20 to 1000, else the
 * terminal's width when stdout is one, else 0 (the renderers' default, 80).
 */
unsigned cli_columns(void);

#endif
