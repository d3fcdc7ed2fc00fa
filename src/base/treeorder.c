/* treeorder.c: depth-first order of a flat tree (see treeorder.h). */
#include "base/treeorder.h"

#include <stdbool.h>
#include <string.h>

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The index of the first node with key k, or n. */
static size_t find(const char *const *keys, size_t n, const char *k)
{
	for (size_t i = 0; k && i < n; i++)
		if (same(keys[i], k))
			return i;
	return n;
}

size_t tree_order(const char *const *keys, const char *const *parents, size_t n, size_t *order, int *depth)
{
	bool placed[TREE_ORDER_MAX];
	size_t stack[TREE_ORDER_MAX], out = 0, m = n < TREE_ORDER_MAX ? n : TREE_ORDER_MAX;
	int sdepth[TREE_ORDER_MAX];

	memset(placed, 0, sizeof(placed));
	for (size_t r = 0; r < m; r++) {
		size_t p = find(keys, m, parents[r]), sp = 0;

		/* a root: no parent, or one not in the tree (or itself) */
		if (placed[r] || (p < m && p != r))
			continue;
		stack[sp] = r;
		sdepth[sp++] = 0;
		while (sp) {
			size_t i = stack[--sp];
			int d = sdepth[sp];

			if (placed[i])
				continue;
			placed[i] = true;
			order[out] = i;
			if (depth)
				depth[out] = d;
			out++;
			/* children in the order given (pushed reversed); a key given twice has its
			 * children under its first node */
			if (find(keys, m, keys[i]) != i)
				continue;
			for (size_t c = m; c-- > 0;)
				if (!placed[c] && c != i && same(parents[c], keys[i]) && sp < TREE_ORDER_MAX) {
					stack[sp] = c;
					sdepth[sp++] = d + 1;
				}
		}
	}
	/* cycles, duplicates and the rest: after everything, as roots */
	for (size_t i = 0; i < n; i++)
		if (i >= m || !placed[i]) {
			order[out] = i;
			if (depth)
				depth[out] = 0;
			out++;
		}
	return out;
}
