/*
 * event-pfm-names.c: perf's names for events libpfm4 4.13 spells differently,
 * per libpfm4 PMU, as data: data/pfm-aliases.json (with its sources), emitted
 * by src/pmu/gen/gen-pfm-aliases.py into pfm-aliases-data.h at build time.
 * event-pfm.c rewrites a matching name (compared case-insensitively, '.', ':'
 * and '_' alike) into the libpfm4 string and lets libpfm4 encode it, so
 * attributes (":c=6", ":u") still apply. Each row is checked by
 * tests/unit/pmu/test-event-pfm.c against libpfm4 and the documented raw
 * encoding for the CPUs the top-down models cover.
 */
#include "pmu/event-internal.h"
#include "pfm-aliases-data.h"

#define ROW(p, n, f) { .pmu = p, .name = n, .pfm = f },

const struct pmu_pfm_alias pmu_pfm_aliases[] = { PFM_ALIASES(ROW) };

const size_t pmu_pfm_aliases_nr = sizeof(pmu_pfm_aliases) / sizeof(pmu_pfm_aliases[0]);
