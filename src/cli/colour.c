/* colour.c: whether stdout's text is coloured (see colour.h). */
#include "cli/colour.h"

#include <string.h>

bool colour_parse(const char *s, enum colour_when *out)
{
	static const struct {
		const char *word;
		enum colour_when when;
	} words[] = {
		{ "auto", COLOUR_AUTO }, { "always", COLOUR_ALWAYS }, { "never", COLOUR_NEVER },
		{ "true", COLOUR_ALWAYS }, { "false", COLOUR_NEVER },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i].word)) {
			*out = words[i].when;
			return true;
		}
	return false;
}

const struct palette *colour_palette(enum colour_when when, bool tty, const char *no_color, const char *term)
{
	switch (when) {
	case COLOUR_ALWAYS:
		return &palette_ansi;
	case COLOUR_NEVER:
		return NULL;
	default:
		/* no-color.org: present and not empty, whatever its value */
		if (!tty || (no_color && *no_color) || (term && !strcmp(term, "dumb")))
			return NULL;
		return &palette_ansi;
	}
}
