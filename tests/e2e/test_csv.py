"""CSV for `topdown` and `why` (issue 20, item 7): --csv, --format=csv and perf stat's
-x SEP; the rows agree with the JSON document of the same input."""
import csv
import io
import os
import shutil
import tempfile

import tdp

WORKLOADS = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads")
TMP = tempfile.mkdtemp(prefix="tdprof-csv-")

# Ice Lake server counts (test_topdown.py's): FE 19 %, BE 32 %, RET 40 %, BAD 9 %
ICX_CSV = ("10000,,TOPDOWN.SLOTS,2000000,100.00,,\n"
           "4000,,topdown-retiring,2000000,100.00,40.0,%  tma_retiring\n"
           "1000,,topdown-bad-spec,2000000,100.00,9.0,%  tma_bad_speculation\n"
           "2000,,topdown-fe-bound,2000000,100.00,19.0,%  tma_frontend_bound\n"
           "3000,,topdown-be-bound,2000000,100.00,32.0,%  tma_backend_bound\n"
           "100,,INT_MISC.UOP_DROPPING,2000000,100.00,,\n"
           "40,,cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/,2000000,100.00,,\n")


def icx():
    path = os.path.join(TMP, "icx.csv")
    with open(path, "w") as f:
        f.write(ICX_CSV)
    return path


def flat(tree):
    for n in tree:
        yield n
        yield from flat(n["children"])


def test_topdown_csv_is_the_json_tree():
    doc = tdp.run("topdown", "--import", icx(), "--cpu", "icelakex", "-l", "2", "--json").json()
    r = tdp.run("topdown", "--import", icx(), "--cpu", "icelakex", "-l", "2", "--csv")
    tdp.expect_exit(r, 0)
    rows = list(csv.DictReader(io.StringIO(r.out)))
    tdp.check(list(rows[0].keys()) == ["key", "name", "level", "parent", "value", "threshold", "crossed"],
              "the columns", r)
    nodes = list(flat(doc["tree"]))
    tdp.check([x["key"] for x in rows] == [n["key"] for n in nodes], "one row per node, in the tree's order", r)
    for row, n in zip(rows, nodes):
        tdp.check(row["name"] == n["name"] and int(row["level"]) == n["level"] and
                  row["parent"] == (n["parent"] or "") and row["crossed"] == ("true" if n["crossed"] else "false"),
                  "row %s as the JSON says" % row["key"], r)
        if n["value"] is None:
            tdp.check(row["value"] == "", "an unmeasured node is empty, never 0: %s" % row, r)
        else:
            tdp.check(abs(float(row["value"]) - n["value"]) < 0.006, "value of %s" % row["key"], r)
    by = {x["key"]: x for x in rows}
    tdp.check(float(by["retiring"]["value"]) == 40.0 and by["backend_bound"]["value"] == "32.00" and
              by["backend_bound"]["threshold"] == "40" and by["backend_bound"]["crossed"] == "false",
              "Retiring 40 %, Backend Bound 32 % below its 40 % threshold", r)
    tdp.check(by["memory_bound"]["value"] == "", "level 2 was not measured: empty", r)


def test_topdown_x_and_format_csv():
    a = tdp.run("topdown", "--import", icx(), "--cpu", "icelakex", "--format=csv")
    b = tdp.run("topdown", "--import", icx(), "--cpu", "icelakex", "-x", ";")
    tdp.expect_exit(a, 0)
    tdp.expect_exit(b, 0)
    tdp.check(b.out == a.out.replace(",", ";"), "-x ; is the same table with ';' (no field holds one)", b)
    r = tdp.run("topdown", "--import", icx(), "--cpu", "icelakex", "--json", "-x,")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'--json' and '-x' cannot be used together", r.err, "stderr", r)
    r = tdp.run("topdown", "--import", icx(), "--cpu", "icelakex", "--csv", "--format=json")
    tdp.expect_exit(r, 2)


def wl(name):
    p = os.path.join(WORKLOADS, name)
    if not os.access(p, os.X_OK):
        raise tdp.Skip("workload not built: %s" % p)
    return p


def test_why_csv_is_the_findings():
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    prog = wl("wl-twofn")
    doc = tdp.run("why", "--backend=sim", "--json", "--", prog).json()
    r = tdp.run("why", "--backend=sim", "-x", ";", "--", prog)
    tdp.expect_exit(r, 0)
    rows = list(csv.DictReader(io.StringIO(r.out), delimiter=";"))
    tdp.check(list(rows[0].keys()) == ["rank", "title", "category", "node", "share_pct", "file", "line",
                                       "function", "evidence", "fix"], "the columns", r)
    f = doc["findings"]
    tdp.check(len(rows) == len(f) and len(f) >= 2, "one row per finding", r)
    for row, x in zip(rows, f):
        tdp.check(int(row["rank"]) == x["rank"] and row["title"] == x["title"] and row["node"] == x["node"]
                  and row["evidence"] == x["evidence"], "finding %s as the JSON says" % row["rank"], r)
        site = x["site"] or {}
        tdp.check(row["function"] == (site.get("function") or "") and
                  row["line"] == (str(site["line"]) if site.get("line") else ""), "its site", r)
    tdp.check(rows[0]["function"] == "branchy" and rows[0]["category"] == "bad_speculation",
              "the branchy function's mispredicts lead", r)
    # the workload's own output is not in the table (it goes to stderr, as with --json)
    tdp.check(all(line.count(";") >= 9 for line in r.out.splitlines() if line), "only table rows on stdout", r)


if __name__ == "__main__":
    tdp.main(globals())
