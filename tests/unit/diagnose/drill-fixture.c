/* drill-fixture.c: synthetic recordings of drill-target for the PMU drill-down's tests (see drill-fixture.h). */
#include "drill-fixture.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/countset.h"
#include "base/err.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "import/import.h"
#include "model/drilldown.h"
#include "model/groups.h"
#include "model/model.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"
#include "sim/sim.h"
#include "symbol/symbol.h"

struct fx_target fx;

static int fail(const char *what)
{
	fprintf(stderr, "drill fixture: %s\n", what);
	return -1;
}

/* The line of `source` holding "drill-test: NAME", or 0. */
static unsigned marker(const char *name)
{
	char want[64], line[1024];
	unsigned n = 0;
	FILE *f = fopen(fx.source, "r");

	snprintf(want, sizeof(want), "drill-test: %s", name);
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, want)) {
			fclose(f);
			return n;
		}
	}
	if (f)
		fclose(f);
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* The address ranges [lo, hi) of line `line` of drill-target.c (libdw's line table); returns how many. */
static size_t line_ranges(Dwarf *dw, unsigned line, uint64_t *lo, uint64_t *hi, size_t max)
{
	Dwarf_Off off = 0, next;
	size_t hsize, n = 0;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nl;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &nl) == 0) {
			for (size_t i = 0; i + 1 < nl && n < max; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i), *l2 = dwarf_onesrcline(lines, i + 1);
				Dwarf_Addr a, b;
				int ln;
				bool end;

				if (dwarf_lineno(l, &ln) || (unsigned)ln != line || dwarf_lineendsequence(l, &end) || end ||
				    !ends_with(dwarf_linesrc(l, NULL, NULL), "drill-target.c") || dwarf_lineaddr(l, &a) ||
				    dwarf_lineaddr(l2, &b) || b <= a)
					continue;
				lo[n] = a;
				hi[n++] = b;
			}
		}
		off = next;
	}
	return n;
}

/* The bytes of the executable section holding vaddr, from vaddr on. */
static const uint8_t *code_at(Elf *elf, uint64_t vaddr, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || vaddr < sh.sh_addr ||
		    vaddr >= sh.sh_addr + sh.sh_size || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		*len = sh.sh_addr + sh.sh_size - vaddr;
		return (const uint8_t *)data->d_buf + (vaddr - sh.sh_addr);
	}
	return NULL;
}

/* The first conditional branch in [lo, hi), decoded with capstone (symbol_decode), and its target. */
static bool find_jcc(Elf *elf, enum symbol_arch arch, uint64_t lo, uint64_t hi)
{
	size_t len;
	const uint8_t *code = code_at(elf, lo, &len);

	for (uint64_t a = lo; code && a < hi;) {
		struct symbol_insn in;
		const char *hex;

		if (symbol_decode(arch, code + (a - lo), len - (a - lo), a, &in) != 1)
			return false;
		if (in.branch_type == BRANCH_TYPE_COND && (hex = strstr(in.operands, "0x"))) {
			fx.jcc = a;
			fx.jcc_target = strtoull(hex, NULL, 16);
			return true;
		}
		a += in.size;
	}
	return false;
}

static bool find_func(Elf *elf, const char *name, struct fx_func *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(data, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    (n = elf_strptr(elf, sh.sh_link, sym.st_name)) && !strcmp(n, name)) {
				out->addr = sym.st_value;
				out->size = sym.st_size;
				return true;
			}
		}
	}
	return false;
}

/* The executable PT_LOAD holding spin(), page-aligned. */
static bool find_segment(Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    fx.spin.addr < ph.p_vaddr || fx.spin.addr >= ph.p_vaddr + ph.p_memsz)
			continue;
		fx.seg_vaddr = ph.p_vaddr & ~0xfffull;
		fx.seg_off = ph.p_offset & ~0xfffull;
		fx.seg_len = ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffull) - fx.seg_vaddr;
		return fx.seg_vaddr - fx.seg_off == ph.p_vaddr - ph.p_offset;
	}
	return false;
}

