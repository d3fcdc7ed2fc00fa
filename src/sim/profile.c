/* profile.c: the parsed cost-file structure, name interning and entry merging (see profile.h). */
#include "sim/profile.h"

#include <string.h>

#include "base/alloc.h"
#include "base/checked.h"
#include "base/err.h"
#include "base/file.h"
#include "sim/sim-internal.h"

struct sim_profile_index {
	struct sim_hashtab names;   /* values: name indices */
	struct sim_hashtab entries; /* values: entry indices */
};

static const char *const event_names[SIM_NR_EVENTS] = {
	[SIM_IR] = "Ir",     [SIM_I1MR] = "I1mr", [SIM_ILMR] = "ILmr", [SIM_DR] = "Dr",   [SIM_D1MR] = "D1mr",
	[SIM_DLMR] = "DLmr", [SIM_DW] = "Dw",     [SIM_D1MW] = "D1mw", [SIM_DLMW] = "DLmw", [SIM_BC] = "Bc",
	[SIM_BCM] = "Bcm",   [SIM_BI] = "Bi",     [SIM_BIM] = "Bim",  [SIM_I2MR] = "I2mr", [SIM_D2MR] = "D2mr",
	[SIM_D2MW] = "D2mw", [SIM_BR] = "Br",     [SIM_BRM] = "Brm",  [SIM_BTK] = "Btk",   [SIM_BTBM] = "Btbm",
	[SIM_DPF] = "Dpf",   [SIM_DSW] = "Dsw",   [SIM_DDEP] = "Ddep", [SIM_DCY2] = "Dcy2", [SIM_DCY3] = "Dcy3",
	[SIM_DCYM] = "DcyM", [SIM_IDSBM] = "Idsbm", [SIM_IMITE] = "Imite",
};
_Static_assert(SIM_NR_EVENTS <= 32, "sim_profile.have is a 32-bit mask");

const char *sim_event_name(enum sim_event e)
{
	if ((unsigned)e >= SIM_NR_EVENTS)
		return "?";
	return event_names[e];
}

uint64_t sim_hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *s = data;

	for (size_t i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t sim_hash_u64(uint64_t h, uint64_t v)
{
	/* splitmix64's finaliser: every input bit reaches every output bit. */
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

int sim_hashtab_reserve(struct sim_hashtab *t, uint64_t (*rehash)(const void *ctx, uint32_t value),
			const void *ctx)
{
	uint32_t *slot;
	size_t cap;

	if (t->cap && (t->nr + 1) * 2 <= t->cap)
		return 0;
	cap = t->cap ? t->cap * 2 : 64;
	slot = tdp_calloc(cap, sizeof(*slot));
	if (!slot)
		return TDP_ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->slot[i])
			continue;
		j = (size_t)rehash(ctx, t->slot[i] - 1) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = t->slot[i];
	}
	tdp_free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

void sim_hashtab_release(struct sim_hashtab *t)
{
	tdp_free(t->slot);
	t->slot = NULL;
	t->cap = 0;
	t->nr = 0;
}

void sim_profile_init(struct sim_profile *p)
{
	memset(p, 0, sizeof(*p));
}

void sim_profile_release(struct sim_profile *p)
{
	for (size_t i = 0; i < p->names_nr; i++)
		tdp_free(p->names[i]);
	tdp_free(p->names);
	tdp_free(p->v);
	tdp_free(p->cmd);
	if (p->index) {
		sim_hashtab_release(&p->index->names);
		sim_hashtab_release(&p->index->entries);
		tdp_free(p->index);
	}
	sim_profile_init(p);
}

const char *sim_profile_name(const struct sim_profile *p, uint32_t idx)
{
	if (idx == SIM_NO_NAME || idx >= p->names_nr)
		return "???";
	return p->names[idx];
}

static int get_index(struct sim_profile *p)
{
	if (!p->index) {
		p->index = tdp_calloc(1, sizeof(*p->index));
		if (!p->index)
			return TDP_ENOMEM;
	}
	return 0;
}

static uint64_t name_hash(const void *ctx, uint32_t value)
{
	const struct sim_profile *p = ctx;
	const char *s = p->names[value];

	return sim_hash_bytes(SIM_HASH_SEED, s, strlen(s));
}

int sim_profile_intern(struct sim_profile *p, const char *s, size_t len, uint32_t *out)
{
	struct sim_hashtab *t;
	uint64_t h = sim_hash_bytes(SIM_HASH_SEED, s, len);
	size_t j;
	char *copy;
	int ret;

	if ((ret = get_index(p)))
		return ret;
	t = &p->index->names;
	if (t->cap) {
		for (j = (size_t)h & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1)) {
			const char *n = p->names[t->slot[j] - 1];

			if (strncmp(n, s, len) == 0 && n[len] == '\0') {
				*out = t->slot[j] - 1;
				return 0;
			}
		}
	}
	if (p->names_nr >= SIM_MAX_NAMES)
		return TDP_ELIMIT;
	if ((ret = sim_hashtab_reserve(t, name_hash, p)))
		return ret;
	if (TDP_GROW(p->names, p->names_alloc, p->names_nr + 1))
		return TDP_ENOMEM;
	copy = tdp_strndup(s, len);
	if (!copy)
		return TDP_ENOMEM;
	p->names[p->names_nr] = copy;
	for (j = (size_t)h & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1))
		;
	t->slot[j] = (uint32_t)p->names_nr + 1;
	t->nr++;
	*out = (uint32_t)p->names_nr++;
	return 0;
}

