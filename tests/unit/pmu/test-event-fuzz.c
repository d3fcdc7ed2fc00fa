/*
 * The event parser must survive any string: random and mutated specifications
 * (from a seed list of valid ones) on a fake sysfs tree that also holds hostile
 * files, with libpfm4 on for part of the runs. Each result is checked against
 * the contract of event.h (a documented code with a message, or well-formed
 * events); ASan/UBSan catch the rest. TDPROF_FUZZ_ITERS changes the count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "pmu/event-internal.h"

#include "test-event-fake.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SPEC_BUF 2048

static const char *const seeds[] = {
	"cycles",
	"instructions:u,branches:k,branch-misses:ppp",
	"{cycles,instructions}:u,{slots,topdown-retiring}",
	"L1-dcache-load-misses,LLC-loads,dTLB-load-misses:G,iTLB-load-misses:H",
	"task-clock,cs,migrations,faults,minor-faults",
	"cpu/event=0x3c,umask=0x00,cmask=1,edge,inv,any/u",
	"cpu/config=0x5300c0,config1=1,config2=2,period=1000,name=x/",
	"cycles/period=1000,name=c/u,cpu-clock/freq=99/:k,cycles//",
	"cpu/topdown-retiring,umask=0x81/:k",
	"power/energy-pkg/,msr/tsc/",
	"r1a8,r0x5300c0:pp",
	"ex_ret_ops,de_no_dispatch_per_slot.no_ops_from_frontend:c=6",
	"DISPATCH_STALLS_1:FE_NO_OPS:u,RETIRED_OPS:c=1:e",
	"{ls_not_halted_cyc,ex_ret_ops}:D",
	"cpu/mem-loads,ldlat=30/",
	"cpu/garbage/,cpu/huge/,cpu/weird=1/",
	"cpu/name='a b',event=1/",
};

static const char alphabet[] = ",{}/:=.-_'\" \x01uk hpPGHSDIWrx0123456789abcdefABCDEFcpueventumask";

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t rnd_below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void mutate(char *buf)
{
	size_t len = strlen(buf);
	size_t pos = rnd_below(len + 1);

	switch (rnd_below(7)) {
	case 0: /* insert a character */
		if (len + 1 < SPEC_BUF) {
			memmove(buf + pos + 1, buf + pos, len - pos + 1);
			buf[pos] = alphabet[rnd_below(sizeof(alphabet) - 1)];
		}
		break;
	case 1: /* delete a run */
		if (pos < len) {
			size_t n = 1 + rnd_below(len - pos);

			memmove(buf + pos, buf + pos + n, len - pos - n + 1);
		}
		break;
	case 2: /* replace a character, sometimes with any byte */
		if (pos < len)
			buf[pos] = rnd_below(4) ? alphabet[rnd_below(sizeof(alphabet) - 1)] : (char)(1 + rnd_below(255));
		break;
	case 3: /* duplicate a run */
		if (pos < len) {
			size_t n = 1 + rnd_below(len - pos);

			if (len + n < SPEC_BUF) {
				memmove(buf + pos + n, buf + pos, len - pos + 1);
				memcpy(buf + pos + n, buf + pos, n);
			}
		}
		break;
	case 4: /* splice another seed */
	{
		const char *s = seeds[rnd_below(ARRAY_SIZE(seeds))];
		size_t n = strlen(s);

		if (len + n + 1 < SPEC_BUF) {
			memmove(buf + pos + n, buf + pos, len - pos + 1);
			memcpy(buf + pos, s, n);
		}
		break;
	}
	case 5: /* truncate */
		buf[pos] = '\0';
		break;
	default: /* random string */
	{
		size_t n = rnd_below(40);

		for (size_t i = 0; i < n; i++)
			buf[i] = alphabet[rnd_below(sizeof(alphabet) - 1)];
		buf[n] = '\0';
		break;
	}
	}
}

