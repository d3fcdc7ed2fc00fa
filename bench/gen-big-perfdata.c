/*
 * gen-big-perfdata: make a large perf.data for the benchmarks by repeating the
 * samples of a real recording.
 *
 *   gen-big-perfdata [--zero-cycles] IN OUT [SAMPLES]   (SAMPLES defaults to 200000)
 *
 * --zero-cycles clears the cycles field of every branch entry: Debian's perf 6.1
 * segfaults in `perf report --sort symbol_from,...` on timed LBR (newest entry
 * with cycles != 0, ../shared/README.md), so a file to time perf report on needs it.
 *
 * OUT has IN's attrs, features and non-sample records, with IN's samples repeated
 * in order until SAMPLES were written, in place of the last sample. The copies'
 * TIMEs (when samples have one) increase by 1 us from IN's last sample time, and a
 * FINISHED_ROUND follows every 1000 samples, as perf record writes them, so that
 * perf's ordered-events queue is flushed as for a real recording (perf then
 * warns about the one or two records that followed IN's last sample: their times
 * now fall among the copies').
 * From perf.data.branch-4.14 (13 samples x 32 LBR entries) this gives the issue's
 * 200,000 samples x 32 entries. Written with src/perfdata's reader and writer.
 */
#include "base/alloc.h"
#include "base/err.h"
#include "base/file.h"
#include "base/str.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define ROUND_EVERY 1000
#define TIME_STEP 1000 /* ns between repeated samples */

struct copy {
	uint8_t *rec;
	size_t len;
	size_t time_at;  /* byte offset of TIME in the record, 0: none */
};

/* Offset of the branch entries in a SAMPLE record, from its decode (perf's parse order). */
static size_t branches_offset(const struct perfdata_record *r)
{
	const struct perfdata_sample *x = &r->u.sample;
	uint64_t st = x->fields;
	uint64_t fixed = st & (PERFDATA_SAMPLE_IDENTIFIER | PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID |
			       PERFDATA_SAMPLE_TIME | PERFDATA_SAMPLE_ADDR | PERFDATA_SAMPLE_ID |
			       PERFDATA_SAMPLE_STREAM_ID | PERFDATA_SAMPLE_CPU | PERFDATA_SAMPLE_PERIOD);
	size_t at = 8 + 8 * (size_t)__builtin_popcountll(fixed);

	at += (st & PERFDATA_SAMPLE_READ) ? x->read_len : 0;
	at += (st & PERFDATA_SAMPLE_CALLCHAIN) ? 8 + 8 * x->nr_callchain : 0;
	at += (st & PERFDATA_SAMPLE_RAW) ? 4 + (size_t)x->raw_size : 0;
	return at + 8 + (x->has_hw_idx ? 8 : 0);
}

static void zero_cycles(uint8_t *rec, const struct perfdata_record *r)
{
	size_t at = branches_offset(r);

	for (size_t i = 0; i < r->u.sample.nr_branches; i++) {
		uint8_t *flags = rec + at + 24 * i + 16;
		uint64_t f;

		memcpy(&f, flags, 8);
		f &= ~(0xffffull << 4);
		memcpy(flags, &f, 8);
	}
}

/* Offset of the TIME field in a SAMPLE: after IDENTIFIER, IP and TID (evsel__parse_sample). */
static size_t time_offset(uint64_t st)
{
	size_t at = 8;

	if (!(st & PERFDATA_SAMPLE_TIME))
		return 0;
	at += (st & PERFDATA_SAMPLE_IDENTIFIER) ? 8 : 0;
	at += (st & PERFDATA_SAMPLE_IP) ? 8 : 0;
	at += (st & PERFDATA_SAMPLE_TID) ? 8 : 0;
	return at;
}

static int write_features(const struct perfdata *p, struct perfdata_writer *w, struct tdp_err *err)
{
	static const unsigned strs[] = { PERFDATA_FEAT_HOSTNAME, PERFDATA_FEAT_OSRELEASE,
		PERFDATA_FEAT_VERSION, PERFDATA_FEAT_ARCH, PERFDATA_FEAT_CPUDESC, PERFDATA_FEAT_CPUID };
	const struct perfdata_features *f = perfdata_features(p);
	const char *v[] = { f->hostname, f->osrelease, f->version, f->arch, f->cpudesc, f->cpuid };
	int ret = 0;

	for (size_t i = 0; i < 6 && !ret; i++)
		if (v[i])
			ret = perfdata_writer_set_string(w, strs[i], v[i], err);
	if (!ret && perfdata_has_feature(f, PERFDATA_FEAT_NRCPUS))
		ret = perfdata_writer_set_nrcpus(w, f->nr_cpus_avail, f->nr_cpus_online, err);
	if (!ret && f->nr_cmdline)
		ret = perfdata_writer_set_cmdline(w, f->cmdline, f->nr_cmdline, err);
	for (size_t i = 0; i < f->nr_build_ids && !ret; i++)
		ret = perfdata_writer_add_build_id(w, f->build_ids[i].pid,
						   f->build_ids[i].misc & PERFDATA_MISC_CPUMODE_MASK,
						   f->build_ids[i].id, f->build_ids[i].size,
						   f->build_ids[i].filename, err);
	return ret;
}

