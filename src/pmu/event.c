/*
 * event.c: the event list as perf spells it (see event.h): splitting the list
 * into events and groups, resolving each event, perf's modifiers, messages.
 *
 * The splitter keeps commas inside pmu/.../ terms and braces together with
 * their event; an event is resolved by the first of: generic/software name
 * (event-generic.c), raw rNNNN, pmu/terms/ or a bare alias of the core PMU
 * (event-sysfs.c), libpfm4 (event-pfm.c).
 */
#include "pmu/event-internal.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define QUOTE_MAX 160      /* bytes of the list quoted in a message */
#define SUGGEST_MAX 3      /* names suggested for an unknown event */
#define PMU_CORE_MAX 8     /* core PMUs searched for a bare alias (hybrid: 2) */
#define RAW_DIGITS_MAX 16  /* hex digits of rNNNN */

const char *pmu_env_root(const struct pmu_env *env)
{
	return env && env->sysfs_root ? env->sysfs_root : PMU_SYSFS_DEFAULT_ROOT;
}

int pmu_syntax_error(struct tdp_err *err, const struct pmu_where *w, size_t pos, const char *what)
{
	size_t len = strlen(w->spec);

	tdp_err_set(err, TDP_EUSAGE, "cannot parse event list '%.*s%s': %s at position %zu",
		    (int)(len > QUOTE_MAX ? QUOTE_MAX : len), w->spec, len > QUOTE_MAX ? "..." : "", what,
		    w->off + pos + 1);
	tdp_err_hint(err, "write events as 'name', 'name:u', 'pmu/term=value,.../' or '{a,b}' groups, separated "
			  "by ','; 'tdprof list events' shows the names known here");
	return TDP_EUSAGE;
}

void pmu_event_reset(struct pmu_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.exclude_guest = 1; /* perf's default for every event (event_attr_init) */
	ev->group = -1;
	ev->scale = 1.0;
}

static void event_release(struct pmu_event *ev)
{
	tdp_free(ev->name);
	tdp_free(ev->pmu);
	tdp_free(ev->unit);
	ev->name = ev->pmu = ev->unit = NULL;
}

void pmu_event_list_release(struct pmu_event_list *list)
{
	for (size_t i = 0; i < list->nr; i++)
		event_release(&list->v[i]);
	tdp_free(list->v);
	list->v = NULL;
	list->nr = list->alloc = 0;
}

/* ---- the parser ---- */

struct parser {
	struct pmu_event_list *list;
	const char *spec;
	const struct pmu_env *env;
	const char *root;
	struct tdp_err *err;
	bool check_only;                      /* first pass: syntax only, nothing resolved */
	size_t checked;                       /* events seen by the first pass */
	bool cores_read;                      /* cores[] filled (sysfs read once per parse) */
	struct pmu_sysfs cores[PMU_CORE_MAX]; /* core PMUs, for bare aliases */
	size_t nr_cores;
};

static int apply_mods(struct parser *ps, struct pmu_event *ev, const char *mods, size_t len,
		      const struct pmu_where *w, size_t pos)
{
	if (!len)
		return pmu_syntax_error(ps->err, w, pos, "missing modifier after ':'");
	if (!pmu_mods_valid(mods, len)) {
		size_t bad = strspn(mods, PMU_PERF_MODS);

		if (bad > len)
			bad = len;
		pmu_syntax_error(ps->err, w, pos + bad, "unknown modifier");
		tdp_err_hint(ps->err, "modifiers: u (user), k (kernel), h (hypervisor), G (guest), H (host), "
				      "p/pp/ppp (precise), P, S, D (pinned), I (exclude idle), W (weak group)");
		return TDP_EUSAGE;
	}
	if (!pmu_mods_apply(ev, mods, len))
		return pmu_syntax_error(ps->err, w, pos, "more than 3 'p' modifiers");
	return 0;
}

