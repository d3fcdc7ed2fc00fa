/*
 * bench-symbol: addresses per second through symbol_resolve() on a large binary
 * with debug info (by default the tdprof executable, built with -g), with and
 * without source lines and inline chains.
 *
 *   bench-symbol [BINARY [NR_ADDRESSES]]
 *
 * NR distinct addresses spread over the executable segment (sorted, as a report
 * gives them after aggregation) are resolved in a fresh session ("cold": the
 * binary is opened, its symbol table sorted, its compile units indexed on first
 * use) and again in the same session ("warm": the per-address cost alone).
 * Run by `meson test --benchmark`; prints one line per mode.
 */
#include <inttypes.h>
#include <limits.h>
#include <time.h>

#include "symtest.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The executable PT_LOAD: [*lo, *hi) in vaddrs. */
static int text_range(const char *path, uint64_t *lo, uint64_t *hi, bool *pie)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	GElf_Ehdr eh;
	size_t phnum;

	elf_version(EV_CURRENT);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &phnum))
		return -1;
	*pie = eh.e_type == ET_DYN;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*lo = ph.p_vaddr;
			*hi = ph.p_vaddr + ph.p_filesz;
		}
	}
	elf_end(e);
	close(fd);
	return *hi > *lo ? 0 : -1;
}

struct stats {
	size_t named, with_line, inlined;
};

static double run(const char *path, uint64_t base, const struct symbol_addr *a, size_t n,
		  unsigned flags, double *warm, struct stats *st)
{
	struct symbol_session *s;
	struct symbol_opts o;
	struct symbol_result *r = calloc(n, sizeof(*r));
	double t0, t1, t2;

	symbol_opts_init(&o);
	o.flags = flags;
	t0 = now();
	if (symbol_session_new(&s, &o, NULL) || st_map_elf(s, 1, path, base, NULL, NULL, 0) <= 0 ||
	    symbol_resolve(s, a, n, r, NULL)) {
		fprintf(stderr, "bench-symbol: cannot resolve in '%s'\n", path);
		exit(1);
	}
	t1 = now();
	if (symbol_resolve(s, a, n, r, NULL))
		exit(1);
	t2 = now();
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < n; i++) {
		st->named += r[i].function != NULL;
		st->with_line += r[i].line != 0;
		st->inlined += r[i].nr_frames > 1;
	}
	symbol_session_free(s);
	free(r);
	*warm = t2 - t1;
	return t1 - t0;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	uint64_t lo = 0, hi = 0, base;
	bool pie;
	struct symbol_addr *a;
	static const struct {
		const char *name;
		unsigned flags;
	} modes[] = {
		{ "symbols only (SYMBOL_NO_LINES)", SYMBOL_NO_LINES },
		{ "symbols + file:line (SYMBOL_NO_INLINES)", SYMBOL_NO_INLINES },
		{ "symbols + file:line + inline chain", 0 },
	};

	/* perf records absolute paths; so must we */
	if (!realpath(argc > 1 ? argv[1] : "/proc/self/exe", path)) {
		perror("bench-symbol");
		return 1;
	}
	if (!n || text_range(path, &lo, &hi, &pie)) {
		fprintf(stderr, "bench-symbol: '%s' has no executable segment\n", path);
		return 1;
	}
	base = pie ? ST_PIE_BASE : 0;
	a = calloc(n, sizeof(*a));
	for (size_t i = 0; i < n; i++) { /* evenly spread, sorted, distinct */
		a[i].pid = 1;
		a[i].addr = base + lo + (uint64_t)((double)(hi - lo) * (double)i / (double)n);
	}
	printf("binary %s: %.1f MiB of code, %zu distinct addresses\n", path,
	       (double)(hi - lo) / (1 << 20), n);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		double warm, cold;
		struct stats st;

		cold = run(path, base, a, n, modes[m].flags, &warm, &st);
		printf("%-44s cold %8.1f ms (%9.0f addr/s)  warm %8.1f ms (%9.0f addr/s)  "
		       "named %zu, with line %zu, inlined %zu\n",
		       modes[m].name, cold * 1e3, (double)n / cold, warm * 1e3, (double)n / warm,
		       st.named, st.with_line, st.inlined);
	}
	free(a);
	return 0;
}
