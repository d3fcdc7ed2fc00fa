/*
 * reduce.c: an example of <tdprof/harness.h>: measure a kernel, change it,
 * measure again.
 *
 * The kernel sums 4096 doubles. Written the obvious way, every addition waits
 * for the previous one (a dependency chain: one add per FP-add latency, 3 or 4
 * cycles on current cores). With four independent accumulators four chains run
 * in parallel, and the same work takes about a quarter of the time (the same
 * instructions; more of them in flight). The harness measures both, pinned and
 * repeated, and prints each result and the speed-up.
 *
 *   build:  cc -O2 reduce.c $(pkg-config --cflags --libs tdprof-harness) -o reduce
 *   run:    ./reduce [--cpu N] [--json]
 */
#include <tdprof/harness.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN 4096

struct data {
	double *x;
	double sink; /* results are stored here, so the compiler must compute them */
};

static int setup(void *arg)
{
	struct data *d = arg;

	d->x = malloc(LEN * sizeof(double));
	if (!d->x)
		return -1;
	for (size_t i = 0; i < LEN; i++)
		d->x[i] = (double)(i % 7) * 0.5; /* touched here, so no page faults while measuring */
	return 0;
}

static void teardown(void *arg)
{
	struct data *d = arg;

	free(d->x);
	d->x = NULL;
}

/* One chain: s += x[i] waits for the previous addition every time. */
static void sum_chain(void *arg, uint64_t n)
{
	struct data *d = arg;

	for (uint64_t k = 0; k < n; k++) {
		const double *x = d->x;
		double s = 0;

		for (size_t i = 0; i < LEN; i++)
			s += x[i];
		d->sink = s;
		__asm__ volatile("" : : : "memory"); /* x may have changed: reload it next time */
	}
}

/* Four chains, added together at the end: the same sum, four additions in flight. */
static void sum_four(void *arg, uint64_t n)
{
	struct data *d = arg;

	for (uint64_t k = 0; k < n; k++) {
		const double *x = d->x;
		double s0 = 0, s1 = 0, s2 = 0, s3 = 0;

		for (size_t i = 0; i < LEN; i += 4) {
			s0 += x[i];
			s1 += x[i + 1];
			s2 += x[i + 2];
			s3 += x[i + 3];
		}
		d->sink = (s0 + s1) + (s2 + s3);
		__asm__ volatile("" : : : "memory");
	}
}

static void log_line(void *arg, enum tdp_harness_log_level level, const char *msg)
{
	(void)arg;
	fprintf(stderr, "reduce: %s: %s\n", level == TDP_HARNESS_LOG_WARNING ? "warning" : "note", msg);
}

int main(int argc, char **argv)
{
	struct data d = { NULL, 0 };
	struct tdp_harness_kernel kernels[2] = {
		{ "sum_chain", sum_chain, NULL, setup, teardown, &d },
		{ "sum_four", sum_four, NULL, setup, teardown, &d },
	};
	struct tdp_harness_result res[2];
	struct tdp_harness_config cfg;
	struct tdp_harness *h;
	static char text[8192];
	char err[256];
	bool json = false;

	tdp_harness_config_init(&cfg);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			cfg.cpu = (int)strtol(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "usage: %s [--cpu N] [--json]\n", argv[0]);
			return 2;
		}
	}
	if (!json)
		cfg.log = log_line;
	if (tdp_harness_open(&h, &cfg, err, sizeof(err))) {
		fprintf(stderr, "reduce: %s\n", err);
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		if (tdp_harness_run(h, &kernels[i], &res[i])) {
			fprintf(stderr, "reduce: %s\n", tdp_harness_error(h));
			tdp_harness_close(h);
			return 1;
		}
	}
	tdp_harness_close(h);
	if (json) {
		printf("[");
		for (int i = 0; i < 2; i++) {
			tdp_harness_format_json(&res[i], text, sizeof(text));
			text[strcspn(text, "\n")] = '\0';
			printf("%s%s", i ? ",\n" : "", text);
		}
		printf("]\n");
	} else {
		for (int i = 0; i < 2; i++) {
			tdp_harness_format_text(&res[i], text, sizeof(text));
			fputs(text, stdout);
		}
		printf("speed-up of sum_four over sum_chain: %.2fx (per element: %.3f ns and %.3f ns)\n",
		       res[0].ns.median / res[1].ns.median, res[0].ns.median / LEN, res[1].ns.median / LEN);
	}
	return 0;
}
