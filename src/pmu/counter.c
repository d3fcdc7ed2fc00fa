/* counter.c: counter groups on perf_event_open (see counter.h). */
#include "pmu/counter.h"
#include "base/alloc.h"
#include "base/checked.h"
#include "base/countset.h"
#include "base/err.h"
#include "cpu/cpu.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Bytes of the largest group read we ask for: nr, enabled, running, then value+id each. */
#define GROUP_READ_MAX (3 * sizeof(uint64_t) + PMU_GROUP_MAX_EVENTS * 3 * sizeof(uint64_t))

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int pmu_group_read_parse(const uint8_t *buf, size_t len, uint64_t read_format, struct pmu_group_read *out,
			 struct tdp_err *err)
{
	size_t off = 0, entry = sizeof(uint64_t), need;

	if (!(read_format & PERF_FORMAT_GROUP))
		return tdp_err_set(err, TDP_EFORMAT, "group read: read_format 0x%llx lacks PERF_FORMAT_GROUP",
				   (unsigned long long)read_format);
	memset(out, 0, sizeof(*out));
	if (len < sizeof(uint64_t))
		return tdp_err_set(err, TDP_EFORMAT, "group read: %zu bytes, too short for the count at offset 0",
				   len);
	out->nr = get_u64(buf);
	off += sizeof(uint64_t);
	if (out->nr > PMU_GROUP_MAX_EVENTS)
		return tdp_err_set(err, TDP_ELIMIT, "group read: %llu events at offset 0, more than %d",
				   (unsigned long long)out->nr, PMU_GROUP_MAX_EVENTS);
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) {
		if (!chk_range(off, sizeof(uint64_t), len))
			return tdp_err_set(err, TDP_EFORMAT, "group read: truncated at offset %zu (time enabled)", off);
		out->enabled = get_u64(buf + off);
		off += sizeof(uint64_t);
	}
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		if (!chk_range(off, sizeof(uint64_t), len))
			return tdp_err_set(err, TDP_EFORMAT, "group read: truncated at offset %zu (time running)", off);
		out->running = get_u64(buf + off);
		off += sizeof(uint64_t);
	}
	if (read_format & PERF_FORMAT_ID)
		entry += sizeof(uint64_t);
	if (read_format & PERF_FORMAT_LOST)
		entry += sizeof(uint64_t);
	/* nr <= PMU_GROUP_MAX_EVENTS, so this cannot overflow */
	need = (size_t)out->nr * entry;
	if (!chk_range(off, need, len)) {
		tdp_err_set(err, TDP_EFORMAT, "group read: %llu events need %zu bytes at offset %zu, only %zu left",
			    (unsigned long long)out->nr, need, off, len - off);
		out->nr = 0;
		return TDP_EFORMAT;
	}
	for (uint64_t i = 0; i < out->nr; i++) {
		out->v[i].value = get_u64(buf + off);
		off += sizeof(uint64_t);
		if (read_format & PERF_FORMAT_ID) {
			out->v[i].id = get_u64(buf + off);
			off += sizeof(uint64_t);
		}
		if (read_format & PERF_FORMAT_LOST) {
			out->v[i].lost = get_u64(buf + off);
			off += sizeof(uint64_t);
		}
	}
	return 0;
}

bool pmu_slot_scale(const struct pmu_slot_count *s, double scale, bool is_clock, double *value,
		    double *running_pct)
{
	if (!count_scale(s->value, s->enabled, s->running, value, running_pct))
		return false;
	if (!is_clock && scale != 1.0 && scale != 0.0)
		*value *= scale;
	return true;
}

static void counter_release(struct pmu_counter *k, size_t nr_slots)
{
	if (k->fd)
		for (size_t s = 0; s < nr_slots; s++)
			if (k->fd[s] >= 0)
				close(k->fd[s]);
	tdp_free(k->fd);
	tdp_free(k->id);
	tdp_free(k->cur);
	tdp_free(k->prev);
	tdp_free(k->name);
	tdp_free(k->unit);
}

void pmu_counters_close(struct pmu_counters *c)
{
	for (size_t i = 0; i < c->nr; i++)
		counter_release(&c->v[i], c->nr_slots);
	for (size_t g = 0; g < c->nr_groups; g++)
		tdp_free(c->groups[g].members);
	tdp_free(c->v);
	tdp_free(c->groups);
	*c = (struct pmu_counters)PMU_COUNTERS_INIT;
}

