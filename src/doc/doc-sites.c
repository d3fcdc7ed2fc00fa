/* doc-sites.c: a document's sites, their disassembly, edges and findings (see doc.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "doc/doc-internal.h"

int tdoc_split_symbol(const char *sym, char **fn, uint64_t *off, bool *has_off, struct tdp_err *err)
{
	const char *plus, *s = sym;
	size_t len;
	uint64_t v;

	*fn = NULL;
	*has_off = false;
	*off = 0;
	if (!s)
		return 0;
	if ((s[0] == '[') && s[1] && s[2] == ']' && s[3] == ' ')
		s += 4; /* perf's "[.] " / "[k] " */
	if (!*s || !strncmp(s, "0x", 2))
		return 0; /* an unresolved address: no function */
	plus = strrchr(s, '+');
	len = strlen(s);
	if (plus && str_to_u64(plus + 1, &v)) {
		len = (size_t)(plus - s);
		*off = v;
		*has_off = true;
	}
	*fn = tdp_strndup(s, len);
	return *fn ? 0 : tdp_err_oom(err);
}

static bool is_count_key(const char *k)
{
	static const char *const not_counts[] = { "line", "address", "addr", "ip", "offset", "rank", "column",
						  "pid", "func_size", "start", "end" };

	for (size_t i = 0; i < sizeof(not_counts) / sizeof(not_counts[0]); i++)
		if (!strcmp(k, not_counts[i]))
			return false;
	return true;
}

static void add_counts(struct tdoc_site *s, const json_t *o)
{
	const char *k;
	const json_t *v;

	json_object_foreach((json_t *)o, k, v) {
		if (json_is_object(v) && !strcmp(k, "counts")) {
			add_counts(s, v);
			continue;
		}
		if (!json_is_number(v) || !is_count_key(k) || s->nr_counts >= TDOC_MAX_COUNTS)
			continue;
		s->counts[s->nr_counts].name = k;
		s->counts[s->nr_counts++].value = json_number_value(v);
	}
}

double tdoc_site_count(const struct tdoc_site *s, const char *name)
{
	for (size_t i = 0; i < s->nr_counts; i++)
		if (!strcmp(s->counts[i].name, name))
			return s->counts[i].value;
	return NAN;
}

/* Disassembly lines a (strings, or {address, text|insn|asm, target|mark|..., in_line}) into s. */
static void read_disasm(struct pctx *c, struct tdoc_site *s, const json_t *a)
{
	const json_t *l;
	size_t i, n;

	if (json_is_object(a)) {
		const json_t *lines = json_object_get(a, "lines");

		a = lines ? lines : json_object_get(a, "instructions");
	}
	if (!json_is_array(a) || !json_array_size(a) || s->disasm)
		return;
	n = json_array_size(a) < TDOC_MAX_DISASM ? json_array_size(a) : TDOC_MAX_DISASM;
	s->disasm = tdp_calloc(n, sizeof(*s->disasm));
	if (!s->disasm) {
		doc_oom(c);
		return;
	}
	json_array_foreach(a, i, l) {
		struct tdoc_asm *x;

		if (i >= n)
			break;
		x = &s->disasm[s->nr_disasm];
		if (json_is_string(l)) {
			x->text = json_string_value(l);
		} else if (json_is_object(l)) {
			x->text = doc_str(c, l, "text", "disassembly");
			if (!x->text)
				x->text = doc_str(c, l, "insn", "disassembly");
			if (!x->text)
				x->text = doc_str(c, l, "asm", "disassembly");
			if (!doc_u64(c, l, "address", "disassembly", &x->address))
				doc_u64(c, l, "addr", "disassembly", &x->address);
			/* the site's own instruction: why's and branches report's "target" */
			x->mark = doc_bool(l, "target") || doc_bool(l, "mark") || doc_bool(l, "site");
			x->in_line = doc_bool(l, "in_line");
		}
		if (c->ret)
			return;
		if (x->text)
			s->nr_disasm++;
	}
}

/*
 * Disassembly kept beside the sites: branches report's "disassembly" [{address,
 * lines}] goes to the site at that address; why's drilldown.disassembly
 * {function, instructions} to its first site in that function.
 */
