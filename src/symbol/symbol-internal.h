/*
 * symbol-internal.h: the structures shared by the files of src/symbol/. Included
 * only inside this folder; the contract is symbol.h.
 */
#ifndef TDPROF_SYMBOL_SYMBOL_INTERNAL_H
#define TDPROF_SYMBOL_SYMBOL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>

#include "base/strbuf.h"
#include "symbol/symbol.h"

/* ---------------------------------------------------------------------------
 * Arena: strings and small arrays handed out by a session, freed at once.
 * ------------------------------------------------------------------------- */

struct arena_chunk;

struct symbol_arena {
	struct arena_chunk *head;
};

void *arena_alloc(struct symbol_arena *a, size_t size);
char *arena_strndup(struct symbol_arena *a, const char *s, size_t n);
char *arena_strdup(struct symbol_arena *a, const char *s);
void arena_release(struct symbol_arena *a);

/* ---------------------------------------------------------------------------
 * Symbol tables (ours: sorted by address, searched by bisection)
 * ------------------------------------------------------------------------- */

struct symbol_sym {
	uint64_t addr;
	uint64_t size;           /* after fix-up: never 0 (up to the next symbol) */
	const char *name;        /* as in the table (points into the ELF image or a
				  * kallsyms buffer) */
	const char *demangled;   /* lazily: the display name (arena), NULL until asked */
	uint8_t rank;            /* preference among aliases (higher wins) */
};

struct symbol_symtab {
	struct symbol_sym *syms;
	size_t nr, alloc;
};

/* Sort, pick one symbol per address, give zero-sized symbols the room up to the
 * next one. */
void symtab_finish(struct symbol_symtab *t);
const struct symbol_sym *symtab_find(const struct symbol_symtab *t, uint64_t addr);
void symtab_release(struct symbol_symtab *t);

/* Read the function symbols of section type `type` (SHT_SYMTAB or SHT_DYNSYM).
 * Returns the number added (0 when there is no such table), or TDP_ENOMEM/ELIMIT. */
int symtab_read_elf(struct symbol_symtab *t, Elf *elf, unsigned type);
/* Add "name@plt" symbols for the PLT entries (names in a). Returns the number
 * added or TDP_ENOMEM. */
int symtab_add_plt(struct symbol_symtab *t, Elf *elf, struct symbol_arena *a, bool aarch64);

/* ---------------------------------------------------------------------------
 * DWARF: compile units, their function trees, lines
 * ------------------------------------------------------------------------- */

/* A function (DW_TAG_subprogram) or an inlined call (DW_TAG_inlined_subroutine). */
struct cu_node {
	Dwarf_Off die;           /* its DIE (for the name) */
	uint32_t call_file;      /* inlined calls: DW_AT_call_file index */
	uint32_t call_line;
	uint32_t call_column;
	bool inlined;
	bool name_done;
	const char *name;        /* cached display name (NULL: none) */
};

/* One pc range of a node, kept sorted by (parent, lo). */
struct cu_range {
	uint64_t lo, hi;
	uint32_t node;
	uint32_t parent;         /* node index, or the unit's root (nr_nodes) */
};

struct symbol_cu {
	Dwarf_Off off;           /* the unit DIE's offset */
	bool no_ranges;          /* the unit DIE names no pc ranges (aranges used) */
	bool indexed;            /* nodes/ranges built */
	bool index_failed;       /* the tree could not be built: lines only */
	struct cu_node *nodes;
	size_t nr_nodes;
	struct cu_range *ranges;
	size_t nr_ranges;
	uint32_t *child_begin;   /* nr_nodes + 1 entries: ranges of node i's children are
				  * ranges[child_begin[i] .. child_end[i]) */
	uint32_t *child_end;
};

struct cu_span {
	uint64_t lo, hi;
	uint32_t cu;
};

struct symbol_dwarf {
	Dwarf *dw;
	Dwarf *alt;              /* .gnu_debugaltlink file (dwz), or NULL */
	Elf *alt_elf;
	bool spans_built;
	struct symbol_cu *cus;
	size_t nr_cus;
	struct cu_span *spans;
	size_t nr_spans;
};

