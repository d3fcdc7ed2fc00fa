/*
 * symbol.h: from a runtime address in a recorded process to the binary, the
 * function, the source line and the inline chain; demangling; disassembly.
 *
 * A symbol session holds the address spaces of a recording (the processes' maps,
 * built from perf.data MMAP/MMAP2/COMM/FORK records as perf builds them), a table
 * of the binaries they map (DSOs, found by path, under --symfs, and by build-id in
 * perf's build-id cache and in the system's debug directories), and, per binary,
 * caches built once on first use: a sorted table of its function symbols (ours:
 * libdw's symbol-by-address lookup is slow; from .symtab, else the debug file's,
 * else .dynsym; PLT stubs named "name@plt" as perf names them; a symbol without a
 * size runs to the next one), the ranges of its DWARF compile units
 * and, per compile unit touched, a tree of its functions and inlined calls. Source
 * lines come from libdw's per-unit line tables. Names are demangled with libiberty
 * (C++ Itanium ABI, Rust legacy and v0). Instructions are decoded with capstone
 * (x86-64, i386 and AArch64; the architecture comes from the ELF header).
 *
 * Addresses. A recorded address is runtime: (pid, addr). Its mapping gives the
 * file offset `addr - map.start + map.pgoff`; the PT_LOAD segment of the binary
 * holding that offset gives the ELF virtual address `off - p_offset + p_vaddr`
 * (formats.md §3.1). When the address cannot be resolved, perf prints the file
 * offset for a user address (`[.] 0x0000000003b48a20`: compare the MMAP2 records
 * and derived/...-report-mispredict.txt of the shared recordings: the chrome map of
 * pid 1659 at 0xb67c000, pgoff 0, turns 0x110c5508 into 0x5a49508) and the
 * address itself for a kernel address (`[k] 0xffffffff9dd022c4`); result.dso_addr
 * is that number. Kernel addresses are named from a kallsyms file only when it
 * belongs to the recorded kernel: opts.kallsyms (the user's --kallsyms FILE), or
 * opts.running_kallsyms when the running kernel's build-id (opts.running_notes)
 * equals the one recorded for [kernel.kallsyms].
 *
 * Kernel maps: pid -1 or a kernel cpumode. The main one, "[kernel.kallsyms]_text",
 * is kept with its recorded range as perf 6.1 keeps it (perf 3.4 recorded it as
 * [0, 0xffffffff9fffffff): a user address no map of its process holds then
 * prints as [k], and address 0 as "[k] 0000000000000000", exactly as perf does).
 * A process's own maps are always searched first.
 *
 * Separate debug files: by build-id (DIR/.build-id/xx/yyyy.debug), by
 * .gnu_debuglink (next to the binary, in .debug/ beside it, under each debug
 * root), and dwz's .gnu_debugaltlink common files.
 *
 * Nothing here reads the environment: the caller passes the directories to search
 * (perf's build-id cache is "$HOME/.debug": the command line expands it).
 *
 * Lifecycle:
 *   1. struct symbol_opts o; symbol_opts_init(&o); set symfs, buildid_dirs, flags...
 *   2. symbol_session_new(&s, &o, &err);
 *   3. symbol_session_add_features(s, perfdata_features(p), &err) (build-ids);
 *      then, while walking the records, symbol_session_add_record(s, &rec, &err)
 *      (MMAP, MMAP2, COMM, FORK and HEADER_BUILD_ID are used, the rest ignored);
 *      or symbol_session_add_mmap() for maps that come from elsewhere;
 *   4. symbol_map() per sample if wanted (cheap: no file is read), and after
 *      aggregation one symbol_resolve() over the distinct addresses;
 *   5. symbol_disasm(), symbol_count_insns(), symbol_branch_type() as needed;
 *   6. symbol_session_free(s).
 *
 * Ownership: every string and array a session hands out (result names, files,
 * frames, DSO paths) belongs to the session and stays valid until
 * symbol_session_free(). Binaries are opened read-only (mmap) on first use and
 * stay open until then. A session is not thread-safe; use one per thread.
 *
 * Hostile input: the ELF and DWARF of a binary may be anything (truncated,
 * garbage, a different file than the one recorded): libelf/libdw check the
 * structures, and everything read around them (symbol names, note headers,
 * segment ranges, code bytes, kallsyms lines) is bounds-checked here against the
 * named limits below. A binary that cannot be read gives a result with a status
 * and a note, never an error of the whole resolve.
 */
