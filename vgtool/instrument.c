/*
 * instrument.c: tdpsim's instrumentation of each superblock, and the helpers the
 * instrumented code calls (see tdpsim.h).
 *
 * Copyright (C) 2025 the tdprof authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A superblock is cut into segments at its side exits. Each segment ends in one
 * call, which counts the segment (its instructions' Ir, folded in at the end),
 * fetches its cache lines and µop-cache windows, and simulates the branch that
 * ends it. Each load, store and software prefetch is one call with its address
 * (and a load's value, for the dependence of a pointer chase). Nothing else is
 * instrumented, which keeps the tool near cachegrind's speed (bench/RESULTS.md).
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "tdpsim.h"

#define MAX_SB_INSNS 512  /* IMarks in one superblock (VEX cuts at 60 by default; unrolling is off) */

struct sim_mach *tdp_mach;
ULong tdp_seq;
struct tdp_seg *tdp_segs;

/* ---- the helpers ---- */

static void seg_run(struct tdp_seg *s)
{
	if (s->unnamed) {
		tdp_name_unnamed(s->insn, s->ninsn);
		s->unnamed = False;
	}
	s->count++;
	for (UInt i = 0; i < s->nlines; i++)
		sim_mach_fetch(tdp_mach, s->lines[i].owner->ev, s->lines[i].addr);
	for (UInt i = 0; i < s->nwins; i++)
		sim_mach_window(tdp_mach, s->wins[i].owner->ev, s->wins[i].addr, s->wins[i].n);
}

/* The end of a segment at a side exit (guard: whether the exit is taken). */
static void h_exit(struct tdp_seg *s, ULong guard)
{
	seg_run(s);
	if (s->end == TDP_END_COND) {
		Bool taken = (guard != 0) == s->taken_if_guard;

		sim_mach_cond(tdp_mach, s->br->ev, tdp_seq + s->ninsn - 1, s->br->addr, taken, s->target);
	}
	tdp_seq += s->ninsn;
}

/* The end of a superblock (next: where it goes). */
static void h_end(struct tdp_seg *s, ULong next)
{
	ULong seq = tdp_seq + (s->ninsn ? s->ninsn - 1 : 0);

	seg_run(s);
	switch (s->end) {
	case TDP_END_JUMP:
		sim_mach_jump(tdp_mach, s->br->ev, s->br->addr, s->target);
		break;
	case TDP_END_CALL:
		sim_mach_call(tdp_mach, s->br->ev, seq, s->br->addr, s->target, s->fall, False);
		tdp_fn_call(s->target);
		break;
	case TDP_END_ICALL:
		sim_mach_call(tdp_mach, s->br->ev, seq, s->br->addr, next, s->fall, True);
		tdp_fn_call(next);
		break;
	case TDP_END_IJUMP:
		sim_mach_ijump(tdp_mach, s->br->ev, seq, s->br->addr, next);
		break;
	case TDP_END_RET:
		sim_mach_ret(tdp_mach, s->br->ev, seq, s->br->addr, next);
		tdp_fn_return();
		break;
	default:
		break;
	}
	tdp_seq += s->ninsn;
}

static void h_load(struct tdp_site *s, Addr a, ULong value)
{
	sim_mach_load(tdp_mach, s->in->ev, tdp_seq + s->idx, s->in->addr, a, s->size, value);
}

static void h_store(struct tdp_site *s, Addr a)
{
	sim_mach_store(tdp_mach, s->in->ev, tdp_seq + s->idx, a, s->size);
}

static void h_prefetch(struct tdp_site *s, Addr a)
{
	sim_mach_prefetch(tdp_mach, s->in->ev, tdp_seq + s->idx, a);
}

/* ---- building the instrumented superblock ---- */

struct build {
	IRSB *sb;
	IRTypeEnv *tyenv_in;
	struct tdp_insn *insn[MAX_SB_INSNS]; /* the current segment's instructions */
	UChar len[MAX_SB_INSNS];
	UInt n;
	struct tdp_insn *last;               /* the latest IMark's instruction */
	Addr last_addr;
	UInt last_len;
	IRExpr *gpr[16];                     /* the atom last PUT to each integer register in this superblock */
	Bool gpr_bad[16];                    /* a partial write since: unknown */
};

