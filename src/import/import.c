/*
 * import.c: the entry points of import.h. Detects the format, runs its reader
 * (csv.c, json.c, text.c), then turns the rows as printed into counts: sums the
 * rows of intervals and CPUs per event, converts msec to ns, rebuilds perf's
 * groups and ties the metrics to their counts.
 */
#include "import/import.h"
#include "import/import-internal.h"
#include "base/alloc.h"
#include "base/err.h"

#include <math.h>
#include <string.h>

/* Lines and lines-per-probe that format detection looks at. */
#define DETECT_MAX_LINES 256
#define DETECT_MAX_LINE 4096

static const char hint_formats[] =
	"give the output of 'perf stat -x, -o FILE -- CMD', 'perf stat -j -o FILE -- CMD' or plain 'perf stat' "
	"(--metric-only output holds no counts)";

void import_result_init(struct import_result *r)
{
	static const struct import_result init = IMPORT_RESULT_INIT;

	*r = init;
}

void import_result_release(struct import_result *r)
{
	countset_release(&r->counts);
	for (size_t i = 0; i < r->nr_metrics; i++) {
		tdp_free(r->metrics[i].name);
		tdp_free(r->metrics[i].unit);
	}
	tdp_free(r->metrics);
	for (size_t i = 0; i < r->nr_notes; i++)
		tdp_free(r->notes[i]);
	tdp_free(r->notes);
	import_result_init(r);
}

const char *import_format_name(enum import_format f)
{
	switch (f) {
	case IMPORT_FMT_CSV: return "csv";
	case IMPORT_FMT_JSON: return "json";
	case IMPORT_FMT_TEXT: return "text";
	case IMPORT_FMT_UNKNOWN: break;
	}
	return "unknown";
}

/* ---- detection ---------------------------------------------------------- */

/* Separators tried first, in order; then any other punctuation on the line. */
/* ';' before ',': under a decimal-comma locale `-x;` rows hold commas too ("2974,62;msec;..."). */
static const char csv_seps[] = ";,\t|:";

static bool csv_sep_fits(const char *line, size_t n, char sep)
{
	char copy[DETECT_MAX_LINE + 1];
	char *f[65];
	size_t nf;

	memcpy(copy, line, n);
	copy[n] = '\0';
	nf = imp_split(copy, sep, f, 64);
	return nf <= 64 && imp_csv_layout(f, nf, sep) >= 0;
}

static char csv_sep_of(const char *line, size_t n)
{
	bool tried[256] = { false };

	for (const char *s = csv_seps; *s; s++) {
		tried[(unsigned char)*s] = true;
		if (memchr(line, *s, n) && csv_sep_fits(line, n, *s))
			return *s;
	}
	/* Each other punctuation character once: detection stays linear in the line. */
	for (size_t i = 0; i < n; i++) {
		char c = line[i];

		if (tried[(unsigned char)c])
			continue;
		tried[(unsigned char)c] = true;
		if ((unsigned char)c > 0x20 && (unsigned char)c < 0x7f && !((c >= '0' && c <= '9') ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || strchr("._-<>/=%@", c)) &&
		    csv_sep_fits(line, n, c))
			return c;
	}
	return 0;
}

/* A line with a number (or a <not ...> marker) followed by a word, as perf's text rows have. */
static bool text_row_like(const char *line, size_t n)
{
	char w[DETECT_MAX_LINE + 1], prev[DETECT_MAX_LINE + 1];
	size_t i = 0;
	bool have_prev = false;
	double v;

	while (i < n) {
		size_t wn = 0;

		while (i < n && (line[i] == ' ' || line[i] == '\t'))
			i++;
		while (i < n && line[i] != ' ' && line[i] != '\t')
			w[wn++] = line[i++];
		w[wn] = '\0';
		if (!wn || w[0] == '#')
			break;
		if (have_prev && (imp_parse_count(prev, &v) || !strcmp(prev, "counted>") || !strcmp(prev, "supported>")) &&
		    !imp_parse_count(w, &v))
			return true;
		memcpy(prev, w, wn + 1);
		have_prev = true;
	}
	return false;
}

enum import_format import_detect(const uint8_t *buf, size_t len, char *sep)
{
	static const char header[] = "Performance counter stats for";
	enum import_format f = IMPORT_FMT_UNKNOWN;
	size_t off = 0, lines = 0;
	bool first = true;