static int counter_init(struct pmu_counter *k, const struct pmu_event *ev, size_t nr_slots)
{
	memset(k, 0, sizeof(*k));
	k->name = tdp_strdup(ev->name ? ev->name : "?");
	k->unit = tdp_strdup(ev->unit ? ev->unit : "");
	k->fd = tdp_calloc(nr_slots, sizeof(*k->fd));
	k->id = tdp_calloc(nr_slots, sizeof(*k->id));
	k->cur = tdp_calloc(nr_slots, sizeof(*k->cur));
	k->prev = tdp_calloc(nr_slots, sizeof(*k->prev));
	if (k->fd)
		for (size_t s = 0; s < nr_slots; s++)
			k->fd[s] = -1;
	k->scale = ev->scale > 0 ? ev->scale : 1.0;
	k->is_hardware = ev->is_hardware;
	k->is_clock = ev->unit && !strcmp(ev->unit, "msec");
	k->list_group = ev->group;
	k->attr = ev->attr;
	k->attr.size = sizeof(k->attr);
	if (!k->name || !k->unit || !k->fd || !k->id || !k->cur || !k->prev)
		return TDP_ENOMEM;
	return 0;
}

/*
 * Group the events: members of one list group go together, leader first; an event
 * with group -1 is a group of its own. Groups keep the order of their first event.
 */
static int build_groups(struct pmu_counters *c, const struct pmu_event_list *events, struct tdp_err *err)
{
	c->groups = tdp_calloc(events->nr, sizeof(*c->groups));
	if (!c->groups)
		return tdp_err_oom(err);
	for (size_t i = 0; i < events->nr; i++) {
		const struct pmu_event *ev = &events->v[i];
		struct pmu_group *g = NULL;
		size_t gi;

		if (ev->group >= 0)
			for (gi = 0; gi < c->nr_groups; gi++)
				if (c->v[c->groups[gi].members[0]].list_group == ev->group) {
					g = &c->groups[gi];
					break;
				}
		if (!g) {
			gi = c->nr_groups++;
			g = &c->groups[gi];
			g->members = tdp_calloc(PMU_GROUP_MAX_EVENTS, sizeof(*g->members));
			if (!g->members)
				return tdp_err_oom(err);
		}
		if (g->nr >= PMU_GROUP_MAX_EVENTS)
			return tdp_err_set(err, TDP_ELIMIT, "group of '%s' has more than %d events", ev->name,
					   PMU_GROUP_MAX_EVENTS);
		if (ev->leader && g->nr > 0) {
			/* the leader goes first whatever its position in the list */
			memmove(g->members + 1, g->members, g->nr * sizeof(*g->members));
			g->members[0] = i;
		} else {
			g->members[g->nr] = i;
		}
		g->nr++;
		c->v[i].group = (int)gi;
	}
	return 0;
}

static int event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static bool is_perm_errno(int e)
{
	return e == EACCES || e == EPERM;
}

/* The first task of t owned by another user (perf_event_open needs ptrace access to it), or -1. */
static pid_t foreign_task(const struct pmu_target *t)
{
	for (size_t i = 0; t->tids && i < t->nr_tids; i++) {
		char path[32];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d", (int)t->tids[i]);
		if (stat(path, &st) == 0 && st.st_uid != geteuid())
			return t->tids[i];
	}
	return -1;
}

/* The refusal of every event, with the remedy for what was asked (cpu_perm_remedy()). */
static int refused(const struct pmu_counters *c, const struct pmu_target *t, int errnum, struct tdp_err *err)
{
	struct cpu_perms perms;
	pid_t other = foreign_task(t);
	enum cpu_perm_scope scope;

	cpu_perms_detect(&perms, NULL);
	if (t->cpus && !t->tids)
		scope = CPU_PERM_CPU_WIDE;
	else if (other >= 0)
		scope = CPU_PERM_FOREIGN;
	else
		scope = c->v[0].attr.exclude_user ? CPU_PERM_OWN_KERNEL : CPU_PERM_OWN_USER;
	if (scope == CPU_PERM_FOREIGN)
		tdp_err_set(err, TDP_EPERM, "not allowed to count '%s' of process %d, which belongs to another user: %s",
			    c->v[0].name, (int)other, strerror(errnum));
	else
		tdp_err_set(err, TDP_EPERM, "not allowed to count '%s': %s", c->v[0].name, strerror(errnum));
	return tdp_err_hint(err, "%s", cpu_perm_remedy(scope, perms.paranoid));
}

/* Open one group on one slot. Returns 0 or a negative TDP_E* for fatal errors. */
static int open_group_slot(struct pmu_counters *c, const struct pmu_group *g, size_t s, const struct pmu_target *t,
			   struct tdp_err *err)
{
	pid_t pid = t->tids ? t->tids[s] : -1;
	int cpu = t->tids ? -1 : t->cpus[s];
	int leader_fd = -1;

