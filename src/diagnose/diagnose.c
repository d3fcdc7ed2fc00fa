/* diagnose.c: the parts of the diagnosis every backend shares (see diagnose.h). */
#include "diagnose/diagnose.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "diagnose/diagnose-internal.h"
#include "model/advice.h"

void diag_init(struct diag *d)
{
	memset(d, 0, sizeof(*d));
	d->counts = (struct countset)COUNTSET_INIT;
	d->width = NAN;
	d->scope_insn_pct = NAN;
	d->category_value = NAN;
}

void diag_release(struct diag *d)
{
	for (size_t i = 0; i < d->nr_sites; i++) {
		tdp_free(d->sites[i].file);
		tdp_free(d->sites[i].function);
	}
	tdp_free(d->sites);
	for (size_t i = 0; i < d->footprint.nr; i++) {
		tdp_free(d->footprint.v[i].name);
		tdp_free(d->footprint.v[i].file);
	}
	for (size_t i = 0; i < d->nr_findings; i++) {
		tdp_free(d->findings[i].title);
		tdp_free(d->findings[i].evidence);
		tdp_free(d->findings[i].fix);
		tdp_free(d->findings[i].file);
		tdp_free(d->findings[i].function);
	}
	tdp_free(d->scope_object);
	tdp_free(d->loop_command);
	for (size_t i = 0; i < d->nr_bottlenecks; i++)
		tdp_free(d->bottlenecks[i].fix);
	byfunc_release(&d->functions);
	countset_release(&d->counts);
	tdp_free(d->tree_drill);
	for (size_t i = 0; i < d->nr_data; i++) {
		tdp_free(d->data[i].file);
		tdp_free(d->data[i].function);
	}
	diag_init(d);
}

const char *diag_scope_name(enum diag_scope s)
{
	return s == DIAG_SCOPE_PROGRAM ? "program" : "whole_run";
}

const char *diag_drill_name(enum diag_drill k)
{
	switch (k) {
	case DIAG_DRILL_BRANCHES: return "branches";
	case DIAG_DRILL_ICACHE: return "icache";
	case DIAG_DRILL_MEMORY: return "memory";
	case DIAG_DRILL_HOT_LOOP: return "hot_loop";
	case DIAG_DRILL_NONE: break;
	}
	return "none";
}

const char *diag_category(const struct metric_tree *t)
{
	const struct metric_node *largest = NULL;

	/* one verdict rule, the one topdown prints (model/classify.c) */
	if (t->verdict.category)
		return t->verdict.category;
	for (size_t i = 0; i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (n->level == 1 && !n->extra && !isnan(n->value) && (!largest || n->value > largest->value))
			largest = n;
	}
	return largest ? largest->key : NULL;
}

const struct metric_node *diag_largest_child(const struct metric_tree *t, const char *parent)
{
	const struct metric_node *best = NULL;

	for (size_t i = 0; parent && i < t->nr; i++) {
		const struct metric_node *n = &t->v[i];

		if (n->parent && !strcmp(n->parent, parent) && !isnan(n->value) && (!best || n->value > best->value))
			best = n;
	}
	return best;
}

const char *diag_next_step(const char *category)
{
	if (!category)
		return "";
	if (!strcmp(category, "bad_speculation"))
		return "make the branches ranked below predictable or branchless (a data dependency instead of a "
		       "jump, sorted or partitioned data, one target per indirect call site), then run 'tdprof why' "
		       "again: their mispredicts must fall";
	if (!strcmp(category, "frontend_bound"))
		return "shrink or reorder the hot code listed below (profile-guided optimisation or BOLT, hot "
		       "functions together, slow paths out of line, less inlining and unrolling)";
	if (!strcmp(category, "backend_bound"))
		return "cut the data misses at the sites ranked below (data layout and locality, arrays instead of "
		       "linked structures, blocking, a smaller working set)";
	if (!strcmp(category, "retiring"))
		return "the pipeline is busy with useful work: do less of it (a better algorithm, vectorisation, "
		       "fewer instructions per result) and measure the hot loop alone with 'tdprof loop'";
	return "see 'tdprof explain' for this node";
}

