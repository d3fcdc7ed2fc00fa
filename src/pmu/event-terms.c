/*
 * event-terms.c: the terms of pmu/term=value,.../ and of sysfs aliases
 * ("event=0x00,umask=0x80"): perf's own terms, the PMU's format/ fields, and
 * value-less aliases, applied in order (a later term replaces an earlier one).
 */
#include "pmu/event-internal.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

static const char *const perf_terms[] = { "config", "config1", "config2", "period", "freq", "name" };
#define NR_PERF_TERMS (sizeof(perf_terms) / sizeof(perf_terms[0]))

/* The error context of one term. */
struct term_ctx {
	const struct pmu_sysfs *p;
	struct pmu_event *ev;
	const struct pmu_where *w;
	const char *terms;      /* start of the whole term list */
	const char *from_alias; /* alias whose file the terms come from, or NULL */
	struct tdp_err *err;
	size_t depth;           /* terms applied so far, aliases included */
};

static int term_syntax(const struct term_ctx *c, const char *at, const char *what)
{
	if (c->from_alias)
		return tdp_err_set(c->err, TDP_EFORMAT, "'%s/events/%s': %s in '%s'", c->p->dir, c->from_alias, what,
				   c->terms);
	return pmu_syntax_error(c->err, c->w, (size_t)(at - c->terms), what);
}

static int unknown_term(const struct term_ctx *c, const char *name, size_t nlen, bool has_value)
{
	struct pmu_names fmts = PMU_NAMES_INIT, aliases = PMU_NAMES_INIT;
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (has_value)
		ret = tdp_err_set(c->err, TDP_EUSAGE, "PMU '%s' has no term '%.*s'", c->p->name, (int)nlen, name);
	else
		ret = tdp_err_set(c->err, TDP_ENOENT, "event '%s/%.*s/' is not known: PMU '%s' has no event or term '%.*s'",
				  c->p->name, (int)nlen, name, c->p->name, (int)nlen, name);
	if (pmu_sysfs_entries(c->p, "format", false, &fmts) || pmu_sysfs_entries(c->p, "events", true, &aliases))
		goto out;
	{
		/* the closest names first, then what exists */
		const char **all = tdp_calloc(fmts.nr + aliases.nr + NR_PERF_TERMS + 1, sizeof(*all));
		size_t nr = 0, idx[3], n;
		char wanted[PMU_NAME_MAX];

		if (!all)
			goto out;
		for (size_t i = 0; i < fmts.nr; i++)
			all[nr++] = fmts.v[i];
		for (size_t i = 0; i < NR_PERF_TERMS; i++)
			all[nr++] = perf_terms[i];
		if (!has_value)
			for (size_t i = 0; i < aliases.nr; i++)
				all[nr++] = aliases.v[i];
		snprintf(wanted, sizeof(wanted), "%.*s", (int)(nlen < PMU_NAME_MAX ? nlen : PMU_NAME_MAX - 1), name);
		n = str_suggest(wanted, all, nr, idx, 3);
		if (n) {
			strbuf_adds(&sb, "did you mean ");
			for (size_t i = 0; i < n; i++)
				strbuf_addf(&sb, "%s'%s'", i == 0 ? "" : i + 1 == n ? " or " : ", ", all[idx[i]]);
			strbuf_adds(&sb, "? ");
		}
		tdp_free(all);
	}
	strbuf_addf(&sb, "terms of '%s': ", c->p->name);
	pmu_names_join(&sb, &fmts);
	strbuf_addf(&sb, "%sconfig, config1, config2, period, freq, name", fmts.nr ? ", " : "");
	if (!has_value && aliases.nr)
		strbuf_addf(&sb, "; it has %zu named events ('tdprof list events')", aliases.nr);
	if (!strbuf_failed(&sb))
		tdp_err_hint(c->err, "%s", sb.buf);
out:
	strbuf_release(&sb);
	pmu_names_release(&fmts);
	pmu_names_release(&aliases);
	return ret;
}

static int set_name(struct term_ctx *c, const char *val, size_t vlen)
{
	char *s;

	if (vlen >= 2 && ((val[0] == '\'' && val[vlen - 1] == '\'') || (val[0] == '"' && val[vlen - 1] == '"'))) {
		val++;
		vlen -= 2;
	}
	if (!vlen)
		return term_syntax(c, val, "empty name=");
	s = tdp_strndup(val, vlen);
	if (!s)
		return tdp_err_oom(c->err);
	tdp_free(c->ev->name);
	c->ev->name = s;
	c->ev->flags |= PMU_EVF_NAMED;
	return 0;
}

static int apply_terms(struct term_ctx *c, const char *terms, size_t len);

/* A term a generic event ("cycles/period=1000/") does not take: it has no PMU format fields. */
static int generic_term(const struct term_ctx *c, const char *t, size_t tlen)
{
	int ret = pmu_syntax_error(c->err, c->w, (size_t)(t - c->terms),
				   "a named event takes perf's terms period=, freq= and name= only");

	tdp_err_hint(c->err, "'%.*s' is a term of a PMU's format: spell the event with its PMU "
			     "('cpu/event=0x3c,%.*s/') or give its libpfm4 name ('tdprof list events')",
		     (int)tlen, t, (int)tlen, t);
	return ret;
}

static int apply_alias(struct term_ctx *c, const char *name, size_t nlen)
{
	struct pmu_alias *a = tdp_malloc(sizeof(*a));
	struct term_ctx sub = *c;
	char *unit = NULL;
	int r;

	if (!a)
		return tdp_err_oom(c->err);
	r = pmu_sysfs_alias(c->p, name, nlen, a, c->err);
	if (r <= 0)
		goto out;
	sub.from_alias = a->name;
	sub.terms = a->terms;
	r = apply_terms(&sub, a->terms, strlen(a->terms));
	c->depth = sub.depth;
	if (r)
		goto out;
	unit = tdp_strdup(a->unit);
	if (!unit) {
		r = tdp_err_oom(c->err);
		goto out;
	}
	tdp_free(c->ev->unit);
	c->ev->unit = unit;
	c->ev->scale = a->scale;
	r = 1;
out:
	tdp_free(a);
	return r;
}

