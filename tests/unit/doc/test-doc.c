/*
 * Unit tests of diff/doc: tdprof documents read back (the shapes topdown, why and
 * branches report write), runs turned into intervals, sites, edges and their
 * offsets, source lines, and hostile or wrong input refused with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "doc/doc.h"

#define near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static struct tdoc *parse_ok(const char *json)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdoc *d = NULL;
	int ret = tdoc_parse((const uint8_t *)json, strlen(json), "t.json", &d, &err);

	if (ret)
		fail_msg("tdoc_parse: %d %s", ret, err.msg);
	return d;
}

static int parse_err(const char *json, struct tdp_err *err)
{
	struct tdoc *d = NULL;
	int ret = tdoc_parse((const uint8_t *)json, strlen(json), "t.json", &d, err);

	assert_null(d);
	return ret;
}

/* The shape of `tdprof topdown --json`: a "nodes" array with everything. */
static const char topdown_doc[] =
	"{\"backend\": \"import\", \"source\": \"'a.csv' (perf stat csv)\", \"level\": 2, \"cpu\": \"icelakex\","
	" \"model_kind\": \"slots\", \"model\": {\"name\": \"icelakex\", \"description\": \"Ice Lake-X\"},"
	" \"level1\": {\"retiring\": 40.0, \"bad_speculation\": 10.0, \"frontend_bound\": 20.0,"
	" \"backend_bound\": 30.0}, \"level1_sum\": 100.0,"
	" \"level2\": {\"bad_speculation\": {\"branch_mispredicts\": 9.0, \"machine_clears\": 1.0}},"
	" \"verdict\": {\"category\": \"backend_bound\", \"node\": null, \"value\": 30.0, \"node_value\": null,"
	"  \"over_threshold\": false, \"next_step\": \"look at memory\", \"advice\": \"x\"},"
	" \"nodes\": ["
	"  {\"key\": \"retiring\", \"parent\": null, \"level\": 1, \"label\": \"Retiring\", \"extra\": false,"
	"   \"value\": 40.0, \"threshold\": 80, \"flagged\": false},"
	"  {\"key\": \"bad_speculation\", \"parent\": null, \"level\": 1, \"label\": \"Bad Speculation\","
	"   \"value\": 10.0, \"threshold\": 15, \"flagged\": false},"
	"  {\"key\": \"frontend_bound\", \"parent\": null, \"level\": 1, \"label\": \"Frontend Bound\","
	"   \"value\": 20.0, \"threshold\": 20, \"flagged\": false},"
	"  {\"key\": \"backend_bound\", \"parent\": null, \"level\": 1, \"label\": \"Backend Bound\","
	"   \"value\": 30.0, \"threshold\": 40, \"flagged\": false},"
	"  {\"key\": \"branch_mispredicts\", \"parent\": \"bad_speculation\", \"level\": 2,"
	"   \"label\": \"Branch Mispredicts\", \"value\": 9.0, \"threshold\": 10, \"flagged\": false},"
	"  {\"key\": \"memory_bound\", \"parent\": \"backend_bound\", \"level\": 2, \"label\": \"Memory Bound\","
	"   \"value\": null, \"threshold\": 20, \"flagged\": false}],"
	" \"notes\": [\"a note\"]}";

static void test_topdown_document(void **state)
{
	struct tdoc *d = parse_ok(topdown_doc);
	const struct tdoc_node *n;

	(void)state;
	assert_int_equal(d->kind, TDOC_TOPDOWN);
	assert_string_equal(d->backend, "import");
	assert_string_equal(d->cpu, "icelakex");
	assert_string_equal(d->model_description, "Ice Lake-X");
	assert_int_equal(d->level, 2);
	assert_int_equal(d->nr_nodes, 6);
	n = tdoc_find(d, "bad_speculation");
	assert_non_null(n);
	assert_int_equal(n->level, 1);
	near(n->value, 10, 0);
	near(n->threshold, 15, 0);
	assert_int_equal(n->s.n, 1); /* one run: a value, no interval */
	assert_true(isnan(n->s.lo));
	n = tdoc_find(d, "memory_bound");
	assert_true(isnan(n->value)); /* null stays not measurable, never 0 */
	assert_int_equal(n->s.n, 0);
	assert_string_equal(tdoc_find(d, "branch_mispredicts")->parent, "bad_speculation");
	assert_string_equal(d->verdict.category, "backend_bound");
	assert_null(d->verdict.node);
	assert_true(isnan(d->verdict.node_value));
	assert_int_equal(d->runs, 1);
	assert_int_equal(d->nr_notes, 1);
	assert_int_equal(d->nr_sites, 0);
	tdoc_free(d);
}

