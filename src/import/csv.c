/*
 * csv.c: `perf stat -x<SEP>` output (perf-stat(1), CSV FORMAT; perf 6.1's
 * stat-display.c). One count per line:
 *
 *   [interval SEP][aggr-id SEP [nr SEP]] value SEP unit SEP event SEP
 *       [variance SEP] [cgroup SEP] run-time SEP pcnt-running SEP metric-value SEP metric-unit
 *
 * and one more line per extra metric of the same event, whose value, unit and
 * event fields are empty. The prefix (interval timestamp, space-padded; the -A,
 * --per-thread or --per-core/socket/die/node id; the number of CPUs aggregated)
 * is recognised from the first count row and must stay the same after it.
 * perf does not quote fields: an event like `cpu/event=0x1a0,cmask=0x6/` spans
 * several fields when the separator is ',', and is joined back here.
 */
#include "import/import-internal.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <string.h>

/* perf prints 6 to 12 fields; anything past this is not perf stat output. */
#define CSV_MAX_FIELDS 64

static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

static bool is_value(const char *s)
{
	double v;

	return imp_is_not_marker(s) || imp_parse_decimal(s, false, &v);
}

static bool is_unit(const char *s)
{
	double v;

	return strlen(s) <= 32 && !strchr(s, ' ') && !strchr(s, '\t') && !imp_parse_decimal(s, true, &v);
}

static bool is_event(const char *s)
{
	double v;

	return s[0] && s[0] != ' ' && s[0] != '\t' && !imp_parse_decimal(s, true, &v) && !imp_is_not_marker(s);
}

/* True when f[0..n) is a count row with `p` fields before the value. */
static bool layout_ok(char **f, size_t n, size_t p)
{
	bool ok = p + 3 <= n && is_value(f[p]) && is_unit(f[p + 1]) && is_event(f[p + 2]);

	for (size_t i = 0; ok && i < p; i++) {
		const char *s = f[i];

		while (*s == ' ')
			s++;
		ok = *s != '\0';
	}
	return ok;
}

int imp_csv_layout(char **f, size_t n)
{
	for (size_t p = 0; p <= 3; p++)
		if (layout_ok(f, n, p))
			return (int)p;
	return -1;
}

