/*
 * fuzz-events-pfm.c: event specifications (pmu/event.h: pmu_event_list_parse)
 * with libpfm4 names (INT_MISC.RECOVERY_CYCLES:c=1, inst_retired.any:upp, perf's
 * spellings of the models' events) beside the fake sysfs tree of fuzz-events.c.
 */
#define FUZZ_EVENTS_PFM true
#include "fuzz-events.c"
