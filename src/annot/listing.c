/*
 * listing.c: a function's instructions and their source positions, from a
 * symbol session (annot_listing(), annot.h).
 */
#include "annot/annot.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/branch-entry.h"
#include "symbol/symbol.h"

static void insn_init(struct annot_insn *in, uint64_t vaddr)
{
	memset(in, 0, sizeof(*in));
	in->addr = vaddr;
	in->line = ANNOT_NONE;
	in->rate = in->pct = in->avg_cycles = in->ipc = NAN;
	in->text = "";
}

static int insns_reserve(struct annot_doc *d, size_t *alloc, size_t need)
{
	return TDP_GROW(d->insns, *alloc, need) ? TDP_ENOMEM : 0;
}

/* Append the decoded instructions of dis from its target on; returns how many were added. */
static size_t append_decoded(struct annot_doc *d, size_t *alloc, const struct symbol_disasm *dis, uint64_t vend,
			     int *rc)
{
	size_t added = 0;

	for (size_t k = dis->target; k < dis->nr; k++) {
		const struct symbol_insn *si = &dis->insns[k];
		struct annot_insn *in;
		char text[sizeof(si->mnemonic) + sizeof(si->operands) + 2];

		if ((vend && si->vaddr >= vend) || (d->nr_insns && si->vaddr <= d->insns[d->nr_insns - 1].addr))
			break;
		if (d->nr_insns >= ANNOT_MAX_INSNS) {
			d->truncated = true;
			break;
		}
		if ((*rc = insns_reserve(d, alloc, d->nr_insns + 1)))
			return added;
		in = &d->insns[d->nr_insns];
		insn_init(in, si->vaddr);
		in->size = si->size;
		memcpy(in->bytes, si->bytes, si->size < sizeof(in->bytes) ? si->size : sizeof(in->bytes));
		in->branch_type = si->branch_type;
		snprintf(text, sizeof(text), "%s%s%s", si->mnemonic, si->operands[0] ? " " : "", si->operands);
		if (!(in->text = annot_str(d, text))) {
			*rc = TDP_ENOMEM;
			return added;
		}
		d->nr_insns++;
		added++;
	}
	return added;
}

/* Decode the whole function (in calls of at most SYMBOL_MAX_CONTEXT instructions). */
static int decode(struct annot_doc *d, const struct annot_where *w, struct tdp_err *err)
{
	uint64_t cur = w->start, vend = w->size ? w->vaddr + w->size : 0;
	size_t alloc = 0;
	int rc = 0;

	while (!rc && !d->truncated) {
		struct symbol_disasm dis = SYMBOL_DISASM_INIT;
		struct tdp_err e = TDP_ERR_INIT;
		size_t added;

		rc = symbol_disasm(w->s, w->pid, cur, 0, SYMBOL_MAX_CONTEXT, &dis, &e);
		if (rc == TDP_ENOMEM)
			return tdp_err_oom(err);
		if (rc) {
			/* the first call says why there is no code; a later one met the function's end */
			if (!d->nr_insns)
				d->no_disasm = annot_str(d, e.msg[0] ? e.msg : "cannot disassemble");
			return 0;
		}
		added = append_decoded(d, &alloc, &dis, vend, &rc);
		symbol_disasm_release(&dis);
		if (rc)
			return tdp_err_oom(err);
		if (!added || dis.nr - dis.target <= SYMBOL_MAX_CONTEXT)
			break; /* the decoder stopped at the function's end */
		cur = w->start + (d->insns[d->nr_insns - 1].addr - w->vaddr) + d->insns[d->nr_insns - 1].size;
		if (vend && d->insns[d->nr_insns - 1].addr + d->insns[d->nr_insns - 1].size >= vend)
			break;
	}
	d->disassembled = d->nr_insns > 0;
	return 0;
}

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* No code: the counted addresses are the listing. */
static int addrs_only(struct annot_doc *d, const struct annot_where *w, struct tdp_err *err)
{
	uint64_t *v = tdp_calloc(w->nr_counted + 1, sizeof(*v));
	size_t alloc = 0;

	if (!v)
		return tdp_err_oom(err);
	memcpy(v, w->counted, w->nr_counted * sizeof(*v));
	qsort(v, w->nr_counted, sizeof(*v), u64_cmp);
	for (size_t i = 0; i < w->nr_counted && d->nr_insns < ANNOT_MAX_INSNS; i++) {
		if (d->nr_insns && d->insns[d->nr_insns - 1].addr == v[i])
			continue;
		if (insns_reserve(d, &alloc, d->nr_insns + 1)) {
			tdp_free(v);
			return tdp_err_oom(err);
		}
		insn_init(&d->insns[d->nr_insns++], v[i]);
	}
	tdp_free(v);
	return 0;
}

