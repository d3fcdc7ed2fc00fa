/*
 * text.c: perf stat's human output (perf 3.x to 6.x, stat-display.c), e.g.
 *
 *    Performance counter stats for process id '27109':
 *
 *            5,751.87 msec task-clock                #    1.001 CPUs utilized
 *      29,123,462,642      instructions              #    0.92  insn per cycle
 *                                                    #    0.03  stalled cycles per insn  (35.72%)
 *       <not counted>      cycles
 *
 *         5.744305165 seconds time elapsed
 *
 * A count row is
 *   [timestamp] [aggr-id [nr]] value [unit] event [cgroup] [# metric] [( +- N% )] [(N%)]
 * where the timestamp (-I) has nine decimals, the aggregation id is CPU0,
 * S0-D0-C0, S0, N0 or comm-pid (-A, --per-*), nr is the number of CPUs summed,
 * value has ',' thousands separators or is a `<not ...>` marker, and perf 4.x
 * printed `task-clock (msec)` where 5.x prints `msec task-clock`. A line that
 * starts with '#' (after an optional timestamp) continues the metrics of the row
 * above it; perf puts the running percentage of a row with several metrics at
 * the end of its last metric line.
 *
 * Everything up to the `Performance counter stats for` header is skipped (shell
 * prompts, the workload's output), and so is everything after the closing
 * `seconds time elapsed/user/sys` lines (with a note). Between them, a line perf
 * does not print is an error, and so is a second header, unless it follows the
 * end of a run and a "# started on" line: runs appended to one file (perf stat
 * --append), whose counts import.c averages.
 */
#include "import/import-internal.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <string.h>

#define TEXT_MAX_TOKENS 16 /* a count row has at most 8 before its metric */

static const char header[] = "Performance counter stats for";

/* Messages perf prints among its counts; not counts, not errors. */
static const char *const perf_notes[] = {
	"Some events weren't counted",
	"echo ",
	"perf stat ",
	"The events in group",
	"WARNING",
	"Warning:",
};

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* -I timestamps: "%6lu.%09lu", i.e. digits, a dot and exactly nine digits. */
static bool is_timestamp(const char *s)
{
	const char *dot = strchr(s, '.');
	size_t n = strlen(s);

	if (!dot || dot == s || n - (size_t)(dot - s) != 10)
		return false;
	for (const char *c = s; *c; c++)
		if (c != dot && !isdigit((unsigned char)*c))
			return false;
	return true;
}

static bool is_value(const char *s, char dec)
{
	double v;

	return imp_is_not_marker(s) || imp_parse_count_in(s, dec, &v);
}

/*
 * Remove "(NN.NN%)" (the running percentage) and "( +- NN.NN% )" (the -r
 * variance) from the end of s, in either order. Other parentheses stay, but a
 * tail that is one word ending in '%' ("(abc%)", "(nan%)", "(101%)") is a running
 * percentage perf would not print: *bad points into s at it and the caller
 * refuses the line, as the CSV and JSON importers refuse the same value.
 */
