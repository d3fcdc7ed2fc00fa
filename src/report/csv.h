/*
 * csv.h: fields of the CSV renderers whose separator the user picks (-x SEP, as
 * perf stat): a field holding the separator, a quote or a line break is quoted,
 * its quotes doubled (RFC 4180); names from a recording or a binary are escaped
 * as names (strbuf_add_name(): control characters and bad UTF-8 as \xNN).
 */
#ifndef TDPROF_REPORT_CSV_H
#define TDPROF_REPORT_CSV_H

#include <stdint.h>

struct strbuf;

/** Append s (NULL: an empty field) as one field for separator sep (NULL: ","). */
void csv_field(struct strbuf *sb, const char *s, const char *sep);

/** Append a number with `decimals` places; NAN or an infinity is an empty field (unknown, never 0). */
void csv_number(struct strbuf *sb, double v, int decimals);

#endif
