/*
 * exe.h: one executable read by path, for what `tdprof why` needs to know about
 * the workload: its function symbols (to tell the program's own code from the
 * dynamic loader and the libraries in valgrind's per-line costs), its source
 * files, compilation directories and compiler flags (DWARF), the instruction
 * addresses of a source line (the DWARF line table), and the disassembly around
 * them (symbol.h's capstone decoder).
 *
 * The file is untrusted input: libelf and libdw check its structures; every table
 * read here is bounded by the limits below, and a binary that cannot be read is
 * not an error of the diagnosis (symbol_exe_open() fails, the caller goes on
 * without it).
 *
 * Lifecycle: struct symbol_exe x; symbol_exe_open(&x, path, &err); queries;
 * symbol_exe_close(&x) (also after a failed open). Not thread-safe.
 */
#ifndef TDPROF_SYMBOL_EXE_H
#define TDPROF_SYMBOL_EXE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;
struct strbuf;
struct symbol_session;

#define SYMBOL_EXE_MAX_FUNCS (1u << 22)  /* function symbols kept */
#define SYMBOL_EXE_MAX_FILES (1u << 20)  /* distinct source files of the line tables */
#define SYMBOL_EXE_MAX_CUS (1u << 20)    /* compile units walked */
#define SYMBOL_EXE_MAX_RANGES 64         /* address ranges of one source line */
#define SYMBOL_EXE_MAX_PATH 4096         /* longest path handled */

struct symbol_exe_func {
	char *name;      /* as valgrind names it: demangled with parameters */
	uint64_t addr;   /* ELF virtual address */
	uint64_t size;   /* bytes (0 when the symbol gives none) */
};

struct symbol_exe_range {
	uint64_t lo, hi; /* [lo, hi): ELF virtual addresses */
};

struct symbol_exe {
	char *path;                   /* the file opened (owned) */
	int fd;
	void *elf;                    /* Elf * (libelf) */
	void *dwarf;                  /* Dwarf * (libdw); NULL without debug info */
	struct symbol_exe_func *funcs;  /* sorted by name (owned) */
	size_t nr_funcs;
	char **files;                 /* normalised source paths, sorted (owned) */
	size_t nr_files;
	struct symbol_session *sym;   /* for the disassembly (created on first use) */
	uint64_t map_base;            /* where the file is "mapped" in sym */
};

/**
 * Open the ELF file at path and read its function symbols (.symtab, else .dynsym)
 * and the source files of its DWARF line tables (none without -g). Returns 0;
 * TDP_ENOENT / TDP_EPERM / TDP_EIO (cannot open), TDP_EFORMAT (not an ELF file),
 * TDP_ELIMIT (beyond a SYMBOL_EXE_MAX_* limit) or TDP_ENOMEM, with err set.
 */