#ifndef TDPROF_SYMBOL_SYMBOL_H
#define TDPROF_SYMBOL_SYMBOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;
struct strbuf;
struct perfdata_record;
struct perfdata_features;

/* ---------------------------------------------------------------------------
 * Named limits
 * ------------------------------------------------------------------------- */

/** Most processes (pids) in one session. */
#define SYMBOL_MAX_PROCS (1u << 20)
/** Most executable maps of one process (and of the kernel). */
#define SYMBOL_MAX_MAPS (1u << 20)
/** Most distinct binaries (path + build-id) in one session. */
#define SYMBOL_MAX_DSOS (1u << 18)
/** Most function symbols kept for one binary. */
#define SYMBOL_MAX_SYMBOLS (1u << 25)
/** Longest symbol name demangled (longer ones are shown mangled). libiberty's
 * demangler keeps 2 components per character on the stack and recurses as deep as
 * the name nests; by default it refuses names over 1024 characters (its
 * DEMANGLE_RECURSION_LIMIT), too short for C++ templates, so we lift its limit
 * and impose this one. */
#define SYMBOL_MAX_DEMANGLE 4096
/** Longest path built while looking for a binary. */
#define SYMBOL_MAX_PATH 4096
/** Deepest inline chain reported (frames beyond it are dropped). */
#define SYMBOL_MAX_INLINE_DEPTH 64
/** Deepest DWARF DIE nesting walked in a compile unit. */
#define SYMBOL_MAX_DIE_DEPTH 256
/** Most functions and inlined calls indexed in one compile unit. */
#define SYMBOL_MAX_CU_NODES (1u << 22)
/** Largest kallsyms file read. */
#define SYMBOL_MAX_KALLSYMS (256u << 20)
/** Largest kernel notes file read (/sys/kernel/notes). */
#define SYMBOL_MAX_NOTES (1u << 20)
/** Most bytes decoded from a function's start to reach an address (symbol_disasm). */
#define SYMBOL_MAX_DECODE (4u << 20)
/** Longest range symbol_count_insns() decodes. */
#define SYMBOL_MAX_BLOCK (1u << 16)
/** Most instructions before or after the address symbol_disasm() returns. */
#define SYMBOL_MAX_CONTEXT 4096

/** The lowest kernel address on 64-bit machines (x86-64 and AArch64 with 48-bit VA). */
#define SYMBOL_KERNEL_START 0xffff800000000000ull

/** "Any process": kernel addresses resolve; user addresses are unmapped. */
#define SYMBOL_PID_NONE UINT32_MAX

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

enum symbol_flags {
	SYMBOL_NO_LINES = 1u << 0,          /* no DWARF: no file:line, no inline chain */
	SYMBOL_NO_INLINES = 1u << 1,        /* file:line but no inline chain */
	SYMBOL_NO_DEMANGLE = 1u << 2,       /* names as in the symbol table */
	SYMBOL_DEMANGLE_NO_PARAMS = 1u << 3, /* "ns::f" as perf prints it, not "ns::f(int)" */
};

