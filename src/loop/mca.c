/*
 * mca.c: llvm-mca's static prediction for the kernel's hot loop, shown
 * beside the measurement by `tdprof loop` (the µop-reduction view: what the
 * scheduling model says the loop could do, against what it did).
 *
 * The generated program is compiled to assembly with the user's flags (so the
 * code analysed is the code measured), the kernel's body is cut out between its
 * label and its .size/.cfi_endproc, and its innermost loop is found as a
 * backward branch to a label of the same function that encloses no other such
 * branch. The assembly is compiler output but still untrusted text: lines and
 * labels are bounded, nothing is allocated from a count in it.
 */
#include "loop/loop.h"

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Limits on the assembly of one function. */
#define MCA_MAX_LINES 200000
#define MCA_MAX_LABELS 4096
#define MCA_MAX_LABEL_LEN 63

enum line_kind { LINE_OTHER, LINE_LABEL, LINE_INSN };

struct line {
	const char *p; /* start of the line (not NUL-terminated) */
	size_t len;
	enum line_kind kind;
};

struct label {
	char name[MCA_MAX_LABEL_LEN + 1];
	size_t line;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Classify one line: a label at column 0 ("name:"), an indented instruction, or else. */
static enum line_kind classify(const char *p, size_t len, size_t *label_len)
{
	size_t i = 0;

	if (len == 0)
		return LINE_OTHER;
	if (!is_space(p[0])) {
		while (i < len && !is_space(p[i]) && p[i] != ':')
			i++;
		if (i < len && p[i] == ':' && i > 0 && p[0] != '#') {
			*label_len = i;
			return LINE_LABEL;
		}
		return LINE_OTHER;
	}
	while (i < len && is_space(p[i]))
		i++;
	if (i == len || p[i] == '.' || p[i] == '#' || (p[i] == '/' && i + 1 < len && p[i + 1] == '/'))
		return LINE_OTHER;
	return LINE_INSN;
}

/* The function's end: its .size directive or the end of its unwind information. */
static bool ends_function(const char *p, size_t len, const char *name)
{
	size_t i = 0, n = strlen(name);

	while (i < len && is_space(p[i]))
		i++;
	if (len - i >= 12 && !strncmp(p + i, ".cfi_endproc", 12))
		return true;
	if (len - i >= 5 && !strncmp(p + i, ".size", 5)) {
		i += 5;
		while (i < len && is_space(p[i]))
			i++;
		return len - i > n && !strncmp(p + i, name, n) && (p[i + n] == ',' || is_space(p[i + n]));
	}
	return false;
}

/* The label operand an instruction branches to, if any (checked against the known labels). */
static int branch_target(const struct line *l, const struct label *labels, size_t nr)
{
	size_t i = 0;

	while (i < l->len && is_space(l->p[i]))
		i++;
	while (i < l->len && !is_space(l->p[i]))
		i++; /* the mnemonic */
	while (i < l->len) {
		size_t s, n;

		while (i < l->len && (is_space(l->p[i]) || l->p[i] == ','))
			i++;
		s = i;
		while (i < l->len && !is_space(l->p[i]) && l->p[i] != ',')
			i++;
		n = i - s;
		if (n == 0 || n > MCA_MAX_LABEL_LEN)
			continue;
		for (size_t k = 0; k < nr; k++)
			if (strlen(labels[k].name) == n && !strncmp(labels[k].name, l->p + s, n))
				return (int)k;
	}
	return -1;
}

int loop_asm_hot_block(const char *buf, size_t len, const char *name, struct strbuf *block_out,
		       struct loop_block *blk)
{
	struct line *lines = NULL;
	struct label *labels = NULL;
	size_t nr = 0, alloc = 0, nr_labels = 0, name_len = strlen(name), off = 0, best_n = 0;
	size_t loop_end[MCA_MAX_LABELS];
	bool in = false, found = false;
	int rc = 0, best = -1;