static void strip_tail(char *s, char dec, double *pct, double *stddev, const char **bad)
{
	*bad = NULL;
	for (int k = 0; k < 2; k++) {
		char inner[80], *open, *t;
		size_t n;

		rtrim(s);
		n = strlen(s);
		if (!n || s[n - 1] != ')' || !(open = strrchr(s, '(')))
			return;
		n = (size_t)(s + n - 1 - open - 1);
		if (n >= sizeof(inner)) {
			if (memchr(open, '%', n + 1) && !strpbrk(open + 1, " \t"))
				*bad = open;
			return;
		}
		memcpy(inner, open + 1, n);
		inner[n] = '\0';
		rtrim(inner);
		t = inner;
		while (*t == ' ')
			t++;
		if (!strncmp(t, "+-", 2)) {
			t += 2;
			while (*t == ' ')
				t++;
			if (!imp_parse_pct_in(t, dec, stddev)) {
				*bad = open;
				return;
			}
		} else if (!strchr(t, '%')) {
			return;
		} else if (!imp_parse_pct_in(t, dec, pct)) {
			/* "(3 of 4 ran, 50%)" is no perf output either, but only one word is a percentage */
			if (t[strlen(t) - 1] == '%' && !strpbrk(t, " \t"))
				*bad = open;
			return;
		}
		*open = '\0';
	}
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/*
 * Numbers grouped with ASCII spaces ("21 958 894", "5 751,87" under some
 * locales) were split by tokenize(): join a token of 1-3 digits with the tokens
 * after it that are three digits (the last maybe with dec and decimals), when one
 * blank separates them. perf pads its columns with several blanks, never one.
 */
static size_t join_groups(char **tok, size_t nt, char dec)
{
	for (size_t k = 0; k + 1 < nt; k++) {
		size_t len = strlen(tok[k]);

		if (len > 3 || !all_digits(tok[k], len))
			continue;
		while (k + 1 < nt && tok[k + 1] == tok[k] + strlen(tok[k]) + 1) {
			const char *g = tok[k + 1], *d = strchr(g, dec);
			size_t gl = d ? (size_t)(d - g) : strlen(g);

			if (gl != 3 || !all_digits(g, 3) || (d && !all_digits(d + 1, strlen(d + 1))) ||
			    strchr(tok[k], dec))
				break;
			tok[k][strlen(tok[k])] = ' ';
			memmove(&tok[k + 1], &tok[k + 2], (nt - k - 2) * sizeof(*tok));
			nt--;
		}
	}
	return nt;
}

/* Split s at whitespace into tokens, keeping "<not counted>" as one. */
static size_t tokenize(char *s, char **tok, size_t max)
{
	size_t n = 0;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		if (!strncmp(s, "<not ", 5) && strchr(s, '>')) {
			s = strchr(s, '>') + 1;
		} else {
			while (*s && !isspace((unsigned char)*s))
				s++;
		}
		if (*s)
			*s++ = '\0';
	}
}

/* The metric text after '#': "0.92  insn per cycle", "2.51% frontend cycles idle". */
static int parse_metric(struct imp_parser *p, char dec, char *m)
{
	char *num, *rest;
	bool neg = false, glued = false;
	double v;
	size_t n;

	while (isspace((unsigned char)*m))
		m++;
	if (!*m)
		return 0;
	num = m;
	for (rest = m; *rest && !isspace((unsigned char)*rest); rest++)
		;
	if (*rest)
		*rest++ = '\0';
	if (*num == '-') {
		neg = true;
		num++;
	}
	n = strlen(num);
	if (n && num[n - 1] == '%') {
		glued = true;
		num[n - 1] = '\0';
	}
	if (!imp_parse_count_in(num, dec, &v))
		return 0; /* "nan", "<not counted>": perf had no number */
	return imp_add_metric(p, neg ? -v : v, rest, glued);
}

static bool is_clock_event(const char *ev)
{
	size_t n = strcspn(ev, ":");

	return (n == 10 && !strncmp(ev, "task-clock", 10)) || (n == 9 && !strncmp(ev, "cpu-clock", 9));
}

struct text_state {
	bool noted_msec;
	char dec; /* the decimal mark of the file: '.' or ',' (decimal_mark()) */
};