static size_t count_char(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/*
 * Join f[i] with the fields after it while it holds an unclosed `pmu/.../` or
 * `pmu@...@` term: the separator inside it was perf's, not a field boundary.
 * The fields are consecutive in the line, so joining puts the separator back.
 */
static size_t join_event(char **f, size_t n, size_t i, char sep)
{
	while (i + 1 < n && (count_char(f[i], '/') % 2 || count_char(f[i], '@') % 2)) {
		f[i][strlen(f[i])] = sep;
		memmove(&f[i + 1], &f[i + 2], (n - i - 2) * sizeof(*f));
		n--;
	}
	return n;
}

static bool is_variance(const char *s)
{
	size_t n = strlen(s);
	double v;

	return n >= 2 && s[n - 1] == '%' && imp_parse_pct(s, &v);
}

struct csv_layout {
	int prefix;        /* fields before the value; -1 until the first count row */
	bool has_interval; /* the first prefix field is the -I timestamp */
	bool has_times;    /* the first count row had run-time and pcnt-running fields */
	size_t first_line; /* line that set the layout */
};

static int parse_row(struct imp_parser *p, struct csv_layout *lay, char **f, size_t n, char sep,
		     struct strbuf *slice)
{
	struct imp_row row = { 0 };
	size_t pre = (size_t)lay->prefix, i;
	uint64_t tmp;
	char *value;

	row.pct = -1;
	row.stddev = -1;
	row.interval = -1;
	strbuf_reset(slice);
	for (i = 0; i < pre; i++) {
		char *s = trim(f[i]);

		if (i == 0 && lay->has_interval) {
			if (!imp_parse_decimal(s, false, &row.interval))
				return imp_fail(p, TDP_EFORMAT, "interval '%s' is not a number", s);
		}
		/* The CPU count of --per-core/--per-socket is not part of the id. */
		if (i == pre - 1 && pre - (lay->has_interval ? 1 : 0) == 2)
			break;
		strbuf_adds(slice, s);
		strbuf_addch(slice, '\x1f');
	}
	value = f[pre];
	n = join_event(f, n, pre + 2, sep);
	row.unit = f[pre + 1];
	row.event = f[pre + 2];
	if (imp_is_not_marker(value)) {
		row.status = imp_not_status(value);
	} else if (!imp_parse_decimal(value, false, &row.value)) {
		return imp_fail(p, TDP_EFORMAT, "count '%s' of '%s' is not a number", value, row.event);
	}
	i = pre + 3;
	if (i < n && is_variance(f[i]))
		imp_parse_pct(f[i++], &row.stddev);
	/* -G: the cgroup name comes after the event, before the run time. */
	if (i + 1 < n && f[i][0] && !imp_parse_u64(f[i], &tmp) && (!f[i + 1][0] || imp_parse_u64(f[i + 1], &tmp))) {
		strbuf_adds(slice, f[i++]);
		strbuf_addch(slice, '\x1f');
	}
	/* perf 6.1 prints both fields on every row: a row without them was cut short. */
	if (lay->first_line == p->lineno)
		lay->has_times = i + 1 < n;
	else if (lay->has_times && i + 1 >= n)
		return imp_fail(p, TDP_EFORMAT, "'%s' has no run time and running percentage (is the line cut short?)",
				row.event);
	if (i < n) {
		if (f[i][0]) {
			if (!imp_parse_u64(f[i], &row.runtime))
				return imp_fail(p, TDP_EFORMAT, "run time '%s' of '%s' is not a number", f[i],
						row.event);
			row.has_runtime = true;
		}
		i++;
	}
	if (i < n) {
		if (f[i][0] && !imp_parse_pct(f[i], &row.pct))
			return imp_fail(p, TDP_EFORMAT, "running percentage '%s' of '%s' is not within 0..100",
					f[i], row.event);
		i++;
	}
	if (strbuf_failed(slice))
		return tdp_err_oom(p->err);
	row.slice = slice->buf;
	{
		int rc = imp_add_row(p, &row);
		double mv;

		if (rc)
			return rc;
		if (i + 1 < n && f[i][0] && imp_parse_decimal(f[i], true, &mv))
			return imp_add_metric(p, mv, f[i + 1], false);
		if (i < n && f[i][0] && !imp_parse_decimal(f[i], true, &mv) && strcmp(f[i], "nan") &&
		    strcmp(f[i], "-nan"))
			return imp_fail(p, TDP_EFORMAT, "metric value '%s' of '%s' is not a number", f[i],
					row.event);
	}
	return 0;
}

int imp_read_csv(struct imp_parser *p, char sep)
{
	struct csv_layout lay = { -1, false, false, 0 };
	struct strbuf slice = STRBUF_INIT;
	char *f[CSV_MAX_FIELDS];
	char *line;
	int rc;

	p->r->sep = sep;
	while ((rc = imp_next_line(p, &line)) > 0) {
		size_t n;

		if (trim(line)[0] == '#')
			imp_comment(p, trim(line));
		if (!trim(line)[0] || trim(line)[0] == '#')
			continue;
		n = imp_split(line, sep, f, CSV_MAX_FIELDS);
		if (n > CSV_MAX_FIELDS) {
			rc = imp_fail(p, TDP_EFORMAT, "more than %d fields", CSV_MAX_FIELDS);
			break;
		}
		if (lay.prefix < 0) {
			/* Lines before the first count row (a preamble) are skipped. */
			int pre = imp_csv_layout(f, n);

			if (pre < 0)
				continue;
			lay.prefix = pre;
			if (pre > 0) {
				double ts;

				lay.has_interval = imp_parse_decimal(trim(f[0]), false, &ts);
			}
			lay.first_line = p->lineno;
		}
		if ((size_t)lay.prefix < n && f[lay.prefix][0] == '\0') {
			/* An extra metric of the row before: the last two fields. */
			double mv;

			if (n >= (size_t)lay.prefix + 2 && f[n - 2][0] && imp_parse_decimal(trim(f[n - 2]), true, &mv)) {
				rc = imp_add_metric(p, mv, f[n - 1], false);
				if (rc)
					break;
			}
			continue;
		}
		if (!layout_ok(f, n, (size_t)lay.prefix)) {
			rc = imp_fail(p, TDP_EFORMAT,
				      "not a perf stat -x'%c' row like line %zu (expected %d fields before the count)",
				      sep, lay.first_line, lay.prefix);
			break;
		}
		rc = parse_row(p, &lay, f, n, sep, &slice);
		if (rc)
			break;
	}
	strbuf_release(&slice);
	return rc < 0 ? rc : 0;
}
