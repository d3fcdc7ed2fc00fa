"""Per-function top-down (--by function, simulated) and the drill-down's refusal here.

A workload with two functions of different bottlenecks (tests/e2e/workloads/wl-twofn.c):
branchy() must come out Bad Speculation > Branch Mispredicts with its if as the guilty line,
chase() Backend Bound > Memory Bound with its load. Needs valgrind (skips without it).
"""
import os
import shutil

import tdp

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads", "wl-twofn.c")


def twofn():
    path = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-twofn")
    if not os.access(path, os.X_OK):
        raise tdp.Skip("workload not built: %s" % path)
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    return path


def line_of(marker):
    with open(SRC) as f:
        for n, text in enumerate(f, 1):
            if marker in text:
                return n
    raise AssertionError("no %r in %s" % (marker, SRC))


def test_by_function_json_classifies_each_function():
    r = tdp.run("topdown", "--by", "function", "--backend=sim", "--json", "--", twofn(), timeout=240)
    tdp.expect_exit(r, 0)
    j = r.json()
    fns = {f["function"]: f for f in j["functions"]}
    tdp.check("branchy" in fns and "chase" in fns, "both functions listed: %r" % list(fns), r)
    b, c = fns["branchy"], fns["chase"]
    tdp.check(b["dominant"] == "bad_speculation" and b["dominant_node"] == "branch_mispredicts",
              "branchy is Bad Speculation: %r" % b, r)
    tdp.check(c["dominant"] == "backend_bound" and c["dominant_node"] == "memory_bound",
              "chase is Backend Bound: %r" % c, r)
    tdp.check(b["line"] == line_of("mispredicted half") and b["file"].endswith("wl-twofn.c"),
              "branchy's guilty line is its if: %r" % b, r)
    tdp.check(c["line"] == line_of("a dependent load"), "chase's guilty line is its load: %r" % c, r)
    for f in j["functions"]:
        tdp.check(abs(sum(f["level1"].values()) - 100) < 0.01, "%s's level 1 adds up" % f["function"], r)
        tdp.check(f["level2"]["branch_mispredicts"] == f["level1"]["bad_speculation"], "mispredicts = bad spec", r)
    shares = [f["share_pct"] for f in j["functions"]]
    tdp.check(shares == sorted(shares, reverse=True), "largest first: %r" % shares, r)
    tdp.check(sum(shares) >= 95 and sum(shares) - shares[-1] < 95, "just the functions of 95 %%: %r" % shares, r)
    tdp.check(abs(sum(shares) + j["functions_other_pct"] - 100) < 0.01, "the rest is counted", r)


def test_why_has_each_function():
    r = tdp.run("why", "--backend=sim", "--json", "--", twofn(), timeout=240)
    tdp.expect_exit(r, 0)
    fns = {f["function"]: f for f in r.json()["functions"]}
    tdp.check(fns.get("branchy", {}).get("dominant") == "bad_speculation", "why: branchy %r" % fns.get("branchy"), r)
    tdp.check(fns.get("chase", {}).get("dominant") == "backend_bound", "why: chase %r" % fns.get("chase"), r)
    r = tdp.run("why", "--backend=sim", "--", twofn(), timeout=240)
    tdp.expect_exit(r, 0)
    tdp.expect_in("functions holding 95 % of cycles", r.out, "stdout", r)


def test_by_function_text():
    r = tdp.run("topdown", "--by", "function", "--backend=sim", "--", twofn(), timeout=240)
    tdp.expect_exit(r, 0)
    tdp.expect_in("functions holding 95 % of cycles", r.out, "stdout", r)
    lines = r.out.splitlines()
    rows = [i for i, l in enumerate(lines) if l.rstrip().endswith(" branchy")]
    tdp.check(len(rows) == 1, "branchy's row: %r" % rows, r)
    tdp.expect_in("Bad Speculation > Branch Mispredicts, at ", lines[rows[0] + 1], "branchy's second line", r)
    tdp.expect_in("wl-twofn.c:%d (" % line_of("mispredicted half"), lines[rows[0] + 1], "its guilty line", r)
    section = lines[rows[0] - 2:rows[0] + 6]
    tdp.check(all(len(l) <= 80 for l in section), "80 columns: %r" % [l for l in section if len(l) > 80], r)
    tdp.expect_in("estimate (simulated)", r.out, "stdout", r)


def test_by_function_needs_the_simulation():
    r = tdp.run("topdown", "--by", "function", "--drilldown", "--", "true")
    tdp.expect_exit(r, 2)
    r = tdp.run("topdown", "--by", "nonsense", "--backend=sim", "--", "true")
    tdp.expect_exit(r, 2)


def test_drilldown_without_pmu():
    if not tdp.no_pmu():
        raise tdp.Skip("this machine has a PMU: the refusal is for machines without one")
    r = tdp.run("topdown", "--drilldown", "--backend=pmu", "--", "true")
    tdp.expect_exit(r, 1)
    tdp.expect_in("hardware counters are unavailable", r.err, "stderr", r)
    r = tdp.run("topdown", "--drilldown", "--import", "counts.csv")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'--drilldown' reruns a command", r.err, "stderr", r)


def test_drilldown_falls_back_to_the_simulation():
    twofn()
    r = tdp.run("topdown", "--drilldown", "--backend=sim", "--json", "--", twofn(), timeout=240)
    tdp.expect_exit(r, 0)
    tdp.expect_in("the simulated backend has none to rerun", r.err, "stderr", r)
    j = r.json()
    tdp.check(j["level"] == 2 and j["backend"] == "sim", "the simulation's level 2: %r" % j["level"], r)


tdp.main(globals())