	memset(blk, 0, sizeof(*blk));
	labels = tdp_calloc(MCA_MAX_LABELS, sizeof(*labels));
	if (!labels)
		return TDP_ENOMEM;
	/* The function's lines: from "name:" to its end. */
	while (off < len) {
		const char *p = buf + off, *nl = memchr(p, '\n', len - off);
		size_t l = nl ? (size_t)(nl - p) : len - off, label_len = 0;
		enum line_kind k = classify(p, l, &label_len);

		off += l + (nl ? 1 : 0);
		if (!in) {
			in = k == LINE_LABEL && label_len == name_len && !strncmp(p, name, name_len);
			found |= in;
			continue;
		}
		if (ends_function(p, l, name))
			break;
		if (nr >= MCA_MAX_LINES) {
			rc = TDP_ELIMIT;
			goto out;
		}
		if (TDP_GROW(lines, alloc, nr + 1)) {
			rc = TDP_ENOMEM;
			goto out;
		}
		lines[nr] = (struct line){ p, l, k };
		if (k == LINE_LABEL && label_len <= MCA_MAX_LABEL_LEN && nr_labels < MCA_MAX_LABELS) {
			memcpy(labels[nr_labels].name, p, label_len);
			labels[nr_labels].name[label_len] = '\0';
			labels[nr_labels].line = nr;
			loop_end[nr_labels] = 0;
			nr_labels++;
		}
		nr++;
	}
	if (!found) {
		rc = TDP_ENOENT;
		goto out;
	}
	/* Each label's last backward branch closes a loop [label, branch]. */
	for (size_t i = 0; i < nr; i++) {
		int t;

		if (lines[i].kind != LINE_INSN || (t = branch_target(&lines[i], labels, nr_labels)) < 0)
			continue;
		if (labels[t].line < i)
			loop_end[t] = i;
	}
	/* Innermost: no other loop strictly inside; the largest of those is the hot one. */
	for (size_t a = 0; a < nr_labels; a++) {
		bool inner = true;
		size_t n = 0;

		if (!loop_end[a])
			continue;
		for (size_t b = 0; b < nr_labels && inner; b++)
			if (b != a && loop_end[b] && labels[b].line >= labels[a].line && loop_end[b] <= loop_end[a] &&
			    (labels[b].line != labels[a].line || loop_end[b] != loop_end[a]))
				inner = false;
		if (!inner)
			continue;
		for (size_t i = labels[a].line; i <= loop_end[a]; i++)
			n += lines[i].kind == LINE_INSN;
		if (n > best_n) {
			best_n = n;
			best = (int)a;
		}
	}
	if (best >= 0) {
		blk->is_loop = true;
		blk->first = labels[best].line;
		blk->last = loop_end[best];
		snprintf(blk->label, sizeof(blk->label), "%s", labels[best].name);
	} else {
		blk->first = 0;
		blk->last = nr ? nr - 1 : 0;
	}
	for (size_t i = blk->first; nr && i <= blk->last; i++) {
		if (lines[i].kind == LINE_OTHER)
			continue;
		strbuf_add(block_out, lines[i].p, lines[i].len);
		strbuf_addch(block_out, '\n');
		blk->nr_insns += lines[i].kind == LINE_INSN;
	}
	if (strbuf_failed(block_out))
		rc = TDP_ENOMEM;
out:
	tdp_free(lines);
	tdp_free(labels);
	return rc;
}

/* "Key:   value" in llvm-mca's summary. */
static bool field(const char *line, size_t len, const char *key, double *out)
{
	size_t n = strlen(key);
	char num[64];

	if (len <= n || strncmp(line, key, n))
		return false;
	line += n;
	len -= n;
	while (len && is_space(*line)) {
		line++;
		len--;
	}
	if (!len || len >= sizeof(num))
		return false;
	memcpy(num, line, len);
	num[len] = '\0';
	str_trim(num);
	return str_to_double(num, out);
}

int loop_mca_parse(const char *buf, size_t len, struct loop_mca *m)
{
	double iters = 0, insns = 0, cycles = 0;
	unsigned seen = 0;

	for (size_t off = 0; off < len;) {
		const char *p = buf + off, *nl = memchr(p, '\n', len - off);
		size_t l = nl ? (size_t)(nl - p) : len - off;

		off += l + (nl ? 1 : 0);
		seen |= field(p, l, "Iterations:", &iters) << 0;
		seen |= field(p, l, "Instructions:", &insns) << 1;
		seen |= field(p, l, "Total Cycles:", &cycles) << 2;
		seen |= field(p, l, "Dispatch Width:", &m->dispatch_width) << 3;
		seen |= field(p, l, "uOps Per Cycle:", &m->uops_per_cycle) << 4;
		seen |= field(p, l, "IPC:", &m->ipc) << 5;
		seen |= field(p, l, "Block RThroughput:", &m->block_rthroughput) << 6;
	}
	if (seen != 0x7f || iters <= 0)
		return TDP_EFORMAT;
	m->cycles_per_iter = cycles / iters;
	return 0;
}

/* The CPU model for llvm-mca: the user's -mtune, else -march/-mcpu ("native": the host's). */
static const char *mcpu_from_flags(const struct loop_job *j)
{
	const char *tune = NULL, *arch = NULL;

	for (size_t i = 0; i < j->nr_cflags; i++) {
		const char *f = j->cflags[i];

		if (str_starts_with(f, "-mtune="))
			tune = f + 7;
		else if (str_starts_with(f, "-march="))
			arch = f + 7;
		else if (str_starts_with(f, "-mcpu="))
			arch = f + 6;
	}
	if (tune && strcmp(tune, "native") && strcmp(tune, "generic"))
		return tune;
	if (arch && strcmp(arch, "native"))
		return arch;
	return NULL;
}

/* llvm-mca --version says which CPU it models by default: "Host CPU: znver3". */
static void host_cpu(struct loop_mca *m)
{
	char *argv[] = { "llvm-mca", "--version", NULL };
	struct strbuf out = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	const char *p;
	int status;

	snprintf(m->mcpu, sizeof(m->mcpu), "host");
	if (!loop_spawn(argv, true, &out, &status, &err) && (p = strstr(out.buf, "Host CPU: ")) != NULL) {
		p += 10;
		snprintf(m->mcpu, sizeof(m->mcpu), "%.*s", (int)strcspn(p, " \t\r\n"), p);
	}
	strbuf_release(&out);
}

void loop_mca(struct loop_job *j, struct loop_mca *m)
{
	struct strbuf asm_text = STRBUF_INIT, block = STRBUF_INIT, out = STRBUF_INIT;
	struct tdp_err err = TDP_ERR_INIT;
	struct loop_block blk;
	struct strbuf path_s = STRBUF_INIT, path_hot = STRBUF_INIT, flag = STRBUF_INIT;
	const char *mcpu = mcpu_from_flags(j);
	char *argv[8];
	size_t k = 0, n = 0;
	int status = 0;

	memset(m, 0, sizeof(*m));
	strbuf_addf(&path_s, "%s/loop-main.s", j->dir);
	strbuf_addf(&path_hot, "%s/hot.s", j->dir);
	/* The measured translation unit, to assembly; -fno-lto so that it is assembly, not IR. */
	{
		size_t total = j->nr_cc + j->nr_cflags + 7;
		char **cargv = tdp_calloc(total + 1, sizeof(char *));

		if (!cargv)
			goto out;
		for (size_t i = 0; i < j->nr_cc; i++)
			cargv[n++] = j->cc_argv[i];
		for (size_t i = 0; i < j->nr_cflags; i++)
			cargv[n++] = j->cflags[i];
		cargv[n++] = "-fno-lto";
		cargv[n++] = "-S";
		cargv[n++] = "-I";
		cargv[n++] = j->incdir;
		cargv[n++] = "-o";
		cargv[n++] = path_s.buf;
		cargv[n++] = j->main_c;
		loop_notef(j, "compiling '%s' to assembly for llvm-mca", j->main_c);
		if (loop_spawn(cargv, true, &out, &status, &err) || !WIFEXITED(status) || WEXITSTATUS(status)) {
			snprintf(m->why_not, sizeof(m->why_not), "compiling to assembly failed");
			tdp_free(cargv);
			goto out;
		}
		tdp_free(cargv);
	}
	{
		struct tdp_file f = TDP_FILE_INIT;

		if (tdp_file_open(&f, path_s.buf, 256u << 20, &err)) {
			snprintf(m->why_not, sizeof(m->why_not), "cannot read the assembly: %.200s", err.msg);
			goto out;
		}
		strbuf_add(&asm_text, f.data, f.size);
		tdp_file_close(&f);
	}
	if (strstr(asm_text.buf, ".intel_syntax"))
		strbuf_adds(&block, "\t.intel_syntax noprefix\n");
	if (loop_asm_hot_block(asm_text.buf, asm_text.len, j->function, &block, &blk) || !blk.nr_insns) {
		snprintf(m->why_not, sizeof(m->why_not), "no code for '%s' in the assembly", j->function);
		goto out;
	}
	{
		FILE *f = fopen(path_hot.buf, "we");

		if (!f || fwrite(block.buf, 1, block.len, f) != block.len) {
			if (f)
				fclose(f);
			snprintf(m->why_not, sizeof(m->why_not), "cannot write '%s'", path_hot.buf);
			goto out;
		}
		fclose(f);
	}
	if (blk.is_loop)
		snprintf(m->what, sizeof(m->what), "innermost loop %s", blk.label);
	else
		snprintf(m->what, sizeof(m->what), "the whole function (it has no loop)");
	m->nr_insns = blk.nr_insns;
	k = 0;
	argv[k++] = "llvm-mca";
	if (mcpu) {
		strbuf_addf(&flag, "-mcpu=%s", mcpu);
		argv[k++] = flag.buf;
		snprintf(m->mcpu, sizeof(m->mcpu), "%s", mcpu);
	} else {
		host_cpu(m);
	}
	argv[k++] = path_hot.buf;
	argv[k] = NULL;
	loop_notef(j, "running: llvm-mca %s%s", mcpu ? flag.buf : "", path_hot.buf);
	strbuf_reset(&out);
	tdp_err_clear(&err);
	if (loop_spawn(argv, true, &out, &status, &err)) {
		snprintf(m->why_not, sizeof(m->why_not), "%.200s", err.code == TDP_ENOCMD ? "llvm-mca is not installed"
										   : err.msg);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) || loop_mca_parse(out.buf, out.len, m)) {
		snprintf(m->why_not, sizeof(m->why_not), "llvm-mca could not analyse the loop: %.*s",
			 (int)strcspn(out.buf, "\n"), out.buf);
		goto out;
	}
	m->ok = true;
out:
	strbuf_release(&asm_text);
	strbuf_release(&block);
	strbuf_release(&out);
	strbuf_release(&path_s);
	strbuf_release(&path_hot);
	strbuf_release(&flag);
}

