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
#include "perfdata/branch-entry.h"
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
	assert_int_equal(loop_mca_parse_uops(info, strlen(info), u, NULL, 4, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(u[0], 32);
	assert_int_equal(u[1], 1);
	assert_int_equal(loop_mca_parse_uops(info, strlen(info), u, NULL, 1, &nr), TDP_ELIMIT);
	assert_int_equal(loop_mca_parse_uops("Iterations: 1\n", 14, u, NULL, 4, &nr), TDP_EFORMAT);
	{
		static const char bad[] = "[1]    [2]    Instructions:\n x 1 add\n";

		assert_int_equal(loop_mca_parse_uops(bad, strlen(bad), u, NULL, 4, &nr), TDP_EFORMAT);
	}
	{
		static const char huge[] = "[1]    [2]    Instructions:\n 99999999999 1 add\n";

		assert_int_equal(loop_mca_parse_uops(huge, strlen(huge), u, NULL, 4, &nr), TDP_EFORMAT);
	}
}

/* llvm-mca 14 -mcpu=skylake's Instruction Info view of a block, as it prints it. */
static const char info_skl[] = "Instruction Info:\n"
			       "[1]: #uOps\n"
			       "[2]: Latency\n"
			       "[3]: RThroughput\n"
			       "[4]: MayLoad\n"
			       "[5]: MayStore\n"
			       "[6]: HasSideEffects (U)\n\n"
			       "[1]    [2]    [3]    [4]    [5]    [6]    Instructions:\n"
			       " 2      6     0.50    *                   add\trax, qword ptr [rdi + 8]\n"
			       " 1      1     1.00           *            mov\tqword ptr [rsi], rax\n"
			       " 3      7     1.00    *      *            add\tqword ptr [rdx], rax\n"
			       " 3      2     1.00           *            push\trbx\n"
			       " 2      6     0.50    *                   pop\trbx\n"
			       " 2      1     1.00           *            vmovups\tymmword ptr [rsi], ymm0\n"
			       " 32     76    8.00                  U     div\trcx\n"
			       " 1      1     0.25                        inc\trcx\n"
			       " 1      1     0.25                        cmp\trcx, r8\n"
			       " 1      1     0.50                        jne\t.Lt\n"
			       " 1      1     0.25                        add\trax, 1\n"
			       " 1      1     0.50                        js\t.Lt\n"
			       " 2      6     0.50    *                   cmp\tqword ptr [rdi], 5\n"
			       " 1      1     0.50                        je\t.Lt\n"
			       "\n";

static void test_fused_uops(void **state)
{
	static const char *const text[] = {
		"add rax, qword ptr [rdi + 8]", "mov qword ptr [rsi], rax", "add qword ptr [rdx], rax", "push rbx",
		"pop rbx", "vmovups ymmword ptr [rsi], ymm0", "div rcx", "inc rcx", "cmp rcx, r8", "jne 0x401000",
		"add rax, 1", "js 0x401000", "cmp qword ptr [rdi], 5", "je 0x401000",
	};
	/* slots: load-op 1, store 1, read-modify-write 2, push 1, pop 1, vector store 1, the
	 * microcoded divide kept, cmp+jne one (on cmp), add+js two (no fusion on the sign),
	 * cmp [mem], imm + je two (memory and an immediate do not fuse) */
	static const unsigned want[] = { 1, 1, 2, 1, 1, 1, 32, 1, 1, 0, 1, 1, 1, 1 };
	enum { N = sizeof(text) / sizeof(*text) };
	struct simcore_insn v[N];
	unsigned u[N], fused[N];
	uint8_t mem[N];
	size_t nr = 0;

	(void)state;
	memset(v, 0, sizeof(v));
	for (size_t i = 0; i < N; i++) {
		snprintf(v[i].text, sizeof(v[i].text), "%s", text[i]);
		v[i].branch_type = text[i][0] == 'j' ? BRANCH_TYPE_COND : 0;
	}
	assert_int_equal(loop_mca_parse_uops(info_skl, strlen(info_skl), u, mem, N, &nr), 0);
	assert_int_equal(nr, N);
	assert_int_equal(mem[0], LOOP_MCA_MAY_LOAD);
	assert_int_equal(mem[1], LOOP_MCA_MAY_STORE);
	assert_int_equal(mem[2], LOOP_MCA_MAY_LOAD | LOOP_MCA_MAY_STORE);
	assert_int_equal(mem[6], 0);
	assert_int_equal(u[2], 3);
	simcore_fused_uops(v, N, u, mem, false, fused);
	for (size_t i = 0; i < N; i++) {
		if (fused[i] != want[i])
			fail_msg("%s: %u fused µops, want %u", text[i], fused[i], want[i]);
	}
	{
		/* llvm-mca 16's Alder Lake P-core counts a store two, a read-modify-write four, push two */
		static const char adl[] = "[4]: MayLoad\n[5]: MayStore\n\n"
					  "[1]    [2]    [3]    [4]    [5]    [6]    Instructions:\n"
					  " 2      12    0.50           *            mov\tqword ptr [rsi], rax\n"
					  " 4      12    0.50    *      *            add\tqword ptr [rdx], rax\n"
					  " 2      1     0.50           *            push\trbx\n"
					  " 0      1     0.00                        inc\trcx\n\n";
		static const unsigned want_adl[] = { 1, 2, 1, 1 };

		assert_int_equal(loop_mca_parse_uops(adl, strlen(adl), u, mem, N, &nr), 0);
		assert_int_equal(nr, 4);
		memset(v, 0, sizeof(v));
		snprintf(v[0].text, sizeof(v[0].text), "mov qword ptr [rsi], rax");
		snprintf(v[1].text, sizeof(v[1].text), "add qword ptr [rdx], rax");
		snprintf(v[2].text, sizeof(v[2].text), "push rbx");
		snprintf(v[3].text, sizeof(v[3].text), "inc rcx");
		simcore_fused_uops(v, 4, u, mem, false, fused);
		for (size_t i = 0; i < 4; i++)
			if (fused[i] != want_adl[i])
				fail_msg("%s: %u fused µops, want %u", v[i].text, fused[i], want_adl[i]);
		for (size_t i = 0; i < N; i++) {
			snprintf(v[i].text, sizeof(v[i].text), "%s", text[i]);
			v[i].branch_type = text[i][0] == 'j' ? BRANCH_TYPE_COND : 0;
		}
		assert_int_equal(loop_mca_parse_uops(info_skl, strlen(info_skl), u, mem, N, &nr), 0);
	}
	/* Arm's counts are kept */
	simcore_fused_uops(v, N, u, mem, true, fused);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(fused[i], u[i]);
	/* without the legend no column is a flag */
	assert_int_equal(loop_mca_parse_uops(info, strlen(info), u, mem, N, &nr), 0);
	assert_int_equal(mem[0] | mem[1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chase_and_walk),
		cmocka_unit_test(test_mca_text),
		cmocka_unit_test(test_parse_uops),
		cmocka_unit_test(test_fused_uops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
