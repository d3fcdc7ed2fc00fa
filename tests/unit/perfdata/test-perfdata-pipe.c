/*
 * test-perfdata-pipe: the pipe-mode recording made here with Debian's perf
 * (tests/data/perfdata/cpu-clock.pipe, see the README there) decodes to the
 * samples perf 6.1 printed for it with `perf script -F event,ip`
 * (cpu-clock.pipe.script.txt): the same count and, in time order, the same ips;
 * its event is named by an EVENT_UPDATE record and its features come from
 * HEADER_FEATURE records (the header itself is checked in test-perfdata-header).
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

struct smp {
	uint64_t time, ip;
	size_t seq;
};

static int smp_cmp(const void *a, const void *b)
{
	const struct smp *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void pipe_samples(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct perfdata_record r;
	struct perfdata *p = NULL;
	struct smp *s = NULL;
	size_t nr = 0, alloc = 0, len, wlen, header_records = 0;
	char path[4096], spath[4096];
	uint8_t *buf;
	char *want;
	int ret;

	(void)state;
	buf = pdtest_read(pdtest_local(path, sizeof(path), "cpu-clock.pipe"), &len);
	want = (char *)pdtest_read(pdtest_local(spath, sizeof(spath), "cpu-clock.pipe.script.txt"), &wlen);
	assert_non_null(buf);
	assert_non_null(want);
	if (perfdata_open(&p, buf, len, path, 0, &err))
		fail_msg("%s", err.msg);
	assert_true(perfdata_is_pipe(p));
	assert_int_equal(perfdata_nr_attrs(p), 1);
	assert_string_equal(perfdata_attr(p, 0)->name, "cpu-clock");
	assert_int_equal(perfdata_attr(p, 0)->type, 1);          /* PERF_TYPE_SOFTWARE */
	assert_int_equal(perfdata_attr(p, 0)->sample_period, 100000); /* -c 100000 */
	assert_string_equal(perfdata_features(p)->arch, "x86_64");
	while ((ret = perfdata_next(p, &r, &err)) > 0) {
		if (r.type == PERFDATA_RECORD_HEADER_ATTR || r.type == PERFDATA_RECORD_HEADER_FEATURE)
			header_records++;
		if (r.type != PERFDATA_RECORD_SAMPLE)
			continue;
		assert_ptr_equal(r.attr, perfdata_attr(p, 0));
		if (TDP_GROW(s, alloc, nr + 1))
			fail_msg("out of memory");
		s[nr] = (struct smp){ r.u.sample.time, r.u.sample.ip, nr };
		nr++;
	}
	assert_int_equal(ret, 0);
	assert_true(header_records > 1);
	qsort(s, nr, sizeof(*s), smp_cmp);
	/* perf script: "%*s: " event name, then " %16" PRIx64 " ip */
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(&sb, "cpu-clock:  %16" PRIx64 "\n", s[i].ip);
	assert_int_equal(nr, 124); /* wc -l cpu-clock.pipe.script.txt */
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
	tdp_free(s);
	perfdata_close(p);
	tdp_free(buf);
	tdp_free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pipe_samples),
	};

	return cmocka_run_group_tests_name("perfdata-pipe", tests, NULL, NULL);
}
