/* target.c: what a session counts: CPU lists, online CPUs, the threads of a process (see target.h). */
#include "pmu/target.h"
#include "pmu/counter.h"
#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char online_path[] = "/sys/devices/system/cpu/online";

/* ---- CPU lists ---------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static bool parse_uint(const char *s, size_t len, size_t *pos, uint64_t *out)
{
	size_t start = *pos;

	while (*pos < len && s[*pos] >= '0' && s[*pos] <= '9')
		(*pos)++;
	if (*pos == start || *pos - start > 9)
		return false;
	return str_to_u64_n(s + start, *pos - start, out);
}

int pmu_cpu_list_parse(const char *s, size_t len, int **out, size_t *nr, struct tdp_err *err)
{
	int *v = NULL;
	size_t n = 0, alloc = 0, pos = 0;
	int ret = 0;

	if (len > PMU_CPU_LIST_MAX)
		return tdp_err_set(err, TDP_ELIMIT, "CPU list of %zu bytes, more than %d", len, PMU_CPU_LIST_MAX);
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	if (len == 0)
		return tdp_err_set(err, TDP_EUSAGE, "empty CPU list");
	while (pos < len) {
		uint64_t lo, hi;
		size_t at = pos;

		if (!parse_uint(s, len, &pos, &lo)) {
			ret = tdp_err_set(err, TDP_EUSAGE, "CPU list '%.*s': expected a CPU number at offset %zu",
					  (int)len, s, at);
			goto out;
		}
		hi = lo;
		if (pos < len && s[pos] == '-') {
			pos++;
			at = pos;
			if (!parse_uint(s, len, &pos, &hi) || hi < lo) {
				ret = tdp_err_set(err, TDP_EUSAGE, "CPU list '%.*s': bad range end at offset %zu",
						  (int)len, s, at);
				goto out;
			}
		}
		if (hi >= PMU_COUNTERS_MAX_SLOTS || n + (hi - lo + 1) > PMU_COUNTERS_MAX_SLOTS) {
			ret = tdp_err_set(err, TDP_ELIMIT, "CPU list '%.*s': more than %d CPUs", (int)len, s,
					  PMU_COUNTERS_MAX_SLOTS);
			goto out;
		}
		for (uint64_t c = lo; c <= hi; c++) {
			if (TDP_GROW(v, alloc, n + 1)) {
				ret = tdp_err_oom(err);
				goto out;
			}
			v[n++] = (int)c;
		}
		if (pos < len) {
			if (s[pos] != ',' || pos + 1 == len) {
				ret = tdp_err_set(err, TDP_EUSAGE, "CPU list '%.*s': unexpected '%c' at offset %zu",
						  (int)len, s, s[pos], pos);
				goto out;
			}
			pos++;
		}
	}
	qsort(v, n, sizeof(*v), cmp_int);
	{
		size_t w = 0;

		for (size_t i = 0; i < n; i++)
			if (w == 0 || v[w - 1] != v[i])
				v[w++] = v[i];
		n = w;
	}
	*out = v;
	*nr = n;
	v = NULL;
out:
	tdp_free(v);
	return ret;
}

static int read_small_file(const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	*len = (size_t)n;
	return 0;
}

int pmu_online_cpus(int **out, size_t *nr, struct tdp_err *err)
{
	char buf[PMU_CPU_LIST_MAX + 1];
	size_t len = 0;
	int rc = read_small_file(online_path, buf, sizeof(buf), &len);

	if (rc)
		return tdp_err_set(err, TDP_EIO, "cannot read '%s': %s", online_path, strerror(-rc));
	return pmu_cpu_list_parse(buf, len, out, nr, err);
}

int pmu_cpus_check_online(const int *want, size_t nr, struct tdp_err *err)
{
	int *on = NULL;
	size_t nr_on = 0;
	int ret = pmu_online_cpus(&on, &nr_on, err);

	if (ret)
		return ret;
	for (size_t i = 0; i < nr && !ret; i++)
		if (!bsearch(&want[i], on, nr_on, sizeof(*on), cmp_int)) {
			tdp_err_set(err, TDP_ENOENT, "CPU %d is not online", want[i]);
			ret = tdp_err_hint(err, "the online CPUs are listed in '%s'", online_path);
		}
	tdp_free(on);
	return ret;
}

/* ---- tasks ---------------------------------------------------------------------- */

int pmu_process_threads(pid_t pid, pid_t **out, size_t *nr, struct tdp_err *err)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	pid_t *v = NULL;
	size_t n = 0, alloc = 0;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return tdp_err_set(err, TDP_ENOENT, "no process with id %d", (int)pid);
	while ((de = readdir(d))) {
		uint64_t tid;

		if (!str_to_u64(de->d_name, &tid) || tid == 0 || tid > INT32_MAX)
			continue;
		if (n >= PMU_COUNTERS_MAX_SLOTS) {
			ret = tdp_err_set(err, TDP_ELIMIT, "process %d has more than %d threads", (int)pid,
					  PMU_COUNTERS_MAX_SLOTS);
			goto out;
		}
		if (TDP_GROW(v, alloc, n + 1)) {
			ret = tdp_err_oom(err);
			goto out;
		}
		v[n++] = (pid_t)tid;
	}
	if (n == 0) {
		ret = tdp_err_set(err, TDP_ENOENT, "no process with id %d", (int)pid);
		goto out;
	}
	*out = v;
	*nr = n;
	v = NULL;
out:
	closedir(d);
	tdp_free(v);
	return ret;
}

bool pmu_task_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}
