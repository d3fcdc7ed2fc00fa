/* machine.c: --sim-machine parsing, validation and valgrind's cache options (see machine.h). */
#include "base/docpath.h"
#include "sim/machine.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"

#define MAX_KEY 32
#define MAX_VALUE 64

/* The numeric parameters: key, field, range. */
struct num_param {
	const char *key;
	size_t offset;
	double min, max;
	const char *unit;
};

#define NUM(k, f, lo, hi, u) { k, offsetof(struct sim_machine, f), lo, hi, u }
static const struct num_param num_params[] = {
	NUM("width", width, 1, 16, "slots per cycle"),
	NUM("uops-per-insn", uops_per_insn, 0.1, 8, "µops per instruction"),
	NUM("branch-penalty", branch_penalty, 0, 200, "cycles"),
	NUM("i1-latency", i1_latency, 0, 1000, "cycles"),
	NUM("ll-latency", ll_latency, 0, 1000, "cycles"),
	NUM("mem-latency", mem_latency, 0, 10000, "cycles"),
	NUM("mlp", mlp, 1, 64, "misses in flight"),
	NUM("stream-mlp", stream_mlp, 1, 64, "misses in flight"),
	NUM("stream-ratio", stream_ratio, 0, 1, "misses per read"),
	NUM("resteer-latency", resteer_latency, 0, 200, "cycles"),
	NUM("indirect-resteer", indirect_resteer, 0, 100, "cycles"),
	NUM("indep-mlp", indep_mlp, 1, 64, "misses in flight"),
	NUM("l1-latency", l1_latency, 1, 100, "cycles"),
	NUM("l2-latency", l2_latency, 1, 1000, "cycles"),
	NUM("l3-latency", l3_latency, 1, 1000, "cycles"),
	NUM("rob", rob, 1, 4096, "reorder buffer entries"),
	NUM("mshr", mshr, 1, 64, "L1D misses in flight"),
	NUM("l2-bw", l2_bw, 0, 1000, "bytes per cycle from L2, 0: unlimited"),
	NUM("l3-bw", l3_bw, 0, 1000, "bytes per cycle from L3, 0: unlimited"),
	NUM("mem-bw", mem_bw, 0, 1000, "bytes per cycle from DRAM, 0: unlimited"),
	NUM("btb-entries", btb_entries, 0, 1 << 20, "BTB entries, 0: none"),
	NUM("btb-assoc", btb_assoc, 1, 64, "ways"),
	NUM("btb-penalty", btb_penalty, 0, 100, "cycles"),
	NUM("dsb-windows", dsb_windows, 0, 65536, "µop-cache windows, 0: none"),
	NUM("dsb-assoc", dsb_assoc, 1, 64, "ways"),
	NUM("dsb-window", dsb_window, 16, 4096, "bytes"),
	NUM("decode-width", decode_width, 1, 16, "instructions per cycle"),
	NUM("dsb-switch", dsb_switch, 0, 50, "cycles"),
	NUM("prefetch-stride", pf_stride, 0, 1, "1 on, 0 off"),
	NUM("prefetch-stream", pf_stream, 0, 1, "1 on, 0 off"),
	NUM("prefetch-max-stride", pf_max_stride, 0, 1 << 20, "bytes"),
	NUM("dep-range", dep_range, 0, 65536, "bytes"),
	NUM("rep-start-uops", rep_start_uops, 0, 1000, "µops per rep-string start"),
	NUM("rep-bytes-per-uop", rep_bytes_per_uop, 1, 1024, "bytes a rep string moves per µop"),
};
#define NR_NUM (sizeof(num_params) / sizeof(num_params[0]))

/* Every key, for suggestions. */
static const char *const all_keys[] = {
	"i1", "i1-size", "i1-assoc", "i1-line", "d1", "d1-size", "d1-assoc", "d1-line",
	"ll", "ll-size", "ll-assoc", "ll-line", "width", "uops-per-insn", "branch-penalty",
	"i1-latency", "ll-latency", "mem-latency", "mlp", "stream-mlp", "stream-ratio",
	"resteer-latency", "indirect-resteer", "indep-mlp", "l2", "l2-size", "l2-assoc", "l2-line",
	"l1-latency", "l2-latency", "l3-latency", "rob", "mshr", "l2-bw", "l3-bw", "mem-bw", "btb-entries", "btb-assoc",
	"btb-penalty", "dsb-windows", "dsb-assoc", "dsb-window", "decode-width", "dsb-switch",
	"prefetch-stride", "prefetch-stream", "prefetch-max-stride", "dep-range", "rep-start-uops", "rep-bytes-per-uop",
};
#define NR_KEYS (sizeof(all_keys) / sizeof(all_keys[0]))