	for (size_t m = 0; m < g->nr; m++) {
		struct pmu_counter *k = &c->v[g->members[m]];
		struct perf_event_attr attr = k->attr;
		int fd, e;

		attr.read_format = PMU_READ_FORMAT;
		attr.inherit = t->tids && t->inherit;
		attr.disabled = m == 0;
		attr.enable_on_exec = m == 0 && t->tids && t->enable_on_exec;
		if (m > 0 && leader_fd < 0) {
			/* the leader did not open: the whole group is not supported */
			if (!k->open_errno)
				k->open_errno = c->v[g->members[0]].open_errno;
			continue;
		}
		fd = event_open(&attr, pid, cpu, m == 0 ? -1 : leader_fd);
		if (fd < 0 && is_perm_errno(errno) && !attr.exclude_kernel && !attr.exclude_user) {
			/*
			 * perf_event_paranoid >= 2 refuses kernel counting to unprivileged
			 * users: count user space only, as perf does (evsel__fallback), and
			 * keep it for the other slots of this counter.
			 */
			attr.exclude_kernel = attr.exclude_hv = 1;
			fd = event_open(&attr, pid, cpu, m == 0 ? -1 : leader_fd);
			if (fd >= 0 && !k->user_only) {
				k->user_only = true;
				k->attr.exclude_kernel = k->attr.exclude_hv = 1;
				c->nr_user_only++;
			}
		}
		if (fd < 0) {
			e = errno;
			if (e == ESRCH)
				return tdp_err_set(err, TDP_ENOENT, "task %d exited before it could be counted", (int)pid);
			if (e == EMFILE || e == ENFILE) {
				tdp_err_set(err, TDP_ELIMIT, "too many open files: %zu events on %zu %s", c->nr,
					    c->nr_slots, c->per_cpu ? "CPUs" : "tasks");
				return tdp_err_hint(err, "raise the limit with 'ulimit -n 65536', or count fewer events");
			}
			if (!k->open_errno)
				k->open_errno = e;
			continue;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &k->id[s]) < 0) {
			e = errno;
			close(fd);
			return tdp_err_set(err, TDP_EIO, "cannot get the id of '%s': %s", k->name, strerror(e));
		}
		k->fd[s] = fd;
		k->nr_open++;
		if (m == 0)
			leader_fd = fd;
	}
	return 0;
}

int pmu_counters_open(struct pmu_counters *c, const struct pmu_event_list *events, const struct pmu_target *t,
		      struct tdp_err *err)
{
	size_t nr_slots = t->tids ? t->nr_tids : t->nr_cpus;
	size_t nr_open = 0, nr_perm = 0;
	int ret = 0, first_errno = 0;

	*c = (struct pmu_counters)PMU_COUNTERS_INIT;
	if ((t->tids != NULL) == (t->cpus != NULL) || nr_slots == 0)
		return tdp_err_set(err, TDP_EINVAL, "counter target needs tasks or CPUs");
	if (events->nr == 0)
		return tdp_err_set(err, TDP_EINVAL, "no events to count");
	if (events->nr > PMU_COUNTERS_MAX_EVENTS)
		return tdp_err_set(err, TDP_ELIMIT, "%zu events, more than %d", events->nr, PMU_COUNTERS_MAX_EVENTS);
	if (nr_slots > PMU_COUNTERS_MAX_SLOTS)
		return tdp_err_set(err, TDP_ELIMIT, "%zu %s, more than %d", nr_slots, t->tids ? "tasks" : "CPUs",
				   PMU_COUNTERS_MAX_SLOTS);
	c->per_cpu = t->cpus != NULL;
	c->nr_slots = nr_slots;
	c->v = tdp_calloc(events->nr, sizeof(*c->v));
	if (!c->v) {
		ret = tdp_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < events->nr; i++) {
		c->nr = i + 1;
		if (counter_init(&c->v[i], &events->v[i], nr_slots)) {
			ret = tdp_err_oom(err);
			goto out;
		}
	}
	ret = build_groups(c, events, err);
	if (ret)
		goto out;
	for (size_t g = 0; g < c->nr_groups; g++)
		for (size_t s = 0; s < nr_slots; s++) {
			ret = open_group_slot(c, &c->groups[g], s, t, err);
			if (ret)
				goto out;
		}
	for (size_t i = 0; i < c->nr; i++) {
		if (c->v[i].nr_open)
			nr_open++;
		else if (is_perm_errno(c->v[i].open_errno))
			nr_perm++;
		if (!first_errno && c->v[i].open_errno)
			first_errno = c->v[i].open_errno;
	}
	if (nr_open == 0 && nr_perm > 0) {
		ret = refused(c, t, first_errno, err);
		goto out;
	}
out:
	if (ret)
		pmu_counters_close(c);
	return ret;
}

