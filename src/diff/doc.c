/* doc.c: a tdprof JSON document read back into struct tdoc (see doc.h). */
#include "diff/doc.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "model/model.h"

#define TDOC_TEXT_DEPTH 4     /* nesting shown when an object becomes text */
#define TDOC_TEXT_MAX 4096    /* bytes of such a text */

static const char *const kind_names[] = {
	[TDOC_TOPDOWN] = "topdown",
	[TDOC_WHY] = "why",
	[TDOC_BRANCHES] = "branches report",
};

const char *tdoc_kind_name(enum tdoc_kind k)
{
	return (size_t)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "unknown";
}

/* The parse in progress: the document, its name, the first error. */
struct pctx {
	struct tdoc *d;
	struct tdp_err *err;
	int ret;
};

static int fail_type(struct pctx *c, const char *where, const char *key, const char *want)
{
	if (!c->ret)
		c->ret = tdp_err_set(c->err, TDP_EFORMAT, "'%s': %s%s'%s' is not %s", c->d->name, where ? where : "",
				     where ? ": " : "", key, want);
	return c->ret;
}

static int oom(struct pctx *c)
{
	if (!c->ret)
		c->ret = tdp_err_oom(c->err);
	return c->ret;
}

/* A string member (NULL when absent or null). */
static const char *get_str(struct pctx *c, const json_t *o, const char *key, const char *where)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v)) {
		fail_type(c, where, key, "a string");
		return NULL;
	}
	return json_string_value(v);
}

/* A number member (NAN when absent or null). */
static double get_num(struct pctx *c, const json_t *o, const char *key, const char *where)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NAN;
	if (!json_is_number(v)) {
		fail_type(c, where, key, "a number");
		return NAN;
	}
	return json_number_value(v);
}

static bool get_bool(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

/* An address or offset: a number, or a string "0x..." or decimal. */
static bool get_u64(struct pctx *c, const json_t *o, const char *key, const char *where, uint64_t *out)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return false;
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return true;
	}
	if (json_is_string(v) && str_to_u64(json_string_value(v), out))
		return true;
	fail_type(c, where, key, "an address (\"0x...\" or a number)");
	return false;
}

/* A heap copy kept until tdoc_free (strings made here rather than borrowed). */
static char *own(struct pctx *c, struct strbuf *sb)
{
	char *s;

	if (strbuf_failed(sb)) {
		strbuf_release(sb);
		oom(c);
		return NULL;
	}
	s = strbuf_detach(sb);
	if (!s)
		oom(c);
	return s;
}

/* A JSON value in words: strings as they are, objects as "key: value, ...". */
static void value_text(const json_t *v, int depth, struct strbuf *sb)
{
	const char *k;
	const json_t *m;
	size_t i, n = 0;

	if (sb->len > TDOC_TEXT_MAX)
		return;
	if (json_is_string(v)) {
		strbuf_adds(sb, json_string_value(v));
	} else if (json_is_integer(v)) {
		strbuf_addf(sb, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		strbuf_addf(sb, "%.4g", json_real_value(v));
	} else if (json_is_boolean(v)) {
		strbuf_adds(sb, json_is_true(v) ? "yes" : "no");
	} else if (json_is_null(v)) {
		strbuf_adds(sb, "-");
	} else if (depth >= TDOC_TEXT_DEPTH) {
		strbuf_adds(sb, "...");
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, m) {
			if (i)
				strbuf_adds(sb, "; ");
			value_text(m, depth + 1, sb);
		}
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, m) {
			if (json_is_null(m))
				continue;
			strbuf_addf(sb, "%s%s: ", n++ ? ", " : "", k);
			value_text(m, depth + 1, sb);
		}
	}
}

static char *text_of(struct pctx *c, const json_t *v)
{
	struct strbuf sb = STRBUF_INIT;

	if (!v || json_is_null(v))
		return NULL;
	value_text(v, 0, &sb);
	return own(c, &sb);
}

/* ---------------------------------------------------------------------------
 * Kind and header
 */

/*
 * The kind: a top-level "kind" naming one (a later version may write it), else
 * the keys only one kind has. Not "command": why's is the workload it ran.
 */