static void preset_list(char *buf, size_t size)
{
	const struct sim_machine_preset *p;
	size_t nr, len = 0;

	p = sim_machine_presets(&nr);
	buf[0] = '\0';
	for (size_t i = 0; i < nr && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", p[i].name);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

static bool find_preset(const char *name, struct sim_machine *m)
{
	const struct sim_machine_preset *p;
	size_t nr;

	p = sim_machine_presets(&nr);
	for (size_t i = 0; i < nr; i++) {
		if (strcmp(p[i].name, name) == 0) {
			*m = p[i].m;
			return true;
		}
	}
	return false;
}

static int unknown_preset(const char *name, const char *why, struct tdp_err *err)
{
	const struct sim_machine_preset *p;
	const char *names[16];
	size_t nr, idx[1], n;
	char list[256];

	p = sim_machine_presets(&nr);
	for (size_t i = 0; i < nr && i < 16; i++)
		names[i] = p[i].name;
	n = str_suggest(name, names, nr < 16 ? nr : 16, idx, 1);
	if (n)
		tdp_err_set(err, TDP_EUSAGE, "unknown machine '%s'%s; did you mean '%s'?", name, why, names[idx[0]]);
	else
		tdp_err_set(err, TDP_EUSAGE, "unknown machine '%s'%s", name, why);
	preset_list(list, sizeof(list));
	tdp_err_hint(err, "use one of %s, KEY=VAL,... or a file (see " TDP_DOC_SIM_MACHINE ")", list);
	return TDP_EUSAGE;
}

int sim_machine_preset(struct sim_machine *m, const char *name, struct tdp_err *err)
{
	struct sim_machine tmp;

	if (!find_preset(name, &tmp))
		return unknown_preset(name, "", err);
	*m = tmp;
	return 0;
}

/* "32768", "32K", "32KiB", "48 KB", "8M", "1G": binary multiples. */
static bool parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} sfx[] = {
		{ "", 0 },     { "K", 10 },  { "k", 10 },  { "KB", 10 }, { "KiB", 10 }, { "kB", 10 }, { "M", 20 },
		{ "MB", 20 },  { "MiB", 20 }, { "G", 30 }, { "GB", 30 }, { "GiB", 30 }, { "B", 0 },
	};
	size_t n = 0, len = strlen(s);
	uint64_t v;

	while (n < len && isdigit((unsigned char)s[n]))
		n++;
	if (!n || !str_to_u64_n(s, n, &v))
		return false;
	while (s[n] == ' ')
		n++;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (strcmp(s + n, sfx[i].suffix) == 0) {
			if (v > (UINT64_MAX >> sfx[i].shift))
				return false;
			*out = v << sfx[i].shift;
			return true;
		}
	}
	return false;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!str_to_u64(s, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static struct sim_cache *cache_of(struct sim_machine *m, const char *key, const char **field)
{
	struct sim_cache *c = NULL;

	if (str_starts_with(key, "i1"))
		c = &m->i1;
	else if (str_starts_with(key, "d1"))
		c = &m->d1;
	else if (str_starts_with(key, "ll"))
		c = &m->ll;
	else if (str_starts_with(key, "l2") && (key[2] == '\0' || key[2] == '-'))
		c = &m->l2;
	else
		return NULL;
	*field = key + 2;
	if (**field != '\0' && strcmp(*field, "-size") != 0 && strcmp(*field, "-assoc") != 0 &&
	    strcmp(*field, "-line") != 0)
		return NULL;
	return c;
}

static int bad_value(const char *key, const char *value, const char *want, struct tdp_err *err)
{
	tdp_err_set(err, TDP_EUSAGE, "bad value '%s' for machine key '%s'", value, key);
	tdp_err_hint(err, "'%s' takes %s", key, want);
	return TDP_EUSAGE;
}

int sim_machine_set(struct sim_machine *m, const char *key, const char *value, struct tdp_err *err)
{
	const char *field;
	struct sim_cache *c;

	c = cache_of(m, key, &field);
	if (c) {
		struct sim_cache nc = *c;

		if (!*field) {
			/* SIZE:ASSOC:LINE */
			char buf[MAX_VALUE];
			char *a, *l;

			if (strlen(value) >= sizeof(buf))
				return bad_value(key, value, "SIZE:ASSOC:LINE, e.g. 32K:8:64", err);
			memcpy(buf, value, strlen(value) + 1);
			a = strchr(buf, ':');
			l = a ? strchr(a + 1, ':') : NULL;
			if (!a || !l)
				return bad_value(key, value, "SIZE:ASSOC:LINE, e.g. 32K:8:64", err);
			*a++ = '\0';
			*l++ = '\0';
			if (!parse_size(buf, &nc.size) || !parse_u32(a, &nc.assoc) || !parse_u32(l, &nc.line))
				return bad_value(key, value, "SIZE:ASSOC:LINE, e.g. 32K:8:64", err);
		} else if (strcmp(field, "-size") == 0) {
			if (!parse_size(value, &nc.size))
				return bad_value(key, value, "a size in bytes (K, M, G suffixes: 32K, 48KiB, 32M)", err);
		} else if (strcmp(field, "-assoc") == 0) {
			if (!parse_u32(value, &nc.assoc))
				return bad_value(key, value, "a number of ways", err);
		} else if (!parse_u32(value, &nc.line)) {
			return bad_value(key, value, "a line size in bytes", err);
		}
		*c = nc;
		m->modified = true;
		return 0;
	}
	for (size_t i = 0; i < NR_NUM; i++) {
		const struct num_param *np = &num_params[i];
		double v;

		if (strcmp(np->key, key) != 0)
			continue;
		if (!str_to_double(value, &v) || v < np->min || v > np->max) {
			tdp_err_set(err, TDP_EUSAGE, "bad value '%s' for machine key '%s'", value, key);
			tdp_err_hint(err, "'%s' takes a number from %g to %g (%s)", key, np->min, np->max,
					    np->unit);
			return TDP_EUSAGE;
		}
		*(double *)(void *)((char *)m + np->offset) = v;
		m->modified = true;
		return 0;
	}
	{
		size_t idx[1];

		if (str_suggest(key, all_keys, NR_KEYS, idx, 1))
			tdp_err_set(err, TDP_EUSAGE, "unknown machine key '%s'; did you mean '%s'?", key,
				    all_keys[idx[0]]);
		else
			tdp_err_set(err, TDP_EUSAGE, "unknown machine key '%s'", key);
		tdp_err_hint(err, "keys: i1, d1, l2, ll (SIZE:ASSOC:LINE) or their -size/-assoc/-line, width, "
				    "branch-penalty, latencies (i1-, l1-, l2-, l3-, ll-, mem-latency), rob, mshr, "
				    "l2-bw, l3-bw, mem-bw, ... (see " TDP_DOC_SIM_MACHINE ")");
		return TDP_EUSAGE;
	}
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* A size as a --sim-machine value: "16M", "48K" or bytes. */
static void size_value(uint64_t b, char *out, size_t n)
{
	if (b >= (1ull << 20) && !(b & ((1ull << 20) - 1)))
		snprintf(out, n, "%lluM", (unsigned long long)(b >> 20));
	else if (b >= 1024 && !(b & 1023))
		snprintf(out, n, "%lluK", (unsigned long long)(b >> 10));
	else
		snprintf(out, n, "%llu", (unsigned long long)b);
}

static int check_cache(const struct sim_cache *c, const char *k, bool pow2, struct tdp_err *err)
{
	uint64_t way_bytes, sets, lo;

	if (!is_pow2(c->line) || c->line < SIM_CACHE_MIN_LINE || c->line > SIM_CACHE_MAX_LINE) {
		tdp_err_set(err, TDP_EUSAGE, "machine key '%s-line': %u B is not a power of two from %u to %u",
			    k, c->line, SIM_CACHE_MIN_LINE, SIM_CACHE_MAX_LINE);
		tdp_err_hint(err, "use %s-line=64 (every current x86 and Arm core)", k);
		return TDP_EUSAGE;
	}
	if (c->assoc < 1 || c->assoc > SIM_CACHE_MAX_ASSOC) {
		tdp_err_set(err, TDP_EUSAGE, "machine key '%s-assoc': %u ways is not from 1 to %u", k, c->assoc,
			    SIM_CACHE_MAX_ASSOC);
		tdp_err_hint(err, "use the cache's associativity, e.g. %s-assoc=8", k);
		return TDP_EUSAGE;
	}
	way_bytes = (uint64_t)c->assoc * c->line;
	if (c->size < way_bytes || c->size > SIM_CACHE_MAX_SIZE) {
		tdp_err_set(err, TDP_EUSAGE, "machine key '%s-size': %llu B is not from %llu B (one set) to 1 GiB", k,
			    (unsigned long long)c->size, (unsigned long long)way_bytes);
		tdp_err_hint(err, "give the size with a suffix, e.g. %s-size=32K", k);
		return TDP_EUSAGE;
	}
	sets = c->size / way_bytes;
	if (c->size % way_bytes || (pow2 && !is_pow2(sets))) {
		/* valgrind's simulator indexes sets by address bits (cg-arch.c: "Cache set count
		 * is not a power of two"): offer the two nearest sizes that work. */
		char below[32], above[32];

		lo = 1;
		while (lo * 2 <= sets)
			lo *= 2;
		size_value(lo * way_bytes, below, sizeof(below));
		size_value(lo * 2 * way_bytes, above, sizeof(above));
		tdp_err_set(err, TDP_EUSAGE,
			    "machine key '%s-size': %llu B with %u ways of %u B lines is not a power-of-two "
			    "number of sets, which valgrind needs",
			    k, (unsigned long long)c->size, c->assoc, c->line);
		tdp_err_hint(err, "use %s-size=%s or %s-size=%s (or change %s-assoc)", k, below, k, above, k);
		return TDP_EUSAGE;
	}
	return 0;
}

int sim_machine_validate(const struct sim_machine *m, struct tdp_err *err)
{
	int ret;

	if ((ret = check_cache(&m->i1, "i1", true, err)) || (ret = check_cache(&m->d1, "d1", true, err)) ||
	    (ret = check_cache(&m->ll, "ll", true, err)) || (ret = check_cache(&m->l2, "l2", false, err)))
		return ret;
	for (size_t i = 0; i < NR_NUM; i++) {
		const struct num_param *np = &num_params[i];
		double v = *(const double *)(const void *)((const char *)m + np->offset);

		if (!isfinite(v) || v < np->min || v > np->max) {
			tdp_err_set(err, TDP_EUSAGE, "machine key '%s': %g is not from %g to %g", np->key, v, np->min,
				    np->max);
			tdp_err_hint(err, "set %s=VALUE (%s)", np->key, np->unit);
			return TDP_EUSAGE;
		}
	}
	if (m->resteer_latency > m->branch_penalty) {
		tdp_err_set(err, TDP_EUSAGE, "machine key 'resteer-latency': %g is more than branch-penalty (%g)",
			    m->resteer_latency, m->branch_penalty);
		tdp_err_hint(err, "the resteer is the front-end part of a mispredict's cost: e.g. resteer-latency=%g",
			     m->branch_penalty / 2);
		return TDP_EUSAGE;
	}
	if (m->ll.line < m->d1.line || m->ll.line < m->i1.line) {
		tdp_err_set(err, TDP_EUSAGE, "machine: the LL line (%u B) is smaller than an L1 line", m->ll.line);
		tdp_err_hint(err, "use the same line size on every level, e.g. ll-line=64");
		return TDP_EUSAGE;
	}
	if (m->l2.line != m->d1.line || m->i1.line != m->d1.line || m->ll.line != m->d1.line) {
		tdp_err_set(err, TDP_EUSAGE, "machine: the caches' lines differ (%u, %u, %u and %u B)", m->i1.line,
			    m->d1.line, m->l2.line, m->ll.line);
		tdp_err_hint(err, "use the same line size on every level, e.g. l2-line=%u", m->d1.line);
		return TDP_EUSAGE;
	}
	if (m->l2.size / ((uint64_t)m->l2.assoc * m->l2.line) > (1u << 24)) {
		tdp_err_set(err, TDP_EUSAGE, "machine key 'l2-size': more than 2^24 sets");
		tdp_err_hint(err, "give the L2's real size, e.g. l2-size=1M");
		return TDP_EUSAGE;
	}
	if (m->btb_entries > 0 && fmod(m->btb_entries, m->btb_assoc) != 0) {
		tdp_err_set(err, TDP_EUSAGE, "machine key 'btb-entries': %g is not a multiple of btb-assoc (%g)",
			    m->btb_entries, m->btb_assoc);
		tdp_err_hint(err, "use e.g. btb-entries=8192 with btb-assoc=8");
		return TDP_EUSAGE;
	}
	if (m->dsb_windows > 0 && fmod(m->dsb_windows, m->dsb_assoc) != 0) {
		tdp_err_set(err, TDP_EUSAGE, "machine key 'dsb-windows': %g is not a multiple of dsb-assoc (%g)",
			    m->dsb_windows, m->dsb_assoc);
		tdp_err_hint(err, "use e.g. dsb-windows=256 with dsb-assoc=8");
		return TDP_EUSAGE;
	}
	if (!is_pow2((uint64_t)m->dsb_window) || m->dsb_window != floor(m->dsb_window)) {
		tdp_err_set(err, TDP_EUSAGE, "machine key 'dsb-window': %g B is not a power of two", m->dsb_window);
		tdp_err_hint(err, "use dsb-window=32 (Skylake) or dsb-window=64 (Golden Cove, Zen)");
		return TDP_EUSAGE;
	}
	if (m->ll.size < m->d1.size || m->ll.size < m->i1.size) {
		tdp_err_set(err, TDP_EUSAGE, "machine: the LL (%llu B) is smaller than an L1 cache",
			    (unsigned long long)m->ll.size);
		tdp_err_hint(err, "the LL is the last level (L3 on most cores): e.g. ll-size=32M");
		return TDP_EUSAGE;
	}
	return 0;
}

/* Split "key=value" (whitespace around both trimmed) into the buffers. */
static int split_kv(const char *s, size_t n, char key[MAX_KEY], char value[MAX_VALUE], const char *where,
		    struct tdp_err *err)
{
	const char *eq = memchr(s, '=', n);
	size_t kl, vl;

	if (!eq) {
		tdp_err_set(err, TDP_EUSAGE, "%s'%.*s' is not KEY=VAL", where, (int)(n > 60 ? 60 : n), s);
		tdp_err_hint(err, "write e.g. --sim-machine zen4,mem-latency=300");
		return TDP_EUSAGE;
	}
	kl = (size_t)(eq - s);
	vl = n - kl - 1;
	while (kl && isspace((unsigned char)s[kl - 1]))
		kl--;
	while (kl && isspace((unsigned char)*s)) {
		s++;
		kl--;
	}
	eq++;
	while (vl && isspace((unsigned char)*eq)) {
		eq++;
		vl--;
	}
	while (vl && isspace((unsigned char)eq[vl - 1]))
		vl--;
	if (!kl || kl >= MAX_KEY || vl >= MAX_VALUE || memchr(s, '\0', kl) || memchr(eq, '\0', vl)) {
		tdp_err_set(err, TDP_EUSAGE, "%sbad KEY=VAL '%.*s'", where, (int)(n > 60 ? 60 : n), s);
		tdp_err_hint(err, "write e.g. --sim-machine zen4,mem-latency=300");
		return TDP_EUSAGE;
	}
	memcpy(key, s, kl);
	key[kl] = '\0';
	memcpy(value, eq, vl);
	value[vl] = '\0';
	return 0;
}

int sim_machine_parse(struct sim_machine *m, const char *spec, struct tdp_err *err)
{
	struct sim_machine tmp;
	const char *s = spec;
	bool first = true;
	int ret;

	if (!*spec) {
		tdp_err_set(err, TDP_EUSAGE, "empty machine description");
		tdp_err_hint(err, "use --sim-machine generic, or KEY=VAL,... (see " TDP_DOC_SIM_MACHINE ")");
		return TDP_EUSAGE;
	}
	if ((ret = sim_machine_preset(&tmp, "generic", err)))
		return ret;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);

		if (first && !memchr(s, '=', n)) {
			char name[SIM_MACHINE_NAME_MAX];

			if (n >= sizeof(name)) {
				tdp_err_set(err, TDP_EUSAGE, "unknown machine '%.*s'", (int)(n > 60 ? 60 : n), s);
				tdp_err_hint(err, "see " TDP_DOC_SIM_MACHINE " for the presets");
				return TDP_EUSAGE;
			}
			memcpy(name, s, n);
			name[n] = '\0';
			if ((ret = sim_machine_preset(&tmp, name, err)))
				return ret;
		} else {
			char key[MAX_KEY], value[MAX_VALUE];

			if ((ret = split_kv(s, n, key, value, "--sim-machine: ", err)) ||
			    (ret = sim_machine_set(&tmp, key, value, err)))
				return ret;
		}
		first = false;
		if (!comma)
			break;
		s = comma + 1;
	}
	if ((ret = sim_machine_validate(&tmp, err)))
		return ret;
	*m = tmp;
	return 0;
}

