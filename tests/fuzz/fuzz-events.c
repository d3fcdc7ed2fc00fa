/*
 * fuzz-events.c: event specifications (pmu/event.h: pmu_event_list_parse), as
 * typed after -e, against a fake sysfs tree: generic, software, raw, pmu/terms/
 * and sysfs aliases. libpfm4 names are fuzz-events-pfm.c's: an unknown name makes
 * the parser rank every libpfm4 name for its suggestion, which costs ~100 times a
 * parse here.
 */
#include "fuzz.h"

#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "pmu/event.h"

#ifndef FUZZ_EVENTS_PFM
#define FUZZ_EVENTS_PFM false
#endif

static struct pmu_env env = { "/sys", FUZZ_EVENTS_PFM };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	env.sysfs_root = fuzz_fake_sysfs();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmu_event_list l = PMU_EVENT_LIST_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	char *spec, desc[256];
	int ret;

	if (size > PMU_SPEC_MAX + 16)
		return 0; /* the limit itself is checked by the unit tests */
	spec = fuzz_cstr(data, size);
	if (!spec)
		return 0;
	ret = fuzz_check_ret(pmu_event_list_parse(&l, spec, &env, &err), &err);
	FUZZ_CHECK(ret == 0 || ret == TDP_ENOENT || ret == TDP_EUSAGE || ret == TDP_ELIMIT ||
		   ret == TDP_EFORMAT || ret == TDP_ENOMEM);
	FUZZ_CHECK(l.nr <= PMU_EVENTS_MAX);
	for (size_t i = 0; i < l.nr; i++) {
		const struct pmu_event *ev = &l.v[i];

		FUZZ_CHECK(ev->name && ev->pmu && ev->unit);
		FUZZ_CHECK(ev->group >= -1 && (!ev->leader || ev->group >= 0));
		pmu_event_describe(ev, desc, sizeof(desc));
		FUZZ_CHECK(memchr(desc, '\0', sizeof(desc)) != NULL);
	}
	pmu_event_list_release(&l);
	FUZZ_CHECK(l.v == NULL && l.nr == 0);
	tdp_free(spec);
	return 0;
}
