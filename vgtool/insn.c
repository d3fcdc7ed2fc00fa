/*
 * insn.c: tdpsim's memory and its table of guest instructions, each with its
 * object, file, function and line from valgrind's debug information (see tdpsim.h).
 *
 * Copyright (C) 2025 the tdprof authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "tdpsim.h"

#define INSN_BUCKETS (1u << 18)
#define CHUNK (4u << 20)

static UChar *chunk;
static SizeT chunk_left;

void *tdp_alloc(SizeT n)
{
	void *p;

	n = (n + 15) & ~(SizeT)15;
	if (n > chunk_left) {
		SizeT sz = n > CHUNK ? n : CHUNK;

		chunk = VG_(malloc)("tdpsim.chunk", sz);
		VG_(memset)(chunk, 0, sz);
		chunk_left = sz;
	}
	p = chunk;
	chunk += n;
	chunk_left -= n;
	return p;
}

static struct tdp_insn **insn_tab;
static ULong nr_insns;

void tdp_insn_init(void)
{
	insn_tab = VG_(malloc)("tdpsim.insns", INSN_BUCKETS * sizeof(*insn_tab));
	VG_(memset)(insn_tab, 0, INSN_BUCKETS * sizeof(*insn_tab));
}

static UInt hash_addr(Addr a)
{
	ULong h = (ULong)a * 0x9e3779b97f4a7c15ull;

	return (UInt)(h >> 46) & (INSN_BUCKETS - 1);
}

/*
 * The load bias of the object holding a: addresses are written as the object's own
 * (its ELF addresses), as callgrind writes them. An address the debug information
 * does not cover (a stub valgrind put in the object's range) takes the bias its
 * object had before.
 */
static PtrdiffT object_bias(DiEpoch ep, Addr a, UInt obj)
{
	static struct {
		UInt obj;
		PtrdiffT bias;
	} seen[64];
	static UInt nr_seen;
	DebugInfo *di = VG_(find_DebugInfo)(ep, a);
	PtrdiffT bias;
	UInt i;

	for (i = 0; i < nr_seen && seen[i].obj != obj; i++)
		;
	if (!di)
		return i < nr_seen ? seen[i].bias : 0;
	bias = VG_(DebugInfo_get_text_bias)(di);
	if (i == nr_seen && nr_seen < 64) {
		seen[nr_seen].obj = obj;
		seen[nr_seen++].bias = bias;
	}
	return bias;
}

/* The instruction at a, made on first sight with its debug information. */
struct tdp_insn *tdp_insn_get(Addr a)
{
	UInt h = hash_addr(a);
	struct tdp_insn *in;
	const HChar *s, *dir;
	DiEpoch ep = VG_(current_DiEpoch)();
	UInt line = 0;

	for (in = insn_tab[h]; in; in = in->next)
		if (in->addr == a)
			return in;
	in = tdp_alloc(sizeof(*in));
	in->addr = a;
	in->next = insn_tab[h];
	insn_tab[h] = in;
	nr_insns++;
	in->obj = tdp_name(VG_(get_objname)(ep, a, &s) ? s : "???");
	in->bias = object_bias(ep, a, in->obj);
	if (VG_(get_fnname)(ep, a, &s)) {
		in->fn = tdp_name(s);
	} else {
		/* no symbol (a stripped object): named when it first runs, after the function
		 * it was called into (tdp_name_unnamed()), as callgrind names such code */
		in->fn = tdp_name("???");
		in->unnamed = True;
	}
	if (VG_(get_filename_linenum)(ep, a, &s, &dir, &line)) {
		if (dir && dir[0] && s[0] != '/') {
			HChar *full = VG_(malloc)("tdpsim.path", VG_(strlen)(dir) + VG_(strlen)(s) + 2);

			VG_(sprintf)(full, "%s/%s", dir, s);
			in->file = tdp_name(full);
			VG_(free)(full);
		} else {
			in->file = tdp_name(s);
		}
		in->line = line;
	} else {
		in->file = tdp_name("???");
	}
	return in;
}

void tdp_insn_each(void (*fn)(struct tdp_insn *, void *), void *ctx)
{
	for (UInt h = 0; h < INSN_BUCKETS; h++)
		for (struct tdp_insn *in = insn_tab[h]; in; in = in->next)
			fn(in, ctx);
}

ULong tdp_insn_count(void)
{
	return nr_insns;
}

/* The function entries of the calls in progress: code without a symbol is named after the innermost. */
#define FN_STACK 256
static Addr fn_stack[FN_STACK];
static UInt fn_depth;

void tdp_fn_call(Addr target)
{
	fn_stack[fn_depth % FN_STACK] = target;
	fn_depth++;
}

void tdp_fn_return(void)
{
	if (fn_depth)
		fn_depth--;
}

void tdp_name_unnamed(struct tdp_insn **v, UInt n)
{
	Addr entry = fn_depth ? fn_stack[(fn_depth - 1) % FN_STACK] : 0;
	HChar name[32];

	for (UInt i = 0; i < n; i++) {
		struct tdp_insn *in = v[i];
		Addr at;

		if (!in->unnamed)
			continue;
		/* the entry's address in its object when the entry is in the same object, else the instruction's */
		at = entry && tdp_insn_get(entry)->obj == in->obj ? entry : in->addr;
		VG_(sprintf)(name, "0x%016lx", (unsigned long)(at - (Addr)in->bias));
		in->fn = tdp_name(name);
		in->unnamed = False;
	}
}