static int parse_row(struct imp_parser *p, struct text_state *st, char *line)
{
	char *tok[TEXT_MAX_TOKENS], *hash = NULL, *metric = NULL, shown[64];
	const char *bad;
	struct imp_row row = { 0 };
	struct strbuf slice = STRBUF_INIT;
	double pct = -1, stddev = -1;
	size_t nt, i = 0;
	int rc = 0;

	row.pct = -1;
	row.stddev = -1;
	row.interval = -1;
	/* The line as the user will recognise it in a message (shortened). */
	if (strlen(line) < sizeof(shown)) {
		memcpy(shown, line, strlen(line) + 1);
	} else {
		memcpy(shown, line, sizeof(shown) - 4);
		memcpy(shown + sizeof(shown) - 4, "...", 4);
	}
	strip_tail(line, st->dec, &pct, &stddev, &bad);
	if (bad) {
		rc = imp_fail(p, TDP_EFORMAT, "running percentage '%s' is not within 0..100%%", bad);
		goto out;
	}
	/* The metric starts at the first '#' after a blank (event names hold none). */
	for (char *c = line; *c; c++) {
		if (*c == '#' && (c == line || isspace((unsigned char)c[-1]))) {
			hash = c;
			break;
		}
	}
	if (hash) {
		*hash = '\0';
		metric = hash + 1;
	}
	nt = tokenize(line, tok, TEXT_MAX_TOKENS);
	if (nt > TEXT_MAX_TOKENS) {
		rc = imp_fail(p, TDP_EFORMAT, "'%s' is not a line perf stat prints (too many words)", shown);
		goto out;
	}
	nt = join_groups(tok, nt, st->dec);
	if (nt >= 1 && is_timestamp(tok[0]) && (nt >= 3 || (nt == 1 && metric))) {
		if (!imp_parse_decimal(tok[0], false, &row.interval)) {
			rc = imp_fail(p, TDP_EFORMAT, "interval '%s' is not a number", tok[0]);
			goto out;
		}
		strbuf_adds(&slice, tok[0]);
		strbuf_addch(&slice, '\x1f');
		i = 1;
	}
	if (i < nt && !is_value(tok[i], st->dec)) {
		if (i + 1 < nt && is_value(tok[i + 1], st->dec)) {
			/* -A, --per-core, --per-socket, --per-thread: the id, then maybe the CPU count. */
			uint64_t nr;

			strbuf_adds(&slice, tok[i]);
			strbuf_addch(&slice, '\x1f');
			i++;
			if (i + 1 < nt && is_value(tok[i + 1], st->dec) && imp_parse_u64(tok[i], &nr))
				i++;
		} else if (isdigit((unsigned char)tok[i][0])) {
			rc = imp_fail(p, TDP_EFORMAT, "count '%s' is not a number (digits in groups of three after the "
				      "first, the decimal mark '%c' as in the rest of the file)", tok[i], st->dec);
			goto out;
		} else if (metric) {
			/* A metric on a line of its own, under a label ("TopdownL1 (cpu_core)"). */
			i = nt;
		} else {
			rc = imp_fail(p, TDP_EFORMAT, "'%s' is not a line perf stat prints", shown);
			goto out;
		}
	}
	if (i >= nt) {
		/* A continuation: more metrics (and maybe the running %) of the row above. */
		if (pct >= 0 && p->nr_rows && p->rows[p->nr_rows - 1].pct < 0)
			p->rows[p->nr_rows - 1].pct = pct;
		if (stddev >= 0 && p->nr_rows && p->rows[p->nr_rows - 1].stddev < 0)
			p->rows[p->nr_rows - 1].stddev = stddev;
		rc = metric ? parse_metric(p, st->dec, metric) : 0;
		goto out;
	}
	if (imp_is_not_marker(tok[i]))
		row.status = imp_not_status(tok[i]);
	else if (!imp_parse_count_in(tok[i], st->dec, &row.value)) {
		rc = imp_fail(p, TDP_EFORMAT, "count '%s' is not a number", tok[i]);
		goto out;
	}
	i++;
	row.unit = (char *)"";
	switch (nt - i) {
	case 0:
		rc = imp_fail(p, TDP_EFORMAT, "count '%s' has no event name", tok[i - 1]);
		goto out;
	case 1:
		row.event = tok[i];
		break;
	case 2:
	case 3:
		if (!strcmp(tok[i + 1], "(msec)")) {
			row.event = tok[i]; /* perf 4.x: "task-clock (msec)" */
			row.unit = (char *)"msec";
		} else {
			row.unit = tok[i];
			row.event = tok[i + 1];
		}
		if (nt - i == 3) {
			strbuf_adds(&slice, tok[i + 2]); /* -G: the cgroup */
			strbuf_addch(&slice, '\x1f');
		}
		break;
	default:
		rc = imp_fail(p, TDP_EFORMAT, "unexpected '%s' after the event '%s'", tok[i + 2], tok[i + 1]);
		goto out;
	}
	if ((row.unit[0] && is_value(row.unit, st->dec)) || is_value(row.event, st->dec)) {
		rc = imp_fail(p, TDP_EFORMAT, "'%s' is not a line perf stat prints (two counts)", shown);
		goto out;
	}
	if (!row.unit[0] && is_clock_event(row.event)) {
		/* perf has printed clock events in msec since its first version. */
		row.unit = (char *)"msec";
		if (!st->noted_msec) {
			st->noted_msec = true;
			rc = imp_note(p->r, "'%s' has no unit; read as msec, as perf prints clock events", row.event);
			if (rc) {
				rc = tdp_err_oom(p->err);
				goto out;
			}
		}
	}
	if (strbuf_failed(&slice)) {
		rc = tdp_err_oom(p->err);
		goto out;
	}
	/* perf prints "(N%)" only when the counter did not run all the time. */
	row.pct = pct >= 0 ? pct : -1;
	row.stddev = stddev;
	row.slice = slice.buf;
	rc = imp_add_row(p, &row);
	if (!rc && metric)
		rc = parse_metric(p, st->dec, metric);
out:
	strbuf_release(&slice);
	return rc;
}

