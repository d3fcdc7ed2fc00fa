/*
 * Unit tests of symbol_demangle(): C++ (Itanium ABI) names, GCC clone suffixes,
 * symbol versions, and Rust legacy and v0 names (rustc may not be installed:
 * the mangled strings are written here; the expected texts follow the C++ ABI
 * and the Rust mangling RFC 2603, hashes and crate disambiguators dropped as
 * perf and addr2line show them), and names that are not mangled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "symbol/symbol.h"

struct row {
	const char *mangled;
	unsigned flags;
	const char *want; /* NULL: not mangled (returns 0) */
	int line;
};

static const struct row rows[] = {
	{ "_Z3fooi", 0, "foo(int)", __LINE__ },
	{ "_Z3fooi", SYMBOL_DEMANGLE_NO_PARAMS, "foo", __LINE__ },
	{ "_ZNK3geo6detail3BoxIlE5widthEv", 0, "geo::detail::Box<long>::width() const", __LINE__ },
	{ "_ZNK3geo6detail3BoxIlE5widthEv", SYMBOL_DEMANGLE_NO_PARAMS, "geo::detail::Box<long>::width", __LINE__ },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi", 0,
	  "std::vector<int, std::allocator<int> >::push_back(int const&)", __LINE__ },
	{ "_ZN3geo11sum_clampedIlEET_RKSt6vectorIS1_SaIS1_EERKNS_6detail3BoxIS1_EE", 0,
	  "long geo::sum_clamped<long>(std::vector<long, std::allocator<long> > const&, "
	  "geo::detail::Box<long> const&)", __LINE__ },
	/* GCC's cold-path clone and a symbol version (kept after the name) */
	{ "_Z3fooi.cold", 0, "foo(int) [clone .cold]", __LINE__ },
	{ "_Z3fooi@@LIB_1.0", 0, "foo(int)@@LIB_1.0", __LINE__ },
	{ "_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv", 0,
	  "__gnu_cxx::new_allocator<char>::allocate(unsigned long, void const*)", __LINE__ },
	/* Rust legacy: a C++-looking path ending in a 17h<16 hex> hash */
	{ "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE", 0, "core::fmt::Formatter::pad", __LINE__ },
	{ "_ZN3std2rt10lang_start17h3a5c9f8e2b1d4c6aE", 0, "std::rt::lang_start", __LINE__ },
	{ "_ZN71_$LT$Test$u20$$u2b$$u20$$u27$static$u20$as$u20$foo..Bar$LT$Test$GT$$GT$3bar17h930b740aa94f1d3aE",
	  0, "<Test + 'static as foo::Bar<Test>>::bar", __LINE__ },
	/* Rust v0 (RFC 2603): Nv = value namespace, Nt = type namespace, C = crate
	 * root with an optional disambiguator s<base62>_, I...E = generic args */
	{ "_RNvNtCs1234_7mycrate3foo3bar", 0, "mycrate::foo::bar", __LINE__ },
	{ "_RNvCs15kBYyAo9fc_7mycrate7example", 0, "mycrate::example", __LINE__ },
	{ "_RINvNtC3std3mem8align_ofdE", 0, "std::mem::align_of::<f64>", __LINE__ },
	/* not mangled, or not valid */
	{ "main", 0, NULL, __LINE__ },
	{ "_start", 0, NULL, __LINE__ },
	{ "_Z", 0, NULL, __LINE__ },
	{ "_Zfoo", 0, NULL, __LINE__ },
	{ "_RNv", 0, NULL, __LINE__ },
	{ "_ZN3foo", 0, NULL, __LINE__ },
	{ "", 0, NULL, __LINE__ },
};

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		int r;

		strbuf_adds(&sb, "<");
		r = symbol_demangle(rows[i].mangled, rows[i].flags, &sb);
		if (r != (rows[i].want ? 1 : 0) ||
		    (rows[i].want && strcmp(sb.buf + 1, rows[i].want)) ||
		    (!rows[i].want && strcmp(sb.buf, "<")))
			fail_msg("row at line %d: '%s' gave %d '%s'", rows[i].line, rows[i].mangled, r,
				 sb.buf);
		strbuf_release(&sb);
	}
}

