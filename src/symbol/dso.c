/*
 * dso.c: the binaries a recording maps. Each (path, recorded build-id) is one
 * DSO, loaded on first use: the file with the code is looked for in perf's
 * build-id caches (DIR/.build-id/xx/yyyy...) and at the recorded path (under
 * --symfs when given), and accepted only when its build-id is the recorded one;
 * the DWARF comes from the binary itself or from a separate debug file (by
 * build-id in DIR/.build-id/xx/yyyy.debug, or by .gnu_debuglink); the symbols
 * from .symtab (the binary's, else the debug file's), else .dynsym.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elf.h>

#include "base/alloc.h"
#include "base/err.h"
#include "symbol/symbol-internal.h"

#define DSO_HASH_MIN 256
/* Longest .gnu_debuglink file name accepted. */
#define DEBUGLINK_MAX 1024
/* Characters of the "looked in" list kept in a note. */
#define NOTE_MAX 1024

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static int dso_hash_rebuild(struct symbol_session *s, size_t size)
{
	uint32_t *h = tdp_calloc(size, sizeof(*h));

	if (!h)
		return TDP_ENOMEM;
	for (size_t i = 0; i < s->nr_dsos; i++) {
		struct symbol_dso *d = s->dsos[i];
		uint32_t b = name_hash(d->name, strlen(d->name)) & (size - 1);

		d->hash_next = h[b];
		h[b] = (uint32_t)(i + 1);
	}
	tdp_free(s->dso_hash);
	s->dso_hash = h;
	s->dso_hash_size = size;
	return 0;
}

struct symbol_dso *symbol_dso_get(struct symbol_session *s, const char *name, size_t len,
				  const uint8_t *bid, size_t bid_size, bool kernel,
				  struct tdp_err *err)
{
	struct symbol_dso *d;
	uint32_t h = name_hash(name, len);

	if (bid_size > 20)
		bid_size = 20;
	if (!bid)
		bid_size = 0;
	if (s->dso_hash_size) {
		for (uint32_t i = s->dso_hash[h & (s->dso_hash_size - 1)]; i; i = s->dsos[i - 1]->hash_next) {
			d = s->dsos[i - 1];
			if (d->kernel == kernel && !strncmp(d->name, name, len) && !d->name[len] &&
			    d->build_id_size == bid_size && !memcmp(d->build_id, bid ? bid : d->build_id, bid_size))
				return d;
		}
	}
	if (s->nr_dsos >= SYMBOL_MAX_DSOS) {
		tdp_err_set(err, TDP_ELIMIT, "too many binaries in the recording (more than %u)",
			    SYMBOL_MAX_DSOS);
		return NULL;
	}
	d = arena_alloc(&s->arena, sizeof(*d));
	if (!d || TDP_GROW(s->dsos, s->alloc_dsos, s->nr_dsos + 1) ||
	    ((s->nr_dsos + 1) * 2 > s->dso_hash_size &&
	     dso_hash_rebuild(s, s->dso_hash_size ? s->dso_hash_size * 2 : DSO_HASH_MIN))) {
		tdp_err_oom(err);
		return NULL;
	}
	memset(d, 0, sizeof(*d));
	d->name = arena_strndup(&s->arena, name, len);
	if (!d->name) {
		tdp_err_oom(err);
		return NULL;
	}
	d->kernel = kernel;
	d->build_id_size = (uint8_t)bid_size;
	if (bid_size)
		memcpy(d->build_id, bid, bid_size);
	s->dsos[s->nr_dsos++] = d;
	uint32_t b = h & (s->dso_hash_size - 1);

	d->hash_next = s->dso_hash[b];
	s->dso_hash[b] = (uint32_t)s->nr_dsos;
	return d;
}

static void binary_free(struct symbol_binary *b)
{
	if (!b)
		return;
	symbol_dwarf_release(&b->dwarf);
	symtab_release(&b->symtab);
	if (b->own_dbg && b->dbg_elf)
		elf_end(b->dbg_elf);
	if (b->elf)
		elf_end(b->elf);
	tdp_free(b->segs);
	tdp_free(b);
}

void symbol_dsos_release(struct symbol_session *s)
{
	for (size_t i = 0; i < s->nr_dsos; i++)
		binary_free(s->dsos[i]->bin);
	tdp_free(s->dsos);
	tdp_free(s->dso_hash);
	tdp_free(s->bids);
	s->dsos = NULL;
	s->dso_hash = NULL;
	s->bids = NULL;
	s->nr_dsos = s->alloc_dsos = s->dso_hash_size = 0;
	s->nr_bids = s->alloc_bids = 0;
}