void doc_read_side_disasm(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "disassembly"), *o;
	const json_t *why = json_object_get(json_object_get(root, "drilldown"), "disassembly");
	size_t i;

	json_array_foreach(a, i, o) {
		uint64_t addr;

		if (!json_is_object(o) || !doc_u64(c, o, "address", "disassembly", &addr))
			continue;
		for (size_t k = 0; k < c->d->nr_sites; k++)
			if (c->d->sites[k].has_address && c->d->sites[k].address == addr) {
				read_disasm(c, &c->d->sites[k], json_object_get(o, "lines"));
				break;
			}
	}
	if (json_is_object(why) && c->d->nr_sites) {
		const char *fn = doc_str(c, why, "function", "drilldown.disassembly");
		struct tdoc_site *s = &c->d->sites[0];

		for (size_t k = 0; fn && k < c->d->nr_sites; k++)
			if (c->d->sites[k].function && !strcmp(c->d->sites[k].function, fn)) {
				s = &c->d->sites[k];
				break;
			}
		read_disasm(c, s, json_object_get(why, "instructions"));
	}
}

static void read_site(struct pctx *c, const json_t *o, struct tdoc_site *s)
{
	const char *sym;
	double line;
	char *fn = NULL;

	s->function = doc_str(c, o, "function", "sites");
	s->file = doc_str(c, o, "file", "sites");
	s->type = doc_str(c, o, "type", "sites");
	line = doc_num(c, o, "line", "sites");
	s->line = isfinite(line) && line > 0 && line < 1e12 ? (uint64_t)line : 0;
	s->has_address = doc_u64(c, o, "address", "sites", &s->address);
	if (!s->has_address)
		s->has_address = doc_u64(c, o, "addr", "sites", &s->address);
	s->has_offset = doc_u64(c, o, "offset", "sites", &s->offset);
	sym = doc_str(c, o, "symbol", "sites");
	if (c->ret)
		return;
	if (!s->has_offset && (sym || s->function)) {
		/* "parse_token+0x1a" in "symbol" (or in "function" itself) */
		if (tdoc_split_symbol(sym ? sym : s->function, &fn, &s->offset, &s->has_offset, c->err)) {
			doc_oom(c);
			return;
		}
		if (s->has_offset && !s->function)
			s->function = sym;
		tdp_free(fn);
	}
	add_counts(s, o);
	read_disasm(c, s, json_object_get(o, "disasm") ? json_object_get(o, "disasm")
						       : json_object_get(o, "disassembly"));
}

void doc_read_sites(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "sites"), *o;
	size_t i, n;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		doc_fail_type(c, NULL, "sites", "an array");
		return;
	}
	n = json_array_size(a);
	if (n > TDOC_MAX_SITES) {
		n = TDOC_MAX_SITES;
		c->d->sites_cut = true;
	}
	if (!n)
		return;
	c->d->sites = tdp_calloc(n, sizeof(*c->d->sites));
	if (!c->d->sites) {
		doc_oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		struct tdoc_site *s;

		if (i >= n)
			break;
		if (!json_is_object(o)) {
			doc_fail_type(c, NULL, "sites", "an array of objects");
			return;
		}
		s = &c->d->sites[c->d->nr_sites++];
		s->rank = i + 1;
		read_site(c, o, s);
		if (c->ret)
			return;
	}
}

/* One end of an edge: its address, symbol, function and offset. */
static void read_edge_end(struct pctx *c, const json_t *o, const char *end, uint64_t *addr, bool *has_addr,
			  const char **sym, char **fn, uint64_t *off, bool *has_off)
{
	char key[32];
	const char *f;

	*has_addr = doc_u64(c, o, end, "edges", addr);
	snprintf(key, sizeof(key), "%s_symbol", end);
	*sym = doc_str(c, o, key, "edges");
	snprintf(key, sizeof(key), "%s_function", end);
	f = doc_str(c, o, key, "edges");
	if (c->ret)
		return;
	if (tdoc_split_symbol(f ? f : *sym, fn, off, has_off, c->err)) {
		doc_oom(c);
		return;
	}
	snprintf(key, sizeof(key), "%s_offset", end);
	if (doc_u64(c, o, key, "edges", off))
		*has_off = true;
}