static bool pmu_is_hardware(const struct pmu_sysfs *p)
{
	static const char *const not_counters[] = { "software", "tracepoint", "breakpoint", "kprobe", "uprobe",
						    "msr" };

	if (p->type == PERF_TYPE_SOFTWARE || p->type == PERF_TYPE_TRACEPOINT || p->type == PERF_TYPE_BREAKPOINT)
		return false;
	for (size_t i = 0; i < sizeof(not_counters) / sizeof(not_counters[0]); i++)
		if (!strcmp(p->name, not_counters[i]))
			return false;
	return true;
}

static int set_pmu(struct pmu_event *ev, const char *pmu, struct tdp_err *err)
{
	char *s = tdp_strdup(pmu);

	if (!s)
		return tdp_err_oom(err);
	tdp_free(ev->pmu);
	ev->pmu = s;
	return 0;
}

/* Fill ps->cores with the core PMUs under the sysfs root, once. */
static int read_cores(struct parser *ps)
{
	struct pmu_names pmus = PMU_NAMES_INIT;
	int ret;

	if (ps->cores_read)
		return 0;
	ps->cores_read = true;
	ret = pmu_sysfs_pmus(ps->root, &pmus);
	if (ret) {
		pmu_names_release(&pmus);
		return tdp_err_oom(ps->err);
	}
	for (size_t i = 0; i < pmus.nr && ps->nr_cores < PMU_CORE_MAX; i++) {
		struct pmu_sysfs p;
		struct tdp_err ignored = TDP_ERR_INIT;

		if (pmu_sysfs_open(&p, ps->root, pmus.v[i], strlen(pmus.v[i]), &ignored))
			continue;
		if (p.is_core)
			ps->cores[ps->nr_cores++] = p;
		else
			pmu_sysfs_release(&p);
	}
	pmu_names_release(&pmus);
	return 0;
}

/* A generic or software event (pmu_generic_lookup()'s) into ev. Returns 0 or TDP_ENOMEM. */
static int set_generic(struct parser *ps, struct pmu_event *ev, uint32_t type, uint64_t config, bool clock)
{
	ev->attr.type = type;
	ev->attr.config = config;
	ev->source = type == PERF_TYPE_SOFTWARE ? PMU_EV_SOFTWARE : PMU_EV_GENERIC;
	ev->is_hardware = type != PERF_TYPE_SOFTWARE;
	if (clock) {
		/* perf shows the clocks (nanoseconds) in msec (evsel__init) */
		ev->scale = 1e-6;
		tdp_free(ev->unit);
		ev->unit = tdp_strdup("msec");
		if (!ev->unit)
			return tdp_err_oom(ps->err);
	}
	return set_pmu(ev, type == PERF_TYPE_SOFTWARE ? "software" : "cpu", ps->err);
}

/* mods after the closing '/' of an event ("/u" or "/:u"), when there are any */
static int apply_trailing_mods(struct parser *ps, struct pmu_event *ev, const char *text, size_t len,
			       const char *mods, const struct pmu_where *w)
{
	size_t mlen;

	if (mods >= text + len)
		return 0;
	mlen = len - (size_t)(mods - text);
	if (*mods == ':') {
		mods++;
		mlen--;
	}
	return apply_mods(ps, ev, mods, mlen, w, (size_t)(mods - text));
}