int fx_init(const char *binary, const char *source)
{
	uint64_t lo[16], hi[16];
	size_t n;
	int fd, ret = -1;
	Elf *elf = NULL;
	Dwarf *dw = NULL;
	GElf_Ehdr eh;
	char *slash;

	memset(&fx, 0, sizeof(fx));
	if (!realpath(binary, fx.binary) || !realpath(source, fx.source))
		return fail("cannot find drill-target or its source");
	snprintf(fx.srcdir, sizeof(fx.srcdir), "%s", fx.source);
	if ((slash = strrchr(fx.srcdir, '/')))
		*slash = '\0';
	fx.hot_line = marker("HOT");
	fx.branch_line = marker("BRANCH");
	if (!fx.hot_line || !fx.branch_line)
		return fail("no marker in drill-target.c");
	elf_version(EV_CURRENT);
	if ((fd = open(fx.binary, O_RDONLY | O_CLOEXEC)) < 0)
		return fail("cannot open drill-target");
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || !gelf_getehdr(elf, &eh) || !(dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL))) {
		fail("drill-target has no ELF or DWARF");
		goto out;
	}
	if (!find_func(elf, "spin", &fx.spin) || !find_func(elf, "pick", &fx.pick) || !find_func(elf, "main", &fx.main) ||
	    !find_segment(elf)) {
		fail("drill-target lacks spin, pick, main or an executable segment");
		goto out;
	}
	n = line_ranges(dw, fx.hot_line, lo, hi, 16);
	if (!n) {
		fail("no code for the HOT line");
		goto out;
	}
	/* the line's first two instructions, wherever the line table puts them */
	for (size_t i = 0, k = 0; i < n && k < 2; i++) {
		size_t len;
		const uint8_t *code = code_at(elf, lo[i], &len);

		for (uint64_t a = lo[i]; code && a < hi[i] && k < 2;) {
			struct symbol_insn in;

			if (symbol_decode(symbol_arch_from_elf(eh.e_machine), code + (a - lo[i]), len - (a - lo[i]), a, &in) != 1)
				break;
			fx.hot[k++] = a;
			a += in.size;
		}
	}
	if (!fx.hot[1]) {
		fail("the HOT line has fewer than two instructions");
		goto out;
	}
	n = line_ranges(dw, fx.branch_line, lo, hi, 16);
	if (!n) {
		fail("no code for the BRANCH line");
		goto out;
	}
	fx.branch_first = lo[0];
	for (size_t i = 0; i < n && !fx.jcc; i++)
		find_jcc(elf, symbol_arch_from_elf(eh.e_machine), lo[i], hi[i]);
	if (!fx.jcc) {
		fail("no conditional branch in the BRANCH line");
		goto out;
	}
	ret = 0;
out:
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Writing recordings
 * ------------------------------------------------------------------------- */

static size_t put_u64(uint8_t *b, size_t at, uint64_t v)
{
	memcpy(b + at, &v, 8);
	return at + 8;
}

static size_t put_u32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
	return at + 4;
}

static void header(uint8_t *b, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t sz = (uint16_t)size;

	memcpy(b, &type, 4);
	memcpy(b + 4, &misc, 2);
	memcpy(b + 6, &sz, 2);
}

/* A sample: IP, TID, TIME, PERIOD (and BRANCH_STACK: from/to runtime addresses, flags). */
struct fx_entry {
	uint64_t from, to; /* vaddr */
	int flag;          /* 1 mispredicted, 0 predicted, -1 neither */
};

