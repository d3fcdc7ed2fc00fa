/*
 * session.c: a symbol session's lifecycle, its options and the recorded
 * build-ids (the BUILD_ID feature and pipe-mode HEADER_BUILD_ID records).
 */
#include <string.h>

#include <libelf.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/perfdata.h"
#include "symbol/symbol-internal.h"

static const char *const default_debug_dirs[] = { "/usr/lib/debug", NULL };

void symbol_opts_init(struct symbol_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->debug_dirs = default_debug_dirs;
	o->running_kallsyms = "/proc/kallsyms";
	o->running_notes = "/sys/kernel/notes";
	o->perf_map_dir = "/tmp";
}

int symbol_session_new(struct symbol_session **out, const struct symbol_opts *opts,
		       struct tdp_err *err)
{
	struct symbol_session *s = tdp_calloc(1, sizeof(*s));

	if (!s)
		return tdp_err_oom(err);
	if (opts)
		s->opts = *opts;
	else
		symbol_opts_init(&s->opts);
	strbuf_init(&s->scratch, 0);
	/* libelf refuses to work until a version is chosen; the call is idempotent */
	elf_version(EV_CURRENT);
	*out = s;
	return 0;
}

void symbol_session_free(struct symbol_session *s)
{
	if (!s)
		return;
	symbol_disasm_close(s);
	symbol_maps_release(s);
	symbol_dsos_release(s);
	symbol_perfmaps_release(s);
	symtab_release(&s->ksyms.symtab);
	tdp_free(s->ksyms.buf);
	strbuf_release(&s->scratch);
	arena_release(&s->arena);
	tdp_free(s);
}

static bool is_kernel_bid_name(const char *name, size_t len)
{
	return len >= 17 && !strncmp(name, "[kernel.kallsyms]", 17);
}

static int bid_add(struct symbol_session *s, const char *name, size_t len, uint16_t misc,
		   const uint8_t *id, size_t size, struct tdp_err *err)
{
	unsigned cpumode = misc & PERFDATA_MISC_CPUMODE_MASK;
	struct bid_ent *b;

	if (size > 20)
		size = 20;
	if (!size || !len)
		return 0;
	if (cpumode == PERFDATA_MISC_GUEST_KERNEL || cpumode == PERFDATA_MISC_GUEST_USER)
		return 0;
	if (is_kernel_bid_name(name, len)) {
		s->have_kernel_bid = true;
		memcpy(s->kernel_bid, id, size);
		s->kernel_bid_size = (uint8_t)size;
	}
	if (s->nr_bids >= PERFDATA_MAX_LIST)
		return tdp_err_set(err, TDP_ELIMIT, "too many build-ids in the recording (more than %u)",
				   PERFDATA_MAX_LIST);
	if (TDP_GROW(s->bids, s->alloc_bids, s->nr_bids + 1))
		return tdp_err_oom(err);
	b = &s->bids[s->nr_bids];
	b->name = arena_strndup(&s->arena, name, len);
	if (!b->name)
		return tdp_err_oom(err);
	memcpy(b->id, id, size);
	b->size = (uint8_t)size;
	b->kernel = cpumode == PERFDATA_MISC_KERNEL;
	s->nr_bids++;
	return 0;
}

int symbol_session_add_features(struct symbol_session *s, const struct perfdata_features *f,
				struct tdp_err *err)
{
	int ret = 0;

	for (size_t i = 0; i < f->nr_build_ids && !ret; i++) {
		const struct perfdata_build_id *b = &f->build_ids[i];

		if (b->filename)
			ret = bid_add(s, b->filename, strlen(b->filename), b->misc, b->id, b->size, err);
	}
	return ret;
}

int symbol_session_add_build_id(struct symbol_session *s, const struct perfdata_record *rec,
				struct tdp_err *err)
{
	const struct perfdata_build_id_record *b = &rec->u.build_id;

	return bid_add(s, b->filename.s, strnlen(b->filename.s, b->filename.len), rec->misc, b->id,
		       b->size, err);
}

const char *symbol_sym_name(struct symbol_session *s, struct symbol_sym *sym)
{
	if (!sym->demangled)
		sym->demangled = symbol_display_name(&s->arena, &s->scratch, sym->name, s->opts.flags);
	return sym->demangled;
}