/* A direct branch's or call's target from its operand ("0x11d2", Arm "#0x11d2"); false when none. */
static bool direct_target(const struct annot_insn *in, uint64_t *t)
{
	const char *op = strchr(in->text, ' '), *hex;
	char *end = NULL;
	unsigned long long v;

	if (!op || (in->branch_type != BRANCH_TYPE_COND && in->branch_type != BRANCH_TYPE_UNCOND &&
		    in->branch_type != BRANCH_TYPE_CALL))
		return false;
	hex = op[1] == '#' ? op + 2 : op + 1;
	if (hex[0] != '0' || hex[1] != 'x')
		return false;
	v = strtoull(hex, &end, 16);
	if (!end || *end)
		return false;
	*t = (uint64_t)v;
	return true;
}

static const char *target_name(struct annot_doc *d, const char *fn, uint64_t off)
{
	char buf[512];

	if (!fn)
		return NULL;
	if (off)
		snprintf(buf, sizeof(buf), "%s+%#" PRIx64, fn, off);
	else
		snprintf(buf, sizeof(buf), "%s", fn);
	return annot_str(d, buf);
}

/* One line per distinct (file, line): linear probing over the doc's interned file pointers. */
struct line_tab {
	size_t *slots; /* line index + 1 */
	size_t cap, alloc;
};