const struct bid_ent *symbol_bid_find(const struct symbol_session *s, const char *name)
{
	for (size_t i = s->nr_bids; i-- > 0;)
		if (!strcmp(s->bids[i].name, name))
			return &s->bids[i];
	return NULL;
}

bool symbol_build_id_eq(const uint8_t *a, size_t asz, const uint8_t *b, size_t bsz)
{
	size_t n = asz < bsz ? asz : bsz;

	if (!n || memcmp(a, b, n))
		return false;
	/* perf pads a short (MD5) build-id with zeros to 20 bytes */
	for (size_t i = n; i < asz; i++)
		if (a[i])
			return false;
	for (size_t i = n; i < bsz; i++)
		if (b[i])
			return false;
	return true;
}

static size_t notes_build_id(Elf_Data *d, uint8_t out[20])
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
			size_t n = nh.n_descsz < 20 ? nh.n_descsz : 20;

			memcpy(out, (const uint8_t *)d->d_buf + desc_off, n);
			return n;
		}
		off = next;
	}
	return 0;
}

size_t symbol_elf_build_id(Elf *elf, uint8_t out[20])
{
	Elf_Scn *scn = NULL;
	size_t n, phnum;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && (n = notes_build_id(d, out)))
			return n;
	}
	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (d && d->d_buf && (n = notes_build_id(d, out)))
			return n;
	}
	return 0;
}

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool has_dwarf(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, ".debug_info", &sh);

	if (!scn)
		scn = find_section(elf, ".zdebug_info", &sh);
	return scn && sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
}

/* Open path as an ELF, read whole (so the fd can be closed at once). */
static Elf *open_elf(const char *path, int *errnum)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO at the path must not hang us (it is refused below) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	Elf *e = NULL;

	if (fd < 0) {
		*errnum = errno;
		return NULL;
	}
	if (fstat(fd, &st)) {
		*errnum = errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*errnum = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto out;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		*errnum = ENOEXEC;
		goto out;
	}
	if (elf_kind(e) != ELF_K_ELF || elf_cntl(e, ELF_C_FDREAD)) {
		elf_end(e);
		e = NULL;
		*errnum = ENOEXEC;
	}
out:
	close(fd);
	return e;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* What the search saw, for the note of a binary that could not be used. */
struct search {
	struct symbol_session *s;
	const uint8_t *bid;       /* recorded build-id (NULL: none) */
	size_t bid_size;
	struct strbuf tried;      /* "'a', 'b'" */
	bool mismatch;
	char *mismatch_path;
	uint8_t mismatch_bid[20];
	size_t mismatch_bid_size;
	bool bad;
	char *bad_path;
	bool oom;                 /* a path could not be built */
};

static void note_tried(struct search *st, const char *path)
{
	if (st->tried.len > NOTE_MAX)
		return;
	strbuf_addf(&st->tried, "%s'%s'", st->tried.len ? ", " : "", path);
}

/*
 * Open a candidate and check its build-id against the recorded one. A file
 * without a build-id note is accepted only when none was recorded.
 */
static Elf *try_candidate(struct search *st, const char *path, bool want_dwarf)
{
	int errnum = 0;
	Elf *e = open_elf(path, &errnum);
	uint8_t bid[20];
	size_t n;

	if (!e) {
		if (errnum != ENOENT && errnum != ENOTDIR && !st->bad) {
			st->bad = true;
			st->bad_path = arena_strdup(&st->s->arena, path);
		}
		if (!want_dwarf)
			note_tried(st, path);
		return NULL;
	}
	if (st->bid_size) {
		n = symbol_elf_build_id(e, bid);
		if (!symbol_build_id_eq(bid, n, st->bid, st->bid_size)) {
			if (!st->mismatch) {
				st->mismatch = true;
				st->mismatch_path = arena_strdup(&st->s->arena, path);
				memcpy(st->mismatch_bid, bid, n);
				st->mismatch_bid_size = n;
			}
			elf_end(e);
			return NULL;
		}
	}
	if (want_dwarf && !has_dwarf(e)) {
		elf_end(e);
		return NULL;
	}
	return e;
}

static void add_hex(struct strbuf *sb, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%02x", id[i]);
}

