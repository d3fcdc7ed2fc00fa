/*
 * pmu.c: the PMUs the kernel registered, from <sysfs>/bus/event_source/devices.
 *
 * Each PMU directory holds `type` (perf_event_attr.type), optionally `caps/`
 * (Documentation/ABI/testing/sysfs-bus-event_source-devices-caps: Intel
 * pmu_name, max_precise, branches (LBR depth), branch_counter_nr/width; AMD
 * branches, max_precise; Arm slots, bus_slots, bus_width), `format/` (how event
 * terms map onto config bits), `events/` (aliases with .scale/.unit/.per-pkg/
 * .snapshot companions) and, for hybrid and uncore PMUs, `cpus` or `cpumask`.
 * A snapshot tree may be hostile: names are restricted to the characters real
 * PMU, cap and format names use, values are truncated to CPU_VALUE_MAX and made
 * printable, and every list is capped by a named limit.
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"
#include "base/alloc.h"
#include "base/str.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Directory entry names longer than this are not PMU, cap or format names. */
#define PMU_NAME_MAX 128

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PMU_NAME_MAX || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '-' || c == '.'))
			return false;
	}
	return true;
}

enum cpu_pmu_kind cpu_pmu_kind_of(const char *name)
{
	static const char *const software[] = { "software", "tracepoint", "breakpoint", "kprobe", "uprobe" };

	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom") ||
	    !strcmp(name, "cpu_lowpower"))
		return CPU_PMU_CORE;
	/* arm_pmuv3 names: armv8_pmuv3[_N] (ACPI), armv8_cortex_a76, armv9_neoverse_n2, ... (DT) */
	if (str_starts_with(name, "armv8_") || str_starts_with(name, "armv9_") ||
	    (str_starts_with(name, "apple_") && str_ends_with(name, "_pmu")))
		return CPU_PMU_CORE;
	if (str_starts_with(name, "arm_spe_"))
		return CPU_PMU_SPE;
	for (size_t i = 0; i < ARRAY_SIZE(software); i++)
		if (!strcmp(name, software[i]))
			return CPU_PMU_SOFTWARE;
	return CPU_PMU_OTHER;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct cpu_kv *)a)->name, ((const struct cpu_kv *)b)->name);
}

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct cpu_pmu *)a)->name, ((const struct cpu_pmu *)b)->name);
}

/* Read every file of dir (a caps/ or format/ directory) as name=value pairs. */
static int read_kv_dir(const char *dir, struct cpu_kv **out, size_t *nr, struct tdp_err *err)
{
	struct cpu_kv *v = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	*out = NULL;
	*nr = 0;
	d = opendir(dir);
	if (!d)
		return 0; /* absent: no caps, no format */
	while ((de = readdir(d))) {
		char value[CPU_VALUE_MAX], shown[CPU_VALUE_MAX];
		long len;

		if (!name_ok(de->d_name))
			continue;
		if (n >= CPU_PMU_ATTR_MAX) {
			rc = tdp_err_set(err, TDP_ELIMIT, "'%s' has more than %d entries", dir, CPU_PMU_ATTR_MAX);
			goto out;
		}
		len = cpu_read_attr(value, sizeof(value), dir, "%s", de->d_name);
		if (len < 0)
			continue; /* a subdirectory, or unreadable */
		cpu_printable(value, (size_t)len, shown, sizeof(shown) - 1);
		if (TDP_GROW(v, alloc, n + 1)) {
			rc = tdp_err_oom(err);
			goto out;
		}
		v[n].name = tdp_strdup(de->d_name);
		v[n].value = tdp_strdup(shown);
		n++;
		if (!v[n - 1].name || !v[n - 1].value) {
			rc = tdp_err_oom(err);
			goto out;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_kv);
out:
	closedir(d);
	if (rc) {
		for (size_t i = 0; i < n; i++) {
			tdp_free(v[i].name);
			tdp_free(v[i].value);
		}
		tdp_free(v);
		return rc;
	}
	*out = v;
	*nr = n;
	return 0;
}

/* Count event aliases: every file in events/ except the companions of an alias. */
static size_t count_events(const char *dir)
{
	static const char *const companions[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < CPU_PMU_EVENTS_MAX) {
		bool companion = false;

		if (!name_ok(de->d_name))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(companions); i++)
			companion |= str_ends_with(de->d_name, companions[i]);
		if (!companion)
			n++;
	}
	closedir(d);
	return n;
}

static void pmu_release(struct cpu_pmu *p)
{
	for (size_t i = 0; i < p->nr_caps; i++) {
		tdp_free(p->caps[i].name);
		tdp_free(p->caps[i].value);
	}
	for (size_t i = 0; i < p->nr_format; i++) {
		tdp_free(p->format[i].name);
		tdp_free(p->format[i].value);
	}
	tdp_free(p->caps);
	tdp_free(p->format);
	tdp_free(p->cpus);
	tdp_free(p->name);
	memset(p, 0, sizeof(*p));
}