static int find_kind(struct pctx *c, const json_t *root)
{
	const char *kind = get_str(c, root, "kind", NULL);
	const char *hint = "give documents of 'tdprof topdown --json', 'tdprof why --json' or "
			   "'tdprof branches report --json'";

	if (c->ret)
		return c->ret;
	if (kind && !strcmp(kind, "diff")) {
		c->ret = tdp_err_set(c->err, TDP_EFORMAT, "'%s' is the output of 'tdprof diff'", c->d->name);
		tdp_err_hint(c->err, "compare the documents it was made from");
		return c->ret;
	}
	if (kind && !strcmp(kind, "topdown"))
		c->d->kind = TDOC_TOPDOWN;
	else if (kind && !strcmp(kind, "why"))
		c->d->kind = TDOC_WHY;
	else if (kind && (!strcmp(kind, "branches report") || !strcmp(kind, "branches")))
		c->d->kind = TDOC_BRANCHES;
	else if (json_object_get(root, "edges") || json_object_get(root, "branch_entries"))
		c->d->kind = TDOC_BRANCHES;
	else if (json_object_get(root, "findings") || json_object_get(root, "drilldown"))
		c->d->kind = TDOC_WHY;
	else if (json_object_get(root, "level1"))
		c->d->kind = TDOC_TOPDOWN;
	else
		c->ret = tdp_err_set(c->err, TDP_EFORMAT,
				     "'%s' is not a tdprof document: it has none of 'level1', 'findings', 'edges'",
				     c->d->name);
	if (c->ret)
		tdp_err_hint(c->err, "%s", hint);
	return c->ret;
}

/* The simulated machine in words: "generic: a modern desktop core ..." */
static char *machine_text(struct pctx *c, const json_t *m)
{
	const char *name = json_is_object(m) ? get_str(c, m, "name", "machine") : NULL;
	const char *desc = json_is_object(m) ? get_str(c, m, "description", "machine") : NULL;
	struct strbuf sb = STRBUF_INIT;

	if (!name && !desc)
		return text_of(c, m);
	if (name && desc && !strncmp(desc, name, strlen(name)))
		name = NULL; /* the description starts with the name already */
	strbuf_addf(&sb, "%s%s%s", name ? name : "", name && desc ? ": " : "", desc ? desc : "");
	return own(c, &sb);
}

static void read_header(struct pctx *c, const json_t *root)
{
	struct tdoc *d = c->d;
	const json_t *model = json_object_get(root, "model"), *machine = json_object_get(root, "machine");
	double level = get_num(c, root, "level", NULL);

	d->backend = get_str(c, root, "backend", NULL);
	d->cpu = get_str(c, root, "cpu", NULL);
	d->model_kind = get_str(c, root, "model_kind", NULL);
	d->source = get_str(c, root, "source", NULL);
	if (!d->source) /* why names what it ran "command" */
		d->source = get_str(c, root, "command", NULL);
	if (!d->source && d->kind == TDOC_BRANCHES) /* a branch report, the recording it read */
		d->source = get_str(c, root, "file", NULL);
	if (json_is_object(model))
		d->model_description = get_str(c, model, "description", "model");
	if (!machine)
		machine = json_object_get(root, "sim_machine");
	if (machine && !json_is_null(machine))
		d->machine = machine_text(c, machine);
	d->level = isfinite(level) && level >= 0 && level <= 9 ? (int)level : 0;
	d->level1_sum = get_num(c, root, "level1_sum", NULL);
}

/* ---------------------------------------------------------------------------
 * Nodes
 */

static struct tdoc_node *add_node(struct pctx *c, const char *key, const char *parent, int level)
{
	struct tdoc_node *n;

	for (size_t i = 0; i < c->d->nr_nodes; i++)
		if (!strcmp(c->d->nodes[i].key, key) &&
		    ((!parent && !c->d->nodes[i].parent) ||
		     (parent && c->d->nodes[i].parent && !strcmp(parent, c->d->nodes[i].parent))))
			return &c->d->nodes[i];
	if (c->d->nr_nodes >= TDOC_MAX_NODES) {
		if (!c->ret)
			c->ret = tdp_err_set(c->err, TDP_ELIMIT, "'%s': more than %d nodes in the tree", c->d->name,
					     TDOC_MAX_NODES);
		return NULL;
	}
	n = &c->d->nodes[c->d->nr_nodes++];
	memset(n, 0, sizeof(*n));
	n->key = key;
	n->parent = parent;
	n->level = level;
	n->label = model_node_label(key);
	n->value = NAN;
	n->threshold = NAN;
	return n;
}

