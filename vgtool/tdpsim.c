/*
 * tdpsim.c: tdprof's valgrind tool: options, start-up, forks, the end of the run
 * (see tdpsim.h and README.md).
 *
 * Copyright (C) 2025 the tdprof authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"

#include "tdpsim.h"

const HChar *tdp_clo_out = "tdpsim.out.%p";
HChar tdp_desc[512];
struct sim_mach_config tdp_cfg;

static const HChar *clo_bpred = "generic";
static const HChar *clo_machine = "generic";

/* The defaults: tdprof's `generic` machine; the runner always passes its own. */
static void default_config(struct sim_mach_config *c)
{
	VG_(memset)(c, 0, sizeof(*c));
	c->l1i = (struct sim_mach_cache){ 32768, 8, 64 };
	c->l1d = (struct sim_mach_cache){ 49152, 12, 64 };
	c->l2 = (struct sim_mach_cache){ 1310720, 10, 64 };
	c->l3 = (struct sim_mach_cache){ 33554432, 16, 64 };
	c->lat[SIM_LVL_L1] = 5;
	c->lat[SIM_LVL_L2] = 15;
	c->lat[SIM_LVL_L3] = 55;
	c->lat[SIM_LVL_MEM] = 400;
	c->width_milli = 6000;
	c->rob = 512;
	c->mshr = 16;
	c->bw_milli[SIM_LVL_L2] = 48000;
	c->bw_milli[SIM_LVL_L3] = 20000;
	c->bw_milli[SIM_LVL_MEM] = 7000;
	c->btb_entries = 8192;
	c->btb_assoc = 8;
	c->dsb_windows = 512;
	c->dsb_assoc = 8;
	c->dsb_window = 64;
	c->pf_stride = True;
	c->pf_stream = True;
	c->pf_max_stride = 2048;
	c->dep_range = 512;
}

/* "SIZE,ASSOC,LINE" into k; False when it does not parse. */
static Bool parse_cache(const HChar *s, struct sim_mach_cache *k)
{
	HChar *e;
	Long size = VG_(strtoll10)(s, &e), assoc, line;

	if (*e != ',')
		return False;
	assoc = VG_(strtoll10)(e + 1, &e);
	if (*e != ',')
		return False;
	line = VG_(strtoll10)(e + 1, &e);
	if (*e || size <= 0 || assoc <= 0 || line <= 0)
		return False;
	k->size = (ULong)size;
	k->assoc = (UInt)assoc;
	k->line = (UInt)line;
	return True;
}

/* "A,B,..." of n numbers into v. */
static Bool parse_list(const HChar *s, UInt *v, UInt n)
{
	HChar *e = (HChar *)s;

	for (UInt i = 0; i < n; i++) {
		Long x = VG_(strtoll10)(i ? e + 1 : s, &e);

		if (x < 0 || x > 0x7fffffff || (i + 1 < n ? *e != ',' : *e != '\0'))
			return False;
		v[i] = (UInt)x;
	}
	return True;
}

/* A decimal with up to three places, × 1000. */
static Bool parse_milli(const HChar *s, UInt *out)
{
	double d = VG_(strtod)(s, NULL);

	if (!(d >= 0 && d < 1e6))
		return False;
	*out = (UInt)(d * 1000.0 + 0.5);
	return True;
}

