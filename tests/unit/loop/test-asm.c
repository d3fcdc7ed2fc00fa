/*
 * Unit tests of the assembly side of `tdprof loop` (src/loop/mca.c): finding
 * a function's hot loop in gcc, clang and arm64 output, and reading llvm-mca's summary.
 * The assembly below is real compiler output (gcc 12 and clang 14 -O2, x86-64) of
 *   double m[64][64], v[64], o[64];
 *   void mv(void) { for (i < 64) { s = 0; for (j < 64) s += m[i][j] * v[j]; o[i] = s; } }
 * and hand-written arm64 in gcc's style.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/err.h"
#include "loop/loop.h"

static const char gcc_mv[] =
	"\t.text\n"
	"\t.globl\tmv\n"
	"\t.type\tmv, @function\n"
	"mv:\n"
	".LFB0:\n"
	"\t.cfi_startproc\n"
	"\tleaq\tm(%rip), %rdx\n"
	"\tleaq\to(%rip), %rsi\n"
	"\tleaq\t32768(%rdx), %rdi\n"
	"\tleaq\tv(%rip), %rcx\n"
	"\t.p2align 4,,10\n"
	".L2:\n"
	"\txorl\t%eax, %eax\n"
	"\tpxor\t%xmm1, %xmm1\n"
	"\t.p2align 4,,10\n"
	".L3:\n"
	"\tmovapd\t(%rdx,%rax), %xmm0\n"
	"\tmulpd\t(%rcx,%rax), %xmm0\n"
	"\taddq\t$16, %rax\n"
	"\taddsd\t%xmm0, %xmm1\n"
	"\tunpckhpd\t%xmm0, %xmm0\n"
	"\taddsd\t%xmm0, %xmm1\n"
	"\tcmpq\t$512, %rax\n"
	"\tjne\t.L3\n"
	"\taddq\t$512, %rdx\n"
	"\tmovsd\t%xmm1, (%rsi)\n"
	"\taddq\t$8, %rsi\n"
	"\tcmpq\t%rdi, %rdx\n"
	"\tjne\t.L2\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	".LFE0:\n"
	"\t.size\tmv, .-mv\n"
	/* a second function whose loop must not be taken for mv's */
	"mv2:\n"
	".L9:\n"
	"\tnop\n"
	"\tjmp\t.L9\n"
	"\t.size\tmv2, .-mv2\n";

static const char clang_mv[] =
	"mv:                                     # @mv\n"
	"\t.cfi_startproc\n"
	"# %bb.0:\n"
	"\tleaq\tm+8(%rip), %rax\n"
	"\txorl\t%ecx, %ecx\n"
	"\t.p2align\t4, 0x90\n"
	".LBB0_1:                                # =>This Loop Header: Depth=1\n"
	"                                        #     Child Loop BB0_2 Depth 2\n"
	"\txorpd\t%xmm0, %xmm0\n"
	"\txorl\t%edi, %edi\n"
	".LBB0_2:                                #   Parent Loop BB0_1 Depth=1\n"
	"\tmovsd\t-8(%rax,%rdi,8), %xmm1          # xmm1 = mem[0],zero\n"
	"\tmulsd\t(%rdx,%rdi,8), %xmm1\n"
	"\taddsd\t%xmm0, %xmm1\n"
	"\taddq\t$2, %rdi\n"
	"\tcmpq\t$64, %rdi\n"
	"\tjne\t.LBB0_2\n"
	"# %bb.3:                                #   in Loop: Header=BB0_1 Depth=1\n"
	"\tmovsd\t%xmm0, (%rsi,%rcx,8)\n"
	"\taddq\t$1, %rcx\n"
	"\tcmpq\t$64, %rcx\n"
	"\tjne\t.LBB0_1\n"
	"# %bb.4:\n"
	"\tretq\n"
	".Lfunc_end0:\n"
	"\t.size\tmv, .Lfunc_end0-mv\n";

static void test_gcc_nested(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct loop_block b;

	(void)state;
	assert_int_equal(loop_asm_hot_block(gcc_mv, strlen(gcc_mv), "mv", &out, &b), 0);
	assert_true(b.is_loop);
	assert_string_equal(b.label, ".L3");
	assert_int_equal(b.nr_insns, 8); /* movapd .. jne .L3 */
	assert_string_equal(out.buf, ".L3:\n"
				     "\tmovapd\t(%rdx,%rax), %xmm0\n"
				     "\tmulpd\t(%rcx,%rax), %xmm0\n"
				     "\taddq\t$16, %rax\n"
				     "\taddsd\t%xmm0, %xmm1\n"
				     "\tunpckhpd\t%xmm0, %xmm0\n"
				     "\taddsd\t%xmm0, %xmm1\n"
				     "\tcmpq\t$512, %rax\n"
				     "\tjne\t.L3\n");
	strbuf_release(&out);
	/* "mv2" is another function: its own loop, not mv's */
	assert_int_equal(loop_asm_hot_block(gcc_mv, strlen(gcc_mv), "mv2", &out, &b), 0);
	assert_string_equal(b.label, ".L9");
	assert_int_equal(b.nr_insns, 2);
	strbuf_release(&out);
}

