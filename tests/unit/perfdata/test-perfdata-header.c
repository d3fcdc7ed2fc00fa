/*
 * test-perfdata-header: the header, attrs and features we read agree with what
 * Debian's perf 6.1 printed with `perf report --header-only` for the real
 * recordings (../shared/data/perfdata/derived/NAME.perf6.1-header.txt) and for
 * the pipe-mode recording made here (tests/data/perfdata/cpu-clock.pipe.header.txt):
 * data offset and size, hostname, os release, perf version, arch, nrcpus, cpudesc,
 * cpuid, total memory, cmdline, and per event its name, ids, type, size, config,
 * sample_type and branch_sample_type.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/err.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "pdtest.h"

#include <inttypes.h>

/* The value of "# <key> : <value>" (n-th occurrence), or NULL; the caller frees. */
static char *header_value(const char *text, const char *key, size_t nth)
{
	size_t kl = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);

		if (ll > kl + 2 && !strncmp(line, "# ", 2) && !strncmp(line + 2, key, kl)) {
			const char *p = line + 2 + kl;

			while (*p == ' ')
				p++;
			if (*p == ':' && nth-- == 0) {
				p++;
				if (*p == ' ')
					p++;
				return tdp_strndup(p, ll - (size_t)(p - line));
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static void expect_str(const char *text, const char *key, const char *got)
{
	char *want = header_value(text, key, 0);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	tdp_free(want);
}

static void expect_u64(const char *text, const char *key, uint64_t got)
{
	char *want = header_value(text, key, 0);
	uint64_t v;

	assert_non_null(want);
	/* "16299868 kB": the number before the unit */
	if (strchr(want, ' '))
		*strchr(want, ' ') = '\0';
	assert_true(str_to_u64(want, &v));
	assert_int_equal(got, v);
	tdp_free(want);
}

/* The "key = value" field of an event line ("name = x, , id = { 1, 2 }, ..."). */
static char *event_field(const char *ev, const char *key)
{
	char pat[64];
	const char *p, *end;

	snprintf(pat, sizeof(pat), ", %s = ", key);
	p = strstr(ev, pat);
	if (!p && !strncmp(ev, pat + 2, strlen(pat + 2)))
		p = ev - 2;
	if (!p)
		return NULL;
	p += strlen(pat);
	end = *p == '{' ? strchr(p, '}') + 1 : strstr(p, ", ");
	return tdp_strndup(p, end ? (size_t)(end - p) : strlen(p));
}

static const char *const sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID",
	"RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
	"TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static const char *const branch_bits[] = {
	"USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL", "ABORT_TX", "IN_TX",
	"NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL", "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE",
	"HW_INDEX", "PRIV_SAVE", "COUNTERS",
};

/* "IP|TID|TIME" -> bits, with the names in table order = bit numbers. */
static uint64_t parse_bits(const char *s, const char *const *names, size_t nr)
{
	uint64_t bits = 0;

	while (*s) {
		size_t l = strcspn(s, "|");
		bool found = false;

		for (size_t i = 0; i < nr; i++)
			if (strlen(names[i]) == l && !strncmp(s, names[i], l)) {
				bits |= 1ull << i;
				found = true;
			}
		if (!found)
			fail_msg("unknown bit name '%.*s'", (int)l, s);
		s += l + (s[l] == '|');
	}
	return bits;
}

static void expect_event(const char *ev, const struct perfdata_attr *a)
{
	char *v;
	uint64_t u;

	assert_true(!strncmp(ev, "name = ", 7));
	assert_non_null(a->name);
	assert_true(!strncmp(ev + 7, a->name, strlen(a->name)));
	assert_true(ev[7 + strlen(a->name)] == ',');

	v = event_field(ev, "id");
	if (v) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_adds(&sb, "{ ");
		for (size_t i = 0; i < a->nr_ids; i++)
			strbuf_addf(&sb, "%s%" PRIu64, i ? ", " : "", a->ids[i]);
		strbuf_adds(&sb, " }");
		assert_string_equal(sb.buf, v);
		strbuf_release(&sb);
		tdp_free(v);
	} else {
		assert_int_equal(a->nr_ids, 0);
	}
	v = event_field(ev, "type");
	assert_int_equal(a->type, v && str_to_u64(v, &u) ? u : 0);
	tdp_free(v);
	v = event_field(ev, "size");
	assert_non_null(v);
	assert_true(str_to_u64(v, &u));
	assert_int_equal(a->size, u);
	tdp_free(v);
	v = event_field(ev, "config");
	assert_int_equal(a->config, v && str_to_u64(v, &u) ? u : 0);
	tdp_free(v);
	v = event_field(ev, "{ sample_period, sample_freq }");
	assert_non_null(v);
	assert_true(str_to_u64(v, &u));
	assert_int_equal(a->sample_period, u);
	tdp_free(v);
	v = event_field(ev, "sample_type");
	assert_non_null(v);
	assert_int_equal(a->sample_type, parse_bits(v, sample_bits, 25));
	tdp_free(v);
	v = event_field(ev, "branch_sample_type");
	assert_int_equal(a->branch_sample_type, v ? parse_bits(v, branch_bits, 20) : 0);
	tdp_free(v);
}

