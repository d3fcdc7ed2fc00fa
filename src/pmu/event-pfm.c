/*
 * event-pfm.c: event names through libpfm4 (pfm_get_os_event_encoding with
 * PFM_OS_PERF_EVENT_EXT), initialised on the first name that needs it.
 *
 * libpfm4 keeps its own global state (the detected PMUs); pfm_initialize() runs
 * once per process under pthread_once, which is the one piece of process-wide
 * state here. libpfm4 reads LIBPFM_FORCE_PMU itself at that moment, which is how
 * tests make it act as another CPU.
 */
#include "pmu/event-internal.h" /* <linux/perf_event.h> before libpfm4's copy of it */

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <string.h>

#define PFM_PRESENT_MAX 8 /* core PMUs libpfm4 may report at once (hybrid CPUs: 2) */
#define PFM_HINT_ATTRS_MAX 40

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status = PFM_ERR_NOINIT;

static void pfm_init(void)
{
	pfm_status = pfm_initialize();
}

static bool pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init);
	return pfm_status == PFM_SUCCESS;
}

/* Names of the present core PMUs (pointers into libpfm4's tables). */
static size_t present_core_pmus(const char **names, size_t max)
{
	size_t n = 0;
	pfm_pmu_t p;

	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present || info.type != PFM_PMU_TYPE_CORE)
			continue;
		if (n < max)
			names[n++] = info.name;
	}
	return n;
}

/* libpfm4 writes into the attr it is given; leave room for a newer layout than ours */
union pfm_attr {
	struct perf_event_attr attr;
	unsigned char room[512];
};

static int pfm_encode_str(const char *s, union pfm_attr *u, int *idx)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(u, 0, sizeof(*u));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &u->attr;
	arg.size = sizeof(arg);
	/* all privilege levels unless the name says otherwise, as perf counts by default */
	ret = pfm_get_os_event_encoding(s, PFM_PLM0 | PFM_PLM3 | PFM_PLMH, PFM_OS_PERF_EVENT_EXT, &arg);
	*idx = arg.idx;
	return ret;
}

/*
 * perf's name of an event libpfm4 spells otherwise: if a prefix of text ending at
 * ':' or at the end is such a name for a present PMU, write the libpfm4 string
 * plus the rest of text to sb and return true.
 */
static bool rewrite_perf_name(const char *text, size_t len, struct strbuf *sb)
{
	const char *present[PFM_PRESENT_MAX];
	size_t np = present_core_pmus(present, PFM_PRESENT_MAX);
	char prefix[PMU_EVENT_NAME_MAX + 1];

	if (len > PMU_EVENT_NAME_MAX)
		return false;
	for (size_t end = 1; end <= len; end++) {
		if (end < len && text[end] != ':')
			continue;
		memcpy(prefix, text, end);
		prefix[end] = '\0';
		for (size_t i = 0; i < pmu_pfm_aliases_nr; i++) {
			const struct pmu_pfm_alias *a = &pmu_pfm_aliases[i];
			bool here = false;

			for (size_t k = 0; k < np; k++)
				here |= !strcmp(present[k], a->pmu);
			if (!here || !str_event_name_eq(prefix, a->name))
				continue;
			strbuf_adds(sb, a->pfm);
			strbuf_add(sb, text + end, len - end);
			return true;
		}
	}
	return false;
}

static const char *pmu_of(const struct perf_event_attr *attr, int idx)
{
	pfm_event_info_t einfo;
	pfm_pmu_info_t pinfo;

	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return "cpu";
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_TRACEPOINT:
		return "tracepoint";
	default:
		break;
	}
	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) == PFM_SUCCESS &&
	    pfm_get_pmu_info(einfo.pmu, &pinfo) == PFM_SUCCESS && pinfo.name)
		return pinfo.name;
	return "cpu";
}

/* "attributes of 'X': A, B, c=N, e, ..." for the event named at the start of text */
static bool hint_attributes(const char *text, struct tdp_err *err)
{
	char name[PMU_EVENT_NAME_MAX + 1];
	size_t n = strcspn(text, ":.");
	struct strbuf sb = STRBUF_INIT;
	pfm_event_info_t info;
	int idx;

	if (n > PMU_EVENT_NAME_MAX)
		return false;
	memcpy(name, text, n);
	name[n] = '\0';
	idx = pfm_find_event(name);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (idx < 0 || pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS)
		return false;
	strbuf_addf(&sb, "attributes of '%s': ", info.name);
	for (int a = 0; a < info.nattrs && a < PFM_HINT_ATTRS_MAX; a++) {
		pfm_event_attr_info_t ai;

		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS)
			continue;
		strbuf_addf(&sb, "%s%s%s", a ? ", " : "", ai.name, ai.type == PFM_ATTR_MOD_INTEGER ? "=N" : "");
	}
	if (!strbuf_failed(&sb))
		tdp_err_hint(err, "%s", sb.buf);
	strbuf_release(&sb);
	return true;
}

bool pmu_pfm_hint_attributes(const char *text, struct tdp_err *err)
{
	return pfm_ready() && hint_attributes(text, err);
}

/* The position of the last ':' of text when what follows is perf modifiers. */
static size_t perf_mods_tail(const char *text, size_t len)
{
	const char *colon = memrchr(text, ':', len);

	if (!colon || !pmu_mods_valid(colon + 1, len - (size_t)(colon - text) - 1))
		return len;
	return (size_t)(colon - text);
}