static IRExpr *widen(struct build *b, IRExpr *e, IRType ty)
{
	IROp op;
	IRTemp t;

	switch (ty) {
	case Ity_I64:
		return e;
	case Ity_I32:
		op = Iop_32Uto64;
		break;
	case Ity_I16:
		op = Iop_16Uto64;
		break;
	case Ity_I8:
		op = Iop_8Uto64;
		break;
	default:
		return mkIRExpr_HWord(0);
	}
	t = newIRTemp(b->sb->tyenv, Ity_I64);
	addStmtToIRSB(b->sb, IRStmt_WrTmp(t, IRExpr_Unop(op, e)));
	return IRExpr_RdTmp(t);
}

static struct tdp_site *site(struct build *b, UInt size)
{
	struct tdp_site *s = tdp_alloc(sizeof(*s));

	s->in = b->last;
	s->idx = b->n ? b->n - 1 : 0;
	s->size = size;
	return s;
}

/* A helper's address as VEX takes it (through an integer: ISO C has no function-to-object pointer cast). */
#define FN(f) ((void *)(HWord)(f))

static void call(struct build *b, const HChar *name, void *fn, IRExpr **args, IRExpr *guard)
{
	IRDirty *di = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);

	if (guard)
		di->guard = guard;
	addStmtToIRSB(b->sb, IRStmt_Dirty(di));
}

static void add_load(struct build *b, IRExpr *addr, UInt size, IRExpr *value, IRType vty, IRExpr *guard)
{
	IRExpr *v = value ? widen(b, value, vty) : mkIRExpr_HWord(0);

	if (!b->last)
		return;
	call(b, "tdp_load", FN(h_load), mkIRExprVec_3(mkIRExpr_HWord((HWord)site(b, size)), addr, v), guard);
}

static void add_store(struct build *b, IRExpr *addr, UInt size, IRExpr *guard)
{
	if (!b->last)
		return;
	call(b, "tdp_store", FN(h_store), mkIRExprVec_2(mkIRExpr_HWord((HWord)site(b, size)), addr), guard);
}

static UInt size_of(IRType ty)
{
	Int s = sizeofIRType(ty);

	return s > 0 ? (UInt)s : 8;
}

/* Append the fetch units (lines, or µop-cache windows) the instructions cover. */
static struct tdp_fetch *units(struct build *b, UInt shift, UInt *nr)
{
	struct tdp_fetch tmp[MAX_SB_INSNS * 2];
	struct tdp_fetch *out;
	UInt k = 0;

	for (UInt i = 0; i < b->n; i++) {
		Addr first = b->insn[i]->addr >> shift, last = (b->insn[i]->addr + (b->len[i] ? b->len[i] - 1 : 0)) >> shift;

		for (Addr u = first; u <= last && k < MAX_SB_INSNS * 2; u++) {
			if (k && tmp[k - 1].addr == (u << shift)) {
				if (u == first)
					tmp[k - 1].n++;
				continue;
			}
			tmp[k].addr = u << shift;
			tmp[k].owner = b->insn[i];
			tmp[k].n = u == first;
			k++;
		}
	}
	*nr = k;
	if (!k)
		return NULL;
	out = tdp_alloc(k * sizeof(*out));
	VG_(memcpy)(out, tmp, k * sizeof(*out));
	return out;
}

static UInt log2_of(UInt x)
{
	UInt s = 0;

	while ((1u << s) < x)
		s++;
	return s;
}

/* Close the current segment: its record, its instructions, lines and windows. */
static struct tdp_seg *close_seg(struct build *b)
{
	struct tdp_seg *s = tdp_alloc(sizeof(*s));