static void check_header(const char *data_path, const char *header_path)
{
	struct tdp_err err = TDP_ERR_INIT;
	const struct perfdata_features *f;
	struct perfdata *p = NULL;
	struct strbuf sb = STRBUF_INIT;
	uint8_t *buf;
	char *text, *v;
	size_t len, tlen, nev = 0;

	buf = pdtest_read(data_path, &len);
	text = (char *)pdtest_read(header_path, &tlen);
	assert_non_null(buf);
	assert_non_null(text);
	if (perfdata_open(&p, buf, len, data_path, 0, &err))
		fail_msg("%s", err.msg);
	f = perfdata_features(p);

	if (!perfdata_is_pipe(p)) {
		expect_u64(text, "data offset", perfdata_data_offset(p));
		expect_u64(text, "data size", perfdata_data_size(p));
	}
	expect_str(text, "hostname", f->hostname);
	expect_str(text, "os release", f->osrelease);
	expect_str(text, "arch", f->arch);
	expect_str(text, "cpudesc", f->cpudesc);
	expect_str(text, "cpuid", f->cpuid);
	v = header_value(text, "perf version", 0);
	assert_non_null(v);
	assert_string_equal(f->version ? f->version : "", v);
	tdp_free(v);
	expect_u64(text, "nrcpus online", f->nr_cpus_online);
	expect_u64(text, "nrcpus avail", f->nr_cpus_avail);
	expect_u64(text, "total memory", f->total_mem_kb);
	/* perf prints each argument followed by one space */
	for (size_t i = 0; i < f->nr_cmdline; i++)
		strbuf_addf(&sb, "%s ", f->cmdline[i]);
	v = header_value(text, "cmdline", 0);
	assert_non_null(v);
	assert_string_equal(sb.buf, v);
	tdp_free(v);
	strbuf_release(&sb);
	assert_int_equal(f->branch_stack, strstr(text, "# contains samples with branch stack") != NULL);
	if (strstr(text, "# pmu mappings: ")) {
		char want[64];

		for (size_t i = 0; i < f->nr_pmu_mappings; i++) {
			snprintf(want, sizeof(want), "%s = %" PRIu32, f->pmu_mappings[i].name,
				 f->pmu_mappings[i].type);
			assert_non_null(strstr(text, want));
		}
		assert_true(f->nr_pmu_mappings > 0);
	} else {
		assert_int_equal(f->nr_pmu_mappings, 0);
	}

	while ((v = header_value(text, "event", nev))) {
		assert_true(nev < perfdata_nr_attrs(p));
		expect_event(v, perfdata_attr(p, nev));
		tdp_free(v);
		nev++;
	}
	assert_int_equal(nev, perfdata_nr_attrs(p));

	perfdata_close(p);
	tdp_free(buf);
	tdp_free(text);
}

static void shared_header(void **state)
{
	const char *name = *state;
	char path[4096], hpath[4096], file[512];

	if (!pdtest_have_shared())
		skip();
	pdtest_shared(path, sizeof(path), name);
	snprintf(file, sizeof(file), "derived/%s.perf6.1-header.txt", name);
	pdtest_shared(hpath, sizeof(hpath), file);
	check_header(path, hpath);
}

