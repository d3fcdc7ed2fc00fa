/*
 * Unit tests of what the sampling engine builds besides the kernel's records:
 * /proc/PID/maps and /proc/kallsyms parsing, the synthesized MMAP2/COMM/kernel
 * MMAP records, Arm SPE's event spec (through the event parser on a fake sysfs
 * arm_spe_0), the AUXTRACE_INFO/AUXTRACE/TIME_CONV records, GNU build-ids of ELF
 * images and note sequences, and the PMU_MAPPINGS feature. Records and features
 * are written with src/perfdata's writer and read back with its reader (written
 * from perf's format description, not from these builders); the SPE records are
 * also given to Debian's perf, whose `perf report -D` must decode the packets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "cpu/cpu.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"
#include "pmu/event.h"
#include "pmu/sampling.h"
#include "test-event-fake.h"

extern char **environ;

#define ID_SIZE 32 /* TID, TIME, CPU, IDENTIFIER */
#define SAMPLE_TYPE                                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD)

/* ---- /proc/PID/maps -------------------------------------------------------------- */

struct maps_seen {
	struct pmu_maps_entry e[8];
	char names[8][128];
	size_t nr;
};

static int on_map(void *arg, const struct pmu_maps_entry *e, struct tdp_err *err)
{
	struct maps_seen *s = arg;

	(void)err;
	assert_true(s->nr < 8);
	s->e[s->nr] = *e;
	snprintf(s->names[s->nr], sizeof(s->names[0]), "%.*s", (int)e->name_len, e->name);
	s->nr++;
	return 0;
}

static void test_maps_parse(void **state)
{
	const char text[] =
		"55b6aa1b3000-55b6aa1b4000 r-xp 00001000 fe:00 5357948                    /usr/bin/my app\n"
		"7f64a68be000-7f64a68c0000 r-xp 00000000 00:00 0                          [vdso]\n"
		"7f0000000000-7f0000001000 rw-s 00000000 00:05 1234 \n"
		"7f64a66ec000-7f64a6842000 r-xp 00026000 103:02 332835                    /lib/libc.so.6 (deleted)";
	struct maps_seen s = { 0 };

	(void)state;
	assert_int_equal(pmu_maps_parse(text, strlen(text), on_map, &s, NULL), 0);
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.e[0].start, 0x55b6aa1b3000ull);
	assert_int_equal(s.e[0].end, 0x55b6aa1b4000ull);
	assert_int_equal(s.e[0].pgoff, 0x1000);
	assert_int_equal(s.e[0].prot, PROT_READ | PROT_EXEC);
	assert_int_equal(s.e[0].flags, MAP_PRIVATE);
	assert_int_equal(s.e[0].maj, 0xfe);
	assert_int_equal(s.e[0].min, 0);
	assert_int_equal(s.e[0].ino, 5357948);
	assert_string_equal(s.names[0], "/usr/bin/my app");
	assert_string_equal(s.names[1], "[vdso]");
	assert_int_equal(s.e[2].prot, PROT_READ | PROT_WRITE);
	assert_int_equal(s.e[2].flags, MAP_SHARED);
	assert_string_equal(s.names[2], "");
	assert_int_equal(s.e[3].maj, 0x103); /* maj:min are hex, as the kernel prints them */
	assert_int_equal(s.e[3].min, 2);
	assert_string_equal(s.names[3], "/lib/libc.so.6 (deleted)");
}