static void test_runs_give_intervals(void **state)
{
	/*
	 * bad_speculation over 3 runs: 20, 22, 24 -> mean 22, sd 2, 95 % interval
	 * 22 -+ t(0.975, 2) * 2 / sqrt(3) = 22 -+ 4.302653 * 1.154701 = [17.031725, 26.968275].
	 * retiring: 50, 50, 50 -> a zero-width interval. machine_clears missing in run 2: n = 2.
	 */
	static const char doc[] =
		"{\"backend\": \"sim\", \"level1\": {\"retiring\": 50, \"bad_speculation\": 22},"
		" \"level2\": {\"bad_speculation\": {\"machine_clears\": 1.5}},"
		" \"repeat\": {\"runs\": 3, \"requested\": 5, \"deterministic\": false, \"note\": \"n\"},"
		" \"runs\": ["
		"  {\"level1\": {\"retiring\": 50, \"bad_speculation\": 20}, \"level2\": {\"bad_speculation\":"
		"   {\"machine_clears\": 1}}},"
		"  {\"level1\": {\"retiring\": 50, \"bad_speculation\": 22}, \"level2\": {\"bad_speculation\":"
		"   {\"machine_clears\": null}}},"
		"  {\"level1\": {\"retiring\": 50, \"bad_speculation\": 24}, \"level2\": {\"bad_speculation\":"
		"   {\"machine_clears\": 2}}}]}";
	struct tdoc *d = parse_ok(doc);
	const struct tdoc_node *n;

	(void)state;
	assert_int_equal(d->kind, TDOC_TOPDOWN);
	assert_int_equal(d->runs, 3);
	assert_int_equal(d->runs_requested, 5);
	assert_string_equal(d->repeat_note, "n");
	n = tdoc_find(d, "bad_speculation");
	assert_int_equal(n->s.n, 3);
	near(n->s.mean, 22, 1e-12);
	near(n->s.lo, 17.031724576499, 1e-9);
	near(n->s.hi, 26.968275423501, 1e-9);
	n = tdoc_find(d, "retiring");
	near(n->s.half, 0, 0);
	n = tdoc_find(d, "machine_clears");
	assert_int_equal(n->s.n, 2);
	near(n->s.mean, 1.5, 1e-12);
	tdoc_free(d);
}

/* The shape of `tdprof why --json` (sim): level1/level2 objects, sites, findings, a disassembly. */
static const char why_doc[] =
	"{\"backend\": \"sim\", \"estimate\": true, \"command\": \"./app 1\","
	" \"machine\": {\"name\": \"generic\", \"description\": \"a desktop core\", \"slots_per_cycle\": 6},"
	" \"level1\": {\"retiring\": 30, \"bad_speculation\": 50, \"frontend_bound\": 5, \"backend_bound\": 15},"
	" \"level2\": null, \"thresholds\": {\"bad_speculation\": 15}, \"flagged\": [\"bad_speculation\"],"
	" \"verdict\": {\"category\": \"bad_speculation\", \"next_step\": \"branches\"},"
	" \"drilldown\": {\"kind\": \"branches\", \"disassembly\": {\"function\": \"parse\", \"target\": 4198710,"
	"   \"instructions\": [{\"address\": 4198700, \"text\": \"cmp eax, 3\", \"branch\": false, \"in_line\": true,"
	"   \"target\": false}, {\"address\": 4198710, \"text\": \"jne 0x401150\", \"branch\": true,"
	"   \"in_line\": true, \"target\": true}]}},"
	" \"sites\": [{\"rank\": 1, \"file\": \"/src/app.c\", \"line\": 12, \"function\": \"main\","
	"   \"executions\": 100, \"mispredicts\": 1, \"stream\": false},"
	"  {\"rank\": 2, \"file\": \"/src/app.c\", \"line\": 30, \"function\": \"parse\", \"executions\": 1000,"
	"   \"mispredicts\": 480, \"l1d_misses\": 2}],"
	" \"findings\": [{\"rank\": 1, \"title\": \"a branch\", \"category\": \"bad_speculation\","
	"   \"evidence\": {\"mispredicts\": 480, \"rate\": 0.48}, \"site\": {\"file\": \"app.c\", \"line\": 30},"
	"   \"fix\": \"sort the data\"}]}";