static void nodes_from_array(struct pctx *c, const json_t *nodes)
{
	size_t i;
	const json_t *o;

	json_array_foreach(nodes, i, o) {
		const char *key, *parent, *label;
		double level;
		struct tdoc_node *n;

		if (!json_is_object(o)) {
			fail_type(c, NULL, "nodes", "an array of objects");
			return;
		}
		key = get_str(c, o, "key", "nodes");
		parent = get_str(c, o, "parent", "nodes");
		label = get_str(c, o, "label", "nodes");
		level = get_num(c, o, "level", "nodes");
		if (c->ret)
			return;
		if (!key) {
			fail_type(c, "nodes", "key", "a string");
			return;
		}
		n = add_node(c, key, parent, parent ? 2 : 1);
		if (!n)
			return;
		if (level == 1 || level == 2)
			n->level = (int)level;
		if (label)
			n->label = label;
		n->extra = get_bool(o, "extra");
		n->value = get_num(c, o, "value", "nodes");
		n->threshold = get_num(c, o, "threshold", "nodes");
		n->flagged = get_bool(o, "flagged");
	}
}

/* level1 / cycle_accounting / level2 objects (documents without "nodes"). */
static void nodes_from_levels(struct pctx *c, const json_t *root)
{
	const json_t *l1 = json_object_get(root, "level1"), *l2 = json_object_get(root, "level2");
	const json_t *ca = json_object_get(root, "cycle_accounting"), *extra = json_object_get(root, "extra");
	const json_t *thr = json_object_get(root, "thresholds"), *flagged = json_object_get(root, "flagged");
	const char *k, *pk;
	const json_t *v, *p;
	size_t i;

	/* null: not measured or not estimable here (why's level2 on some backends) */
	if (l1 && !json_is_object(l1) && !json_is_null(l1))
		fail_type(c, NULL, "level1", "an object");
	if (l2 && !json_is_object(l2) && !json_is_null(l2))
		fail_type(c, NULL, "level2", "an object");
	if (ca && !json_is_object(ca) && !json_is_null(ca))
		fail_type(c, NULL, "cycle_accounting", "an object");
	if (!json_is_object(ca))
		ca = NULL;
	if (c->ret)
		return;
	json_object_foreach((json_t *)l1, k, v) {
		struct tdoc_node *n;

		if (ca && json_is_null(v))
			continue; /* cycle accounting: the four names are null by contract */
		if (!json_is_number(v) && !json_is_null(v)) {
			fail_type(c, "level1", k, "a number");
			return;
		}
		n = add_node(c, k, NULL, 1);
		if (!n)
			return;
		n->value = json_is_number(v) ? json_number_value(v) : NAN;
	}
	json_object_foreach((json_t *)ca, k, v) {
		struct tdoc_node *n = add_node(c, k, NULL, 1);

		if (!n)
			return;
		n->value = json_is_number(v) ? json_number_value(v) : NAN;
	}
	json_object_foreach((json_t *)l2, pk, p) {
		if (json_is_null(p))
			continue;
		if (!json_is_object(p)) {
			fail_type(c, "level2", pk, "an object");
			return;
		}
		json_object_foreach((json_t *)p, k, v) {
			struct tdoc_node *n;

			if (!json_is_number(v) && !json_is_null(v)) {
				fail_type(c, "level2", k, "a number");
				return;
			}
			n = add_node(c, k, pk, 2);
			if (!n)
				return;
			n->value = json_is_number(v) ? json_number_value(v) : NAN;
		}
	}
	for (size_t j = 0; j < c->d->nr_nodes; j++) {
		struct tdoc_node *n = &c->d->nodes[j];

		if (json_is_object(thr))
			n->threshold = get_num(c, thr, n->key, "thresholds");
		json_array_foreach(flagged, i, v)
			if (json_is_string(v) && !strcmp(json_string_value(v), n->key))
				n->flagged = true;
		json_array_foreach(extra, i, v)
			if (json_is_string(v) && !strcmp(json_string_value(v), n->key))
				n->extra = true;
	}
}

