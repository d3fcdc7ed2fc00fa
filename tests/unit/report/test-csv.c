/*
 * test-csv.c: the CSV renderers of `topdown` and `why` (report/topdown-csv.c,
 * report/why-csv.c) and their fields (report/csv.h): the columns, the tree's
 * order, an unmeasured node as an empty field (never 0), the user's separator
 * and quoting by it, hostile names escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "report/csv.h"
#include "report/topdown.h"
#include "report/why.h"

static const struct model model = { .name = "test", .description = "a test model", .sources = "this test" };

static void make_tree(struct metric_tree *t)
{
	static const struct {
		const char *key, *parent, *label;
		int level;
		double value, threshold;
		bool flagged;
	} n[] = {
		/* listed out of the tree's order: the CSV puts each node after its parent */
		{ "frontend_bound", NULL, "Frontend Bound", 1, 50, 20, true },
		{ "fetch_latency", "frontend_bound", "Fetch Latency", 2, 30, 10, true },
		{ "backend_bound", NULL, "Backend, Bound", 1, 20, 40, false },
		{ "icache_misses", "fetch_latency", "ICache Misses", 3, NAN, 5, false },
		{ "core_bound", "backend_bound", "Core Bound", 2, 4.126, NAN, false },
	};

	memset(t, 0, sizeof(*t));
	t->model = &model;
	t->max_level = 3;
	t->nr = sizeof(n) / sizeof(n[0]);
	for (size_t i = 0; i < t->nr; i++) {
		t->v[i].key = n[i].key;
		t->v[i].parent = n[i].parent;
		t->v[i].label = n[i].label;
		t->v[i].level = n[i].level;
		t->v[i].value = n[i].value;
		t->v[i].threshold = n[i].threshold;
		t->v[i].flagged = n[i].flagged;
		t->v[i].group = -1;
	}
}

static void test_topdown_rows(void **state)
{
	static struct metric_tree t;
	struct topdown_report r = { .nr_trees = 1, .level = 3 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	make_tree(&t);
	r.trees[0] = &t;
	topdown_csv(&sb, &r);
	assert_false(strbuf_failed(&sb));
	assert_string_equal(sb.buf, "key,name,level,parent,value,threshold,crossed\n"
				    "frontend_bound,Frontend Bound,1,,50.00,20,true\n"
				    "fetch_latency,Fetch Latency,2,frontend_bound,30.00,10,true\n"
				    "icache_misses,ICache Misses,3,fetch_latency,,5,false\n"
				    "backend_bound,\"Backend, Bound\",1,,20.00,40,false\n"
				    "core_bound,Core Bound,2,backend_bound,4.13,,false\n");
	strbuf_release(&sb);

	/* -x ';': the separator between fields, the comma no longer quoted; --nodes: a subtree */
	r.csv_sep = ";";
	r.nodes = "backend_bound";
	topdown_csv(&sb, &r);
	assert_string_equal(sb.buf, "key;name;level;parent;value;threshold;crossed\n"
				    "backend_bound;Backend, Bound;1;;20.00;40;false\n"
				    "core_bound;Core Bound;2;backend_bound;4.13;;false\n");
	strbuf_release(&sb);
}

static void test_topdown_hybrid_has_core_type(void **state)
{
	static struct metric_tree p, e;
	static const struct model pm = { .name = "alderlake", .core_type = "P-core" };
	static const struct model em = { .name = "gracemont", .core_type = "E-core" };
	struct topdown_report r = { .nr_trees = 2, .level = 1, .nodes = "frontend_bound,-fetch_latency" };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	make_tree(&p);
	make_tree(&e);
	p.model = &pm;
	e.model = &em;
	r.trees[0] = &p;
	r.trees[1] = &e;
	topdown_csv(&sb, &r);
	assert_string_equal(sb.buf, "core_type,key,name,level,parent,value,threshold,crossed\n"
				    "P-core,frontend_bound,Frontend Bound,1,,50.00,20,true\n"
				    "E-core,frontend_bound,Frontend Bound,1,,50.00,20,true\n");
	strbuf_release(&sb);
}

static void test_why_findings(void **state)
{
	static struct diag d;
	struct why_report r = { .d = &d };
	struct strbuf sb = STRBUF_INIT;
	char title[] = "unpredictable branch at a.c:39 in f", evidence[] = "6,543 of 13,107 mispredicted; 23.9 %",
	     fix[] = "say \"cmov\"", file[] = "a.c", fn[] = "f\x1b[31m", title2[] = "no site";

	(void)state;
	d.nr_findings = 2;
	d.findings[0] = (struct diag_finding){ .title = title, .category = "bad_speculation",
					       .node = "branch_mispredicts", .evidence = evidence, .site = 0,
					       .file = file, .function = fn, .line = 39, .fix = fix, .share = 23.912 };
	d.findings[1] = (struct diag_finding){ .title = title2, .category = "retiring", .node = "retiring",
					       .evidence = title2, .site = -1, .fix = title2, .share = NAN };
	why_csv(&sb, &r);
	assert_string_equal(sb.buf,
			    "rank,title,category,node,share_pct,file,line,function,evidence,fix\n"
			    "1,unpredictable branch at a.c:39 in f,bad_speculation,branch_mispredicts,23.91,a.c,39,"
			    "f\\x1b[31m,\"6,543 of 13,107 mispredicted; 23.9 %\",\"say \"\"cmov\"\"\"\n"
			    "2,no site,retiring,retiring,,,,,no site,no site\n");
	strbuf_release(&sb);
	r.csv_sep = ";";
	why_csv(&sb, &r);
	assert_non_null(strstr(sb.buf, ";\"6,543 of 13,107 mispredicted; 23.9 %\";"));
	assert_non_null(strstr(sb.buf, "\n2;no site;retiring;retiring;;;;;no site;no site\n"));
	strbuf_release(&sb);
}

static void test_fields(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	csv_field(&sb, "a\tb", "\t");
	strbuf_addch(&sb, '|');
	csv_field(&sb, "line\nbreak", ",");
	strbuf_addch(&sb, '|');
	csv_field(&sb, NULL, ",");
	strbuf_addch(&sb, '|');
	csv_field(&sb, "x::y", "::");
	strbuf_addch(&sb, '|');
	csv_number(&sb, INFINITY, 2);
	csv_number(&sb, 1.0 / 3, 3);
	/* a tab is escaped as a name (\x09) before any quoting: never a raw separator */
	assert_string_equal(sb.buf, "a\\x09b|line\\x0abreak||\"x::y\"|0.333");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topdown_rows),
		cmocka_unit_test(test_topdown_hybrid_has_core_type),
		cmocka_unit_test(test_why_findings),
		cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