int sim_machine_parse_file(struct sim_machine *m, const uint8_t *buf, size_t len, const char *name,
			   struct tdp_err *err)
{
	struct sim_machine tmp;
	size_t off = 0, lineno = 0;
	bool any = false;
	int ret;

	if (len > SIM_MACHINE_MAX_FILE)
		return tdp_err_set(err, TDP_ELIMIT, "machine file '%s' is larger than %u bytes", name,
				   SIM_MACHINE_MAX_FILE);
	if ((ret = sim_machine_preset(&tmp, "generic", err)))
		return ret;
	while (off < len) {
		const char *s = (const char *)buf + off;
		const char *nl = memchr(s, '\n', len - off);
		size_t n = nl ? (size_t)(nl - s) : len - off;
		char key[MAX_KEY], value[MAX_VALUE], where[300];

		off += n + (nl ? 1 : 0);
		lineno++;
		while (n && isspace((unsigned char)*s)) {
			s++;
			n--;
		}
		if (!n || *s == '#')
			continue;
		snprintf(where, sizeof(where), "'%s': line %zu: ", name, lineno);
		if ((ret = split_kv(s, n, key, value, where, err)))
			return ret;
		if (strcmp(key, "preset") == 0) {
			if (any) {
				tdp_err_set(err, TDP_EUSAGE, "%s'preset' must come before the other keys", where);
				tdp_err_hint(err, "move 'preset = %s' to the top of '%s'", value, name);
				return TDP_EUSAGE;
			}
			ret = sim_machine_preset(&tmp, value, err);
		} else {
			ret = sim_machine_set(&tmp, key, value, err);
		}
		if (ret) {
			tdp_err_prefix(err, "'%s': line %zu", name, lineno);
			return ret;
		}
		any = true;
	}
	if ((ret = sim_machine_validate(&tmp, err))) {
		tdp_err_prefix(err, "'%s'", name);
		return ret;
	}
	*m = tmp;
	return 0;
}

