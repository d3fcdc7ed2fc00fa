/*
 * parse.c: the text formats the cpu module reads, as pure parsers over
 * (buf, len): /proc/cpuinfo and the kernel's cpu lists ("0-3,8").
 * Input is untrusted (a snapshot may come from anywhere): every field is
 * bounds-checked and nothing is allocated from a value we have not checked.
 */
#include "cpu/cpu.h"
#include "cpu/cpu-internal.h"
#include "base/alloc.h"
#include "base/str.h"
#include "base/strbuf.h"

#include <string.h>

/* Longest key we compare and longest number we parse, in bytes. */
#define CPUINFO_KEY_MAX 32
#define CPUINFO_NUM_MAX 24

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Trim [*s, *e) of blanks on both sides. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && is_blank(**s))
		(*s)++;
	while (*e > *s && is_blank((*e)[-1]))
		(*e)--;
}

static bool key_is(const char *k, size_t klen, const char *want)
{
	return klen == strlen(want) && !memcmp(k, want, klen);
}

/* True when the space-separated list v[0..n) contains word. */
static bool has_word(const char *v, size_t n, const char *word)
{
	size_t wl = strlen(word);

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && v[j] != ' ' && v[j] != '\t')
			j++;
		if (j - i == wl && !memcmp(v + i, word, wl))
			return true;
		i = j + 1;
	}
	return false;
}

static int num_field(const char *v, size_t n, unsigned max, unsigned *out, const char *key, unsigned line,
		     struct tdp_err *err)
{
	uint64_t x;
	char shown[CPUINFO_NUM_MAX + 1];

	if (n == 0 || n > CPUINFO_NUM_MAX || !str_to_u64_n(v, n, &x) || x > max) {
		cpu_printable(v, n, shown, CPUINFO_NUM_MAX);
		return tdp_err_set(err, TDP_EFORMAT, "cpuinfo line %u: '%s' is not a valid number ('%s')", line,
				   key, shown);
	}
	*out = (unsigned)x;
	return 0;
}

enum {
	SEEN_VENDOR = 1u << 0,
	SEEN_FAMILY = 1u << 1,
	SEEN_MODEL = 1u << 2,
	SEEN_STEPPING = 1u << 3,
	SEEN_BRAND = 1u << 4,
	SEEN_FLAGS = 1u << 5,
	SEEN_IMPL = 1u << 6,
	SEEN_VARIANT = 1u << 7,
	SEEN_ARCH = 1u << 8,
	SEEN_PART = 1u << 9,
	SEEN_REV = 1u << 10,
};

/* Handle one "key : value" line. */
static int cpuinfo_line(struct cpu_cpuinfo *out, unsigned *seen, const char *k, size_t kl, const char *v,
			size_t vl, unsigned line, struct tdp_err *err)
{
	int rc = 0;

	if (key_is(k, kl, "processor")) {
		out->nr_processors++;
	} else if (key_is(k, kl, "vendor_id") && !(*seen & SEEN_VENDOR)) {
		*seen |= SEEN_VENDOR;
		cpu_printable(v, vl, out->vendor, sizeof(out->vendor) - 1);
		out->has_x86 = true;
	} else if (key_is(k, kl, "cpu family") && !(*seen & SEEN_FAMILY)) {
		*seen |= SEEN_FAMILY;
		rc = num_field(v, vl, 0xFFF, &out->family, "cpu family", line, err);
		out->has_x86 = true;
	} else if (key_is(k, kl, "model") && !(*seen & SEEN_MODEL)) {
		*seen |= SEEN_MODEL;
		rc = num_field(v, vl, 0xFFF, &out->model, "model", line, err);
	} else if (key_is(k, kl, "stepping") && !(*seen & SEEN_STEPPING)) {
		*seen |= SEEN_STEPPING;
		/* some virtual CPUs print "unknown" */
		if (!(vl == 7 && !memcmp(v, "unknown", 7)))
			rc = num_field(v, vl, 0xF, &out->stepping, "stepping", line, err);
	} else if (key_is(k, kl, "model name") && !(*seen & SEEN_BRAND)) {
		*seen |= SEEN_BRAND;
		cpu_printable(v, vl, out->brand, sizeof(out->brand) - 1);
	} else if (key_is(k, kl, "flags") && !(*seen & SEEN_FLAGS)) {
		*seen |= SEEN_FLAGS;
		out->has_flags = true;
		out->hypervisor_flag = has_word(v, vl, "hypervisor");
	} else if (key_is(k, kl, "CPU implementer") && !(*seen & SEEN_IMPL)) {
		*seen |= SEEN_IMPL;
		rc = num_field(v, vl, 0xFF, &out->implementer, "CPU implementer", line, err);
		out->has_arm = true;
	} else if (key_is(k, kl, "CPU variant") && !(*seen & SEEN_VARIANT)) {
		*seen |= SEEN_VARIANT;
		rc = num_field(v, vl, 0xF, &out->variant, "CPU variant", line, err);
	} else if (key_is(k, kl, "CPU architecture") && !(*seen & SEEN_ARCH)) {
		*seen |= SEEN_ARCH;
		/* "8" on arm64; the MIDR architecture field (0xF) is not printed */
		rc = num_field(v, vl, 0xFF, &out->architecture, "CPU architecture", line, err);
	} else if (key_is(k, kl, "CPU part") && !(*seen & SEEN_PART)) {
		*seen |= SEEN_PART;
		rc = num_field(v, vl, 0xFFF, &out->part, "CPU part", line, err);
	} else if (key_is(k, kl, "CPU revision") && !(*seen & SEEN_REV)) {
		*seen |= SEEN_REV;
		rc = num_field(v, vl, 0xF, &out->revision, "CPU revision", line, err);
	}
	return rc;
}

