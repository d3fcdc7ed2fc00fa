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

static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * PLT stubs as perf names them ("printf@plt"): the n-th entry of .plt (after its
 * header: 16 bytes on x86, 32 on AArch64) or of .plt.sec (no header; x86 with
 * IBT) jumps through the GOT slot of the n-th relocation of .rela.plt, whose
 * symbol names it.
 */
int symtab_add_plt(struct symbol_symtab *t, Elf *elf, struct symbol_arena *a, bool aarch64)
{
	size_t shstrndx, added = 0;
	GElf_Shdr rel_sh, plt_sh, dyn_sh;
	Elf_Scn *rel, *plt, *dyn;
	Elf_Data *rd, *dd;
	uint64_t header, entsize, nr;
	bool rela = true;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	rel = section_named(elf, shstrndx, ".rela.plt", &rel_sh);
	if (!rel) {
		rel = section_named(elf, shstrndx, ".rel.plt", &rel_sh);
		rela = false;
	}
	if (!rel || rel_sh.sh_type != (rela ? SHT_RELA : SHT_REL))
		return 0;
	plt = section_named(elf, shstrndx, ".plt.sec", &plt_sh);
	header = 0;
	if (!plt) {
		plt = section_named(elf, shstrndx, ".plt", &plt_sh);
		header = aarch64 ? 32 : 16;
	}
	dyn = elf_getscn(elf, rel_sh.sh_link);
	if (!plt || plt_sh.sh_type != SHT_PROGBITS || !dyn || !gelf_getshdr(dyn, &dyn_sh) ||
	    !(rd = elf_getdata(rel, NULL)) || !(dd = elf_getdata(dyn, NULL)) || !rd->d_buf || !dd->d_buf)
		return 0;
	entsize = plt_sh.sh_entsize >= 4 && plt_sh.sh_entsize <= 64 ? plt_sh.sh_entsize : 16;
	if (plt_sh.sh_size <= header)
		return 0;
	nr = (plt_sh.sh_size - header) / entsize;
	for (uint64_t i = 0; i < nr; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		GElf_Sym sym;
		uint64_t info;
		const char *name;
		char *full;
		size_t len;

		if (rela ? !gelf_getrela(rd, (int)i, &ra) : !gelf_getrel(rd, (int)i, &r))
			break;
		info = rela ? ra.r_info : r.r_info;
		if (!gelf_getsym(dd, (int)GELF_R_SYM(info), &sym) ||
		    !(name = elf_strptr(elf, dyn_sh.sh_link, sym.st_name)) || !*name)
			continue;
		if (t->nr >= SYMBOL_MAX_SYMBOLS)
			break;
		len = strlen(name);
		full = arena_alloc(a, len + 5);
		if (!full || TDP_GROW(t->syms, t->alloc, t->nr + 1))
			return TDP_ENOMEM;
		memcpy(full, name, len);
		memcpy(full + len, "@plt", 5);
		t->syms[t->nr++] = (struct symbol_sym){
			.addr = plt_sh.sh_addr + header + i * entsize, .size = entsize, .name = full,
			.demangled = NULL, .rank = 0,
		};
		added++;
	}
	return added > (size_t)INT32_MAX ? INT32_MAX : (int)added;
}