	if (sep)
		*sep = 0;
	if (memmem(buf, len, header, sizeof(header) - 1))
		return IMPORT_FMT_TEXT;
	while (off < len && lines < DETECT_MAX_LINES) {
		const char *line = (const char *)buf + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off, skip = 0;
		char c;

		off += n + (nl ? 1 : 0);
		while (skip < n && (line[skip] == ' ' || line[skip] == '\t' || line[skip] == '\r'))
			skip++;
		if (skip == n || line[skip] == '#' || n > DETECT_MAX_LINE || memchr(line, '\0', n))
			continue;
		if (n < DETECT_MAX_LINE) {
			char copy[DETECT_MAX_LINE + 1];

			memcpy(copy, line, n);
			copy[n] = '\0';
			if (imp_is_prompt(copy))
				continue; /* "$ perf stat -j ...": a pasted shell prompt */
		}
		lines++;
		if (first && line[skip] == '{')
			return IMPORT_FMT_JSON;
		first = false;
		if ((c = csv_sep_of(line, n))) {
			if (sep)
				*sep = c;
			return IMPORT_FMT_CSV;
		}
		if (f == IMPORT_FMT_UNKNOWN && text_row_like(line, n))
			f = IMPORT_FMT_TEXT;
	}
	return f;
}

/* ---- a small hash map: (string, number) -> index ------------------------ */

struct hslot {
	const char *s; /* borrowed; NULL marks an empty slot */
	uint64_t k;
	uint64_t h;
	size_t v;
};

struct hmap {
	struct hslot *slot;
	size_t cap; /* a power of two */
	size_t nr;
};

static uint64_t hash_key(const char *s, uint64_t k)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (k * 0x9e3779b97f4a7c15ull);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	h ^= h >> 31;
	return h;
}

static int hmap_grow(struct hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct hslot *slot = tdp_calloc(cap, sizeof(*slot));

	if (!slot)
		return TDP_ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slot[i].s)
			continue;
		for (j = m->slot[i].h & (cap - 1); slot[j].s; j = (j + 1) & (cap - 1))
			;
		slot[j] = m->slot[i];
	}
	tdp_free(m->slot);
	m->slot = slot;
	m->cap = cap;
	return 0;
}

/*
 * The value of (s, k), added with value `v` when absent (*added says which).
 * Returns a pointer to the value, or NULL on allocation failure.
 */
static size_t *hmap_get(struct hmap *m, const char *s, uint64_t k, size_t v, bool *added)
{
	uint64_t h = hash_key(s, k);
	size_t j;

	if ((m->nr + 1) * 2 > m->cap && hmap_grow(m))
		return NULL;
	for (j = h & (m->cap - 1); m->slot[j].s; j = (j + 1) & (m->cap - 1))
		if (m->slot[j].h == h && m->slot[j].k == k && !strcmp(m->slot[j].s, s)) {
			*added = false;
			return &m->slot[j].v;
		}
	m->slot[j].s = s;
	m->slot[j].k = k;
	m->slot[j].h = h;
	m->slot[j].v = v;
	m->nr++;
	*added = true;
	return &m->slot[j].v;
}

static void hmap_release(struct hmap *m)
{
	tdp_free(m->slot);
	m->slot = NULL;
	m->cap = m->nr = 0;
}

/* ---- from rows to counts ------------------------------------------------ */

/* One event as the sum of its rows across intervals and CPUs. */
struct canon {
	size_t first_row;
	size_t nr_rows, n_ok, n_nc, n_ns;
	double sum;
	bool all_runtime;       /* every counted row has a run time and a percentage > 0 */
	double run_sum, ena_sum; /* ns */
	double pct_sum;
	size_t pct_n;
	double stddev;
	unsigned last_run, nr_runs; /* perf stat --append: the runs it has rows in */
};

static int note_oom(struct imp_parser *p, int rc)
{
	return rc ? tdp_err_oom(p->err) : 0;
}