/* The column of the Instruction Info header row (p[0..l)) whose label is "[col]", or SIZE_MAX. */
static size_t header_column(const char *p, size_t l, unsigned col)
{
	char label[8];
	const char *at;

	if (!col || col > 9)
		return SIZE_MAX;
	snprintf(label, sizeof(label), "[%u]", col);
	at = memmem(p, l, label, 3);
	return at ? (size_t)(at - p) : SIZE_MAX;
}

/* The legend line "[4]: MayLoad" names its column: the digit, or 0. */
static unsigned legend_column(const char *p, size_t l, const char *name)
{
	size_t n = strlen(name);

	if (l == 5 + n && p[0] == '[' && p[1] >= '1' && p[1] <= '9' && !memcmp(p + 2, "]: ", 3) && !memcmp(p + 5, name, n))
		return (unsigned)(p[1] - '0');
	return 0;
}

int loop_mca_parse_uops(const char *buf, size_t len, unsigned *uops, uint8_t *mem, size_t max, size_t *nr)
{
	bool in_table = false;
	unsigned load_col = 0, store_col = 0;
	size_t load_at = SIZE_MAX, store_at = SIZE_MAX;

	*nr = 0;
	for (size_t off = 0; off < len;) {
		const char *p = buf + off, *nl = memchr(p, '\n', len - off);
		size_t l = nl ? (size_t)(nl - p) : len - off, i = 0;
		unsigned long v = 0;
		uint8_t m = 0;

		off += l + (nl ? 1 : 0);
		if (!in_table) {
			load_col = load_col ? load_col : legend_column(p, l, "MayLoad");
			store_col = store_col ? store_col : legend_column(p, l, "MayStore");
			/* the header row of the Instruction Info view: "[1]    [2] ... Instructions:" */
			in_table = l >= 16 && !strncmp(p, "[1]", 3) && memmem(p, l, "Instructions:", 13);
			if (in_table) {
				load_at = header_column(p, l, load_col);
				store_at = header_column(p, l, store_col);
			}
			continue;
		}
		while (i < l && is_space(p[i]))
			i++;
		if (i == l)
			break; /* the blank line after the table */
		if (p[i] < '0' || p[i] > '9')
			return TDP_EFORMAT;
		for (; i < l && p[i] >= '0' && p[i] <= '9'; i++) {
			v = v * 10 + (unsigned long)(p[i] - '0');
			if (v > LOOP_MCA_MAX_UOPS)
				return TDP_EFORMAT;
		}
		if (*nr == max)
			return TDP_ELIMIT;
		/* a flag is a '*' under its label's three characters */
		for (size_t k = 0; k < 3; k++) {
			if (load_at != SIZE_MAX && load_at + k < l && p[load_at + k] == '*')
				m |= LOOP_MCA_MAY_LOAD;
			if (store_at != SIZE_MAX && store_at + k < l && p[store_at + k] == '*')
				m |= LOOP_MCA_MAY_STORE;
		}
		if (mem)
			mem[*nr] = m;
		uops[(*nr)++] = (unsigned)v;
	}
	return in_table ? 0 : TDP_EFORMAT;
}