static void test_maps_parse_rejects_garbage(void **state)
{
	static const char *const bad[] = {
		"55b6aa1b3000 r-xp 00001000 fe:00 1 /x\n",                 /* no range */
		"2000-1000 r-xp 00001000 fe:00 1 /x\n",                    /* backwards */
		"1000-2000 rzxp 00001000 fe:00 1 /x\n",                    /* bad perms */
		"1000-2000 r-xp 00001000 fe00 1 /x\n",                     /* no ':' */
		"1000-2000 r-xp 00001000 fe:00 /x\n",                      /* no inode */
		"1000-2000 r-xp 00001000 fe:00 12x /x\n",                  /* inode not decimal */
		"11112222333344445-ffffffffffffffff r-xp 0 0:0 0 /x\n",    /* overflow */
	};
	struct tdp_err err = TDP_ERR_INIT;
	struct maps_seen s = { 0 };
	char two[] = "1000-2000 r-xp 00000000 fe:00 1 /ok\nnonsense\n";

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tdp_err_clear(&err);
		if (pmu_maps_parse(bad[i], strlen(bad[i]), on_map, &s, &err) != TDP_EFORMAT)
			fail_msg("accepted: %s", bad[i]);
	}
	s.nr = 0;
	tdp_err_clear(&err);
	assert_int_equal(pmu_maps_parse(two, strlen(two), on_map, &s, &err), TDP_EFORMAT);
	assert_int_equal(s.nr, 1);
	assert_string_equal(err.msg, "maps line 2 does not parse: 'nonsense'");
}

static void test_kallsyms(void **state)
{
	const char k[] = "0000000000000000 A fixed_percpu_data\n"
			 "ffffffff81000000 T _stext\n"
			 "ffffffff81000000 T _text\n"
			 "ffffffff81001000 t some_text_symbol\n"
			 "ffffffff8220bb08 T _etext\n"
			 "ffffffffc0000000 t mod_fn\t[mod]\n";
	const char hidden[] = "0000000000000000 T _text\n0000000000000000 T _etext\n";
	const char no_etext[] = "ffffffff81000000 T _text\n";
	uint64_t t, e;

	(void)state;
	assert_true(pmu_kallsyms_text(k, strlen(k), &t, &e));
	assert_int_equal(t, 0xffffffff81000000ull);
	assert_int_equal(e, 0xffffffff8220bb08ull);
	/* kptr_restrict shows zeros: no kernel map can be made */
	assert_false(pmu_kallsyms_text(hidden, strlen(hidden), &t, &e));
	assert_true(pmu_kallsyms_text(no_etext, strlen(no_etext), &t, &e));
	assert_int_equal(e, 0);
	assert_false(pmu_kallsyms_text("", 0, &t, &e));
}

/* ---- records read back with src/perfdata --------------------------------------------- */

struct tmpfile {
	char path[256];
};

static void tmp_path(struct tmpfile *t, const char *name)
{
	const char *dir = getenv("TMPDIR");

	snprintf(t->path, sizeof(t->path), "%s/tdprof-synth-%d-%s", dir && *dir ? dir : "/tmp", (int)getpid(), name);
}

static struct perfdata_writer *writer_with_attr(const char *path, uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	struct perfdata_writer *w = NULL;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t id = 42;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.sample_period = 1000;
	a.sample_type = SAMPLE_TYPE;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.task = 1;
	if (perfdata_writer_open(&w, path, &err) || perfdata_writer_add_attr(w, &a, sizeof(a), &id, 1, "cpu-clock", &err))
		fail_msg("%s", err.msg);
	return w;
}

struct readback {
	struct tdp_file f;
	struct perfdata *p;
};

static void open_back(struct readback *rb, const char *path)
{
	struct tdp_err err = TDP_ERR_INIT;

	rb->f = (struct tdp_file)TDP_FILE_INIT;
	if (tdp_file_open(&rb->f, path, 0, &err) || perfdata_open(&rb->p, rb->f.data, rb->f.size, path, 0, &err))
		fail_msg("%s", err.msg);
}

static void close_back(struct readback *rb, const char *path)
{
	perfdata_close(rb->p);
	tdp_file_close(&rb->f);
	unlink(path);
}

