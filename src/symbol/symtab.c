/*
 * symtab.c: our own function-symbol table per binary: read once from .symtab or
 * .dynsym, sorted by address, one symbol per address, searched by bisection
 * (libdw's dwfl_module_addrsym walks its tables on every call and is slow).
 */
#include <stdlib.h>
#include <string.h>

#include <elf.h>

#include "base/alloc.h"
#include "base/err.h"
#include "symbol/symbol-internal.h"

/* How many earlier symbols a lookup checks when the nearest one ends before the
 * address (a small symbol nested in a bigger one). */
#define NESTED_LOOKBACK 8

int symtab_read_elf(struct symbol_symtab *t, Elf *elf, unsigned type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t added = 0;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn)
		return 0;

	Elf_Data *d = elf_getdata(scn, NULL);
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

	if (!d || !d->d_buf || !entsize)
		return 0;
	size_t nr = d->d_size / entsize;

	for (size_t i = 1; i < nr; i++) {
		GElf_Sym sym;
		const char *name;
		unsigned st = 0;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		st = GELF_ST_TYPE(sym.st_info);
		if ((st != STT_FUNC && st != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (t->nr >= SYMBOL_MAX_SYMBOLS)
			break;
		if (TDP_GROW(t->syms, t->alloc, t->nr + 1))
			return TDP_ENOMEM;
		struct symbol_sym *s = &t->syms[t->nr++];

		s->addr = sym.st_value;
		s->size = sym.st_size;
		s->name = name;
		s->demangled = NULL;
		switch (GELF_ST_BIND(sym.st_info)) {
		case STB_GLOBAL: s->rank = 3; break;
		case STB_WEAK: s->rank = 2; break;
		default: s->rank = 1; break;
		}
		added++;
	}
	return added > (size_t)INT32_MAX ? INT32_MAX : (int)added;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Address ascending; among aliases the preferred one first (perf's
 * choose_best_symbol: global over weak over local, sized over unsized, fewer
 * leading underscores), then by name so that the order is stable. */
static int sym_cmp(const void *a, const void *b)
{
	const struct symbol_sym *x = a, *y = b;
	size_t ux, uy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	ux = underscores(x->name);
	uy = underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x->name, y->name);
}

void symtab_finish(struct symbol_symtab *t)
{
	size_t n = 0;

	if (!t->nr)
		return;
	qsort(t->syms, t->nr, sizeof(t->syms[0]), sym_cmp);
	for (size_t i = 0; i < t->nr; i++)
		if (!n || t->syms[n - 1].addr != t->syms[i].addr)
			t->syms[n++] = t->syms[i];
	t->nr = n;
	/* perf's symbols__fixup_end: a symbol without a size runs to the next one */
	for (size_t i = 0; i < n; i++) {
		if (t->syms[i].size)
			continue;
		t->syms[i].size = i + 1 < n ? t->syms[i + 1].addr - t->syms[i].addr : 1;
	}
}

const struct symbol_sym *symtab_find(const struct symbol_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i > 0 && k < NESTED_LOOKBACK; i--, k++) {
		const struct symbol_sym *s = &t->syms[i - 1];

		if (addr - s->addr < s->size)
			return s;
	}
	return NULL;
}

void symtab_release(struct symbol_symtab *t)
{
	tdp_free(t->syms);
	t->syms = NULL;
	t->nr = t->alloc = 0;
}
