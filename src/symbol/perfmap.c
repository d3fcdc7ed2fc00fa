/*
 * perfmap.c: perf's maps of JIT code, /tmp/perf-PID.map: one symbol a line,
 * "START SIZE NAME", START and SIZE in hex (with or without 0x), NAME the rest of
 * the line (it may hold spaces). A JIT (V8, the JVM's perf-map-agent, LuaJIT,
 * .NET, LLVM's listener) writes it for the code it generates in anonymous
 * executable memory; addresses there are runtime addresses of process PID.
 *
 * The file is another program's output: it is read whole up to
 * SYMBOL_PERFMAP_MAX_BYTES, every line is checked, and a line that is not
 * "START SIZE NAME" makes the map unusable with a note naming the file and the
 * line, rather than names taken from a file that is not what it claims to be.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "symbol/symbol-internal.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number at *p (optional 0x, at most 16 digits) up to a space; *p moves past it. */
static bool hex_field(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	size_t digits = 0;

	*out = 0;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end && hexval(*s) >= 0; s++, digits++) {
		if (digits == 16)
			return false;
		*out = *out << 4 | (uint64_t)hexval(*s);
	}
	if (!digits || s >= end || *s != ' ')
		return false;
	while (s < end && *s == ' ')
		s++;
	*p = s;
	return true;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct symbol_perfmap_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* of one start, the later line wins (it is found last), except that an empty
	 * symbol holds no address: it sorts first, so that it hides no sized one
	 * (symbol_perfmap_find() looks back over at most 64 entries) */
	if (!x->size != !y->size)
		return !x->size ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int symbol_perfmap_parse(char *buf, size_t len, struct symbol_perfmap_sym **out, size_t *nr, size_t *bad_line)
{
	struct symbol_perfmap_sym *v = NULL;
	size_t n = 0, alloc = 0, line = 0;
	char *p = buf, *end = buf + len;

	*out = NULL;
	*nr = 0;
	*bad_line = 0;
	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p)), *lend;
		const char *q = p;
		uint64_t start, size;

		eol = eol ? eol : end;
		lend = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		line++;
		if (lend == p) { /* an empty line */
			p = eol + 1;
			continue;
		}
		if (!hex_field(&q, lend, &start) || !hex_field(&q, lend, &size) || q >= lend ||
		    (size_t)(lend - q) > SYMBOL_PERFMAP_MAX_NAME || memchr(q, '\0', (size_t)(lend - q)) ||
		    start + size < start)
			goto bad;
		if (TDP_GROW(v, alloc, n + 1)) {
			tdp_free(v);
			return TDP_ENOMEM;
		}
		*lend = '\0'; /* buf[len] is a NUL: the last line may end there */
		v[n++] = (struct symbol_perfmap_sym){ start, size, q, line };
		p = eol + 1;
	}
	if (n)
		qsort(v, n, sizeof(*v), sym_cmp);
	*out = v;
	*nr = n;
	return 0;
bad:
	tdp_free(v);
	*bad_line = line;
	return TDP_EFORMAT;
}

const struct symbol_perfmap_sym *symbol_perfmap_find(const struct symbol_perfmap_sym *v, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	/* the last symbol starting at or below addr, then back over the ones that end before it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		if (addr - v[i].start < v[i].size)
			return &v[i];
		if (lo - i > 64) /* far overlaps are a JIT reusing memory: the nearest symbols decide */
			break;
	}
	return NULL;
}

/* The perf map of pid, read on first use (the session keeps it, usable or not). */
static struct symbol_perfmap *perfmap_of(struct symbol_session *s, uint32_t pid)
{
	struct symbol_perfmap *m;
	struct tdp_err err = TDP_ERR_INIT;
	int fd;
	char path[4200];

	for (size_t i = 0; i < s->nr_perfmaps; i++)
		if (s->perfmaps[i].pid == pid)
			return &s->perfmaps[i];
	if (TDP_GROW(s->perfmaps, s->alloc_perfmaps, s->nr_perfmaps + 1))
		return NULL;
	m = &s->perfmaps[s->nr_perfmaps++];
	memset(m, 0, sizeof(*m));
	m->pid = pid;
	/* under --symfs too, as the binaries: a recording from elsewhere is not named by this machine's maps */
	snprintf(path, sizeof(path), "%s%s/perf-%u.map", s->opts.symfs ? s->opts.symfs : "", s->opts.perf_map_dir,
		 (unsigned)pid);
	m->path = arena_strdup(&s->arena, path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		m->note = errno == ENOENT ? NULL : "its JIT map cannot be read";
		return m;
	}
	if (tdp_read_fd(fd, path, SYMBOL_PERFMAP_MAX_BYTES, &m->text, &m->len, &err)) {
		m->note = arena_strdup(&s->arena, err.msg);
	} else {
		size_t bad = 0;
		int ret = symbol_perfmap_parse(m->text, m->len, &m->v, &m->nr, &bad);

		if (ret == TDP_EFORMAT) {
			snprintf(path, sizeof(path), "'%s' line %zu: not 'START SIZE NAME' (START and SIZE in hex): the "
						    "map is not used", m->path ? m->path : "?", bad);
			m->note = arena_strdup(&s->arena, path);
		} else if (ret) {
			m->note = "out of memory reading its JIT map";
		}
	}
	close(fd);
	return m;
}

bool symbol_perfmap_resolve(struct symbol_session *s, uint32_t pid, uint64_t addr, struct symbol_result *r)
{
	struct symbol_perfmap *m;
	const struct symbol_perfmap_sym *sym;

	if (!s->opts.perf_map_dir || !(m = perfmap_of(s, pid)))
		return false;
	if (m->note || !m->nr) {
		if (m->note)
			r->note = m->note;
		return false;
	}
	sym = symbol_perfmap_find(m->v, m->nr, addr);
	if (!sym) {
		r->note = "JIT code that its perf map does not name";
		return false;
	}
	r->status = SYMBOL_OK;
	r->binary = m->path;
	r->vaddr = addr;
	r->function = sym->name;
	r->func_vaddr = sym->start;
	r->func_size = sym->size;
	r->offset = addr - sym->start;
	r->note = NULL;
	return true;
}

void symbol_perfmaps_release(struct symbol_session *s)
{
	for (size_t i = 0; i < s->nr_perfmaps; i++) {
		tdp_free(s->perfmaps[i].v);
		tdp_free(s->perfmaps[i].text);
	}
	tdp_free(s->perfmaps);
	s->perfmaps = NULL;
	s->nr_perfmaps = s->alloc_perfmaps = 0;
}