/* pmu/terms/ or pmu/terms/mods or pmu/terms/:mods; or perf's event/terms/ ("cycles/period=1000/") */
static int parse_pmu_event(struct parser *ps, struct pmu_event *ev, const char *text, size_t len,
			   const struct pmu_where *w)
{
	const char *s1 = memchr(text, '/', len);
	const char *s2 = memchr(s1 + 1, '/', len - (size_t)(s1 + 1 - text));
	const char *mods = s2 ? s2 + 1 : NULL;
	struct pmu_sysfs p = PMU_SYSFS_INIT;
	struct pmu_where tw = *w;
	int ret;

	if (s1 == text)
		return pmu_syntax_error(ps->err, w, 0, "missing PMU name before '/'");
	if (!s2)
		return pmu_syntax_error(ps->err, w, (size_t)(s1 - text), "missing closing '/'");
	if (memchr(mods, '/', len - (size_t)(mods - text)))
		return pmu_syntax_error(ps->err, w, (size_t)(s2 - text) + 1, "unexpected '/' after pmu/.../");
	{
		/* no PMU is named as a generic event: "cycles/period=1000/" is perf's event with terms */
		uint32_t type;
		uint64_t config;
		bool clock;

		if (pmu_generic_lookup(text, (size_t)(s1 - text), &type, &config, &clock)) {
			if ((ret = set_generic(ps, ev, type, config, clock)) ||
			    (ret = pmu_generic_apply_terms(s1 + 1, (size_t)(s2 - s1 - 1), (size_t)(s1 - text), ev, w,
							   ps->err)))
				return ret;
			return apply_trailing_mods(ps, ev, text, len, mods, w);
		}
	}
	ret = pmu_sysfs_open(&p, ps->root, text, (size_t)(s1 - text), ps->err);
	if (ret)
		return ret;
	ev->attr.type = p.type;
	ev->source = PMU_EV_SYSFS;
	ev->is_hardware = pmu_is_hardware(&p);
	ret = set_pmu(ev, p.name, ps->err);
	if (ret)
		goto out;
	tw.off = w->off + (size_t)(s1 + 1 - text);
	ret = pmu_sysfs_apply_terms(&p, s1 + 1, (size_t)(s2 - s1 - 1), ev, &tw, NULL, ps->err);
	if (ret)
		goto out;
	ret = apply_trailing_mods(ps, ev, text, len, mods, w);
out:
	pmu_sysfs_release(&p);
	return ret;
}

static bool parse_raw(const char *name, size_t len, uint64_t *config)
{
	if (len < 2 || name[0] != 'r')
		return false;
	name++;
	len--;
	if (len > 2 && name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
		name += 2;
		len -= 2;
	}
	if (!len || len > RAW_DIGITS_MAX)
		return false;
	*config = 0;
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)name[i];

		if (!isxdigit(c))
			return false;
		*config = *config << 4 | (uint64_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	return true;
}

/* A bare alias of a core PMU ("topdown-retiring", "STALL_SLOT"): 1 found, 0 not, <0 error. */
static int parse_core_alias(struct parser *ps, struct pmu_event *ev, const char *name, size_t nlen,
			    const struct pmu_where *w)
{
	int ret = read_cores(ps);

	if (ret)
		return ret;
	for (size_t i = 0; i < ps->nr_cores; i++) {
		struct pmu_sysfs *p = &ps->cores[i];
		struct pmu_alias *a = tdp_malloc(sizeof(*a));

		if (!a)
			return tdp_err_oom(ps->err);
		ret = pmu_sysfs_alias(p, name, nlen, a, ps->err);
		tdp_free(a);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		ev->attr.type = p->type;
		ev->source = PMU_EV_SYSFS;
		ev->is_hardware = pmu_is_hardware(p);
		ret = set_pmu(ev, p->name, ps->err);
		if (!ret)
			ret = pmu_sysfs_apply_terms(p, name, nlen, ev, w, NULL, ps->err);
		return ret ? ret : 1;
	}
	return 0;
}

