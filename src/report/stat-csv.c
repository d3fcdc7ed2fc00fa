/* stat-csv.c: perf stat's -x SEP layout, byte for byte (see stat.h). */
#include "report/stat.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

/*
 * perf 6.1 prints pcnt-running as 100 * run / ena computed in integers (u64), so a
 * multiplexed count shows "75.00", never "75.43"; readers of our CSV expect the same.
 */
static double csv_running_pct(const struct count *c)
{
	if (c->enabled_ns && c->running_ns != c->enabled_ns)
		return (double)(100u * c->running_ns / c->enabled_ns);
	if (c->enabled_ns == 0 && c->running_pct >= 0 && c->running_pct < 100 && c->status == COUNT_OK)
		return floor(c->running_pct);
	return 100.0;
}

/* The metric as perf's CSV prints it: the formatted number without padding or '%'. */
static void csv_metric(FILE *f, const struct countset *cs, size_t i, double elapsed_ns, const char *sep)
{
	struct triage_annotation a;
	char buf[64], *v, *end;

	triage_annotate(cs, i, elapsed_ns, &a);
	if (!a.fmt) {
		fprintf(f, "%s%s", sep, sep);
		return;
	}
	snprintf(buf, sizeof(buf), a.fmt, a.value);
	v = buf;
	while (*v == ' ')
		v++;
	end = v;
	while (isdigit((unsigned char)*end) || *end == '.')
		end++;
	*end = '\0';
	fprintf(f, "%s%s%s%s", sep, v, sep, a.unit);
}

/* One line; t_ns non-NULL: an interval line, prefixed with its space-padded timestamp. */
static void csv_line(FILE *f, const uint64_t *t_ns, const struct countset *cs, size_t i, double elapsed_ns,
		     unsigned runs, const char *sep)
{
	const struct count *c = &cs->v[i];

	if (t_ns)
		fprintf(f, "%6llu.%09llu%s", (unsigned long long)(*t_ns / 1000000000u),
			(unsigned long long)(*t_ns % 1000000000u), sep);
	if (c->status == COUNT_OK)
		fprintf(f, "%.*f%s", stat_display_decimals(c), stat_display_value(c), sep);
	else
		fprintf(f, "%s%s", c->status == COUNT_NOT_SUPPORTED ? "<not supported>" : "<not counted>", sep);
	fprintf(f, "%s%s%s", c->unit, sep, c->name);
	if (runs > 1)
		fprintf(f, "%s%.2f%%", sep, c->status == COUNT_OK && c->stddev_pct > 0 ? c->stddev_pct : 0.0);
	fprintf(f, "%s%llu%s%.2f", sep, (unsigned long long)(c->status == COUNT_OK ? c->running_ns : 0), sep,
		c->status == COUNT_OK ? csv_running_pct(c) : 100.0);
	if (c->status == COUNT_OK)
		csv_metric(f, cs, i, elapsed_ns, sep);
	else
		fprintf(f, "%s%s", sep, sep);
	fputc('\n', f);
}

void stat_csv_print(FILE *f, const struct countset *cs, unsigned runs, const char *sep)
{
	for (size_t i = 0; i < cs->nr; i++)
		csv_line(f, NULL, cs, i, cs->elapsed_ns, runs, sep);
}

void stat_csv_interval(FILE *f, const struct stat_interval *iv, const char *sep)
{
	for (size_t i = 0; i < iv->counts->nr; i++)
		csv_line(f, &iv->t_ns, iv->counts, i, iv->len_ns, 1, sep);
	fflush(f);
}
