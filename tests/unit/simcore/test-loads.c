/* test-loads.c: simcore's address-dependence flags, its llvm-mca text, and loop/'s µop parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "loop/loop.h"
#include "simcore/simcore.h"

static void set(struct simcore_insn *v, size_t n, const char *const *text)
{
	memset(v, 0, n * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		snprintf(v[i].text, sizeof(v[i].text), "%s", text[i]);
		v[i].branch_type = text[i][0] == 'j' || !strncmp(text[i], "b.", 2) || !strncmp(text[i], "call", 4);
	}
}

static void test_chase_and_walk(void **state)
{
	/* a linked list: the next address is the value loaded (through the previous iteration) */
	static const char *const chase[] = { "mov rax, qword ptr [rax]", "sub rdx, 1", "jne 0x1200" };
	/* an array walk: the address is the index, computed without a load */
	static const char *const walk[] = { "movzx edx, byte ptr [rdi + rax]", "add rax, 0x40", "add rcx, rdx",
					    "cmp rax, rsi", "jb 0x1180" };
	/* an index array: a[b[i]] chases through the loaded index, b[i] does not */
	static const char *const indirect[] = { "mov eax, dword ptr [rsi + rcx*4]", "mov edx, dword ptr [rdi + rax*4]",
						"add rcx, 1", "jne 0x1300" };
	/* a store through a register is no load; lea reads no memory */
	static const char *const stores[] = { "mov qword ptr [rdi], rax", "lea rax, [rax + 8]", "jmp 0x1000" };
	/* a software prefetch covers the loads through its base register */
	static const char *const pf[] = { "prefetcht0 byte ptr [rdi + 0x200]", "mov rax, qword ptr [rdi]",
					  "add rdi, 8", "jne 0x1400" };
	static const char *const arm[] = { "ldr x0, [x0, #8]", "ldr x2, [x1, x3, lsl #3]", "add x3, x3, #1",
					   "b.ne #0x1400" };
	struct simcore_insn v[8];
	uint32_t f[8];

	(void)state;
	set(v, 3, chase);
	simcore_load_flags(v, 3, false, f);
	assert_int_equal(f[0], SIM_INSN_CHASE);
	assert_int_equal(f[1], 0);
	set(v, 5, walk);
	simcore_load_flags(v, 5, false, f);
	assert_int_equal(f[0], SIM_INSN_INDEP);
	set(v, 4, indirect);
	simcore_load_flags(v, 4, false, f);
	assert_int_equal(f[0], SIM_INSN_INDEP);
	assert_int_equal(f[1], SIM_INSN_CHASE);
	set(v, 3, stores);
	simcore_load_flags(v, 3, false, f);
	assert_int_equal(f[0], 0);
	assert_int_equal(f[1], 0);
	set(v, 4, pf);
	simcore_load_flags(v, 4, false, f);
	assert_int_equal(f[0], 0);
	assert_int_equal(f[1], SIM_INSN_PREFETCHED);
	set(v, 4, arm);
	simcore_load_flags(v, 4, true, f);
	assert_int_equal(f[0], SIM_INSN_CHASE);
	assert_int_equal(f[1], SIM_INSN_INDEP);
}

static void test_mca_text(void **state)
{
	static const char *const t[] = { "jne 0x11d2", "call 0x1040", "call rax", "ret", "add rax, 1" };
	struct simcore_insn v[5];
	char buf[256];

	(void)state;
	set(v, 5, t);
	v[3].branch_type = 1;
	simcore_mca_text(&v[0], false, buf, sizeof(buf));
	assert_string_equal(buf, "jne .Lt");
	simcore_mca_text(&v[1], false, buf, sizeof(buf));
	assert_string_equal(buf, "jmp .Lt");
	simcore_mca_text(&v[2], false, buf, sizeof(buf));
	assert_string_equal(buf, "jmp rax");
	simcore_mca_text(&v[3], false, buf, sizeof(buf));
	assert_string_equal(buf, "jmp .Lt");
	simcore_mca_text(&v[3], true, buf, sizeof(buf));
	assert_string_equal(buf, "b .Lt");
	simcore_mca_text(&v[4], false, buf, sizeof(buf));
	assert_string_equal(buf, "add rax, 1");
}

/* llvm-mca 14's Instruction Info view, as it prints it. */
static const char info[] = "Iterations:        100\n"
			   "Instructions:      200\n"
			   "Total Cycles:      7703\n"
			   "Total uOps:        3300\n\n"
			   "Instruction Info:\n"
			   "[1]: #uOps\n"
			   "[2]: Latency\n\n"
			   "[1]    [2]    [3]    [4]    [5]    [6]    Instructions:\n"
			   " 32     76    8.00                  U     div\trcx\n"
			   " 1      1     0.25                        add\trax, rdx\n"
			   "\n\n[1] Code Region - r1\n";

static void test_parse_uops(void **state)
{
	unsigned u[4];
	size_t nr = 0;

	(void)state;
	assert_int_equal(loop_mca_parse_uops(info, strlen(info), u, 4, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(u[0], 32);
	assert_int_equal(u[1], 1);
	assert_int_equal(loop_mca_parse_uops(info, strlen(info), u, 1, &nr), TDP_ELIMIT);
	assert_int_equal(loop_mca_parse_uops("Iterations: 1\n", 14, u, 4, &nr), TDP_EFORMAT);
	{
		static const char bad[] = "[1]    [2]    Instructions:\n x 1 add\n";

		assert_int_equal(loop_mca_parse_uops(bad, strlen(bad), u, 4, &nr), TDP_EFORMAT);
	}
	{
		static const char huge[] = "[1]    [2]    Instructions:\n 99999999999 1 add\n";

		assert_int_equal(loop_mca_parse_uops(huge, strlen(huge), u, 4, &nr), TDP_EFORMAT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chase_and_walk),
		cmocka_unit_test(test_mca_text),
		cmocka_unit_test(test_parse_uops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