static int line_get(struct annot_doc *d, struct line_tab *t, const char *file, uint32_t line, size_t *out)
{
	size_t h = ((uintptr_t)file * 31u + line) * 0x9e3779b97f4a7c15ull, j;

	if ((d->nr_lines + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		size_t *s = tdp_calloc(cap, sizeof(*s));

		if (!s)
			return TDP_ENOMEM;
		for (size_t i = 0; i < d->nr_lines; i++) {
			size_t k = ((uintptr_t)d->lines[i].file * 31u + d->lines[i].line) * 0x9e3779b97f4a7c15ull;

			for (k &= cap - 1; s[k]; k = (k + 1) & (cap - 1))
				;
			s[k] = i + 1;
		}
		tdp_free(t->slots);
		t->slots = s;
		t->cap = cap;
	}
	for (j = h & (t->cap - 1); t->slots[j]; j = (j + 1) & (t->cap - 1)) {
		const struct annot_line *l = &d->lines[t->slots[j] - 1];

		if (l->file == file && l->line == line) {
			*out = t->slots[j] - 1;
			return 0;
		}
	}
	if (TDP_GROW(d->lines, t->alloc, d->nr_lines + 1))
		return TDP_ENOMEM;
	memset(&d->lines[d->nr_lines], 0, sizeof(d->lines[0]));
	d->lines[d->nr_lines].file = file;
	d->lines[d->nr_lines].line = line;
	d->lines[d->nr_lines].has_code = true;
	d->lines[d->nr_lines].rate = d->lines[d->nr_lines].pct = NAN;
	t->slots[j] = ++d->nr_lines;
	*out = d->nr_lines - 1;
	return 0;
}

/* The instruction's source line and inline chain from its symbol_result. */
static int place(struct annot_doc *d, struct line_tab *t, size_t i, const struct symbol_result *r, size_t *frame_off)
{
	struct annot_insn *in = &d->insns[i];
	const char *file = r->file ? annot_intern(d, r->file) : NULL;
	size_t li;

	if (r->file && !file)
		return TDP_ENOMEM;
	frame_off[i] = d->nr_frames;
	for (size_t k = 0; k < r->nr_frames; k++) {
		struct annot_frame *f;

		if (TDP_GROW(d->frames, d->alloc_frames, d->nr_frames + 1))
			return TDP_ENOMEM;
		f = &d->frames[d->nr_frames++];
		f->function = annot_intern(d, r->frames[k].function);
		f->file = annot_intern(d, r->frames[k].file);
		f->line = r->frames[k].line;
		if ((r->frames[k].function && !f->function) || (r->frames[k].file && !f->file))
			return TDP_ENOMEM;
	}
	in->nr_frames = r->nr_frames;
	if (!file || !r->line)
		return 0;
	if (line_get(d, t, file, r->line, &li))
		return TDP_ENOMEM;
	in->line = li;
	if (!d->lines[li].function) {
		const char *fn = r->nr_frames && r->frames[0].function ? r->frames[0].function : r->function;

		d->lines[li].function = annot_intern(d, fn ? fn : d->function);
		d->lines[li].inlined = r->nr_frames > 1;
	}
	return 0;
}

/* Resolve every instruction (lines, inline chains) and every outside target (names) in one call. */
static int resolve(struct annot_doc *d, const struct annot_where *w, struct tdp_err *err)
{
	uint64_t bias = w->start - w->vaddr, vend = w->vaddr + (w->size ? w->size : 0), t;
	size_t n = d->nr_insns, nt = 0, *frame_off = NULL;
	struct symbol_addr *a = tdp_calloc(2 * n + 1, sizeof(*a));
	struct symbol_result *r = tdp_calloc(2 * n + 1, sizeof(*r));
	struct line_tab tab = { NULL, 0, 0 };
	int rc = TDP_ENOMEM;

	frame_off = tdp_calloc(n + 1, sizeof(*frame_off));
	if (!a || !r || !frame_off)
		goto out;
	for (size_t i = 0; i < n; i++)
		a[i] = (struct symbol_addr){ d->insns[i].addr + bias, w->pid };
	for (size_t i = 0; i < n; i++)
		if (direct_target(&d->insns[i], &t) && (t < w->vaddr || (w->size && t >= vend)))
			a[n + nt++] = (struct symbol_addr){ t + bias, w->pid };
	if ((rc = symbol_resolve(w->s, a, n + nt, r, err)))
		goto out;
	rc = TDP_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (place(d, &tab, i, &r[i], frame_off))
			goto out;
	for (size_t i = 0; i < n; i++)
		d->insns[i].frames = d->insns[i].nr_frames ? &d->frames[frame_off[i]] : NULL;
	nt = 0;
	for (size_t i = 0; i < n; i++) {
		struct annot_insn *in = &d->insns[i];

		if (!direct_target(in, &t))
			continue;
		if (t >= w->vaddr && (!w->size || t < vend)) {
			in->target = target_name(d, d->function, t - w->vaddr);
		} else {
			const struct symbol_result *x = &r[n + nt++];

			in->target = x->status == SYMBOL_OK ? target_name(d, x->function, x->offset) : NULL;
		}
	}
	rc = 0;
out:
	tdp_free(a);
	tdp_free(r);
	tdp_free(frame_off);
	tdp_free(tab.slots);
	return rc == TDP_ENOMEM ? tdp_err_oom(err) : rc;
}

int annot_listing(struct annot_doc *d, const struct annot_where *w, struct tdp_err *err)
{
	int rc = decode(d, w, err);

	if (!rc && !d->disassembled)
		rc = addrs_only(d, w, err);
	if (!rc && d->nr_insns)
		rc = resolve(d, w, err);
	if (!rc && d->truncated)
		annot_note(d, "the function has more instructions than are listed (ANNOT_MAX_INSNS): the rest is left out");
	return rc;
}
