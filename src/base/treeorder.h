/*
 * treeorder.h: the order in which to list a tree that is stored flat, each node
 * naming its parent by key: every node right after its parent's earlier children
 * and their subtrees (depth first), siblings in the order given. For tables of
 * top-down trees of any depth (level 1 to 6), so that Fetch Latency is listed
 * under Frontend Bound, never under whatever level-1 row happens to come last.
 */
#ifndef TDPROF_BASE_TREEORDER_H
#define TDPROF_BASE_TREEORDER_H

#include <stddef.h>

#define TREE_ORDER_MAX 1024 /* nodes ordered; the rest keep their place at the end */

/**
 * Fill order[0..n) with the indices of the n nodes (keys[i], parents[i]; a NULL
 * or unknown parent makes a root) in tree order, and depth[i] (may be NULL) with
 * the depth of node order[i] (0 for a root). Children of a key given twice go
 * under its first node. A node in a cycle of parents, or beyond TREE_ORDER_MAX,
 * is placed after the rest as a root. Returns n.
 */
size_t tree_order(const char *const *keys, const char *const *parents, size_t n, size_t *order, int *depth);

#endif
