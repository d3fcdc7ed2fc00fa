/*
 * why-csv.c: `tdprof why --csv` (or -x SEP): the findings, ranked, one row each:
 *
 *   rank,title,category,node,share_pct,file,line,function,evidence,fix
 *
 * category is the level-1 key the finding belongs to, node the knowledge-base
 * node of its fix ('tdprof explain NODE'); share_pct the percent of slots it
 * accounts for, empty when unknown; file, line and function where it is, empty
 * when it has no site. An estimate (simulated) says so in every row's evidence,
 * as the text does.
 */
#include "report/why.h"
#include "base/strbuf.h"
#include "report/csv.h"

#include <inttypes.h>

void why_csv(struct strbuf *sb, const struct why_report *r)
{
	const char *sep = r->csv_sep && *r->csv_sep ? r->csv_sep : ",";
	const char *cols[] = { "rank", "title", "category", "node", "share_pct", "file",
			       "line", "function", "evidence", "fix" };
	const struct diag *d = r->d;

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		strbuf_addf(sb, "%s%s", i ? sep : "", cols[i]);
	strbuf_addch(sb, '\n');
	for (size_t i = 0; i < d->nr_findings; i++) {
		const struct diag_finding *f = &d->findings[i];

		strbuf_addf(sb, "%zu%s", i + 1, sep);
		csv_field(sb, f->title, sep);
		strbuf_adds(sb, sep);
		csv_field(sb, f->category, sep);
		strbuf_adds(sb, sep);
		csv_field(sb, f->node, sep);
		strbuf_adds(sb, sep);
		csv_number(sb, f->share, 2);
		strbuf_adds(sb, sep);
		csv_field(sb, f->file, sep);
		strbuf_adds(sb, sep);
		if (f->line)
			strbuf_addf(sb, "%" PRIu64, f->line);
		strbuf_adds(sb, sep);
		csv_field(sb, f->function, sep);
		strbuf_adds(sb, sep);
		csv_field(sb, f->evidence, sep);
		strbuf_adds(sb, sep);
		csv_field(sb, f->fix, sep);
		strbuf_addch(sb, '\n');
	}
}