double diag_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void diag_add_where(struct strbuf *sb, const char *file, uint64_t line, const char *fn)
{
	if (!file && !line) { /* no debug info: never "???:? in ???" */
		strbuf_adds(sb, fn ? fn : "code with no symbol");
		strbuf_adds(sb, " (no source line)");
		return;
	}
	strbuf_addf(sb, "%s:", file ? file : "???");
	if (line)
		strbuf_addf(sb, "%llu", (unsigned long long)line);
	else
		strbuf_adds(sb, "?");
	strbuf_addf(sb, " in %s", fn ? fn : "???");
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

int diag_suggest_loop(struct diag *d, struct symbol_exe *x, const char *abs, const char *shown, const char *function,
		      struct tdp_err *err)
{
	struct symbol_exe_func_info info = { SYMBOL_LANG_UNKNOWN, -1 };
	struct strbuf sb = STRBUF_INIT;
	size_t len = strcspn(function, "(");
	char name[256];
	bool cxx, rust, known;
	int ret;

	snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), function);
	known = x && (symbol_exe_func_info(x, abs, name, &info) || symbol_exe_func_info(x, NULL, name, &info));
	rust = info.lang == SYMBOL_LANG_RUST || ends_with(shown, ".rs");
	cxx = info.lang == SYMBOL_LANG_CXX || ends_with(shown, ".cpp") || ends_with(shown, ".cc") ||
	      ends_with(shown, ".cxx") || ends_with(shown, ".C");
	if (rust || strstr(name, "::") || strchr(name, '<') || strchr(name, ' ') || (known && info.params > 0)) {
		if (rust)
			strbuf_addf(&sb, "'%s' is Rust: tdprof loop builds C and C++ only. Measure it with a benchmark "
				    "harness (criterion), or port its hot loop into a C function of no arguments and run "
				    "'tdprof loop FILE.c --function NAME'", name);
		else
			strbuf_addf(&sb, "'%s' %s: tdprof loop calls a function of no arguments by its plain name. "
				    "Write one in %s that calls it with representative data (e.g. 'long bench(void) "
				    "{ ... return %s(...); }') and run '%stdprof loop %s --function bench -- FLAGS'", name,
				    known && info.params > 0 ? "takes arguments" : "is a method, template or namespaced "
				    "function", shown, name, cxx ? "CC=g++ " : "", shown);
		ret = strbuf_failed(&sb) ? tdp_err_oom(err) : 0;
		if (!ret)
			snprintf(d->loop_note, sizeof(d->loop_note), "%.*s", (int)sizeof(d->loop_note) - 1, sb.buf);
		strbuf_release(&sb);
		return ret;
	}
	if (cxx)
		strbuf_adds(&sb, "CC=g++ ");
	strbuf_adds(&sb, "tdprof loop ");
	strbuf_add_shell_word(&sb, shown);
	strbuf_adds(&sb, " --function ");
	strbuf_adds(&sb, name);
	strbuf_adds(&sb, " -- ");
	if (!(x && abs && symbol_exe_cflags(x, abs, &sb)))
		strbuf_adds(&sb, "-O2");
	if (strbuf_failed(&sb)) {
		strbuf_release(&sb);
		return tdp_err_oom(err);
	}
	if (!known)
		snprintf(d->loop_note, sizeof(d->loop_note),
			 "the debug info does not say whether '%.200s' takes arguments: the command runs only if it "
			 "takes none", name);
	d->loop_command = strbuf_detach(&sb);
	return 0;
}

void diag_add_grouped(struct strbuf *sb, uint64_t v)
{
	char buf[STR_GROUPED_U64_MAX];

	strbuf_adds(sb, str_grouped_u64(v, buf, sizeof(buf)));
}

void diag_site_derive(const struct diag *d, struct diag_site *s)
{
	s->branches = s->c.cond_branches + s->c.ind_branches;
	s->mispredicts = s->c.cond_mispredicts + s->c.ind_mispredicts;
	s->mispredict_rate = s->branches ? 100.0 * (double)s->mispredicts / (double)s->branches : 0.0;
	s->insn_share = d->totals.instructions ? 100.0 * (double)s->c.instructions / (double)d->totals.instructions
					       : 0.0;
}

void diag_add_note(struct diag *d, const char *note)
{
	if (d->nr_notes < DIAG_MAX_NOTES)
		d->notes[d->nr_notes++] = note;
}

