/* describe.c: who recorded a branch recording and why it has no timing (see branch.h). */
#include "branch/branch.h"

#include <string.h>

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

bool branch_recorded_by_tdprof(const struct perfdata_features *f)
{
	return (f->nr_cmdline && f->cmdline[0] && !strncmp(basename_of(f->cmdline[0]), "tdprof", 6)) ||
	       (f->version && !strncmp(f->version, "tdprof", 6));
}

const char *branch_timing_reason(const struct branch_result *res, const struct branch_load_info *li,
				 const struct perfdata_features *f)
{
	if (res->has_timing)
		return NULL;
	if (li->spe.present)
		return "no timing in this recording: Arm SPE records latencies per sampled operation, not LBR "
		       "cycles between branches";
	if (!res->counts.branch_entries)
		return "no timing in this recording: it holds no branch entries";
	if (f->cpuid && !strncmp(f->cpuid, "AuthenticAMD", 12))
		return "no timing in this recording: every cycles field is 0 (AMD LbrExtV2 and BRS record none)";
	return "no timing in this recording: every cycles field is 0 (the hardware or the branch filter "
	       "recorded no LBR cycles)";
}