/* DIR/.build-id/xx/yyyy...SUFFIX */
static void build_id_path(struct strbuf *sb, const char *dir, const uint8_t *id, size_t n,
			  const char *suffix)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s/.build-id/%02x/", dir, id[0]);
	add_hex(sb, id + 1, n - 1);
	strbuf_adds(sb, suffix);
}

/* The recorded path without perf's " (deleted)" suffix. */
static size_t path_len(const char *name)
{
	size_t len = strlen(name);

	if (len > 10 && !strcmp(name + len - 10, " (deleted)"))
		len -= 10;
	return len;
}

bool symbol_dso_is_anon(const char *name)
{
	return (name[0] == '[' && strcmp(name, "[vdso]") && strcmp(name, "[vsyscall]")) ||
	       !strncmp(name, "//anon", 6) || !strncmp(name, "/memfd:", 7) ||
	       !strncmp(name, "anon_inode:", 11) || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/SYSV", 5);
}

static Elf *find_binary(struct search *st, const struct symbol_dso *dso, struct strbuf *path,
			char **found, Elf **debug_out, char **debug_found)
{
	struct symbol_session *s = st->s;
	Elf *e;

	if (st->bid_size) {
		for (const char *const *d = s->opts.buildid_dirs; d && *d; d++) {
			build_id_path(path, *d, st->bid, st->bid_size, "");
			if (strbuf_failed(path)) {
				st->oom = true;
				return NULL;
			}
			if (is_dir(path->buf)) { /* perf >= 4.x: a directory with elf, debug */
				size_t base = path->len;

				strbuf_adds(path, "/debug");
				if (!*debug_out && (*debug_out = try_candidate(st, path->buf, true)))
					*debug_found = arena_strdup(&s->arena, path->buf);
				strbuf_setlen(path, base);
				strbuf_adds(path, "/elf");
			}
			if (strbuf_failed(path)) {
				st->oom = true;
				return NULL;
			}
			if ((e = try_candidate(st, path->buf, false))) {
				*found = arena_strdup(&s->arena, path->buf);
				return e;
			}
		}
	}
	if (dso->name[0] != '/')
		return NULL;
	size_t nlen = path_len(dso->name), flen = s->opts.symfs ? strlen(s->opts.symfs) : 0;

	if (nlen + flen >= SYMBOL_MAX_PATH) { /* no such file can exist */
		note_tried(st, dso->name);
		return NULL;
	}
	strbuf_reset(path);
	if (s->opts.symfs)
		strbuf_adds(path, s->opts.symfs);
	strbuf_add(path, dso->name, nlen);
	if (strbuf_failed(path)) {
		st->oom = true;
		return NULL;
	}
	if ((e = try_candidate(st, path->buf, false)))
		*found = arena_strdup(&s->arena, path->buf);
	return e;
}

/* The file name in .gnu_debuglink (NUL-terminated, then a CRC we do not check:
 * the build-id, when there is one, is checked instead). */
static bool debuglink(Elf *elf, char *out, size_t size)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, ".gnu_debuglink", &sh);
	Elf_Data *d;
	size_t n;

	if (!scn || !(d = elf_getdata(scn, NULL)) || !d->d_buf || !d->d_size)
		return false;
	n = strnlen(d->d_buf, d->d_size);
	if (n == 0 || n == d->d_size || n >= size || memchr(d->d_buf, '/', n))
		return false;
	memcpy(out, d->d_buf, n);
	out[n] = '\0';
	return true;
}

