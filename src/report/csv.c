/* csv.c: CSV fields with the user's separator (see csv.h). */
#include "report/csv.h"
#include "base/strbuf.h"

#include <math.h>

void csv_field(struct strbuf *sb, const char *s, const char *sep)
{
	strbuf_add_csv_field_sep(sb, s, sep);
}

void csv_number(struct strbuf *sb, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.*f", decimals, v);
}