int pmu_pfm_encode(const char *text, struct pmu_event *ev, struct tdp_err *err)
{
	struct strbuf cand[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	size_t len = strlen(text), base = perf_mods_tail(text, len);
	int rejected = PFM_SUCCESS, rejected_at = -1, ret = 0;
	union pfm_attr *u = NULL;
	const char *pmu;

	if (!pfm_ready())
		return 0;
	/*
	 * Candidates, first match wins: without a trailing group of perf modifiers
	 * (":u", ":pp", ":G"), which are then applied here with perf's meaning (the
	 * same as for every other kind of event: libpfm4's own u/k leave exclude_hv
	 * alone on Intel); the text as written (libpfm4's attributes ":c=1:e");
	 * and both again with perf's name of the event replaced by libpfm4's.
	 */
	if (base < len)
		strbuf_add(&cand[0], text, base);
	strbuf_add(&cand[1], text, len);
	if (base < len)
		rewrite_perf_name(text, base, &cand[2]);
	rewrite_perf_name(text, len, &cand[3]);
	for (int i = 0; i < 4; i++)
		if (strbuf_failed(&cand[i])) {
			ret = tdp_err_oom(err);
			goto out;
		}
	u = tdp_malloc(sizeof(*u));
	if (!u) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (int i = 0; i < 4; i++) {
		int idx = -1, r;

		if (!cand[i].len)
			continue;
		r = pfm_encode_str(cand[i].buf, u, &idx);
		/* an unknown umask means an unknown name ("INT_MISC.RECOVERY_CYCLS") */
		if (r == PFM_ERR_NOTFOUND || r == PFM_ERR_ATTR)
			continue;
		if (r != PFM_SUCCESS) {
			if (rejected_at < 0) {
				rejected = r;
				rejected_at = i;
			}
			continue;
		}
		pmu = pmu_of(&u->attr, idx);
		ev->attr = u->attr;
		ev->attr.size = sizeof(ev->attr);
		ev->source = PMU_EV_LIBPFM;
		ev->is_hardware = ev->attr.type != PERF_TYPE_SOFTWARE && ev->attr.type != PERF_TYPE_TRACEPOINT &&
				  ev->attr.type != PERF_TYPE_BREAKPOINT;
		tdp_free(ev->pmu);
		ev->pmu = tdp_strdup(pmu);
		if (!ev->pmu) {
			ret = tdp_err_oom(err);
			goto out;
		}
		if ((i == 0 || i == 2) && !pmu_mods_apply(ev, text + base + 1, len - base - 1)) {
			ret = tdp_err_set(err, TDP_EUSAGE, "event '%s': at most 3 'p' modifiers (precise_ip 0-3)", text);
			goto out;
		}
		ret = 1;
		goto out;
	}
	if (rejected_at >= 0) {
		ret = tdp_err_set(err, TDP_EUSAGE, "cannot encode event '%s': %s (libpfm4)", text, pfm_strerror(rejected));
		hint_attributes(cand[rejected_at].buf, err);
	}
out:
	tdp_free(u);
	for (int i = 0; i < 4; i++)
		strbuf_release(&cand[i]);
	return ret;
}

int pmu_pfm_names(struct pmu_name_sink *sink)
{
	const char *present[PFM_PRESENT_MAX];
	struct strbuf name = STRBUF_INIT;
	pfm_pmu_t p;
	size_t np;
	int ret = 0;

	if (!pfm_ready())
		return 0;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS || !pinfo.is_present || pinfo.type != PFM_PMU_TYPE_CORE)
			continue;
		for (int i = pinfo.first_event; i != -1 && !ret; i = pfm_get_event_next(i)) {
			pfm_event_info_t info;

			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS)
				continue;
			ret = sink->add(sink, info.name, info.desc ? info.desc : "", pinfo.name, PMU_EV_LIBPFM);
			for (int a = 0; a < info.nattrs && !ret; a++) {
				pfm_event_attr_info_t ai;

				memset(&ai, 0, sizeof(ai));
				ai.size = sizeof(ai);
				if (pfm_get_event_attr_info(i, a, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
				    ai.type != PFM_ATTR_UMASK)
					continue;
				strbuf_reset(&name);
				strbuf_addf(&name, "%s.%s", info.name, ai.name);
				if (strbuf_failed(&name)) {
					ret = TDP_ENOMEM;
					break;
				}
				ret = sink->add(sink, name.buf, ai.desc ? ai.desc : "", pinfo.name, PMU_EV_LIBPFM);
			}
		}
	}
	np = present_core_pmus(present, PFM_PRESENT_MAX);
	for (size_t i = 0; i < pmu_pfm_aliases_nr && !ret; i++) {
		for (size_t k = 0; k < np && !ret; k++) {
			if (strcmp(present[k], pmu_pfm_aliases[i].pmu))
				continue;
			strbuf_reset(&name);
			strbuf_addf(&name, "perf's name for %s", pmu_pfm_aliases[i].pfm);
			ret = strbuf_failed(&name) ? TDP_ENOMEM
						   : sink->add(sink, pmu_pfm_aliases[i].name, name.buf, present[k],
							       PMU_EV_LIBPFM);
		}
	}
	strbuf_release(&name);
	return ret;
}