static Elf *find_debug(struct search *st, const struct symbol_dso *dso, Elf *bin,
		       const char *bin_path, struct strbuf *path, char **found)
{
	struct symbol_session *s = st->s;
	char link[DEBUGLINK_MAX];
	Elf *e;

	if (st->bid_size) {
		for (const char *const *d = s->opts.debug_dirs; d && *d; d++) {
			build_id_path(path, *d, st->bid, st->bid_size, ".debug");
			if (!strbuf_failed(path) && (e = try_candidate(st, path->buf, true)))
				goto ok;
		}
	}
	if (!bin || !debuglink(bin, link, sizeof(link)))
		return NULL;
	/* next to the binary, in .debug/ beside it, and under each debug root at the
	 * binary's recorded directory (gdb's order) */
	const char *slash = strrchr(bin_path, '/');
	size_t dir_len = slash ? (size_t)(slash - bin_path) : 0;
	const char *rslash = strrchr(dso->name, '/');
	size_t rdir_len = rslash ? (size_t)(rslash - dso->name) : 0;

	for (int i = 0; i < 2; i++) {
		strbuf_reset(path);
		strbuf_add(path, bin_path, dir_len);
		strbuf_addf(path, "%s/%s", i ? "/.debug" : "", link);
		if (!strbuf_failed(path) && strcmp(path->buf, bin_path) &&
		    (e = try_candidate(st, path->buf, true)))
			goto ok;
	}
	for (const char *const *d = s->opts.debug_dirs; d && *d; d++) {
		strbuf_reset(path);
		strbuf_adds(path, *d);
		strbuf_add(path, dso->name, rdir_len);
		strbuf_addf(path, "/%s", link);
		if (!strbuf_failed(path) && (e = try_candidate(st, path->buf, true)))
			goto ok;
	}
	return NULL;
ok:
	*found = arena_strdup(&s->arena, path->buf);
	return e;
}

/*
 * No debug info here: ask debuginfod (debuginfod.c) by the recorded build-id, else
 * the one of the binary found. The file it fetched is a candidate as any other
 * (its build-id must match).
 */
static Elf *fetch_debug(struct search *st, Elf *bin, char **found)
{
	uint8_t own[20];
	const uint8_t *bid = st->bid;
	size_t size = st->bid_size;
	char *path;
	Elf *e;

	if (!size && bin && (size = symbol_elf_build_id(bin, own)))
		bid = own;
	if (!size || !(path = symbol_debuginfod_find(st->s, bid, size)))
		return NULL;
	if (!st->bid_size) {
		st->bid = bid;
		st->bid_size = size;
	}
	e = try_candidate(st, path, true);
	if (st->bid == own) {
		st->bid = NULL;
		st->bid_size = 0;
	}
	if (e)
		*found = path;
	return e;
}

/*
 * The PT_LOAD segments. debug_only: elf is a separate debug file and the binary
 * was not found. objcopy --only-keep-debug keeps p_vaddr and p_memsz but zeroes
 * p_filesz and moves p_offset, so the file offsets of the binary are lost; we
 * assume the layout GNU ld and lld give PIEs, shared objects and executables alike
 * (each segment at file offset p_vaddr - the first segment's page), which holds
 * for the code segments of every binary built with them.
 */
/*
 * dwz moves what several debug files share into one file named by
 * .gnu_debugaltlink (a path, then the alt file's build-id). libdw opens an
 * absolute path itself; a relative one, a path under --symfs, or only the
 * build-id (DIR/.build-id/xx/yyyy.debug, where Debian's dbgsym packages link it)
 * need us. Without the alt file, names from it are missing; lines still work.
 */
static void set_alt(struct search *st, struct symbol_binary *b, struct strbuf *path)
{
	struct symbol_session *s = st->s;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	const char *name;
	size_t n, id_size;
	const uint8_t *id;
	Elf *alt = NULL;
	struct search ast = { .s = s, .tried = STRBUF_INIT };

	if (dwarf_getalt(b->dwarf.dw))
		return;
	scn = find_section(b->dbg_elf, ".gnu_debugaltlink", &sh);
	if (!scn || !(d = elf_getdata(scn, NULL)) || !d->d_buf || !d->d_size)
		return;
	name = d->d_buf;
	n = strnlen(name, d->d_size);
	if (n == 0 || n + 1 >= d->d_size)
		return;
	id = (const uint8_t *)name + n + 1;
	id_size = d->d_size - n - 1;
	if (id_size > 20)
		id_size = 20;
	ast.bid = id;
	ast.bid_size = id_size;
	if (name[0] == '/' && s->opts.symfs) {
		strbuf_reset(path);
		strbuf_addf(path, "%s%s", s->opts.symfs, name);
		if (!strbuf_failed(path))
			alt = try_candidate(&ast, path->buf, true);
	}
	if (!alt && name[0] != '/' && b->dbg_path && strrchr(b->dbg_path, '/')) {
		strbuf_reset(path);
		strbuf_add(path, b->dbg_path, (size_t)(strrchr(b->dbg_path, '/') - b->dbg_path) + 1);
		strbuf_adds(path, name);
		if (!strbuf_failed(path))
			alt = try_candidate(&ast, path->buf, true);
	}
	for (const char *const *dir = s->opts.debug_dirs; !alt && dir && *dir; dir++) {
		build_id_path(path, *dir, id, id_size, ".debug");
		if (!strbuf_failed(path))
			alt = try_candidate(&ast, path->buf, true);
	}
	strbuf_release(&ast.tried);
	if (!alt)
		return;
	b->dwarf.alt = dwarf_begin_elf(alt, DWARF_C_READ, NULL);
	if (!b->dwarf.alt) {
		elf_end(alt);
		return;
	}
	b->dwarf.alt_elf = alt;
	dwarf_setalt(b->dwarf.dw, b->dwarf.alt);
}