int sim_machine_load(struct sim_machine *m, const char *spec, struct tdp_err *err)
{
	struct tdp_file f = TDP_FILE_INIT;
	struct sim_machine tmp;
	struct tdp_err ferr = TDP_ERR_INIT;
	int ret;

	/* KEY=VAL lists and preset names first; any other word is a file. */
	if (!*spec || strchr(spec, '=') || strchr(spec, ',') || find_preset(spec, &tmp))
		return sim_machine_parse(m, spec, err);
	ret = tdp_file_open(&f, spec, SIM_MACHINE_MAX_FILE, &ferr);
	if (ret == TDP_ENOENT)
		return unknown_preset(spec, " (not a preset, and no such file)", err);
	if (ret) {
		tdp_err_set(err, ret == TDP_ELIMIT ? TDP_EUSAGE : ret, "%s", ferr.msg);
		tdp_err_hint(err, "%s", ferr.hint[0] ? ferr.hint : "give a preset, KEY=VAL,... or a readable file");
		return ret == TDP_ELIMIT ? TDP_EUSAGE : ret;
	}
	ret = sim_machine_parse_file(m, f.data, f.size, spec, err);
	tdp_file_close(&f);
	return ret;
}

void sim_machine_valgrind_args(const struct sim_machine *m, char i1[SIM_VG_ARG_MAX], char d1[SIM_VG_ARG_MAX],
			       char ll[SIM_VG_ARG_MAX])
{
	/* valgrind's order: size, associativity, line size. */
	snprintf(i1, SIM_VG_ARG_MAX, "--I1=%llu,%u,%u", (unsigned long long)m->i1.size, m->i1.assoc, m->i1.line);
	snprintf(d1, SIM_VG_ARG_MAX, "--D1=%llu,%u,%u", (unsigned long long)m->d1.size, m->d1.assoc, m->d1.line);
	snprintf(ll, SIM_VG_ARG_MAX, "--LL=%llu,%u,%u", (unsigned long long)m->ll.size, m->ll.assoc, m->ll.line);
}