static int sample(struct perfdata_writer *w, bool stack, uint16_t misc, uint64_t ip, const struct fx_entry *e,
		  size_t nr, uint64_t *time, const uint64_t *addr, struct tdp_err *err)
{
	uint8_t b[1024];
	size_t at = 8;

	at = put_u64(b, at, ip);
	at = put_u32(b, at, FX_PID);
	at = put_u32(b, at, FX_PID);
	at = put_u64(b, at, (*time)++);
	if (addr)
		at = put_u64(b, at, *addr);
	at = put_u64(b, at, 100000);
	if (stack) {
		at = put_u64(b, at, nr);
		for (size_t i = 0; i < nr; i++) {
			struct branch_entry x;

			memset(&x, 0, sizeof(x));
			x.mispred = e[i].flag == 1;
			x.predicted = e[i].flag == 0;
			at = put_u64(b, at, FX_BASE + e[i].from);
			at = put_u64(b, at, FX_BASE + e[i].to);
			at = put_u64(b, at, perfdata_branch_flags_encode(&x));
		}
	}
	header(b, PERFDATA_RECORD_SAMPLE, misc, at);
	return perfdata_writer_add_record(w, b, at, err);
}

static int ip_samples(struct perfdata_writer *w, bool with_addr, uint64_t *t, struct tdp_err *err)
{
	static const struct {
		int which;   /* 0, 1: hot[i]; 2: branch_first; 3: main; 4: kernel */
		int count;
	} plan[] = { { 0, 31 }, { 2, 25 }, { 1, 29 }, { 3, 10 }, { 4, 5 } };
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(plan) / sizeof(plan[0]); i++)
		for (int k = 0; !rc && k < plan[i].count; k++) {
			uint64_t v = plan[i].which < 2 ? fx.hot[plan[i].which] : plan[i].which == 2 ? fx.branch_first
												   : fx.main.addr;
			uint64_t a = plan[i].which == 0 ? FX_HEAP + 0x40 + (uint64_t)(k % 8) * 8
				     : plan[i].which == 1 ? FX_HEAP + 0x1000 + (uint64_t)(k % 8) * 8
				     : plan[i].which == 2 ? FX_STACK + 0x100 + (uint64_t)(k % 8) * 8 : 0;

			rc = plan[i].which == 4
				     ? sample(w, false, PERFDATA_MISC_KERNEL, FX_KADDR, NULL, 0, t, with_addr ? &a : NULL, err)
				     : sample(w, false, PERFDATA_MISC_USER, FX_BASE + v, NULL, 0, t, with_addr ? &a : NULL, err);
		}
	return rc;
}

static int stack_samples(struct perfdata_writer *w, enum fx_kind kind, uint64_t *t, struct tdp_err *err)
{
	struct fx_entry e[2];
	uint64_t ip = FX_BASE + fx.jcc;
	int rc = 0;

	if (kind == FX_LBR) {
		static const int runs[][3] = { { 10, 1, 0 }, { 6, 0, 0 }, { 4, 0, 1 } }; /* count, jcc flag, other flag */

		for (size_t r = 0; r < 3; r++)
			for (int k = 0; !rc && k < runs[r][0]; k++) {
				e[0] = (struct fx_entry){ fx.jcc, fx.jcc_target, runs[r][1] };
				e[1] = (struct fx_entry){ fx.main.addr, fx.main.addr + 4, runs[r][2] };
				rc = sample(w, true, PERFDATA_MISC_USER, ip, e, 2, t, NULL, err);
			}
		return rc;
	}
	for (int k = 0; !rc && k < 20; k++) {
		e[0] = (struct fx_entry){ fx.jcc, fx.jcc_target, -1 };
		e[1] = (struct fx_entry){ fx.main.addr, fx.main.addr + 4, -1 };
		rc = sample(w, true, PERFDATA_MISC_USER, ip, e, k < 12 ? 2 : 1, t, NULL, err);
	}
	return rc;
}

