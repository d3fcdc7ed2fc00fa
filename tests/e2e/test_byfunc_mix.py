"""Per-function verdicts and guilty lines of programs that mix bottlenecks, with today's
simulation (the held-out check of issue 18 in miniature): `topdown --by function
--backend=sim` and `why --backend=sim` must give each function its dominant bucket and
node, and name the line marked "guilty:" in its source. If a change of the simulated
machine model breaks one, this test says which function and what it got instead.

Workloads (tests/e2e/workloads/):
  wl-mix4.c    flip (a data-dependent branch), walk (a pointer chase over 64 MiB),
               divide (dependent 64-bit divisions), straight (43 KiB of straight code);
  wl-mixcpp.cpp shapes' virtual calls on random types (indirect mispredicts), a hash
               table probed at random over 64 MiB (independent misses), a chain of
               square roots (a busy divider), as C++ names them.
Needs valgrind (skips without it).
"""
import os
import re
import shutil

import tdp

WL = os.path.join(tdp.SOURCE_ROOT, "tests", "e2e", "workloads")

# function (as valgrind names it, a prefix for C++) -> (dominant, dominant_node)
EXPECT = {
    "wl-mix4": {
        "flip": ("bad_speculation", "branch_mispredicts"),
        "walk": ("backend_bound", "memory_bound"),
        "divide": ("backend_bound", "core_bound"),
        "straight": ("frontend_bound", "fetch_latency"),
    },
    "wl-mixcpp": {
        "shapes::total_area": ("bad_speculation", "branch_mispredicts"),
        "table::probe_all": ("backend_bound", "memory_bound"),
        "chain::roots": ("backend_bound", "core_bound"),
    },
}


def workload(name):
    path = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", name)
    if not os.access(path, os.X_OK):
        raise tdp.Skip("workload not built: %s" % path)
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    return path


def guilty_lines(name):
    """{function tag: line} of the "guilty: TAG" markers in the workload's source."""
    src = [f for f in os.listdir(WL) if f.startswith(name + ".")][0]
    out = {}
    with open(os.path.join(WL, src)) as f:
        for n, text in enumerate(f, 1):
            m = re.search(r"guilty: (\S+) -", text)
            if m:
                out[m.group(1)] = n
    return out


def find(functions, name):
    """The function whose name is name or starts with name + '(' or '<' (C++ parameters, templates)."""
    hits = [f for f in functions if f["function"] == name or re.match(re.escape(name) + r"[(<]", f["function"])]
    return hits[0] if len(hits) == 1 else None


def check_functions(label, name, functions, r):
    lines = guilty_lines(name)
    for fn, (dominant, node) in EXPECT[name].items():
        f = find(functions, fn)
        tdp.check(f is not None, "%s %s: %s is listed: %r" % (label, name, fn, [x["function"] for x in functions]), r)
        got = (f["dominant"], f["dominant_node"], f["line"])
        want = (dominant, node, lines[fn.split("::")[-1]])
        tdp.check(got == want, "%s %s: %s is %r, expected %r (level 1 %r)" % (label, name, fn, got, want,
                                                                             f["level1"]), r)
        tdp.check(f["file"] and f["file"].endswith(name + (".cpp" if name.endswith("cpp") else ".c")),
                  "%s: %s's file %r" % (label, fn, f["file"]), r)


def test_topdown_by_function_mix4():
    r = tdp.run("topdown", "--by", "function", "--backend=sim", "--json", "--", workload("wl-mix4"), timeout=300)
    tdp.expect_exit(r, 0)
    check_functions("topdown --by function", "wl-mix4", r.json()["functions"], r)


def test_why_mix4_functions_and_findings():
    r = tdp.run("why", "--backend=sim", "--json", "--", workload("wl-mix4"), timeout=300)
    tdp.expect_exit(r, 0)
    j = r.json()
    check_functions("why", "wl-mix4", j["functions"], r)
    # every function's guilty line is the site of one of why's findings
    lines = guilty_lines("wl-mix4")
    sites = {(f["site"]["function"], f["site"]["line"]) for f in j["findings"] if f["site"]}
    for fn in EXPECT["wl-mix4"]:
        tdp.check((fn, lines[fn]) in sites, "why names %s's line %d: %r" % (fn, lines[fn], sorted(sites)), r)


def test_mix4_text_fits_80_columns():
    r = tdp.run("topdown", "--by", "function", "--backend=sim", "--", workload("wl-mix4"), timeout=300)
    tdp.expect_exit(r, 0)
    lines = r.out.splitlines()
    start = [i for i, l in enumerate(lines) if l.startswith("functions holding 95 %")]
    tdp.check(len(start) == 1, "the functions section", r)
    section = lines[start[0]:start[0] + 12]
    tdp.check(all(len(l) <= 80 for l in section), "80 columns: %r" % [l for l in section if len(l) > 80], r)
    tdp.expect_in("Frontend Bound > Fetch Latency, at ", r.out, "stdout", r)
    tdp.expect_in("Backend Bound > Core Bound, at ", r.out, "stdout", r)


def test_topdown_by_function_cpp():
    r = tdp.run("topdown", "--by", "function", "--backend=sim", "--json", "--", workload("wl-mixcpp"), timeout=300)
    tdp.expect_exit(r, 0)
    check_functions("topdown --by function", "wl-mixcpp", r.json()["functions"], r)


tdp.main(globals())