static void test_synthesized_records_read_back(void **state)
{
	struct tmpfile t;
	struct perfdata_writer *w;
	struct pmu_maps_entry e = { 0x400000, 0x401000, 0x1000, PROT_READ | PROT_EXEC, MAP_PRIVATE, 8, 1, 777,
				    "/usr/bin/app", 12 };
	uint8_t buf[512];
	struct readback rb;
	struct perfdata_record r;
	struct tdp_err err = TDP_ERR_INIT;
	size_t n;
	int seen = 0;

	(void)state;
	tmp_path(&t, "synth.data");
	w = writer_with_attr(t.path, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	n = pmu_synth_kernel_mmap(buf, sizeof(buf), 0xffffffff81000000ull, 0xffffffff8220bb08ull, ID_SIZE);
	assert_int_equal(n % 8, 0);
	assert_int_equal(perfdata_writer_add_record(w, buf, n, &err), 0);
	n = pmu_synth_comm(buf, sizeof(buf), 4242, 4243, "worker-thread-name-too-long", ID_SIZE);
	assert_int_equal(n % 8, 0);
	assert_int_equal(perfdata_writer_add_record(w, buf, n, &err), 0);
	n = pmu_synth_mmap2(buf, sizeof(buf), 4242, &e, ID_SIZE);
	assert_int_equal(n % 8, 0);
	assert_int_equal(perfdata_writer_add_record(w, buf, n, &err), 0);
	/* a name that does not fit is refused, not cut */
	assert_int_equal(pmu_synth_mmap2(buf, 80, 1, &e, ID_SIZE), 0);
	assert_int_equal(perfdata_writer_close(w, &err), 0);

	open_back(&rb, t.path);
	while (perfdata_next(rb.p, &r, &err) > 0) {
		if (r.type == PERFDATA_RECORD_MMAP) {
			assert_int_equal(r.misc & PERFDATA_MISC_CPUMODE_MASK, PERFDATA_MISC_KERNEL);
			assert_int_equal(r.u.mmap.pid, UINT32_MAX);
			assert_int_equal(r.u.mmap.start, 0xffffffff81000000ull);
			assert_int_equal(r.u.mmap.len, 0x120bb08);
			assert_int_equal(r.u.mmap.pgoff, 0xffffffff81000000ull);
			assert_int_equal(r.u.mmap.filename.len, strlen("[kernel.kallsyms]_text"));
			assert_memory_equal(r.u.mmap.filename.s, "[kernel.kallsyms]_text", r.u.mmap.filename.len);
			seen |= 1;
		} else if (r.type == PERFDATA_RECORD_COMM) {
			assert_int_equal(r.u.comm.pid, 4242);
			assert_int_equal(r.u.comm.tid, 4243);
			/* the kernel's comm holds 15 characters and a NUL; we keep at most 16 */
			assert_true(r.u.comm.comm.len <= 16);
			assert_memory_equal(r.u.comm.comm.s, "worker-thread-na", r.u.comm.comm.len);
			seen |= 2;
		} else if (r.type == PERFDATA_RECORD_MMAP2) {
			assert_int_equal(r.misc & PERFDATA_MISC_CPUMODE_MASK, PERFDATA_MISC_USER);
			assert_false(r.u.mmap.has_build_id);
			assert_int_equal(r.u.mmap.pid, 4242);
			assert_int_equal(r.u.mmap.tid, 4242);
			assert_int_equal(r.u.mmap.start, 0x400000);
			assert_int_equal(r.u.mmap.len, 0x1000);
			assert_int_equal(r.u.mmap.pgoff, 0x1000);
			assert_int_equal(r.u.mmap.maj, 8);
			assert_int_equal(r.u.mmap.min, 1);
			assert_int_equal(r.u.mmap.ino, 777);
			assert_int_equal(r.u.mmap.prot, PROT_READ | PROT_EXEC);
			assert_int_equal(r.u.mmap.flags, MAP_PRIVATE);
			assert_int_equal(r.u.mmap.filename.len, 12);
			assert_memory_equal(r.u.mmap.filename.s, "/usr/bin/app", 12);
			seen |= 4;
		}
		/* the zeroed sample_id trailer parses: time 0, id 0 (perf's synthesized records) */
		assert_int_equal(r.sid.time, 0);
	}
	assert_int_equal(seen, 7);
	assert_int_equal(perfdata_stats(rb.p)->unknown_id, 0);
	close_back(&rb, t.path);
}

/* ---- Arm SPE ----------------------------------------------------------------------- */

static void fake_spe(struct fake_sysfs *fs)
{
	/* drivers/perf/arm_spe_pmu.c's format attributes */
	fake_init(fs);
	fake_write(fs, "bus/event_source/devices/arm_spe_0/type", "8");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/ts_enable", "config:0");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/pa_enable", "config:1");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/pct_enable", "config:2");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/jitter", "config:16");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/branch_filter", "config:32");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/load_filter", "config:33");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/store_filter", "config:34");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/event_filter", "config1:0-63");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/format/min_latency", "config2:0-11");
	fake_write(fs, "bus/event_source/devices/arm_spe_0/caps/min_interval", "1024");
}