/* An MMAP2 of a read-write anonymous mapping called name ("[heap]"). */
static int data_mmap(struct perfdata_writer *w, uint64_t start, const char *name, struct tdp_err *err)
{
	uint8_t rec[256];
	size_t at, n = strlen(name) + 1;

	at = put_u32(rec, 8, FX_PID);
	at = put_u32(rec, at, FX_PID);
	at = put_u64(rec, at, start);
	at = put_u64(rec, at, 0x21000);
	at = put_u64(rec, at, 0);
	at = put_u32(rec, at, 0);
	at = put_u32(rec, at, 0);
	at = put_u64(rec, at, 0);
	at = put_u64(rec, at, 0);
	at = put_u32(rec, at, 3); /* PROT_READ | PROT_WRITE */
	at = put_u32(rec, at, 2); /* MAP_PRIVATE */
	memset(rec + at, 0, (n + 7) & ~(size_t)7);
	memcpy(rec + at, name, n);
	at += (n + 7) & ~(size_t)7;
	header(rec, PERFDATA_RECORD_MMAP2, PERFDATA_MISC_USER, at);
	return perfdata_writer_add_record(w, rec, at, err);
}

/* One SPE record: PC (EL0, non-secure), OP-TYPE LD/ST (store: bit 0), VA, total latency, a timestamp. */
static size_t spe_ldst(uint8_t *b, size_t at, uint64_t pc, bool store, uint64_t va, int latency, uint64_t ts)
{
	b[at++] = 0xb0;
	at = put_u64(b, at, pc | 1ull << 63);
	b[at++] = 0x49;
	b[at++] = store ? 0x01 : 0x00;
	if (va) {
		b[at++] = 0xb2;
		at = put_u64(b, at, va);
	}
	b[at++] = 0x98;
	b[at++] = (uint8_t)(latency & 0xff);
	b[at++] = (uint8_t)(latency >> 8);
	b[at++] = 0x71;
	return put_u64(b, at, ts);
}

static int spe_records(struct perfdata_writer *w, struct tdp_err *err)
{
	static const struct {
		int which; /* 0, 1: hot[i]; 2: branch_first; 3: main; 5: a store at hot[0]; 6: a branch */
		int count, latency;
	} plan[] = { { 0, 31, 300 }, { 2, 25, 4 }, { 1, 29, 40 }, { 3, 10, 7 }, { 5, 5, 9 }, { 6, 3, 0 } };
	uint8_t rec[48 + 8192], *trace = rec + 48, info[24];
	size_t n = 0, at;
	uint64_t ts = 1;
	int rc;

	memset(info, 0, sizeof(info));
	info[8] = 4; /* ARM_SPE */
	put_u64(info, 16, 9);
	header(info, PERFDATA_RECORD_AUXTRACE_INFO, 0, sizeof(info));
	if ((rc = perfdata_writer_add_record(w, info, sizeof(info), err)))
		return rc;
	for (size_t i = 0; i < sizeof(plan) / sizeof(plan[0]); i++)
		for (int k = 0; k < plan[i].count; k++) {
			int wh = plan[i].which;
			uint64_t pc = FX_BASE + (wh == 0 || wh == 5 ? fx.hot[0] : wh == 1 ? fx.hot[1]
							  : wh == 2 ? fx.branch_first : wh == 3 ? fx.main.addr : fx.jcc);
			uint64_t va = wh == 0 || wh == 5 ? FX_HEAP + 0x40 + (uint64_t)(k % 8) * 8
				      : wh == 1 ? FX_HEAP + 0x1000 + (uint64_t)(k % 8) * 8
				      : wh == 2 ? FX_STACK + 0x100 + (uint64_t)(k % 8) * 8 : 0;

			if (wh == 6) { /* B COND, taken: no load */
				trace[n++] = 0xb0;
				n = put_u64(trace, n, pc | 1ull << 63);
				trace[n++] = 0x4a;
				trace[n++] = 0x01;
				trace[n++] = 0x71;
				n = put_u64(trace, n, ts++);
				continue;
			}
			n = spe_ldst(trace, n, pc, wh == 5, va, plan[i].latency, ts++);
		}
	while (n % 8)
		trace[n++] = 0; /* PAD */
	at = put_u64(rec, 8, n);
	at = put_u64(rec, at, 0);
	at = put_u64(rec, at, 0);
	at = put_u64(rec, at, (uint64_t)FX_PID << 32); /* idx 0, tid */
	put_u64(rec, at, 0);
	header(rec, PERFDATA_RECORD_AUXTRACE, 0, 48);
	return perfdata_writer_add_record(w, rec, 48 + n, err);
}