void sim_machine_tool_args(const struct sim_machine *m, char args[SIM_TOOL_ARGS][SIM_VG_ARG_MAX], size_t *nr)
{
	const struct sim_cache *c[4] = { &m->i1, &m->d1, &m->l2, &m->ll };
	const char *cn[4] = { "l1i", "l1d", "l2", "l3" };
	size_t n = 0;

	for (int i = 0; i < 4; i++)
		snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-%s=%llu,%u,%u", cn[i], (unsigned long long)c[i]->size,
			 c[i]->assoc, c[i]->line);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-latency=%.0f,%.0f,%.0f,%.0f", m->l1_latency, m->l2_latency,
		 m->l3_latency, m->mem_latency);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-width=%.3f", m->width);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-rob=%.0f", m->rob);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-mshr=%.0f", m->mshr);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-bandwidth=%.3f,%.3f,%.3f", m->l2_bw, m->l3_bw, m->mem_bw);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-btb=%.0f,%.0f", m->btb_entries, m->btb_assoc);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-dsb=%.0f,%.0f,%.0f", m->dsb_windows, m->dsb_assoc, m->dsb_window);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-prefetch=%.0f,%.0f,%.0f", m->pf_stride, m->pf_stream,
		 m->pf_max_stride);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-dep-range=%.0f", m->dep_range);
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-machine=%s%s", m->name, m->modified ? "+" : "");
	snprintf(args[n++], SIM_VG_ARG_MAX, "--tdp-bpred=%s", m->name);
	*nr = n;
}