static Bool process_option(const HChar *arg)
{
	const HChar *v;
	UInt l[4];

	if VG_STR_CLO (arg, "--tdp-out-file", tdp_clo_out) {
	} else if VG_STR_CLO (arg, "--tdp-machine", clo_machine) {
	} else if VG_STR_CLO (arg, "--tdp-bpred", clo_bpred) {
	} else if VG_STR_CLO (arg, "--tdp-l1i", v) {
		return parse_cache(v, &tdp_cfg.l1i);
	} else if VG_STR_CLO (arg, "--tdp-l1d", v) {
		return parse_cache(v, &tdp_cfg.l1d);
	} else if VG_STR_CLO (arg, "--tdp-l2", v) {
		return parse_cache(v, &tdp_cfg.l2);
	} else if VG_STR_CLO (arg, "--tdp-l3", v) {
		return parse_cache(v, &tdp_cfg.l3);
	} else if VG_STR_CLO (arg, "--tdp-latency", v) {
		return parse_list(v, tdp_cfg.lat, SIM_NR_LVL);
	} else if VG_STR_CLO (arg, "--tdp-width", v) {
		return parse_milli(v, &tdp_cfg.width_milli) && tdp_cfg.width_milli >= 100;
	} else if VG_STR_CLO (arg, "--tdp-bandwidth", v) {
		/* "L2,L3,DRAM" bytes per cycle */
		HChar *e;

		for (int i = SIM_LVL_L2; i <= SIM_LVL_MEM; i++) {
			double d = VG_(strtod)(i == SIM_LVL_L2 ? v : e + 1, &e);

			if (!(d >= 0 && d < 1e6) || (i < SIM_LVL_MEM ? *e != ',' : *e != '\0'))
				return False;
			tdp_cfg.bw_milli[i] = (UInt)(d * 1000.0 + 0.5);
		}
	} else if VG_STR_CLO (arg, "--tdp-rob", v) {
		return parse_list(v, &tdp_cfg.rob, 1) && tdp_cfg.rob > 0;
	} else if VG_STR_CLO (arg, "--tdp-mshr", v) {
		return parse_list(v, &tdp_cfg.mshr, 1) && tdp_cfg.mshr > 0;
	} else if VG_STR_CLO (arg, "--tdp-btb", v) {
		if (!parse_list(v, l, 2))
			return False;
		tdp_cfg.btb_entries = l[0];
		tdp_cfg.btb_assoc = l[1];
	} else if VG_STR_CLO (arg, "--tdp-dsb", v) {
		if (!parse_list(v, l, 3))
			return False;
		tdp_cfg.dsb_windows = l[0];
		tdp_cfg.dsb_assoc = l[1];
		tdp_cfg.dsb_window = l[2];
	} else if VG_STR_CLO (arg, "--tdp-prefetch", v) {
		/* "stride,stream,MAX_STRIDE" as 0/1,0/1,bytes */
		if (!parse_list(v, l, 3) || l[0] > 1 || l[1] > 1)
			return False;
		tdp_cfg.pf_stride = l[0] != 0;
		tdp_cfg.pf_stream = l[1] != 0;
		tdp_cfg.pf_max_stride = l[2];
	} else if VG_STR_CLO (arg, "--tdp-dep-range", v) {
		return parse_list(v, &tdp_cfg.dep_range, 1);
	} else {
		return False;
	}
	return True;
}

static void print_usage(void)
{
	VG_(printf)("    --tdp-out-file=FILE        cost file (%%p: the process id) [tdpsim.out.%%p]\n"
		    "    --tdp-machine=NAME         the machine's name, for the file [generic]\n"
		    "    --tdp-l1i=SIZE,ASSOC,LINE  also --tdp-l1d, --tdp-l2, --tdp-l3: the caches\n"
		    "    --tdp-latency=L1,L2,L3,MEM load-to-use cycles [5,15,55,400]\n"
		    "    --tdp-width=N              dispatch width [6]\n"
		    "    --tdp-rob=N                reorder buffer [512]\n"
		    "    --tdp-mshr=N               L1D misses in flight [16]\n"
		    "    --tdp-bandwidth=L2,L3,MEM  bytes per cycle one core moves from each, 0: unlimited [48,20,7]\n"
		    "    --tdp-btb=ENTRIES,ASSOC    BTB, 0 entries: none [8192,8]\n"
		    "    --tdp-dsb=WINDOWS,ASSOC,BYTES  uop cache, 0 windows: none [512,8,64]\n"
		    "    --tdp-prefetch=STRIDE,STREAM,MAX  hardware prefetchers on (1) or off (0) [1,1,2048]\n"
		    "    --tdp-dep-range=B          bytes above a loaded pointer that depend on it [512]\n"
		    "    --tdp-bpred=NAME           the branch predictor's configuration [generic]\n");
}

static void print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* A forked child starts from zero: its parent's costs are in its parent's file. */
static void zero_insn(struct tdp_insn *in, void *ctx)
{
	(void)ctx;
	VG_(memset)(in->ev, 0, sizeof(in->ev));
}

static void fork_child(ThreadId tid)
{
	(void)tid;
	tdp_insn_each(zero_insn, NULL);
	for (struct tdp_seg *s = tdp_segs; s; s = s->next_seg)
		s->count = 0;
}