static int parse_value(const struct term_ctx *c, const char *val, size_t vlen, uint64_t *out)
{
	if (!vlen)
		return term_syntax(c, val, "missing value after '='");
	if (!str_to_u64_n(val, vlen, out))
		return term_syntax(c, val, "expected a number (decimal or 0x hex)");
	return 0;
}

static int apply_format(struct term_ctx *c, const char *name, size_t nlen, const char *val, size_t vlen,
			bool has_value, bool *found)
{
	char fname[PMU_NAME_MAX];
	struct pmu_format f;
	uint64_t v = 1; /* a flag given alone ("edge") is set to 1, as in perf */
	int r;

	*found = false;
	memcpy(fname, name, nlen);
	fname[nlen] = '\0';
	r = pmu_sysfs_read_format(c->p, fname, &f);
	if (r == 0)
		return 0;
	*found = true;
	if (r < 0)
		return tdp_err_set(c->err, TDP_EFORMAT, "'%s/format/%s': not a format ('config:0-7')", c->p->dir, fname);
	if (has_value && (r = parse_value(c, val, vlen, &v)))
		return r;
	if (!pmu_format_put(&f, v, &c->ev->attr)) {
		if (c->from_alias)
			return tdp_err_set(c->err, TDP_EFORMAT, "'%s/events/%s': value 0x%llx is too big for '%s'",
					   c->p->dir, c->from_alias, (unsigned long long)v, fname);
		return tdp_err_set(c->err, TDP_EUSAGE, "value 0x%llx is too big for '%s' of PMU '%s' (at most 0x%llx)",
				   (unsigned long long)v, fname, c->p->name, (unsigned long long)pmu_format_max(&f));
	}
	return 0;
}

static int apply_term(struct term_ctx *c, const char *t, size_t tlen)
{
	const char *eq = memchr(t, '=', tlen);
	size_t nlen = eq ? (size_t)(eq - t) : tlen;
	const char *val = eq ? eq + 1 : t + tlen;
	size_t vlen = eq ? tlen - nlen - 1 : 0;
	uint64_t v;
	bool found;
	int r;

	if (!nlen)
		return term_syntax(c, t, eq ? "missing term name before '='" : "empty term");
	if (!pmu_name_ok(t, nlen))
		return term_syntax(c, t, "invalid term name");
	if (++c->depth > PMU_TERMS_MAX)
		return tdp_err_set(c->err, TDP_ELIMIT, "more than %d terms in one event", PMU_TERMS_MAX);
	if (eq && nlen == 4 && !memcmp(t, "name", 4))
		return set_name(c, val, vlen);
	if (eq && vlen == 1 && *val == '?' && c->from_alias)
		return 0; /* "ldlat=?": a value the user gives in a later term */
	for (size_t i = 0; i < NR_PERF_TERMS; i++) {
		if (strlen(perf_terms[i]) != nlen || memcmp(perf_terms[i], t, nlen))
			continue;
		if (!c->p && i < 3)
			break; /* a generic event's config is its name's */
		if (!eq)
			return term_syntax(c, t, "this term needs a value");
		if ((r = parse_value(c, val, vlen, &v)))
			return r;
		switch (i) {
		case 0:
			c->ev->attr.config = v;
			break;
		case 1:
			c->ev->attr.config1 = v;
			break;
		case 2:
			c->ev->attr.config2 = v;
			break;
		case 3:
			c->ev->attr.sample_period = v;
			c->ev->attr.freq = 0;
			break;
		default:
			c->ev->attr.sample_freq = v;
			c->ev->attr.freq = 1;
			break;
		}
		return 0;
	}
	if (!c->p)
		return generic_term(c, t, tlen);
	r = apply_format(c, t, nlen, val, vlen, eq != NULL, &found);
	if (r || found)
		return r;
	if (!eq && !c->from_alias) {
		r = apply_alias(c, t, nlen);
		if (r)
			return r < 0 ? r : 0;
	}
	if (c->from_alias)
		return tdp_err_set(c->err, TDP_EFORMAT, "'%s/events/%s': PMU '%s' has no term '%.*s'", c->p->dir,
				   c->from_alias, c->p->name, (int)nlen, t);
	return unknown_term(c, t, nlen, eq != NULL);
}

static int apply_terms(struct term_ctx *c, const char *terms, size_t len)
{
	const char *p = terms, *end = terms + len;

	if (!len)
		return term_syntax(c, terms, "no terms between '/' and '/'");
	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *te = comma ? comma : end;
		int r = apply_term(c, p, (size_t)(te - p));

		if (r)
			return r;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

int pmu_sysfs_apply_terms(const struct pmu_sysfs *p, const char *terms, size_t len, struct pmu_event *ev,
			  const struct pmu_where *w, const char *from_alias, struct tdp_err *err)
{
	struct term_ctx c = { p, ev, w, terms, from_alias, err, 0 };

	return apply_terms(&c, terms, len);
}

int pmu_generic_apply_terms(const char *terms, size_t len, size_t name_len, struct pmu_event *ev,
			    const struct pmu_where *w, struct tdp_err *err)
{
	struct pmu_where tw = { w->spec, w->off + name_len + 1 };
	struct term_ctx c = { NULL, ev, &tw, terms, NULL, err, 0 };

	return apply_terms(&c, terms, len);
}
