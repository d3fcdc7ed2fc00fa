/* infer.c: the model of imported counts, from their events (see model.h). */
#include "model/model.h"

#include <string.h>

size_t model_infer_import(const struct countset *cs, const struct model **fit)
{
	size_t nr, nfit = 0, nbest = 0;
	const struct model *const *all = model_all(&nr);
	int l2[MODEL_INFER_MAX], best = -1;

	for (size_t i = 0; i < nr && nfit < MODEL_INFER_MAX; i++) {
		struct model_compiled *mc;
		int full = all[i]->kind == MODEL_KIND_SLOTS ? 4 : 2, cov1, cov2;

		if (model_compile(all[i], &mc, NULL))
			continue;
		cov1 = model_coverage(mc, cs, 1);
		cov2 = model_coverage(mc, cs, 2);
		model_compiled_free(mc);
		if (cov1 == full) {
			l2[nfit] = cov2;
			fit[nfit++] = all[i];
		}
	}
	for (size_t i = 0; i < nfit; i++)
		for (size_t j = 0; j < nfit; j++)
			if (j != i && fit[i]->companion == fit[j] && fit[i]->core_type &&
			    !strcmp(fit[i]->core_type, "E-core"))
				l2[i] = -1;
	for (size_t i = 0; i < nfit; i++)
		best = l2[i] > best ? l2[i] : best;
	for (size_t i = 0; i < nfit; i++)
		if (l2[i] == best)
			fit[nbest++] = fit[i];
	return nbest;
}
