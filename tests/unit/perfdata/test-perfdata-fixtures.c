/*
 * test-perfdata-fixtures: every real recording in ../shared/data/perfdata/ decodes
 * to what Debian's perf 6.1 printed for it (derived/NAME.perf6.1-script-brstack.txt,
 * from `perf script -F event,ip,brstack`): the same sample, branch-entry and
 * mispredicted-entry counts, and, line by line, the same text when our decode is
 * formatted the way perf script formats it.
 *
 * perf script prints samples in time order (its ordered-events queue), resolves
 * user-space callchain entries to map-relative addresses (map__map_ip: ip - start
 * + pgoff of the MMAP covering the ip in that process) and prints kernel ones as
 * they are. We replay the same: records sorted by time (stable), a map table per
 * pid fed by MMAP/MMAP2 and FORK.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "pdtest.h"

#include <inttypes.h>

#define CONTEXT_MAX ((uint64_t)-4095) /* PERF_CONTEXT_MAX: callchain markers are above */
#define CONTEXT_USER ((uint64_t)-512)

enum ev_kind { EV_MAP, EV_FORK, EV_SAMPLE };

struct ev {
	enum ev_kind kind;
	uint64_t time;
	size_t seq;
	uint32_t pid, ppid;
	uint64_t start, len, pgoff;   /* EV_MAP */
	size_t attr;                  /* EV_SAMPLE */
	uint64_t ip;
	uint64_t *cc;
	size_t nr_cc;
	struct branch_entry *br;
	size_t nr_br;
};

struct map {
	uint32_t pid;
	uint64_t start, len, pgoff;
};

struct decoded {
	struct ev *ev;
	size_t nr, alloc;
	uint64_t samples, entries, mispred;
	const char *names[8];
	size_t nr_names;
	int width;
};

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void *dup_mem(const void *p, size_t n)
{
	void *q = tdp_malloc(n ? n : 1);

	assert_non_null(q);
	if (n)
		memcpy(q, p, n);
	return q;
}

static void decode_file(const char *path, struct perfdata **pp, struct decoded *d, uint8_t **bufp)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_record r;
	size_t len;
	int ret;

	*bufp = pdtest_read(path, &len);
	assert_non_null(*bufp);
	ret = perfdata_open(pp, *bufp, len, path, 0, &err);
	if (ret)
		fail_msg("%s", err.msg);
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < perfdata_nr_attrs(*pp) && i < 8; i++) {
		const struct perfdata_attr *a = perfdata_attr(*pp, i);

		assert_non_null(a->name);
		d->names[d->nr_names++] = a->name;
		if ((int)strlen(a->name) > d->width)
			d->width = (int)strlen(a->name);
	}
	while ((ret = perfdata_next(*pp, &r, &err)) > 0) {
		struct ev e = { .seq = d->nr };

		if (r.type == PERFDATA_RECORD_SAMPLE && r.attr) {
			const struct perfdata_sample *s = &r.u.sample;

			e.kind = EV_SAMPLE;
			e.time = s->time;
			e.pid = s->pid;
			e.attr = r.attr->index;
			e.ip = s->ip;
			e.nr_cc = s->nr_callchain;
			e.cc = dup_mem(s->callchain, s->nr_callchain * sizeof(uint64_t));
			e.nr_br = s->nr_branches;
			e.br = dup_mem(s->branches, s->nr_branches * sizeof(struct branch_entry));
			d->samples++;
			d->entries += s->nr_branches;
			for (size_t i = 0; i < s->nr_branches; i++)
				d->mispred += s->branches[i].mispred;
		} else if (r.type == PERFDATA_RECORD_MMAP || r.type == PERFDATA_RECORD_MMAP2) {
			e.kind = EV_MAP;
			e.time = (r.sid.fields & PERFDATA_SAMPLE_TIME) ? r.sid.time : 0;
			e.pid = r.u.mmap.pid;
			e.start = r.u.mmap.start;
			e.len = r.u.mmap.len;
			e.pgoff = r.u.mmap.pgoff;
		} else if (r.type == PERFDATA_RECORD_FORK) {
			e.kind = EV_FORK;
			e.time = r.u.fork.time;
			e.pid = r.u.fork.pid;
			e.ppid = r.u.fork.ppid;
		} else {
			continue;
		}
		if (TDP_GROW(d->ev, d->alloc, d->nr + 1))
			fail_msg("out of memory");
		d->ev[d->nr++] = e;
	}
	if (ret < 0)
		fail_msg("%s", err.msg);
	qsort(d->ev, d->nr, sizeof(*d->ev), ev_cmp);
}