static int repeat_samples(struct perfdata_writer *w, struct copy *s, size_t nr, uint64_t total,
			  uint64_t t_max, struct tdp_err *err)
{
	static const uint8_t round[8] = { PERFDATA_RECORD_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0 };
	int ret = 0;

	for (uint64_t k = 0; k < total && !ret; k++) {
		struct copy *c = &s[k % nr];

		if (c->time_at) {
			uint64_t t = t_max + (k + 1) * TIME_STEP;

			memcpy(c->rec + c->time_at, &t, 8);
		}
		ret = perfdata_writer_add_record(w, c->rec, c->len, err);
		if (!ret && (k + 1) % ROUND_EVERY == 0)
			ret = perfdata_writer_add_record(w, round, sizeof(round), err);
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdp_file f = TDP_FILE_INIT;
	struct perfdata *p = NULL;
	struct perfdata_writer *w = NULL;
	struct perfdata_record r;
	struct copy *s = NULL;
	size_t nr = 0, alloc = 0;
	uint64_t total = 200000, t_max = 0, last = 0;
	bool zero = argc > 1 && !strcmp(argv[1], "--zero-cycles");
	int ret;

	argv += zero;
	argc -= zero;
	if (argc < 3 || argc > 4 || (argc == 4 && (!str_to_u64(argv[3], &total) || !total))) {
		fprintf(stderr, "usage: gen-big-perfdata [--zero-cycles] IN OUT [SAMPLES]\n");
		return 2;
	}
	ret = tdp_file_open(&f, argv[1], 0, &err);
	if (!ret)
		ret = perfdata_open(&p, f.data, f.size, argv[1], 0, &err);
	/* pass 1: keep a copy of every sample */
	while (!ret && (ret = perfdata_next(p, &r, &err)) > 0) {
		ret = 0;
		if (r.type != PERFDATA_RECORD_SAMPLE || !r.attr)
			continue;
		if (TDP_GROW(s, alloc, nr + 1) || !(s[nr].rec = tdp_malloc(r.raw_len))) {
			ret = tdp_err_oom(&err);
			break;
		}
		memcpy(s[nr].rec, r.raw, r.raw_len);
		if (zero && (r.attr->sample_type & PERFDATA_SAMPLE_BRANCH_STACK))
			zero_cycles(s[nr].rec, &r);
		s[nr].len = r.raw_len;
		s[nr].time_at = time_offset(r.attr->sample_type);
		if (r.u.sample.time > t_max)
			t_max = r.u.sample.time;
		last = r.offset;
		nr++;
	}
	if (!ret && !nr)
		ret = tdp_err_set(&err, TDP_EFORMAT, "'%s' has no samples to repeat", argv[1]);
	perfdata_close(p);
	p = NULL;
	/* pass 2: everything else in order, the repeated samples where the last one was */
	if (!ret)
		ret = perfdata_open(&p, f.data, f.size, argv[1], 0, &err);
	if (!ret)
		ret = perfdata_writer_open(&w, argv[2], &err);
	for (size_t i = 0; !ret && i < perfdata_nr_attrs(p); i++) {
		const struct perfdata_attr *a = perfdata_attr(p, i);

		ret = perfdata_writer_add_attr(w, a->raw, a->raw_size, a->ids, a->nr_ids, a->name, &err);
	}
	while (!ret && (ret = perfdata_next(p, &r, &err)) > 0) {
		ret = 0;
		if (r.type != PERFDATA_RECORD_SAMPLE)
			ret = perfdata_writer_add_record(w, r.raw, r.raw_len, &err);
		else if (r.offset == last)
			ret = repeat_samples(w, s, nr, total, t_max, &err);
	}
	if (!ret)
		ret = write_features(p, w, &err);
	if (!ret) {
		ret = perfdata_writer_close(w, &err);
		w = NULL;
	}
	perfdata_writer_free(w);
	perfdata_close(p);
	tdp_file_close(&f);
	for (size_t i = 0; i < nr; i++)
		tdp_free(s[i].rec);
	tdp_free(s);
	if (ret) {
		fprintf(stderr, "gen-big-perfdata: %s\n", err.msg);
		return 2;
	}
	printf("%s: %" PRIu64 " samples (%zu distinct)\n", argv[2], total, nr);
	return 0;
}