	s->ninsn = b->n;
	if (b->n) {
		s->insn = tdp_alloc(b->n * sizeof(*s->insn));
		VG_(memcpy)(s->insn, b->insn, b->n * sizeof(*s->insn));
	}
	for (UInt i = 0; i < b->n; i++)
		s->unnamed |= b->insn[i]->unnamed;
	s->lines = units(b, log2_of(tdp_cfg.l1i.line), &s->nlines);
	if (tdp_cfg.dsb_windows)
		s->wins = units(b, log2_of(tdp_cfg.dsb_window), &s->nwins);
	s->next_seg = tdp_segs;
	tdp_segs = s;
	b->n = 0;
	return s;
}

static const Int gpr_off[16] = {
	offsetof(VexGuestAMD64State, guest_RAX), offsetof(VexGuestAMD64State, guest_RCX),
	offsetof(VexGuestAMD64State, guest_RDX), offsetof(VexGuestAMD64State, guest_RBX),
	offsetof(VexGuestAMD64State, guest_RSP), offsetof(VexGuestAMD64State, guest_RBP),
	offsetof(VexGuestAMD64State, guest_RSI), offsetof(VexGuestAMD64State, guest_RDI),
	offsetof(VexGuestAMD64State, guest_R8),  offsetof(VexGuestAMD64State, guest_R9),
	offsetof(VexGuestAMD64State, guest_R10), offsetof(VexGuestAMD64State, guest_R11),
	offsetof(VexGuestAMD64State, guest_R12), offsetof(VexGuestAMD64State, guest_R13),
	offsetof(VexGuestAMD64State, guest_R14), offsetof(VexGuestAMD64State, guest_R15),
};

static void note_put(struct build *b, Int off, IRExpr *data)
{
	IRType ty = typeOfIRExpr(b->sb->tyenv, data);
	Int sz = sizeofIRType(ty);

	for (UInt r = 0; r < 16; r++) {
		if (off + sz <= gpr_off[r] || off >= gpr_off[r] + 8)
			continue;
		if (off == gpr_off[r] && ty == Ity_I64) {
			b->gpr[r] = data;
			b->gpr_bad[r] = False;
		} else {
			b->gpr_bad[r] = True;
		}
	}
}

/* A register's value at this point of the superblock, or NULL when unknown. */
static IRExpr *gpr_value(struct build *b, UInt r)
{
	IRTemp t;

	if (b->gpr_bad[r])
		return NULL;
	if (b->gpr[r])
		return b->gpr[r];
	/* not written in this superblock: the guest state holds it (read into a temporary: flat IR) */
	t = newIRTemp(b->sb->tyenv, Ity_I64);
	addStmtToIRSB(b->sb, IRStmt_WrTmp(t, IRExpr_Get(gpr_off[r], Ity_I64)));
	return IRExpr_RdTmp(t);
}

static IRExpr *add64(struct build *b, IRExpr *x, IRExpr *y)
{
	IRTemp t = newIRTemp(b->sb->tyenv, Ity_I64);

	addStmtToIRSB(b->sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_Add64, x, y)));
	return IRExpr_RdTmp(t);
}

/*
 * A software prefetch's address: VEX drops the instruction (its address computation
 * is dead code), so tdp_x86_prefetch() reads its ModRM byte and the address is built
 * here from the registers. NULL when it is no prefetch or a register is unknown.
 */
static IRExpr *prefetch_addr(struct build *b, Addr a, UInt len)
{
	struct tdp_amode am;
	IRExpr *e = NULL, *r;

	if (!tdp_x86_prefetch(a, len, &am))
		return NULL;
	if (am.base >= 0 && !(e = gpr_value(b, (UInt)am.base)))
		return NULL;
	if (am.index >= 0) {
		IRTemp t = newIRTemp(b->sb->tyenv, Ity_I64);

		if (!(r = gpr_value(b, (UInt)am.index)))
			return NULL;
		addStmtToIRSB(b->sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_Shl64, r, IRExpr_Const(IRConst_U8(am.scale)))));
		e = e ? add64(b, e, IRExpr_RdTmp(t)) : IRExpr_RdTmp(t);
	}
	if (!e)
		return mkIRExpr_HWord((HWord)am.disp);
	return am.disp ? add64(b, e, IRExpr_Const(IRConst_U64((ULong)am.disp))) : e;
}

