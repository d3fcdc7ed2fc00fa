/*
 * samples-folded.c: plain samples as folded stacks and as CSV (samples.h).
 */
#include "report/samples.h"
#include "base/strbuf.h"

#include <inttypes.h>
#include <string.h>

/* A frame of a folded line: ';' separates frames and a newline ends the line, so neither may appear. */
static void frame(struct strbuf *sb, const char *s)
{
	size_t at = sb->len;

	strbuf_add_name(sb, s);
	for (size_t i = at; !strbuf_failed(sb) && i < sb->len; i++)
		if (sb->buf[i] == ';')
			sb->buf[i] = ':';
}

void report_samples_folded(struct strbuf *out, const struct samples_report *r)
{
	for (size_t i = 0; i < r->res->nr_stacks; i++) {
		const struct ips_stack *s = &r->res->stacks[i];

		frame(out, s->comm);
		for (size_t k = 0; k < s->nr_frames; k++) {
			strbuf_addch(out, ';');
			frame(out, s->frames[k]);
		}
		strbuf_addf(out, " %" PRIu64 "\n", s->samples);
	}
}

void report_samples_csv(struct strbuf *out, const struct samples_report *r)
{
	strbuf_adds(out, "symbol,function,dso,self,self_share,total,total_share\n");
	for (size_t i = 0; i < r->res->nr_functions; i++) {
		const struct ips_function *f = &r->res->functions[i];

		strbuf_add_csv_field(out, f->perf_text);
		strbuf_addch(out, ',');
		strbuf_add_csv_field(out, f->function);
		strbuf_addch(out, ',');
		strbuf_add_csv_field(out, f->dso);
		strbuf_addf(out, ",%" PRIu64 ",%.6f,%" PRIu64 ",%.6f\n", f->self, f->self_share, f->total, f->total_share);
	}
}
