/*
 * Random mutations of every fixture in tests/data/import, fed to the importer
 * (run under ASan+UBSan in the sanitizer build): bytes flipped, ranges deleted or
 * repeated, perf-like tokens inserted, the input cut short. Each import must
 * either fail with a message or succeed with a consistent result; none may crash,
 * leak or read out of bounds. Deterministic (fixed seed), so a failure repeats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "import/import.h"

#define ROUNDS_PER_FILE 10000
#define FUZZ_MAX_INPUT 16384

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static const char *const tokens[] = {
	"<not counted>", "<not supported>", "msec", ",", ";", "#", "%", "(", ")", "( +- ", "%)", "(100.00%)",
	"(150%)", "\n", "\r\n", "\"", "{", "}", ", }", ":", "\\u00e9", "\\", "1,234,567", "99999999999999999999999",
	"1e308", "1e999", "-1", "nan", "inf", "0x10", " Performance counter stats for 'x':\n",
	"seconds time elapsed", "cpu/event=0x3c,umask=0x0/", "S0-D0-C0,2,", "CPU0 ", "     1.000000000 ",
	"\"event\" : \"cycles\"", "\"counter-value\" : \"12\"", "\"interval\" : 1.5, ", "\t", " ", "\x1f", "\xff",
};

static size_t mutate(uint8_t *buf, size_t len)
{
	int ops = 1 + (int)below(4);

	for (int k = 0; k < ops; k++) {
		size_t at = below(len + 1), n;

		switch (below(6)) {
		case 0: /* flip a byte */
			if (len)
				buf[below(len)] = (uint8_t)rnd();
			break;
		case 1: /* delete a range */
			n = below(len - at + 1);
			if (n > 64)
				n = 64;
			memmove(buf + at, buf + at + n, len - at - n);
			len -= n;
			break;
		case 2: /* repeat a range */
			n = below(len - at + 1);
			if (n > 256)
				n = 256;
			if (len + n <= FUZZ_MAX_INPUT) {
				memmove(buf + at + n, buf + at, len - at);
				len += n;
			}
			break;
		case 3: { /* insert a token perf prints */
			const char *t = tokens[below(sizeof(tokens) / sizeof(tokens[0]))];

			n = strlen(t);
			if (len + n <= FUZZ_MAX_INPUT) {
				memmove(buf + at + n, buf + at, len - at);
				memcpy(buf + at, t, n);
				len += n;
			}
			break;
		}
		case 4: /* cut short */
			len = at;
			break;
		default: /* a digit becomes another character perf might print */
			for (size_t i = 0; i < 8 && len; i++) {
				size_t j = below(len);

				if (buf[j] >= '0' && buf[j] <= '9') {
					buf[j] = (uint8_t)",.%-<> #"[below(8)];
					break;
				}
			}
			break;
		}
	}
	return len;
}

/* What every successful import must satisfy. */
static void check_result(const struct import_result *r)
{
	int last_group = -1;

	assert_true(r->counts.nr > 0);
	assert_int_equal(r->counts.backend, BACKEND_IMPORT);
	for (size_t i = 0; i < r->counts.nr; i++) {
		const struct count *c = &r->counts.v[i];

		assert_non_null(c->name);
		assert_true(c->name[0] != '\0');
		assert_non_null(c->unit);
		assert_true(isfinite(c->value) && c->value >= 0);
		if (c->status != COUNT_OK) {
			assert_true(c->value == 0);
		} else {
			assert_true(c->running_pct >= 0 && c->running_pct <= 100);
			assert_true(c->running_ns <= c->enabled_ns);
		}
		assert_true(c->group >= last_group && c->group <= last_group + 1 && c->group >= 0);
		last_group = c->group;
	}
	for (size_t i = 0; i < r->nr_metrics; i++) {
		assert_true(r->metrics[i].count < r->counts.nr);
		assert_int_equal(r->metrics[i].group, r->counts.v[r->metrics[i].count].group);
		assert_true(isfinite(r->metrics[i].value));
		assert_non_null(r->metrics[i].name);
		assert_non_null(r->metrics[i].unit);
	}
}

static void test_mutations(void **state)
{
	const char *root = getenv("TDPROF_SOURCE_ROOT");
	char dir[4096];
	struct dirent *de;
	size_t files = 0, ok = 0, failed = 0;
	uint8_t *buf = malloc(FUZZ_MAX_INPUT);
	DIR *d;

	(void)state;
	assert_non_null(buf);
	snprintf(dir, sizeof(dir), "%s/tests/data/import", root ? root : "../..");
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		struct tdp_file f = TDP_FILE_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		char path[8192];

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README.md"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (tdp_file_open(&f, path, FUZZ_MAX_INPUT, &err))
			fail_msg("%s", err.msg);
		files++;
		for (int round = 0; round < ROUNDS_PER_FILE; round++) {
			struct import_result r = IMPORT_RESULT_INIT;
			size_t len = f.size;
			int rc;

			memcpy(buf, f.data, f.size);
			len = mutate(buf, len);
			tdp_err_clear(&err);
			rc = import_perf_stat_result(buf, len, de->d_name, &r, &err);
			if (rc == 0) {
				check_result(&r);
				ok++;
			} else {
				assert_true(rc == TDP_EFORMAT || rc == TDP_ELIMIT);
				assert_true(err.msg[0] != '\0');
				assert_int_equal(r.counts.nr, 0);
				failed++;
			}
			import_result_release(&r);
		}
		tdp_file_close(&f);
	}
	closedir(d);
	free(buf);
	assert_true(files >= 10);
	/* both outcomes must occur, or the mutations test nothing */
	assert_true(ok > 100 && failed > 100);
	print_message("%zu files x %d mutations: %zu imported, %zu rejected with a message\n", files,
		      ROUNDS_PER_FILE, ok, failed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