static void imark(struct build *b, Addr a, UInt len)
{
	IRExpr *pf;

	b->last = tdp_insn_get(a);
	b->last_addr = a;
	b->last_len = len;
	if (b->n < MAX_SB_INSNS) {
		b->insn[b->n] = b->last;
		b->len[b->n] = (UChar)len;
		b->n++;
	}
	if ((pf = prefetch_addr(b, a, len)) != NULL)
		call(b, "tdp_prefetch", FN(h_prefetch), mkIRExprVec_2(mkIRExpr_HWord((HWord)site(b, 1)), pf), NULL);
}

/* True when statement i is the last one of its instruction (the next is an IMark, or none). */
static Bool last_of_insn(const IRSB *sb, Int i)
{
	for (Int k = i + 1; k < sb->stmts_used; k++) {
		if (sb->stmts[k]->tag == Ist_NoOp)
			continue;
		return sb->stmts[k]->tag == Ist_IMark;
	}
	return True;
}

static void exit_stmt(struct build *b, const IRSB *in, Int i, IRStmt *st)
{
	struct tdp_seg *s;
	IRConst *dst = st->Ist.Exit.dst;
	Bool branch = b->last && st->Ist.Exit.jk == Ijk_Boring && dst->tag == Ico_U64 && last_of_insn(in, i) &&
		      tdp_x86_is_cond_branch(b->last_addr, b->last_len);
	IRTemp g = newIRTemp(b->sb->tyenv, Ity_I64);

	s = close_seg(b);
	if (branch) {
		s->end = TDP_END_COND;
		s->br = b->last;
		s->fall = b->last_addr + b->last_len;
		s->target = (Addr)dst->Ico.U64;
		s->taken_if_guard = s->target != s->fall;
	}
	addStmtToIRSB(b->sb, IRStmt_WrTmp(g, IRExpr_Unop(Iop_1Uto64, st->Ist.Exit.guard)));
	call(b, "tdp_exit", FN(h_exit), mkIRExprVec_2(mkIRExpr_HWord((HWord)s), IRExpr_RdTmp(g)), NULL);
}

static void end_sb(struct build *b, IRSB *sb_in)
{
	IRExpr *next = sb_in->next;
	IRJumpKind jk = sb_in->jumpkind;
	Bool is_const = next->tag == Iex_Const;
	Addr to = is_const ? (Addr)next->Iex.Const.con->Ico.U64 : 0;
	Addr fall = b->last_addr + b->last_len;
	enum tdp_end end = TDP_END_NONE;
	struct tdp_seg *s;

	if (b->last) {
		if (jk == Ijk_Call)
			end = is_const ? TDP_END_CALL : TDP_END_ICALL;
		else if (jk == Ijk_Ret)
			end = TDP_END_RET;
		else if (jk == Ijk_Boring && !is_const)
			end = TDP_END_IJUMP;
		else if (jk == Ijk_Boring && to != fall && to != b->last_addr)
			end = TDP_END_JUMP; /* not a fall-through, not a rep-prefixed instruction going round */
	}
	if (!b->n && end == TDP_END_NONE)
		return;
	s = close_seg(b);
	s->end = end;
	s->br = b->last;
	s->fall = fall;
	s->target = to;
	call(b, "tdp_end", FN(h_end), mkIRExprVec_2(mkIRExpr_HWord((HWord)s), is_const ? mkIRExpr_HWord(to) : next), NULL);
}

static void dirty_mem(struct build *b, IRDirty *d)
{
	if (d->mFx == Ifx_None || !d->mAddr)
		return;
	if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
		add_load(b, d->mAddr, (UInt)d->mSize, NULL, Ity_INVALID, NULL);
	if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
		add_store(b, d->mAddr, (UInt)d->mSize, NULL);
}