int fx_write(const char *path, enum fx_kind kind, struct tdp_err *err)
{
	struct perfdata_writer *w = NULL;
	uint8_t attr[128], rec[8192];
	size_t at, n;
	uint64_t t = 1000;
	bool stack = kind == FX_LBR || kind == FX_BRS;
	int rc;

	memset(attr, 0, sizeof(attr));
	put_u32(attr, 0, kind == FX_SPE ? 9 : 0); /* a dynamic PMU type (arm_spe_0), or PERF_TYPE_HARDWARE cycles */
	put_u32(attr, 4, sizeof(attr));
	put_u64(attr, 16, 100000);
	put_u64(attr, 24, PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_TIME | PERFDATA_SAMPLE_PERIOD |
				  (stack ? PERFDATA_SAMPLE_BRANCH_STACK : 0) | (kind == FX_ADDR ? PERFDATA_SAMPLE_ADDR : 0));
	if (stack)
		put_u64(attr, 72, PERFDATA_BRANCH_ANY | PERFDATA_BRANCH_USER);
	rc = perfdata_writer_open(&w, path, err);
	if (!rc)
		rc = perfdata_writer_add_attr(w, attr, sizeof(attr), NULL, 0, kind == FX_SPE ? "arm_spe_0//" : "cycles", err);
	if (rc)
		goto fail;
	/* COMM (exec) and MMAP2 of the executable segment */
	at = put_u32(rec, 8, FX_PID);
	at = put_u32(rec, at, FX_PID);
	memset(rec + at, 0, 16);
	memcpy(rec + at, "drill-target", 12);
	at += 16;
	header(rec, PERFDATA_RECORD_COMM, PERFDATA_MISC_COMM_EXEC, at);
	if ((rc = perfdata_writer_add_record(w, rec, at, err)))
		goto fail;
	at = put_u32(rec, 8, FX_PID);
	at = put_u32(rec, at, FX_PID);
	at = put_u64(rec, at, FX_BASE + fx.seg_vaddr);
	at = put_u64(rec, at, fx.seg_len);
	at = put_u64(rec, at, fx.seg_off);
	at = put_u32(rec, at, 8);     /* maj */
	at = put_u32(rec, at, 1);     /* min */
	at = put_u64(rec, at, 12345); /* ino */
	at = put_u64(rec, at, 0);
	at = put_u32(rec, at, 5);     /* PROT_READ | PROT_EXEC */
	at = put_u32(rec, at, 2);     /* MAP_PRIVATE */
	n = strlen(fx.binary) + 1;
	memset(rec + at, 0, (n + 7) & ~(size_t)7);
	memcpy(rec + at, fx.binary, n);
	at += (n + 7) & ~(size_t)7;
	header(rec, PERFDATA_RECORD_MMAP2, PERFDATA_MISC_USER, at);
	if ((rc = perfdata_writer_add_record(w, rec, at, err)))
		goto fail;
	for (int m = 0; (kind == FX_ADDR || kind == FX_SPE) && m < 2 && !rc; m++) /* the data mappings */
		rc = data_mmap(w, m ? FX_STACK : FX_HEAP, m ? "[stack]" : "[heap]", err);
	if (!rc)
		rc = kind == FX_SPE ? spe_records(w, err)
		     : stack      ? stack_samples(w, kind, &t, err)
				  : ip_samples(w, kind == FX_ADDR, &t, err);
	if (rc)
		goto fail;
	return perfdata_writer_close(w, err);
fail:
	perfdata_writer_free(w);
	return rc;
}