/* A name past SYMBOL_MAX_DEMANGLE is left alone (libiberty's stack use grows with
 * the name); one at the limit is demangled. "_Z<n><n letters>v" is the function
 * "aaa...a()" taking no arguments. */
static void make_name(struct strbuf *sb, size_t total)
{
	size_t n = total - 8; /* "_Z" + 4 or 5 digits + "v": solve for the digits below */

	for (;;) {
		char digits[16];
		int d = snprintf(digits, sizeof(digits), "%zu", n);

		if (2 + (size_t)d + n + 1 == total)
			break;
		n += total - (2 + (size_t)d + n + 1);
	}
	strbuf_reset(sb);
	strbuf_addf(sb, "_Z%zu", n);
	for (size_t i = 0; i < n; i++)
		strbuf_addch(sb, 'a');
	strbuf_addch(sb, 'v');
}

static void test_long_names(void **state)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;

	(void)state;
	make_name(&in, SYMBOL_MAX_DEMANGLE);
	assert_int_equal(in.len, SYMBOL_MAX_DEMANGLE);
	assert_int_equal(symbol_demangle(in.buf, 0, &out), 1);
	/* the identifier and "()" */
	assert_int_equal(out.len, SYMBOL_MAX_DEMANGLE - 2 - 4 - 1 + 2);
	assert_string_equal(out.buf + out.len - 3, "a()");
	strbuf_reset(&out);
	make_name(&in, SYMBOL_MAX_DEMANGLE + 1);
	assert_int_equal(in.len, SYMBOL_MAX_DEMANGLE + 1);
	assert_int_equal(symbol_demangle(in.buf, 0, &out), 0);
	assert_int_equal(out.len, 0);
	strbuf_release(&in);
	strbuf_release(&out);
}

/* Names built to nest as deep as the length allows (template arguments,
 * pointers, function types): demangled or refused, never a crash, and a refused
 * one leaves nothing behind in sb. */
static void test_nesting_bombs(void **state)
{
	static const char *const shapes[][2] = { { "I", "E" }, { "P", "" }, { "PFv", "E" },
						 { "N1a", "E" }, { "IP", "E" } };

	(void)state;
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		for (size_t depth = 1; depth < SYMBOL_MAX_DEMANGLE; depth = depth * 3 + 1) {
			struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
			int r;

			strbuf_adds(&in, "_Z1f");
			for (size_t i = 0; i < depth; i++)
				strbuf_adds(&in, shapes[k][0]);
			strbuf_adds(&in, "i");
			for (size_t i = 0; i < depth; i++)
				strbuf_adds(&in, shapes[k][1]);
			strbuf_adds(&in, "v");
			r = symbol_demangle(in.buf, 0, &out);
			assert_true(r == 0 || r == 1);
			if (r == 0)
				assert_int_equal(out.len, 0);
			else
				assert_true(out.len > 0);
			strbuf_release(&in);
			strbuf_release(&out);
		}
	}
}

/* Allocation failure: the result is TDP_ENOMEM, never a half name reported as 1. */
static void test_enomem(void **state)
{
	long n;

	(void)state;
	tdp_alloc_fail_after(-1);
	for (n = 0; n < 8; n++) {
		struct strbuf sb = STRBUF_INIT;
		int r;

		tdp_alloc_fail_after(n);
		r = symbol_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", 0, &sb);
		tdp_alloc_fail_after(-1);
		assert_true(r == TDP_ENOMEM ||
			    (r == 1 && !strcmp(sb.buf, "std::vector<int, std::allocator<int> >::push_back(int const&)")));
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_nesting_bombs),
		cmocka_unit_test(test_enomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
