/*
 * fused.c: an x86 block's µops in the fused domain, the domain of top-down's
 * slots (see simcore_fused_uops() in simcore.h).
 *
 * llvm-mca's Intel scheduling models count µops as they execute (the unfused
 * domain, near enough): a load-op instruction two (load, op), a read-modify-write
 * three (llvm-mca 14's Skylake model, which its alderlake is) or four (16's Alder
 * Lake P-core model), a vector store two (address, data), push three and pop two
 * (14) or push two (16). The front end issues and retires
 * them fused: one slot for a micro-fused load-op or store, two for a
 * read-modify-write, one for push and pop (the stack engine keeps the pointer),
 * and one for a compare macro-fused with its conditional jump (Intel's
 * optimization manual, "Micro-fusion", "Macro-fusion" and "Stack pointer
 * tracker"). Its Zen models count macro-ops already (one for each of these), and
 * Zen fuses a compare with its jump too (AMD's Zen 3 and 4 software optimization
 * guides, "Branch fusion"). Counted unfused, Retiring and Heavy Operations were
 * inflated: every load-op read as a "heavy" two-µop instruction.
 *
 * Known simplifications (docs/sim-machine.md): indexed load-ops that Intel's
 * cores unlaminate at issue are counted fused; ADD/SUB/AND/INC/DEC fuse as
 * Sandy Bridge and later fuse them, on Zen too.
 */
#include "simcore/simcore.h"

#include <string.h>

#include "loop/loop.h"
#include "perfdata/branch-entry.h"

static bool word_is(const char *t, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(t, w, n);
}

/* The mnemonic of capstone's text ("cmp rax, qword ptr [rdi]"): its start and length (prefixes skipped). */
static const char *mnemonic(const char *t, size_t *n)
{
	for (;;) {
		size_t l = strcspn(t, " \t");

		if ((word_is(t, l, "lock") || word_is(t, l, "rep") || word_is(t, l, "notrack") || word_is(t, l, "bnd")) &&
		    t[l]) {
			t += l + 1;
			continue;
		}
		*n = l;
		return t;
	}
}

/* Which first halves fuse with a Jcc (1: cmp/test, fuse with every condition; 2: add/sub/and; 3: inc/dec). */
static int fusing_kind(const char *t)
{
	size_t n;
	const char *m = mnemonic(t, &n);

	if (word_is(m, n, "cmp") || word_is(m, n, "test"))
		return 1;
	if (word_is(m, n, "and"))
		return 1; /* AND fuses with every Jcc too */
	if (word_is(m, n, "add") || word_is(m, n, "sub"))
		return 2;
	if (word_is(m, n, "inc") || word_is(m, n, "dec"))
		return 3;
	return 0;
}

/*
 * Whether the first half t fuses with the conditional jump j: not with a memory
 * operand and an immediate together (cmp [mem], imm), not when it writes memory;
 * ADD/SUB not with the sign, parity and overflow conditions, INC/DEC neither
 * with the carry ones (they leave the carry alone).
 */
static bool fuses(const char *t, const char *j)
{
	int kind = fusing_kind(t);
	size_t n, jn;
	const char *m = mnemonic(t, &n), *ops = m + n, *mem = strchr(ops, '['), *comma = strchr(ops, ',');
	const char *jm = mnemonic(j, &jn);

	if (!kind || jn < 2 || jm[0] != 'j')
		return false;
	if (mem && comma) {
		const char *imm = comma + 1;

		while (*imm == ' ')
			imm++;
		if ((*imm >= '0' && *imm <= '9') || *imm == '-')
			return false; /* memory and an immediate */
		if (mem < comma && kind != 1)
			return false; /* a memory destination: a read-modify-write */
	} else if (mem && kind != 1) {
		return false; /* inc/dec of memory */
	}
	if (kind >= 2) {
		static const char *const sign_parity[] = { "js", "jns", "jp", "jnp", "jpe", "jpo", "jo", "jno" };
		static const char *const carry[] = { "jb", "jae", "jnb", "jc", "jnc", "jnae", "ja", "jbe", "jna", "jnbe" };

		for (size_t k = 0; k < sizeof(sign_parity) / sizeof(*sign_parity); k++)
			if (word_is(jm, jn, sign_parity[k]))
				return false;
		for (size_t k = 0; kind == 3 && k < sizeof(carry) / sizeof(*carry); k++)
			if (word_is(jm, jn, carry[k]))
				return false;
	}
	return true;
}

void simcore_fused_uops(const struct simcore_insn *v, size_t n, const unsigned *uops, const uint8_t *mem,
			bool aarch64, unsigned *fused)
{
	for (size_t k = 0; k < n; k++) {
		unsigned u = uops[k] ? uops[k] : 1; /* llvm-mca's zero-µop rows (nop, eliminated moves) still take a slot */
		size_t mn;
		const char *m = mnemonic(v[k].text, &mn);

		if (!aarch64 && (word_is(m, mn, "push") || word_is(m, mn, "pop")))
			u = 1; /* one fused µop each, the stack engine updating the pointer */
		else if (!aarch64 && (mem[k] & LOOP_MCA_MAY_LOAD) && (mem[k] & LOOP_MCA_MAY_STORE))
			u = u >= 3 ? (u - 2 > 2 ? u - 2 : 2) : u; /* read-modify-write: load+op and store, two slots */
		else if (!aarch64 && u >= 2 && mem[k])
			u--; /* a load micro-fused with its operation, a store's address with its data */
		fused[k] = u;
		/* only jcc fuse (not jcxz, loop) */
		if (!aarch64 && k > 0 && v[k].branch_type == BRANCH_TYPE_COND && fused[k - 1] == 1 &&
		    strncmp(v[k].text, "jrcxz", 5) && strncmp(v[k].text, "jecxz", 5) && strncmp(v[k].text, "jcxz", 4) &&
		    fuses(v[k - 1].text, v[k].text))
			fused[k] = 0; /* the pair issues and retires as one µop: counted on the first */
	}
}