static void post_clo_init(void)
{
	const struct bpred_preset *bp = bpred_preset(clo_bpred);
	SizeT need;
	void *mem;

	if (!bp) {
		/* a machine the predictor has no preset for: the generic core's */
		VG_(umsg)("tdpsim: no predictor preset '%s': using 'generic'\n", clo_bpred);
		bp = bpred_preset("generic");
	}
	if (!bp) {
		VG_(umsg)("tdpsim: no predictor preset 'generic'\n");
		VG_(exit)(1);
	}
	tdp_cfg.bpred = &bp->config;
	need = sim_mach_bytes(&tdp_cfg);
	if (!need) {
		VG_(umsg)("tdpsim: the machine's caches are out of range (size = sets x ways x line, one line size)\n");
		VG_(exit)(1);
	}
	mem = VG_(malloc)("tdpsim.mach", need + 8);
	tdp_mach = sim_mach_init((void *)(((Addr)mem + 7) & ~(Addr)7), need, &tdp_cfg);
	if (!tdp_mach) {
		VG_(umsg)("tdpsim: cannot set up the machine\n");
		VG_(exit)(1);
	}
	VG_(snprintf)(tdp_desc, sizeof(tdp_desc),
		      "%s: L1I %lu B %u-way, L1D %lu B %u-way, L2 %lu B %u-way, L3 %lu B %u-way, %u B lines; "
		      "latency L1 %u, L2 %u, L3 %u, DRAM %u cycles; width %u.%03u; ROB %u; MSHR %u; bandwidth L2 %u, L3 %u, "
		      "DRAM %u.%03u B/cycle; "
		      "BTB %u; uop cache %u x %u B; prefetch stride %u (max %u B) stream %u; predictor %s",
		      clo_machine, (unsigned long)tdp_cfg.l1i.size, tdp_cfg.l1i.assoc, (unsigned long)tdp_cfg.l1d.size,
		      tdp_cfg.l1d.assoc, (unsigned long)tdp_cfg.l2.size, tdp_cfg.l2.assoc, (unsigned long)tdp_cfg.l3.size, tdp_cfg.l3.assoc, tdp_cfg.l1d.line,
		      tdp_cfg.lat[0], tdp_cfg.lat[1], tdp_cfg.lat[2], tdp_cfg.lat[3], tdp_cfg.width_milli / 1000,
		      tdp_cfg.width_milli % 1000, tdp_cfg.rob, tdp_cfg.mshr, tdp_cfg.bw_milli[SIM_LVL_L2] / 1000,
		      tdp_cfg.bw_milli[SIM_LVL_L3] / 1000, tdp_cfg.bw_milli[SIM_LVL_MEM] / 1000,
		      tdp_cfg.bw_milli[SIM_LVL_MEM] % 1000, tdp_cfg.btb_entries, tdp_cfg.dsb_windows, tdp_cfg.dsb_window,
		      (UInt)tdp_cfg.pf_stride, tdp_cfg.pf_max_stride, (UInt)tdp_cfg.pf_stream, clo_bpred);
	tdp_insn_init();
	VG_(atfork)(NULL, NULL, fork_child);
	/* one guest instruction after another, as the program wrote them: no unrolled
	 * loops, no chased jumps (the branches and their kinds stay where they are) */
	VG_(clo_vex_control).iropt_unroll_thresh = 0;
	VG_(clo_vex_control).guest_chase = False;
}

static void fini(Int exitcode)
{
	(void)exitcode;
	sim_mach_finish(tdp_mach, tdp_seq);
	tdp_write();
}

static void pre_clo_init(void)
{
	VG_(details_name)("tdpsim");
	VG_(details_version)(TDPSIM_VERSION);
	VG_(details_description)("tdprof's machine simulation (caches, prefetchers, overlapping misses, predictor)");
	VG_(details_copyright_author)("Copyright (C) 2025 the tdprof authors; GNU GPL v2 or later");
	VG_(details_bug_reports_to)("the tdprof project");
	VG_(details_avg_translation_sizeB)(400);
	VG_(basic_tool_funcs)(post_clo_init, tdp_instrument, fini);
	VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
	VG_(clo_vex_control).iropt_unroll_thresh = 0;
	VG_(clo_vex_control).guest_chase = False;
	/* Every register in the guest state at each memory access (overridable): VEX drops a
	 * software prefetch, and without this the load that computed its address would be
	 * dead code and gone too (instrument.c rebuilds the address from the registers).
	 * About 10 % slower. */
	VG_(clo_vex_control).iropt_register_updates_default = VG_(clo_px_file_backed) = VexRegUpdAllregsAtMemAccess;
	default_config(&tdp_cfg);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
