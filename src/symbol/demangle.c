/*
 * demangle.c: C++ (Itanium ABI) and Rust (legacy and v0) names through libiberty's
 * callback demanglers. The callback forms are used because they neither allocate
 * with xmalloc (which exits the process when memory runs out) nor read the global
 * demangling style; the output goes into our strbuf.
 */
#include <string.h>

/* libiberty.h tests HAVE_DECL_* macros that autoconf would define; glibc declares
 * basename() (string.h with _GNU_SOURCE), the rest it only tests under -Wundef. */
#define HAVE_DECL_BASENAME 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#include <demangle.h>
#pragma GCC diagnostic pop

#include "base/err.h"
#include "base/strbuf.h"
#include "symbol/symbol-internal.h"

static void append(const char *s, size_t len, void *opaque)
{
	strbuf_add(opaque, s, len);
}

/* Versioned names ("memcpy@GLIBC_2.14", "f@plt"): demangle the part before '@'. */
static size_t base_len(const char *name)
{
	const char *at = strchr(name, '@');

	return at ? (size_t)(at - name) : strlen(name);
}

int symbol_demangle(const char *name, unsigned flags, struct strbuf *sb)
{
	char buf[SYMBOL_MAX_DEMANGLE + 1];
	size_t len = base_len(name), start = sb->len;
	int opts = DMGL_NO_RECURSE_LIMIT | /* our own limit is the length: see symbol.h */
		   ((flags & SYMBOL_DEMANGLE_NO_PARAMS) ? DMGL_NO_OPTS : (DMGL_PARAMS | DMGL_ANSI));
	int ok = 0;

	if (len < 3 || len > SYMBOL_MAX_DEMANGLE || name[0] != '_' ||
	    (name[1] != 'Z' && name[1] != 'R'))
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (name[1] == 'R') {
		ok = rust_demangle_callback(buf, opts | DMGL_RUST, append, sb);
	} else {
		/* legacy Rust names are valid C++ names ending in a hash: try Rust first,
		 * as libiberty's cplus_demangle does */
		ok = rust_demangle_callback(buf, opts | DMGL_RUST, append, sb);
		if (!ok) {
			strbuf_setlen(sb, start);
			ok = cplus_demangle_v3_callback(buf, opts | DMGL_GNU_V3, append, sb);
		}
	}
	if (!ok || sb->len == start) {
		if (!strbuf_failed(sb))
			strbuf_setlen(sb, start);
		return strbuf_failed(sb) ? TDP_ENOMEM : 0;
	}
	if (name[len])
		strbuf_adds(sb, name + len);
	return strbuf_failed(sb) ? TDP_ENOMEM : 1;
}

const char *symbol_display_name(struct symbol_arena *a, struct strbuf *scratch, const char *name,
				unsigned flags)
{
	int r;

	if (flags & SYMBOL_NO_DEMANGLE)
		return name;
	if (strbuf_failed(scratch))
		strbuf_release(scratch);
	strbuf_reset(scratch);
	r = symbol_demangle(name, flags, scratch);
	if (r <= 0) /* not mangled, or no memory: show the name as it is */
		return name;
	const char *d = arena_strndup(a, scratch->buf, scratch->len);

	return d ? d : name;
}