int symbol_exe_open(struct symbol_exe *x, const char *path, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * symbol_exe_open() without the debug info: the function symbols and the code
 * only (the DWARF queries below find nothing). For decoding, where reading the
 * line tables would be most of the cost.
 */
int symbol_exe_open_code(struct symbol_exe *x, const char *path, struct tdp_err *err)
	__attribute__((warn_unused_result));

/** Release everything; x may come from a failed symbol_exe_open() or be zeroed. */
void symbol_exe_close(struct symbol_exe *x);

/** The function called `name` (valgrind's spelling), or NULL. */
const struct symbol_exe_func *symbol_exe_find_func(const struct symbol_exe *x, const char *name);

/** True when `file` (normalised with symbol_path_normalise()) is in x's line tables. */
bool symbol_exe_has_file(const struct symbol_exe *x, const char *file);

/**
 * The address ranges of source line `line` of `file` (normalised) in the line
 * tables, with the line-0 code that directly follows them (see
 * symbol_exe_line0_owner()), into out[0..max); returns how many (0: none, or no
 * debug info).
 */
size_t symbol_exe_line_ranges(const struct symbol_exe *x, const char *file, uint64_t line, struct symbol_exe_range *out,
			    size_t max);

/**
 * The source line of `file` (normalised) that owns the line-0 code of `function`
 * (valgrind's spelling) holding a branch of the kind given (indirect: an indirect
 * jump or call; else a conditional branch). Line 0 marks code the compiler made
 * for no line of its own, such as clang's jump-table dispatch of a switch; its
 * owner is the nonzero line just before it in address order. Valgrind charges such
 * code to no line, so a mispredicted dispatch would have no site without this.
 * Returns the line, or 0 when there is none, no debug info, or two lines own such
 * code. Decodes instructions (opens the disassembler on first use).
 */
uint64_t symbol_exe_line0_owner(struct symbol_exe *x, const char *file, const char *function, bool indirect);

/**
 * The compiler flags recorded in DW_AT_producer of the compile unit of `file`
 * (gcc records them; clang only with -grecord-command-line): the -O, -f, -m and
 * -std options, space-separated, appended to sb. Returns true when any was found.
 */
bool symbol_exe_cflags(const struct symbol_exe *x, const char *file, struct strbuf *sb);

/** One instruction of symbol_exe_disasm(). */
struct symbol_exe_insn {
	uint64_t addr;       /* ELF virtual address */
	char text[200];      /* "jle 0x11d2" (Intel syntax) */
	uint8_t branch_type; /* enum branch_type (perfdata.h); 0: not a branch */
	bool in_line;        /* belongs to the source line asked for */
	bool target;         /* the branch the diagnosis points at */
};

#define SYMBOL_LISTING_MAX 48 /* instructions shown around a site */

struct symbol_listing {
	struct symbol_exe_insn v[SYMBOL_LISTING_MAX];
	size_t nr;
	char function[128];  /* the function decoded from; "" when unknown */
	uint64_t target;     /* address of the target instruction; 0 when none */
	size_t line_cond;    /* conditional branches in the line's code */
	size_t line_ind;     /* indirect jumps and calls in the line's code */
};

/**
 * Decode the instructions of line `line` of `file` with up to `context`
 * instructions before and after, marking the line's instructions and, as target,
 * `want` (an ELF virtual address) when it is one of the line's branches, else its
 * branch of the kind given (prefer_indirect: an indirect jump or call first, else a
 * conditional branch first; the other kind when the first is absent). A line with
 * several branches of the chosen kind and no `want` has no target (its per-line
 * counts cannot tell them apart): out->line_cond / line_ind say how many it holds.
 * Returns 0; TDP_ENOENT (no address for the line), TDP_ENOTSUP (no decoder for
 * this instruction set), TDP_EFORMAT or TDP_ENOMEM, with err set.
 */
int symbol_exe_disasm(struct symbol_exe *x, const char *file, uint64_t line, bool prefer_indirect, uint64_t want,
		    size_t context, struct symbol_listing *out, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Decode around ELF virtual address vaddr (code without line information: built
 * without -g, or stripped) with up to `context` instructions before and after,
 * marking vaddr as target when it is a branch. out->function is the symbol that
 * holds it (.symtab, else .dynsym), "" when none; without one, decoding starts at
 * func_start (an ELF virtual address at or before vaddr where the code starts, such
 * as valgrind's name for a stripped function, "0x...1152"; 0: at vaddr). Returns 0, TDP_ENOENT (vaddr is in
 * no loadable segment), TDP_ENOTSUP, TDP_EFORMAT or TDP_ENOMEM, with err set.
 */
int symbol_exe_disasm_addr(struct symbol_exe *x, uint64_t vaddr, uint64_t func_start, size_t context,
			   struct symbol_listing *out, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Up to max instructions from ELF virtual address vaddr on, decoded straight from
 * it (an address known to start an instruction, such as one a simulator executed:
 * no decoding from its function's start), into out[0..*nr), text and branch type
 * as symbol_exe_disasm_addr() gives them (in_line, target false). Stops early at
 * the end of the segment or at bytes that do not decode. Returns 0; TDP_EFORMAT
 * (vaddr is in no loadable segment, or nothing decodes there), TDP_ENOTSUP or
 * TDP_ENOMEM, with err set.
 */
int symbol_exe_decode(struct symbol_exe *x, uint64_t vaddr, size_t max, struct symbol_exe_insn *out, size_t *nr,
		      struct tdp_err *err) __attribute__((warn_unused_result));

/** The branch type (perfdata.h) of the instruction at ELF virtual address vaddr; 0: not a branch, or none. */
unsigned symbol_exe_branch_at(struct symbol_exe *x, uint64_t vaddr);

enum symbol_lang {
	SYMBOL_LANG_UNKNOWN = 0, /* no debug info, or a language not listed */
	SYMBOL_LANG_C,
	SYMBOL_LANG_CXX,
	SYMBOL_LANG_RUST,
};

/** What the debug info says of one function, for the commands suggested to measure it. */
struct symbol_exe_func_info {
	enum symbol_lang lang; /* its compile unit's DW_AT_language */
	int params;            /* formal parameters (C++'s implicit this counts); -1: unknown */
};

/**
 * The function named `name` (DW_AT_name: the unqualified name, without
 * parameters) defined in a compile unit of `file` (normalised; NULL: any). Returns
 * true when found (info filled), false without debug info or such a function.
 */
bool symbol_exe_func_info(const struct symbol_exe *x, const char *file, const char *name,
			  struct symbol_exe_func_info *info);

/** One branch instruction of a source line (symbol_exe_line_branches()). */
struct symbol_exe_branch {
	uint64_t addr;       /* ELF virtual address */
	uint8_t branch_type; /* enum branch_type (perfdata.h) */
	char text[200];      /* "jns 0x12c4" */
};

#define SYMBOL_EXE_MAX_LINE_BRANCHES 32

/**
 * The branch instructions (conditional, indirect, direct jumps and calls, returns)
 * of line `line` of `file`, in address order, into out[0..max). Returns how many
 * (0: none, no debug info or no decoder).
 */
size_t symbol_exe_line_branches(struct symbol_exe *x, const char *file, uint64_t line, struct symbol_exe_branch *out,
			       size_t max);

/**
 * The compilation directory (DW_AT_comp_dir) of the compile unit holding the ELF
 * virtual address vaddr, or NULL (no debug info, no such unit). Borrowed from x.
 */
const char *symbol_exe_comp_dir(const struct symbol_exe *x, uint64_t vaddr);

/**
 * Normalise a path lexically into buf (size bytes): "//" and "/./" collapse,
 * "dir/.." is removed ("/b/build/../src/a.c" -> "/b/src/a.c"). Symbolic links are
 * not followed (valgrind and DWARF spell paths the same way, so both sides compare
 * equal). Returns buf, or NULL when the result does not fit.
 */
char *symbol_path_normalise(const char *path, char *buf, size_t size);

#endif