int fx_recording(enum fx_kind kind, uint8_t **buf, size_t *len)
{
	char path[] = "/tmp/tdprof-drill-test-XXXXXX";
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	int fd = mkstemp(path), ret = -1;

	if (fd < 0)
		return fail("mkstemp");
	close(fd);
	if (fx_write(path, kind, &err) || tdp_file_open(&f, path, 0, &err)) {
		fprintf(stderr, "drill fixture: %s\n", err.msg);
	} else if ((*buf = tdp_malloc(f.size))) {
		memcpy(*buf, f.data, f.size);
		*len = f.size;
		ret = 0;
	}
	tdp_file_close(&f);
	unlink(path);
	return ret;
}

int fx_diag(struct diag *d, const char *category, double pct, struct diag_opts *o)
{
	static const char *const keys[] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };
	double v[4];
	struct sim_topdown td;
	struct metric_tree *t = tdp_calloc(1, sizeof(*t));
	struct countset cs = COUNTSET_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	int ret;

	if (!t)
		return -1;
	*o = (struct diag_opts){ .exe = fx.binary, .cwd = fx.srcdir, .command = "drill-target", .level = 2, .top = 10 };
	for (int i = 0; i < 4; i++)
		v[i] = category && !strcmp(category, keys[i]) ? pct : (100.0 - pct) / 3.0;
	td = (struct sim_topdown){ .retiring = v[0], .bad_speculation = v[1], .frontend_bound = v[2], .backend_bound = v[3] };
	if (category)
		model_tree_from_sim(&td, 4, 2, t);
	ret = diag_from_counts(d, BACKEND_PMU, &cs, t, o, &err);
	if (!category)
		diag_pmu_no_model(d, "the CPU (test) has no model");
	tdp_free(t);
	countset_release(&cs);
	return ret ? -1 : 0;
}

int fx_plan(struct diag_pmu_plan *p, const char *category, enum cpu_branch_facility f)
{
	struct cpu_branch br = { .facility = f, .depth = f == CPU_BRANCH_NONE ? -1 : 16 };
	struct tdp_err err = TDP_ERR_INIT;

	snprintf(br.reason, sizeof(br.reason), "%s", f == CPU_BRANCH_NONE ? "the test machine records no branch"
									    : "the test machine's facility");
	return diag_pmu_plan(p, &(struct diag_pmu_plan_in){ category, &br, NULL, 1.0, 0, NULL, -1 }, &err);
}

/* A count per event of m: the PERF_METRICS shares given, cycles = slots / 6, every other event a
 * fraction of the cycles fixed by its name (so the deeper nodes are in range and differ). */
static void counts_json(const struct model *m, double ret, double bad, double mem, struct strbuf *sb)
{
	const double slots = 6e9, cycles = slots / 6;
	const struct { const char *name; double share; } pm[] = {
		{ "topdown-retiring", ret }, { "topdown-bad-spec", bad }, { "topdown-fe-bound", 0.10 },
		{ "topdown-be-bound", 0.90 - ret - bad }, { "topdown-heavy-ops", 0.05 }, { "topdown-br-mispredict", bad * 0.9 },
		{ "topdown-fetch-lat", 0.06 }, { "topdown-mem-bound", mem },
	};

	for (size_t i = 0; i < m->nr_events; i++) {
		const char *n = m->events[i].name;
		double v = cycles;
		unsigned h = 0;

		for (const char *p = n; *p; p++)
			h = h * 31 + (unsigned char)*p;
		if (!strcmp(n, "TOPDOWN.SLOTS"))
			v = slots;
		for (size_t k = 0; k < sizeof(pm) / sizeof(pm[0]); k++)
			if (!strcmp(n, pm[k].name))
				v = slots * pm[k].share;
		if (v == cycles && !m->events[i].clock && strncmp(n, "CPU_CLK_UNHALTED", 16))
			v = cycles * (0.0005 + (h % 97) / 100000.0);
		strbuf_adds(sb, "{\"counter-value\" : \"");
		strbuf_addf(sb, "%.0f\", \"unit\" : \"\", \"event\" : \"", v);
		for (const char *p = n; *p; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_addch(sb, '\\');
			strbuf_addch(sb, *p);
		}
		strbuf_adds(sb, "\", \"event-runtime\" : 1000000, \"pcnt-running\" : 100.00}\n");
	}
}