static void pipe_header(void **state)
{
	char path[4096], hpath[4096];

	(void)state;
	pdtest_local(path, sizeof(path), "cpu-clock.pipe");
	pdtest_local(hpath, sizeof(hpath), "cpu-clock.pipe.header.txt");
	check_header(path, hpath);
}

/* Decode a C-escaped string of the .pb_text ("g&y\316...") into out; returns its length. */
static size_t unescape(const char *s, size_t l, uint8_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < l && n < max; i++) {
		if (s[i] != '\\') {
			out[n++] = (uint8_t)s[i];
		} else if (i + 3 < l + 1 && s[i + 1] >= '0' && s[i + 1] <= '7') {
			out[n++] = (uint8_t)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			out[n++] = (uint8_t)s[++i];
		}
	}
	return n;
}

/*
 * BUILD_ID feature of the Skylake file against the independent reader's decode
 * (derived/perf.data.branch-4.14.pb_text, "build_ids { misc pid build_id_hash
 * filename }"); perf buildid-list prints the same three ids
 * (672679ce..., a3f83cd3..., 2d160c57...).
 */
static void build_ids(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	const struct perfdata_features *f;
	struct perfdata *p = NULL;
	char path[4096], tpath[4096];
	const char *at;
	uint8_t *buf;
	char *text;
	size_t len, tlen, i = 0;

	(void)state;
	if (!pdtest_have_shared())
		skip();
	pdtest_shared(path, sizeof(path), "perf.data.branch-4.14");
	pdtest_shared(tpath, sizeof(tpath), "derived/perf.data.branch-4.14.pb_text");
	buf = pdtest_read(path, &len);
	text = (char *)pdtest_read(tpath, &tlen);
	assert_non_null(buf);
	assert_non_null(text);
	assert_int_equal(perfdata_open(&p, buf, len, path, 0, &err), 0);
	f = perfdata_features(p);
	assert_int_equal(f->build_ids[0].id[0], 0x67); /* 672679ce... */
	assert_int_equal(f->build_ids[0].id[19], 0x42);
	for (at = text; (at = strstr(at, "\nbuild_ids {\n")); at++, i++) {
		const char *h = strstr(at, "build_id_hash: \""), *fn = strstr(at, "filename: \"");
		const char *he = h ? strstr(h, "\"\n") : NULL, *misc = strstr(at, "misc: ");
		const struct perfdata_build_id *b;
		uint64_t want_misc = 0;
		uint8_t id[32];
		char want[512];

		assert_true(i < f->nr_build_ids);
		b = &f->build_ids[i];
		assert_non_null(he);
		assert_int_equal(unescape(h + 16, (size_t)(he - h - 16), id, sizeof(id)), 20);
		assert_memory_equal(b->id, id, 20);
		assert_int_equal(b->size, 20);
		assert_int_equal(b->pid, -1); /* pid: 4294967295 */
		assert_non_null(misc);
		assert_true(str_to_u64_n(misc + 6, strcspn(misc + 6, "\n"), &want_misc));
		assert_int_equal(b->misc & PERFDATA_MISC_CPUMODE_MASK, want_misc);
		snprintf(want, sizeof(want), "filename: \"%s\"\n", b->filename);
		assert_true(fn && !strncmp(fn, want, strlen(want)));
	}
	assert_int_equal(i, 3);
	assert_int_equal(f->nr_build_ids, 3);
	perfdata_close(p);
	tdp_free(buf);
	tdp_free(text);
}

int main(void)
{
	struct CMUnitTest tests[PDTEST_NR_FIXTURES + 2];
	size_t n = 0;

	for (size_t i = 0; i < PDTEST_NR_FIXTURES; i++) {
		struct CMUnitTest t = { pdtest_fixtures[i], shared_header, NULL, NULL,
					(void *)pdtest_fixtures[i] };

		tests[n++] = t;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(pipe_header);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(build_ids);
	return _cmocka_run_group_tests("perfdata-header", tests, n, NULL, NULL);
}