static UInt loadg_size(IRLoadGOp cvt)
{
	switch (cvt) {
	case ILGop_IdentV128: return 16;
	case ILGop_Ident64: return 8;
	case ILGop_Ident32: return 4;
	case ILGop_16Uto32: case ILGop_16Sto32: return 2;
	case ILGop_8Uto32: case ILGop_8Sto32: return 1;
	default: return 8;
	}
}

IRSB *tdp_instrument(VgCallbackClosure *closure, IRSB *sb_in, const VexGuestLayout *layout,
		     const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy)
{
	struct build b;
	Int i = 0;

	(void)closure;
	(void)layout;
	(void)vge;
	(void)archinfo_host;
	(void)hWordTy;
	if (gWordTy != Ity_I64)
		VG_(tool_panic)("tdpsim: only 64-bit guests are supported");
	VG_(memset)(&b, 0, sizeof(b));
	b.sb = deepCopyIRSBExceptStmts(sb_in);
	b.tyenv_in = sb_in->tyenv;
	/* what comes before the first instruction (no-ops, the preamble) */
	while (i < sb_in->stmts_used && sb_in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(b.sb, sb_in->stmts[i++]);
	for (; i < sb_in->stmts_used; i++) {
		IRStmt *st = sb_in->stmts[i];

		switch (st->tag) {
		case Ist_IMark:
			addStmtToIRSB(b.sb, st);
			imark(&b, (Addr)st->Ist.IMark.addr, st->Ist.IMark.len);
			break;
		case Ist_WrTmp:
			addStmtToIRSB(b.sb, st);
			if (st->Ist.WrTmp.data->tag == Iex_Load) {
				IRExpr *ld = st->Ist.WrTmp.data;
				IRType ty = ld->Iex.Load.ty;

				add_load(&b, ld->Iex.Load.addr, size_of(ty), IRExpr_RdTmp(st->Ist.WrTmp.tmp), ty, NULL);
			}
			break;
		case Ist_Store:
			add_store(&b, st->Ist.Store.addr, size_of(typeOfIRExpr(sb_in->tyenv, st->Ist.Store.data)), NULL);
			addStmtToIRSB(b.sb, st);
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;

			add_store(&b, sg->addr, size_of(typeOfIRExpr(sb_in->tyenv, sg->data)), sg->guard);
			addStmtToIRSB(b.sb, st);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;

			addStmtToIRSB(b.sb, st);
			add_load(&b, lg->addr, loadg_size(lg->cvt), NULL, Ity_INVALID, lg->guard);
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			UInt sz = size_of(typeOfIRExpr(sb_in->tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);

			add_load(&b, cas->addr, sz, NULL, Ity_INVALID, NULL);
			add_store(&b, cas->addr, sz, NULL);
			addStmtToIRSB(b.sb, st);
			break;
		}
		case Ist_LLSC:
			if (st->Ist.LLSC.storedata)
				add_store(&b, st->Ist.LLSC.addr, size_of(typeOfIRExpr(sb_in->tyenv, st->Ist.LLSC.storedata)),
					  NULL);
			else
				add_load(&b, st->Ist.LLSC.addr, size_of(typeOfIRTemp(sb_in->tyenv, st->Ist.LLSC.result)),
					 NULL, Ity_INVALID, NULL);
			addStmtToIRSB(b.sb, st);
			break;
		case Ist_Dirty:
			dirty_mem(&b, st->Ist.Dirty.details);
			addStmtToIRSB(b.sb, st);
			break;
		case Ist_Put:
			note_put(&b, st->Ist.Put.offset, st->Ist.Put.data);
			addStmtToIRSB(b.sb, st);
			break;
		case Ist_PutI:
			for (UInt r = 0; r < 16; r++)
				b.gpr_bad[r] = True; /* a guest-state array: not the integer registers, but be safe */
			addStmtToIRSB(b.sb, st);
			break;
		case Ist_Exit:
			exit_stmt(&b, sb_in, i, st);
			addStmtToIRSB(b.sb, st);
			break;
		default:
			addStmtToIRSB(b.sb, st);
			break;
		}
	}
	end_sb(&b, sb_in);
	return b.sb;
}
