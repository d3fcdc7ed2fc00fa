/* topdown-byfunc.c: the functions section of `tdprof topdown --by function` (see topdown.h). */
#include "report/topdown.h"

#include <jansson.h>
#include <math.h>

#include "diagnose/byfunc.h"
#include "model/model.h"
#include "report/fit.h"
#include "report/json-util.h"

static void pct(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %6s", "-");
	else
		fprintf(out, " %6.1f", v);
}

void topdown_byfunc_text(FILE *out, const struct topdown_report *r)
{
	byfunc_text(out, r->functions);
}

void byfunc_text(FILE *out, const struct byfunc_result *f)
{
	const size_t width = FIT_DEFAULT_COLUMNS;

	if (!f)
		return;
	fprintf(out, "\nfunctions holding %.0f %% of cycles (%zu of %zu), each in percent of its own slots:\n",
		BYFUNC_COVER, f->nr, f->nr_functions);
	fprintf(out, "  %6s %6s %6s %6s %6s  %s\n", "cycles", "Ret", "BadSp", "FE", "BE",
		"function; dominant node, guilty line");
	for (size_t i = 0; i < f->nr; i++) {
		const struct byfunc_fn *fn = &f->v[i];
		char name[128], where[128], at[160];
		int used;

		fprintf(out, "  %5.1f%%", fn->share_pct);
		pct(out, fn->level1.retiring);
		pct(out, fn->level1.bad_speculation);
		pct(out, fn->level1.frontend_bound);
		pct(out, fn->level1.backend_bound);
		fprintf(out, "  %s\n", fit_name(fn->name, width - 38, name, sizeof(name)));
		used = fprintf(out, "         %s%s%s", fn->dominant ? model_node_label(fn->dominant) : "-",
			       fn->dominant_node ? " > " : "",
			       fn->dominant_node ? model_node_label(fn->dominant_node) : "");
		if (fn->file && fn->line) {
			/* ", at " + path + ":line (NNN %)" within the line's width */
			int tail = snprintf(at, sizeof(at), ":%llu (%.0f %%)", (unsigned long long)fn->line,
					    fn->line_pct);
			size_t room = width > (size_t)used + 5 + (size_t)tail + 1 ? width - used - 5 - tail - 1 : 12;

			fprintf(out, ", at %s%s", fit_path(fn->file, room < 12 ? 12 : room, where, sizeof(where)), at);
		}
		fputc('\n', out);
	}
	if (f->rest_pct > 0)
		fprintf(out, "  %5.1f%% in %zu other functions\n", f->rest_pct, f->nr_functions - f->nr);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

void topdown_byfunc_json(json_t *doc, const struct topdown_report *r, bool *failed)
{
	byfunc_json(doc, r->functions, failed);
}

void byfunc_json(json_t *doc, const struct byfunc_result *f, bool *failed)
{
	json_t *a;

	if (!f)
		return;
	if (!(a = json_array())) {
		*failed = true;
		return;
	}
	for (size_t i = 0; i < f->nr; i++) {
		const struct byfunc_fn *fn = &f->v[i];
		json_t *o = json_object(), *l1 = json_object(), *l2 = json_object();

		if (!o || !l1 || !l2) {
			json_decref(o);
			json_decref(l1);
			json_decref(l2);
			*failed = true;
			break;
		}
		jput(o, "function", json_string(fn->name), failed);
		jput(o, "cycles", num(fn->cycles), failed);
		jput(o, "share_pct", num(fn->share_pct), failed);
		jput(o, "instructions", json_integer((json_int_t)fn->instructions), failed);
		jput(l1, "retiring", num(fn->level1.retiring), failed);
		jput(l1, "bad_speculation", num(fn->level1.bad_speculation), failed);
		jput(l1, "frontend_bound", num(fn->level1.frontend_bound), failed);
		jput(l1, "backend_bound", num(fn->level1.backend_bound), failed);
		jput(o, "level1", l1, failed);
		jput(l2, "branch_mispredicts", num(fn->branch_mispredicts), failed);
		jput(l2, "fetch_latency", num(fn->fetch_latency), failed);
		jput(l2, "memory_bound", num(fn->memory_bound), failed);
		jput(o, "level2", l2, failed);
		jput(o, "dominant", jstr_or_null(fn->dominant), failed);
		jput(o, "dominant_node", jstr_or_null(fn->dominant_node), failed);
		jput(o, "file", jstr_or_null(fn->file), failed);
		jput(o, "line", fn->line ? json_integer((json_int_t)fn->line) : json_null(), failed);
		jput(o, "line_share_pct", fn->line ? num(fn->line_pct) : json_null(), failed);
		jappend(a, o, failed);
	}
	jput(doc, "functions", a, failed);
	jput(doc, "functions_other_pct", num(f->rest_pct), failed);
}
