/* stat-text.c: perf stat's human layout, plus the triage block (see stat.h). */
#include "report/stat.h"
#include "report/palette.h"

#include <math.h>
#include <string.h>

#include "base/str.h"

/* perf stat 6.1's column widths (tools/perf/util/stat-display.c) */
#define COUNTS_LEN 18
#define UNIT_LEN 4
#define EVNAME_LEN 32
#define EVNAME_LEN_BAD 25
#define METRIC_LEN 35
#define INTERVAL_HEADER_EVERY 25

static const char not_counted[] = "<not counted>";
static const char not_supported[] = "<not supported>";

double stat_display_value(const struct count *c)
{
	return strcmp(c->unit, "msec") ? c->value : c->value / 1e6;
}

int stat_display_decimals(const struct count *c)
{
	return c->unit[0] ? 2 : 0;
}

/* One count line without its prefix and newline. elapsed_ns: for CPUs utilized. */
static void print_count_line(FILE *f, const struct countset *cs, size_t i, double elapsed_ns, unsigned runs)
{
	const struct count *c = &cs->v[i];
	char val[64];
	struct triage_annotation a;

	if (c->status == COUNT_OK)
		str_grouped_double(stat_display_value(c), stat_display_decimals(c), val, sizeof(val));
	else
		snprintf(val, sizeof(val), "%s", c->status == COUNT_NOT_SUPPORTED ? not_supported : not_counted);
	if (c->status != COUNT_OK) {
		/* perf 6.1 pads the name of a count it has no value for to 25, not 32 */
		fprintf(f, "%*s %-*s %-*s%-*s", COUNTS_LEN, val, UNIT_LEN, c->unit, EVNAME_LEN_BAD, c->name, METRIC_LEN,
			"");
		return;
	}
	fprintf(f, "%*s %-*s %-*s", COUNTS_LEN, val, UNIT_LEN, c->unit, EVNAME_LEN, c->name);
	triage_annotate(cs, i, elapsed_ns, &a);
	if (a.fmt) {
		char m[64];
		int n = snprintf(m, sizeof(m), a.fmt, a.value) + 3;

		fprintf(f, " # %s %-*s", m, METRIC_LEN - n - 1 > 0 ? METRIC_LEN - n - 1 : 0, a.unit);
	} else {
		fprintf(f, "%-*s", METRIC_LEN, "");
	}
	if (runs > 1 && c->stddev_pct > 0)
		fprintf(f, "  ( +-%6.2f%% )", c->stddev_pct);
	if (c->running_pct < 100.0)
		fprintf(f, "  (%.2f%%)", c->running_pct);
}

/* perf's precision for the elapsed time with -r: two digits beyond the spread's first. */
static int elapsed_precision(double sd)
{
	if (sd > 1 || sd <= 0)
		return 2;
	return (int)lround(ceil(-log10(sd))) + 2;
}

static void print_triage(FILE *f, const struct stat_report *r)
{
	const struct triage_metrics *m = r->metrics;
	const struct triage_verdict *v = r->verdict;
	char buf[512];
	bool any;

	if (!m || !v)
		return;
	any = !isnan(m->cpi) || !isnan(m->branch_mpki) || !isnan(m->l1i_mpki) || !isnan(m->llc_mpki) ||
	      !isnan(m->branch_miss_rate);
	if (any) {
		fputs(" triage:\n", f);
		if (!isnan(m->cpi))
			fprintf(f, "   %-18s %10.2f    (IPC %.2f)\n", "CPI", m->cpi, m->ipc);
		if (!isnan(m->branch_miss_rate))
			fprintf(f, "   %-18s %10.2f %%  of all branches\n", "branch-miss rate", m->branch_miss_rate);
		if (!isnan(m->branch_mpki))
			fprintf(f, "   %-18s %10.2f    mispredicts per 1000 instructions (high above %.0f)\n",
				"branch MPKI", m->branch_mpki, TRIAGE_BRANCH_MPKI_HIGH);
		if (!isnan(m->l1i_mpki))
			fprintf(f, "   %-18s %10.2f    L1i misses per 1000 instructions (high above %.0f)\n", "L1i MPKI",
				m->l1i_mpki, TRIAGE_L1I_MPKI_HIGH);
		if (!isnan(m->llc_mpki))
			fprintf(f, "   %-18s %10.2f    %s per 1000 instructions (high above %.0f)\n", "LLC MPKI",
				m->llc_mpki, m->llc_event ? m->llc_event : "LLC misses", TRIAGE_LLC_MPKI_HIGH);
		fputc('\n', f);
	}
	if (r->hw_note) {
		fprintf(f, " %s\n", r->hw_note);
		if (r->hw_hint)
			fprintf(f, " %s\n", r->hw_hint);
		fputc('\n', f);
	}
	if (v->next == TRIAGE_UNKNOWN)
		return;
	fprintf(f, " %snext: %s%s\n", pal_on(r->pal, PAL_VERDICT),
		(r->simulated ? triage_next_text_sim : triage_next_text)(v->next, r->command, buf, sizeof(buf)),
		pal_off(r->pal));
	fprintf(f, "       because %s\n", v->reason);
	for (size_t i = 0; i < v->nr_signals; i++)
		if (strcmp(v->signals[i].reason, v->reason))
			fprintf(f, "       also: %s\n", v->signals[i].reason);
	fputc('\n', f);
}

void stat_text_print(FILE *f, const struct stat_report *r)
{
	const struct countset *cs = r->counts;
	double elapsed = cs->elapsed_ns;

	fprintf(f, "\n Performance counter stats for %s", r->target ? r->target : "'?'");
	if (r->runs > 1)
		fprintf(f, " (%u runs)", r->runs);
	fputs(":\n\n", f);
	for (size_t i = 0; i < cs->nr; i++) {
		print_count_line(f, cs, i, elapsed, r->runs);
		fputc('\n', f);
	}
	fputc('\n', f);
	if (elapsed >= 0) {
		if (r->runs > 1) {
			double avg = elapsed / 1e9, sd = r->elapsed_stddev_ns / 1e9;
			int prec = elapsed_precision(sd);

			fprintf(f, " %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
			if (avg > 0 && sd > 0)
				fprintf(f, "  ( +-%6.2f%% )", 100.0 * sd / avg);
		} else {
			fprintf(f, " %17.9f seconds time elapsed", elapsed / 1e9);
			if (r->user_ns >= 0 && r->sys_ns >= 0) {
				fputs("\n\n", f);
				fprintf(f, " %17.9f seconds user\n", r->user_ns / 1e9);
				fprintf(f, " %17.9f seconds sys\n", r->sys_ns / 1e9);
			}
		}
		fputs("\n\n", f);
	}
	print_triage(f, r);
}

void stat_text_interval(FILE *f, const struct stat_interval *iv, size_t index)
{
	char prefix[40];

	if (index % INTERVAL_HEADER_EVERY == 0)
		fprintf(f, "#%*s %*s %*s events\n", 15, "time", COUNTS_LEN, "counts", UNIT_LEN, "unit");
	snprintf(prefix, sizeof(prefix), "%6llu.%09llu ", (unsigned long long)(iv->t_ns / 1000000000u),
		 (unsigned long long)(iv->t_ns % 1000000000u));
	for (size_t i = 0; i < iv->counts->nr; i++) {
		fputs(prefix, f);
		print_count_line(f, iv->counts, i, iv->len_ns, 1);
		fputc('\n', f);
	}
	fflush(f);
}