static void test_spe_event_spec_encodes(void **state)
{
	struct fake_sysfs fs;
	struct cpu_env cenv = { NULL, NULL, false };
	struct cpu_pmu_list pmus = CPU_PMU_LIST_INIT;
	const struct cpu_pmu *spe;
	struct strbuf sb = STRBUF_INIT;
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct pmu_env env = { NULL, false };
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	fake_spe(&fs);
	cenv.sysfs_root = fs.root;
	env.sysfs_root = fs.root;
	assert_int_equal(cpu_pmu_list_detect(&pmus, &cenv, &err), 0);
	spe = cpu_pmu_list_first(&pmus, CPU_PMU_SPE);
	assert_non_null(spe);
	assert_int_equal(cpu_pmu_cap_long(spe, "min_interval"), 1024);

	assert_int_equal(pmu_spe_event_spec(spe, true, &sb, &err), 0);
	assert_string_equal(sb.buf, "arm_spe_0/branch_filter=1,ts_enable=1,jitter=1,event_filter=0x80/");
	assert_int_equal(pmu_event_list_parse(&l, sb.buf, &env, &err), 0);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.v[0].attr.type, 8);
	/* branch_filter config:32, ts_enable config:0, jitter config:16 */
	assert_int_equal(l.v[0].attr.config, (1ull << 32) | (1ull << 16) | 1ull);
	/* PMSEVFR_EL1 bit 7: mispredicted */
	assert_int_equal(l.v[0].attr.config1, 0x80);
	pmu_event_list_release(&l);

	/* all branches: no event filter */
	strbuf_reset(&sb);
	assert_int_equal(pmu_spe_event_spec(spe, false, &sb, &err), 0);
	assert_null(strstr(sb.buf, "event_filter"));
	assert_int_equal(pmu_event_list_parse(&l, sb.buf, &env, &err), 0);
	assert_int_equal(l.v[0].attr.config1, 0);
	pmu_event_list_release(&l);
	strbuf_release(&sb);
	cpu_pmu_list_release(&pmus);
	fake_free(&fs);
}

static void test_spe_without_branch_filter(void **state)
{
	struct cpu_kv fmt[] = { { "ts_enable", "config:0" } };
	struct cpu_pmu p = { .name = "arm_spe_0", .type = 8, .kind = CPU_PMU_SPE, .format = fmt, .nr_format = 1 };
	struct strbuf sb = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(pmu_spe_event_spec(&p, true, &sb, &err), TDP_ENOTSUP);
	assert_non_null(strstr(err.msg, "'arm_spe_0' PMU has no 'branch_filter'"));
	assert_int_equal(pmu_spe_event_spec(&p, true, &sb, NULL), TDP_ENOTSUP);
	strbuf_release(&sb);
}

/* Two SPE records from perf_data_converter's decoder test (../shared/data/spe/). */
static const uint8_t spe_packets[] = {
	0xb0, 0xd0, 0xc2, 0xa1, 0xed, 0x66, 0xba, 0xff, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x65, 0x80, 0x5f, 0x00,
	0x00, 0x49, 0x00, 0x52, 0x16, 0x00, 0x99, 0x04, 0x00, 0x98, 0x0c, 0x00, 0xb2, 0x28, 0x6b, 0x09, 0x03, 0x37,
	0x0e, 0xff, 0x00, 0x9a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x43, 0x00, 0x00,
	0x00, 0x71, 0x2e, 0x65, 0x2f, 0x6a, 0x0a, 0x00, 0x00, 0x00, 0xb0, 0xe0, 0xb0, 0xef, 0xed, 0x66, 0xba, 0xff,
	0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x65, 0x0e, 0x00, 0x00, 0x00, 0x4a, 0x01, 0x52, 0x42, 0x00, 0x99, 0x10,
	0x00, 0x98, 0x11, 0x00, 0xb1, 0xe4, 0xb0, 0xef, 0xed, 0x66, 0xba, 0xff, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x71, 0x8d, 0x65, 0x2f, 0x6a, 0x0a, 0x00,
	0x00, 0x00,
};

