/*
 * pprof-branches.c: `tdprof branches report --format=pprof`: every branch site as
 * one sample of a pprof profile (branches.h: report_branches_pprof()). The
 * location is the branch's own address with its inline chain (innermost first,
 * the out-of-line function last, as profile.proto orders Location.line); its
 * mapping is the binary it was recorded in, with the build-id the recording
 * holds for it. Values: branches (executions: taken entries from the site) and
 * mispredicts, so the totals are the JSON's branch_entries and mispredicted_entries.
 */
#include "report/branches.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "report/pprof-internal.h"

/* The hex text of the recording's build-id for file, or NULL. */
static const char *build_id_of(const struct perfdata_features *f, const char *file, char *hex, size_t size)
{
	if (!f || !file)
		return NULL;
	for (size_t i = 0; i < f->nr_build_ids; i++) {
		const struct perfdata_build_id *b = &f->build_ids[i];

		if (b->filename && !strcmp(b->filename, file) && b->size <= 20 && 2u * b->size < size) {
			for (size_t k = 0; k < b->size; k++)
				snprintf(hex + 2 * k, 3, "%02x", b->id[k]);
			hex[2 * b->size] = '\0';
			return hex;
		}
	}
	return NULL;
}

/* The mapping id of dso (made on first use; a linear search: recordings map few binaries). */
static uint64_t mapping_of(struct pprof_b *b, const struct branches_report *r, const char *dso, const char **names,
			   uint64_t *ids, size_t *nr, size_t max)
{
	char hex[48];

	if (!dso)
		return 0;
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp(names[i], dso))
			return ids[i];
	if (*nr >= max)
		return 0;
	names[*nr] = dso;
	ids[*nr] = pprof_b_mapping(b, dso, build_id_of(r->features, dso, hex, sizeof(hex)), 0, 0, 0,
				   strcmp(r->syms->symbolizer, "none") != 0);
	return ids[(*nr)++];
}

#define MAX_MAPPINGS 1024
#define MAX_FRAMES 64

int report_branches_pprof(struct strbuf *out, const struct branches_report *r, struct tdp_err *err)
{
	const char *names[MAX_MAPPINGS];
	uint64_t ids[MAX_MAPPINGS];
	const struct branch_result *res = r->res;
	struct pprof_b b;
	size_t nr_maps = 0;
	int ret;

	pprof_b_init(&b);
	(void)pprof_b_type(&b, "branches", "count");
	(void)pprof_b_type(&b, "mispredicts", "count");
	b.default_type = pprof_b_str(&b, res->has_mispred_flags ? "mispredicts" : "branches");
	pprof_b_comment(&b, "tdprof branches report: %s", r->file);
	pprof_b_comment(&b, "backend: %s", r->backend);
	if (r->recorded_by)
		pprof_b_comment(&b, "recorded by: %s", r->recorded_by);
	if (r->cpu)
		pprof_b_comment(&b, "cpu: %s", r->cpu);
	if (r->event)
		pprof_b_comment(&b, "event: %s", r->event);
	pprof_b_comment(&b, "symbolizer: %s", r->syms->symbolizer);
	for (size_t i = 0; i < res->nr_sites; i++) {
		const struct branch_site *s = &res->sites[i];
		const struct branch_loc *l = branch_symbols_find(r->syms, s->addr);
		struct pprof_line lines[MAX_FRAMES];
		size_t nr = 0;
		uint64_t loc, map = 0;
		int64_t v[2] = { (int64_t)s->executions, (int64_t)s->mispredicts };
		char unknown[32];

		if (l && l->nr_inlines) {
			for (size_t k = 0; k < l->nr_inlines && nr < MAX_FRAMES; k++) {
				const struct branch_frame *f = &l->inlines[k];

				lines[nr++] = (struct pprof_line){ f->function, f->file, f->line };
			}
			if (!lines[nr - 1].function)
				lines[nr - 1].function = l->function;
		} else if (l && l->function) {
			lines[nr++] = (struct pprof_line){ l->function, l->file, l->line };
		} else {
			snprintf(unknown, sizeof(unknown), "0x%llx", (unsigned long long)s->addr);
			lines[nr++] = (struct pprof_line){ unknown, NULL, 0 };
		}
		if (l)
			map = mapping_of(&b, r, l->dso, names, ids, &nr_maps, MAX_MAPPINGS);
		loc = pprof_b_location(&b, map, s->addr, lines, nr);
		pprof_b_sample(&b, &loc, 1, v);
	}
	ret = pprof_b_finish(&b, out, err);
	pprof_b_release(&b);
	return ret;
}