static int ioctl_leaders(struct pmu_counters *c, unsigned long req, const char *what, struct tdp_err *err)
{
	for (size_t g = 0; g < c->nr_groups; g++) {
		struct pmu_counter *l = &c->v[c->groups[g].members[0]];

		for (size_t s = 0; s < c->nr_slots; s++)
			if (l->fd[s] >= 0 && ioctl(l->fd[s], req, PERF_IOC_FLAG_GROUP) < 0)
				return tdp_err_set(err, TDP_EIO, "cannot %s '%s': %s", what, l->name, strerror(errno));
	}
	return 0;
}

int pmu_counters_enable(struct pmu_counters *c, struct tdp_err *err)
{
	return ioctl_leaders(c, PERF_EVENT_IOC_ENABLE, "enable", err);
}

int pmu_counters_disable(struct pmu_counters *c, struct tdp_err *err)
{
	return ioctl_leaders(c, PERF_EVENT_IOC_DISABLE, "disable", err);
}

static int read_group_slot(struct pmu_counters *c, const struct pmu_group *g, size_t s, struct tdp_err *err)
{
	struct pmu_counter *l = &c->v[g->members[0]];
	uint8_t buf[GROUP_READ_MAX];
	struct pmu_group_read r;
	ssize_t n;
	int ret;

	if (l->fd[s] < 0)
		return 0;
	do
		n = read(l->fd[s], buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return tdp_err_set(err, TDP_EIO, "cannot read the counters of '%s': %s", l->name, strerror(errno));
	ret = pmu_group_read_parse(buf, (size_t)n, PMU_READ_FORMAT, &r, err);
	if (ret)
		return ret;
	for (uint64_t i = 0; i < r.nr; i++)
		for (size_t m = 0; m < g->nr; m++) {
			struct pmu_counter *k = &c->v[g->members[m]];

			if (k->fd[s] >= 0 && k->id[s] == r.v[i].id) {
				k->cur[s].value = r.v[i].value;
				k->cur[s].enabled = r.enabled;
				k->cur[s].running = r.running;
				break;
			}
		}
	return 0;
}

int pmu_counters_read(struct pmu_counters *c, struct tdp_err *err)
{
	for (size_t g = 0; g < c->nr_groups; g++)
		for (size_t s = 0; s < c->nr_slots; s++) {
			int ret = read_group_slot(c, &c->groups[g], s, err);

			if (ret)
				return ret;
		}
	return 0;
}

void pmu_counters_advance(struct pmu_counters *c)
{
	for (size_t i = 0; i < c->nr; i++)
		memcpy(c->v[i].prev, c->v[i].cur, c->nr_slots * sizeof(*c->v[i].cur));
}

void pmu_counters_reset_readings(struct pmu_counters *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		memset(c->v[i].prev, 0, c->nr_slots * sizeof(*c->v[i].prev));
		memset(c->v[i].cur, 0, c->nr_slots * sizeof(*c->v[i].cur));
	}
}

/* a - b, never below 0 (a counter of an exited task can be reset by the kernel) */
static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a >= b ? a - b : 0;
}

int pmu_counters_countset(const struct pmu_counters *c, bool delta, struct countset *out, struct tdp_err *err)
{
	for (size_t i = 0; i < c->nr; i++) {
		const struct pmu_counter *k = &c->v[i];
		uint64_t raw = 0, ena = 0, run = 0;
		double value = 0;
		struct count *ct;

		for (size_t s = 0; s < c->nr_slots; s++) {
			struct pmu_slot_count d = k->cur[s];
			double v, pct;

			if (k->fd[s] < 0)
				continue;
			if (delta) {
				d.value = sub0(d.value, k->prev[s].value);
				d.enabled = sub0(d.enabled, k->prev[s].enabled);
				d.running = sub0(d.running, k->prev[s].running);
			}
			raw += d.value;
			ena += d.enabled;
			run += d.running;
			if (pmu_slot_scale(&d, k->scale, k->is_clock, &v, &pct))
				value += v;
		}
		ct = countset_add(out, k->name, k->unit, value, k->list_group);
		if (!ct)
			return tdp_err_oom(err);
		ct->raw = (double)raw;
		ct->enabled_ns = ena;
		ct->running_ns = run;
		if (!k->nr_open) {
			ct->status = COUNT_NOT_SUPPORTED;
			ct->value = ct->raw = 0;
			ct->running_pct = 0;
		} else if (run == 0) {
			ct->status = COUNT_NOT_COUNTED;
			ct->value = ct->raw = 0;
			ct->running_pct = 0;
		} else {
			ct->running_pct = run >= ena ? 100.0 : 100.0 * (double)run / (double)ena;
		}
	}
	return 0;
}