static void size_str(uint64_t b, char *out, size_t n)
{
	if (b >= (1ull << 20) && !(b & ((1ull << 20) - 1)))
		snprintf(out, n, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && !(b & 1023))
		snprintf(out, n, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(out, n, "%llu B", (unsigned long long)b);
}

void sim_machine_describe(const struct sim_machine *m, char *buf, size_t size)
{
	char i1[32], d1[32], ll[32];

	size_str(m->i1.size, i1, sizeof(i1));
	size_str(m->d1.size, d1, sizeof(d1));
	size_str(m->ll.size, ll, sizeof(ll));
	snprintf(buf, size,
		 "%s%s: I1 %s %u-way, D1 %s %u-way, LL %s %u-way, %u B lines; %g slots/cycle; "
		 "mispredict %g cycles (%g resteer); I1 miss %g, LL hit %g, memory %g cycles; MLP %g "
		 "(streams %g, independent %g); core: llvm-mca %s",
		 m->name, m->modified ? " (modified)" : "", i1, m->i1.assoc, d1, m->d1.assoc, ll, m->ll.assoc,
		 m->d1.line, m->width, m->branch_penalty, m->resteer_latency, m->i1_latency, m->ll_latency,
		 m->mem_latency, m->mlp, m->stream_mlp, m->indep_mlp, m->mcpu[0] ? m->mcpu : "none");
}

void sim_machine_describe_tool(const struct sim_machine *m, char *buf, size_t size)
{
	char i1[32], d1[32], l2[32], ll[32];

	size_str(m->i1.size, i1, sizeof(i1));
	size_str(m->d1.size, d1, sizeof(d1));
	size_str(m->l2.size, l2, sizeof(l2));
	size_str(m->ll.size, ll, sizeof(ll));
	snprintf(buf, size,
		 "%s%s: L1I %s, L1D %s, L2 %s, L3 %s, %u B lines; %g slots/cycle; ROB %g, %g misses in flight; "
		 "load latency %g/%g/%g/%g cycles; mispredict %g cycles (%g resteer); core: llvm-mca %s",
		 m->name, m->modified ? " (modified)" : "", i1, d1, l2, ll, m->d1.line, m->width, m->rob, m->mshr,
		 m->l1_latency, m->l2_latency, m->l3_latency, m->mem_latency, m->branch_penalty, m->resteer_latency,
		 m->mcpu[0] ? m->mcpu : "none");
}
