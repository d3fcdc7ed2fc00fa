/* exe.c: the workload's executable: function symbols, DWARF files and lines, disassembly (see exe.h). */
#include "symbol/exe.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol.h"

/* Where the executable is placed in the symbol session's address space. */
#define SYMBOL_EXE_MAP_BASE 0x100000000000ull

char *symbol_path_normalise(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	const char *p = path;
	bool abs = *path == '/';

	if (size < 2)
		return NULL;
	if (abs)
		buf[n++] = '/';
	while (*p) {
		const char *s;
		size_t len;

		while (*p == '/')
			p++;
		s = p;
		while (*p && *p != '/')
			p++;
		len = (size_t)(p - s);
		if (!len || (len == 1 && s[0] == '.'))
			continue;
		if (len == 2 && s[0] == '.' && s[1] == '.') {
			/* drop the last component unless there is none (or it is itself "..") */
			size_t e = n, start;

			while (e > (abs ? 1u : 0u) && buf[e - 1] == '/')
				e--;
			start = e;
			while (start > 0 && buf[start - 1] != '/')
				start--;
			if (e > start && !(e - start == 2 && buf[start] == '.' && buf[start + 1] == '.')) {
				n = start;
				continue;
			}
			if (abs && e <= 1)
				continue; /* "/.." is "/" */
		}
		if (n && buf[n - 1] != '/') {
			if (n + 1 >= size)
				return NULL;
			buf[n++] = '/';
		}
		if (n + len >= size)
			return NULL;
		memcpy(buf + n, s, len);
		n += len;
	}
	if (n > 1 && buf[n - 1] == '/')
		n--;
	if (!n)
		buf[n++] = '.';
	buf[n] = '\0';
	return buf;
}

