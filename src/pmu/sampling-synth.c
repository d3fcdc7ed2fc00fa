/*
 * sampling-synth.c: the records perf synthesizes for what existed before the
 * recording (tools/perf/util/synthetic-events.c): the kernel map, the threads
 * and executable mappings of an attached process, from /proc/PID/maps and
 * /proc/kallsyms, which are parsed here as untrusted text.
 */
#include "pmu/sampling.h"
#include "base/err.h"
#include "base/str.h"

#include <string.h>
#include <sys/mman.h>

#define REC_MMAP 1
#define REC_COMM 3
#define REC_MMAP2 10
#define MISC_KERNEL 1
#define MISC_USER 2
#define KERNEL_MAP_NAME "[kernel.kallsyms]_text"

/* ---- /proc/PID/maps ------------------------------------------------------------- */

/* Parse hex digits at *p (up to end), at least one; false on none or overflow. */
static bool take_hex(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	while (s < end && str_hexval(*s) >= 0) {
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)str_hexval(*s);
		s++;
	}
	if (s == *p)
		return false;
	*out = v;
	*p = s;
	return true;
}

static bool take_dec(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	while (s < end && *s >= '0' && *s <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	if (s == *p)
		return false;
	*out = v;
	*p = s;
	return true;
}

static bool take_char(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

/* One line "start-end perms offset maj:min inode [name]" into e. */
static bool parse_line(const char *p, const char *end, struct pmu_maps_entry *e)
{
	uint64_t maj, min;

	memset(e, 0, sizeof(*e));
	if (!take_hex(&p, end, &e->start) || !take_char(&p, end, '-') || !take_hex(&p, end, &e->end) ||
	    e->end < e->start || !take_char(&p, end, ' ') || end - p < 4)
		return false;
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') || (p[2] != 'x' && p[2] != '-') ||
	    (p[3] != 'p' && p[3] != 's'))
		return false;
	e->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) | (p[2] == 'x' ? PROT_EXEC : 0);
	e->flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	p += 4;
	if (!take_char(&p, end, ' ') || !take_hex(&p, end, &e->pgoff) || !take_char(&p, end, ' ') ||
	    !take_hex(&p, end, &maj) || !take_char(&p, end, ':') || !take_hex(&p, end, &min) ||
	    maj > UINT32_MAX || min > UINT32_MAX || !take_char(&p, end, ' ') || !take_dec(&p, end, &e->ino))
		return false;
	e->maj = (uint32_t)maj;
	e->min = (uint32_t)min;
	if (p < end && *p != ' ' && *p != '\t')
		return false;
	skip_spaces(&p, end);
	e->name = p;
	e->name_len = (size_t)(end - p);
	return true;
}

int pmu_maps_parse(const char *buf, size_t len, pmu_maps_fn *fn, void *arg, struct tdp_err *err)
{
	const char *p = buf, *end = buf + len;
	size_t line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct pmu_maps_entry e;
		int ret;

		line++;
		if (eol > p) {
			if (!parse_line(p, eol, &e))
				return tdp_err_set(err, TDP_EFORMAT, "maps line %zu does not parse: '%.*s'", line,
						   (int)(eol - p > 120 ? 120 : eol - p), p);
			ret = fn(arg, &e, err);
			if (ret)
				return ret;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* ---- records -------------------------------------------------------------------- */

static void put_header(uint8_t *buf, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t s = (uint16_t)size;

	memcpy(buf, &type, 4);
	memcpy(buf + 4, &misc, 2);
	memcpy(buf + 6, &s, 2);
}

/* Write name NUL-padded to 8 at buf+off, then id_size zeros; returns the end or 0 when > size. */
static size_t put_name_and_id(uint8_t *buf, size_t size, size_t off, const char *name, size_t name_len,
			      size_t id_size)
{
	size_t padded = (name_len + 1 + 7) / 8 * 8, total = off + padded + id_size;

	if (total > size || total > 65535)
		return 0;
	memset(buf + off, 0, padded + id_size);
	memcpy(buf + off, name, name_len);
	return total;
}

size_t pmu_synth_mmap2(uint8_t *buf, size_t size, uint32_t pid, const struct pmu_maps_entry *e, size_t id_size)
{
	uint64_t v[3] = { e->start, e->end - e->start, e->pgoff };
	uint64_t gen = 0;
	size_t total;

	if (size < 72)
		return 0;
	total = put_name_and_id(buf, size, 72, e->name, e->name_len, id_size);
	if (!total)
		return 0;
	put_header(buf, REC_MMAP2, MISC_USER, total);
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &pid, 4);
	memcpy(buf + 16, v, sizeof(v));
	memcpy(buf + 40, &e->maj, 4);
	memcpy(buf + 44, &e->min, 4);
	memcpy(buf + 48, &e->ino, 8);
	memcpy(buf + 56, &gen, 8);
	memcpy(buf + 64, &e->prot, 4);
	memcpy(buf + 68, &e->flags, 4);
	return total;
}

size_t pmu_synth_comm(uint8_t *buf, size_t size, uint32_t pid, uint32_t tid, const char *comm, size_t id_size)
{
	size_t total;

	if (size < 16)
		return 0;
	total = put_name_and_id(buf, size, 16, comm, strnlen(comm, 16), id_size);
	if (!total)
		return 0;
	put_header(buf, REC_COMM, 0, total);
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &tid, 4);
	return total;
}

size_t pmu_synth_kernel_mmap(uint8_t *buf, size_t size, uint64_t text, uint64_t etext, size_t id_size)
{
	uint32_t pid = UINT32_MAX, tid = 0;
	uint64_t v[3] = { text, etext > text ? etext - text : UINT64_MAX - text, text };
	size_t total;

	if (size < 40)
		return 0;
	total = put_name_and_id(buf, size, 40, KERNEL_MAP_NAME, strlen(KERNEL_MAP_NAME), id_size);
	if (!total)
		return 0;
	put_header(buf, REC_MMAP, MISC_KERNEL, total);
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &tid, 4);
	memcpy(buf + 16, v, sizeof(v));
	return total;
}

/* ---- /proc/kallsyms --------------------------------------------------------------- */

bool pmu_kallsyms_text(const char *buf, size_t len, uint64_t *text, uint64_t *etext)
{
	const char *p = buf, *end = buf + len;
	bool have_text = false;

	*etext = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *q = p;
		uint64_t addr;

		/* "ffffffff81000000 T _text" */
		if (take_hex(&q, eol, &addr) && eol - q >= 3 && q[0] == ' ' && q[2] == ' ') {
			const char *name = q + 3;
			size_t n = (size_t)(eol - name);

			if (n == 5 && !memcmp(name, "_text", 5) && !have_text) {
				*text = addr;
				have_text = true;
			} else if (n == 6 && !memcmp(name, "_etext", 6)) {
				*etext = addr;
			}
			if (have_text && *etext)
				break;
		}
		p = nl ? nl + 1 : end;
	}
	return have_text && *text != 0;
}