static void decoded_release(struct decoded *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		tdp_free(d->ev[i].cc);
		tdp_free(d->ev[i].br);
	}
	tdp_free(d->ev);
}

/* map__map_ip() of the newest map of pid that covers ip; ip itself when none does. */
static uint64_t map_ip(const struct map *maps, size_t nr, uint32_t pid, uint64_t ip)
{
	for (size_t i = nr; i-- > 0;)
		if (maps[i].pid == pid && ip >= maps[i].start && ip - maps[i].start < maps[i].len)
			return ip - maps[i].start + maps[i].pgoff;
	return ip;
}

/* perf 6.1 builtin-script.c: print_bstack_flags(): /M|P|-/X|-/A|-/cycles/type */
static char mispred_char(const struct branch_entry *e)
{
	if (!e->mispred && !e->predicted)
		return '-';
	return e->predicted ? 'P' : 'M';
}

static void format_all(const struct decoded *d, struct strbuf *sb)
{
	struct map *maps = NULL;
	size_t nr_maps = 0, alloc = 0;

	for (size_t k = 0; k < d->nr; k++) {
		const struct ev *e = &d->ev[k];

		if (e->kind == EV_MAP) {
			if (TDP_GROW(maps, alloc, nr_maps + 1))
				fail_msg("out of memory");
			maps[nr_maps++] = (struct map){ e->pid, e->start, e->len, e->pgoff };
			continue;
		}
		if (e->kind == EV_FORK) {
			size_t n = nr_maps;

			for (size_t i = 0; e->pid != e->ppid && i < n; i++) {
				if (maps[i].pid != e->ppid)
					continue;
				if (TDP_GROW(maps, alloc, nr_maps + 1))
					fail_msg("out of memory");
				maps[nr_maps] = maps[i];
				maps[nr_maps++].pid = e->pid;
			}
			continue;
		}
		strbuf_addf(sb, "%*s: ", d->width, d->names[e->attr]);
		if (e->nr_cc) {
			bool user = false;

			strbuf_addch(sb, '\n');
			for (size_t i = 0; i < e->nr_cc; i++) {
				uint64_t ip = e->cc[i];

				if (ip >= CONTEXT_MAX) {
					user = ip == CONTEXT_USER;
					continue;
				}
				strbuf_addf(sb, "\t%16" PRIx64 "\n",
					    user ? map_ip(maps, nr_maps, e->pid, ip) : ip);
			}
		} else {
			strbuf_addf(sb, " %16" PRIx64, e->ip);
		}
		for (size_t i = 0; i < e->nr_br; i++) {
			const struct branch_entry *b = &e->br[i];

			strbuf_addf(sb, " 0x%" PRIx64 "/0x%" PRIx64 "/%c/%c/%c/%u/%s ", b->from, b->to,
				    mispred_char(b), b->in_tx ? 'X' : '-', b->abort ? 'A' : '-',
				    b->cycles, perfdata_branch_type_name(b->type, b->new_type));
		}
		strbuf_addch(sb, '\n');
	}
	tdp_free(maps);
	assert_false(strbuf_failed(sb));
}