static int read_segments(struct symbol_binary *b, Elf *elf, bool debug_only)
{
	size_t phnum, alloc = 0;
	uint64_t base = UINT64_MAX;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (base == UINT64_MAX)
			base = ph.p_vaddr & ~(uint64_t)0xfff;
		if (debug_only && ph.p_filesz == 0 && ph.p_vaddr >= base) {
			ph.p_offset = ph.p_vaddr - base;
			ph.p_filesz = ph.p_memsz;
		}
		if (TDP_GROW(b->segs, alloc, b->nr_segs + 1))
			return TDP_ENOMEM;
		b->segs[b->nr_segs++] = (struct load_seg){
			.off = ph.p_offset, .filesz = ph.p_filesz, .vaddr = ph.p_vaddr,
			.memsz = ph.p_memsz, .exec = (ph.p_flags & PF_X) != 0,
		};
	}
	return 0;
}

bool symbol_dso_file_to_vaddr(const struct symbol_binary *b, uint64_t off, uint64_t *vaddr)
{
	const struct load_seg *best = NULL;

	for (size_t i = 0; i < b->nr_segs; i++) {
		const struct load_seg *g = &b->segs[i];

		if (off >= g->off && off - g->off < g->filesz && (!best || (g->exec && !best->exec)))
			best = g;
	}
	if (!best)
		return false;
	*vaddr = off - best->off + best->vaddr;
	return true;
}

static const char *set_note(struct symbol_session *s, const char *fmt, const char *a,
			    const char *b)
{
	strbuf_reset(&s->scratch);
	strbuf_addf(&s->scratch, fmt, a, b ? b : "");
	return strbuf_failed(&s->scratch) ? "out of memory" : arena_strdup(&s->arena, s->scratch.buf);
}

static void fail(struct symbol_session *s, struct symbol_dso *dso, struct search *st)
{
	if (st->oom || strbuf_failed(&st->tried)) {
		dso->status = SYMBOL_BAD_BINARY;
		dso->note = "out of memory while looking for the binary";
	} else if (st->mismatch) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "binary changed since recording: '%s' has build-id ",
			    st->mismatch_path ? st->mismatch_path : dso->name);
		if (st->mismatch_bid_size)
			add_hex(&sb, st->mismatch_bid, st->mismatch_bid_size);
		else
			strbuf_adds(&sb, "(none)");
		strbuf_adds(&sb, ", the recording has ");
		add_hex(&sb, st->bid, st->bid_size);
		dso->status = SYMBOL_BUILD_ID_MISMATCH;
		dso->note = strbuf_failed(&sb) ? "binary changed since recording"
					       : arena_strdup(&s->arena, sb.buf);
		strbuf_release(&sb);
	} else if (st->bad) {
		dso->status = SYMBOL_BAD_BINARY;
		dso->note = set_note(s, "'%s' is not a readable ELF file%s", st->bad_path, NULL);
	} else {
		dso->status = SYMBOL_NO_BINARY;
		dso->note = st->tried.len ? set_note(s, "binary not found (looked for %s)",
						     st->tried.buf, NULL)
					  : set_note(s, "binary not found ('%s' is not a file path)",
						     dso->name, NULL);
	}
	if (!dso->note)
		dso->note = "out of memory";
}