/* Fill p (whose name is set) from <devices>/<name>/. */
static int pmu_read(struct cpu_pmu *p, const char *devices, struct tdp_err *err)
{
	char path[4096], buf[CPU_LIST_TEXT_MAX], shown[CPU_LIST_TEXT_MAX];
	uint64_t type;
	long len;
	int rc;

	p->type = -1;
	p->kind = cpu_pmu_kind_of(p->name);
	if (cpu_read_attr(buf, sizeof(buf), devices, "%s/type", p->name) > 0 && str_to_u64(buf, &type) &&
	    type <= 0x7fffffff)
		p->type = (long)type;
	if (!cpu_path(path, sizeof(path), devices, "%s/caps", p->name))
		return tdp_err_set(err, TDP_ELIMIT, "'%s/%s': path too long", devices, p->name);
	rc = read_kv_dir(path, &p->caps, &p->nr_caps, err);
	if (rc)
		return rc;
	if (!cpu_path(path, sizeof(path), devices, "%s/format", p->name))
		return tdp_err_set(err, TDP_ELIMIT, "'%s/%s': path too long", devices, p->name);
	rc = read_kv_dir(path, &p->format, &p->nr_format, err);
	if (rc)
		return rc;
	if (cpu_path(path, sizeof(path), devices, "%s/events", p->name))
		p->nr_events = count_events(path);
	len = cpu_read_attr(buf, sizeof(buf), devices, "%s/cpus", p->name);
	if (len < 0)
		len = cpu_read_attr(buf, sizeof(buf), devices, "%s/cpumask", p->name);
	if (len >= 0) {
		cpu_printable(buf, (size_t)len, shown, sizeof(shown) - 1);
		p->cpus = tdp_strdup(shown);
		if (!p->cpus)
			return tdp_err_oom(err);
	}
	return 0;
}

int cpu_pmu_list_detect(struct cpu_pmu_list *out, const struct cpu_env *env, struct tdp_err *err)
{
	char devices[4096];
	char **names = NULL;
	size_t nr_names = 0, alloc_names = 0;
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int rc = 0;

	env = cpu_env_or_default(env);
	if (!env->sysfs_root)
		return 0;
	if (!env->live && (stat(env->sysfs_root, &st) < 0 || !S_ISDIR(st.st_mode)))
		return tdp_err_set(err, TDP_ENOENT, "cannot read sysfs tree '%s': %s", env->sysfs_root,
				   errno == ENOENT || !errno ? "no such directory" : strerror(errno));
	if (!cpu_path(devices, sizeof(devices), env->sysfs_root, "bus/event_source/devices"))
		return tdp_err_set(err, TDP_ELIMIT, "'%s': path too long", env->sysfs_root);
	d = opendir(devices);
	if (!d)
		return 0; /* no perf events in this kernel (or not in the snapshot) */
	while ((de = readdir(d))) {
		if (!name_ok(de->d_name))
			continue;
		if (nr_names >= CPU_PMU_MAX) {
			rc = tdp_err_set(err, TDP_ELIMIT, "'%s' lists more than %d PMUs", devices, CPU_PMU_MAX);
			goto out;
		}
		if (TDP_GROW(names, alloc_names, nr_names + 1)) {
			rc = tdp_err_oom(err);
			goto out;
		}
		names[nr_names] = tdp_strdup(de->d_name);
		if (!names[nr_names]) {
			rc = tdp_err_oom(err);
			goto out;
		}
		nr_names++;
	}
	if (nr_names)
		qsort(names, nr_names, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr_names; i++) {
		struct cpu_pmu *p;

		if (TDP_GROW(out->v, out->alloc, out->nr + 1)) {
			rc = tdp_err_oom(err);
			goto out;
		}
		p = &out->v[out->nr++];
		memset(p, 0, sizeof(*p));
		p->name = names[i];
		names[i] = NULL;
		rc = pmu_read(p, devices, err);
		if (rc)
			goto out;
	}
out:
	for (size_t i = 0; i < nr_names; i++)
		tdp_free(names[i]);
	tdp_free(names);
	if (d)
		closedir(d);
	if (rc)
		cpu_pmu_list_release(out);
	return rc;
}

void cpu_pmu_list_release(struct cpu_pmu_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		pmu_release(&l->v[i]);
	tdp_free(l->v);
	l->v = NULL;
	l->nr = 0;
	l->alloc = 0;
}

const struct cpu_pmu *cpu_pmu_list_find(const struct cpu_pmu_list *l, const char *name)
{
	struct cpu_pmu key;

	if (!l || !l->nr)
		return NULL;
	memset(&key, 0, sizeof(key));
	key.name = (char *)name;
	return bsearch(&key, l->v, l->nr, sizeof(*l->v), cmp_pmu);
}

const struct cpu_pmu *cpu_pmu_list_first(const struct cpu_pmu_list *l, enum cpu_pmu_kind kind)
{
	if (!l)
		return NULL;
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].kind == kind)
			return &l->v[i];
	return NULL;
}

const char *cpu_pmu_cap(const struct cpu_pmu *p, const char *name)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->nr_caps; i++)
		if (!strcmp(p->caps[i].name, name))
			return p->caps[i].value;
	return NULL;
}

long cpu_pmu_cap_long(const struct cpu_pmu *p, const char *name)
{
	const char *v = cpu_pmu_cap(p, name);
	uint64_t x;

	if (!v || !str_to_u64(v, &x) || x > 0x7fffffff)
		return -1;
	return (long)x;
}