int fx_model_tree(const char *model, double ret, double bad, double mem, struct countset *cs, struct metric_tree *t)
{
	const struct model *m = model_find(model);
	struct import_result res = IMPORT_RESULT_INIT;
	struct model_eval_opts o = MODEL_EVAL_OPTS_INIT;
	struct strbuf sb = STRBUF_INIT;
	int rc = -1;

	if (!m)
		return -1;
	counts_json(m, ret, bad, mem, &sb);
	if (!strbuf_failed(&sb) && !import_perf_stat_result((const uint8_t *)sb.buf, sb.len, "made-up.json", &res, NULL)) {
		o.max_level = model_depth(m);
		if (!model_evaluate(m, &res.counts, &o, t, NULL)) {
			model_classify(t);
			rc = 0;
			for (size_t i = 0; i < res.counts.nr && !rc; i++)
				if (!countset_add(cs, res.counts.v[i].name, res.counts.v[i].unit, res.counts.v[i].value,
						  res.counts.v[i].group))
					rc = -1;
		}
	}
	import_result_release(&res);
	strbuf_release(&sb);
	return rc;
}

int fx_diag_model(struct diag *d, const char *model, double ret, double bad, double mem, struct diag_opts *o)
{
	struct metric_tree *t = tdp_calloc(1, sizeof(*t));
	struct countset cs = COUNTSET_INIT;
	int rc = -1;

	*o = (struct diag_opts){ .exe = fx.binary, .cwd = fx.srcdir, .command = "drill-target", .level = 2, .top = 10 };
	if (t && !fx_model_tree(model, ret, bad, mem, &cs, t) && !diag_from_counts(d, BACKEND_PMU, &cs, t, o, NULL))
		rc = 0;
	countset_release(&cs);
	tdp_free(t);
	return rc;
}

int fx_plan_tree(struct diag_pmu_plan *p, const struct diag *d, enum cpu_branch_facility f, int max_precise)
{
	struct cpu_branch br = { .facility = f, .depth = f == CPU_BRANCH_NONE ? -1 : 16 };
	struct tdp_err err = TDP_ERR_INIT;

	snprintf(br.reason, sizeof(br.reason), "%s", f == CPU_BRANCH_NONE ? "the test machine records no branch"
									    : "the test machine's facility");
	return diag_pmu_plan(p, &(struct diag_pmu_plan_in){ d->category, &br, NULL, 1.0, 0, &d->tree, max_precise },
			     &err);
}

struct fx_counter {
	const struct model *m;
	const struct countset *all;    /* every event's made-up count */
	const struct fx_fault *fault;
	struct countset first;         /* step 1's counts */
};

/* drill_counter.count: the planned groups' events with their made-up counts, as a live run numbers them. */
static int fx_count(void *arg, const struct drill_step *s, struct countset *out, bool *stop, struct tdp_err *err)
{
	struct fx_counter *c = arg;
	bool faulty = c->fault && s->index >= c->fault->step;

	(void)stop;
	for (size_t g = 0; g < s->groups.nr; g++)
		for (size_t k = 0; k < s->groups.v[g].nr; k++) {
			const char *name = c->m->events[s->groups.v[g].ev[k]].name;
			const struct count *src = countset_find(c->all, name, -1);
			double v = src ? src->value : 0;
			struct count *dst;

			if (faulty && !strcmp(name, c->fault->event))
				v *= c->fault->factor;
			if (!(dst = countset_add(out, name, NULL, v, (int)g)))
				return tdp_err_oom(err);
			dst->running_pct = faulty ? c->fault->running : 100;
			if (!src)
				dst->status = COUNT_NOT_SUPPORTED;
		}
	out->elapsed_ns = 2e9 * (double)s->nr_runs;
	for (size_t i = 0; s->index == 1 && i < out->nr; i++)
		if (!countset_add(&c->first, out->v[i].name, NULL, out->v[i].value, out->v[i].group))
			return tdp_err_oom(err);
	return 0;
}

