/*
 * output.c: tdpsim's cost file, one per process, in callgrind's format
 * ("Callgrind Format Specification", valgrind 3.19) so that tdprof's parser
 * (src/sim/parse.c) reads it as it reads callgrind --dump-instr=yes: positions
 * `instr line`, one cost line per instruction, object/file/function names
 * compressed as `ob=(N) name`, and a `totals:` line equal to their sum. Also the
 * names of the objects, files and functions the instructions belong to.
 *
 * Copyright (C) 2025 the tdprof authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "tdpsim.h"

/* ---- names ---- */

#define NAME_BUCKETS 4096u

struct name {
	struct name *next;
	UInt id;
	HChar s[];
};

static struct name *name_tab[NAME_BUCKETS];
static const HChar **name_by_id; /* [id], id from 1 */
static UInt nr_names, names_alloc;

static UInt hash_str(const HChar *s)
{
	UInt h = 2166136261u;

	while (*s)
		h = (h ^ (UChar)*s++) * 16777619u;
	return h;
}

UInt tdp_name(const HChar *s)
{
	UInt h = hash_str(s) % NAME_BUCKETS;
	struct name *n;
	SizeT len;

	for (n = name_tab[h]; n; n = n->next)
		if (!VG_(strcmp)(n->s, s))
			return n->id;
	len = VG_(strlen)(s);
	n = tdp_alloc(sizeof(*n) + len + 1);
	VG_(memcpy)(n->s, s, len + 1);
	if (nr_names + 2 > names_alloc) {
		names_alloc = names_alloc ? names_alloc * 2 : 1024;
		name_by_id = VG_(realloc)("tdpsim.names", name_by_id, names_alloc * sizeof(*name_by_id));
	}
	n->id = ++nr_names;
	name_by_id[n->id] = n->s;
	n->next = name_tab[h];
	name_tab[h] = n;
	return n->id;
}

const HChar *tdp_name_str(UInt id)
{
	return id && id <= nr_names ? name_by_id[id] : "???";
}

/* ---- a buffered file ---- */

struct out {
	Int fd;
	UInt len;
	Bool failed;
	HChar buf[1 << 16];
};

static void out_flush(struct out *o)
{
	UInt off = 0;

	while (off < o->len && !o->failed) {
		Int w = VG_(write)(o->fd, o->buf + off, (Int)(o->len - off));

		if (w <= 0)
			o->failed = True;
		else
			off += (UInt)w;
	}
	o->len = 0;
}

static void out_str(struct out *o, const HChar *s)
{
	while (*s) {
		if (o->len == sizeof(o->buf))
			out_flush(o);
		o->buf[o->len++] = *s++;
	}
}

/* A name on one line: a newline or carriage return in it would end the line early. */
static void out_name(struct out *o, const HChar *s)
{
	HChar c[2] = { 0, 0 };

	for (; *s; s++) {
		c[0] = (*s == '\n' || *s == '\r') ? '?' : *s;
		out_str(o, c);
	}
}

static void out_u64(struct out *o, ULong v)
{
	HChar b[24];

	VG_(sprintf)(b, "%llu", v);
	out_str(o, b);
}

/* ---- the file ---- */

static void fold_ir(void)
{
	for (struct tdp_seg *s = tdp_segs; s; s = s->next_seg) {
		for (UInt i = 0; i < s->ninsn; i++)
			s->insn[i]->ev[SIM_MEV_IR] += s->count;
		s->count = 0;
	}
}

struct collect {
	struct tdp_insn **v;
	ULong nr;
};

static Bool any_cost(const struct tdp_insn *in)
{
	for (UInt e = 0; e < SIM_MEV_NR; e++)
		if (in->ev[e])
			return True;
	return False;
}

static void collect_one(struct tdp_insn *in, void *ctx)
{
	struct collect *c = ctx;

	if (any_cost(in))
		c->v[c->nr++] = in;
}

static Int cmp_insn(const void *x, const void *y)
{
	const struct tdp_insn *a = *(const struct tdp_insn *const *)x, *b = *(const struct tdp_insn *const *)y;

	if (a->obj != b->obj)
		return a->obj < b->obj ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return a->addr - (Addr)a->bias < b->addr - (Addr)b->bias ? -1 : a->addr - (Addr)a->bias > b->addr - (Addr)b->bias;
}

/* "ob=(N) name" the first time, "ob=(N)" after. */
static void out_spec(struct out *o, const HChar *spec, UInt id, Bool *seen)
{
	HChar b[32];

	VG_(sprintf)(b, "%s=(%u)", spec, id);
	out_str(o, b);
	if (!seen[id]) {
		seen[id] = True;
		out_str(o, " ");
		out_name(o, tdp_name_str(id));
	}
	out_str(o, "\n");
}

/* An event's value as written: exposed cycles are kept in ticks. */
static ULong value_of(const struct tdp_insn *in, UInt e)
{
	return sim_mev_in_ticks(e) ? (in->ev[e] + SIM_IVL_TICKS / 2) / SIM_IVL_TICKS : in->ev[e];
}