static void check_result(const char *spec, int ret, const struct pmu_event_list *l, const struct tdp_err *err)
{
	char small[24];

	if (ret) {
		if (ret != TDP_EUSAGE && ret != TDP_ENOENT && ret != TDP_ELIMIT && ret != TDP_EFORMAT)
			fail_msg("'%s': unexpected code %d (%s)", spec, ret, err->msg);
		if (err->code != ret || !err->msg[0])
			fail_msg("'%s': code %d without a message", spec, ret);
	} else if (!l->nr) {
		fail_msg("'%s': success with no event", spec);
	}
	for (size_t i = 0; i < l->nr; i++) {
		const struct pmu_event *ev = &l->v[i];

		if (!ev->name || !ev->pmu || !ev->unit || ev->attr.size != sizeof(ev->attr))
			fail_msg("'%s': malformed event %zu", spec, i);
		if (ev->leader && ev->group < 0)
			fail_msg("'%s': leader of no group", spec);
		/* each group's first member leads it */
		if (ev->group >= 0 && ev->leader != (i == 0 || l->v[i - 1].group != ev->group))
			fail_msg("'%s': event %zu leader %d", spec, i, ev->leader);
		pmu_event_describe(ev, small, sizeof(small));
		assert_true(strlen(small) < sizeof(small));
	}
}

static void test_fuzz_specs(void **state)
{
	struct fake_sysfs f;
	const char *iters_env = getenv("TDPROF_FUZZ_ITERS");
	long iters = iters_env ? strtol(iters_env, NULL, 10) : 20000;
	static char buf[SPEC_BUF];
	char huge[6000];
	long ok = 0, failed = 0;

	(void)state;
	fake_init(&f);
	fake_intel(&f);
	/* hostile files: an oversized alias, bytes that are no terms, a full-width format */
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	fake_pmu_file(&f, "cpu", "events/huge", huge);
	fake_pmu_file(&f, "cpu", "events/garbage", "\x01\xff,=,=event=0x,,umask");
	fake_pmu_file(&f, "cpu", "format/weird", "config:0-63");
	fake_pmu_file(&f, "cpu", "format/broken", "config:63-0,1");
	for (long it = 0; it < iters; it++) {
		struct pmu_env env = { f.root, rnd_below(8) == 0 };
		struct pmu_event_list l = PMU_EVENT_LIST_INIT;
		struct tdp_err err = TDP_ERR_INIT;
		int ret;

		/* mostly a fresh seed with at most one mutation; sometimes keep mutating */
		if (rnd_below(4)) {
			snprintf(buf, sizeof(buf), "%s", seeds[rnd_below(ARRAY_SIZE(seeds))]);
			if (rnd_below(4))
				mutate(buf);
		} else {
			mutate(buf);
		}
		ret = pmu_event_list_parse(&l, buf, &env, &err);
		check_result(buf, ret, &l, &err);
		ret ? failed++ : ok++;
		pmu_event_list_release(&l);
	}
	print_message("%ld specifications: %ld parsed, %ld rejected\n", iters, ok, failed);
	/* the mutations must reach both outcomes, or the loop tests little */
	assert_true(ok > iters / 50);
	assert_true(failed > iters / 50);
	fake_free(&f);
}

static void test_fuzz_formats(void **state)
{
	static const char chars[] = "config12:-,0123456789 \n";
	char buf[64];

	(void)state;
	for (int it = 0; it < 200000; it++) {
		size_t n = rnd_below(sizeof(buf));
		struct pmu_format f;

		for (size_t i = 0; i < n; i++)
			buf[i] = it % 2 && i < 7 ? "config:"[i] : chars[rnd_below(sizeof(chars) - 1)];
		if (pmu_format_parse(buf, n, &f) == 0) {
			assert_true(f.nbits >= 1 && f.nbits <= 64);
			assert_true(f.word <= 2);
			for (unsigned b = 1; b < f.nbits; b++)
				assert_true(f.bit[b] > f.bit[b - 1]);
			assert_true(f.bit[f.nbits - 1] <= 63);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_specs),
		cmocka_unit_test(test_fuzz_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