static size_t count_str(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Samples in perf's text: lines that start (after padding) with "<event name>: ". */
static size_t count_samples(const char *text, const struct decoded *d)
{
	size_t n = 0;

	for (const char *line = text; *line;) {
		const char *p = line, *nl = strchr(line, '\n');

		while (*p == ' ')
			p++;
		for (size_t i = 0; i < d->nr_names; i++) {
			size_t l = strlen(d->names[i]);

			if (!strncmp(p, d->names[i], l) && p[l] == ':' && p[l + 1] == ' ') {
				n++;
				break;
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return n;
}

static void compare_lines(const char *name, const char *want, const char *got)
{
	size_t lineno = 1;

	while (*want || *got) {
		const char *wn = strchr(want, '\n'), *gn = strchr(got, '\n');
		size_t wl = wn ? (size_t)(wn - want) : strlen(want);
		size_t gl = gn ? (size_t)(gn - got) : strlen(got);

		if (wl != gl || memcmp(want, got, wl))
			fail_msg("%s line %zu differs:\n perf: %.*s\n ours: %.*s", name, lineno,
				 (int)(wl > 300 ? 300 : wl), want, (int)(gl > 300 ? 300 : gl), got);
		want += wl + (wn != NULL);
		got += gl + (gn != NULL);
		lineno++;
	}
}

static void check_fixture(void **state)
{
	const char *name = *state;
	char path[4096], dpath[4096], file[512];
	struct perfdata *p = NULL;
	struct decoded d;
	struct strbuf sb = STRBUF_INIT;
	uint8_t *buf = NULL;
	char *want;
	size_t wlen;

	pdtest_shared(path, sizeof(path), name);
	snprintf(file, sizeof(file), "derived/%s.perf6.1-script-brstack.txt", name);
	pdtest_shared(dpath, sizeof(dpath), file);
	want = (char *)pdtest_read(dpath, &wlen);
	assert_non_null(want);

	decode_file(path, &p, &d, &buf);

	/* the counts perf printed: sample lines, entries (one "/0x" each), "/M/" entries */
	assert_int_equal(d.samples, count_samples(want, &d));
	assert_int_equal(d.entries, count_str(want, "/0x"));
	assert_int_equal(d.mispred, count_str(want, "/M/"));
	assert_int_equal(perfdata_stats(p)->unknown_id, 0);

	format_all(&d, &sb);
	compare_lines(name, want, sb.buf);

	strbuf_release(&sb);
	decoded_release(&d);
	perfdata_close(p);
	tdp_free(buf);
	tdp_free(want);
}

/*
 * Counts stated in ../shared/README.md (recorded by their authors, independent of
 * perf's text), as a second check of check_fixture's derivation.
 */
static void check_readme_counts(void **state)
{
	static const struct {
		const char *name;
		uint64_t samples, entries, mispred;
		int line;
	} rows[] = {
		{ "perf.data.branch-4.14", 13, 13 * 32, 21, __LINE__ },
		{ "perf.data.branch_stack_spec", 8, 8 * 16, 9, __LINE__ },
		{ "perf.data.raw_callgraph_branch-3.4", 513, 513 * 16, 453, __LINE__ },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[4096];
		struct perfdata *p = NULL;
		struct decoded d;
		uint8_t *buf = NULL;

		pdtest_shared(path, sizeof(path), rows[i].name);
		decode_file(path, &p, &d, &buf);
		if (d.samples != rows[i].samples || d.entries != rows[i].entries ||
		    d.mispred != rows[i].mispred)
			fail_msg("row at line %d (%s): %" PRIu64 "/%" PRIu64 "/%" PRIu64, rows[i].line,
				 rows[i].name, d.samples, d.entries, d.mispred);
		decoded_release(&d);
		perfdata_close(p);
		tdp_free(buf);
	}
}

/*
 * The multi-attr file: three events told apart by IDENTIFIER; all five samples
 * belong to instructions:uH (id 1000000008) and carry HW_INDEX. Values of the
 * sample at 0xa7720 read by hand from perf's raw dump (derived/...dump-head.txt,
 * "raw event: size 744 bytes"): 08 ca 9a 3b = id 1000000008, 7a b6 85 10 = ip,
 * 1f 07 / bc 08 = pid 1823 / tid 2236, 52 1b 27 2c 10 = time 69460237138,
 * 06 = cpu 6, e8 03 = period 1000, 1c = 28 entries, then hw_idx 0.
 */
static void check_multi_attr(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_record r;
	struct perfdata *p = NULL;
	char path[4096];
	uint8_t *buf;
	size_t len, samples = 0;
	int ret;
	bool seen = false;

	(void)state;
	pdtest_shared(path, sizeof(path), "perf.data.branch_stack_hw_index");
	buf = pdtest_read(path, &len);
	assert_non_null(buf);
	assert_int_equal(perfdata_open(&p, buf, len, path, 0, &err), 0);
	assert_int_equal(perfdata_nr_attrs(p), 3);
	assert_string_equal(perfdata_attr(p, 0)->name, "cs_etm/autofdo/u");
	assert_string_equal(perfdata_attr(p, 1)->name, "dummy:u");
	assert_string_equal(perfdata_attr(p, 2)->name, "instructions:uH");
	assert_int_equal(perfdata_attr(p, 0)->nr_ids, 8);
	assert_int_equal(perfdata_attr(p, 0)->ids[0], 8);
	assert_int_equal(perfdata_attr(p, 1)->ids[7], 23);
	assert_int_equal(perfdata_attr(p, 2)->ids[0], 1000000008);
	assert_int_equal(perfdata_attr(p, 0)->type, 8); /* cs_etm in pmu mappings */
	assert_int_equal(perfdata_attr(p, 2)->branch_sample_type, PERFDATA_BRANCH_HW_INDEX);
	assert_ptr_equal(perfdata_attr_by_id(p, 13), perfdata_attr(p, 0));
	assert_ptr_equal(perfdata_attr_by_id(p, 20), perfdata_attr(p, 1));
	assert_ptr_equal(perfdata_attr_by_id(p, 1000000008), perfdata_attr(p, 2));
	assert_null(perfdata_attr_by_id(p, 7));
	while ((ret = perfdata_next(p, &r, &err)) > 0) {
		if (r.type != PERFDATA_RECORD_SAMPLE)
			continue;
		samples++;
		assert_ptr_equal(r.attr, perfdata_attr(p, 2));
		assert_true(r.u.sample.has_hw_idx);
		assert_int_equal(r.u.sample.hw_idx, 0);
		if (r.offset == 0xa7720) {
			const struct perfdata_sample *s = &r.u.sample;

			seen = true;
			assert_int_equal(s->id, 1000000008);
			assert_int_equal(s->ip, 0x1085b67a);
			assert_int_equal(s->pid, 1823);
			assert_int_equal(s->tid, 2236);
			assert_int_equal(s->time, 69460237138ull);
			assert_int_equal(s->cpu, 6);
			assert_int_equal(s->period, 1000);
			assert_int_equal(s->nr_branches, 28);
			assert_int_equal(s->branches[0].from, 0x1085ab3a);
			assert_int_equal(s->branches[0].to, 0x1085b598);
			assert_int_equal(s->branches[27].from, 0x1085b402);
		}
	}
	assert_int_equal(ret, 0);
	assert_int_equal(samples, 5);
	assert_true(seen);
	assert_int_equal(perfdata_stats(p)->unknown_id, 0);
	perfdata_close(p);
	tdp_free(buf);
}

/*
 * Bits of the spec and flags fields: the AMD Zen 4 file has spec = 2
 * (NON_SPEC_CORRECT_PATH) on every entry and no cycles; the Skylake file has
 * cycles and no spec (../shared/README.md).
 */
static void check_flag_fields(void **state)
{
	static const struct {
		const char *name;
		bool all_spec2;
		bool some_cycles;
	} rows[] = {
		{ "perf.data.branch_stack_spec", true, false },
		{ "perf.data.branch-4.14", false, true },
	};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct tdp_err err = TDP_ERR_INIT;
		struct perfdata_record r;
		struct perfdata *p = NULL;
		char path[4096];
		uint8_t *buf;
		size_t len, spec2 = 0, entries = 0, cycles = 0;

		pdtest_shared(path, sizeof(path), rows[i].name);
		buf = pdtest_read(path, &len);
		assert_non_null(buf);
		assert_int_equal(perfdata_open(&p, buf, len, path, 0, &err), 0);
		while (perfdata_next(p, &r, &err) > 0) {
			if (r.type != PERFDATA_RECORD_SAMPLE)
				continue;
			for (size_t k = 0; k < r.u.sample.nr_branches; k++) {
				entries++;
				spec2 += r.u.sample.branches[k].spec == BRANCH_SPEC_NON_SPEC_CORRECT_PATH;
				cycles += r.u.sample.branches[k].cycles != 0;
			}
		}
		assert_true(entries > 0);
		assert_int_equal(spec2 == entries, rows[i].all_spec2);
		assert_int_equal(cycles > 0, rows[i].some_cycles);
		perfdata_close(p);
		tdp_free(buf);
	}
}

int main(void)
{
	struct CMUnitTest tests[PDTEST_NR_FIXTURES + 4];
	size_t n = 0;

	if (!pdtest_have_shared()) {
		printf("skipped: the shared recordings ($TDPROF_SHARED_DATA/perfdata) are absent\n");
		return PDTEST_SKIP;
	}
	for (size_t i = 0; i < PDTEST_NR_FIXTURES; i++) {
		struct CMUnitTest t = { pdtest_fixtures[i], check_fixture, NULL, NULL,
					(void *)pdtest_fixtures[i] };

		tests[n++] = t;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(check_readme_counts);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(check_multi_attr);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(check_flag_fields);
	return _cmocka_run_group_tests("perfdata-fixtures", tests, n, NULL, NULL);
}