static void write_header(struct out *o)
{
	HChar b[64];

	out_str(o, "# callgrind format\nversion: 1\ncreator: tdpsim-" TDPSIM_VERSION "\npid: ");
	out_u64(o, (ULong)VG_(getpid)());
	out_str(o, "\ncmd: ");
	out_name(o, VG_(args_the_exename) ? VG_(args_the_exename) : "???");
	for (Word i = 0; VG_(args_for_client) && i < VG_(sizeXA)(VG_(args_for_client)); i++) {
		out_str(o, " ");
		out_name(o, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
	}
	out_str(o, "\ndesc: Tool: tdpsim " TDPSIM_VERSION " (tdprof's valgrind tool)\ndesc: Machine: ");
	out_name(o, tdp_desc);
	/* valgrind's own cache lines, which tdprof's parser reads: the L3 is the last level */
	VG_(sprintf)(b, "\ndesc: I1 cache: %lu B, %u B, %u-way associative", (unsigned long)tdp_cfg.l1i.size, tdp_cfg.l1i.line,
		     tdp_cfg.l1i.assoc);
	out_str(o, b);
	VG_(sprintf)(b, "\ndesc: D1 cache: %lu B, %u B, %u-way associative", (unsigned long)tdp_cfg.l1d.size, tdp_cfg.l1d.line,
		     tdp_cfg.l1d.assoc);
	out_str(o, b);
	VG_(sprintf)(b, "\ndesc: L2 cache: %lu B, %u B, %u-way associative", (unsigned long)tdp_cfg.l2.size, tdp_cfg.l2.line,
		     tdp_cfg.l2.assoc);
	out_str(o, b);
	VG_(sprintf)(b, "\ndesc: LL cache: %lu B, %u B, %u-way associative", (unsigned long)tdp_cfg.l3.size, tdp_cfg.l3.line,
		     tdp_cfg.l3.assoc);
	out_str(o, b);
	out_str(o, "\n\npositions: instr line\nevents:");
	for (UInt e = 0; e < SIM_MEV_NR; e++) {
		out_str(o, " ");
		out_str(o, sim_mev_name(e));
	}
	out_str(o, "\n\n");
}

void tdp_write(void)
{
	HChar *path = VG_(expand_file_name)("--tdp-out-file", tdp_clo_out);
	struct out *o = VG_(malloc)("tdpsim.out", sizeof(*o));
	struct collect c;
	Bool *seen_ob, *seen_fl, *seen_fn;
	ULong totals[SIM_MEV_NR];
	UInt cur_ob = 0, cur_fl = 0, cur_fn = 0;

	fold_ir();
	o->fd = VG_(fd_open)(path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC, VKI_S_IRUSR | VKI_S_IWUSR);
	o->len = 0;
	o->failed = False;
	if (o->fd < 0) {
		VG_(umsg)("tdpsim: cannot create '%s'\n", path);
		VG_(free)(o);
		return;
	}
	c.v = VG_(malloc)("tdpsim.collect", (tdp_insn_count() + 1) * sizeof(*c.v));
	c.nr = 0;
	tdp_insn_each(collect_one, &c);
	VG_(ssort)(c.v, c.nr, sizeof(*c.v), cmp_insn);
	seen_ob = VG_(calloc)("tdpsim.seen", nr_names + 1, 3 * sizeof(Bool));
	seen_fl = seen_ob + nr_names + 1;
	seen_fn = seen_fl + nr_names + 1;
	VG_(memset)(totals, 0, sizeof(totals));
	write_header(o);
	for (ULong i = 0; i < c.nr; i++) {
		const struct tdp_insn *in = c.v[i];
		HChar b[48];
		UInt last = 0;

		if (in->obj != cur_ob) {
			out_spec(o, "ob", in->obj, seen_ob);
			cur_ob = in->obj;
			cur_fl = cur_fn = 0;
		}
		if (in->file != cur_fl) {
			out_spec(o, "fl", in->file, seen_fl);
			cur_fl = in->file;
			cur_fn = 0;
		}
		if (in->fn != cur_fn) {
			out_spec(o, "fn", in->fn, seen_fn);
			cur_fn = in->fn;
		}
		VG_(sprintf)(b, "0x%lx %u", (unsigned long)(in->addr - (Addr)in->bias), in->line);
		out_str(o, b);
		for (UInt e = 0; e < SIM_MEV_NR; e++)
			if (value_of(in, e))
				last = e + 1;
		for (UInt e = 0; e < last; e++) {
			ULong v = value_of(in, e);

			totals[e] += v;
			if (v) {
				out_str(o, " ");
				out_u64(o, v);
			} else {
				out_str(o, " .");
			}
		}
		out_str(o, "\n");
	}
	out_str(o, "\ntotals:");
	for (UInt e = 0; e < SIM_MEV_NR; e++) {
		out_str(o, " ");
		out_u64(o, totals[e]);
	}
	out_str(o, "\n");
	out_flush(o);
	if (o->failed)
		VG_(umsg)("tdpsim: cannot write '%s'\n", path);
	VG_(close)(o->fd);
	VG_(free)(seen_ob);
	VG_(free)(c.v);
	VG_(free)(o);
}
