/*
 * dwarf.c: source lines and inline chains from DWARF, with caches that make one
 * address cost a few bisections:
 *   - per binary, the pc ranges of every compile unit (from each unit DIE's
 *     DW_AT_low_pc/high_pc/ranges, and .debug_aranges for units without them),
 *     sorted, built on the first lookup;
 *   - per unit touched, a tree of its functions (DW_TAG_subprogram) and inlined
 *     calls (DW_TAG_inlined_subroutine) with their pc ranges, children sorted by
 *     address under each parent, built by one walk of the unit's DIEs;
 *   - libdw's own per-unit line table (dwarf_getsrc_die bisects it).
 * dwarf_getscopes() would walk the unit's DIE tree again for every address.
 */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "base/alloc.h"
#include "base/err.h"
#include "symbol/symbol-internal.h"

#define ROOT_PENDING UINT32_MAX
/* Overlapping ranges (hostile or odd DWARF) are looked for this far back. */
#define OVERLAP_LOOKBACK 4

static int span_cmp(const void *a, const void *b)
{
	const struct cu_span *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int add_span(struct symbol_dwarf *d, size_t *alloc, uint64_t lo, uint64_t hi, size_t cu)
{
	if (lo >= hi)
		return 0;
	if (d->nr_spans >= SYMBOL_MAX_CU_NODES)
		return TDP_ELIMIT;
	if (TDP_GROW(d->spans, *alloc, d->nr_spans + 1))
		return TDP_ENOMEM;
	d->spans[d->nr_spans++] = (struct cu_span){ lo, hi, (uint32_t)cu };
	return 0;
}

static long cu_by_offset(const struct symbol_dwarf *d, Dwarf_Off off)
{
	size_t lo = 0, hi = d->nr_cus; /* cus are in .debug_info order: ascending offsets */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->cus[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_cus && d->cus[lo].off == off ? (long)lo : -1;
}

static int build_spans(struct symbol_dwarf *d)
{
	Dwarf_CU *cu = NULL, *next = NULL;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	size_t alloc_cus = 0, alloc_spans = 0, nr_without = 0;
	int ret = 0;

	d->spans_built = true;
	while (dwarf_get_units(d->dw, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
		ptrdiff_t o = 0;
		Dwarf_Addr base, lo, hi;
		size_t before = d->nr_spans;

		cu = next;
		if (unit_type != DW_UT_compile)
			continue;
		if (d->nr_cus >= SYMBOL_MAX_CU_NODES)
			break;
		if (TDP_GROW(d->cus, alloc_cus, d->nr_cus + 1))
			return TDP_ENOMEM;
		memset(&d->cus[d->nr_cus], 0, sizeof(d->cus[0]));
		d->cus[d->nr_cus].off = dwarf_dieoffset(&cudie);
		while (!ret && (o = dwarf_ranges(&cudie, o, &base, &lo, &hi)) > 0)
			ret = add_span(d, &alloc_spans, lo, hi, d->nr_cus);
		if (ret == TDP_ENOMEM)
			return ret;
		if (d->nr_spans == before) {
			d->cus[d->nr_cus].no_ranges = true;
			nr_without++;
		}
		d->nr_cus++;
		if (ret) /* a limit: keep the units read so far */
			break;
	}
	if (nr_without && !ret) {
		/* units without ranges of their own (some compilers): .debug_aranges */
		Dwarf_Aranges *ar;
		size_t n;

		if (dwarf_getaranges(d->dw, &ar, &n) == 0) {
			for (size_t i = 0; i < n && !ret; i++) {
				Dwarf_Arange *a = dwarf_onearange(ar, i);
				Dwarf_Addr addr;
				Dwarf_Word len;
				Dwarf_Off off;
				long c;

				if (!a || dwarf_getarangeinfo(a, &addr, &len, &off))
					continue;
				c = cu_by_offset(d, off);
				if (c >= 0 && d->cus[c].no_ranges && addr + len > addr)
					ret = add_span(d, &alloc_spans, addr, addr + len, (size_t)c);
			}
		}
	}
	if (ret == TDP_ENOMEM)
		return ret;
	if (d->nr_spans)
		qsort(d->spans, d->nr_spans, sizeof(d->spans[0]), span_cmp);
	return 0;
}

static struct symbol_cu *find_cu(struct symbol_dwarf *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nr_spans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->spans[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i > 0 && k < OVERLAP_LOOKBACK; i--, k++)
		if (addr < d->spans[i - 1].hi)
			return &d->cus[d->spans[i - 1].cu];
	return NULL;
}

static bool is_container(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_module:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_common_block:
		return true;
	default:
		return false;
	}
}

struct walk {
	struct symbol_cu *cu;
	size_t alloc_nodes, alloc_ranges;
};

static int add_node(struct walk *w, Dwarf_Die *die, int tag, uint32_t parent, uint32_t *out)
{
	struct symbol_cu *cu = w->cu;
	ptrdiff_t o = 0;
	Dwarf_Addr base, lo, hi;
	uint32_t idx = (uint32_t)cu->nr_nodes;
	bool any = false;

	*out = UINT32_MAX;
	while ((o = dwarf_ranges(die, o, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (cu->nr_ranges >= SYMBOL_MAX_CU_NODES)
			return TDP_ELIMIT;
		if (TDP_GROW(cu->ranges, w->alloc_ranges, cu->nr_ranges + 1))
			return TDP_ENOMEM;
		cu->ranges[cu->nr_ranges++] = (struct cu_range){ lo, hi, idx, parent };
		any = true;
	}
	if (!any)
		return 0;
	if (cu->nr_nodes >= SYMBOL_MAX_CU_NODES)
		return TDP_ELIMIT;
	if (TDP_GROW(cu->nodes, w->alloc_nodes, cu->nr_nodes + 1))
		return TDP_ENOMEM;

	struct cu_node *n = &cu->nodes[cu->nr_nodes++];
	Dwarf_Attribute attr;
	Dwarf_Word v;

	memset(n, 0, sizeof(*n));
	n->die = dwarf_dieoffset(die);
	n->inlined = tag == DW_TAG_inlined_subroutine;
	if (n->inlined) {
		if (dwarf_attr(die, DW_AT_call_file, &attr) && !dwarf_formudata(&attr, &v))
			n->call_file = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		else
			n->call_file = UINT32_MAX;
		if (dwarf_attr(die, DW_AT_call_line, &attr) && !dwarf_formudata(&attr, &v))
			n->call_line = v > UINT32_MAX ? 0 : (uint32_t)v;
		if (dwarf_attr(die, DW_AT_call_column, &attr) && !dwarf_formudata(&attr, &v))
			n->call_column = v > UINT32_MAX ? 0 : (uint32_t)v;
	}
	*out = idx;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* The walk: depth-first over the DIEs that can hold code, with an explicit stack
 * (hostile nesting cannot overflow ours: SYMBOL_MAX_DIE_DEPTH). */
static int walk_cu(struct symbol_dwarf *d, struct walk *w)
{
	struct frame {
		Dwarf_Die die;
		uint32_t parent;
	} *stack;
	Dwarf_Die cudie, child;
	size_t depth = 0;
	int ret = 0;

	if (!dwarf_offdie(d->dw, w->cu->off, &cudie) || dwarf_child(&cudie, &child) != 0)
		return 0;
	stack = tdp_malloc(SYMBOL_MAX_DIE_DEPTH * sizeof(*stack));
	if (!stack)
		return TDP_ENOMEM;
	stack[0].die = child;
	stack[0].parent = ROOT_PENDING;
	for (;;) {
		Dwarf_Die *cur = &stack[depth].die;
		int tag = dwarf_tag(cur);
		uint32_t parent = stack[depth].parent, node;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			/* an out-of-line function is a root of the inline chain wherever
			 * its DIE sits (nested functions, local classes) */
			ret = add_node(w, cur, tag, tag == DW_TAG_subprogram ? ROOT_PENDING : parent,
				       &node);
			if (ret)
				break;
			if (node != UINT32_MAX)
				parent = node;
		}
		if (is_container(tag) && dwarf_haschildren(cur) > 0 && depth + 1 < SYMBOL_MAX_DIE_DEPTH &&
		    dwarf_child(cur, &child) == 0) {
			depth++;
			stack[depth].die = child;
			stack[depth].parent = parent;
			continue;
		}
		for (;;) {
			int r = dwarf_siblingof(&stack[depth].die, &child);

			if (r == 0) {
				stack[depth].die = child;
				break;
			}
			if (r < 0 || depth == 0)
				goto done;
			depth--;
		}
	}
done:
	tdp_free(stack);
	return ret;
}

static int index_cu(struct symbol_dwarf *d, struct symbol_cu *cu)
{
	struct walk w = { cu, 0, 0 };
	size_t nr;
	int ret;

	cu->indexed = true;
	ret = walk_cu(d, &w);
	if (ret == TDP_ENOMEM)
		return ret;
	if (ret) { /* a limit: keep lines, drop the chain for this unit */
		cu->index_failed = true;
		return 0;
	}
	nr = cu->nr_nodes;
	for (size_t i = 0; i < cu->nr_ranges; i++)
		if (cu->ranges[i].parent == ROOT_PENDING)
			cu->ranges[i].parent = (uint32_t)nr;
	if (cu->nr_ranges)
		qsort(cu->ranges, cu->nr_ranges, sizeof(cu->ranges[0]), range_cmp);
	cu->child_begin = tdp_calloc(nr + 1, sizeof(uint32_t));
	cu->child_end = tdp_calloc(nr + 1, sizeof(uint32_t));
	if (!cu->child_begin || !cu->child_end)
		return TDP_ENOMEM;
	for (size_t i = cu->nr_ranges; i-- > 0;)
		cu->child_begin[cu->ranges[i].parent] = (uint32_t)i;
	for (size_t i = 0; i < cu->nr_ranges; i++)
		cu->child_end[cu->ranges[i].parent] = (uint32_t)(i + 1);
	return 0;
}

static const char *node_name(struct symbol_dwarf *d, struct symbol_arena *a, struct strbuf *sb,
			     struct cu_node *n, unsigned flags)
{
	Dwarf_Die die;
	Dwarf_Attribute attr;
	const char *name = NULL;

	if (n->name_done)
		return n->name;
	n->name_done = true;
	if (!dwarf_offdie(d->dw, n->die, &die))
		return NULL;
	if (dwarf_attr_integrate(&die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(&die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (name)
		name = symbol_display_name(a, sb, name, flags);
	if (!name && dwarf_attr_integrate(&die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	n->name = name;
	return name;
}

/* Innermost-last chain of the nodes whose ranges hold addr. */
static size_t chain(const struct symbol_cu *cu, uint64_t addr, uint32_t *out)
{
	uint32_t p = (uint32_t)cu->nr_nodes;
	size_t n = 0;

	while (n < SYMBOL_MAX_INLINE_DEPTH) {
		size_t lo = cu->child_begin[p], hi = cu->child_end[p], b = lo;
		long found = -1;

		if (lo >= hi)
			break;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cu->ranges[mid].lo <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo, k = 0; i > b && k < OVERLAP_LOOKBACK; i--, k++) {
			if (addr < cu->ranges[i - 1].hi) {
				found = (long)(i - 1);
				break;
			}
		}
		if (found < 0)
			break;
		p = cu->ranges[found].node;
		out[n++] = p;
	}
	return n;
}

static const char *file_name(Dwarf_Files *files, size_t nr_files, uint32_t idx)
{
	if (!files || idx == UINT32_MAX || idx >= nr_files)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

int symbol_dwarf_lookup(struct symbol_dwarf *d, struct symbol_arena *a, uint64_t vaddr,
			bool inlines, unsigned flags, struct dw_lookup *out)
{
	struct symbol_cu *cu;
	Dwarf_Die cudie;
	Dwarf_Line *line;
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	/* not the frames: only out->frames[0 .. nr_frames) are ever read */
	out->file = NULL;
	out->line = out->column = 0;
	out->nr_frames = 0;
	if (!d->dw)
		return 0;
	if (!d->spans_built && (ret = build_spans(d)) < 0)
		return ret;
	cu = find_cu(d, vaddr);
	if (!cu || !dwarf_offdie(d->dw, cu->off, &cudie))
		return 0;
	line = dwarf_getsrc_die(&cudie, vaddr);
	if (line) {
		int ln = 0, col = 0;

		out->file = dwarf_linesrc(line, NULL, NULL);
		if (!dwarf_lineno(line, &ln) && ln > 0)
			out->line = (uint32_t)ln;
		if (!dwarf_linecol(line, &col) && col > 0)
			out->column = (uint32_t)col;
	}
	if (inlines) {
		uint32_t nodes[SYMBOL_MAX_INLINE_DEPTH];
		Dwarf_Files *files = NULL;
		size_t nr_files = 0, n;

		if (!cu->indexed && (ret = index_cu(d, cu)) < 0)
			goto out;
		if (cu->index_failed || !cu->nr_nodes)
			goto out;
		n = chain(cu, vaddr, nodes);
		if (n && dwarf_getsrcfiles(&cudie, &files, &nr_files))
			files = NULL;
		for (size_t i = 0; i < n; i++) {
			struct symbol_frame *f = &out->frames[i];
			struct cu_node *node = &cu->nodes[nodes[n - 1 - i]];

			f->function = node_name(d, a, &sb, node, flags);
			if (i == 0) {
				f->file = out->file;
				f->line = out->line;
				f->column = out->column;
			} else {
				const struct cu_node *callee = &cu->nodes[nodes[n - i]];

				f->file = file_name(files, nr_files, callee->call_file);
				f->line = callee->call_line;
				f->column = callee->call_column;
			}
		}
		out->nr_frames = n;
	}
	ret = 1;
out:
	strbuf_release(&sb);
	return ret < 0 ? ret : 1;
}

void symbol_dwarf_release(struct symbol_dwarf *d)
{
	for (size_t i = 0; i < d->nr_cus; i++) {
		struct symbol_cu *cu = &d->cus[i];

		tdp_free(cu->nodes);
		tdp_free(cu->ranges);
		tdp_free(cu->child_begin);
		tdp_free(cu->child_end);
	}
	tdp_free(d->cus);
	tdp_free(d->spans);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->alt)
		dwarf_end(d->alt);
	if (d->alt_elf)
		elf_end(d->alt_elf);
	memset(d, 0, sizeof(*d));
}