/* "       5.744305165 seconds time elapsed", "0.000988 +- 0.000102 seconds ...". */
static bool parse_seconds(const char *t, char dec, double *ns)
{
	char num[64];
	size_t n = strcspn(t, " \t");
	double v;

	if (n >= sizeof(num))
		return false;
	memcpy(num, t, n);
	num[n] = '\0';
	if (!imp_parse_count_in(num, dec, &v))
		return false;
	*ns = v * 1e9;
	return true;
}

static int parse_header(struct imp_parser *p, const char *t)
{
	const char *runs = strstr(t, " runs)");

	if (runs) {
		const char *b = runs;
		uint64_t n = 0;

		while (b > t && isdigit((unsigned char)b[-1]))
			b--;
		for (const char *c = b; c < runs; c++)
			if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (uint64_t)(*c - '0'), &n))
				return imp_fail(p, TDP_EFORMAT, "the number of runs is too large");
		if (b < runs && n > 0 && n <= 1000000)
			p->r->runs = (unsigned)n;
	}
	return 0;
}

/*
 * One number token of a line, for decimal_mark(): digits, '.', ',' and the
 * no-break spaces; a leading '(' and a trailing '%' or ')' are dropped. Returns
 * '.' or ',' when the token shows which is the decimal mark, else 0:
 *   - both '.' and ',': the later one ("5.751,87", "5,751.87");
 *   - one of them, more than once: the other ("21.958.894": ',' is the mark);
 *   - one of them once, not followed by exactly three digits: that one ("0,53",
 *     "5.744305165"); followed by three ("1.234", "1,234"): undecided.
 */
/*
 * Whether s[0..n) is a number with thousands groups: 1-3 digits, then groups of
 * exactly three after each separator, except after the decimal mark dec (when
 * not 0), its last separator, which may be followed by any digits.
 */
static bool grouped(const char *s, size_t n, char dec)
{
	size_t run = 0, groups = 0;
	const char *mark = dec ? memrchr(s, dec, n) : NULL;

	for (size_t i = 0; i < n; i++) {
		if (mark && s + i == mark)
			return groups ? run == 3 : run >= 1 && run <= 3;
		if (s[i] == '.' || s[i] == ',') {
			if (groups ? run != 3 : run < 1 || run > 3)
				return false;
			groups++;
			run = 0;
		} else if (isdigit((unsigned char)s[i])) {
			run++;
		}
	}
	return run == 3;
}

static char token_mark(const char *s, size_t n)
{
	size_t dots = 0, commas = 0, digits = 0, after = 0;
	char last = 0;

	if (n && *s == '(')
		s++, n--;
	while (n && (s[n - 1] == '%' || s[n - 1] == ')'))
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isdigit(c)) {
			digits++;
			after++;
		} else if (c == '.' || c == ',') {
			if (i == 0)
				return 0;
			dots += c == '.';
			commas += c == ',';
			last = (char)c;
			after = 0;
		} else if (c < 0x80) {
			return 0; /* a word, not a number */
		}
	}
	if (!digits || !last)
		return 0;
	if (dots + commas > 1 && !grouped(s, n, dots && commas ? last : 0))
		return 0; /* "13.3.0", "1.2,3": a version or a list, not a number */
	if (dots && commas)
		return last;
	if (dots + commas > 1)
		return last == '.' ? ',' : '.';
	return after == 3 ? 0 : last;
}

/*
 * The decimal mark of the whole file, from its first number that shows it
 * (perf prints one locale per file): ',' under de_DE, fr_FR...; '.' otherwise,
 * also when no number decides (then ',' groups thousands, perf's C locale: a
 * lone "1.234" is 1.234, "1,234" is 1234). -I timestamps (nine decimals after a
 * '.', first on their line) are printed with '.' under every locale and are not
 * looked at.
 */