int fx_drill_diag(struct diag *d, const char *model, double ret, double bad, double mem, const struct fx_fault *fault,
		  bool no_multiplex, struct diag_opts *o)
{
	const struct model *m = model_find(model);
	struct metric_tree *t = tdp_calloc(2, sizeof(*t));
	struct drill_info *info = tdp_calloc(1, sizeof(*info));
	struct countset all = COUNTSET_INIT;
	struct fx_counter c = { m, &all, fault, COUNTSET_INIT };
	struct model_eval_opts eo = MODEL_EVAL_OPTS_INIT;
	struct groups_budget b;
	struct tdp_err err = TDP_ERR_INIT;
	int rc = -1;

	*o = (struct diag_opts){ .exe = fx.binary, .cwd = fx.srcdir, .command = "drill-target", .level = 2, .top = 10 };
	if (!m || !t || !info || fx_model_tree(model, ret, bad, mem, &all, &t[1]))
		goto out;
	drill_budget(m, false, &b);
	eo.max_level = model_depth(m);
	eo.slots = m->slots > 0 ? m->slots : 8;
	if (drill_run(m, &eo, &b, no_multiplex, &(struct drill_counter){ fx_count, &c }, &t[0], info, &err)) {
		fprintf(stderr, "drill fixture: %s\n", err.msg);
		goto out;
	}
	c.first.elapsed_ns = 2e9;
	if (!diag_from_counts(d, BACKEND_PMU, &c.first, &t[0], o, NULL)) {
		d->tree_drill = info;
		info = NULL;
		rc = 0;
	}
out:
	countset_release(&all);
	countset_release(&c.first);
	tdp_free(t);
	tdp_free(info);
	return rc;
}

int fx_diag_path(struct diag *d, const char *model, const struct fx_node *nodes, size_t nr, struct diag_opts *o)
{
	struct metric_tree *t = tdp_calloc(1, sizeof(*t));
	struct countset cs = COUNTSET_INIT;
	int rc = -1;

	*o = (struct diag_opts){ .exe = fx.binary, .cwd = fx.srcdir, .command = "drill-target", .level = 2, .top = 10 };
	if (t && !fx_model_tree(model, 0.2, 0.05, 0.5, &cs, t)) {
		for (size_t i = 0; i < t->nr; i++) {
			t->v[i].value = NAN;
			for (size_t k = 0; k < nr; k++)
				if (!strcmp(t->v[i].key, nodes[k].key))
					t->v[i].value = nodes[k].value;
		}
		model_classify(t);
		rc = diag_from_counts(d, BACKEND_PMU, &cs, t, o, NULL) ? -1 : 0;
	}
	countset_release(&cs);
	tdp_free(t);
	return rc;
}

int fx_plan_spe(struct diag_pmu_plan *p, const struct diag *d)
{
	static struct cpu_kv fmt[] = { { "branch_filter", "config:32" }, { "load_filter", "config:33" },
				       { "jitter", "config:16" }, { "ts_enable", "config:0" } };
	static struct cpu_kv caps[] = { { "min_interval", "1024" } };
	static struct cpu_pmu pmus[] = {
		{ .name = "arm_spe_0", .type = 9, .kind = CPU_PMU_SPE, .caps = caps, .nr_caps = 1, .format = fmt,
		  .nr_format = 4 },
	};
	struct cpu_pmu_list list = { pmus, 1, 1 };
	struct cpu_branch br = { .facility = CPU_BRANCH_SPE, .depth = -1, .reason = "Arm SPE (arm_spe_0)" };
	struct tdp_err err = TDP_ERR_INIT;

	return diag_pmu_plan(p, &(struct diag_pmu_plan_in){ d->category, &br, &list, 1.0, 0, &d->tree, -1 }, &err);
}