struct symbol_opts {
	const char *symfs;                 /* --symfs DIR: binaries are read at DIR + path
					    * (and nowhere else); NULL: none */
	const char *const *buildid_dirs;   /* perf build-id caches ("$HOME/.debug"):
					    * DIR/.build-id/xx/yyyy... is the binary (a file, or
					    * a directory holding `elf` and `debug`);
					    * NULL-terminated list, NULL: none */
	const char *const *debug_dirs;     /* system debug roots ("/usr/lib/debug"):
					    * DIR/.build-id/xx/yyyy.debug and DIR/<dir of the
					    * binary>/<debuglink>; NULL-terminated, NULL: none */
	const char *kallsyms;              /* --kallsyms FILE: trusted for the recorded
					    * kernel; NULL: none */
	const char *running_kallsyms;      /* the running kernel's symbols ("/proc/kallsyms"),
					    * used only when its build-id (running_notes) matches
					    * the recording's; NULL: never */
	const char *running_notes;         /* the running kernel's ELF notes
					    * ("/sys/kernel/notes"); NULL: none */
	unsigned flags;                    /* enum symbol_flags */
	const char *perf_map_dir;          /* where JITs write perf-PID.map ("/tmp", as perf):
					    * anonymous code of process PID is named from it;
					    * NULL: never */
	const char *debuginfod_client;     /* libdebuginfod's client program (debuginfod-find)
					    * asked, by build-id, for the debug info of a binary
					    * that has none here; NULL: never (no network) */
	char *const *debuginfod_envp;      /* its environment (DEBUGINFOD_URLS and the cache
					    * path are read by the client from there); NULL: none */
};

/**
 * Fill o with the defaults: no symfs, no build-id cache, debug_dirs
 * {"/usr/lib/debug"}, running_kallsyms "/proc/kallsyms", running_notes
 * "/sys/kernel/notes", flags 0, perf_map_dir "/tmp", no debuginfod. The strings
 * are static.
 */
void symbol_opts_init(struct symbol_opts *o);

/* ---------------------------------------------------------------------------
 * Sessions and address spaces
 * ------------------------------------------------------------------------- */

struct symbol_session;

/**
 * Make a session. opts is copied (the strings and lists it points to are borrowed
 * and must outlive the session); NULL means symbol_opts_init()'s defaults.
 * Returns 0 and sets *out (free with symbol_session_free()); TDP_ENOMEM (then *out
 * is untouched).
 */
int symbol_session_new(struct symbol_session **out, const struct symbol_opts *opts,
		       struct tdp_err *err) __attribute__((warn_unused_result));

/** Free the session, its maps, its binaries and every string it handed out. NULL is fine. */
void symbol_session_free(struct symbol_session *s);

/**
 * Take the recording's BUILD_ID feature (file name -> build-id, used for maps whose
 * record carries none) and the kernel's build-id. f is borrowed (copied from).
 * Returns 0 or TDP_ENOMEM / TDP_ELIMIT.
 */
