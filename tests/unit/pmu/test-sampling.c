/*
 * Unit tests of the sampling engine (pmu/sampling.h) on this machine with a
 * software event (cpu-clock: no PMU is needed). The workload is this program
 * run again with "--burn MS CODE": it burns MS milliseconds of CPU (0: until a
 * signal) in burn_loop() and exits CODE. Checked: the records the kernel and the
 * engine hand out (COMM exec, MMAP2 of this program, samples of the workload's
 * pid with one of the event's ids, FORK/EXIT, FINISHED_ROUND), the sample count
 * against the arithmetic of the period, the attrs as opened, the build-id of
 * this program against the loader's view of it, -p attach with synthesized
 * records, a signal forwarded, lost samples counted, a failing callback, exec
 * failures, and contradictory options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <sys/prctl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "pmu/event.h"
#include "pmu/sampling.h"

static char self[PATH_MAX];

/* ---- the workload ------------------------------------------------------------------ */

static volatile unsigned long sink;

__attribute__((noinline)) static void burn_loop(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while (ms == 0 || (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* ---- waiting for a process state (never for a time: the machine may be loaded) ----- */

/* CPU time (user + system) of process `pid` in ms, or -1 when it is gone */
static long proc_cpu_ms(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long ut = 0, st = 0;
	FILE *f;
	size_t n;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* after "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!(p = strrchr(buf, ')')) ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* whether process `pid`'s command line (after exec) holds the argument "--burn" */
static bool runs_burn(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (ssize_t i = 0; i + 7 <= n; i++)
		if (!memcmp(buf + i, "--burn", 7))
			return true;
	return false;
}

/* a child of `parent` other than `self` that runs --burn, or 0 */
static pid_t burning_child_of(pid_t parent, pid_t self_pid)
{
	char path[64], buf[512];
	struct dirent *d;
	pid_t found = 0;
	DIR *dir = opendir("/proc");

	while (dir && !found && (d = readdir(dir))) {
		pid_t pid = (pid_t)strtol(d->d_name, NULL, 10);
		int ppid = -1;
		FILE *f;
		char *p;

		if (pid <= 0 || pid == self_pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (!(f = fopen(path, "r")))
			continue;
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
		fclose(f);
		if ((p = strrchr(buf, ')')) && sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == (int)parent &&
		    runs_burn(pid))
			found = pid;
	}
	if (dir)
		closedir(dir);
	return found;
}

static void pause_10ms(void)
{
	struct timespec ts = { 0, 10000000 };

	nanosleep(&ts, NULL);
}

/* long enough for a loaded machine; a quiet one needs well under a second */
#define WAIT_DEADLINE_MS 120000

/*
 * Fork a watcher that waits until the --burn workload (`target`, or the burning
 * child of this process when 0) has used `cpu_ms` more of CPU than now, then sends
 * `sig` to `victim` (0: this process). Returns the watcher's pid.
 */
static pid_t watch_and_signal(pid_t target, long cpu_ms, pid_t victim, int sig)
{
	pid_t parent = getpid();
	pid_t w = fork();

	if (w != 0)
		return w;
	for (int t = 0; !target && t < WAIT_DEADLINE_MS; t += 10, pause_10ms())
		target = burning_child_of(parent, getpid());
	long start = target ? proc_cpu_ms(target) : -1;

	for (int t = 0; start >= 0 && t < WAIT_DEADLINE_MS; t += 10, pause_10ms()) {
		long now = proc_cpu_ms(target);

		if (now < 0 || now >= start + cpu_ms)
			break;
	}
	kill(victim ? victim : parent, sig);
	_exit(0);
}

/* ---- what the callback saw --------------------------------------------------------- */

struct seen {
	uint64_t records, samples, comm_exec, mmap2_self, finished, fork, exit, lost_records, lost, synth_comm,
		synth_mmap2, kernel_mmap, mmap2_data;
	uint32_t comm_pid;
	uint64_t samples_of_pid;    /* samples whose pid is the attached process's */
	uint32_t bad_id;            /* samples whose identifier is not one of the event's */
	bool sample_before_synth;
	const uint64_t *ids;
	size_t nr_ids;
	uint32_t pid;               /* the workload or attached process */
	uint64_t sleep_first_ms;    /* sleep in the first sample (to make the kernel drop some) */
	uint64_t fail_at;           /* fail at this record (1-based); 0 never */
};

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int on_record(void *arg, const void *rec, size_t len, struct tdp_err *err)
{
	struct seen *s = arg;
	const uint8_t *r = rec;
	struct perf_event_header h;

	memcpy(&h, r, sizeof(h));
	assert_true(h.type == 71 || h.size == len); /* AUXTRACE (71) is followed by its data */
	s->records++;
	if (s->fail_at && s->records == s->fail_at)
		return tdp_err_set(err, TDP_EIO, "cannot write: disk full");
	switch (h.type) {
	case PERF_RECORD_SAMPLE: {
		/* IDENTIFIER, IP, TID, TIME, CPU, PERIOD */
		uint64_t id = get64(r + 8);
		bool known = false;

		for (size_t i = 0; i < s->nr_ids; i++)
			known |= s->ids[i] == id;
		s->bad_id += !known;
		if (get32(r + 24) == s->pid)
			s->samples_of_pid++;
		if (!s->synth_comm && !s->comm_exec)
			s->sample_before_synth = true;
		if (s->sleep_first_ms && !s->samples) {
			struct timespec ts = { 0, (long)s->sleep_first_ms * 1000000L };

			nanosleep(&ts, NULL);
		}
		s->samples++;
		break;
	}
	case PERF_RECORD_COMM:
		if (h.misc & PERF_RECORD_MISC_COMM_EXEC) {
			s->comm_exec++;
			s->comm_pid = get32(r + 8);
		} else if (get64(r + len - 24) == 0) {
			s->synth_comm += get32(r + 8) == s->pid;
		}
		break;
	case PERF_RECORD_MMAP2:
		s->mmap2_data += !(get32(r + 64) & PROT_EXEC); /* a data mapping: with perf record -d only */
		if (!strcmp((const char *)r + 72, self)) {
			s->mmap2_self++;
			if (get64(r + len - 24) == 0)
				s->synth_mmap2++;
		}
		break;
	case PERF_RECORD_MMAP:
		s->kernel_mmap += !strcmp((const char *)r + 40, "[kernel.kallsyms]_text");
		break;
	case PERF_RECORD_FORK:
		s->fork++;
		break;
	case PERF_RECORD_EXIT:
		s->exit++;
		break;
	case PERF_RECORD_LOST:
		s->lost_records++;
		s->lost += get64(r + 16);
		break;
	case 68: /* FINISHED_ROUND */
		assert_int_equal(len, 8);
		s->finished++;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- helpers -------------------------------------------------------------------------- */

static void clock_event(struct pmu_event_list *l)
{
	struct pmu_env env = { "/sys", false };

	assert_int_equal(pmu_event_list_parse(l, "cpu-clock", &env, NULL), 0);
}

static int self_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint8_t *out = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

		while (ph->p_type == PT_NOTE && p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const uint8_t *name = p + sizeof(*nh), *desc = name + (nh->n_namesz + 3) / 4 * 4;

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				out[0] = (uint8_t)nh->n_descsz;
				memcpy(out + 1, desc, nh->n_descsz < 20 ? nh->n_descsz : 20);
				return 1;
			}
			p = desc + (nh->n_descsz + 3) / 4 * 4;
		}
	}
	return 0;
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_records_of_a_workload(void **state)
{
	char *argv[] = { self, "--burn", "200", "5", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	struct pmu_sampling_event ev;
	const struct pmu_sampling_stats *st;
	const struct pmu_dso_hit *hits;
	struct tdp_err err = TDP_ERR_INIT;
	struct seen seen = { 0 };
	uint8_t loader[21] = { 0 };
	size_t nr;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	bool found_self = false;

	(void)state;
	clock_event(&l);
	o.argv = argv;
	o.event = &l.v[0];
	o.period = 1000000; /* 1 ms of CPU */
	if (pmu_sampling_open(&s, &o, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(pmu_sampling_nr_events(s), 1);
	pmu_sampling_event(s, 0, &ev);
	/* one event per online CPU, as perf record opens an inherited workload */
	assert_int_equal(ev.nr_ids, (size_t)ncpu);
	assert_string_equal(ev.name, "cpu-clock");
	assert_int_equal(ev.attr->sample_type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
	assert_int_equal(ev.attr->sample_period, 1000000);
	assert_false(ev.attr->freq);
	assert_true(ev.attr->inherit && ev.attr->enable_on_exec && ev.attr->disabled && ev.attr->sample_id_all);
	assert_true(ev.attr->mmap && ev.attr->mmap2 && ev.attr->comm && ev.attr->comm_exec && ev.attr->task);
	seen.ids = ev.ids;
	seen.nr_ids = ev.nr_ids;
	if (pmu_sampling_run(s, on_record, &seen, &err))
		fail_msg("%s", err.msg);
	st = pmu_sampling_stats(s);
	seen.pid = seen.comm_pid;
	assert_true(st->workload_ran);
	assert_true(WIFEXITED(st->wstatus));
	assert_int_equal(WEXITSTATUS(st->wstatus), 5);
	/* the exec (a sanitizer runtime may exec itself once more) */
	assert_true(seen.comm_exec >= 1);
	assert_true(seen.mmap2_self >= 1);
	assert_true(seen.exit >= 1); /* its EXIT (and, under ASan, that of LeakSanitizer's tracer) */
	assert_true(seen.finished >= 1);
	/* 200 ms of the workload's CPU at one sample per ms: about 200 */
	assert_in_range(seen.samples, 150, 320);
	assert_int_equal(seen.samples, st->samples);
	assert_int_equal(seen.records, st->records);
	assert_int_equal(seen.bad_id, 0);
	assert_int_equal(st->lost, 0);

	/* this program was hit, with the build-id the loader sees in it */
	assert_int_equal(pmu_sampling_build_ids(s, &hits, &nr, &err), 0);
	assert_true(nr >= 1);
	dl_iterate_phdr(self_build_id, loader);
	for (size_t i = 0; i < nr; i++) {
		if (strcmp(hits[i].filename, self))
			continue;
		found_self = true;
		assert_true(hits[i].hits > seen.samples / 2);
		if (loader[0]) {
			assert_int_equal(hits[i].build_id_size, loader[0]);
			assert_memory_equal(hits[i].build_id, loader + 1, loader[0]);
		}
	}
	assert_true(found_self);
	/* sorted by hits */
	for (size_t i = 1; i < nr; i++)
		assert_true(hits[i - 1].hits >= hits[i].hits);
	pmu_sampling_close(s);
	pmu_event_list_release(&l);
}

/* perf record -d: each sample's data address (0 for cpu-clock: no memory access) and the data mappings. */
static void test_data_addresses(void **state)
{
	char *argv[] = { self, "--burn", "100", "0", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	struct pmu_sampling_event ev;
	const struct pmu_dso_hit *hits;
	struct tdp_err err = TDP_ERR_INIT;
	struct seen seen = { 0 };
	size_t nr;
	bool found_self = false;

	(void)state;
	clock_event(&l);
	o.argv = argv;
	o.event = &l.v[0];
	o.period = 1000000;
	o.data_addr = true;
	if (pmu_sampling_open(&s, &o, &err))
		fail_msg("%s", err.msg);
	pmu_sampling_event(s, 0, &ev);
	assert_true(ev.attr->sample_type & PERF_SAMPLE_ADDR);
	assert_true(ev.attr->mmap_data);
	seen.ids = ev.ids;
	seen.nr_ids = ev.nr_ids;
	if (pmu_sampling_run(s, on_record, &seen, &err))
		fail_msg("%s", err.msg);
	assert_true(seen.samples > 50);
	assert_int_equal(seen.samples, pmu_sampling_stats(s)->samples);
	assert_int_equal(seen.bad_id, 0);
	assert_true(seen.mmap2_data >= 1); /* the heap, the stack, the data segments of the workload */
	/* the sample's layout with ADDR: the DSO tracker still reads each sample's IP and pid */
	assert_int_equal(pmu_sampling_build_ids(s, &hits, &nr, &err), 0);
	for (size_t i = 0; i < nr; i++)
		found_self |= !strcmp(hits[i].filename, self) && hits[i].hits > seen.samples / 2;
	assert_true(found_self);
	pmu_sampling_close(s);
	/* data addresses go with plain samples: not with group reads */
	o.nr_members = 1;
	o.members = &l.v[0];
	assert_int_equal(pmu_sampling_open(&s, &o, &err), TDP_EUSAGE);
	pmu_event_list_release(&l);
}

/*
 * Under valgrind (make check-valgrind) signals are delivered by valgrind's own
 * emulation, which does not keep a blocked signal for a signalfd, and a forked
 * child starts inside valgrind's emulated process: the tests of forwarding and of
 * attaching to a child cannot run there (they run natively and under ASan).
 * Valgrind preloads its core into the client.
 */
static bool under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
}

static void test_signal_is_forwarded(void **state)
{
	char *argv[] = { self, "--burn", "0", "0", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	const struct pmu_sampling_stats *st;
	struct tdp_err err = TDP_ERR_INIT;
	struct seen seen = { 0 };
	pid_t helper;
	int hst;

	(void)state;
	if (under_valgrind()) {
		print_message("skipped under valgrind: its signal emulation bypasses the signalfd\n");
		skip();
	}
	clock_event(&l);
	o.argv = argv;
	o.event = &l.v[0];
	o.freq = 1000;
	assert_int_equal(pmu_sampling_open(&s, &o, &err), 0);
	/*
	 * kill(2) from another process reaches only us: the engine must pass it on.
	 * It comes once the workload has burnt 30 ms of CPU (about 30 samples).
	 */
	helper = watch_and_signal(0, 30, 0, SIGTERM);
	assert_true(helper > 0);
	assert_int_equal(pmu_sampling_run(s, on_record, &seen, &err), 0);
	st = pmu_sampling_stats(s);
	assert_int_equal(st->signal, SIGTERM);
	assert_true(WIFSIGNALED(st->wstatus));
	assert_int_equal(WTERMSIG(st->wstatus), SIGTERM);
	/* it ran until the signal: samples of its 30 ms arrived */
	assert_true(seen.samples > 0);
	pmu_sampling_close(s);
	assert_int_equal(waitpid(helper, &hst, 0), helper);
	pmu_event_list_release(&l);
}

static void test_attach_synthesizes_what_existed(void **state)
{
	char ms[] = "0";
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	struct pmu_sampling_event ev;
	const struct pmu_sampling_stats *st;
	struct tdp_err err = TDP_ERR_INIT;
	struct seen seen = { 0 };
	pid_t target, watcher;
	int wst;

	(void)state;
	if (under_valgrind()) {
		print_message("skipped under valgrind: the target would start inside its emulated process\n");
		skip();
	}
	target = fork();
	if (target == 0) {
		char *argv[] = { self, "--burn", ms, "0", NULL };

		execv(self, argv);
		_exit(127);
	}
	/* let it exec (its command line then says --burn) */
	for (int t = 0; !runs_burn(target) && t < WAIT_DEADLINE_MS; t += 10)
		pause_10ms();
	assert_true(runs_burn(target));
	clock_event(&l);
	o.pid = target;
	o.event = &l.v[0];
	o.freq = 1000;
	assert_int_equal(pmu_sampling_open(&s, &o, &err), 0);
	pmu_sampling_event(s, 0, &ev);
	assert_false(ev.attr->enable_on_exec);
	seen.pid = (uint32_t)target;
	seen.ids = ev.ids;
	seen.nr_ids = ev.nr_ids;
	/*
	 * It spins until a watcher ends it, 1000 ms of its CPU after the events were
	 * opened (however much it burnt before): the run ends with it. The events are
	 * enabled only once what exists was synthesized, which a loaded or sanitized
	 * run can make take a good part of that time.
	 */
	watcher = watch_and_signal(target, 1000, target, SIGTERM);
	assert_true(watcher > 0);
	assert_int_equal(pmu_sampling_run(s, on_record, &seen, &err), 0);
	assert_int_equal(waitpid(watcher, &wst, 0), watcher);
	st = pmu_sampling_stats(s);
	assert_false(st->workload_ran);
	assert_int_equal(seen.synth_comm, 1);
	assert_int_equal(seen.synth_mmap2, 1);
	assert_false(seen.sample_before_synth);
	/*
	 * At 1000 Hz one sample per ms of its CPU while enabled: some, and no more than
	 * its 1000 ms (plus the watcher's reaction); its children are followed too
	 * (under ASan, LeakSanitizer's tracer at exit is one), so count the process's own
	 */
	assert_in_range(seen.samples_of_pid, 1, 1200);
	assert_int_equal(seen.bad_id, 0);
	pmu_sampling_close(s);
	assert_int_equal(waitpid(target, &wst, 0), target);
	assert_true(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGTERM);
	pmu_event_list_release(&l);
}

static void test_lost_samples_are_counted(void **state)
{
	char *argv[] = { self, "--burn", "200", "0", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	const struct pmu_sampling_stats *st;
	struct tdp_err err = TDP_ERR_INIT;
	struct seen seen = { 0 };

	(void)state;
	clock_event(&l);
	o.argv = argv;
	o.event = &l.v[0];
	o.period = 20000;     /* every 20 us of CPU: 50 samples per ms */
	o.mmap_pages = 1;     /* 4 KiB: 73 samples of 56 bytes */
	seen.sleep_first_ms = 100; /* the reader stalls: the ring overflows */
	assert_int_equal(pmu_sampling_open(&s, &o, &err), 0);
	assert_int_equal(pmu_sampling_run(s, on_record, &seen, &err), 0);
	st = pmu_sampling_stats(s);
	assert_true(st->lost_records > 0);
	assert_int_equal(st->lost_records, seen.lost_records);
	assert_int_equal(st->lost, seen.lost);
	assert_true(st->lost > 0);
	pmu_sampling_close(s);
	pmu_event_list_release(&l);
}

static void test_callback_error_stops_and_close_cleans_up(void **state)
{
	char *argv[] = { self, "--burn", "0", "0", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	struct tdp_err err = TDP_ERR_INIT;
	struct seen seen = { .fail_at = 50 };

	(void)state;
	clock_event(&l);
	o.argv = argv;
	o.event = &l.v[0];
	o.freq = 4000;
	assert_int_equal(pmu_sampling_open(&s, &o, &err), 0);
	assert_int_equal(pmu_sampling_run(s, on_record, &seen, &err), TDP_EIO);
	assert_string_equal(err.msg, "cannot write: disk full");
	/* the workload spins forever: close must kill and reap it */
	pmu_sampling_close(s);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	pmu_event_list_release(&l);
}

static void test_exec_failure(void **state)
{
	char *argv[] = { "/nonexistent/tdprof-no-such-command", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	struct tdp_err err = TDP_ERR_INIT;
	struct seen seen = { 0 };

	(void)state;
	clock_event(&l);
	o.argv = argv;
	o.event = &l.v[0];
	assert_int_equal(pmu_sampling_open(&s, &o, &err), 0);
	assert_int_equal(pmu_sampling_run(s, on_record, &seen, &err), TDP_ENOCMD);
	assert_non_null(strstr(err.msg, "no such file or directory"));
	assert_int_equal(seen.samples, 0);
	pmu_sampling_close(s);
	pmu_event_list_release(&l);
}

static void test_contradictory_options(void **state)
{
	char *argv[] = { self, "--burn", "1", "0", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o;
	struct pmu_sampling *s = (struct pmu_sampling *)&o; /* must stay untouched on failure */
	struct tdp_err err = TDP_ERR_INIT;
	sigset_t before, after;

	(void)state;
	clock_event(&l);
	sigprocmask(SIG_SETMASK, NULL, &before);
	o = (struct pmu_sampling_opts){ .argv = argv, .pid = getpid(), .event = &l.v[0] };
	assert_int_equal(pmu_sampling_open(&s, &o, &err), TDP_EUSAGE);
	o = (struct pmu_sampling_opts){ .event = &l.v[0] };
	assert_int_equal(pmu_sampling_open(&s, &o, NULL), TDP_EUSAGE);
	o = (struct pmu_sampling_opts){ .argv = argv, .event = &l.v[0], .period = 10, .freq = 10 };
	tdp_err_clear(&err);
	assert_int_equal(pmu_sampling_open(&s, &o, &err), TDP_EUSAGE);
	assert_string_equal(err.msg, "'-c' and '-F' cannot be used together");
	o = (struct pmu_sampling_opts){ .argv = argv, .event = &l.v[0], .spe = true, .freq = 10 };
	assert_int_equal(pmu_sampling_open(&s, &o, NULL), TDP_EUSAGE);
	o = (struct pmu_sampling_opts){ .argv = argv, .event = &l.v[0], .mmap_pages = 3 };
	assert_int_equal(pmu_sampling_open(&s, &o, NULL), TDP_EUSAGE);
	/* a process that does not exist (pid_max is below 2^22 on Linux) */
	o = (struct pmu_sampling_opts){ .pid = 0x7ffffff0, .event = &l.v[0] };
	tdp_err_clear(&err);
	assert_int_equal(pmu_sampling_open(&s, &o, &err), TDP_ENOENT);
	assert_ptr_equal(s, (struct pmu_sampling *)&o);
	/* every failure restored the signal mask */
	sigprocmask(SIG_SETMASK, NULL, &after);
	assert_int_equal(sigismember(&after, SIGINT), sigismember(&before, SIGINT));
	assert_int_equal(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	pmu_event_list_release(&l);
}

/* In an unprivileged process: record, and say how it went as an exit code. */
static int record_unprivileged(void)
{
	char *argv[] = { self, "--burn", "50", "0", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	struct pmu_sampling_event ev;
	struct seen seen = { 0 };
	struct pmu_env env = { "/sys", false };
	int rc = 0;

	if (pmu_event_list_parse(&l, "cpu-clock", &env, NULL))
		return 10;
	o.argv = argv;
	o.event = &l.v[0];
	o.period = 1000000;
	if (pmu_sampling_open(&s, &o, NULL))
		rc = 11;
	else if ((rc = pmu_sampling_run(s, on_record, &seen, NULL)))
		rc = rc == TDP_ENOEXEC || rc == TDP_ENOCMD ? 16 : 12;
	else if (WIFEXITED(pmu_sampling_stats(s)->wstatus) && WEXITSTATUS(pmu_sampling_stats(s)->wstatus) >= 126)
		rc = 16; /* exec refused after the fork (EACCES in a directory only root may enter: 126) */
	else if (!pmu_sampling_stats(s)->user_only)
		rc = 13;
	else if (!seen.samples)
		rc = 14;
	if (!rc) {
		pmu_sampling_event(s, 0, &ev);
		if (!ev.attr->exclude_kernel || !ev.attr->exclude_hv)
			rc = 15;
	}
	pmu_sampling_close(s);
	pmu_event_list_release(&l);
	return rc;
}

static void test_paranoid_falls_back_to_user_space(void **state)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	pid_t pid;
	int st;

	(void)state;
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (strtol(buf, NULL, 10) < 2 || access(self, X_OK))
		skip(); /* kernel samples are allowed to everyone here */
	pid = fork();
	if (pid == 0) {
		/* root does not obey perf_event_paranoid: become nobody first */
		if (geteuid() == 0 && (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
			_exit(20);
		/* a process that changed its uid is not dumpable, and nobody may then open events on its children */
		prctl(PR_SET_DUMPABLE, 1);
		_exit(record_unprivileged());
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 16)
		skip(); /* nobody cannot run this program (a private build directory) */
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_allocation_failures(void **state)
{
	char *argv[] = { self, "--burn", "20", "0", NULL };
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_sampling_opts o = PMU_SAMPLING_OPTS_INIT;
	struct pmu_sampling *s = NULL;
	struct tdp_err err = TDP_ERR_INIT;
	struct seen seen = { 0 };
	int ret = -1;

	(void)state;
	clock_event(&l);
	o.argv = argv;
	o.event = &l.v[0];
	o.period = 1000000;
	/* every allocation of open in turn: a clean TDP_ENOMEM, nothing left running */
	for (long n = 0; n < 1000; n++) {
		tdp_err_clear(&err);
		tdp_alloc_fail_after(n);
		ret = pmu_sampling_open(&s, &o, &err);
		tdp_alloc_fail_after(-1);
		if (!ret)
			break;
		assert_int_equal(ret, TDP_ENOMEM);
		assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	}
	assert_int_equal(ret, 0);
	/* and the first allocation while recording (the DSO tracker's queue) */
	tdp_alloc_fail_after(0);
	ret = pmu_sampling_run(s, on_record, &seen, &err);
	tdp_alloc_fail_after(-1);
	assert_int_equal(ret, TDP_ENOMEM);
	pmu_sampling_close(s);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	pmu_event_list_release(&l);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_of_a_workload),
		cmocka_unit_test(test_data_addresses),
		cmocka_unit_test(test_signal_is_forwarded),
		cmocka_unit_test(test_attach_synthesizes_what_existed),
		cmocka_unit_test(test_lost_samples_are_counted),
		cmocka_unit_test(test_callback_error_stops_and_close_cleans_up),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_contradictory_options),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_paranoid_falls_back_to_user_space),
	};

	if (argc == 4 && !strcmp(argv[1], "--burn")) {
		burn_loop(strtol(argv[2], NULL, 10));
		return (int)strtol(argv[3], NULL, 10);
	}
	if (!realpath("/proc/self/exe", self))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
