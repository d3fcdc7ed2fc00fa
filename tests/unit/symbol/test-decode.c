/*
 * Unit tests of symbol_exe_decode() and symbol_exe_open_code() (src/symbol/exe.c),
 * on this test program itself: decoding straight from an instruction gives what
 * symbol_exe_disasm_addr() gives there when it decodes from the function's start
 * (addresses, text, branch types); the code-only open reads no line tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "symbol/exe.h"

static void test_same_as_from_the_start(void **state)
{
	struct symbol_exe x;
	struct symbol_listing *l = calloc(1, sizeof(*l));
	struct symbol_exe_insn out[12];
	struct tdp_err err = TDP_ERR_INIT;
	const struct symbol_exe_func *f;
	size_t nr = 0, checked = 0;

	(void)state;
	assert_non_null(l);
	assert_int_equal(symbol_exe_open_code(&x, "/proc/self/exe", &err), 0);
	assert_int_equal(x.nr_files, 0); /* no line tables read */
	assert_false(symbol_exe_has_file(&x, __FILE__));
	f = symbol_exe_find_func(&x, "symbol_exe_disasm"); /* a long function linked in from src/symbol */
	assert_non_null(f);
	/* from several starting points inside the function: the 2nd, 5th, 9th instruction */
	assert_int_equal(symbol_exe_disasm_addr(&x, f->addr, 0, 20, l, &err), 0);
	assert_true(l->nr >= 20);
	for (size_t at = 1; at < 9; at += 3) {
		assert_int_equal(symbol_exe_decode(&x, l->v[at].addr, 10, out, &nr, &err), 0);
		assert_int_equal(nr, 10);
		for (size_t i = 0; i < nr; i++, checked++) {
			assert_int_equal(out[i].addr, l->v[at + i].addr);
			assert_string_equal(out[i].text, l->v[at + i].text);
			assert_int_equal(out[i].branch_type, l->v[at + i].branch_type);
			assert_false(out[i].target);
		}
	}
	assert_int_equal(checked, 30);
	/* fewer asked, fewer given; none asked, none given */
	assert_int_equal(symbol_exe_decode(&x, f->addr, 3, out, &nr, &err), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(symbol_exe_decode(&x, f->addr, 0, out, &nr, &err), 0);
	assert_int_equal(nr, 0);
	/* an address in no loadable segment */
	assert_int_equal(symbol_exe_decode(&x, 0x7fff00000000ull, 4, out, &nr, &err), TDP_EFORMAT);
	assert_int_equal(nr, 0);
	symbol_exe_close(&x);
	free(l);
}

/* The full open reads the line tables the code-only one skips (this test is built with -g). */
static void test_full_open_has_files(void **state)
{
	struct symbol_exe x;
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(symbol_exe_open(&x, "/proc/self/exe", &err), 0);
	if (!x.dwarf) {
		symbol_exe_close(&x);
		skip(); /* built without debug info */
		return;
	}
	assert_true(x.nr_files > 0);
	symbol_exe_close(&x);
	/* and an error is an error either way */
	assert_int_equal(symbol_exe_open_code(&x, "/nonexistent/tdprof-test", &err), TDP_ENOENT);
	symbol_exe_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_from_the_start),
		cmocka_unit_test(test_full_open_has_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