static char decimal_mark(const uint8_t *buf, size_t len)
{
	const char *s = (const char *)buf, *end = s + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;
		bool first = true;

		while (s < le) {
			const char *w;
			char mark;

			while (s < le && isspace((unsigned char)*s))
				s++;
			for (w = s; s < le && !isspace((unsigned char)*s); s++)
				;
			if (s == w)
				break;
			if (first && s - w > 10 && w[s - w - 10] == '.' && !memchr(w, ',', (size_t)(s - w))) {
				first = false;
				continue;
			}
			first = false;
			if (*w == '#')
				continue;
			mark = token_mark(w, (size_t)(s - w));
			if (mark)
				return mark;
		}
		s = le + 1;
	}
	return '.';
}

int imp_read_text(struct imp_parser *p)
{
	struct text_state st = { false, decimal_mark(p->buf, p->len) };
	bool has_header, seen_header = false, ended = false, started = false;
	size_t skipped = 0, first_skipped = 0, nr_times[3] = { 0, 0, 0 };
	double times[3] = { 0, 0, 0 }; /* elapsed, user, sys summed over appended runs */
	char *line;
	int rc;

	has_header = memmem(p->buf, p->len, header, sizeof(header) - 1) != NULL;
	while ((rc = imp_next_line(p, &line)) > 0) {
		char *t = line;
		bool note = false;

		while (isspace((unsigned char)*t))
			t++;
		rtrim(t);
		if (strstr(t, header)) {
			if (seen_header && ended && started) {
				/* perf stat --append: "# started on" and the block of the next run */
				p->run++;
				ended = started = false;
				skipped = 0;
			} else if (seen_header) {
				rc = imp_fail(p, TDP_EFORMAT, "a second 'Performance counter stats' block");
				tdp_err_hint(p->err, "import one perf stat run per file");
				break;
			}
			seen_header = true;
			rc = parse_header(p, t);
			if (rc)
				break;
			continue;
		}
		if (has_header && !seen_header)
			continue; /* before the header: a prompt, the workload's output */
		if (!*t || (!ended && imp_is_prompt(t)))
			continue; /* a pasted shell prompt ("$ perf stat ..."); after the end, counted below */
		if (strstr(t, "seconds time elapsed")) {
			if (!parse_seconds(t, st.dec, &p->r->counts.elapsed_ns)) {
				rc = imp_fail(p, TDP_EFORMAT, "elapsed time '%s' is not a number", t);
				break;
			}
			times[0] += p->r->counts.elapsed_ns;
			nr_times[0]++;
			ended = true;
			continue;
		}
		if (str_ends_with(t, "seconds user") || str_ends_with(t, "seconds sys")) {
			bool user = str_ends_with(t, "user");

			if (!parse_seconds(t, st.dec, user ? &p->r->user_ns : &p->r->sys_ns)) {
				rc = imp_fail(p, TDP_EFORMAT, "time '%s' is not a number", t);
				break;
			}
			times[user ? 1 : 2] += user ? p->r->user_ns : p->r->sys_ns;
			nr_times[user ? 1 : 2]++;
			ended = true;
			continue;
		}
		if (ended && t[0] == '#' && strstr(t, "started on")) {
			started = true; /* perhaps another run appended (perf stat --append) */
			continue;
		}
		if (ended) {
			/* perf prints nothing after its times: what follows is someone else's. */
			if (!skipped++)
				first_skipped = p->lineno;
			continue;
		}
		if (t[0] == '#') {
			const char *w = t + 1;

			while (isspace((unsigned char)*w))
				w++;
			/* The -I column header ("# time counts unit events") and "# started on". */
			if (!strncmp(w, "time ", 5) || !strcmp(w, "time") || !strncmp(w, "started on", 10))
				continue;
		}
		for (size_t i = 0; i < sizeof(perf_notes) / sizeof(perf_notes[0]); i++)
			note = note || !strncmp(t, perf_notes[i], strlen(perf_notes[i]));
		if (note)
			continue;
		rc = parse_row(p, &st, t);
		if (rc)
			break;
	}
	if (!rc && p->run) {
		/* appended runs: their mean times, as their counts (import.c) */
		if (nr_times[0])
			p->r->counts.elapsed_ns = times[0] / (double)nr_times[0];
		if (nr_times[1])
			p->r->user_ns = times[1] / (double)nr_times[1];
		if (nr_times[2])
			p->r->sys_ns = times[2] / (double)nr_times[2];
	}
	if (!rc && skipped && imp_note(p->r, "skipped %zu line%s after the end of perf's output (from line %zu)",
				       skipped, skipped == 1 ? "" : "s", first_skipped))
		rc = tdp_err_oom(p->err);
	return rc < 0 ? rc : 0;
}