int cpu_cpuinfo_parse(const uint8_t *buf, size_t len, struct cpu_cpuinfo *out, struct tdp_err *err)
{
	const char *p = (const char *)buf, *end = p + len;
	unsigned seen = 0, line = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(le - p));

		line++;
		if (colon) {
			const char *ks = p, *ke = colon, *vs = colon + 1, *ve = le;

			trim(&ks, &ke);
			trim(&vs, &ve);
			if ((size_t)(ke - ks) <= CPUINFO_KEY_MAX)
				rc = cpuinfo_line(out, &seen, ks, (size_t)(ke - ks), vs, (size_t)(ve - vs), line,
						  err);
		}
		p = nl ? nl + 1 : end;
	}
	if (rc) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	if (!out->has_x86 && !out->has_arm && !out->nr_processors)
		return tdp_err_set(err, TDP_ENOENT, "cpuinfo describes no processor");
	return 0;
}

int cpu_list_parse(const char *buf, size_t len, const char *what, unsigned **out, size_t *nr,
		   struct tdp_err *err)
{
	static const size_t words = CPU_NR_MAX / 64;
	uint64_t bits[CPU_NR_MAX / 64];
	const char *p = buf, *end = buf + len;
	unsigned *cpus = NULL;
	size_t n = 0, k = 0;

	*out = NULL;
	*nr = 0;
	memset(bits, 0, sizeof(bits));
	while (p < end && (is_blank(end[-1]) || end[-1] == '\n' || end[-1] == '\0'))
		end--;
	while (p < end && is_blank(*p))
		p++;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *te = comma ? comma : end;
		const char *dash = memchr(p, '-', (size_t)(te - p));
		uint64_t lo, hi;

		if (dash) {
			if (!str_to_u64_n(p, (size_t)(dash - p), &lo) ||
			    !str_to_u64_n(dash + 1, (size_t)(te - dash - 1), &hi) || hi < lo)
				goto bad;
		} else {
			if (!str_to_u64_n(p, (size_t)(te - p), &lo))
				goto bad;
			hi = lo;
		}
		if (hi >= CPU_NR_MAX)
			return tdp_err_set(err, TDP_ELIMIT, "'%s': CPU %llu is above the limit of %d CPUs", what,
					   (unsigned long long)hi, CPU_NR_MAX);
		for (uint64_t c = lo; c <= hi; c++)
			bits[c / 64] |= 1ull << (c % 64);
		if (!comma)
			break;
		p = comma + 1;
		if (p == end)
			goto bad; /* trailing comma */
	}
	for (size_t w = 0; w < words; w++)
		n += (size_t)__builtin_popcountll(bits[w]);
	if (!n)
		return 0;
	cpus = tdp_calloc(n, sizeof(*cpus));
	if (!cpus)
		return tdp_err_oom(err);
	for (size_t w = 0; w < words; w++)
		for (uint64_t b = bits[w]; b; b &= b - 1)
			cpus[k++] = (unsigned)(w * 64 + (size_t)__builtin_ctzll(b));
	*out = cpus;
	*nr = n;
	return 0;
bad:;
	char shown[65];

	cpu_printable(buf, len, shown, 64);
	return tdp_err_set(err, TDP_EFORMAT, "'%s': '%s' is not a cpu list (expected e.g. '0-3,8')", what,
			   shown);
}

void cpu_list_format(const unsigned *cpus, size_t nr, struct strbuf *sb)
{
	for (size_t i = 0; i < nr;) {
		size_t j = i;

		while (j + 1 < nr && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (i)
			strbuf_addch(sb, ',');
		if (j > i)
			strbuf_addf(sb, "%u-%u", cpus[i], cpus[j]);
		else
			strbuf_addf(sb, "%u", cpus[i]);
		i = j + 1;
	}
}

bool cpu_list_contains(const unsigned *cpus, size_t nr, unsigned cpu)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cpus[mid] == cpu)
			return true;
		if (cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}
