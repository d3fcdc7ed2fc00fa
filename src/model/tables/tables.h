/*
 * tables.h: the thresholds the model tables share, for the tables generated
 * from data/ (intel-models.c, arm-models.c, amd-models.c) and the registry in
 * model.c. Generated tables export only the descriptors declared here and in
 * intel-models.h.
 *
 * Thresholds (percent of slots). Level 1: the seed workflow's (design.md):
 * Retiring > 80, Bad Speculation > 15, Frontend Bound > 20, Backend Bound > 40.
 * Level 2: Intel's TMA thresholds (intel-TMA_Metrics-full.csv 5.2, Threshold
 * column), used for every vendor so that one tree reads the same everywhere;
 * classify.c flags a child only when its parent is flagged ("& P").
 */
#ifndef TDPROF_MODEL_TABLES_TABLES_H
#define TDPROF_MODEL_TABLES_TABLES_H

#include <math.h>

#include "model/model.h"

#define THR_RETIRING 80.0
#define THR_BAD_SPECULATION 15.0
#define THR_FRONTEND_BOUND 20.0
#define THR_BACKEND_BOUND 40.0
#define THR_FETCH_LATENCY 10.0      /* Fetch_Latency > 0.1 & P */
#define THR_FETCH_BANDWIDTH 20.0    /* Fetch_Bandwidth > 0.2 */
#define THR_BRANCH_MISPREDICTS 10.0 /* Branch_Mispredicts > 0.1 & P */
#define THR_MACHINE_CLEARS 10.0     /* Machine_Clears > 0.1 & P */
#define THR_MEMORY_BOUND 20.0       /* Memory_Bound > 0.2 & P */
#define THR_CORE_BOUND 10.0         /* Core_Bound > 0.1 & P */
#define THR_LIGHT_OPERATIONS 60.0   /* Light_Operations > 0.6 */
#define THR_HEAVY_OPERATIONS 10.0   /* Heavy_Operations > 0.1 */
#define THR_NONE NAN

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Intel: generated at build time from data/intel/ (src/model/gen/gen-intel.py), declared in intel-models.h */
/* amd-models.c, generated from data/amd/zen.json by gen/gen-amd.py */
extern const struct model model_zen2, model_zen3, model_zen4, model_zen5;
/* arm-models.c, generated from data/arm/ by gen/gen-arm.py */
extern const struct model model_sbsa, model_neoverse_v1, model_neoverse_n2, model_neoverse_n2_r0p0, model_neoverse_v2;
extern const struct model model_neoverse_n3, model_neoverse_v3, model_neoverse_n1, model_cortex_a76;

#endif