void doc_read_edges(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "edges"), *o;
	size_t i, n;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		doc_fail_type(c, NULL, "edges", "an array");
		return;
	}
	n = json_array_size(a);
	if (n > TDOC_MAX_EDGES) {
		n = TDOC_MAX_EDGES;
		c->d->edges_cut = true;
	}
	if (!n)
		return;
	c->d->edges = tdp_calloc(n, sizeof(*c->d->edges));
	if (!c->d->edges) {
		doc_oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		struct tdoc_edge *e;

		if (i >= n)
			break;
		if (!json_is_object(o)) {
			doc_fail_type(c, NULL, "edges", "an array of objects");
			return;
		}
		e = &c->d->edges[c->d->nr_edges++];
		read_edge_end(c, o, "from", &e->from, &e->has_from, &e->from_symbol, &e->from_function,
			      &e->from_offset, &e->has_from_offset);
		read_edge_end(c, o, "to", &e->to, &e->has_to, &e->to_symbol, &e->to_function, &e->to_offset,
			      &e->has_to_offset);
		e->count = doc_num(c, o, "count", "edges");
		e->mispredicts = doc_num(c, o, "mispredicts", "edges");
		if (c->ret)
			return;
	}
}

/* Where a function starts, as a site in it says (address - offset). */
struct fn_start {
	const char *fn;
	uint64_t start;
};

static int cmp_fn_start(const void *x, const void *y)
{
	return strcmp(((const struct fn_start *)x)->fn, ((const struct fn_start *)y)->fn);
}

static void end_offset(const struct fn_start *t, size_t nr, const char *fn, bool has_addr, uint64_t addr,
		       uint64_t *off, bool *has_off)
{
	struct fn_start key = { fn, 0 };
	const struct fn_start *f;

	if (*has_off || !fn || !has_addr || !nr)
		return;
	f = bsearch(&key, t, nr, sizeof(*t), cmp_fn_start);
	if (f && addr >= f->start) {
		*off = addr - f->start;
		*has_off = true;
	}
}

/*
 * Edges name their ends perf's way ("[.] parse_token"), without an offset; the
 * sites say where each of their functions starts, which gives the offsets.
 */
void doc_fill_edge_offsets(struct pctx *c)
{
	struct tdoc *d = c->d;
	struct fn_start *t;
	size_t nr = 0;

	if (!d->nr_edges || !d->nr_sites)
		return;
	t = tdp_calloc(d->nr_sites, sizeof(*t));
	if (!t) {
		doc_oom(c);
		return;
	}
	for (size_t i = 0; i < d->nr_sites; i++) {
		const struct tdoc_site *s = &d->sites[i];

		if (s->function && s->has_offset && s->has_address && s->address >= s->offset) {
			t[nr].fn = s->function;
			t[nr++].start = s->address - s->offset;
		}
	}
	qsort(t, nr, sizeof(*t), cmp_fn_start);
	for (size_t i = 0; i < d->nr_edges; i++) {
		struct tdoc_edge *e = &d->edges[i];

		end_offset(t, nr, e->from_function, e->has_from, e->from, &e->from_offset, &e->has_from_offset);
		end_offset(t, nr, e->to_function, e->has_to, e->to, &e->to_offset, &e->has_to_offset);
	}
	tdp_free(t);
}

void doc_read_findings(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "findings"), *o;
	size_t i, n;

	if (!json_is_array(a) || !json_array_size(a))
		return;
	n = json_array_size(a) < TDOC_MAX_FINDINGS ? json_array_size(a) : TDOC_MAX_FINDINGS;
	c->d->findings = tdp_calloc(n, sizeof(*c->d->findings));
	if (!c->d->findings) {
		doc_oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		struct tdoc_finding *f;

		if (i >= n)
			break;
		if (!json_is_object(o))
			continue;
		f = &c->d->findings[c->d->nr_findings++];
		f->title = doc_str(c, o, "title", "findings");
		f->category = doc_str(c, o, "category", "findings");
		f->evidence = doc_text(c, json_object_get(o, "evidence"));
		f->site = doc_text(c, json_object_get(o, "site"));
		f->fix = doc_text(c, json_object_get(o, "fix"));
		if (c->ret)
			return;
	}
}