/* A node's value in one run object {level1: {...}, level2: {parent: {...}}}. */
static double run_value(const json_t *run, const struct tdoc_node *n)
{
	const json_t *v;

	if (n->parent) {
		v = json_object_get(json_object_get(json_object_get(run, "level2"), n->parent), n->key);
	} else {
		v = json_object_get(json_object_get(run, "level1"), n->key);
		if (!v)
			v = json_object_get(json_object_get(run, "cycle_accounting"), n->key);
	}
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void read_runs(struct pctx *c, const json_t *root)
{
	struct tdoc *d = c->d;
	const json_t *runs = json_object_get(root, "runs"), *rep = json_object_get(root, "repeat");
	size_t nr = json_is_array(runs) ? json_array_size(runs) : 0;
	double *x = NULL;

	if (json_is_object(rep)) {
		double req = get_num(c, rep, "requested", "repeat");

		d->runs_requested = isfinite(req) && req >= 1 && req <= TDOC_MAX_RUNS ? (size_t)req : 0;
		d->deterministic = get_bool(rep, "deterministic");
		d->repeat_note = get_str(c, rep, "note", "repeat");
	}
	if (nr > TDOC_MAX_RUNS) {
		c->ret = tdp_err_set(c->err, TDP_ELIMIT, "'%s': %zu runs (at most %d)", d->name, nr, TDOC_MAX_RUNS);
		return;
	}
	d->runs = nr ? nr : 1;
	if (nr) {
		x = tdp_calloc(nr, sizeof(*x));
		if (!x) {
			oom(c);
			return;
		}
	}
	for (size_t i = 0; i < d->nr_nodes; i++) {
		struct tdoc_node *n = &d->nodes[i];

		if (nr) {
			for (size_t r = 0; r < nr; r++)
				x[r] = run_value(json_array_get(runs, r), n);
			stats_summarize(x, nr, &n->s);
		} else {
			stats_summarize(&n->value, 1, &n->s);
		}
	}
	tdp_free(x);
	if (!d->runs_requested)
		d->runs_requested = d->runs;
}

static void read_verdict(struct pctx *c, const json_t *root)
{
	const json_t *v = json_object_get(root, "verdict");
	struct tdoc_verdict *o = &c->d->verdict;

	o->value = o->node_value = NAN;
	if (!v || json_is_null(v))
		return;
	if (!json_is_object(v)) {
		fail_type(c, NULL, "verdict", "an object");
		return;
	}
	o->category = get_str(c, v, "category", "verdict");
	o->node = get_str(c, v, "node", "verdict");
	o->value = get_num(c, v, "value", "verdict");
	o->node_value = get_num(c, v, "node_value", "verdict");
	o->over_threshold = get_bool(v, "over_threshold");
	o->next_step = get_str(c, v, "next_step", "verdict");
	o->advice = get_str(c, v, "advice", "verdict");
}

/* ---------------------------------------------------------------------------
 * Sites, edges, findings
 */

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
		oom(c);
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
			x->text = get_str(c, l, "text", "disassembly");
			if (!x->text)
				x->text = get_str(c, l, "insn", "disassembly");
			if (!x->text)
				x->text = get_str(c, l, "asm", "disassembly");
			if (!get_u64(c, l, "address", "disassembly", &x->address))
				get_u64(c, l, "addr", "disassembly", &x->address);
			/* the site's own instruction: why's and branches report's "target" */
			x->mark = get_bool(l, "target") || get_bool(l, "mark") || get_bool(l, "site");
			x->in_line = get_bool(l, "in_line");
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
static void read_side_disasm(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "disassembly"), *o;
	const json_t *why = json_object_get(json_object_get(root, "drilldown"), "disassembly");
	size_t i;

	json_array_foreach(a, i, o) {
		uint64_t addr;

		if (!json_is_object(o) || !get_u64(c, o, "address", "disassembly", &addr))
			continue;
		for (size_t k = 0; k < c->d->nr_sites; k++)
			if (c->d->sites[k].has_address && c->d->sites[k].address == addr) {
				read_disasm(c, &c->d->sites[k], json_object_get(o, "lines"));
				break;
			}
	}
	if (json_is_object(why) && c->d->nr_sites) {
		const char *fn = get_str(c, why, "function", "drilldown.disassembly");
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

	s->function = get_str(c, o, "function", "sites");
	s->file = get_str(c, o, "file", "sites");
	s->type = get_str(c, o, "type", "sites");
	line = get_num(c, o, "line", "sites");
	s->line = isfinite(line) && line > 0 && line < 1e12 ? (uint64_t)line : 0;
	s->has_address = get_u64(c, o, "address", "sites", &s->address);
	if (!s->has_address)
		s->has_address = get_u64(c, o, "addr", "sites", &s->address);
	s->has_offset = get_u64(c, o, "offset", "sites", &s->offset);
	sym = get_str(c, o, "symbol", "sites");
	if (c->ret)
		return;
	if (!s->has_offset && (sym || s->function)) {
		/* "parse_token+0x1a" in "symbol" (or in "function" itself) */
		if (tdoc_split_symbol(sym ? sym : s->function, &fn, &s->offset, &s->has_offset, c->err)) {
			oom(c);
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

static void read_sites(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "sites"), *o;
	size_t i, n;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		fail_type(c, NULL, "sites", "an array");
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
		oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		struct tdoc_site *s;

		if (i >= n)
			break;
		if (!json_is_object(o)) {
			fail_type(c, NULL, "sites", "an array of objects");
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

	*has_addr = get_u64(c, o, end, "edges", addr);
	snprintf(key, sizeof(key), "%s_symbol", end);
	*sym = get_str(c, o, key, "edges");
	snprintf(key, sizeof(key), "%s_function", end);
	f = get_str(c, o, key, "edges");
	if (c->ret)
		return;
	if (tdoc_split_symbol(f ? f : *sym, fn, off, has_off, c->err)) {
		oom(c);
		return;
	}
	snprintf(key, sizeof(key), "%s_offset", end);
	if (get_u64(c, o, key, "edges", off))
		*has_off = true;
}

static void read_edges(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "edges"), *o;
	size_t i, n;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		fail_type(c, NULL, "edges", "an array");
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
		oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		struct tdoc_edge *e;

		if (i >= n)
			break;
		if (!json_is_object(o)) {
			fail_type(c, NULL, "edges", "an array of objects");
			return;
		}
		e = &c->d->edges[c->d->nr_edges++];
		read_edge_end(c, o, "from", &e->from, &e->has_from, &e->from_symbol, &e->from_function,
			      &e->from_offset, &e->has_from_offset);
		read_edge_end(c, o, "to", &e->to, &e->has_to, &e->to_symbol, &e->to_function, &e->to_offset,
			      &e->has_to_offset);
		e->count = get_num(c, o, "count", "edges");
		e->mispredicts = get_num(c, o, "mispredicts", "edges");
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
static void fill_edge_offsets(struct pctx *c)
{
	struct tdoc *d = c->d;
	struct fn_start *t;
	size_t nr = 0;

	if (!d->nr_edges || !d->nr_sites)
		return;
	t = tdp_calloc(d->nr_sites, sizeof(*t));
	if (!t) {
		oom(c);
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

static void read_findings(struct pctx *c, const json_t *root)
{
	const json_t *a = json_object_get(root, "findings"), *o;
	size_t i, n;

	if (!json_is_array(a) || !json_array_size(a))
		return;
	n = json_array_size(a) < TDOC_MAX_FINDINGS ? json_array_size(a) : TDOC_MAX_FINDINGS;
	c->d->findings = tdp_calloc(n, sizeof(*c->d->findings));
	if (!c->d->findings) {
		oom(c);
		return;
	}
	json_array_foreach(a, i, o) {
		struct tdoc_finding *f;

		if (i >= n)
			break;
		if (!json_is_object(o))
			continue;
		f = &c->d->findings[c->d->nr_findings++];
		f->title = get_str(c, o, "title", "findings");
		f->category = get_str(c, o, "category", "findings");
		f->evidence = text_of(c, json_object_get(o, "evidence"));
		f->site = text_of(c, json_object_get(o, "site"));
		f->fix = text_of(c, json_object_get(o, "fix"));
		if (c->ret)
			return;
	}
}

static void read_misc(struct pctx *c, const json_t *root)
{
	static const char *const summary_keys[] = { "samples", "samples_with_branches", "branch_entries",
						    "mispredicted_entries", "predicted_entries", "lost_samples" };
	const json_t *notes = json_object_get(root, "notes"), *v;
	size_t i;

	json_array_foreach(notes, i, v)
		if (json_is_string(v) && c->d->nr_notes < TDOC_MAX_NOTES)
			c->d->notes[c->d->nr_notes++] = json_string_value(v);
	for (i = 0; i < sizeof(summary_keys) / sizeof(summary_keys[0]); i++) {
		v = json_object_get(root, summary_keys[i]);
		if (json_is_number(v) && c->d->nr_summary < TDOC_MAX_COUNTS) {
			c->d->summary[c->d->nr_summary].name = summary_keys[i];
			c->d->summary[c->d->nr_summary++].value = json_number_value(v);
		}
	}
}

int tdoc_parse(const uint8_t *buf, size_t len, const char *name, struct tdoc **out, struct tdp_err *err)
{
	struct tdoc *d;
	struct pctx c = { NULL, err, 0 };
	json_error_t jerr;
	json_t *root;
	const json_t *nodes;

	if (len > TDOC_MAX_BYTES)
		return tdp_err_set(err, TDP_ELIMIT, "'%s' is larger than %u MiB", name, TDOC_MAX_BYTES >> 20);
	d = tdp_calloc(1, sizeof(*d));
	if (!d)
		return tdp_err_oom(err);
	d->name = tdp_strdup(name);
	if (!d->name) {
		tdp_free(d);
		return tdp_err_oom(err);
	}
	d->level1_sum = NAN;
	c.d = d;
	root = json_loadb((const char *)buf, len, 0, &jerr);
	if (!root) {
		c.ret = tdp_err_set(err, TDP_EFORMAT, "'%s': line %d column %d: %s", name, jerr.line, jerr.column,
				    jerr.text);
		tdp_err_hint(err, "give a document written by 'tdprof topdown|why|branches report --json'");
		goto out;
	}
	d->root = root;
	if (!json_is_object(root)) {
		c.ret = tdp_err_set(err, TDP_EFORMAT, "'%s': the document is not a JSON object", name);
		goto out;
	}
	if (find_kind(&c, root))
		goto out;
	read_header(&c, root);
	nodes = json_object_get(root, "nodes");
	if (json_is_array(nodes))
		nodes_from_array(&c, nodes);
	else if (!c.ret)
		nodes_from_levels(&c, root);
	if (!c.ret)
		read_runs(&c, root);
	if (!c.ret)
		read_verdict(&c, root);
	if (!c.ret)
		read_sites(&c, root);
	if (!c.ret)
		read_side_disasm(&c, root);
	if (!c.ret)
		read_edges(&c, root);
	if (!c.ret)
		fill_edge_offsets(&c);
	if (!c.ret)
		read_findings(&c, root);
	if (!c.ret)
		read_misc(&c, root);
out:
	if (c.ret) {
		tdoc_free(d);
		return c.ret;
	}
	*out = d;
	return 0;
}

void tdoc_free(struct tdoc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr_sites; i++) {
		for (size_t j = 0; j < d->sites[i].nr_source; j++)
			tdp_free(d->sites[i].source[j].text);
		tdp_free(d->sites[i].source);
		tdp_free(d->sites[i].disasm);
	}
	tdp_free(d->sites);
	for (size_t i = 0; i < d->nr_edges; i++) {
		tdp_free(d->edges[i].from_function);
		tdp_free(d->edges[i].to_function);
	}
	tdp_free(d->edges);
	for (size_t i = 0; i < d->nr_findings; i++) {
		tdp_free(d->findings[i].evidence);
		tdp_free(d->findings[i].site);
		tdp_free(d->findings[i].fix);
	}
	tdp_free(d->findings);
	tdp_free(d->machine);
	tdp_free(d->name);
	json_decref((json_t *)d->root);
	tdp_free(d);
}

const struct tdoc_node *tdoc_find(const struct tdoc *d, const char *key)
{
	for (size_t i = 0; i < d->nr_nodes; i++)
		if (!strcmp(d->nodes[i].key, key))
			return &d->nodes[i];
	return NULL;
}