struct dw_lookup {
	const char *file;
	uint32_t line, column;
	struct symbol_frame frames[SYMBOL_MAX_INLINE_DEPTH];
	size_t nr_frames;
};

/* Look up vaddr: line table location, and with `inlines` the inline chain.
 * Returns 1 when the address is in a unit with line info, 0 when not, TDP_ENOMEM.
 * flags: SYMBOL_* demangling flags for the names. */
int symbol_dwarf_lookup(struct symbol_dwarf *d, struct symbol_arena *a, uint64_t vaddr,
			bool inlines, unsigned flags, struct dw_lookup *out);
void symbol_dwarf_release(struct symbol_dwarf *d);

/* ---------------------------------------------------------------------------
 * Binaries
 * ------------------------------------------------------------------------- */

struct load_seg {
	uint64_t off, filesz, vaddr, memsz;
	bool exec;
};

struct symbol_binary {
	Elf *elf;                /* the file with code (NULL when only debug info was found) */
	char *path;              /* its path (arena) */
	Elf *dbg_elf;            /* the file with DWARF (may be elf; NULL: none) */
	char *dbg_path;
	Elf *sym_elf;            /* the one whose symbol table we use */
	bool own_dbg;            /* dbg_elf is another file (elf_end it) */
	enum symbol_arch arch;
	unsigned e_machine;
	bool is_exec;            /* ET_EXEC */
	struct load_seg *segs;   /* PT_LOAD segments (of elf, or dbg_elf when no elf) */
	size_t nr_segs;
	const uint8_t *image;    /* elf's raw bytes (elf_rawfile), image_size of them */
	size_t image_size;
	struct symbol_symtab symtab;
	bool symtab_dynsym_only; /* the symbols came from .dynsym */
	struct symbol_dwarf dwarf;
	bool has_dwarf;
};

struct symbol_dso {
	const char *name;        /* as recorded (arena) */
	uint8_t build_id[20];
	uint8_t build_id_size;   /* 0: none recorded */
	bool kernel;
	bool loaded;             /* load attempted */
	enum symbol_status status; /* after loading: SYMBOL_OK when bin is usable */
	const char *note;        /* why not (arena), or "no debug info" */
	struct symbol_binary *bin;
	uint32_t hash_next;      /* chain in the session's DSO hash (index + 1; 0 ends) */
};

/* ---------------------------------------------------------------------------
 * Address spaces
 * ------------------------------------------------------------------------- */

struct map_ent {
	uint64_t start, end, pgoff;
	struct symbol_dso *dso;
};

struct symbol_maps {
	struct map_ent *v;       /* sorted by start, not overlapping */
	size_t nr, alloc;
};

struct symbol_proc {
	uint32_t pid;
	struct symbol_maps cur;
	struct symbol_maps *retired; /* older generations, oldest first */
	size_t nr_retired, alloc_retired;
};

struct bid_ent {
	const char *name;        /* arena */
	uint8_t id[20];
	uint8_t size;
	bool kernel;
};

/* ---------------------------------------------------------------------------
 * The session
 * ------------------------------------------------------------------------- */

struct kallsyms {
	bool loaded;             /* load attempted */
	bool ok;                 /* symbols usable */
	const char *note;        /* why not */
	char *buf;               /* the file (names point into it) */
	struct symbol_symtab symtab;
	int64_t delta;           /* recorded address - kallsyms address (KASLR) */
};

/* A process's JIT map, read on first use. */
struct symbol_perfmap {
	uint32_t pid;
	const char *path;     /* session arena */
	char *text;           /* the file (names point into it); NULL: none */
	size_t len;
	struct symbol_perfmap_sym *v; /* sorted by start */
	size_t nr;
	const char *note;     /* why it is not used (naming the file and line); NULL: fine or absent */
};

struct symbol_session {
	struct symbol_opts opts;
	struct symbol_arena arena;
	struct strbuf scratch;

	struct symbol_proc *procs;
	size_t nr_procs, alloc_procs;
	uint32_t *proc_hash;     /* open addressing: index + 1, 0 empty */
	size_t proc_hash_size;   /* power of two */
	struct symbol_proc kernel;