void diag_note_exit(struct diag *d, int exit_status)
{
	int sig = exit_status - 128;

	if (exit_status <= 128 || sig >= 65)
		return;
	snprintf(d->ended_note, sizeof(d->ended_note),
		 "the program died of signal %d (SIG%s) before it finished: the figures cover only what ran until "
		 "then, which may not be the work you meant to measure",
		 sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	diag_add_note(d, d->ended_note);
}

void diag_note_short_run(struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < d->counts.nr; i++) {
		const struct count *c = &d->counts.v[i];

		if (c->status != COUNT_OK || strcmp(c->name, "instructions") || c->value >= DIAG_SHORT_RUN_INSTRUCTIONS)
			continue;
		strbuf_adds(&sb, "the run executed only ");
		diag_add_grouped(&sb, (uint64_t)c->value);
		strbuf_adds(&sb, " instructions: start-up and one-time costs weigh heavily in figures this small; "
				 "measure a longer run (a larger input, or a loop around the work) before acting on them");
		if (!strbuf_failed(&sb)) {
			snprintf(d->short_note, sizeof(d->short_note), "%s", sb.buf);
			diag_add_note(d, d->short_note);
		}
		break;
	}
	strbuf_release(&sb);
}

/* A bullet of Markdown text as one plain sentence. */
static void plain_bullet(const char *s, size_t len, struct strbuf *sb)
{
	size_t start = sb->len;
	bool space = false;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '`')
			continue;
		if (c == '\n' || c == ' ' || c == '\t') {
			space = sb->len > start;
			continue;
		}
		if (space)
			strbuf_addch(sb, ' ');
		space = false;
		strbuf_addch(sb, c);
	}
	if (sb->len > start && sb->buf[sb->len - 1] == ':')
		strbuf_setlen(sb, sb->len - 1);
	if (sb->len > start && sb->buf[sb->len - 1] != '.')
		strbuf_addch(sb, '.');
}

static bool contains_nocase(const char *s, size_t len, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= len; i++)
		if (!strncasecmp(s + i, word, w))
			return true;
	return false;
}

bool diag_kb_fix(const char *node, const char *keyword, struct strbuf *sb)
{
	const struct advice_entry *e = advice_find(node);
	const char *first = NULL, *chosen = NULL;
	size_t first_len = 0, chosen_len = 0;

	if (!e || !e->fixes)
		return false;
	for (const char *p = e->fixes; *p;) {
		const char *eol = strchr(p, '\n');
		const char *b, *q;

		if (strncmp(p, "- ", 2)) {
			p = eol ? eol + 1 : p + strlen(p);
			continue;
		}
		/* the bullet runs to a blank line, a code block or the next bullet */
		b = p + 2;
		q = eol ? eol + 1 : b + strlen(b);
		while (*q && *q != '\n' && strncmp(q, "- ", 2)) {
			const char *t = q;

			while (*t == ' ')
				t++;
			if (!strncmp(t, "```", 3))
				break;
			eol = strchr(q, '\n');
			q = eol ? eol + 1 : q + strlen(q);
		}
		if (!first) {
			first = b;
			first_len = (size_t)(q - b);
		}
		if (keyword && contains_nocase(b, (size_t)(q - b), keyword)) {
			chosen = b;
			chosen_len = (size_t)(q - b);
			break;
		}
		p = q;
	}
	if (!chosen) {
		chosen = first;
		chosen_len = first_len;
	}
	if (!chosen)
		return false;
	plain_bullet(chosen, chosen_len, sb);
	return true;
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *r = s ? tdp_strdup(s) : NULL;

	if (s && !r)
		*failed = true;
	return r;
}

int diag_add_finding(struct diag *d, const struct diag_finding *f)
{
	struct diag_finding *n;
	bool failed = false;

	if (d->nr_findings >= DIAG_MAX_FINDINGS)
		return 0;
	n = &d->findings[d->nr_findings];
	*n = *f;
	n->title = dup_or_null(f->title ? f->title : "", &failed);
	n->evidence = dup_or_null(f->evidence ? f->evidence : "", &failed);
	n->fix = dup_or_null(f->fix ? f->fix : "", &failed);
	n->file = dup_or_null(f->file, &failed);
	n->function = dup_or_null(f->function, &failed);
	if (failed) {
		tdp_free(n->title);
		tdp_free(n->evidence);
		tdp_free(n->fix);
		tdp_free(n->file);
		tdp_free(n->function);
		return TDP_ENOMEM;
	}
	d->nr_findings++;
	return 0;
}

