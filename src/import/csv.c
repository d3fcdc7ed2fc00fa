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
 *
 * Locales. perf prints CSV numbers without thousands separators but with the
 * locale's decimal mark (LC_NUMERIC), so the separator decides how a comma is read:
 *   - with any separator but ',' (`-x;`, `-x'\t'`), a comma in a number is the
 *     decimal mark: "2974,62;msec;task-clock;2974623;100,00;0,578;CPUs utilized";
 *   - with ',' a comma is always a field boundary, and under a decimal-comma
 *     locale perf splits each decimal number in two fields. The file is read so
 *     when its first count row has that shape from its end: the metric value
 *     empty or two digit fields, the running percentage a digit field and one of
 *     exactly two digits (perf prints it with two decimals), the run time digits;
 *     then the variance ("3","49%") and a value of two digit fields followed by a
 *     unit ("2974","62","msec"); a count without decimals (empty unit) stays one
 *     field. Every later row must have that shape too (an error says which line
 *     does not), and a note says the file was read so. A fractional count with an
 *     empty unit cannot be told from a count and its unit: record with `-x;` or
 *     LC_NUMERIC=C to avoid the question.
 * Shell prompt lines pasted with the output ("$ perf stat -x, ...") and `#`
 * comments ("# started on ...") are skipped anywhere.
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

/* The decimal mark of numbers in fields split at sep (see Locales above). */
static char dec_of(char sep)
{
	return sep == ',' ? '.' : ',';
}

static bool num(const char *s, char sep, bool allow_sign, double *v)
{
	return imp_parse_decimal_in(s, dec_of(sep), allow_sign, v);
}

static bool is_value(const char *s, char sep)
{
	double v;

	return imp_is_not_marker(s) || num(s, sep, false, &v);
}

static bool is_unit(const char *s, char sep)
{
	double v;

	return strlen(s) <= 32 && !strchr(s, ' ') && !strchr(s, '\t') && !num(s, sep, true, &v);
}

static bool is_event(const char *s, char sep)
{
	double v;

	return s[0] && s[0] != ' ' && s[0] != '\t' && !num(s, sep, true, &v) && !imp_is_not_marker(s);
}

/* True when f[0..n) is a count row with `p` fields before the value. */
static bool layout_ok(char **f, size_t n, size_t p, char sep)
{
	bool ok = p + 3 <= n && is_value(f[p], sep) && is_unit(f[p + 1], sep) && is_event(f[p + 2], sep);

	for (size_t i = 0; ok && i < p; i++) {
		const char *s = f[i];

		while (*s == ' ')
			s++;
		ok = *s != '\0';
	}
	return ok;
}

int imp_csv_layout(char **f, size_t n, char sep)
{
	for (size_t p = 0; p <= 3; p++)
		if (layout_ok(f, n, p, sep))
			return (int)p;
	return -1;
}