static int make_counts(struct imp_parser *p, struct canon *cn, size_t nr_canon)
{
	struct countset *cs = &p->r->counts;

	for (size_t c = 0; c < nr_canon; c++) {
		const struct imp_row *first = &p->rows[cn[c].first_row];
		bool msec = !strcmp(first->unit, "msec");
		struct count *k = countset_add(cs, first->event, first->unit, 0, -1);

		if (!k)
			return tdp_err_oom(p->err);
		k->stddev_pct = cn[c].stddev;
		if (!cn[c].n_ok) {
			k->status = cn[c].n_ns ? COUNT_NOT_SUPPORTED : COUNT_NOT_COUNTED;
			k->running_pct = -1;
			continue;
		}
		k->value = k->raw = msec ? cn[c].sum * 1e6 : cn[c].sum;
		if (cn[c].all_runtime && cn[c].ena_sum > 0) {
			k->running_ns = (uint64_t)llround(cn[c].run_sum);
			k->enabled_ns = (uint64_t)llround(cn[c].ena_sum);
		}
		if (cn[c].nr_rows == 1 || !(cn[c].all_runtime && cn[c].ena_sum > 0))
			k->running_pct = cn[c].pct_sum / (double)cn[c].pct_n;
		else
			k->running_pct = 100.0 * cn[c].run_sum / cn[c].ena_sum;
		if (cn[c].n_nc + cn[c].n_ns &&
		    note_oom(p, imp_note(p->r, "'%s' was counted in %zu of its %zu rows (intervals or CPUs); its count is the sum of those",
					 first->event, cn[c].n_ok, cn[c].nr_rows)))
			return TDP_ENOMEM;
	}
	return 0;
}