static void test_why_document(void **state)
{
	struct tdoc *d = parse_ok(why_doc);
	const struct tdoc_site *s;

	(void)state;
	assert_int_equal(d->kind, TDOC_WHY); /* "command" is the workload here, not the kind */
	assert_string_equal(d->machine, "generic: a desktop core");
	assert_int_equal(d->nr_nodes, 4); /* level2 null: none */
	assert_true(tdoc_find(d, "bad_speculation")->flagged);
	near(tdoc_find(d, "bad_speculation")->threshold, 15, 0);
	assert_true(isnan(tdoc_find(d, "retiring")->threshold));
	assert_int_equal(d->nr_sites, 2);
	s = &d->sites[1];
	assert_int_equal(s->rank, 2);
	assert_string_equal(s->function, "parse");
	assert_int_equal(s->line, 30);
	near(tdoc_site_count(s, "mispredicts"), 480, 0);
	near(tdoc_site_count(s, "l1d_misses"), 2, 0);
	assert_true(isnan(tdoc_site_count(s, "rank"))); /* not a count */
	assert_true(isnan(tdoc_site_count(&d->sites[0], "stream")));
	/* the drill-down's disassembly belongs to the site in its function */
	assert_int_equal(d->sites[0].nr_disasm, 0);
	assert_int_equal(s->nr_disasm, 2);
	assert_string_equal(s->disasm[1].text, "jne 0x401150");
	assert_true(s->disasm[1].mark);
	assert_false(s->disasm[0].mark);
	assert_true(s->disasm[0].in_line);
	assert_int_equal(s->disasm[1].address, 4198710);
	assert_int_equal(d->nr_findings, 1);
	assert_string_equal(d->findings[0].evidence, "mispredicts: 480, rate: 0.48");
	assert_string_equal(d->findings[0].site, "file: app.c, line: 30");
	assert_string_equal(d->findings[0].fix, "sort the data");
	tdoc_free(d);
}

/* The shape of `tdprof branches report --json`. */
static const char branches_doc[] =
	"{\"backend\": \"import\", \"file\": \"a.data\", \"cpu\": \"x\", \"samples\": 10, \"branch_entries\": 40,"
	" \"mispredicted_entries\": 7, \"lost_samples\": 0,"
	" \"sites\": [{\"rank\": 1, \"address\": \"0x401136\", \"function\": \"parse\", \"offset\": 22,"
	"   \"file\": \"p.c\", \"line\": 9, \"symbol\": \"[.] parse\", \"executions\": 20, \"mispredicts\": 5,"
	"   \"rate\": 0.25, \"type\": \"COND\"},"
	"  {\"rank\": 2, \"address\": \"0xffffffff9daca78b\", \"function\": null, \"offset\": null,"
	"   \"symbol\": \"[k] 0xffffffff9daca78b\", \"executions\": 5, \"mispredicts\": 2}],"
	" \"edges\": [{\"from\": \"0x401136\", \"to\": \"0x401120\", \"from_symbol\": \"[.] parse\","
	"   \"to_symbol\": \"[.] parse\", \"count\": 20, \"mispredicts\": 5},"
	"  {\"from\": \"0x401150\", \"to\": \"0x401000\", \"from_symbol\": \"[.] parse\", \"to_symbol\": \"[.] main\","
	"   \"count\": 3, \"mispredicts\": 0}],"
	" \"disassembly\": [{\"address\": \"0x401136\", \"function\": \"parse\", \"lines\": ["
	"   {\"address\": \"0x401134\", \"text\": \"test eax, eax\", \"target\": false},"
	"   {\"address\": \"0x401136\", \"text\": \"je 0x401120\", \"target\": true}]}]}";

