/*
 * x86.c: the few x86-64 instruction encodings tdpsim reads itself (see tdpsim.h):
 * conditional branches (to tell a Jcc's exit from a rep prefix's) and software
 * prefetches (which VEX drops, address computation and all).
 *
 * Copyright (C) 2025 the tdprof authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "pub_tool_basics.h"

#include "tdpsim.h"

/* The opcode bytes after the legacy and REX prefixes; *rex receives the REX byte (0: none). */
static const UChar *skip_prefixes(const UChar *p, const UChar *end, UChar *rex, Bool *addr32, Bool *seg)
{
	*rex = 0;
	*addr32 = False;
	*seg = False;
	while (p < end) {
		UChar c = *p;

		if (c == 0x26 || c == 0x2e || c == 0x36 || c == 0x3e || c == 0x66 || c == 0xf2 || c == 0xf3) {
			p++;
		} else if (c == 0x64 || c == 0x65) {
			*seg = True; /* fs: or gs: */
			p++;
		} else if (c == 0x67) {
			*addr32 = True;
			p++;
		} else {
			break;
		}
	}
	if (p < end && (*p & 0xf0) == 0x40)
		*rex = *p++;
	return p;
}

Bool tdp_x86_is_cond_branch(Addr a, UInt len)
{
	const UChar *end = (const UChar *)a + len, *p;
	UChar rex;
	Bool a32, seg;

	p = skip_prefixes((const UChar *)a, end, &rex, &a32, &seg);
	if (p >= end)
		return False;
	if ((p[0] >= 0x70 && p[0] <= 0x7f) || (p[0] >= 0xe0 && p[0] <= 0xe3)) /* Jcc rel8, LOOP*, JRCXZ */
		return True;
	return p + 1 < end && p[0] == 0x0f && p[1] >= 0x80 && p[1] <= 0x8f; /* Jcc rel32 */
}

static Int le32(const UChar *p)
{
	return (Int)((UInt)p[0] | (UInt)p[1] << 8 | (UInt)p[2] << 16 | (UInt)p[3] << 24);
}

Bool tdp_x86_prefetch(Addr a, UInt len, struct tdp_amode *am)
{
	const UChar *end = (const UChar *)a + len, *p;
	UChar rex, modrm, mod, rm;
	Bool a32, seg;

	p = skip_prefixes((const UChar *)a, end, &rex, &a32, &seg);
	/* PREFETCHh 0F 18 /0-3, PREFETCHW 0F 0D /1 (and AMD's /0), memory operands only */
	if (a32 || seg || p + 3 > end || p[0] != 0x0f || (p[1] != 0x18 && p[1] != 0x0d))
		return False;
	modrm = p[2];
	mod = modrm >> 6;
	rm = modrm & 7;
	if (mod == 3 || (p[1] == 0x18 && ((modrm >> 3) & 7) > 3))
		return False;
	p += 3;
	am->base = -1;
	am->index = -1;
	am->scale = 0;
	am->disp = 0;
	if (rm == 4) {
		UChar sib;

		if (p >= end)
			return False;
		sib = *p++;
		am->scale = sib >> 6;
		if (((sib >> 3) & 7) != 4 || (rex & 2))
			am->index = ((sib >> 3) & 7) | ((rex & 2) << 2);
		if (!(mod == 0 && (sib & 7) == 5))
			am->base = (sib & 7) | ((rex & 1) << 3);
		else if (p + 4 > end)
			return False;
		else {
			am->disp = le32(p);
			p += 4;
		}
	} else if (mod == 0 && rm == 5) {
		/* RIP-relative: from the end of the instruction */
		if (p + 4 > end)
			return False;
		am->disp = (Long)(a + len) + le32(p);
		return True;
	} else {
		am->base = rm | ((rex & 1) << 3);
	}
	if (mod == 1) {
		if (p + 1 > end)
			return False;
		am->disp += (signed char)p[0];
	} else if (mod == 2) {
		if (p + 4 > end)
			return False;
		am->disp += le32(p);
	}
	return True;
}
