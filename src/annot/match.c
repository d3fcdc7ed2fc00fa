/* match.c: which function the user named (annot_name_matches(), annot_select(), annot.h). Pure. */
#include "annot/annot.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "symbol/symbol.h"

/* by count, then name, binary and address */
static int count_cmp(const void *x, const void *y)
{
	const struct annot_func *a = x, *b = y;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if ((c = strcmp(a->name ? a->name : "", b->name ? b->name : "")))
		return c;
	if ((c = strcmp(a->dso ? a->dso : "", b->dso ? b->dso : "")))
		return c;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int misp_cmp(const void *x, const void *y)
{
	const struct annot_func *a = x, *b = y;

	if (a->mispredicts != b->mispredicts)
		return a->mispredicts > b->mispredicts ? -1 : 1;
	return count_cmp(x, y);
}

void annot_funcs_rank(struct annot_func *v, size_t nr, bool by_mispredicts)
{
	if (nr > 1)
		qsort(v, nr, sizeof(*v), by_mispredicts ? misp_cmp : count_cmp);
}

/* name is w, or w followed by its parameter list */
static bool same_name(const char *name, const char *w)
{
	size_t n;

	if (!name || !w || !*w)
		return false;
	n = strlen(w);
	return !strncmp(name, w, n) && (name[n] == 0 || name[n] == '(');
}

bool annot_name_matches(const char *name, const char *want, const char *want_demangled)
{
	return same_name(name, want) || same_name(name, want_demangled);
}

static bool dso_matches(const char *dso, const char *want)
{
	size_t n, m;

	if (!want)
		return true;
	if (!dso)
		return false;
	n = strlen(dso);
	m = strlen(want);
	return !strcmp(dso, want) || (n > m && dso[n - m - 1] == '/' && !strcmp(dso + n - m, want));
}

static bool has_counts(const struct annot_func *f)
{
	return f->count || f->mispredicts;
}

static enum annot_sel hottest(const struct annot_func *v, size_t nr, bool prefer, size_t *chosen, size_t *listed,
			      size_t *nr_listed)
{
	*chosen = ANNOT_NONE;
	for (size_t i = 0; i < nr && prefer && *chosen == ANNOT_NONE; i++)
		if (v[i].preferred && has_counts(&v[i]))
			*chosen = i;
	for (size_t i = 0; i < nr && *chosen == ANNOT_NONE; i++)
		if (has_counts(&v[i]))
			*chosen = i;
	for (size_t i = 0; i < nr && *nr_listed < ANNOT_MAX_LISTED; i++)
		if (has_counts(&v[i]))
			listed[(*nr_listed)++] = i;
	return *chosen == ANNOT_NONE ? ANNOT_SEL_EMPTY : ANNOT_SEL_ONE;
}

/* No match: the names holding want, else the names closest to it, else the hottest (with counts, ranked). */
static enum annot_sel suggest(const struct annot_func *v, size_t nr, const char *want, size_t *listed,
			      size_t *nr_listed)
{
	const char **names;
	size_t *idx, n = 0, k;

	for (size_t i = 0; i < nr && *nr_listed < ANNOT_MAX_LISTED; i++)
		if (has_counts(&v[i]) && v[i].name && strstr(v[i].name, want))
			listed[(*nr_listed)++] = i;
	if (*nr_listed)
		return ANNOT_SEL_NONE;
	names = tdp_calloc(nr + 1, sizeof(*names));
	idx = tdp_calloc(nr + 1, sizeof(*idx));
	if (names && idx) {
		for (size_t i = 0; i < nr; i++)
			if (has_counts(&v[i]))
				idx[n] = i, names[n++] = v[i].name ? v[i].name : "";
		k = str_suggest(want, names, n, listed, ANNOT_MAX_LISTED);
		for (size_t i = 0; i < k; i++)
			listed[i] = idx[listed[i]];
		*nr_listed = k;
	}
	tdp_free(names);
	tdp_free(idx);
	if (!*nr_listed) {
		size_t unused;

		hottest(v, nr, false, &unused, listed, nr_listed);
	}
	return ANNOT_SEL_NONE;
}

enum annot_sel annot_select(const struct annot_func *v, size_t nr, const char *want, const char *dso, bool prefer,
			    size_t *chosen, size_t *listed, size_t *nr_listed)
{
	struct strbuf dem = STRBUF_INIT;
	size_t n = 0;

	*chosen = ANNOT_NONE;
	*nr_listed = 0;
	if (!want)
		return hottest(v, nr, prefer, chosen, listed, nr_listed);
	/* a mangled name names its demangled form (with parameters, as the listing names functions) */
	if ((want[0] == '_' && (want[1] == 'Z' || want[1] == 'R')) && symbol_demangle(want, 0, &dem) != 1)
		strbuf_reset(&dem);
	for (size_t i = 0; i < nr; i++) {
		if (!dso_matches(v[i].dso, dso) ||
		    !annot_name_matches(v[i].name, want, dem.len && !strbuf_failed(&dem) ? dem.buf : NULL))
			continue;
		if (n < ANNOT_MAX_LISTED)
			listed[n] = i;
		if (!n)
			*chosen = i;
		n++;
	}
	strbuf_release(&dem);
	*nr_listed = n < ANNOT_MAX_LISTED ? n : ANNOT_MAX_LISTED;
	if (n == 1)
		return ANNOT_SEL_ONE;
	*chosen = ANNOT_NONE;
	if (n > 1)
		return ANNOT_SEL_AMBIGUOUS;
	return suggest(v, nr, want, listed, nr_listed);
}

void annot_funcs_free(struct annot_func *v)
{
	tdp_free(v);
}