static void test_branches_document(void **state)
{
	struct tdoc *d = parse_ok(branches_doc);
	const struct tdoc_edge *e;

	(void)state;
	assert_int_equal(d->kind, TDOC_BRANCHES);
	assert_int_equal(d->nr_nodes, 0);
	assert_int_equal(d->nr_sites, 2);
	assert_true(d->sites[0].has_address);
	assert_int_equal(d->sites[0].address, 0x401136);
	assert_true(d->sites[0].has_offset);
	assert_int_equal(d->sites[0].offset, 22);
	assert_string_equal(d->sites[0].type, "COND");
	assert_int_equal(d->sites[0].nr_disasm, 2);
	assert_true(d->sites[0].disasm[1].mark);
	assert_null(d->sites[1].function); /* unresolved: "[k] 0x..." names no function */
	assert_false(d->sites[1].has_offset);
	assert_int_equal(d->nr_summary, 4);
	/* edges: the function from perf's symbol, the offset from where the site says parse starts
	 * (0x401136 - 22 = 0x401120): from 0x401136 -> +0x16, to 0x401120 -> +0; main is not a site's */
	assert_int_equal(d->nr_edges, 2);
	e = &d->edges[0];
	assert_string_equal(e->from_function, "parse");
	assert_true(e->has_from_offset && e->from_offset == 0x16);
	assert_true(e->has_to_offset && e->to_offset == 0);
	e = &d->edges[1];
	assert_true(e->has_from_offset && e->from_offset == 0x30);
	assert_string_equal(e->to_function, "main");
	assert_false(e->has_to_offset);
	near(e->count, 3, 0);
	tdoc_free(d);
}

