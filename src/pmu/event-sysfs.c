/*
 * event-sysfs.c: PMUs as the kernel describes them under
 * <root>/bus/event_source/devices/<pmu>/: type, format/<field> ("config:0-7"),
 * events/<alias> ("event=0x00,umask=0x80") with .scale and .unit (the terms
 * themselves are applied by event-terms.c).
 *
 * Only the files a specification names are read: format/<term> is opened by
 * name, events/ is listed only when an exact-case alias file does not exist.
 * Everything read is treated as hostile (sizes capped, names validated before
 * they become paths).
 */
#include "pmu/event-internal.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define HINT_NAMES_MAX 24 /* names listed in one hint before "and N more" */

/* ---- formats ---- */

static bool parse_bitnum(const char **p, const char *end, unsigned *out)
{
	unsigned v = 0;
	const char *s = *p;

	if (s == end || !isdigit((unsigned char)*s))
		return false;
	while (s < end && isdigit((unsigned char)*s)) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > 63)
			return false;
		s++;
	}
	*p = s;
	*out = v;
	return true;
}

int pmu_format_parse(const char *buf, size_t len, struct pmu_format *out)
{
	const char *p = buf, *end = buf + len;
	uint64_t mask = 0;

	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if ((size_t)(end - p) < 7 || strncmp(p, "config", 6))
		return -1;
	p += 6;
	out->word = 0;
	if (*p == '1' || *p == '2')
		out->word = (unsigned)(*p++ - '0');
	if (p == end || *p++ != ':')
		return -1;
	for (;;) {
		unsigned lo, hi;

		if (!parse_bitnum(&p, end, &lo))
			return -1;
		hi = lo;
		if (p < end && *p == '-') {
			p++;
			if (!parse_bitnum(&p, end, &hi) || hi < lo)
				return -1;
		}
		for (unsigned b = lo; b <= hi; b++) {
			if (mask & (1ull << b))
				return -1;
			mask |= 1ull << b;
		}
		if (p == end)
			break;
		if (*p++ != ',')
			return -1;
	}
	out->nbits = 0;
	for (unsigned b = 0; b < 64; b++)
		if (mask & (1ull << b))
			out->bit[out->nbits++] = (uint8_t)b;
	return 0;
}

uint64_t pmu_format_max(const struct pmu_format *f)
{
	return f->nbits >= 64 ? UINT64_MAX : (1ull << f->nbits) - 1;
}

static uint64_t *format_word(const struct pmu_format *f, struct perf_event_attr *attr)
{
	switch (f->word) {
	case 1:
		return (uint64_t *)&attr->config1;
	case 2:
		return (uint64_t *)&attr->config2;
	default:
		return (uint64_t *)&attr->config;
	}
}

bool pmu_format_put(const struct pmu_format *f, uint64_t value, struct perf_event_attr *attr)
{
	uint64_t *w = format_word(f, attr);

	if (value > pmu_format_max(f))
		return false;
	for (unsigned i = 0; i < f->nbits; i++) {
		uint64_t bit = 1ull << f->bit[i];

		if (value & (1ull << i))
			*w |= bit;
		else
			*w &= ~bit;
	}
	return true;
}

/* ---- names and directories ---- */

void pmu_names_release(struct pmu_names *n)
{
	for (size_t i = 0; i < n->nr; i++)
		tdp_free(n->v[i]);
	tdp_free(n->v);
	n->v = NULL;
	n->nr = n->alloc = 0;
}

static int names_add(struct pmu_names *n, const char *name, size_t len)
{
	char *s;

	if (TDP_GROW(n->v, n->alloc, n->nr + 1))
		return TDP_ENOMEM;
	s = tdp_strndup(name, len);
	if (!s)
		return TDP_ENOMEM;
	n->v[n->nr++] = s;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool pmu_name_ok(const char *s, size_t len)
{
	if (!len || len >= PMU_NAME_MAX || s[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '_' && c != '-' && c != '.')
			return false;
	}
	return true;
}

static bool has_suffix_dotted(const char *name)
{
	static const char *const suffixes[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (str_ends_with(name, suffixes[i]))
			return true;
	return false;
}

/* Read directory `path` into out (sorted), at most max entries. */
static int read_dir_names(const char *path, bool skip_dotted, size_t max, struct pmu_names *out)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int ret = 0;
	size_t start = out->nr;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || !pmu_name_ok(de->d_name, len))
			continue;
		if (skip_dotted && has_suffix_dotted(de->d_name))
			continue;
		if (out->nr - start >= max)
			break;
		ret = names_add(out, de->d_name, len);
		if (ret)
			break;
	}
	closedir(d);
	if (out->nr > start) /* out->v is NULL when nothing was ever added */
		qsort(out->v + start, out->nr - start, sizeof(out->v[0]), cmp_names);
	return ret;
}