void symbol_dso_load(struct symbol_session *s, struct symbol_dso *dso)
{
	struct search st = { .s = s, .tried = STRBUF_INIT };
	struct strbuf path = STRBUF_INIT;
	struct symbol_binary *b = NULL;
	Elf *elf = NULL, *dbg = NULL;
	char *bin_path = NULL, *dbg_path = NULL;
	const struct bid_ent *be;

	if (dso->loaded)
		return;
	dso->loaded = true;
	if (dso->kernel) {
		symbol_kernel_load(s);
		dso->status = s->ksyms.ok ? SYMBOL_OK : SYMBOL_KERNEL_UNRESOLVED;
		dso->note = s->ksyms.note;
		return;
	}
	if (!dso->build_id_size && (be = symbol_bid_find(s, dso->name)) && be->size) {
		memcpy(dso->build_id, be->id, be->size);
		dso->build_id_size = be->size;
	}
	st.bid = dso->build_id;
	st.bid_size = dso->build_id_size;
	strbuf_init(&path, SYMBOL_MAX_PATH * 2);
	if (symbol_dso_is_anon(dso->name) && !st.bid_size) {
		dso->status = SYMBOL_NO_BINARY;
		dso->note = "anonymous memory (generated or JIT code)";
		goto out;
	}
	elf = find_binary(&st, dso, &path, &bin_path, &dbg, &dbg_path);
	if (elf && !(s->opts.flags & SYMBOL_NO_LINES) && has_dwarf(elf)) {
		if (dbg) {
			elf_end(dbg);
			dbg = NULL;
		}
	} else if (!dbg) {
		dbg = find_debug(&st, dso, elf, bin_path ? bin_path : dso->name, &path, &dbg_path);
		if (!dbg && !(s->opts.flags & SYMBOL_NO_LINES) && s->opts.debuginfod_client)
			dbg = fetch_debug(&st, elf, &dbg_path);
	}
	if (!elf && !dbg) {
		fail(s, dso, &st);
		goto out;
	}
	b = tdp_calloc(1, sizeof(*b));
	if (!b)
		goto oom;
	b->elf = elf;
	b->path = bin_path;
	b->dbg_elf = dbg ? dbg : (elf && has_dwarf(elf) ? elf : NULL);
	b->own_dbg = dbg != NULL;
	b->dbg_path = dbg ? dbg_path : (b->dbg_elf ? bin_path : NULL);
	elf = dbg = NULL;

	Elf *main_elf = b->elf ? b->elf : b->dbg_elf;
	GElf_Ehdr eh;

	if (!gelf_getehdr(main_elf, &eh)) {
		dso->status = SYMBOL_BAD_BINARY;
		dso->note = set_note(s, "'%s' has no readable ELF header%s",
				     b->path ? b->path : b->dbg_path, NULL);
		goto out;
	}
	b->e_machine = eh.e_machine;
	b->arch = symbol_arch_from_elf(eh.e_machine);
	b->is_exec = eh.e_type == ET_EXEC;
	if (read_segments(b, main_elf, b->elf == NULL))
		goto oom;
	if (b->elf) {
		size_t size = 0;
		char *raw = elf_rawfile(b->elf, &size);

		b->image = (const uint8_t *)raw;
		b->image_size = raw ? size : 0;
	}

	int n = 0;

	if (b->elf)
		n = symtab_read_elf(&b->symtab, b->elf, SHT_SYMTAB);
	if (n == 0 && b->dbg_elf && b->dbg_elf != b->elf)
		n = symtab_read_elf(&b->symtab, b->dbg_elf, SHT_SYMTAB);
	if (n == 0 && b->elf) {
		n = symtab_read_elf(&b->symtab, b->elf, SHT_DYNSYM);
		b->symtab_dynsym_only = n > 0;
	}
	if (n >= 0 && b->elf)
		n = symtab_add_plt(&b->symtab, b->elf, &s->arena, b->arch == SYMBOL_ARCH_AARCH64);
	if (n < 0)
		goto oom;
	symtab_finish(&b->symtab);
	b->has_dwarf = b->dbg_elf && !(s->opts.flags & SYMBOL_NO_LINES);
	if (b->has_dwarf) {
		b->dwarf.dw = dwarf_begin_elf(b->dbg_elf, DWARF_C_READ, NULL);
		b->has_dwarf = b->dwarf.dw != NULL;
		if (b->has_dwarf)
			set_alt(&st, b, &path);
	}
	dso->bin = b;
	b = NULL;
	dso->status = SYMBOL_OK;
	if (!dso->bin->has_dwarf && !(s->opts.flags & SYMBOL_NO_LINES))
		dso->note = "no debug info";
	goto out;
oom:
	dso->status = SYMBOL_BAD_BINARY;
	dso->note = "out of memory while reading the binary";
out:
	if (elf)
		elf_end(elf);
	if (dbg)
		elf_end(dbg);
	binary_free(b);
	strbuf_release(&path);
	strbuf_release(&st.tried);
}