/* The "did you mean" hint for an unknown event text[0..len) (NUL-terminated). */
static void suggest(struct parser *ps, const char *text, size_t len)
{
	struct pmu_event_desc_list known = PMU_EVENT_DESC_LIST_INIT;
	struct strbuf wanted = STRBUF_INIT, hint = STRBUF_INIT;
	const char **names = NULL;
	size_t idx[SUGGEST_MAX], n = 0;
	const char *colon = memrchr(text, ':', len);

	/* "cyclse:u" means "cyclse"; "INT_MISC:RECOVERY_CYCLS" is listed as INT_MISC.RECOVERY_CYCLES */
	if (colon && pmu_mods_valid(colon + 1, len - (size_t)(colon - text) - 1))
		len = (size_t)(colon - text);
	for (size_t i = 0; i < len; i++)
		strbuf_addch(&wanted, text[i] == ':' ? '.' : text[i]);
	if (pmu_event_known(&known, ps->env, NULL) == 0 && !strbuf_failed(&wanted)) {
		names = tdp_calloc(known.nr ? known.nr : 1, sizeof(*names));
		if (names) {
			for (size_t i = 0; i < known.nr; i++)
				names[i] = known.v[i].name;
			n = str_suggest(wanted.buf, names, known.nr, idx, SUGGEST_MAX);
		}
	}
	if (n) {
		strbuf_adds(&hint, "did you mean ");
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&hint, "%s'%s'", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[idx[i]]);
		strbuf_adds(&hint, "? ('tdprof list events' shows every name known here)");
	} else if ((!ps->env || ps->env->use_libpfm) && pmu_pfm_hint_attributes(text, ps->err)) {
		/* a libpfm4 event with an unknown umask: the hint lists its umasks */
		strbuf_release(&hint);
	} else {
		strbuf_adds(&hint, "'tdprof list events' shows the events known here");
	}
	if (hint.len && !strbuf_failed(&hint))
		tdp_err_hint(ps->err, "%s", hint.buf);
	tdp_free(names);
	pmu_event_desc_list_release(&known);
	strbuf_release(&wanted);
	strbuf_release(&hint);
}