static char *path_join(const char *a, const char *b, const char *c)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_adds(&sb, a);
	if (b) {
		strbuf_addch(&sb, '/');
		strbuf_adds(&sb, b);
	}
	if (c) {
		strbuf_addch(&sb, '/');
		strbuf_adds(&sb, c);
	}
	return strbuf_detach(&sb);
}

int pmu_sysfs_pmus(const char *root, struct pmu_names *out)
{
	char *dir = path_join(root, PMU_SYSFS_DEVICES, NULL);
	int ret;

	if (!dir)
		return TDP_ENOMEM;
	ret = read_dir_names(dir, false, PMU_PMUS_MAX, out);
	tdp_free(dir);
	return ret;
}

bool pmu_sysfs_dir_is_core(const char *dir, const char *name)
{
	char *cpus;
	bool core;

	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom"))
		return true;
	/* Arm core PMUs (armv8_pmuv3_0, armv8_cortex_a53) list their CPUs in "cpus" */
	cpus = path_join(dir, "cpus", NULL);
	core = cpus && access(cpus, F_OK) == 0;
	tdp_free(cpus);
	return core;
}

int pmu_sysfs_entries(const struct pmu_sysfs *p, const char *sub, bool skip_dotted, struct pmu_names *out)
{
	char *dir = path_join(p->dir, sub, NULL);
	int ret;

	if (!dir)
		return TDP_ENOMEM;
	ret = read_dir_names(dir, skip_dotted, PMU_ALIASES_MAX, out);
	tdp_free(dir);
	return ret;
}

void pmu_names_join(struct strbuf *sb, const struct pmu_names *n)
{
	for (size_t i = 0; i < n->nr && i < HINT_NAMES_MAX; i++) {
		if (i)
			strbuf_adds(sb, ", ");
		strbuf_adds(sb, n->v[i]);
	}
	if (n->nr > HINT_NAMES_MAX)
		strbuf_addf(sb, " and %zu more", n->nr - HINT_NAMES_MAX);
}

static int no_such_pmu(const char *root, const char *name, size_t nlen, struct tdp_err *err)
{
	struct pmu_names pmus = PMU_NAMES_INIT;
	struct strbuf sb = STRBUF_INIT;
	bool any_core = false;
	int ret;

	ret = tdp_err_set(err, TDP_ENOENT, "PMU '%.*s' does not exist on this machine", (int)nlen, name);
	if (pmu_sysfs_pmus(root, &pmus) == 0) {
		if (!pmus.nr) {
			strbuf_addf(&sb, "there are no PMUs under '%s/%s'", root, PMU_SYSFS_DEVICES);
		} else {
			for (size_t i = 0; i < pmus.nr; i++) {
				char *dir = path_join(root, PMU_SYSFS_DEVICES, pmus.v[i]);

				any_core |= dir && pmu_sysfs_dir_is_core(dir, pmus.v[i]);
				tdp_free(dir);
			}
			strbuf_adds(&sb, "PMUs here: ");
			pmu_names_join(&sb, &pmus);
			if (!any_core)
				strbuf_adds(&sb, " (no CPU PMU: hardware events cannot be counted here)");
		}
		if (!strbuf_failed(&sb))
			tdp_err_hint(err, "%s", sb.buf);
	}
	strbuf_release(&sb);
	pmu_names_release(&pmus);
	return ret;
}

void pmu_sysfs_release(struct pmu_sysfs *p)
{
	tdp_free(p->name);
	tdp_free(p->dir);
	*p = (struct pmu_sysfs)PMU_SYSFS_INIT;
}

