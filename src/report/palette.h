/*
 * palette.h: the colours of the text renderers. Whether to colour is decided in
 * cli/ (cli/colour.h: --color, NO_COLOR, TERM, a terminal); a renderer gets a
 * palette through its document struct (NULL: no colour) and writes
 *   fprintf(out, "%sverdict: ...%s\n", pal_on(r->pal, PAL_VERDICT), pal_off(r->pal));
 * so that without a palette the bytes are exactly the uncoloured text. What is
 * coloured: the verdict (and stat's next step), a node above its threshold, the
 * filled part of a bar, the hottest row of a ranked table.
 */
#ifndef TDPROF_REPORT_PALETTE_H
#define TDPROF_REPORT_PALETTE_H

enum pal_role {
	PAL_VERDICT = 0, /* the verdict line, stat's "next:" */
	PAL_HOT,         /* a node above its threshold, the hottest row */
	PAL_BAR,         /* the filled part of a bar */
	PAL_ROLES,
};

struct palette {
	const char *on[PAL_ROLES]; /* the escape sequence that starts each role */
	const char *off;           /* the one that ends it */
};

/** ANSI SGR colours (ECMA-48): bold verdicts, bold red hot rows, cyan bars. */
extern const struct palette palette_ansi;

/** What starts role r, "" without a palette. */
const char *pal_on(const struct palette *p, enum pal_role r);

/** What ends a role, "" without a palette. */
const char *pal_off(const struct palette *p);

#endif