static int cmp_func(const void *a, const void *b)
{
	return strcmp(((const struct symbol_exe_func *)a)->name, ((const struct symbol_exe_func *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The function symbols of the first symbol table of `type`. */
static int read_symtab(struct symbol_exe *x, Elf *elf, Elf64_Word type, size_t *alloc, struct tdp_err *err)
{
	Elf_Scn *scn = NULL;
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t nr;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		nr = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < nr; i++) {
			GElf_Sym sym;
			const char *name;
			struct symbol_exe_func *f;
			int d;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			if ((GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (x->nr_funcs >= SYMBOL_EXE_MAX_FUNCS) {
				ret = tdp_err_set(err, TDP_ELIMIT, "'%s': more than %u function symbols", x->path,
						  SYMBOL_EXE_MAX_FUNCS);
				goto out;
			}
			if (TDP_GROW(x->funcs, *alloc, x->nr_funcs + 1)) {
				ret = tdp_err_oom(err);
				goto out;
			}
			strbuf_reset(&sb);
			d = symbol_demangle(name, 0, &sb);
			f = &x->funcs[x->nr_funcs];
			f->name = tdp_strdup(d == 1 ? sb.buf : name);
			if (!f->name || d < 0) {
				tdp_free(f->name);
				ret = tdp_err_oom(err);
				goto out;
			}
			f->addr = sym.st_value;
			f->size = sym.st_size;
			x->nr_funcs++;
		}
		break;
	}
out:
	strbuf_release(&sb);
	return ret;
}

static const char *attr_string(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;

	return dwarf_attr(die, name, &a) ? dwarf_formstring(&a) : NULL;
}

/*
 * The normalised path of a line-table file name: a relative name is relative to
 * the unit's compilation directory, as valgrind joins them. Returns buf or NULL.
 */
static char *unit_path(const char *comp_dir, const char *name, char *buf, size_t size)
{
	char joined[SYMBOL_EXE_MAX_PATH];
	int len;

	if (name[0] == '/' || !comp_dir)
		return symbol_path_normalise(name, buf, size);
	len = snprintf(joined, sizeof(joined), "%s/%s", comp_dir, name);
	if (len < 0 || (size_t)len >= sizeof(joined))
		return NULL;
	return symbol_path_normalise(joined, buf, size);
}

static int add_file(struct symbol_exe *x, const char *comp_dir, const char *name, size_t *alloc,
		    struct tdp_err *err)
{
	char buf[SYMBOL_EXE_MAX_PATH];

	if (!unit_path(comp_dir, name, buf, sizeof(buf)))
		return 0; /* longer than any path valgrind would report */
	if (x->nr_files && !strcmp(x->files[x->nr_files - 1], buf))
		return 0;
	if (x->nr_files >= SYMBOL_EXE_MAX_FILES)
		return tdp_err_set(err, TDP_ELIMIT, "'%s': more than %u source files", x->path, SYMBOL_EXE_MAX_FILES);
	if (TDP_GROW(x->files, *alloc, x->nr_files + 1) || !(x->files[x->nr_files] = tdp_strdup(buf)))
		return tdp_err_oom(err);
	x->nr_files++;
	return 0;
}

/* The source files of every compile unit's line table. */
static int read_files(struct symbol_exe *x, struct tdp_err *err)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t alloc = 0, cus = 0, w = 0;
	int ret = 0;

	while (dwarf_get_units(x->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Files *files;
		size_t nr;

		if (++cus > SYMBOL_EXE_MAX_CUS)
			return tdp_err_set(err, TDP_ELIMIT, "'%s': more than %u compile units", x->path, SYMBOL_EXE_MAX_CUS);
		const char *dir;

		if (dwarf_getsrcfiles(&cudie, &files, &nr) != 0)
			continue;
		dir = attr_string(&cudie, DW_AT_comp_dir);
		for (size_t i = 0; i < nr; i++) {
			const char *name = dwarf_filesrc(files, i, NULL, NULL);

			if (name && *name && (ret = add_file(x, dir, name, &alloc, err)))
				return ret;
		}
	}
	if (x->nr_files > 1)
		qsort(x->files, x->nr_files, sizeof(*x->files), cmp_str);
	for (size_t i = 0; i < x->nr_files; i++) {
		if (w && !strcmp(x->files[w - 1], x->files[i])) {
			tdp_free(x->files[i]);
			continue;
		}
		x->files[w++] = x->files[i];
	}
	x->nr_files = w;
	return 0;
}

static int exe_open(struct symbol_exe *x, const char *path, bool with_dwarf, struct tdp_err *err)
{
	size_t alloc = 0;
	Elf *elf;
	int ret;

	memset(x, 0, sizeof(*x));
	x->fd = -1;
	if (!(x->path = tdp_strdup(path)))
		return tdp_err_oom(err);
	x->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (x->fd < 0) {
		int e = errno;

		return tdp_err_set(err, e == ENOENT ? TDP_ENOENT : e == EACCES ? TDP_EPERM : TDP_EIO,
				   "cannot open '%s': %s", path, strerror(e));
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(x->fd, ELF_C_READ_MMAP, NULL);
	x->elf = elf;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return tdp_err_set(err, TDP_EFORMAT, "'%s' is not an ELF file", path);
	ret = read_symtab(x, elf, SHT_SYMTAB, &alloc, err);
	if (!ret && !x->nr_funcs)
		ret = read_symtab(x, elf, SHT_DYNSYM, &alloc, err);
	if (ret)
		return ret;
	if (x->nr_funcs > 1)
		qsort(x->funcs, x->nr_funcs, sizeof(*x->funcs), cmp_func);
	if (!with_dwarf)
		return 0;
	x->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (x->dwarf && (ret = read_files(x, err)))
		return ret;
	return 0;
}

int symbol_exe_open(struct symbol_exe *x, const char *path, struct tdp_err *err)
{
	return exe_open(x, path, true, err);
}

int symbol_exe_open_code(struct symbol_exe *x, const char *path, struct tdp_err *err)
{
	return exe_open(x, path, false, err);
}

void symbol_exe_close(struct symbol_exe *x)
{
	for (size_t i = 0; i < x->nr_funcs; i++)
		tdp_free(x->funcs[i].name);
	for (size_t i = 0; i < x->nr_files; i++)
		tdp_free(x->files[i]);
	tdp_free(x->funcs);
	tdp_free(x->files);
	symbol_session_free(x->sym);
	if (x->dwarf)
		dwarf_end(x->dwarf);
	if (x->elf)
		elf_end(x->elf);
	if (x->path && x->fd >= 0)
		close(x->fd);
	tdp_free(x->path);
	memset(x, 0, sizeof(*x));
	x->fd = -1;
}

const struct symbol_exe_func *symbol_exe_find_func(const struct symbol_exe *x, const char *name)
{
	struct symbol_exe_func key = { .name = (char *)name };

	if (!x->nr_funcs || !name)
		return NULL;
	return bsearch(&key, x->funcs, x->nr_funcs, sizeof(*x->funcs), cmp_func);
}

bool symbol_exe_has_file(const struct symbol_exe *x, const char *file)
{
	return x->nr_files && file && bsearch(&file, x->files, x->nr_files, sizeof(*x->files), cmp_str);
}

/* Does line-table file name `src` of a unit compiled in comp_dir name `file` (normalised)? */
static bool same_file(const char *comp_dir, const char *src, const char *file)
{
	char buf[SYMBOL_EXE_MAX_PATH];

	return src && unit_path(comp_dir, src, buf, sizeof(buf)) && !strcmp(buf, file);
}

size_t symbol_exe_line_ranges(const struct symbol_exe *x, const char *file, uint64_t line, struct symbol_exe_range *out,
			    size_t max)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t n = 0;

	if (!x->dwarf || !file || !line)
		return 0;
	while (n < max && dwarf_get_units(x->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Lines *lines;
		size_t nr;
		const char *last_src = NULL, *dir = attr_string(&cudie, DW_AT_comp_dir);
		bool last_match = false, follows = false;

		if (dwarf_getsrclines(&cudie, &lines, &nr) != 0)
			continue;
		for (size_t i = 0; i + 1 < nr && n < max; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i), *next = dwarf_onesrcline(lines, i + 1);
			const char *src;
			Dwarf_Addr lo, hi;
			int ln;
			bool end, ours;

			if (!l || !next || dwarf_lineno(l, &ln) || dwarf_lineendsequence(l, &end) || end) {
				follows = false;
				continue;
			}
			/*
			 * Line 0 is code the compiler made for no line of its own (clang's
			 * jump-table dispatch of a switch): it counts with the line before it,
			 * as objdump -l and perf annotate show it.
			 */
			ours = (uint64_t)ln == line || (ln == 0 && follows);
			follows = ours;
			if (!ours)
				continue;
			src = dwarf_linesrc(l, NULL, NULL);
			if (src != last_src) {
				last_src = src;
				last_match = same_file(dir, src, file);
			}
			if (!last_match || dwarf_lineaddr(l, &lo) || dwarf_lineaddr(next, &hi) || hi <= lo)
				continue;
			if (n && out[n - 1].hi == lo) {
				out[n - 1].hi = hi;
				continue;
			}
			out[n].lo = lo;
			out[n].hi = hi;
			n++;
		}
	}
	return n;
}

bool symbol_exe_cflags(const struct symbol_exe *x, const char *file, struct strbuf *sb)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	const char *producer = NULL;
	bool any = false;

	if (!x->dwarf)
		return false;
	while (dwarf_get_units(x->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		const char *name = dwarf_diename(&cudie), *dir = attr_string(&cudie, DW_AT_comp_dir);
		char buf[SYMBOL_EXE_MAX_PATH];

		if (!name || !unit_path(dir, name, buf, sizeof(buf)))
			continue;
		if (!strcmp(buf, file)) {
			producer = attr_string(&cudie, DW_AT_producer);
			break;
		}
	}
	/* "GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -O1 -fno-if-conversion" */
	for (const char *p = producer; p && *p;) {
		const char *s;
		size_t len;

		while (*p == ' ')
			p++;
		s = p;
		while (*p && *p != ' ')
			p++;
		len = (size_t)(p - s);
		if (len > 2 && s[0] == '-' && (s[1] == 'O' || s[1] == 'f' || s[1] == 'm' || !strncmp(s, "-std=", 5))) {
			if (any)
				strbuf_addch(sb, ' ');
			strbuf_add(sb, s, len);
			any = true;
		} else if (len == 2 && s[0] == '-' && s[1] == 'O') {
			if (any)
				strbuf_addch(sb, ' ');
			strbuf_adds(sb, "-O");
			any = true;
		}
	}
	return any;
}

/* The file offset of ELF virtual address v (its PT_LOAD segment), or false. */
static bool vaddr_to_offset(Elf *elf, uint64_t v, uint64_t *off)
{
	size_t nr;

	if (elf_getphdrnum(elf, &nr))
		return false;
	for (size_t i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v >= ph.p_vaddr && v - ph.p_vaddr < ph.p_filesz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

static int open_session(struct symbol_exe *x, struct tdp_err *err)
{
	struct symbol_mmap m = { 0 };
	struct stat st;
	int ret;

	if (x->sym)
		return 0;
	if (fstat(x->fd, &st) || st.st_size <= 0)
		return tdp_err_set(err, TDP_EIO, "cannot read '%s': %s", x->path, strerror(errno));
	if ((ret = symbol_session_new(&x->sym, NULL, err)))
		return ret;
	m.pid = 1;
	m.start = SYMBOL_EXE_MAP_BASE;
	m.len = (uint64_t)st.st_size;
	m.path = x->path;
	x->map_base = SYMBOL_EXE_MAP_BASE;
	return symbol_session_add_mmap(x->sym, &m, err);
}

static bool is_indirect(unsigned t)
{
	return t == BRANCH_TYPE_IND || t == BRANCH_TYPE_IND_CALL;
}

static bool in_ranges(const struct symbol_exe_range *r, size_t nr, uint64_t a)
{
	for (size_t i = 0; i < nr; i++)
		if (a >= r[i].lo && a < r[i].hi)
			return true;
	return false;
}

/* The runtime address (in the session) of ELF virtual address v. */
static int runtime_addr(const struct symbol_exe *x, uint64_t v, uint64_t *out, struct tdp_err *err)
{
	uint64_t off;

	if (!vaddr_to_offset(x->elf, v, &off))
		return tdp_err_set(err, TDP_EFORMAT, "'%s': address 0x%llx is in no loadable segment", x->path,
				   (unsigned long long)v);
	*out = x->map_base + off;
	return 0;
}

/* Walk the decoded instructions of the line's ranges (at most 8 ranges of 64 instructions). */
static int walk_line(struct symbol_exe *x, const struct symbol_exe_range *r, size_t nr,
		     void (*fn)(const struct symbol_insn *in, void *ctx), void *ctx, struct tdp_err *err)
{
	int ret = 0;

	for (size_t i = 0; i < nr && i < 8; i++) {
		struct symbol_disasm d = SYMBOL_DISASM_INIT;
		uint64_t a = 0;

		if ((ret = runtime_addr(x, r[i].lo, &a, err)) || (ret = symbol_disasm(x->sym, 1, a, 0, 64, &d, err)))
			return ret;
		for (size_t k = d.target; k < d.nr && d.insns[k].vaddr < r[i].hi; k++)
			fn(&d.insns[k], ctx);
		symbol_disasm_release(&d);
	}
	return 0;
}

struct branch_pick {
	uint64_t cond, ind, want;
	bool want_found;
	size_t nr_cond, nr_ind;
};

static void pick_branch(const struct symbol_insn *in, void *ctx)
{
	struct branch_pick *b = ctx;
	unsigned t = in->branch_type;

	if (t == BRANCH_TYPE_COND) {
		b->nr_cond++;
		if (!b->cond)
			b->cond = in->vaddr;
	}
	if (is_indirect(t)) {
		b->nr_ind++;
		if (!b->ind)
			b->ind = in->vaddr;
	}
	if (b->want && in->vaddr == b->want && t)
		b->want_found = true;
}

/*
 * Find the line's branch: `want` when it is one, else the preferred kind when the
 * line holds exactly one of it, else (none of it) the other kind when exactly one;
 * 0 when the line holds several candidates and nothing tells them apart.
 */
static int find_branch(struct symbol_exe *x, const struct symbol_exe_range *r, size_t nr, bool prefer_indirect,
		       uint64_t want, uint64_t *target, struct symbol_listing *out, struct tdp_err *err)
{
	struct branch_pick b = { 0 };
	size_t n_pref, n_other;
	int ret;

	b.want = want;
	if ((ret = walk_line(x, r, nr, pick_branch, &b, err)))
		return ret;
	out->line_cond = b.nr_cond;
	out->line_ind = b.nr_ind;
	if (b.want_found) {
		*target = want;
		return 0;
	}
	n_pref = prefer_indirect ? b.nr_ind : b.nr_cond;
	n_other = prefer_indirect ? b.nr_cond : b.nr_ind;
	if (n_pref == 1)
		*target = prefer_indirect ? b.ind : b.cond;
	else if (n_pref == 0 && n_other == 1)
		*target = prefer_indirect ? b.cond : b.ind;
	else
		*target = 0;
	return 0;
}

struct branch_list {
	struct symbol_exe_branch *v;
	size_t nr, max;
};

static void list_branch(const struct symbol_insn *in, void *ctx)
{
	struct branch_list *l = ctx;

	if (!in->branch_type || l->nr >= l->max)
		return;
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].addr == in->vaddr)
			return;
	l->v[l->nr].addr = in->vaddr;
	l->v[l->nr].branch_type = in->branch_type;
	snprintf(l->v[l->nr].text, sizeof(l->v[l->nr].text), "%s%s%s", in->mnemonic, in->operands[0] ? " " : "",
		 in->operands);
	l->nr++;
}

static int cmp_branch_addr(const void *a, const void *b)
{
	const struct symbol_exe_branch *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

size_t symbol_exe_line_branches(struct symbol_exe *x, const char *file, uint64_t line, struct symbol_exe_branch *out,
			       size_t max)
{
	struct symbol_exe_range r[SYMBOL_EXE_MAX_RANGES];
	size_t nr = symbol_exe_line_ranges(x, file, line, r, SYMBOL_EXE_MAX_RANGES);
	struct branch_list l = { out, 0, max };

	if (!nr || open_session(x, NULL) || walk_line(x, r, nr, list_branch, &l, NULL))
		return 0;
	qsort(out, l.nr, sizeof(*out), cmp_branch_addr);
	return l.nr;
}

/* True when [r.lo, r.hi) holds a branch of the kind asked for (indirect, else conditional). */
static bool range_has_branch(struct symbol_exe *x, const struct symbol_exe_range *r, bool indirect)
{
	struct symbol_disasm d = SYMBOL_DISASM_INIT;
	uint64_t a = 0;
	bool found = false;

	if (runtime_addr(x, r->lo, &a, NULL) || symbol_disasm(x->sym, 1, a, 0, 64, &d, NULL))
		return false;
	for (size_t k = d.target; k < d.nr && d.insns[k].vaddr < r->hi && !found; k++)
		found = indirect ? is_indirect(d.insns[k].branch_type) : d.insns[k].branch_type == BRANCH_TYPE_COND;
	symbol_disasm_release(&d);
	return found;
}

uint64_t symbol_exe_line0_owner(struct symbol_exe *x, const char *file, const char *function, bool indirect)
{
	const struct symbol_exe_func *f = function ? symbol_exe_find_func(x, function) : NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint64_t owner = 0;

	if (!x->dwarf || !file || !f || !f->size || open_session(x, NULL))
		return 0;
	while (dwarf_get_units(x->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		const char *dir = attr_string(&cudie, DW_AT_comp_dir);
		uint64_t prev = 0; /* the last nonzero line of `file` before this row, in address order */
		Dwarf_Lines *lines;
		size_t nr;

		if (dwarf_getsrclines(&cudie, &lines, &nr) != 0)
			continue;
		for (size_t i = 0; i + 1 < nr; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i), *next = dwarf_onesrcline(lines, i + 1);
			struct symbol_exe_range r;
			Dwarf_Addr lo, hi;
			int ln;
			bool end;

			if (!l || !next || dwarf_lineno(l, &ln) || dwarf_lineendsequence(l, &end) || end) {
				prev = 0;
				continue;
			}
			if (ln != 0) {
				prev = same_file(dir, dwarf_linesrc(l, NULL, NULL), file) ? (uint64_t)ln : 0;
				continue;
			}
			if (!prev || dwarf_lineaddr(l, &lo) || dwarf_lineaddr(next, &hi) || hi <= lo || lo < f->addr ||
			    lo >= f->addr + f->size)
				continue;
			r.lo = lo;
			r.hi = hi < f->addr + f->size ? hi : f->addr + f->size;
			if (!range_has_branch(x, &r, indirect))
				continue;
			if (owner && owner != prev)
				return 0; /* two lines own such code: no single answer */
			owner = prev;
		}
	}
	return owner;
}

int symbol_exe_disasm(struct symbol_exe *x, const char *file, uint64_t line, bool prefer_indirect, uint64_t want,
		    size_t context, struct symbol_listing *out, struct tdp_err *err)
{
	struct symbol_exe_range r[SYMBOL_EXE_MAX_RANGES];
	struct symbol_disasm d = SYMBOL_DISASM_INIT;
	size_t nr = symbol_exe_line_ranges(x, file, line, r, SYMBOL_EXE_MAX_RANGES);
	uint64_t target = 0, a = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!nr)
		return tdp_err_set(err, TDP_ENOENT, "'%s' has no code for '%s:%llu' in its line table", x->path, file,
				   (unsigned long long)line);
	if (context > SYMBOL_LISTING_MAX / 2 - 1)
		context = SYMBOL_LISTING_MAX / 2 - 1;
	if ((ret = open_session(x, err)) || (ret = find_branch(x, r, nr, prefer_indirect, want, &target, out, err)))
		return ret;
	out->target = target;
	if ((ret = runtime_addr(x, target ? target : r[0].lo, &a, err)) ||
	    (ret = symbol_disasm(x->sym, 1, a, context, context, &d, err)))
		return ret;
	if (d.function)
		snprintf(out->function, sizeof(out->function), "%s", d.function);
	for (size_t i = 0; i < d.nr && out->nr < SYMBOL_LISTING_MAX; i++) {
		const struct symbol_insn *in = &d.insns[i];
		struct symbol_exe_insn *o = &out->v[out->nr++];

		o->addr = in->vaddr;
		snprintf(o->text, sizeof(o->text), "%s%s%s", in->mnemonic, in->operands[0] ? " " : "", in->operands);
		o->branch_type = in->branch_type;
		o->in_line = in_ranges(r, nr, in->vaddr);
		o->target = target && in->vaddr == target;
	}
	symbol_disasm_release(&d);
	return 0;
}

int symbol_exe_disasm_addr(struct symbol_exe *x, uint64_t vaddr, uint64_t func_start, size_t context,
			   struct symbol_listing *out, struct tdp_err *err)
{
	struct symbol_disasm d = SYMBOL_DISASM_INIT;
	uint64_t a = 0, s = 0;
	size_t from = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (context > SYMBOL_LISTING_MAX / 2 - 1)
		context = SYMBOL_LISTING_MAX / 2 - 1;
	if ((ret = open_session(x, err)) || (ret = runtime_addr(x, vaddr, &a, err)) ||
	    (ret = symbol_disasm(x->sym, 1, a, context, context, &d, err)))
		return ret;
	/* no symbol holds it: decode from where the code starts, so that the listing has
	 * the instructions before the branch too (x86 boundaries are right from there) */
	if (!d.function && func_start && func_start < vaddr && vaddr - func_start < 65536 &&
	    !runtime_addr(x, func_start, &s, NULL)) {
		struct symbol_disasm e = SYMBOL_DISASM_INIT;
		size_t at = SIZE_MAX;

		if (!symbol_disasm(x->sym, 1, s, 0, SYMBOL_MAX_CONTEXT, &e, NULL)) {
			for (size_t i = 0; i < e.nr && at == SIZE_MAX; i++)
				if (e.insns[i].vaddr == vaddr)
					at = i;
		}
		if (at != SIZE_MAX) {
			symbol_disasm_release(&d);
			d = e;
			from = at > context ? at - context : 0;
			if (d.nr > at + context + 1)
				d.nr = at + context + 1;
		} else {
			symbol_disasm_release(&e);
		}
	}
	if (d.function)
		snprintf(out->function, sizeof(out->function), "%s", d.function);
	for (size_t i = from; i < d.nr && out->nr < SYMBOL_LISTING_MAX; i++) {
		const struct symbol_insn *in = &d.insns[i];
		struct symbol_exe_insn *o = &out->v[out->nr++];

		o->addr = in->vaddr;
		snprintf(o->text, sizeof(o->text), "%s%s%s", in->mnemonic, in->operands[0] ? " " : "", in->operands);
		o->branch_type = in->branch_type;
		o->target = in->vaddr == vaddr && in->branch_type;
		if (o->target)
			out->target = vaddr;
	}
	symbol_disasm_release(&d);
	return 0;
}

int symbol_exe_decode(struct symbol_exe *x, uint64_t vaddr, size_t max, struct symbol_exe_insn *out, size_t *nr,
		      struct tdp_err *err)
{
	struct symbol_disasm d = SYMBOL_DISASM_INIT;
	uint64_t a = 0;
	int ret;

	*nr = 0;
	if ((ret = open_session(x, err)) || (ret = runtime_addr(x, vaddr, &a, err)) ||
	    (ret = symbol_disasm_run(x->sym, 1, a, max, &d, err)))
		return ret;
	for (size_t i = 0; i < d.nr; i++) {
		const struct symbol_insn *in = &d.insns[i];
		struct symbol_exe_insn *o = &out[(*nr)++];

		size_t m = strnlen(in->mnemonic, sizeof(o->text) - 1), k;

		/* "%s%s%s" of mnemonic, " " and operands (as symbol_exe_disasm_addr()), without snprintf */
		memset(o, 0, sizeof(*o));
		o->addr = in->vaddr;
		memcpy(o->text, in->mnemonic, m);
		if (in->operands[0] && m + 1 < sizeof(o->text)) {
			o->text[m++] = ' ';
			k = strnlen(in->operands, sizeof(o->text) - 1 - m);
			memcpy(o->text + m, in->operands, k);
			m += k;
		}
		o->text[m] = '\0';
		o->branch_type = in->branch_type;
	}
	symbol_disasm_release(&d);
	return 0;
}

unsigned symbol_exe_branch_at(struct symbol_exe *x, uint64_t vaddr)
{
	struct symbol_disasm d = SYMBOL_DISASM_INIT;
	uint64_t a = 0;
	unsigned t = 0;

	if (open_session(x, NULL) || runtime_addr(x, vaddr, &a, NULL) || symbol_disasm(x->sym, 1, a, 0, 0, &d, NULL))
		return 0;
	if (d.nr && d.insns[d.target].vaddr == vaddr)
		t = d.insns[d.target].branch_type;
	symbol_disasm_release(&d);
	return t;
}

static enum symbol_lang cu_lang(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Word l = 0;

	if (!dwarf_attr(cu, DW_AT_language, &a) || dwarf_formudata(&a, &l))
		return SYMBOL_LANG_UNKNOWN;
	switch (l) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
#ifdef DW_LANG_C17
	case DW_LANG_C17:
#endif
		return SYMBOL_LANG_C;
	case DW_LANG_C_plus_plus: case DW_LANG_C_plus_plus_03: case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
#ifdef DW_LANG_C_plus_plus_17
	case DW_LANG_C_plus_plus_17:
#endif
#ifdef DW_LANG_C_plus_plus_20
	case DW_LANG_C_plus_plus_20:
#endif
		return SYMBOL_LANG_CXX;
	case 0x1c: /* DW_LANG_Rust */
		return SYMBOL_LANG_RUST;
	default:
		return SYMBOL_LANG_UNKNOWN;
	}
}

struct func_find {
	const char *name;
	bool found;
	int params;
};

static int find_func_cb(Dwarf_Die *fn, void *arg)
{
	struct func_find *f = arg;
	const char *n = dwarf_diename(fn);
	Dwarf_Die child;
	int params = 0;

	if (!n || strcmp(n, f->name))
		return DWARF_CB_OK;
	if (dwarf_child(fn, &child) == 0) {
		do
			params += dwarf_tag(&child) == DW_TAG_formal_parameter;
		while (dwarf_siblingof(&child, &child) == 0 && params < 1024);
	}
	f->found = true;
	f->params = params;
	return DWARF_CB_ABORT;
}

bool symbol_exe_func_info(const struct symbol_exe *x, const char *file, const char *name,
			  struct symbol_exe_func_info *info)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t n = 0;

	if (!x->dwarf || !name)
		return false;
	while (n++ < SYMBOL_EXE_MAX_CUS && dwarf_get_units(x->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		struct func_find f = { name, false, -1 };
		char buf[SYMBOL_EXE_MAX_PATH];
		const char *cuname = dwarf_diename(&cudie), *dir = attr_string(&cudie, DW_AT_comp_dir);

		if (file && cuname) {
			char joined[SYMBOL_EXE_MAX_PATH];

			if (cuname[0] != '/' && dir)
				snprintf(joined, sizeof(joined), "%s/%s", dir, cuname);
			else
				snprintf(joined, sizeof(joined), "%s", cuname);
			if (!symbol_path_normalise(joined, buf, sizeof(buf)) || strcmp(buf, file))
				continue;
		}
		dwarf_getfuncs(&cudie, find_func_cb, &f, 0);
		if (f.found) {
			info->lang = cu_lang(&cudie);
			info->params = f.params;
			return true;
		}
	}
	return false;
}

const char *symbol_exe_comp_dir(const struct symbol_exe *x, uint64_t vaddr)
{
	Dwarf *dw = x->dwarf;
	Dwarf_Die cu;
	Dwarf_Attribute a;
	Dwarf_CU *it = NULL;
	bool found = dw && vaddr && dwarf_addrdie(dw, vaddr, &cu) != NULL;

	/* without .debug_aranges: the units' own ranges */
	for (size_t n = 0; dw && vaddr && !found && n < SYMBOL_EXE_MAX_CUS &&
	     dwarf_get_units(dw, it, &it, NULL, NULL, &cu, NULL) == 0; n++)
		found = dwarf_haspc(&cu, vaddr) > 0;
	return found && dwarf_attr(&cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
}
