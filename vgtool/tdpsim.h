/*
 * tdpsim.h: tdprof's valgrind tool, shared by its files (see README.md).
 *
 * Copyright (C) 2025 the tdprof authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The tool is linked with valgrind's core (GPL-2.0), so this directory is
 * GPL-2.0-or-later; tdprof itself (MIT) only starts it as a program.
 *
 * What runs where:
 *   tdpsim.c     options, start-up, the fork handler, the end of the run;
 *   instrument.c the instrumentation of each superblock and the helpers it calls;
 *   insn.c       the tool's memory and its table of guest instructions;
 *   x86.c        the instruction encodings the tool reads itself (Jcc, prefetches);
 *   output.c     the cost file (callgrind's format, one per process).
 * The machine itself (caches, prefetchers, interval model, BTB, predictor) is
 * tdprof's freestanding src/sim/mach.h, compiled in.
 */
#ifndef TDPSIM_H
#define TDPSIM_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "sim/mach.h"

#define TDPSIM_VERSION "1"

/* One guest instruction, shared by every superblock that holds it. */
struct tdp_insn {
	Addr addr;
	struct tdp_insn *next;  /* hash chain */
	UInt obj, file, fn;     /* name ids (tdp_name) */
	UInt line;
	PtrdiffT bias;          /* its object's load bias: addr - bias is its address in the ELF file */
	Bool unnamed;           /* no symbol: fn is named when it first runs (tdp_name_unnamed) */
	uint64_t ev[SIM_MEV_NR]; /* its events; Ir is folded in from the segments at the end */
};

/* A fetch line or window of a segment: its address, the instruction that owns its events, and its size. */
struct tdp_fetch {
	Addr addr;
	struct tdp_insn *owner;
	UInt n;                 /* instructions in it */
};

/* How a segment ends. */
enum tdp_end {
	TDP_END_NONE = 0,   /* falls through, or a side exit that is no branch */
	TDP_END_COND,       /* a conditional branch: the exit is taken when its guard is 1 */
	TDP_END_JUMP,       /* a direct jump to `target` */
	TDP_END_CALL,       /* a direct call */
	TDP_END_ICALL,      /* an indirect call (target given at run time) */
	TDP_END_IJUMP,      /* an indirect jump */
	TDP_END_RET,        /* a return */
};

/*
 * A segment: the instructions of a superblock between two exits. All of them
 * run when the segment's end is reached, so one count stands for each one's Ir.
 */
struct tdp_seg {
	ULong count;            /* times it ran to its end */
	UInt ninsn;
	struct tdp_insn **insn;
	UInt nlines, nwins;
	struct tdp_fetch *lines; /* cache lines it fetches */
	struct tdp_fetch *wins;  /* µop-cache windows it fetches */
	enum tdp_end end;
	Bool taken_if_guard;    /* TDP_END_COND: the guard true means the branch is taken */
	struct tdp_insn *br;    /* the branch instruction (its events) */
	Addr target;            /* direct branches */
	Addr fall;              /* the address after the branch */
	struct tdp_seg *next_seg; /* all segments, for the end of the run */
	Bool unnamed;           /* an instruction of it has no symbol yet */
};

/* A load or store: the data its helper needs. */
struct tdp_site {
	struct tdp_insn *in;
	UInt idx;               /* its instruction's index in the segment (seq = tdp_seq + idx) */
	UInt size;
};

/* The state of the run. */
extern struct sim_mach *tdp_mach;
extern ULong tdp_seq;             /* instructions before the current segment */
extern struct tdp_seg *tdp_segs;  /* every segment made */

/* Options. */
extern const HChar *tdp_clo_out;
extern HChar tdp_desc[512];        /* the machine, for the file's desc: line */
extern struct sim_mach_config tdp_cfg;

/* instrument.c */
IRSB *tdp_instrument(VgCallbackClosure *closure, IRSB *sb_in, const VexGuestLayout *layout,
		     const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy);

/* x86.c */
/** True when the instruction at a (len bytes) is a Jcc, LOOP or JRCXZ. */
Bool tdp_x86_is_cond_branch(Addr a, UInt len);

/* A memory operand: base + (index << scale) + disp; a register -1 when absent. */
struct tdp_amode {
	Int base, index;   /* 0..15: RAX..R15 */
	UInt scale;
	Long disp;         /* RIP-relative operands come with base -1 and the absolute address here */
};

/** True when the instruction at a is a software prefetch; its operand into *am. */
Bool tdp_x86_prefetch(Addr a, UInt len, struct tdp_amode *am);

/* insn.c */
void tdp_insn_init(void);
struct tdp_insn *tdp_insn_get(Addr a);
/** Every instruction in turn (fn called on each); for the output and the fork handler. */
void tdp_insn_each(void (*fn)(struct tdp_insn *, void *), void *ctx);
ULong tdp_insn_count(void);
void *tdp_alloc(SizeT n);   /* zeroed, never freed */
/* Calls and returns as they run, so that code without a symbol is named after the
 * function it was called into ("0x%016lx" of its entry, as callgrind names it). */
void tdp_fn_call(Addr target);
void tdp_fn_return(void);
void tdp_name_unnamed(struct tdp_insn **v, UInt n);

/* Names (object, file, function), interned. */
UInt tdp_name(const HChar *s);
const HChar *tdp_name_str(UInt id);

/* output.c */
void tdp_write(void);

#endif