	struct symbol_dso **dsos;
	size_t nr_dsos, alloc_dsos;
	uint32_t *dso_hash;      /* buckets: index + 1 of the first DSO, chained */
	size_t dso_hash_size;

	struct bid_ent *bids;
	size_t nr_bids, alloc_bids;
	bool have_kernel_bid;
	uint8_t kernel_bid[20];
	uint8_t kernel_bid_size;
	uint64_t kernel_ref_addr; /* the recorded kernel map's pgoff (address of _text) */
	const char *kernel_ref_name; /* "_text" / "_stext" from "[kernel.kallsyms]_text" */

	struct kallsyms ksyms;

	/* capstone handles (csh) per enum symbol_arch, opened on first use */
	size_t cs[4];
	bool cs_opened[4];

	/* JIT maps of the processes whose anonymous code was asked for (perfmap.c) */
	struct symbol_perfmap *perfmaps;
	size_t nr_perfmaps, alloc_perfmaps;

	/* symbol_map()'s one-entry cache */
	bool cache_valid;
	uint32_t cache_pid;
	struct map_ent cache_map; /* a user map of cache_pid */
};

/* maps.c */
void symbol_maps_release(struct symbol_session *s);
bool symbol_find_map(struct symbol_session *s, uint32_t pid, uint64_t addr, struct map_ent *out,
		     bool *kernel);

/* session.c */
int symbol_session_add_build_id(struct symbol_session *s, const struct perfdata_record *rec,
				struct tdp_err *err);

/* dso.c */
struct symbol_dso *symbol_dso_get(struct symbol_session *s, const char *name, size_t len,
				  const uint8_t *bid, size_t bid_size, bool kernel,
				  struct tdp_err *err);
void symbol_dso_load(struct symbol_session *s, struct symbol_dso *dso);

/* dso.c: a map of no file (anonymous memory, JIT code, "//anon", "[anon:...]") */
bool symbol_dso_is_anon(const char *name);

/* perfmap.c: addr of process pid in anonymous memory, named by its JIT map into r
 * (true); false with r->note saying why not when the map has a problem. */
bool symbol_perfmap_resolve(struct symbol_session *s, uint32_t pid, uint64_t addr, struct symbol_result *r);
void symbol_perfmaps_release(struct symbol_session *s);

/* debuginfod.c: the path of the debug file of build-id bid, fetched by the session's
 * debuginfod client (session arena), or NULL. */
char *symbol_debuginfod_find(struct symbol_session *s, const uint8_t *bid, size_t bid_size);
void symbol_dsos_release(struct symbol_session *s);
const struct bid_ent *symbol_bid_find(const struct symbol_session *s, const char *name);
bool symbol_dso_file_to_vaddr(const struct symbol_binary *b, uint64_t off, uint64_t *vaddr);
/* Read the GNU build-id note of an ELF. Returns its size (0: none). */
size_t symbol_elf_build_id(Elf *elf, uint8_t out[20]);
bool symbol_build_id_eq(const uint8_t *a, size_t asz, const uint8_t *b, size_t bsz);
/* The display name of a symbol (demangled lazily into the arena). */
const char *symbol_sym_name(struct symbol_session *s, struct symbol_sym *sym);

/* kallsyms.c */
/* Parse kallsyms text into t (text symbols only, unsorted: symtab_finish() them;
 * names point into buf, which the caller keeps; buf[len] must be readable and buf
 * is modified: names are NUL-terminated in place).
 * Returns the number of symbols or TDP_ENOMEM/ELIMIT. */
int symbol_kallsyms_parse(char *buf, size_t len, struct symbol_symtab *t);
void symbol_kernel_load(struct symbol_session *s);
/* Parse ELF notes (as in /sys/kernel/notes) for the GNU build-id. */
size_t symbol_notes_build_id(const uint8_t *buf, size_t len, uint8_t out[20]);

/* disasm.c */
void symbol_disasm_close(struct symbol_session *s);

/* demangle.c */
const char *symbol_display_name(struct symbol_arena *a, struct strbuf *scratch, const char *name,
				unsigned flags);

#endif