void diag_sort_findings(struct diag *d)
{
	/* insertion sort: a handful of findings, and it keeps equals in order */
	for (size_t i = 1; i < d->nr_findings; i++) {
		struct diag_finding f = d->findings[i];
		size_t j = i;
		double s = isnan(f.share) ? -1 : f.share;

		while (j > 0 && (isnan(d->findings[j - 1].share) ? -1 : d->findings[j - 1].share) < s) {
			d->findings[j] = d->findings[j - 1];
			j--;
		}
		d->findings[j] = f;
	}
}

/* PMU or import: the verdict and what to run next; the sites need a branch or miss trace. */
int diag_from_counts(struct diag *d, enum tdp_backend backend, const struct countset *cs,
		     const struct metric_tree *tree, const struct diag_opts *o, struct tdp_err *err)
{
	struct strbuf title = STRBUF_INIT, ev = STRBUF_INIT, fix = STRBUF_INIT;
	const struct metric_node *cat, *child;
	const char *cmd = o->command ? o->command : "CMD";
	int ret = 0;

	d->backend = backend;
	d->counts.backend = backend;
	for (size_t i = 0; i < cs->nr; i++) {
		const struct count *c = &cs->v[i];
		struct count *n = countset_add(&d->counts, c->name, c->unit, c->value, c->group);
		char *name, *unit;

		if (!n)
			return tdp_err_oom(err);
		name = n->name;
		unit = n->unit;
		*n = *c;
		n->name = name;
		n->unit = unit;
	}
	d->counts.elapsed_ns = cs->elapsed_ns;
	triage_metrics_compute(&d->counts, &d->triage);
	triage_route(&d->triage, &d->route);
	diag_note_short_run(d);
	d->tree = *tree;
	model_classify(&d->tree);
	d->has_tree = true;
	d->width = tree->slots;
	d->category = diag_category(&d->tree);
	if (!d->category)
		return 0;
	cat = metric_tree_find(&d->tree, d->category);
	child = diag_largest_child(&d->tree, d->category);
	d->category_value = cat ? cat->value : NAN;
	d->over_threshold = cat && cat->flagged;
	d->node = child ? child->key : NULL;
	d->next_step = diag_next_step(d->category);
	snprintf(d->reason, sizeof(d->reason), "%s is %.1f %% of slots%s", model_node_label(d->category),
		 d->category_value, d->over_threshold ? ", above its threshold" : ", the largest stall (none is above its threshold)");
	strbuf_addf(&title, "%s: %.1f %% of slots", model_node_label(d->category), d->category_value);
	strbuf_addf(&ev, "measured by the PMU over '%s'", cmd);
	if (child)
		strbuf_addf(&ev, "; mostly %s (%.1f %%)", model_node_label(child->key), child->value);
	if (!strcmp(d->category, "bad_speculation"))
		strbuf_addf(&fix, "Trace the mispredicting branches: 'tdprof branches record -o br.data -- %s', then "
				  "'tdprof branches report -i br.data'. ", cmd);
	diag_kb_fix(child ? child->key : d->category, NULL, &fix);
	if (strbuf_failed(&title) || strbuf_failed(&ev) || strbuf_failed(&fix))
		ret = tdp_err_oom(err);
	else if (diag_add_finding(d, &(struct diag_finding){ .title = title.buf, .category = d->category,
							     .node = child ? child->key : d->category,
							     .evidence = ev.buf, .site = -1, .fix = fix.buf,
							     .share = d->category_value }))
		ret = tdp_err_oom(err);
	diag_add_note(d, "the PMU gives the tree; the sites of the bottleneck need a trace: the next step "
			 "says which command records it");
	if (!ret)
		ret = diag_bottlenecks(d, err);
	strbuf_release(&title);
	strbuf_release(&ev);
	strbuf_release(&fix);
	return ret;
}
