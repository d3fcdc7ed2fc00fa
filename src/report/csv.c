/* csv.c: CSV fields with the user's separator (see csv.h). */
#include "report/csv.h"
#include "base/strbuf.h"

#include <math.h>
#include <string.h>

void csv_field(struct strbuf *sb, const char *s, const char *sep)
{
	struct strbuf t = STRBUF_INIT;
	const char *v;

	if (!s)
		return;
	if (!sep || !*sep)
		sep = ",";
	strbuf_add_name(&t, s);
	v = strbuf_failed(&t) ? "" : t.buf;
	if (!strstr(v, sep) && !strpbrk(v, "\"\r\n")) {
		strbuf_adds(sb, v);
	} else {
		strbuf_addch(sb, '"');
		for (; *v; v++) {
			if (*v == '"')
				strbuf_addch(sb, '"');
			strbuf_addch(sb, *v);
		}
		strbuf_addch(sb, '"');
	}
	strbuf_release(&t);
}

void csv_number(struct strbuf *sb, double v, int decimals)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.*f", decimals, v);
}