static int parse_bare_event(struct parser *ps, struct pmu_event *ev, const char *text, size_t len,
			    const struct pmu_where *w)
{
	const char *colon = memchr(text, ':', len);
	size_t nlen = colon ? (size_t)(colon - text) : len;
	uint32_t type;
	uint64_t config;
	bool clock, known = false;
	int ret;

	if (pmu_generic_lookup(text, nlen, &type, &config, &clock)) {
		ret = set_generic(ps, ev, type, config, clock);
		known = true;
	} else if (parse_raw(text, nlen, &config)) {
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = config;
		ev->source = PMU_EV_RAW;
		ev->is_hardware = true;
		ret = set_pmu(ev, "cpu", ps->err);
		known = true;
	} else {
		ret = parse_core_alias(ps, ev, text, nlen, w);
		if (ret < 0)
			return ret;
		known = ret == 1;
		ret = 0;
	}
	if (ret)
		return ret;
	if (known)
		return colon ? apply_mods(ps, ev, colon + 1, len - nlen - 1, w, nlen + 1) : 0;
	if (!ps->env || ps->env->use_libpfm) {
		ret = pmu_pfm_encode(ev->name, ev, ps->err);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	ret = tdp_err_set(ps->err, TDP_ENOENT, "event '%.*s' is not known on this machine",
			  (int)(len > QUOTE_MAX ? QUOTE_MAX : len), text);
	suggest(ps, ev->name, strlen(ev->name));
	return ret;
}

/* Resolve one event text[0..len) at offset off of the list; appends it. */
static int parse_event(struct parser *ps, const char *text, size_t len, size_t off, int group, bool leader)
{
	struct pmu_where w = { ps->spec, off };
	struct pmu_event ev;
	int ret;

	if (ps->check_only) {
		if (ps->list->nr + ++ps->checked > PMU_EVENTS_MAX)
			return tdp_err_set(ps->err, TDP_ELIMIT, "more than %d events in one list", PMU_EVENTS_MAX);
		if (len > PMU_EVENT_NAME_MAX)
			return tdp_err_set(ps->err, TDP_ELIMIT, "event at position %zu is longer than %d bytes",
					   off + 1, PMU_EVENT_NAME_MAX);
		return 0;
	}
	pmu_event_reset(&ev);
	ev.group = group;
	ev.leader = leader;
	ev.name = tdp_strndup(text, len);
	ev.unit = tdp_strdup("");
	if (!ev.name || !ev.unit) {
		ret = tdp_err_oom(ps->err);
		goto out;
	}
	if (memchr(text, '/', len))
		ret = parse_pmu_event(ps, &ev, text, len, &w);
	else
		ret = parse_bare_event(ps, &ev, text, len, &w);
	if (ret)
		goto out;
	if (TDP_GROW(ps->list->v, ps->list->alloc, ps->list->nr + 1)) {
		ret = tdp_err_oom(ps->err);
		goto out;
	}
	ps->list->v[ps->list->nr++] = ev;
	return 0;
out:
	event_release(&ev);
	return ret;
}

/*
 * The extent of one event starting at *i: up to ',' (or '}' in a group) that is
 * not inside pmu/.../, or whitespace. Returns 0 and its end in *end.
 */
static int event_extent(struct parser *ps, size_t start, bool in_group, size_t *end)
{
	const char *s = ps->spec;
	struct pmu_where w = { s, 0 };
	size_t j = start, first_slash = 0;
	unsigned slashes = 0;
	char quote = 0; /* inside name='...' of pmu/.../ */

	for (; s[j]; j++) {
		unsigned char c = (unsigned char)s[j];

		if (slashes == 1 && (c == '\'' || c == '"') && (!quote || quote == c)) {
			quote = quote ? 0 : (char)c;
			continue;
		}
		if (c == '/') {
			if (!slashes++)
				first_slash = j;
			continue;
		}
		if (quote && c == ' ')
			continue;
		if (isspace(c) || iscntrl(c)) {
			if (slashes == 1)
				return pmu_syntax_error(ps->err, &w, j, "unexpected space or control character");
			break;
		}
		if (slashes == 1)
			continue; /* inside pmu/.../: ',' '{' '}' belong to the terms */
		if (c == ',')
			break;
		if (c == '}') {
			if (!in_group)
				return pmu_syntax_error(ps->err, &w, j, "'}' without '{'");
			break;
		}
		if (c == '{')
			return pmu_syntax_error(ps->err, &w, j, in_group ? "groups cannot nest" : "unexpected '{'");
	}
	if (slashes == 1)
		return pmu_syntax_error(ps->err, &w, first_slash, "missing closing '/'");
	if (j == start)
		return pmu_syntax_error(ps->err, &w, start, "empty event");
	*end = j;
	return 0;
}

static size_t skip_space(const char *s, size_t i)
{
	while (s[i] && isspace((unsigned char)s[i]))
		i++;
	return i;
}

/* Append ":mods" (or the letters, after existing perf modifiers) to a member's name. */
static int add_group_mods_to_name(struct pmu_event *ev, const char *mods, size_t len, struct tdp_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	const char *colon = strrchr(ev->name, ':');
	const char *slash = strrchr(ev->name, '/');
	bool has_mods = colon && (!slash || colon > slash) && pmu_mods_valid(colon + 1, strlen(colon + 1));
	bool ends_pmu = slash && slash[1] == '\0';

	if (ev->flags & PMU_EVF_NAMED)
		return 0;
	strbuf_adds(&sb, ev->name);
	if (!has_mods && !ends_pmu)
		strbuf_addch(&sb, ':');
	strbuf_add(&sb, mods, len);
	if (strbuf_failed(&sb)) {
		strbuf_release(&sb);
		return tdp_err_oom(err);
	}
	tdp_free(ev->name);
	ev->name = strbuf_detach(&sb);
	return ev->name ? 0 : tdp_err_oom(err);
}

/* "{a,b}" and its modifiers, starting at the '{' at *i. */
static int parse_group(struct parser *ps, size_t *i, int group)
{
	const char *s = ps->spec;
	struct pmu_where w = { s, 0 };
	size_t open = *i, j = *i + 1, first = ps->list->nr, end;
	int ret;

	for (;;) {
		j = skip_space(s, j);
		if (!s[j])
			return pmu_syntax_error(ps->err, &w, open, "missing '}' for this '{'");
		if ((ret = event_extent(ps, j, true, &end)))
			return ret;
		if ((ret = parse_event(ps, s + j, end - j, j, group, ps->list->nr == first)))
			return ret;
		j = skip_space(s, end);
		if (s[j] == ',') {
			j++;
			continue;
		}
		if (s[j] == '}') {
			j++;
			break;
		}
		if (!s[j])
			return pmu_syntax_error(ps->err, &w, open, "missing '}' for this '{'");
		return pmu_syntax_error(ps->err, &w, j, "expected ',' or '}'");
	}
	if (s[j] == ':') {
		size_t m = j + 1, mlen;

		while (s[m] && s[m] != ',' && !isspace((unsigned char)s[m]))
			m++;
		mlen = m - j - 1;
		if (ps->check_only) {
			struct pmu_event probe;

			/* the modifiers' syntax, on a scratch event */
			pmu_event_reset(&probe);
			if ((ret = apply_mods(ps, &probe, s + j + 1, mlen, &w, j + 1)))
				return ret;
		}
		for (size_t k = first; k < ps->list->nr && !ps->check_only; k++) {
			if ((ret = apply_mods(ps, &ps->list->v[k], s + j + 1, mlen, &w, j + 1)))
				return ret;
			if ((ret = add_group_mods_to_name(&ps->list->v[k], s + j + 1, mlen, ps->err)))
				return ret;
		}
		j = m;
	}
	*i = j;
	return 0;
}

/* One pass over the list: syntax only (ps->check_only) or resolving each event. */
static int parse_list(struct parser *ps, int group)
{
	const char *spec = ps->spec;
	struct pmu_where w = { spec, 0 };
	size_t i = skip_space(spec, 0), end;
	int ret;

	if (!spec[i])
		return pmu_syntax_error(ps->err, &w, i, "empty event list");
	for (;;) {
		if (spec[i] == '{') {
			ret = parse_group(ps, &i, group++);
		} else {
			ret = event_extent(ps, i, false, &end);
			if (!ret)
				ret = parse_event(ps, spec + i, end - i, i, -1, false);
			i = end;
		}
		if (ret)
			return ret;
		i = skip_space(spec, i);
		if (!spec[i])
			return 0;
		if (spec[i] != ',')
			return pmu_syntax_error(ps->err, &w, i, "expected ','");
		i = skip_space(spec, i + 1);
		if (!spec[i])
			return pmu_syntax_error(ps->err, &w, i, "empty event after ','");
	}
}

int pmu_event_list_parse(struct pmu_event_list *list, const char *spec, const struct pmu_env *env,
			 struct tdp_err *err)
{
	struct parser ps = { .list = list, .spec = spec, .env = env, .root = pmu_env_root(env), .err = err };
	int group = 0, ret;

	if (!list || !spec)
		return tdp_err_set(err, TDP_EINVAL, "pmu_event_list_parse: NULL argument");
	if (strlen(spec) > PMU_SPEC_MAX)
		return tdp_err_set(err, TDP_ELIMIT, "event list is longer than %d bytes", PMU_SPEC_MAX);
	for (size_t k = 0; k < list->nr; k++)
		if (list->v[k].group >= group)
			group = list->v[k].group + 1;
	/* syntax first, so "{a,b" reports the missing '}' rather than an unknown 'a' */
	ps.check_only = true;
	ret = parse_list(&ps, group);
	if (!ret) {
		ps.check_only = false;
		ret = parse_list(&ps, group);
	}
	for (size_t k = 0; k < ps.nr_cores; k++)
		pmu_sysfs_release(&ps.cores[k]);
	return ret;
}