static bool same(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

/* The two rules of import.h's "Groups". */
static int make_groups(struct imp_parser *p)
{
	struct countset *cs = &p->r->counts;
	struct hmap members = { NULL, 0, 0 };
	int group = -1, rc = 0;
	bool have_pct = false;
	double gpct = 0;
	uint64_t grt = 0;

	for (size_t i = 0; i < cs->nr; i++) {
		struct count *k = &cs->v[i];
		bool added, start = group < 0;

		if (!start) {
			if (!hmap_get(&members, k->name, (uint64_t)group, 0, &added)) {
				rc = tdp_err_oom(p->err);
				break;
			}
			start = !added;
		}
		if (!start && k->status == COUNT_OK && have_pct)
			start = !same(k->running_pct, gpct) ||
				(k->running_pct < 100.0 && grt && k->running_ns && k->running_ns != grt);
		if (start) {
			group++;
			have_pct = false;
			if (!hmap_get(&members, k->name, (uint64_t)group, 0, &added)) {
				rc = tdp_err_oom(p->err);
				break;
			}
		}
		if (k->status == COUNT_OK && !have_pct) {
			have_pct = true;
			gpct = k->running_pct;
			grt = k->running_ns;
		}
		k->group = group;
	}
	hmap_release(&members);
	return rc;
}

static int move_metrics(struct imp_parser *p, const size_t *row_canon)
{
	struct import_result *r = p->r;

	if (!p->nr_metrics)
		return 0;
	r->metrics = tdp_calloc(p->nr_metrics, sizeof(*r->metrics));
	if (!r->metrics)
		return tdp_err_oom(p->err);
	r->alloc_metrics = p->nr_metrics;
	for (size_t i = 0; i < p->nr_metrics; i++) {
		struct import_metric *m = &r->metrics[r->nr_metrics++];
		size_t c = row_canon[p->metrics[i].row];

		m->name = p->metrics[i].name;
		m->unit = p->metrics[i].unit;
		m->value = p->metrics[i].value;
		m->count = c;
		m->group = r->counts.v[c].group;
		p->metrics[i].name = p->metrics[i].unit = NULL;
	}
	return 0;
}

static int finish(struct imp_parser *p)
{
	struct import_result *r = p->r;
	struct hmap slices = { NULL, 0, 0 }, occ = { NULL, 0, 0 }, canon_of = { NULL, 0, 0 };
	struct canon *cn = NULL;
	size_t nr_canon = 0, alloc_canon = 0, *row_canon = NULL, nr_intervals = 0;
	double last_interval = -1;
	int rc = 0;

	if (!p->nr_rows) {
		rc = tdp_err_set(p->err, TDP_EFORMAT, "'%s': no counts found", p->name);
		tdp_err_hint(p->err, "%s", hint_formats);
		goto out;
	}
	row_canon = tdp_calloc(p->nr_rows, sizeof(*row_canon));
	if (!row_canon) {
		rc = tdp_err_oom(p->err);
		goto out;
	}
	for (size_t i = 0; i < p->nr_rows; i++) {
		const struct imp_row *row = &p->rows[i];
		size_t *slice, *k, *c;
		bool added;
		struct canon *e;

		if (row->interval >= 0 && row->interval != last_interval) {
			nr_intervals++;
			last_interval = row->interval;
		}
		/*
		 * The k-th row of an event within one interval/CPU adds to the k-th
		 * count of that event: perf prints the same list in each of them.
		 */
		/* appended runs: each run's k-th row of an event is that run's k-th count */
		if (!(slice = hmap_get(&slices, row->slice, row->run, slices.nr, &added)) ||
		    !(k = hmap_get(&occ, row->event, *slice, 0, &added)) ||
		    !(c = hmap_get(&canon_of, row->event, (*k)++, nr_canon, &added))) {
			rc = tdp_err_oom(p->err);
			goto out;
		}
		if (added) {
			if (TDP_GROW(cn, alloc_canon, nr_canon + 1)) {
				rc = tdp_err_oom(p->err);
				goto out;
			}
			e = &cn[nr_canon++];
			memset(e, 0, sizeof(*e));
			e->first_row = i;
			e->all_runtime = true;
			e->stddev = -1;
		}
		row_canon[i] = *c;
		e = &cn[*c];
		e->nr_rows++;
		if (!e->nr_runs || e->last_run != row->run) {
			e->nr_runs++;
			e->last_run = row->run;
		}
		if (row->stddev > e->stddev)
			e->stddev = row->stddev;
		if (row->status == COUNT_NOT_SUPPORTED) {
			e->n_ns++;
		} else if (row->status == COUNT_NOT_COUNTED) {
			e->n_nc++;
		} else {
			/* Text omits "(N%)" when the counter ran all the time. */
			double pct = row->pct >= 0 ? row->pct : 100.0;

			e->n_ok++;
			e->sum += row->value;
			e->pct_sum += pct;
			e->pct_n++;
			if (row->has_runtime && pct > 0) {
				e->run_sum += (double)row->runtime;
				e->ena_sum += (double)row->runtime * 100.0 / pct;
			} else {
				e->all_runtime = false;
			}
		}
	}
	if (p->run > 0) {
		/* runs appended to one file: each count is the mean of its runs, as perf stat -r prints */
		for (size_t c = 0; c < nr_canon; c++) {
			if (cn[c].nr_runs < 2)
				continue;
			cn[c].sum /= cn[c].nr_runs;
			cn[c].run_sum /= cn[c].nr_runs;
			cn[c].ena_sum /= cn[c].nr_runs;
		}
		r->runs = p->run + 1;
		if ((rc = note_oom(p, imp_note(r, "averaged %u runs appended to one file (perf stat --append): each count "
					       "is the mean of its runs", r->runs))))
			goto out;
	}
	r->counts.backend = BACKEND_IMPORT;
	rc = make_counts(p, cn, nr_canon);
	if (!rc)
		rc = make_groups(p);
	if (rc)
		goto out;

	r->nr_intervals = nr_intervals;
	/* Slices are intervals x (CPUs, cores, ... or cgroups). */
	r->nr_aggr = nr_intervals ? slices.nr / nr_intervals : slices.nr / (p->run + 1);
	if (r->nr_aggr < 2)
		r->nr_aggr = 0;
	if (nr_intervals > 1 &&
	    (rc = note_oom(p, imp_note(r, "summed %zu intervals of -I output per event (%.3f s in all)", nr_intervals,
				       last_interval))))
		goto out;
	if (r->nr_aggr > 1 &&
	    (rc = note_oom(p, imp_note(r, "summed %zu CPUs, cores, sockets, threads or cgroups per event", r->nr_aggr))))
		goto out;
	if (slices.nr == 1) {
		rc = move_metrics(p, row_canon);
		if (rc)
			goto out;
	} else if (p->nr_metrics &&
		   (rc = note_oom(p, imp_note(r, "perf's metrics were printed per %s and are not kept",
					      slices.nr == p->run + 1u ? "run" : "interval or CPU"))))
		goto out;

	if (r->counts.elapsed_ns < 0 && last_interval > 0)
		r->counts.elapsed_ns = last_interval * 1e9;
	if (r->counts.elapsed_ns < 0) {
		const struct count *d = countset_find(&r->counts, "duration_time", -1);

		if (d && d->status == COUNT_OK)
			r->counts.elapsed_ns = d->value;
	}
	if (r->runs == 1) {
		for (size_t i = 0; i < r->counts.nr; i++)
			if (r->counts.v[i].stddev_pct >= 0)
				r->runs = 0; /* -r N, N not printed in CSV/JSON */
	}
out:
	hmap_release(&slices);
	hmap_release(&occ);
	hmap_release(&canon_of);
	tdp_free(cn);
	tdp_free(row_canon);
	return rc;
}

/* ---- entry points ------------------------------------------------------- */

static void parser_release(struct imp_parser *p)
{
	for (size_t i = 0; i < p->nr_rows; i++) {
		tdp_free(p->rows[i].event);
		tdp_free(p->rows[i].unit);
		tdp_free(p->rows[i].slice);
	}
	tdp_free(p->rows);
	for (size_t i = 0; i < p->nr_metrics; i++) {
		tdp_free(p->metrics[i].name);
		tdp_free(p->metrics[i].unit);
	}
	tdp_free(p->metrics);
	tdp_free(p->line);
}

static bool blank(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r')
			return false;
	return true;
}

int import_perf_stat_result(const uint8_t *buf, size_t len, const char *name, struct import_result *r,
			    struct tdp_err *err)
{
	struct imp_parser p;
	char sep = 0;
	int rc;

	memset(&p, 0, sizeof(p));
	p.name = name ? name : "<input>";
	p.err = err;
	p.r = r;
	p.buf = buf;
	p.len = len;
	if (!buf && len)
		return tdp_err_set(err, TDP_EINVAL, "import_perf_stat: no buffer");
	if (len > IMPORT_MAX_INPUT) {
		rc = tdp_err_set(err, TDP_ELIMIT, "'%s' is larger than %zu MiB", p.name, IMPORT_MAX_INPUT >> 20);
		tdp_err_hint(err, "cut it to one perf stat run");
		return rc;
	}
	if (blank(buf, len)) {
		rc = tdp_err_set(err, TDP_EFORMAT, "'%s' is empty", p.name);
		tdp_err_hint(err, "%s", hint_formats);
		return rc;
	}
	r->format = import_detect(buf, len, &sep);
	if (r->format == IMPORT_FMT_UNKNOWN) {
		rc = tdp_err_set(err, TDP_EFORMAT, "'%s' is not perf stat output: no line holds a count", p.name);
		tdp_err_hint(err, "%s", hint_formats);
		goto out;
	}
	p.line = tdp_malloc(IMPORT_MAX_LINE + 1);
	if (!p.line) {
		rc = tdp_err_oom(err);
		goto out;
	}
	switch (r->format) {
	case IMPORT_FMT_CSV: rc = imp_read_csv(&p, sep); break;
	case IMPORT_FMT_JSON: rc = imp_read_json(&p); break;
	default: rc = imp_read_text(&p); break;
	}
	if (!rc)
		rc = finish(&p);
out:
	parser_release(&p);
	if (rc)
		import_result_release(r);
	return rc;
}

int import_perf_stat(const uint8_t *buf, size_t len, const char *name, struct countset *out, struct tdp_err *err)
{
	struct import_result r = IMPORT_RESULT_INIT;
	int rc, base;

	rc = import_perf_stat_result(buf, len, name, &r, err);
	if (rc)
		return rc;
	if (TDP_GROW(out->v, out->alloc, out->nr + r.counts.nr)) {
		rc = tdp_err_oom(err);
		goto out;
	}
	/* The counts move over (names and units with them); groups follow out's. */
	base = (int)countset_nr_groups(out);
	for (size_t i = 0; i < r.counts.nr; i++) {
		out->v[out->nr] = r.counts.v[i];
		if (out->v[out->nr].group >= 0)
			out->v[out->nr].group += base;
		out->nr++;
	}
	r.counts.nr = 0;
	out->backend = BACKEND_IMPORT;
	if (r.counts.elapsed_ns >= 0)
		out->elapsed_ns = r.counts.elapsed_ns;
out:
	import_result_release(&r);
	return rc;
}

int import_stream_check(void *ctx, const uint8_t *buf, size_t len, bool eof, struct tdp_err *err)
{
	struct import_stream *st = ctx;

	(void)eof;
	for (; st->checked < len; st->checked++) {
		if (buf[st->checked] == '\n')
			st->lines++;
		else if (!buf[st->checked])
			return tdp_err_set(err, TDP_EFORMAT,
					   "'%s': line %zu: holds a NUL byte (binary data, not perf stat output)",
					   st->name, st->lines + 1);
	}
	return 0;
}
