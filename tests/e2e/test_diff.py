"""tdprof diff: two documents of one kind compared without measuring anything.

- two perf stat imports with counts chosen by hand: every node's change, the flags
  of the noise floor, the ranking and the verdict;
- two branch reports of one program built twice (its functions at other
  addresses): the sites and edges line up by source line, or by function+offset
  without debug info;
- -r N: the intervals in the JSON are those of the runs it lists (recomputed here),
  and a deterministic simulation stops after two equal runs;
- refusals: other kinds, models, backends, a diff document, bad input (exit 2);
- the acceptance check: two versions of a program that differ in one hot branch,
  profiled with `tdprof why --backend=sim --json`: diff names the bucket that moved
  and the new top site, and its HTML shows the tree and the sites in Chromium.
"""
import json
import math
import os
import re
import shutil
import subprocess
import tempfile

import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-diff-")
DATA = os.path.join(tdp.SOURCE_ROOT, "tests", "data", "diff")
GEN = os.path.join(tdp.BUILD_ROOT, "tests", "unit", "diff", "gen-branches")
T975 = {2: 4.302652729749464, 3: 3.182446305284263, 4: 2.7764451051977987}  # t(0.975, n - 1) by n - 1


def path(name):
    return os.path.join(TMP, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def load(p):
    with open(p) as f:
        return json.load(f)


# perf 5.x-style Ice Lake-X counts (no correction events): each level-1 node is its
# topdown event over the four's sum; branch_mispredicts = BR_MISP / (BR_MISP + CLEARS)
# * bad_speculation.
def icx_csv(ret, bad, fe, be, misp, clears):
    return ("%d,,TOPDOWN.SLOTS,2000000,100.00,,\n" % (ret + bad + fe + be) +
            "%d,,topdown-retiring,2000000,100.00,,\n" % ret +
            "%d,,topdown-bad-spec,2000000,100.00,,\n" % bad +
            "%d,,topdown-fe-bound,2000000,100.00,,\n" % fe +
            "%d,,topdown-be-bound,2000000,100.00,,\n" % be +
            "%d,,BR_MISP_RETIRED.ALL_BRANCHES,2000000,100.00,,\n" % misp +
            "%d,,MACHINE_CLEARS.COUNT,2000000,100.00,,\n" % clears)


def imported(name, csv, cpu="icelakex"):
    r = tdp.run("topdown", "--import", write(name + ".csv", csv), "--cpu", cpu, "--json", "-o", path(name + ".json"))
    tdp.expect_exit(r, 0)
    return path(name + ".json")


def test_imports_with_known_counts():
    # A: 400/100/200/300 of 1000 slots -> 40 / 10 / 20 / 30 %; misp 90, clears 10 -> 9 / 1 %
    # B: 300/250/160/290 of 1000 slots -> 30 / 25 / 16 / 29 %; misp 240, clears 10 -> 24 / 1 %
    # changes: retiring -10, bad_speculation +15, frontend -4, backend -1 (inside the 2-point
    # floor), branch_mispredicts +15, machine_clears 0
    a = imported("a", icx_csv(400, 100, 200, 300, 90, 10))
    b = imported("b", icx_csv(300, 250, 160, 290, 240, 10))
    r = tdp.run("diff", a, b, "--json")
    tdp.expect_exit(r, 0)
    d = r.json()
    tdp.check(d["kind"] == "diff" and d["of"] == "topdown" and d["rule"] == "noise_floor", "kind, rule", r)
    nodes = {n["key"]: n for n in d["nodes"]}
    want = {"retiring": (40, 30, -10, True), "bad_speculation": (10, 25, 15, True),
            "frontend_bound": (20, 16, -4, True), "backend_bound": (30, 29, -1, False),
            "branch_mispredicts": (9, 24, 15, True), "machine_clears": (1, 1, 0, False)}
    for k, (va, vb, dv, flag) in want.items():
        n = nodes[k]
        tdp.check(abs(n["a"] - va) < 1e-9 and abs(n["b"] - vb) < 1e-9 and abs(n["delta"] - dv) < 1e-9,
                  "%s: %s -> %s (%s), want %s -> %s (%s)" % (k, n["a"], n["b"], n["delta"], va, vb, dv), r)
        tdp.check(n["flagged"] == flag, "%s flagged %s" % (k, flag), r)
    tdp.check(nodes["memory_bound"]["a"] is None and nodes["memory_bound"]["delta"] is None,
              "a node measured in neither stays null", r)
    tdp.check(d["delta_rank"][:3] == ["bad_speculation", "branch_mispredicts", "retiring"], "ranked by change", r)
    tdp.check(d["verdict"]["node"] == "bad_speculation" and d["verdict"]["child"] == "branch_mispredicts",
              "the verdict's node and child", r)
    tdp.check(d["verdict"]["text"] == "Bad Speculation rose 15.0 points (single runs: beyond the 2.0-point noise "
              "floor): branch_mispredicts +15.0.", "the verdict's words", r)
    # the same as text
    r = tdp.run("diff", a, b)
    tdp.expect_exit(r, 0)
    tdp.check(re.search(r"Bad Speculation +10\.0 % +25\.0 % +\+15\.0 +\* beyond the noise floor", r.out),
              "the text table", r)
    tdp.check(re.search(r"Backend Bound +30\.0 % +29\.0 % +-1\.0\n", r.out), "an unflagged change", r)
    tdp.expect_in("verdict: Bad Speculation rose 15.0 points", r.out, "stdout", r)
    # options after the files, -o, and a larger floor
    r = tdp.run("diff", a, b, "--noise-floor", "20", "--json", "-o", path("d.json"))
    tdp.expect_exit(r, 0)
    d = load(path("d.json"))
    tdp.check(not any(n["flagged"] for n in d["nodes"]) and d["verdict"]["node"] is None,
              "nothing beyond a 20-point floor", r)
    tdp.check(d["verdict"]["text"].startswith("No level-1 node moved beyond the noise: the largest change is "
                                              "Bad Speculation, +15.0 points"), "says nothing moved", r)


def test_refusals():
    a = imported("ra", icx_csv(400, 100, 200, 300, 90, 10))
    spr = imported("rs", icx_csv(400, 100, 200, 300, 90, 10), cpu="sapphirerapids")
    r = tdp.run("diff", a, spr)
    tdp.expect_exit(r, 2)
    tdp.expect_in("they come from different models ('icelakex' and 'sapphirerapids')", r.err, "stderr", r)
    br = tdp.shared("perfdata", "perf.data.branch_stack_spec")
    tdp.expect_exit(tdp.run("branches", "report", "-i", br, "--json", "-o", path("br.json")), 0)
    r = tdp.run("diff", a, path("br.json"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("a 'topdown' document with a 'branches report' document", r.err, "stderr", r)
    doc = load(a)
    doc["backend"] = "sim"
    write("sim.json", json.dumps(doc))
    r = tdp.run("diff", a, path("sim.json"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("different backends ('import' and 'sim')", r.err, "stderr", r)
    tdp.expect_in("hint:", r.err, "stderr", r)
    tdp.expect_exit(tdp.run("diff", a, a, "--json", "-o", path("dd.json")), 0)
    r = tdp.run("diff", path("dd.json"), a)
    tdp.expect_exit(r, 2)
    tdp.expect_in("is the output of 'tdprof diff'", r.err, "stderr", r)
    r = tdp.run("diff", a, write("bad.json", '{"level1": {"retiring": 40,'))
    tdp.expect_exit(r, 2)
    tdp.expect_in("bad.json': line 1 column", r.err, "stderr", r)
    r = tdp.run("diff", a, path("missing.json"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("missing.json", r.err, "stderr", r)
    r = tdp.run("diff", a)
    tdp.expect_exit(r, 2)
    tdp.expect_in("give two documents", r.err, "stderr", r)
    r = tdp.run("diff", a, a, a)
    tdp.expect_exit(r, 2)
    tdp.expect_in("too many documents", r.err, "stderr", r)


def cc(src, out, *flags):
    r = subprocess.run([os.environ.get("CC", "cc"), "-O1", "-fno-if-conversion", "-fno-if-conversion2",
                        "-fno-tree-vectorize", "-fno-sanitize=all"] + list(flags) + ["-o", out, src],
                       capture_output=True, text=True)
    tdp.check(r.returncode == 0, "cannot build %s:\n%s" % (src, r.stderr))
    return out


def jumps(exe, fn):
    """[(offset, target offset)] of the conditional jumps of fn, from objdump."""
    r = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True, text=True)
    tdp.check(r.returncode == 0, "objdump -d %s" % exe)
    body = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)\n\n" % fn, r.stdout, re.S | re.M)
    tdp.check(body, "no %s in %s" % (fn, exe))
    start = int(re.search(r"^([0-9a-f]+) <%s>:" % fn, r.stdout, re.M).group(1), 16)
    out = []
    for m in re.finditer(r"^\s*([0-9a-f]+):\s+(j[a-z]+)\s+([0-9a-f]+) <", body.group(1), re.M):
        if m.group(2) != "jmp":
            out.append((int(m.group(1), 16) - start, int(m.group(3), 16) - start))
    return start, out


def branch_report(exe, name, edges):
    if not os.path.exists(GEN):
        raise tdp.Skip("gen-branches was not built (%s)" % GEN)
    data = path(name + ".data")
    r = subprocess.run([GEN, exe, data] + edges, capture_output=True, text=True)
    tdp.check(r.returncode == 0, "gen-branches: %s" % r.stderr)
    r = tdp.run("branches", "report", "-i", data, "--json", "-o", path(name + ".json"))
    tdp.expect_exit(r, 0)
    return path(name + ".json")


def shifted_builds(debug):
    """Branch reports of shift.c built twice, B with every function 512-aligned."""
    if not shutil.which("objdump"):
        raise tdp.Skip("objdump (binutils) is needed to find the branches")
    src = os.path.join(DATA, "shift.c")
    g = ["-g"] if debug else []
    tag = "g" if debug else "nog"
    ea = cc(src, path("shift-a-" + tag), *g)
    eb = cc(src, path("shift-b-" + tag), "-falign-functions=512", *g)
    sa, ja = jumps(ea, "classify")
    sb, jb = jumps(eb, "classify")
    _, ka = jumps(ea, "count")
    _, kb = jumps(eb, "count")
    tdp.check(sa != sb, "the two builds put classify at other addresses (0x%x, 0x%x)" % (sa, sb))
    tdp.check(ja == jb and ka == kb and ja and ka, "the same code inside the functions: %s %s" % (ja, jb))
    (c_off, c_to), (k_off, k_to) = ja[0], ka[-1]
    # the same edges in both builds, except classify's branch: 100 -> 141 mispredicts (+41 %);
    # count's stays at 120, so classify's becomes the site with the most
    edges = ["classify+0x%x:classify+0x%x:1000:%%d" % (c_off, c_to), "count+0x%x:count+0x%x:500:120" % (k_off, k_to),
             "main+0x0:classify+0x0:40:0"]
    a = branch_report(ea, "shift-a-" + tag, [edges[0] % 100] + edges[1:])
    b = branch_report(eb, "shift-b-" + tag, [edges[0] % 141] + edges[1:])
    return a, b, sa, sb, c_off


def test_shifted_builds_line_up_by_source_line():
    a, b, sa, sb, c_off = shifted_builds(debug=True)
    r = tdp.run("diff", a, b, "--json")
    tdp.expect_exit(r, 0)
    d = r.json()
    tdp.check(d["of"] == "branches report" and d["measure"] == "mispredicts", "a branch-report diff", r)
    tdp.check(d["sites_matched"] == 3 and d["sites_only_a"] == 0 and d["sites_only_b"] == 0,
              "every site of A found in B", r)
    top = d["sites"][0]
    tdp.check(top["function"] == "classify" and top["match"] == "location", "classify's branch by its line", r)
    tdp.check(top["a"]["value"] == 100 and top["b"]["value"] == 141 and abs(top["change_pct"] - 41) < 1e-9,
              "100 -> 141 mispredicts", r)
    tdp.check(int(top["b"]["address"], 16) - int(top["a"]["address"], 16) == sb - sa,
              "at addresses the build moved by 0x%x" % (sb - sa), r)
    line = top["line"]
    tdp.check(d["edges_matched"] == 3 and d["edges"][0]["b"]["value"] == 141, "the edges line up too", r)
    # 220 -> 261 mispredicted entries (+18.6 %)
    tdp.check(d["verdict"]["text"] == "Mispredicted branch entries rose from 220 to 261 (+19 %%); the new top site "
              "is shift.c:%d in classify, +41 %% mispredicts (100 to 141)." % line, "the verdict", r)


def test_shifted_builds_line_up_by_offset_without_debug_info():
    a, b, sa, sb, c_off = shifted_builds(debug=False)
    d = tdp.run("diff", a, b, "--json").json()
    top = d["sites"][0]
    tdp.check(top["function"] == "classify" and top["line"] is None and top["match"] == "function+offset",
              "no line: matched by function and offset (%s)" % top)
    tdp.check(d["sites_matched"] == 3, "every site found")
    tdp.expect_in("the new top site is classify+0x%x, +41 %% mispredicts" % c_off, d["verdict"]["text"], "verdict")


def sim_topdown(exe, name, repeat):
    r = tdp.run("topdown", "--backend=sim", "-r", repeat, "--json", "-o", path(name), "--", exe, timeout=300)
    tdp.expect_exit(r, 0)
    return load(path(name))


def test_repeated_runs_give_intervals():
    jitter = cc(os.path.join(DATA, "jitter.c"), path("jitter"), "-g")
    doc = sim_topdown(jitter, "jitter.json", 3)
    tdp.check(doc["repeat"]["runs"] == 3 and doc["repeat"]["requested"] == 3 and not doc["repeat"]["deterministic"],
              "three runs that differ (the loop follows the pid)")
    tdp.check(len(doc["runs"]) == 3, "every run kept")
    for k, mean in doc["level1"].items():
        xs = [run["level1"][k] for run in doc["runs"]]
        m = sum(xs) / 3
        sd = math.sqrt(sum((x - m) ** 2 for x in xs) / 2)
        half = T975[2] * sd / math.sqrt(3)
        lo, hi = doc["ci95"]["level1"][k]
        tdp.check(abs(mean - m) < 1e-9 and abs(lo - (m - half)) < 1e-9 and abs(hi - (m + half)) < 1e-9,
                  "%s: mean %s [%s, %s], runs %s give %s +- %s" % (k, mean, lo, hi, xs, m, half))
        tdp.check(abs(doc["stddev"]["level1"][k] - sd) < 1e-9, "%s: sd" % k)
    tdp.check(len(set(run["level1"]["bad_speculation"] for run in doc["runs"])) == 3, "the runs differ")
    # a deterministic program: two equal runs, the others not made, zero-width intervals
    good = cc(os.path.join(DATA, "good", "parse.c"), path("good-parse"), "-g")
    det = sim_topdown(good, "det.json", 4)
    tdp.check(det["repeat"]["runs"] == 2 and det["repeat"]["requested"] == 4 and det["repeat"]["deterministic"],
              "stopped after two equal runs: %s" % det["repeat"])
    tdp.check("deterministic" in det["repeat"]["note"], "and says why")
    for k, (lo, hi) in det["ci95"]["level1"].items():
        tdp.check(lo == hi == det["level1"][k], "%s: a zero-width interval" % k)
    # two documents with runs are compared by their intervals
    doc2 = sim_topdown(jitter, "jitter2.json", 3)
    d = tdp.run("diff", path("jitter.json"), path("jitter2.json"), "--json").json()
    tdp.check(d["rule"] == "intervals", "both have runs: the intervals decide")
    for n in d["nodes"]:
        if n["level"] == 1 and n["delta"] is not None:
            for got, want in ((n["a_ci95"], doc["ci95"]["level1"][n["key"]]),
                              (n["b_ci95"], doc2["ci95"]["level1"][n["key"]])):
                tdp.check(all(abs(g - w) < 1e-9 for g, w in zip(got, want)),
                          "the intervals compared are the documents': %s, %s" % (got, want))
            apart = n["a_ci95"][1] < n["b_ci95"][0] or n["b_ci95"][1] < n["a_ci95"][0]
            tdp.check(n["flagged"] == apart, "%s flagged exactly when the intervals do not overlap" % n["key"])
    r = tdp.run("topdown", "--import", write("x.csv", icx_csv(1, 1, 1, 1, 1, 1)), "--cpu", "icelakex", "-r", "3")
    tdp.expect_exit(r, 2)
    tdp.expect_in("an import is one recording", r.err, "stderr", r)


def why(src, name):
    exe = cc(src, path(name), "-g")
    r = tdp.run("why", "--backend=sim", "--json", "-o", path(name + ".json"), "--", exe, timeout=300)
    tdp.expect_exit(r, 0)
    return path(name + ".json")


def marker_line(src, marker):
    with open(src) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    raise AssertionError("no %r in %s" % (marker, src))


def test_acceptance_one_hot_branch():
    """Two versions of a program that differ in one hot branch, profiled as a user would."""
    good, bad = os.path.join(DATA, "good", "parse.c"), os.path.join(DATA, "bad", "parse.c")
    line = marker_line(bad, "tdprof-diff: HOT")
    tdp.check(line == marker_line(good, "tdprof-diff: HOT"), "the hot branch is on the same line in both")
    a, b = why(good, "good"), why(bad, "bad")
    r = tdp.run("diff", a, b, "--json", "-o", path("accept.json"), "--html", path("accept.html"))
    tdp.expect_exit(r, 0)
    d = load(path("accept.json"))
    v = d["verdict"]
    tdp.check(v["node"] == "bad_speculation" and v["delta"] > 20, "the bucket that moved: %s" % v)
    tdp.check(v["child"] == "branch_mispredicts", "and its child: %s" % v)
    top = v["top_site"]
    tdp.check(top["function"] == "parse_token" and top["line"] == line and os.path.basename(top["file"]) == "parse.c",
              "the top site is the hot branch, parse.c:%d in parse_token: %s" % (line, top))
    tdp.check(top["match"] == "location" and top["change_pct"] > 100, "matched by its line, its mispredicts up")
    tdp.check(re.match(r"Bad Speculation rose \d+\.\d points \(single runs: beyond the 2\.0-point noise floor\)"
                       r"(, from [\d.]+ [kMG]? ?to [\d.]+ [kMG]? ?cycles, the largest change in cycles \(the run: [^)]*\))?: "
                       r"branch_mispredicts \+\d+\.\d; the (new )?top site (is|is still) parse\.c:%d in parse_token, "
                       r"\+\d+ %% mispredicts \(\d+ to \d+\)\.$" % line, v["text"]), "the verdict: %s" % v["text"])
    r = tdp.run("diff", a, b)
    tdp.expect_in("parse.c:%d in parse_token" % line, r.out, "the text output", r)
    tdp.check(os.path.getsize(path("accept.html")) > 2000, "the HTML page was written")


def test_acceptance_page_in_chromium():
    import chromium  # the browser helpers (skips when Chromium cannot be had)
    page = path("accept.html")
    if not os.path.exists(page):
        test_acceptance_one_hot_branch()
    chromium.browser()
    elements, text = chromium.parse(chromium.dump_dom(page))
    chromium.check_tree(elements, "tree-a", load(path("good.json")))
    chromium.check_tree(elements, "tree-b", load(path("bad.json")))
    line = marker_line(os.path.join(DATA, "bad", "parse.c"), "tdprof-diff: HOT")
    tdp.expect_in("Bad Speculation rose", text, "the page")
    tdp.expect_in("parse.c:%d in parse_token" % line, text, "the page's sites")
    rows = [e for e in elements if e.tag == "tr" and e.attrs.get("class") == "site"]
    tdp.check(rows and "parse.c:%d in parse_token" % line in rows[0].text, "the first site row is the hot branch")
    src = [e for e in elements if e.tag == "span" and e.attrs.get("data-site-line") == "1"]
    tdp.check(any("p[i] < 128" in e.text for e in src), "B's source line of the site is shown")
    os.makedirs(os.path.join(tdp.BUILD_ROOT, "tests", "e2e"), exist_ok=True)
    chromium.screenshot(page, os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "html-acceptance.png"))


def test_recording_without_mispredict_flags_is_not_compared_as_zero():
    """A BRS-like recording (no mispredict flags: null mispredicts) against the same recording
    with flags: the comparison must not invent mispredict changes from nulls; it falls back
    to a measure both documents have, and says which."""
    src = tdp.shared("perfdata", "perf.data.branch_stack_spec")
    brs = tdp.brs_like_copy(src)
    try:
        a = tdp.run("branches", "report", "-i", brs, "--json", "-n", "0", "-o", path("brs-a.json"))
        tdp.expect_exit(a, 0)
        b = tdp.run("branches", "report", "-i", src, "--json", "-n", "0", "-o", path("brs-b.json"))
        tdp.expect_exit(b, 0)
        r = tdp.run("diff", path("brs-a.json"), path("brs-b.json"), "--json")
        tdp.expect_exit(r, 0)
        d = r.json()
        tdp.check(d["measure"] == "executions", "sites compared by executions, not null mispredicts", r)
        tdp.check(d["edge_measure"] == "count", "edges compared by count", r)
        tdp.check(all(s["delta"] == 0 for s in d["sites"]), "the same recording: no site changed", r)
        t = tdp.run("diff", path("brs-a.json"), path("brs-b.json"))
        tdp.expect_in("sites by change in executions", t.out, "stdout", t)
        both = tdp.run("diff", path("brs-b.json"), path("brs-b.json"), "--json").json()
        tdp.check(both["measure"] == "mispredicts" and both["edge_measure"] == "mispredicts",
                  "two recordings with flags are compared by mispredicts", r)
    finally:
        os.unlink(brs)


tdp.main(globals())