static void test_clang_nested(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct loop_block b;

	(void)state;
	assert_int_equal(loop_asm_hot_block(clang_mv, strlen(clang_mv), "mv", &out, &b), 0);
	assert_true(b.is_loop);
	assert_string_equal(b.label, ".LBB0_2");
	assert_int_equal(b.nr_insns, 6);
	assert_non_null(strstr(out.buf, "\tjne\t.LBB0_2\n"));
	assert_null(strstr(out.buf, "Child Loop")); /* comment lines are dropped */
	assert_null(strstr(out.buf, "LBB0_1"));
	strbuf_release(&out);
}

static void test_no_loop_and_missing(void **state)
{
	static const char text[] = "f:\n\tmovl\t$1, %eax\n\tret\n\t.size\tf, .-f\n";
	struct strbuf out = STRBUF_INIT;
	struct loop_block b;

	(void)state;
	assert_int_equal(loop_asm_hot_block(text, strlen(text), "f", &out, &b), 0);
	assert_false(b.is_loop);
	assert_int_equal(b.nr_insns, 2);
	assert_string_equal(out.buf, "\tmovl\t$1, %eax\n\tret\n");
	strbuf_release(&out);
	assert_int_equal(loop_asm_hot_block(text, strlen(text), "g", &out, &b), TDP_ENOENT);
	/* a prefix of a label is not the function */
	assert_int_equal(loop_asm_hot_block(text, strlen(text), "", &out, &b), TDP_ENOENT);
	strbuf_release(&out);
}

static void test_arm64_two_inner_loops(void **state)
{
	/* two innermost loops: the larger (.L4, 4 instructions) is the hot one */
	static const char text[] =
		"k:\n"
		".L3:\n"
		"\tldr\td0, [x1], 8\n"
		"\tsubs\tx2, x2, #1\n"
		"\tb.ne\t.L3\n"
		".L4:\n"
		"\tldr\td1, [x3], 8\n"
		"\tfmadd\td0, d1, d1, d0 // square and add\n"
		"\tsubs\tx4, x4, #1\n"
		"\tcbnz\tx4, .L4\n"
		"\tret\n"
		"\t.size\tk, .-k\n";
	struct strbuf out = STRBUF_INIT;
	struct loop_block b;

	(void)state;
	assert_int_equal(loop_asm_hot_block(text, strlen(text), "k", &out, &b), 0);
	assert_string_equal(b.label, ".L4");
	assert_int_equal(b.nr_insns, 4);
	strbuf_release(&out);
}

static void test_mca_parse(void **state)
{
	/* llvm-mca 14's summary for the 5-instruction loop .L2: imulq (%rdx),%rax; addq; addq; cmpq; jne */
	static const char text[] = "Iterations:        100\n"
				   "Instructions:      500\n"
				   "Total Cycles:      706\n"
				   "Total uOps:        500\n"
				   "\n"
				   "Dispatch Width:    6\n"
				   "uOps Per Cycle:    0.71\n"
				   "IPC:               0.71\n"
				   "Block RThroughput: 1.0\n"
				   "\n"
				   "\n"
				   "Instruction Info:\n";
	struct loop_mca m;

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_int_equal(loop_mca_parse(text, strlen(text), &m), 0);
	assert_true(m.cycles_per_iter == 7.06); /* 706 / 100 */
	assert_true(m.block_rthroughput == 1.0);
	assert_true(m.ipc == 0.71);
	assert_true(m.uops_per_cycle == 0.71);
	assert_true(m.dispatch_width == 6);
	/* a summary without Block RThroughput (or garbage) is refused */
	assert_int_equal(loop_mca_parse(text, strstr(text, "Block") - text, &m), TDP_EFORMAT);
	assert_int_equal(loop_mca_parse("error: invalid instruction\n", 27, &m), TDP_EFORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gcc_nested),
		cmocka_unit_test(test_clang_nested),
		cmocka_unit_test(test_no_loop_and_missing),
		cmocka_unit_test(test_arm64_two_inner_loops),
		cmocka_unit_test(test_mca_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
