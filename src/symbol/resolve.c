/*
 * resolve.c: one pass over the distinct addresses of a report. Addresses are
 * mapped to (binary, file offset), sorted by binary and offset so that each
 * binary is loaded once and its compile units are visited in order, and each
 * distinct (binary, offset) is looked up once: the same code mapped by several
 * processes costs one lookup.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "symbol/symbol-internal.h"

struct work {
	uintptr_t dso;   /* the binary's entry, as a number to sort by */
	uint64_t key;    /* file offset (user), address (kernel) */
	size_t idx;      /* into the caller's arrays */
};

static int work_cmp(const void *a, const void *b)
{
	const struct work *x = a, *y = b;

	if (x->dso != y->dso)
		return x->dso < y->dso ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool is_main_kernel(const struct symbol_dso *d)
{
	return !strcmp(d->name, "[kernel.kallsyms]");
}

static void resolve_kernel(struct symbol_session *s, struct symbol_dso *dso, uint64_t addr,
			   struct symbol_result *r)
{
	struct kallsyms *k = &s->ksyms;
	struct symbol_sym *sym;

	if (!k->ok) {
		r->status = SYMBOL_KERNEL_UNRESOLVED;
		r->note = k->note;
		return;
	}
	if (k->delta && !is_main_kernel(dso)) {
		/* modules load anywhere: a KASLR shift says this is another boot */
		r->status = SYMBOL_KERNEL_UNRESOLVED;
		r->note = "module addresses from another boot cannot be resolved";
		return;
	}
	r->binary = s->opts.kallsyms ? s->opts.kallsyms : s->opts.running_kallsyms;
	r->vaddr = addr - (uint64_t)k->delta;
	sym = (struct symbol_sym *)symtab_find(&k->symtab, r->vaddr);
	if (!sym) {
		r->status = SYMBOL_NO_SYMBOL;
		return;
	}
	r->status = SYMBOL_OK;
	r->function = symbol_sym_name(s, sym);
	r->func_vaddr = sym->addr;
	r->func_size = sym->size;
	r->offset = r->vaddr - sym->addr;
}

static int resolve_user(struct symbol_session *s, struct symbol_dso *dso, uint64_t off,
			struct symbol_result *r)
{
	struct symbol_binary *b = dso->bin;
	struct symbol_sym *sym;
	struct dw_lookup dl;
	uint64_t vaddr;
	unsigned flags = s->opts.flags;

	r->status = dso->status;
	r->note = dso->note;
	if (dso->status != SYMBOL_OK || !b)
		return 0;
	r->binary = b->path ? b->path : b->dbg_path;
	if (!symbol_dso_file_to_vaddr(b, off, &vaddr)) {
		r->status = SYMBOL_NO_SYMBOL;
		r->note = "the address is outside the binary's loaded segments";
		return 0;
	}
	r->vaddr = vaddr;
	sym = (struct symbol_sym *)symtab_find(&b->symtab, vaddr);
	if (sym) {
		r->function = symbol_sym_name(s, sym);
		r->func_vaddr = sym->addr;
		r->func_size = sym->size;
		r->offset = vaddr - sym->addr;
	} else {
		r->status = SYMBOL_NO_SYMBOL;
	}
	if (!b->has_dwarf)
		return 0;
	int ret = symbol_dwarf_lookup(&b->dwarf, &s->arena, vaddr, !(flags & SYMBOL_NO_INLINES),
				      flags, &dl);

	if (ret < 0)
		return ret;
	r->file = dl.file;
	r->line = dl.line;
	r->column = dl.column;
	if (!dl.nr_frames && dl.file) {
		dl.frames[0] = (struct symbol_frame){ r->function, dl.file, dl.line, dl.column };
		dl.nr_frames = 1;
	}
	if (dl.nr_frames) {
		struct symbol_frame *f = arena_alloc(&s->arena, dl.nr_frames * sizeof(*f));

		if (!f)
			return TDP_ENOMEM;
		memcpy(f, dl.frames, dl.nr_frames * sizeof(*f));
		r->frames = f;
		r->nr_frames = dl.nr_frames;
		if (!r->function && f[dl.nr_frames - 1].function) {
			/* no symbol (a local function the table lacks): DWARF names it */
			r->function = f[dl.nr_frames - 1].function;
			r->status = SYMBOL_OK;
		}
	}
	if (!dl.file)
		r->note = "no line information at this address";
	return 0;
}

int symbol_resolve(struct symbol_session *s, const struct symbol_addr *addrs, size_t nr,
		   struct symbol_result *out, struct tdp_err *err)
{
	struct work *w = NULL;
	size_t nw = 0;
	int ret = 0;

	if (!nr)
		return 0;
	if (!s || !addrs || !out)
		return tdp_err_set(err, TDP_EINVAL, "symbol_resolve: no addresses or results");
	w = tdp_calloc(nr, sizeof(*w));
	if (!w)
		return tdp_err_oom(err);
	for (size_t i = 0; i < nr; i++) {
		struct symbol_result *r = &out[i];
		struct symbol_loc loc;

		memset(r, 0, sizeof(*r));
		if (!symbol_map(s, addrs[i].pid, addrs[i].addr, &loc)) {
			r->status = SYMBOL_UNMAPPED;
			r->kernel = loc.kernel;
			r->dso_addr = addrs[i].addr;
			r->note = loc.kernel ? "no kernel map holds this address"
					     : "no map of the process holds this address";
			continue;
		}
		r->kernel = loc.kernel;
		r->dso = loc.path;
		r->dso_addr = loc.dso_addr;
		if (!loc.kernel && loc.path && symbol_dso_is_anon(loc.path)) {
			/* JIT code: its process's perf map names it (perfmap.c), by runtime address */
			if (symbol_perfmap_resolve(s, addrs[i].pid, addrs[i].addr, r))
				continue;
			if (r->note) {
				r->status = SYMBOL_NO_BINARY;
				continue;
			}
		}
		w[nw++] = (struct work){ (uintptr_t)loc.dso, loc.dso_addr, i };
	}
	qsort(w, nw, sizeof(*w), work_cmp);
	for (size_t i = 0; i < nw && !ret;) {
		struct symbol_dso *dso = (struct symbol_dso *)w[i].dso;
		struct symbol_result *first = &out[w[i].idx];
		size_t j = i + 1;

		symbol_dso_load(s, dso);
		if (dso->kernel)
			resolve_kernel(s, dso, w[i].key, first);
		else
			ret = resolve_user(s, dso, w[i].key, first);
		while (j < nw && w[j].dso == w[i].dso && w[j].key == w[i].key) {
			bool kernel = out[w[j].idx].kernel;

			out[w[j].idx] = *first;
			out[w[j].idx].kernel = kernel;
			j++;
		}
		i = j;
	}
	tdp_free(w);
	if (ret)
		return tdp_err_set(err, ret, "cannot symbolize: %s", tdp_strerror(ret));
	return 0;
}

void symbol_format_perf(const struct symbol_result *r, struct strbuf *sb)
{
	strbuf_addf(sb, "[%c] ", r->kernel ? 'k' : '.');
	if (r->function)
		strbuf_adds(sb, r->function);
	else /* perf's "%-#.*llx" with BITS_PER_LONG / 4 digits */
		strbuf_addf(sb, "%#.16" PRIx64, r->dso_addr);
}

const char *symbol_status_name(enum symbol_status st)
{
	switch (st) {
	case SYMBOL_OK: return "resolved";
	case SYMBOL_UNMAPPED: return "not in any map";
	case SYMBOL_NO_BINARY: return "binary not found";
	case SYMBOL_BUILD_ID_MISMATCH: return "binary changed since recording";
	case SYMBOL_BAD_BINARY: return "binary not readable";
	case SYMBOL_NO_SYMBOL: return "no symbol";
	case SYMBOL_KERNEL_UNRESOLVED: return "kernel symbols unavailable";
	}
	return "unknown";
}