/* One multiply per field and one finaliser (the table only needs the low bits spread;
 * every cost line of a file is looked up here). */
static inline uint64_t key_hash(uint32_t obj, uint32_t file, uint32_t fn, uint64_t line, uint64_t addr)
{
	uint64_t h = (((uint64_t)obj << 32) | file) * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)fn + (line << 20)) * 0xc2b2ae3d27d4eb4full;
	h ^= addr * 0x165667b19e3779f9ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static uint64_t entry_hash(const void *ctx, uint32_t value)
{
	const struct sim_entry *e = &((const struct sim_profile *)ctx)->v[value];

	return key_hash(e->obj, e->file, e->fn, e->line, e->addr);
}

int sim_profile_add(struct sim_profile *p, uint32_t obj, uint32_t file, uint32_t fn, uint64_t line,
		    uint64_t addr, const struct sim_cost *cost)
{
	uint64_t h = key_hash(obj, file, fn, line, addr);
	struct sim_hashtab *t;
	struct sim_entry *e = NULL;
	size_t j = 0;
	int ret;

	if ((ret = get_index(p)))
		return ret;
	/* Nothing is added when a total would overflow; an entry's cost is part of the
	 * total, so its sum cannot overflow when the total's does not. */
	if (!sim_cost_small(&p->totals, cost))
		for (size_t i = 0; i < SIM_NR_EVENTS; i++)
			if (cost->v[i] > UINT64_MAX - p->totals.v[i])
				return TDP_EFORMAT;
	t = &p->index->entries;
	if (t->cap) {
		for (j = (size_t)h & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1)) {
			struct sim_entry *x = &p->v[t->slot[j] - 1];

			if (x->addr == addr && x->line == line && x->fn == fn && x->obj == obj && x->file == file) {
				e = x;
				break;
			}
		}
	}
	if (e) {
		for (size_t i = 0; i < SIM_NR_EVENTS; i++)
			e->cost.v[i] += cost->v[i];
	} else {
		if (p->nr >= SIM_MAX_ENTRIES)
			return TDP_ELIMIT;
		if ((ret = sim_hashtab_reserve(t, entry_hash, p)))
			return ret;
		if (p->nr == p->alloc && TDP_GROW(p->v, p->alloc, p->nr + 1))
			return TDP_ENOMEM;
		e = &p->v[p->nr];
		e->obj = obj;
		e->file = file;
		e->fn = fn;
		e->line = line;
		e->addr = addr;
		e->cost = *cost;
		for (j = (size_t)h & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1))
			;
		t->slot[j] = (uint32_t)p->nr + 1;
		t->nr++;
		p->nr++;
		if (addr)
			p->has_addr = true;
	}
	for (size_t i = 0; i < SIM_NR_EVENTS; i++)
		p->totals.v[i] += cost->v[i];
	return 0;
}

int sim_cachegrind_parse(struct sim_profile *p, const uint8_t *buf, size_t len, const char *name,
			 struct tdp_err *err)
{
	return sim_parse(p, buf, len, name, SIM_FORMAT_CACHEGRIND, err);
}

int sim_callgrind_parse(struct sim_profile *p, const uint8_t *buf, size_t len, const char *name,
			struct tdp_err *err)
{
	return sim_parse(p, buf, len, name, SIM_FORMAT_CALLGRIND, err);
}

/* True when the line at s[0..n) starts with prefix. */
static bool line_starts(const uint8_t *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);

	return n >= pl && memcmp(s, prefix, pl) == 0;
}

int sim_profile_parse(struct sim_profile *p, const uint8_t *buf, size_t len, const char *name,
		      struct tdp_err *err)
{
	enum sim_format fmt = SIM_FORMAT_CACHEGRIND;
	size_t off = 0;

	/* Callgrind's markers come first (format line, version, creator); cachegrind
	 * files start with desc:/cmd:/events:. Look at the first few lines only. */
	for (int i = 0; i < 8 && off < len; i++) {
		const uint8_t *s = buf + off;
		const uint8_t *nl = memchr(s, '\n', len - off);
		size_t n = nl ? (size_t)(nl - s) : len - off;

		if (line_starts(s, n, "# callgrind format") || line_starts(s, n, "version:") ||
		    line_starts(s, n, "creator: callgrind") || line_starts(s, n, "positions:")) {
			fmt = SIM_FORMAT_CALLGRIND;
			break;
		}
		if (line_starts(s, n, "events:") || line_starts(s, n, "fl=") || line_starts(s, n, "fn="))
			break;
		off += n + 1;
	}
	return sim_parse(p, buf, len, name, fmt, err);
}

int sim_profile_load(struct sim_profile *p, const char *path, struct tdp_err *err)
{
	struct tdp_file f = TDP_FILE_INIT;
	int ret;

	ret = tdp_file_open(&f, path, SIM_MAX_FILE_SIZE, err);
	if (ret)
		return ret;
	ret = sim_profile_parse(p, f.data, f.size, path, err);
	tdp_file_close(&f);
	return ret;
}
