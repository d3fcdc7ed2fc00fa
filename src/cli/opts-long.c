/*
 * opts-long.c: which option a long name means (see opts-internal.h): the exact
 * name, "no-NAME" of a flag, --mode of a command that writes files, or, as
 * getopt_long and perf take them, an unambiguous prefix of one ("--rep" is
 * --repeat); an ambiguous prefix is refused with its candidates.
 */
#include "cli/opts-internal.h"
#include "cli/msg.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

/* One spelling a command takes: the option (NULL: --mode) and whether it is the --no- form. */
struct spelling {
	const struct opt *o;
	bool negated;
	char name[64];
};

#define MAX_SPELLINGS 256

static size_t spellings(const struct opt *opts, struct spelling *v)
{
	size_t n = 0;

	for (const struct opt *o = opts; o->type != OPT_T_END && n + 2 <= MAX_SPELLINGS; o++) {
		if (!o->long_name)
			continue;
		v[n] = (struct spelling){ o, false, "" };
		snprintf(v[n++].name, sizeof(v[0].name), "%s", o->long_name);
		if (o->type == OPT_T_BOOL && strncmp(o->long_name, "no-", 3)) {
			v[n] = (struct spelling){ o, true, "" };
			snprintf(v[n++].name, sizeof(v[0].name), "no-%s", o->long_name);
		}
	}
	if (opts_writes_files(opts) && n < MAX_SPELLINGS) {
		v[n] = (struct spelling){ NULL, false, "mode" };
		n++;
	}
	return n;
}

int opts_find_long(const struct opt *opts, const char *cmd, const char *name, size_t len, const struct opt **out,
		   bool *negated)
{
	struct spelling v[MAX_SPELLINGS];
	size_t n = spellings(opts, v), hit = 0, nr_hits = 0;

	*out = NULL;
	*negated = false;
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i].name) == len && !strncmp(v[i].name, name, len)) {
			*out = v[i].o;
			*negated = v[i].negated;
			return v[i].o ? OPTS_LONG_FOUND : OPTS_LONG_MODE;
		}
	for (size_t i = 0; len && i < n; i++)
		if (!strncmp(v[i].name, name, len)) {
			/* "--no-x" and "--x..." of one flag are two meanings: both count */
			hit = i;
			nr_hits++;
		}
	if (nr_hits == 1) {
		*out = v[hit].o;
		*negated = v[hit].negated;
		return v[hit].o ? OPTS_LONG_FOUND : OPTS_LONG_MODE;
	}
	if (nr_hits > 1) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < n; i++)
			if (!strncmp(v[i].name, name, len))
				strbuf_addf(&sb, "%s'--%s'", sb.len ? ", " : "", v[i].name);
		msg_usage(cmd, "option '--%.*s' is ambiguous: it can be %s", (int)len, name,
			  strbuf_failed(&sb) ? "several options" : sb.buf);
		strbuf_release(&sb);
		return OPTS_LONG_AMBIGUOUS;
	}
	return OPTS_LONG_UNKNOWN;
}