int pmu_sysfs_open(struct pmu_sysfs *p, const char *root, const char *name, size_t nlen, struct tdp_err *err)
{
	char buf[64];
	char *type_path = NULL;
	struct stat st;
	uint64_t type;
	int ret = 0;

	*p = (struct pmu_sysfs)PMU_SYSFS_INIT;
	if (!pmu_name_ok(name, nlen))
		return tdp_err_set(err, TDP_EUSAGE, "'%.*s' is not a valid PMU name", (int)(nlen > 64 ? 64 : nlen),
				   name);
	p->name = tdp_strndup(name, nlen);
	if (!p->name)
		goto oom;
	p->dir = path_join(root, PMU_SYSFS_DEVICES, p->name);
	if (!p->dir)
		goto oom;
	if (stat(p->dir, &st) || !S_ISDIR(st.st_mode)) {
		ret = no_such_pmu(root, name, nlen, err);
		goto out;
	}
	type_path = path_join(p->dir, "type", NULL);
	if (!type_path)
		goto oom;
	if (tdp_read_small(type_path, buf, sizeof(buf)) < 0 || !str_to_u64(str_trim(buf), &type) ||
	    type > UINT32_MAX) {
		ret = tdp_err_set(err, TDP_EFORMAT, "'%s': not a PMU type number", type_path);
		goto out;
	}
	p->type = (uint32_t)type;
	p->is_core = pmu_sysfs_dir_is_core(p->dir, p->name);
	goto out;
oom:
	ret = tdp_err_oom(err);
out:
	tdp_free(type_path);
	if (ret)
		pmu_sysfs_release(p);
	return ret;
}

/* ---- aliases ---- */

/* Read a small sysfs file; 1 read, 0 absent, -1 too large or unreadable. */
static int read_file(const char *dir, const char *sub, const char *name, char *buf, size_t size)
{
	char *path = path_join(dir, sub, name);
	struct stat st;
	long n;
	int ret = -1;

	if (!path)
		return -1;
	if (stat(path, &st)) {
		ret = 0;
		goto out;
	}
	if (!S_ISREG(st.st_mode))
		goto out;
	n = tdp_read_small(path, buf, size);
	if (n < 0 || (size_t)n >= size - 1)
		goto out;
	ret = 1;
out:
	tdp_free(path);
	return ret;
}

static void read_scale_unit(const struct pmu_sysfs *p, struct pmu_alias *a)
{
	char file[PMU_NAME_MAX + 16];
	char buf[128];
	double scale;

	a->scale = 1.0;
	a->unit[0] = '\0';
	snprintf(file, sizeof(file), "%s.scale", a->name);
	if (read_file(p->dir, "events", file, buf, sizeof(buf)) == 1 && str_to_double(str_trim(buf), &scale) &&
	    scale > 0)
		a->scale = scale;
	snprintf(file, sizeof(file), "%s.unit", a->name);
	if (read_file(p->dir, "events", file, buf, sizeof(buf)) == 1) {
		const char *u = str_trim(buf);
		size_t len = strlen(u);

		if (len < sizeof(a->unit)) {
			bool printable = true;

			for (size_t i = 0; i < len; i++)
				printable &= isprint((unsigned char)u[i]) != 0;
			if (printable)
				memcpy(a->unit, u, len + 1);
		}
	}
}

int pmu_sysfs_alias(const struct pmu_sysfs *p, const char *name, size_t nlen, struct pmu_alias *out,
		    struct tdp_err *err)
{
	struct pmu_names names = PMU_NAMES_INIT;
	int r, ret = 0;

	if (!pmu_name_ok(name, nlen))
		return 0;
	memcpy(out->name, name, nlen);
	out->name[nlen] = '\0';
	if (has_suffix_dotted(out->name))
		return 0;
	r = read_file(p->dir, "events", out->name, out->terms, sizeof(out->terms));
	if (r == 0) {
		/* perf matches aliases case-insensitively: STALL_SLOT is stall_slot */
		ret = pmu_sysfs_entries(p, "events", true, &names);
		if (ret) {
			pmu_names_release(&names);
			return tdp_err_oom(err);
		}
		for (size_t i = 0; i < names.nr; i++) {
			if (!strcasecmp(names.v[i], out->name)) {
				memcpy(out->name, names.v[i], strlen(names.v[i]) + 1);
				r = read_file(p->dir, "events", out->name, out->terms, sizeof(out->terms));
				break;
			}
		}
		pmu_names_release(&names);
	}
	if (r < 0)
		return tdp_err_set(err, TDP_EFORMAT, "'%s/events/%s': cannot read the event alias (larger than %d bytes?)",
				   p->dir, out->name, PMU_SYSFS_FILE_MAX);
	if (r == 0)
		return 0;
	str_trim(out->terms);
	read_scale_unit(p, out);
	return 1;
}

int pmu_sysfs_read_format(const struct pmu_sysfs *p, const char *name, struct pmu_format *out)
{
	char buf[256];
	int r;

	if (!pmu_name_ok(name, strlen(name)))
		return 0;
	r = read_file(p->dir, "format", name, buf, sizeof(buf));
	if (r <= 0)
		return r;
	return pmu_format_parse(buf, strlen(buf), out) ? -1 : 1;
}
