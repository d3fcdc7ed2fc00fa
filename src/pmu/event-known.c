/*
 * event-known.c: every event name known here, with a one-line description, for
 * `tdprof list events` and for the suggestions of an unknown name.
 */
#include "pmu/event-internal.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"

#include <string.h>

#define DESC_MAX 300 /* bytes of a description kept (libpfm4's can be paragraphs) */

struct desc_sink {
	struct pmu_name_sink sink;
	struct pmu_event_desc_list *out;
};

/* A copy of s with control characters turned into spaces, at most max bytes. */
static char *one_line(const char *s, size_t max)
{
	size_t len = strnlen(s, max);
	char *d = tdp_strndup(s, len);

	if (d)
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)d[i] < 0x20 || d[i] == 0x7f)
				d[i] = ' ';
	return d;
}

static int desc_add(struct pmu_name_sink *sink, const char *name, const char *desc, const char *pmu,
		    enum pmu_event_source source)
{
	struct pmu_event_desc_list *out = ((struct desc_sink *)sink)->out;
	struct pmu_event_desc d = { NULL, NULL, NULL, source };

	if (TDP_GROW(out->v, out->alloc, out->nr + 1))
		return TDP_ENOMEM;
	d.name = one_line(name, PMU_EVENT_NAME_MAX);
	d.desc = one_line(desc, DESC_MAX);
	d.pmu = one_line(pmu, PMU_NAME_MAX);
	if (!d.name || !d.desc || !d.pmu) {
		tdp_free(d.name);
		tdp_free(d.desc);
		tdp_free(d.pmu);
		return TDP_ENOMEM;
	}
	out->v[out->nr++] = d;
	return 0;
}

/* The aliases of every PMU under root: bare for core PMUs, pmu/alias/ otherwise. */
static int sysfs_names(struct pmu_name_sink *sink, const char *root)
{
	struct pmu_names pmus = PMU_NAMES_INIT;
	struct strbuf name = STRBUF_INIT, desc = STRBUF_INIT;
	int ret = pmu_sysfs_pmus(root, &pmus);

	for (size_t i = 0; i < pmus.nr && !ret; i++) {
		struct pmu_sysfs p;
		struct pmu_names aliases = PMU_NAMES_INIT;
		struct tdp_err ignored = TDP_ERR_INIT;
		struct pmu_alias *a;

		if (pmu_sysfs_open(&p, root, pmus.v[i], strlen(pmus.v[i]), &ignored))
			continue;
		a = tdp_malloc(sizeof(*a));
		ret = a ? pmu_sysfs_entries(&p, "events", true, &aliases) : TDP_ENOMEM;
		for (size_t k = 0; k < aliases.nr && !ret; k++) {
			int r = pmu_sysfs_alias(&p, aliases.v[k], strlen(aliases.v[k]), a, &ignored);

			strbuf_reset(&name);
			strbuf_reset(&desc);
			if (p.is_core)
				strbuf_adds(&name, aliases.v[k]);
			else
				strbuf_addf(&name, "%s/%s/", p.name, aliases.v[k]);
			strbuf_addf(&desc, "%s/%s/", p.name, r == 1 ? a->terms : "?");
			if (r == 1 && a->unit[0])
				strbuf_addf(&desc, " (%s)", a->unit);
			ret = strbuf_failed(&name) || strbuf_failed(&desc)
				      ? TDP_ENOMEM
				      : sink->add(sink, name.buf, desc.buf, p.name, PMU_EV_SYSFS);
		}
		tdp_free(a);
		pmu_names_release(&aliases);
		pmu_sysfs_release(&p);
	}
	strbuf_release(&name);
	strbuf_release(&desc);
	pmu_names_release(&pmus);
	return ret;
}

int pmu_event_known(struct pmu_event_desc_list *out, const struct pmu_env *env, struct tdp_err *err)
{
	struct desc_sink ds = { { desc_add }, out };
	int ret;

	ret = pmu_generic_names(&ds.sink);
	if (!ret)
		ret = sysfs_names(&ds.sink, pmu_env_root(env));
	if (!ret && (!env || env->use_libpfm))
		ret = pmu_pfm_names(&ds.sink);
	return ret ? tdp_err_oom(err) : 0;
}

void pmu_event_desc_list_release(struct pmu_event_desc_list *list)
{
	for (size_t i = 0; i < list->nr; i++) {
		tdp_free(list->v[i].name);
		tdp_free(list->v[i].desc);
		tdp_free(list->v[i].pmu);
	}
	tdp_free(list->v);
	list->v = NULL;
	list->nr = list->alloc = 0;
}
