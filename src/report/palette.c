/* palette.c: the colours of the text renderers (see palette.h). */
#include "report/palette.h"

const struct palette palette_ansi = {
	.on = { [PAL_VERDICT] = "\033[1m", [PAL_HOT] = "\033[1;31m", [PAL_BAR] = "\033[36m" },
	.off = "\033[m",
};

const char *pal_on(const struct palette *p, enum pal_role r)
{
	return p && r < PAL_ROLES && p->on[r] ? p->on[r] : "";
}

const char *pal_off(const struct palette *p)
{
	return p && p->off ? p->off : "";
}