static void test_split_symbol(void **state)
{
	static const struct {
		const char *in, *fn;
		bool has_off;
		uint64_t off;
	} rows[] = {
		{ "parse_token+0x1a", "parse_token", true, 0x1a },
		{ "[.] parse_token+0x1a", "parse_token", true, 0x1a },
		{ "[k] do_idle", "do_idle", false, 0 },
		{ "[.] 0x0000000003b48a20", NULL, false, 0 },
		{ "operator+", "operator+", false, 0 }, /* a '+' that is no offset */
		{ "0x401136", NULL, false, 0 },
		{ "", NULL, false, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *fn;
		uint64_t off;
		bool has;

		assert_int_equal(tdoc_split_symbol(rows[i].in, &fn, &off, &has, NULL), 0);
		if (rows[i].fn)
			assert_string_equal(fn, rows[i].fn);
		else
			assert_null(fn);
		assert_int_equal(has, rows[i].has_off);
		assert_int_equal(off, rows[i].off);
		tdp_free(fn);
	}
}

static void test_refusals(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;

	(void)state;
	assert_int_equal(parse_err("{\"level1\": ", &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "'t.json': line 1 column"));
	tdp_err_clear(&err);
	assert_int_equal(parse_err("[1, 2]", &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "not a JSON object"));
	tdp_err_clear(&err);
	assert_int_equal(parse_err("{\"kind\": \"diff\", \"nodes\": []}", &err), TDP_EFORMAT);
	assert_string_equal(err.msg, "'t.json' is the output of 'tdprof diff'");
	tdp_err_clear(&err);
	assert_int_equal(parse_err("{\"events\": []}", &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "is not a tdprof document"));
	assert_non_null(strstr(err.hint, "tdprof topdown --json"));
	tdp_err_clear(&err);
	assert_int_equal(parse_err("{\"level1\": {\"retiring\": \"forty\"}}", &err), TDP_EFORMAT);
	assert_string_equal(err.msg, "'t.json': level1: 'retiring' is not a number");
	tdp_err_clear(&err);
	assert_int_equal(parse_err("{\"level1\": {}, \"sites\": {}}", &err), TDP_EFORMAT);
	assert_string_equal(err.msg, "'t.json': 'sites' is not an array");
	tdp_err_clear(&err);
	assert_int_equal(parse_err("{\"level1\": {}, \"sites\": [{\"address\": \"zz\"}]}", &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "'address' is not an address"));
	tdp_err_clear(&err);
	assert_int_equal(parse_err("{\"level1\": {}, \"nodes\": [{\"parent\": null}]}", &err), TDP_EFORMAT);
	tdp_err_clear(&err);
	/* more nodes than a tree has */
	{
		char big[4096];
		size_t at = (size_t)snprintf(big, sizeof(big), "{\"level1\": {");

		for (int i = 0; i < TDOC_MAX_NODES + 1; i++)
			at += (size_t)snprintf(big + at, sizeof(big) - at, "%s\"n%d\": 1", i ? ", " : "", i);
		snprintf(big + at, sizeof(big) - at, "}}");
		assert_int_equal(parse_err(big, &err), TDP_ELIMIT);
	}
}

static void test_hostile_bytes(void **state)
{
	/* every prefix and a few byte flips of a real document: an error or a document, never a crash */
	size_t len = strlen(why_doc);
	char *buf = malloc(len + 1);

	(void)state;
	assert_non_null(buf);
	for (size_t n = 0; n <= len; n += 7) {
		struct tdoc *d = NULL;

		if (!tdoc_parse((const uint8_t *)why_doc, n, "t", &d, NULL))
			tdoc_free(d);
	}
	for (size_t i = 0; i < len; i += 3) {
		struct tdoc *d = NULL;

		memcpy(buf, why_doc, len + 1);
		buf[i] = (char)(buf[i] ^ 0x5a);
		if (!tdoc_parse((const uint8_t *)buf, len, "t", &d, NULL))
			tdoc_free(d);
	}
	free(buf);
}

static void test_sources(void **state)
{
	char dir[] = "/tmp/tdprof-doc-XXXXXX", path[64], json[512];
	struct tdoc *d;
	const char *dirs[1];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.c", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 1; i <= 20; i++)
		fprintf(f, "line %d <%d>\r\n", i, i);
	fclose(f);
	/* a relative name found under a directory given, an absolute one as it is, a missing one skipped */
	snprintf(json, sizeof(json),
		 "{\"findings\": [], \"sites\": [{\"file\": \"p.c\", \"line\": 10}, {\"file\": \"%s\", \"line\": 1},"
		 " {\"file\": \"missing.c\", \"line\": 3}, {\"file\": \"p.c\", \"line\": 20}]}", path);
	d = parse_ok(json);
	dirs[0] = dir;
	assert_int_equal(tdoc_attach_sources(d, 3, 2, dirs, 1, NULL), 0);
	assert_int_equal(d->sites[0].nr_source, 5); /* lines 8..12 */
	assert_int_equal(d->sites[0].source[0].line, 8);
	assert_string_equal(d->sites[0].source[2].text, "line 10 <10>"); /* the \r is dropped */
	assert_int_equal(d->sites[1].nr_source, 3);                     /* lines 1..3 */
	assert_int_equal(d->sites[2].nr_source, 0);
	assert_int_equal(d->sites[3].nr_source, 0); /* beyond max_sites */
	tdoc_free(d);
	unlink(path);
	rmdir(dir);
}

static void test_allocation_failures(void **state)
{
	long n;

	(void)state;
	/* fail each of our allocations in turn: an error, never a crash or a leak (ASan) */
	tdp_alloc_fail_after(-1);
	tdoc_free(parse_ok(branches_doc));
	n = tdp_alloc_fail_after(-1);
	for (long i = 0; i < n + 2; i++) {
		struct tdoc *d = NULL;
		int ret;

		tdp_alloc_fail_after(i);
		ret = tdoc_parse((const uint8_t *)branches_doc, strlen(branches_doc), "t", &d, NULL);
		tdp_alloc_fail_after(-1);
		if (ret)
			assert_int_equal(ret, TDP_ENOMEM);
		tdoc_free(d);
	}
}

/*
 * A branches document of 20,000 sites and edges (padded past 8 MiB with a long
 * "dso" string per site, and symbol_edges and blocks the diff never reads):
 * read as its first 16,384 sites and edges, said to be cut; site i has
 * mispredicts 20000 - i, so the first rows are the worst.
 */
#define BIG_ROWS 20000

static char *big_document(size_t *len, const char *tail)
{
	struct strbuf sb = STRBUF_INIT;
	char pad[301];

	memset(pad, 'x', 300);
	pad[300] = 0;
	strbuf_init(&sb, 64u << 20);
	strbuf_adds(&sb, "{\"kind\": \"branches report\", \"backend\": \"import\", \"branch_entries\": 1000000, \"sites\": [\n");
	for (int i = 0; i < BIG_ROWS; i++)
		strbuf_addf(&sb, "%s{\"rank\": %d, \"address\": \"0x%x\", \"function\": \"f%d\", \"offset\": 4, \"dso\": \"%s\", "
			    "\"mispredicts\": %d, \"executions\": %d, \"inline\": [{\"function\": \"g\", \"line\": 3}]}\n",
			    i ? "," : "", i + 1, 0x400000 + 16 * i, i, pad, BIG_ROWS - i, 2 * (BIG_ROWS - i));
	strbuf_adds(&sb, "], \"edges\": [");
	for (int i = 0; i < BIG_ROWS; i++)
		strbuf_addf(&sb, "%s{\"from\": \"0x%x\", \"to\": \"0x%x\", \"from_symbol\": \"[.] f%d\", \"to_symbol\": "
			    "\"[.] f%d\", \"count\": %d, \"mispredicts\": %d}", i ? ", " : "", 0x400000 + 16 * i,
			    0x400008 + 16 * i, i, i, 3 * (BIG_ROWS - i), BIG_ROWS - i);
	strbuf_adds(&sb, "], \"symbol_edges\": [");
	for (int i = 0; i < BIG_ROWS; i++)
		strbuf_addf(&sb, "%s{\"from_symbol\": \"[.] \\\"f%d]\", \"count\": %d}", i ? "," : "", i, i);
	strbuf_adds(&sb, "], \"blocks\": [[1, {\"a\": [2]}]], \"notes\": [\"kept\"]");
	strbuf_adds(&sb, tail);
	assert_false(strbuf_failed(&sb));
	*len = sb.len;
	return strbuf_detach(&sb);
}

static void test_large_document_summarised(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdoc *d = NULL;
	size_t len;
	char *doc = big_document(&len, "}\n");

	(void)state;
	assert_true(len > (8u << 20));
	assert_int_equal(tdoc_parse((const uint8_t *)doc, len, "big.json", &d, &err), 0);
	assert_int_equal(d->kind, TDOC_BRANCHES);
	assert_int_equal(d->nr_sites, 16384);
	assert_int_equal(d->nr_edges, 16384);
	assert_true(d->sites_cut && d->edges_cut);
	/* the first rows, whole */
	assert_string_equal(d->sites[0].function, "f0");
	near(tdoc_site_count(&d->sites[0], "mispredicts"), BIG_ROWS, 0);
	assert_string_equal(d->sites[16383].function, "f16383");
	assert_true(d->sites[16383].address == 0x400000 + 16 * 16383);
	assert_string_equal(d->edges[16383].from_symbol, "[.] f16383");
	near(d->edges[16383].count, 3 * (BIG_ROWS - 16383), 0);
	/* members after the cut tables are read as they are */
	assert_int_equal(d->nr_notes, 1);
	assert_string_equal(d->notes[0], "kept");
	tdoc_free(d);
	free(doc);
}

static void test_large_document_refused_where_wrong(void **state)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct tdoc *d = NULL;
	size_t len;
	char *doc = big_document(&len, ", \"verdict\": \"unterminated}\n");

	(void)state;
	/* the scan gives up; jansson reads the whole document and names the place */
	assert_int_equal(tdoc_parse((const uint8_t *)doc, len, "big.json", &d, &err), TDP_EFORMAT);
	assert_null(d);
	/* line 20002 of the original: the cut copy would put it about 3 MB earlier on the line */
	assert_non_null(strstr(err.msg, "'big.json': line 20002 column "));
	assert_true(strtol(strstr(err.msg, "column ") + 7, NULL, 10) > 3000000);
	free(doc);
	/* a bracket that does not match, among the rows that would be skipped */
	doc = big_document(&len, "}\n");
	memcpy(strstr(doc, "{\"from_symbol\": \"[.] \\\"f19000]\""), "[", 1);
	err = (struct tdp_err)TDP_ERR_INIT;
	assert_int_equal(tdoc_parse((const uint8_t *)doc, len, "big.json", &d, &err), TDP_EFORMAT);
	assert_non_null(strstr(err.msg, "'big.json': line"));
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topdown_document),
		cmocka_unit_test(test_runs_give_intervals),
		cmocka_unit_test(test_why_document),
		cmocka_unit_test(test_branches_document),
		cmocka_unit_test(test_split_symbol),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_hostile_bytes),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_large_document_summarised),
		cmocka_unit_test(test_large_document_refused_where_wrong),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