static bool digits(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	if (n < min || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/*
 * -x, under a decimal-comma locale (see Locales above): the fields to join with
 * the one after them, found from the end of the row. Returns how many (into
 * at[], at most 4, in decreasing order), or -1 when the row has not that shape.
 */
static int comma_decimal_plan(char **f, size_t n, size_t at[4])
{
	size_t k = n, nr = 0;

	if (k < 5)
		return -1;
	k--; /* the metric unit */
	if (!f[k - 1][0]) {
		k--; /* no metric value */
	} else if (k >= 2 && digits(f[k - 2], 1, 32) && digits(f[k - 1], 1, 32)) {
		at[nr++] = k - 2;
		k -= 2;
	} else {
		return -1;
	}
	if (k < 3 || !digits(f[k - 2], 1, 3) || !digits(f[k - 1], 2, 2))
		return -1; /* the running percentage: "100","00" */
	at[nr++] = k - 2;
	k -= 2;
	if (!digits(f[k - 1], 1, 20))
		return -1; /* the run time */
	k--;
	if (k >= 2 && strlen(f[k - 1]) >= 2 && f[k - 1][strlen(f[k - 1]) - 1] == '%' && digits(f[k - 2], 1, 3)) {
		char tmp[8];
		size_t l = strlen(f[k - 1]) - 1;

		if (l < sizeof(tmp)) {
			memcpy(tmp, f[k - 1], l);
			tmp[l] = '\0';
			if (digits(tmp, 1, 6)) {
				at[nr++] = k - 2; /* the variance: "3","49%" */
				k -= 2;
			}
		}
	}
	/* the value: two digit fields and a unit after them (after 0-3 prefix fields) */
	for (size_t v = 0; v <= 3 && v + 3 < k; v++) {
		if (digits(f[v], 1, 32) && digits(f[v + 1], 1, 32) && f[v + 2][0] && !digits(f[v + 2], 1, 64)) {
			at[nr++] = v;
			break;
		}
	}
	return (int)nr;
}

/* Join f[a] and f[a + 1] back into one number: they are consecutive in the line. */
static size_t join_decimal(char **f, size_t n, size_t a)
{
	f[a][strlen(f[a])] = '.';
	memmove(&f[a + 1], &f[a + 2], (n - a - 2) * sizeof(*f));
	return n - 1;
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

static bool is_variance(const char *s, char sep)
{
	size_t n = strlen(s);
	double v;

	return n >= 2 && s[n - 1] == '%' && imp_parse_pct_in(s, dec_of(sep), &v);
}

struct csv_layout {
	int prefix;        /* fields before the value; -1 until the first count row */
	bool has_interval; /* the first prefix field is the -I timestamp */
	bool has_times;    /* the first count row had run-time and pcnt-running fields */
	size_t first_line; /* line that set the layout */
	bool comma;        /* -x, with decimal commas (see Locales above) */
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
			if (!imp_parse_decimal(s, false, &row.interval)) /* '.' under every locale */
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
	} else if (!num(value, sep, false, &row.value)) {
		return imp_fail(p, TDP_EFORMAT, "count '%s' of '%s' is not a number", value, row.event);
	}
	i = pre + 3;
	if (i < n && is_variance(f[i], sep))
		imp_parse_pct_in(f[i++], dec_of(sep), &row.stddev);
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
		if (f[i][0] && !imp_parse_pct_in(f[i], dec_of(sep), &row.pct))
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
		if (i + 1 < n && f[i][0] && num(f[i], sep, true, &mv))
			return imp_add_metric(p, mv, f[i + 1], false);
		if (i < n && f[i][0] && !num(f[i], sep, true, &mv) && strcmp(f[i], "nan") &&
		    strcmp(f[i], "-nan"))
			return imp_fail(p, TDP_EFORMAT, "metric value '%s' of '%s' is not a number", f[i],
					row.event);
	}
	return 0;
}

/*
 * -x, under a decimal-comma locale: join the decimals of f[0..*n) back. On the
 * first count row (lay->comma still undecided) the row is read so only when it
 * has the shape and then fits a layout; orig restores the line otherwise.
 * Returns 0, or an error when a later row lacks the shape.
 */
static int comma_decimals(struct imp_parser *p, struct csv_layout *lay, char **f, size_t *n, const char *orig)
{
	size_t at[4];
	int nr;

	if (lay->prefix >= 0 && (size_t)lay->prefix < *n && f[lay->prefix][0] == '\0') {
		/* an extra metric of the row before: its value in the two fields before the last */
		if (lay->comma && *n >= 3 && digits(f[*n - 3], 1, 32) && digits(f[*n - 2], 1, 32))
			*n = join_decimal(f, *n, *n - 3);
		return 0;
	}
	nr = comma_decimal_plan(f, *n, at);
	if (lay->prefix >= 0) {
		if (nr < 0)
			return imp_fail(p, TDP_EFORMAT, "not a perf stat -x, row with decimal commas like line %zu",
					lay->first_line);
		for (int i = 0; i < nr; i++)
			*n = join_decimal(f, *n, at[i]);
		return 0;
	}
	if (nr <= 0)
		return 0;
	for (int i = 0; i < nr; i++)
		*n = join_decimal(f, *n, at[i]);
	if (imp_csv_layout(f, *n, ',') >= 0) {
		lay->comma = true;
		return imp_note(p->r, "read numbers with a decimal comma (perf stat -x, under a locale such as de_DE "
			 "splits them in two fields; -x';' avoids it)") ? tdp_err_oom(p->err) : 0;
	}
	memcpy(p->line, orig, strlen(orig) + 1);
	*n = imp_split(p->line, ',', f, CSV_MAX_FIELDS);
	return 0;
}

int imp_read_csv(struct imp_parser *p, char sep)
{
	struct csv_layout lay = { -1, false, false, 0, false };
	struct strbuf slice = STRBUF_INIT, orig = STRBUF_INIT;
	char *f[CSV_MAX_FIELDS];
	char *line;
	int rc;

	p->r->sep = sep;
	while ((rc = imp_next_line(p, &line)) > 0) {
		size_t n;

		if (trim(line)[0] == '#')
			imp_comment(p, trim(line));
		if (!trim(line)[0] || trim(line)[0] == '#' || imp_is_prompt(line))
			continue; /* blank, "# started on", a pasted shell prompt ("$ perf stat -x, ...") */
		if (sep == ',' && lay.prefix < 0) {
			strbuf_reset(&orig);
			strbuf_adds(&orig, line);
			if (strbuf_failed(&orig)) {
				rc = tdp_err_oom(p->err);
				break;
			}
		}
		n = imp_split(line, sep, f, CSV_MAX_FIELDS);
		if (n > CSV_MAX_FIELDS) {
			rc = imp_fail(p, TDP_EFORMAT, "more than %d fields", CSV_MAX_FIELDS);
			break;
		}
		if (sep == ',' && (lay.prefix < 0 || lay.comma)) {
			rc = comma_decimals(p, &lay, f, &n, orig.buf ? orig.buf : "");
			if (rc)
				break;
		}
		if (lay.prefix < 0) {
			/* Lines before the first count row (a preamble) are skipped. */
			int pre = imp_csv_layout(f, n, sep);

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

			if (n >= (size_t)lay.prefix + 2 && f[n - 2][0] && num(trim(f[n - 2]), sep, true, &mv)) {
				rc = imp_add_metric(p, mv, f[n - 1], false);
				if (rc)
					break;
			}
			continue;
		}
		if (!layout_ok(f, n, (size_t)lay.prefix, sep)) {
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
	strbuf_release(&orig);
	return rc < 0 ? rc : 0;
}