/* Run argv with stdout to out_path; returns its exit status, or -1 when it cannot be spawned. */
static int spawn_to_file(char *const *argv, const char *out_path)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, r;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r)
		return -1;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_spe_records_read_back_and_by_perf(void **state)
{
	struct tmpfile t, out;
	struct perfdata_writer *w;
	struct perf_event_mmap_page pc;
	uint8_t buf[PMU_AUXTRACE_HEADER_SIZE + sizeof(spe_packets)];
	uint8_t info[PMU_SPE_AUXTRACE_INFO_SIZE], conv[PMU_TIME_CONV_SIZE];
	struct readback rb;
	struct perfdata_record r;
	struct tdp_err err = TDP_ERR_INIT;
	uint64_t v;
	int seen = 0;

	(void)state;
	tmp_path(&t, "spe.data");
	w = writer_with_attr(t.path, 8, (1ull << 32) | 1);
	assert_int_equal(pmu_spe_auxtrace_info(info, 8, true), PMU_SPE_AUXTRACE_INFO_SIZE);
	assert_int_equal(perfdata_writer_add_record(w, info, sizeof(info), &err), 0);
	memset(&pc, 0, sizeof(pc));
	pc.time_shift = 31;
	pc.time_mult = 0x55555555;
	pc.time_zero = 0x123456789ull;
	pc.cap_user_time_zero = 1;
	assert_int_equal(pmu_time_conv(conv, &pc), PMU_TIME_CONV_SIZE);
	assert_int_equal(perfdata_writer_add_record(w, conv, sizeof(conv), &err), 0);
	assert_int_equal(pmu_auxtrace_header(buf, sizeof(spe_packets), 4096, 0xabcdef, 1, UINT32_MAX, 1),
			 PMU_AUXTRACE_HEADER_SIZE);
	memcpy(buf + PMU_AUXTRACE_HEADER_SIZE, spe_packets, sizeof(spe_packets));
	assert_int_equal(perfdata_writer_add_record(w, buf, sizeof(buf), &err), 0);
	assert_int_equal(perfdata_writer_close(w, &err), 0);

	open_back(&rb, t.path);
	while (perfdata_next(rb.p, &r, &err) > 0) {
		if (r.type == PERFDATA_RECORD_AUXTRACE_INFO) {
			assert_int_equal(r.size, 32);
			memcpy(&v, r.raw + 8, 4);
			assert_int_equal(v & 0xffffffff, 4); /* PERF_AUXTRACE_ARM_SPE */
			memcpy(&v, r.raw + 16, 8);
			assert_int_equal(v, 8); /* priv[ARM_SPE_PMU_TYPE] */
			memcpy(&v, r.raw + 24, 8);
			assert_int_equal(v, 1); /* priv[ARM_SPE_PER_CPU_MMAPS] */
			seen |= 1;
		} else if (r.type == PERFDATA_RECORD_TIME_CONV) {
			memcpy(&v, r.raw + 8, 8);
			assert_int_equal(v, 31);
			memcpy(&v, r.raw + 16, 8);
			assert_int_equal(v, 0x55555555);
			memcpy(&v, r.raw + 24, 8);
			assert_int_equal(v, 0x123456789ull);
			assert_int_equal(r.raw[48], 1);
			seen |= 2;
		} else if (r.type == PERFDATA_RECORD_AUXTRACE) {
			assert_int_equal(r.u.auxtrace.size, sizeof(spe_packets));
			assert_int_equal(r.u.auxtrace.offset, 4096);
			assert_int_equal(r.u.auxtrace.reference, 0xabcdef);
			assert_int_equal(r.u.auxtrace.idx, 1);
			assert_int_equal(r.u.auxtrace.tid, UINT32_MAX);
			assert_int_equal(r.u.auxtrace.cpu, 1);
			assert_memory_equal(r.u.auxtrace.data, spe_packets, sizeof(spe_packets));
			assert_int_equal(r.raw_len, sizeof(buf));
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
	perfdata_close(rb.p);
	tdp_file_close(&rb.f);

	/* Debian's perf must find the SPE trace where we put it, and decode it */
	tmp_path(&out, "spe-dump.txt");
	{
		char *argv[] = { "perf", "report", "-D", "-i", t.path, NULL };
		int rc = spawn_to_file(argv, out.path);
		struct tdp_file f = TDP_FILE_INIT;

		if (rc >= 0 && tdp_file_open(&f, out.path, 0, NULL) == 0) {
			char *text = tdp_strndup((const char *)f.data, f.size);

			assert_non_null(text);
			/* perf's dump: ". ... ARM SPE data: size 0x80 bytes" (newer perf: 128) and the decodes */
			assert_true(strstr(text, "ARM SPE data: size 0x80 bytes") || strstr(text, "ARM SPE data: size 128 bytes"));
			assert_non_null(strstr(text, "PERF_RECORD_AUXTRACE_INFO type: 4"));
			assert_non_null(strstr(text, "B COND"));
			assert_non_null(strstr(text, "TGT 0xffba66edefb0e4"));
			tdp_free(text);
			tdp_file_close(&f);
		}
		unlink(out.path);
	}
	unlink(t.path);
}

/* ---- build-ids ----------------------------------------------------------------------- */

/* A minimal ELF64 of this byte order: header, one PT_NOTE, optionally a section table. */
static size_t make_elf(uint8_t *buf, size_t size, bool use_sections, const uint8_t *id, uint32_t id_len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Shdr sh[2];
	Elf64_Nhdr nh = { 4, id_len, NT_GNU_BUILD_ID };
	size_t note_off = 0x100, note_len = sizeof(nh) + 4 + (id_len + 3) / 4 * 4;

	assert_true(size >= 0x200);
	memset(buf, 0, size);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_ehsize = sizeof(eh);
	if (use_sections) {
		eh.e_shoff = 0x80;
		eh.e_shentsize = sizeof(Elf64_Shdr);
		eh.e_shnum = 2;
		memset(sh, 0, sizeof(sh));
		sh[1].sh_type = SHT_NOTE;
		sh[1].sh_offset = note_off;
		sh[1].sh_size = note_len;
		sh[1].sh_addralign = 4;
		memcpy(buf + 0x80, sh, sizeof(sh));
	} else {
		eh.e_phoff = sizeof(eh);
		eh.e_phentsize = sizeof(Elf64_Phdr);
		eh.e_phnum = 1;
		memset(&ph, 0, sizeof(ph));
		ph.p_type = PT_NOTE;
		ph.p_offset = note_off;
		ph.p_filesz = note_len;
		ph.p_align = 4;
		memcpy(buf + sizeof(eh), &ph, sizeof(ph));
	}
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + note_off, &nh, sizeof(nh));
	memcpy(buf + note_off + sizeof(nh), "GNU", 4);
	memcpy(buf + note_off + sizeof(nh) + 4, id, id_len);
	return 0x200;
}

static void test_elf_build_id(void **state)
{
	uint8_t elf[0x200], got[PMU_BUILD_ID_MAX];
	uint8_t id[20];
	struct tdp_err err = TDP_ERR_INIT;
	size_t n, len;

	(void)state;
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(0xa0 + i);
	len = make_elf(elf, sizeof(elf), false, id, 20);
	assert_int_equal(pmu_elf_build_id(elf, len, "x", got, &n, &err), 1);
	assert_int_equal(n, 20);
	assert_memory_equal(got, id, 20);
	/* only in a section (no program headers) */
	len = make_elf(elf, sizeof(elf), true, id, 16);
	assert_int_equal(pmu_elf_build_id(elf, len, "x", got, &n, &err), 1);
	assert_int_equal(n, 16);
	assert_memory_equal(got, id, 16);
	/* not an ELF, or of the other byte order: no build-id, no error */
	assert_int_equal(pmu_elf_build_id((const uint8_t *)"#!/bin/sh\n", 10, "x", got, &n, &err), 0);
	elf[EI_DATA] = elf[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
	assert_int_equal(pmu_elf_build_id(elf, len, "x", got, &n, &err), 0);
}

static void test_elf_build_id_hostile(void **state)
{
	uint8_t elf[0x200], got[PMU_BUILD_ID_MAX], id[20] = { 1, 2, 3 };
	struct tdp_err err = TDP_ERR_INIT;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Nhdr nh;
	size_t n, len;

	(void)state;
	/* program headers beyond the file */
	len = make_elf(elf, sizeof(elf), false, id, 20);
	memcpy(&eh, elf, sizeof(eh));
	eh.e_phoff = 0x1f0;
	memcpy(elf, &eh, sizeof(eh));
	assert_int_equal(pmu_elf_build_id(elf, len, "evil", got, &n, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "'evil'"));
	/* a note segment beyond the file */
	tdp_err_clear(&err);
	len = make_elf(elf, sizeof(elf), false, id, 20);
	memcpy(&ph, elf + sizeof(Elf64_Ehdr), sizeof(ph));
	ph.p_filesz = 0xffffffffffff0000ull;
	memcpy(elf + sizeof(Elf64_Ehdr), &ph, sizeof(ph));
	assert_int_equal(pmu_elf_build_id(elf, len, "evil", got, &n, &err), TDP_EFORMAT);
	/* a note whose descsz runs past its segment (and would overflow) */
	tdp_err_clear(&err);
	len = make_elf(elf, sizeof(elf), false, id, 20);
	memcpy(&nh, elf + 0x100, sizeof(nh));
	nh.n_descsz = 0xfffffffe;
	memcpy(elf + 0x100, &nh, sizeof(nh));
	assert_int_equal(pmu_elf_build_id(elf, len, "evil", got, &n, &err), TDP_EFORMAT);
	/* a header cut short */
	assert_int_equal(pmu_elf_build_id(elf, 40, "evil", got, &n, NULL), TDP_EFORMAT);
	/* too many headers */
	len = make_elf(elf, sizeof(elf), false, id, 20);
	memcpy(&eh, elf, sizeof(eh));
	eh.e_phnum = 0xffff;
	memcpy(elf, &eh, sizeof(eh));
	assert_int_equal(pmu_elf_build_id(elf, len, "evil", got, &n, NULL), TDP_EFORMAT);
	/* a bare note sequence, as /sys/kernel/notes: a Xen note first, then GNU */
	{
		uint8_t notes[64] = { 0 };
		Elf64_Nhdr a = { 4, 4, 6 }, b = { 4, 8, NT_GNU_BUILD_ID };

		memcpy(notes, &a, 12);
		memcpy(notes + 12, "Xen", 4);
		memcpy(notes + 20, &b, 12);
		memcpy(notes + 32, "GNU", 4);
		memcpy(notes + 36, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
		assert_int_equal(pmu_notes_build_id(notes, 44, "notes", got, &n, NULL), 1);
		assert_int_equal(n, 8);
		assert_memory_equal(got, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
		assert_int_equal(pmu_notes_build_id(notes, 20, "notes", got, &n, NULL), 0);
		assert_int_equal(pmu_notes_build_id(notes, 40, "notes", got, &n, NULL), TDP_EFORMAT);
	}
}

/* The build-id of this test program as the loader sees it (its PT_NOTE in memory). */
static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint8_t *out = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program has an empty name */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
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

static void test_build_id_of_this_program(void **state)
{
	uint8_t loader[21] = { 0 }, got[PMU_BUILD_ID_MAX];
	struct tdp_file f = TDP_FILE_INIT;
	size_t n;

	(void)state;
	if (!dl_iterate_phdr(phdr_cb, loader))
		skip(); /* linked without a build-id */
	assert_int_equal(tdp_file_open(&f, "/proc/self/exe", 0, NULL), 0);
	assert_int_equal(pmu_elf_build_id(f.data, f.size, "/proc/self/exe", got, &n, NULL), 1);
	assert_int_equal(n, loader[0]);
	assert_memory_equal(got, loader + 1, n);
	tdp_file_close(&f);
}

/* ---- host and PMU mappings ------------------------------------------------------------ */

static void test_host_info(void **state)
{
	struct cpu_info amd = { .vendor = CPU_VENDOR_AMD, .vendor_str = "AuthenticAMD", .is_x86 = true, .family = 25,
				.model = 17, .stepping = 1, .brand = "AMD EPYC" };
	struct cpu_info arm = { .vendor = CPU_VENDOR_ARM, .is_arm = true, .midr = 0x410fd490 };
	struct pmu_host_info h;
	struct utsname u;
	char host[256];

	(void)state;
	pmu_host_info_read(&h, &amd);
	assert_int_equal(uname(&u), 0);
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	assert_string_equal(h.hostname, host);
	assert_string_equal(h.osrelease, u.release);
	assert_string_equal(h.arch, u.machine);
	assert_int_equal(h.nr_cpus_online, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(h.total_mem_kb > 0);
	/* perf's spellings (formats.md §3.1: "AuthenticAMD,25,17,0", arm64 MIDR) */
	assert_string_equal(h.cpuid, "AuthenticAMD,25,17,1");
	assert_string_equal(h.cpudesc, "AMD EPYC");
	pmu_host_info_read(&h, &arm);
	assert_string_equal(h.cpuid, "0x00000000410fd490");
	pmu_host_info_read(&h, NULL);
	assert_string_equal(h.cpuid, "");
}

static void test_pmu_mappings_read_back(void **state)
{
	struct cpu_pmu v[3] = { { .name = "cpu", .type = 4 }, { .name = "gone", .type = -1 },
				{ .name = "software", .type = 1 } };
	struct cpu_pmu_list l = { v, 3, 3 };
	struct tmpfile t;
	struct perfdata_writer *w;
	struct readback rb;
	const struct perfdata_features *fe;
	uint8_t *raw;
	size_t len;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(pmu_host_pmu_mappings(&l, &raw, &len, &err), 0);
	assert_int_equal(len, 4 + 2 * (8 + 64));
	tmp_path(&t, "maps.data");
	w = writer_with_attr(t.path, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(perfdata_writer_set_feature_raw(w, PERFDATA_FEAT_PMU_MAPPINGS, raw, len, &err), 0);
	assert_int_equal(perfdata_writer_close(w, &err), 0);
	tdp_free(raw);
	open_back(&rb, t.path);
	fe = perfdata_features(rb.p);
	assert_int_equal(fe->nr_pmu_mappings, 2);
	assert_int_equal(fe->pmu_mappings[0].type, 4);
	assert_string_equal(fe->pmu_mappings[0].name, "cpu");
	assert_int_equal(fe->pmu_mappings[1].type, 1);
	assert_string_equal(fe->pmu_mappings[1].name, "software");
	close_back(&rb, t.path);
	/* allocation failure */
	tdp_alloc_fail_after(0);
	assert_int_equal(pmu_host_pmu_mappings(&l, &raw, &len, NULL), TDP_ENOMEM);
	tdp_alloc_fail_after(-1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_parse),
		cmocka_unit_test(test_maps_parse_rejects_garbage),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_synthesized_records_read_back),
		cmocka_unit_test(test_spe_event_spec_encodes),
		cmocka_unit_test(test_spe_without_branch_filter),
		cmocka_unit_test(test_spe_records_read_back_and_by_perf),
		cmocka_unit_test(test_elf_build_id),
		cmocka_unit_test(test_elf_build_id_hostile),
		cmocka_unit_test(test_build_id_of_this_program),
		cmocka_unit_test(test_host_info),
		cmocka_unit_test(test_pmu_mappings_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