int symbol_session_add_features(struct symbol_session *s, const struct perfdata_features *f,
				struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Apply one record to the address spaces, in file order, as perf does:
 *   MMAP, MMAP2: add an executable map to the process (pid -1 or a kernel cpumode:
 *     the kernel's maps); data maps (misc MMAP_DATA) are ignored; a map that
 *     overlaps older ones replaces the overlapped parts;
 *   FORK: a new process (pid != ppid) starts with a copy of its parent's maps;
 *   COMM with COMM_EXEC: the process's maps are retired (exec replaced its image;
 *     retired maps are still searched, after the current ones, so that samples
 *     taken before the exec and resolved later find their binary; the last 16
 *     images are kept);
 *   HEADER_BUILD_ID (pipe mode): as the BUILD_ID feature;
 *   anything else: ignored.
 * rec is borrowed (strings are copied). Returns 0, TDP_ENOMEM or TDP_ELIMIT (a
 * named limit: too many processes, maps or binaries).
 */
int symbol_session_add_record(struct symbol_session *s, const struct perfdata_record *rec,
			      struct tdp_err *err) __attribute__((warn_unused_result));

/** One executable mapping, for symbol_session_add_mmap(). */
struct symbol_mmap {
	uint32_t pid;              /* the process; UINT32_MAX (pid -1): the kernel */
	bool kernel;               /* a kernel map ([kernel.kallsyms], modules) */
	uint64_t start, len, pgoff;
	const char *path;          /* the file as recorded ("/usr/lib/libc.so.6",
				    * "[kernel.kallsyms]_text", "[vdso]"); borrowed */
	const uint8_t *build_id;   /* build_id_size bytes, or NULL */
	size_t build_id_size;      /* at most 20 */
};

/** Add a map as MMAP2 would. Returns 0, TDP_EINVAL (len 0, path NULL), TDP_ENOMEM, TDP_ELIMIT. */
int symbol_session_add_mmap(struct symbol_session *s, const struct symbol_mmap *m,
			    struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Map the executable segments of the ELF file at path into process pid as the
 * loader would at load bias `bias` (runtime address = bias + ELF virtual address;
 * 0 for a file valgrind reports in its own addresses), so that symbol_resolve()
 * and symbol_disasm() take the file's virtual addresses plus bias. Reads the
 * program headers only (elfmap.c). Returns 0; TDP_ENOENT (cannot open),
 * TDP_EFORMAT (not an ELF file, or no executable segment), or as
 * symbol_session_add_mmap().
 */
int symbol_session_add_elf(struct symbol_session *s, uint32_t pid, const char *path, uint64_t bias,
			   struct tdp_err *err) __attribute__((warn_unused_result));

/** The GNU build-id of the ELF file at path into out; returns its size (0: none, or unreadable). */
size_t symbol_file_build_id(const char *path, uint8_t out[20]);

struct symbol_dso;

/** Where a runtime address falls (symbol_map()). */
struct symbol_loc {
	const struct symbol_dso *dso; /* the binary's entry (compare pointers to group
				       * addresses by binary); NULL when unmapped */
	const char *path;             /* the file as recorded; NULL when unmapped */
	uint64_t file_off;            /* addr - map.start + map.pgoff (user maps) */
	uint64_t dso_addr;            /* perf's DSO-relative address: file_off for a user
				       * map, the address itself for the kernel */
	bool kernel;                  /* a kernel address (perf's [k]) */
};

/**
 * Find the map holding (pid, addr): the process's maps, then its retired maps,
 * then the kernel's; an address at or above SYMBOL_KERNEL_START with no kernel map
 * is still a kernel address. Reads no file and allocates nothing; fast enough to
 * call per branch entry (a one-entry cache of the last map found).
 * Returns true and fills *out when a map holds the address; false (and *out says
 * only whether the address is a kernel one) otherwise.
 */
bool symbol_map(struct symbol_session *s, uint32_t pid, uint64_t addr, struct symbol_loc *out);

/* ---------------------------------------------------------------------------
 * Symbolization
 * ------------------------------------------------------------------------- */

/** A runtime address in a recorded process. */
struct symbol_addr {
	uint64_t addr;
	uint32_t pid;  /* the sample's pid; SYMBOL_PID_NONE when unknown */
};

enum symbol_status {
	SYMBOL_OK = 0,               /* a function symbol holds the address */
	SYMBOL_UNMAPPED,             /* no map holds the address */
	SYMBOL_NO_BINARY,            /* mapped, but its binary was not found (note says where
				      * it was looked for) or cannot be read ([anon], [heap]) */
	SYMBOL_BUILD_ID_MISMATCH,    /* the file found has another build-id than the one
				      * recorded: the binary changed since recording */
	SYMBOL_BAD_BINARY,           /* the file is not a usable ELF (note says why) */
	SYMBOL_NO_SYMBOL,            /* the binary was read; no function symbol holds it */
	SYMBOL_KERNEL_UNRESOLVED,    /* a kernel address without the recorded kernel's
				      * kallsyms (note says why) */
};

/** One level of an inline chain. */
struct symbol_frame {
	const char *function;   /* demangled name; NULL when DWARF names none */
	const char *file;       /* source file as DWARF names it; NULL when unknown */
	uint32_t line;          /* 0 when unknown */
	uint32_t column;        /* 0 when unknown */
};

/**
 * What symbol_resolve() found for one address. Strings and frames are the
 * session's. When no debug info exists, file is NULL, line 0, nr_frames 0 and
 * note says "no debug info".
 */
struct symbol_result {
	enum symbol_status status;
	bool kernel;            /* perf's [k] (else [.]) */
	const char *dso;        /* the mapped file as recorded; NULL when unmapped */
	const char *binary;     /* the file read for symbols; NULL when none */
	uint64_t dso_addr;      /* the address perf prints when unresolved (see above) */
	uint64_t vaddr;         /* the ELF virtual address (kernel: the kallsyms address);
				 * 0 when no binary was read */
	const char *function;   /* the function symbol, demangled; NULL when unknown */
	uint64_t func_vaddr;    /* its start (same space as vaddr) */
	uint64_t func_size;     /* its size (from the symbol, or up to the next symbol) */
	uint64_t offset;        /* vaddr - func_vaddr */
	const char *file;       /* innermost source location (the line table's) */
	uint32_t line;
	uint32_t column;
	const struct symbol_frame *frames; /* the inline chain, innermost first: frames[0]
				 * is the function whose code is at the address (file:line as
				 * above); frames[i+1] is the function that inlined frames[i],
				 * at the call site; the last is the out-of-line function */
	size_t nr_frames;       /* 0 without debug info; 1 when nothing was inlined */
	const char *note;       /* why something is missing ("no debug info",
				 * "binary changed since recording", ...); NULL when complete */
};

/**
 * Symbolize nr addresses into out[0..nr). The caller gives the distinct addresses
 * after aggregation (sorted and unique is cheapest, but any order and duplicates
 * work: addresses are grouped by binary and sorted here, and an address shared by
 * several processes mapping one binary is looked up once). Each binary is loaded
 * on first use and its tables are cached for later calls.
 * Returns 0 with every out[i] filled (an address that cannot be resolved has a
 * status and a note: that is not an error); TDP_ENOMEM (out is then partly filled
 * and must not be used); TDP_EINVAL (addrs or out NULL with nr > 0). Memory that
 * runs out while a binary is being opened marks that binary unreadable for the
 * session (SYMBOL_BAD_BINARY, note "out of memory ...") rather than failing the
 * call. Blocks on file reads; allocates (the session keeps the results' strings).
 */
int symbol_resolve(struct symbol_session *s, const struct symbol_addr *addrs, size_t nr,
		   struct symbol_result *out, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Append perf's text for a branch report's symbol column: "[.] main", "[k] do_idle",
 * "[.] 0x0000000003b48a20" (unresolved user: dso_addr, 16 hex digits),
 * "[k] 0xffffffff9dd022c4" (unresolved kernel). The name is r->function as
 * resolved (use SYMBOL_DEMANGLE_NO_PARAMS for perf's spelling).
 */
void symbol_format_perf(const struct symbol_result *r, struct strbuf *sb);

/** A short English text for a status ("binary not found", ...). Never NULL. */
const char *symbol_status_name(enum symbol_status st);

/* ---------------------------------------------------------------------------
 * Demangling
 * ------------------------------------------------------------------------- */

/**
 * Demangle a C++ (Itanium ABI: "_Z...") or Rust (legacy "_ZN...17h<hash>E" or v0
 * "_R...") symbol name into sb (appended). flags: SYMBOL_DEMANGLE_NO_PARAMS drops
 * C++ parameter lists. Names longer than SYMBOL_MAX_DEMANGLE are not demangled.
 * Returns 1: demangled into sb; 0: not a mangled name (sb untouched);
 * TDP_ENOMEM: sb failed. Thread-safe (no global demangling style is used).
 */
int symbol_demangle(const char *name, unsigned flags, struct strbuf *sb)
	__attribute__((warn_unused_result));

/* ---------------------------------------------------------------------------
 * Disassembly
 * ------------------------------------------------------------------------- */

/** Instruction sets symbol_disasm() and symbol_decode() know. */
enum symbol_arch {
	SYMBOL_ARCH_UNKNOWN = 0,
	SYMBOL_ARCH_X86_64,
	SYMBOL_ARCH_I386,
	SYMBOL_ARCH_AARCH64,
};

/** The longest instruction (x86: 15 bytes). */
#define SYMBOL_INSN_MAX_BYTES 16

/** One decoded instruction. */
struct symbol_insn {
	uint64_t addr;          /* runtime address (in the process the caller named) */
	uint64_t vaddr;         /* ELF virtual address (branch targets in operands are in
				 * this space, as objdump prints them) */
	uint8_t size;           /* bytes */
	uint8_t bytes[SYMBOL_INSN_MAX_BYTES];
	uint8_t branch_type;    /* enum branch_type (perfdata.h); BRANCH_TYPE_UNKNOWN when
				 * the instruction is not a branch */
	bool target;            /* the instruction at the address asked for */
	char mnemonic[32];      /* "jne", "b.ne", "call" */
	char operands[160];     /* Intel syntax on x86 */
};

/** The instructions around an address (symbol_disasm()). */
struct symbol_disasm {
	struct symbol_insn *insns; /* nr of them, in address order; heap (released by
				    * symbol_disasm_release()) */
	size_t nr;
	size_t target;             /* index of the instruction at the address asked for */
	enum symbol_arch arch;
	const char *function;      /* the function decoded from (session's); NULL when
				    * no symbol holds the address */
	uint64_t func_addr;        /* its runtime start (0 when no symbol) */
};

#define SYMBOL_DISASM_INIT { NULL, 0, 0, SYMBOL_ARCH_UNKNOWN, NULL, 0 }

/**
 * The instruction as text, "mnemonic operands", in its runtime address space: a
 * direct branch's target (capstone prints it as an ELF virtual address, as objdump
 * does) is moved by in->addr - in->vaddr, so that a listing of runtime addresses
 * never shows "0x5555555551ec jb 0x1586". Written into buf (size bytes, truncated).
 */
void symbol_insn_text_runtime(const struct symbol_insn *in, char *buf, size_t size);

/** Free d->insns and leave d as after SYMBOL_DISASM_INIT. */
void symbol_disasm_release(struct symbol_disasm *d);

/**
 * Decode up to `before` instructions before (pid, addr) and `after` after it
 * (both at most SYMBOL_MAX_CONTEXT), within its function: decoding starts at the
 * function's start (so x86 instruction boundaries are right) and stops at its
 * end; without a function symbol it starts at addr. d must be released or fresh
 * (SYMBOL_DISASM_INIT); it is overwritten.
 * Returns 0; TDP_ENOENT (unmapped, no binary, build-id mismatch, kernel without
 * vmlinux: the message says which); TDP_ENOTSUP (an instruction set capstone is
 * not set up for here, e.g. 32-bit Arm); TDP_EFORMAT (addr is not an instruction
 * boundary when decoding from the function start, or its bytes are not in the
 * file: message names the binary and the address); TDP_ENOMEM.
 */
int symbol_disasm(struct symbol_session *s, uint32_t pid, uint64_t addr, size_t before,
		  size_t after, struct symbol_disasm *d, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * symbol_disasm(), decoded at the runtime addresses: branch targets in the
 * operands are in the process's address space, as the addresses of a recording
 * are (one address space in a listing beside them). vaddr is still the ELF's.
 */
int symbol_disasm_runtime(struct symbol_session *s, uint32_t pid, uint64_t addr, size_t before,
			  size_t after, struct symbol_disasm *d, struct tdp_err *err)
	__attribute__((warn_unused_result));

/**
 * Up to n instructions from (pid, addr) on, decoded straight from addr (the caller
 * knows it starts an instruction, such as an address a simulator executed: no
 * decoding from the function's start), at the ELF addresses as symbol_disasm();
 * stops early at the end of the segment's bytes or at bytes that do not decode.
 * d->target is 0, d->function NULL. Returns 0; TDP_EFORMAT (nothing decodes at
 * addr); the other errors of symbol_disasm().
 */
int symbol_disasm_run(struct symbol_session *s, uint32_t pid, uint64_t addr, size_t n, struct symbol_disasm *d,
		      struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Count the instructions of the straight-line range [start, end] of process pid:
 * decoding from start, the instruction at end included (a basic block from a
 * branch target to the next taken branch's source). Both must be in one map and
 * end - start < SYMBOL_MAX_BLOCK.
 * Returns 0 and sets *out; TDP_EINVAL (end < start); TDP_ELIMIT (the range is
 * longer than SYMBOL_MAX_BLOCK); TDP_ENOENT (no code for it: see symbol_disasm);
 * TDP_EFORMAT (decoding from start does not land on end, or hits bytes that do not
 * decode); TDP_ENOTSUP; TDP_ENOMEM.
 */
int symbol_count_insns(struct symbol_session *s, uint32_t pid, uint64_t start, uint64_t end,
		       uint64_t *out, struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * The branch type (enum branch_type) of the instruction at (pid, addr), for
 * recordings without -j save_type: decodes the one instruction there.
 * Returns 0 and sets *out (BRANCH_TYPE_UNKNOWN when it is not a branch); the
 * errors of symbol_disasm().
 */
int symbol_branch_type(struct symbol_session *s, uint32_t pid, uint64_t addr, unsigned *out,
		       struct tdp_err *err) __attribute__((warn_unused_result));

/**
 * Decode the one instruction at code[0..len) located at address vaddr for arch.
 * Returns 1 and fills *out (addr = vaddr, target false); 0 when the bytes do not
 * decode; TDP_ENOTSUP (arch unknown); TDP_ENOMEM. Needs no session.
 */
int symbol_decode(enum symbol_arch arch, const uint8_t *code, size_t len, uint64_t vaddr,
		  struct symbol_insn *out) __attribute__((warn_unused_result));

/** The instruction set of an ELF e_machine (EM_X86_64 ...); SYMBOL_ARCH_UNKNOWN otherwise. */
enum symbol_arch symbol_arch_from_elf(unsigned e_machine);

/** "x86_64", "i386", "aarch64", "unknown". */
const char *symbol_arch_name(enum symbol_arch arch);

/* ---------------------------------------------------------------------------
 * JIT maps (perfmap.c): /tmp/perf-PID.map, "START SIZE NAME" a line, START and
 * SIZE hex (0x optional), NAME the rest of the line; a session reads the map of a
 * process whose anonymous code it is asked to name (symbol_opts.perf_map_dir).
 * ------------------------------------------------------------------------- */

#define SYMBOL_PERFMAP_MAX_BYTES (256u << 20) /* a map larger than this is not read */
#define SYMBOL_PERFMAP_MAX_NAME 4096          /* longest symbol name accepted */

struct symbol_perfmap_sym {
	uint64_t start, size; /* runtime addresses of the process */
	const char *name;     /* into the parsed text */
	size_t line;          /* 1-based, in the file */
};

/**
 * Parse the perf map text buf[0..len) (untrusted; buf[len] must be a NUL; lines
 * are cut in place, the names point into buf): *out (heap, sorted by start, then
 * by line: of two symbols at one start, the later line is the one found; tdp_free)
 * and *nr.
 * Returns 0, TDP_ENOMEM, or TDP_EFORMAT with *bad_line the first line that is not
 * "START SIZE NAME" (the whole map is then refused: *out NULL).
 */
int symbol_perfmap_parse(char *buf, size_t len, struct symbol_perfmap_sym **out, size_t *nr, size_t *bad_line)
	__attribute__((warn_unused_result));

/** The symbol of v[0..nr) (as symbol_perfmap_parse() sorted it) holding addr, or NULL. */
const struct symbol_perfmap_sym *symbol_perfmap_find(const struct symbol_perfmap_sym *v, size_t nr, uint64_t addr);

#endif
