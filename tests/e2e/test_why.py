"""tdprof why: the whole workflow on the demo workloads of examples/ (simulated backend).

The expected lines are found in the sources by their marker comments
('tdprof-demo: MISPREDICT' ...), never hard-coded. Needs valgrind (skips without it).
"""
import json
import re
import os
import shutil
import subprocess

import tdp

EXAMPLES = os.path.join(tdp.SOURCE_ROOT, "examples")


def demo(name):
    path = os.path.join(tdp.BUILD_ROOT, "examples", name, "demo-" + name)
    if not os.access(path, os.X_OK):
        raise tdp.Skip("demo workload not built: %s" % path)
    return path


def need_valgrind():
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")


def marker_line(name, marker):
    src = os.path.join(EXAMPLES, name, name + ".c")
    with open(src) as f:
        for i, line in enumerate(f, 1):
            if "tdprof-demo: " + marker in line:
                return src, i
    raise AssertionError("no marker %s in %s" % (marker, src))


def why(*args):
    need_valgrind()
    r = tdp.run("why", "--backend=sim", "--json", "--", *args, timeout=240)
    tdp.expect_exit(r, 0)
    return r, r.json()


def check_first_site(r, j, name, marker):
    src, line = marker_line(name, marker)
    s = j["sites"][0]
    tdp.check(os.path.realpath(os.path.join(os.getcwd(), s["file"])) == os.path.realpath(src)
              and s["line"] == line, "first site is %s:%d, got %s:%s" % (src, line, s["file"], s["line"]), r)


def test_branch_random_names_the_if_line():
    r, j = why(demo("branch"))
    tdp.check(j["backend"] == "sim" and j["estimate"] is True, "backend sim, estimate", r)
    tdp.check(j["verdict"]["category"] == "bad_speculation", "category: %s" % j["verdict"]["category"], r)
    check_first_site(r, j, "branch", "MISPREDICT")
    # The if runs once per element per pass: N * PASSES (examples/branch/branch.c: 1 MiB * 3 =
    # 3,145,728) conditional branches at that line, whatever the data.
    src = os.path.join(EXAMPLES, "branch", "branch.c")
    execs = tdp.c_define(src, "N") * tdp.c_define(src, "PASSES")
    s = j["sites"][0]
    tdp.check(s["cond_branches"] == execs, "branches at the if line: %d, not %d" % (s["cond_branches"], execs), r)
    # random bytes: about half of them mispredict (a predictor cannot beat a coin)
    tdp.check(0.35 < s["mispredicts"] / s["cond_branches"] < 0.65, "mispredict rate %r" % s, r)
    # the front-end share of those mispredicts is resteers, not i-cache misses (the loop has none)
    tdp.check(not any(f["title"].startswith(("instruction-cache misses", "hot code footprint")) for f in j["findings"]),
              "no i-cache finding: %r" % [f["title"] for f in j["findings"]], r)
    # ranked by mispredicts: never increasing
    m = [x["mispredicts"] for x in j["sites"]]
    tdp.check(m == sorted(m, reverse=True), "sites ranked by mispredicts: %r" % m, r)
    # the disassembly marks the line's conditional jump (jle/jg/...: not jmp, not a cmov)
    dis = j["drilldown"]["disassembly"]
    target = [i for i in dis["instructions"] if i["target"]]
    tdp.check(len(target) == 1 and target[0]["in_line"], "one target in the line: %r" % dis, r)
    mnem = target[0]["text"].split()[0]
    tdp.check(mnem.startswith("j") and mnem != "jmp", "a conditional jump: %s" % target[0]["text"], r)
    f = j["findings"][0]
    tdp.check(f["category"] == "bad_speculation" and f["site"]["line"] == s["line"] and f["fix"]
              and "mispredicted" in f["evidence"], "first finding: %r" % f, r)


def test_branch_sorted_is_retiring():
    r, j = why(demo("branch"), "sorted")
    # Retiring is the largest bucket; with the block model (issue 19) it is below its 80 %
    # threshold (the loop's taken branches and the array's misses take the rest), so the verdict
    # may name the largest stall: never Bad Speculation
    l1 = j["level1"]
    tdp.check(max(l1, key=l1.get) == "retiring", "retiring is the largest: %r" % l1, r)
    tdp.check(j["verdict"]["category"] != "bad_speculation", "category: %s" % j["verdict"]["category"], r)
    tdp.check(l1["bad_speculation"] < 5, "sorted data is predicted: %r" % l1, r)


def test_interp_names_the_dispatch():
    r, j = why(demo("interp"))
    tdp.check(j["verdict"]["category"] == "bad_speculation", "category: %s" % j["verdict"]["category"], r)
    check_first_site(r, j, "interp", "DISPATCH")
    s = j["sites"][0]
    tdp.check(s["indirect_mispredicts"] > s["cond_mispredicts"], "the indirect jump mispredicts: %r" % s, r)
    target = [i for i in j["drilldown"]["disassembly"]["instructions"] if i["target"]]
    tdp.check(target and target[0]["text"].startswith("jmp") and "0x" not in target[0]["text"].split()[1][:2],
              "an indirect jmp: %r" % target, r)
    tdp.check("indirect" in j["findings"][0]["title"], "finding says indirect: %r" % j["findings"][0], r)


def test_chase_is_backend_bound_at_the_load():
    r, j = why(demo("chase"))
    tdp.check(j["verdict"]["category"] == "backend_bound", "category: %s" % j["verdict"]["category"], r)
    check_first_site(r, j, "chase", "CHASE")
    s = j["sites"][0]
    # 2^21 steps, each one load of a random node of a 64 MiB ring: nearly all miss every level
    tdp.check(s["loads"] == 1 << 21 and s["ll_misses"] > 0.9 * (1 << 21), "the chase's loads: %r" % s, r)
    be = j["level2"]["backend_bound"]
    tdp.check(be["core_bound"] is None or be["core_bound"] < be["memory_bound"], "memory, not core: %r" % be, r)


def test_bigcode_is_frontend_bound_with_its_footprint():
    r, j = why(demo("bigcode"))
    tdp.check(j["verdict"]["category"] == "frontend_bound", "category: %s" % j["verdict"]["category"], r)
    fp = j["drilldown"]["footprint"]
    # gen-bigcode.py writes 1000 functions plus run_all; main and the C runtime add a few
    tdp.check(fp["functions"] >= 1001, "functions executed: %d" % fp["functions"], r)
    tdp.check(fp["bytes"] > 4 * fp["l1i_bytes"], "code footprint %d B vs L1i %d B" % (fp["bytes"], fp["l1i_bytes"]), r)
    tdp.check(j["findings"][0]["title"].startswith("hot code footprint"), "footprint finding first", r)


def test_arith_is_retiring_with_the_loop_command():
    r, j = why(demo("arith"))
    # the kernel is one serial chain (xor, multiply, shift and add per element): with the block
    # model (llvm-mca) that is Core Bound, as on hardware; without llvm-mca it reads as Retiring
    if shutil.which("llvm-mca"):
        tdp.check(j["verdict"]["category"] == "backend_bound" and j["verdict"]["node"] == "core_bound",
                  "verdict: %r" % j["verdict"], r)
    else:
        tdp.check(j["verdict"]["category"] == "retiring", "category: %s" % j["verdict"]["category"], r)
    src, line = marker_line("arith", "HOT")
    tdp.check(j["sites"][0]["function"] == "kernel", "hot function kernel: %r" % j["sites"][0], r)
    cmd = j["drilldown"]["loop_command"]
    tdp.check(cmd.startswith("tdprof loop ") and cmd.split()[2].endswith("examples/arith/arith.c")
              and "--function kernel --" in cmd and "-O1" in cmd, "loop command: %s" % cmd, r)
    # the start-up is left out: the program's own code is the scope
    tdp.check(j["scope"]["kind"] == "program" and j["whole_run"] is not None, "scope: %r" % j["scope"], r)


def test_json_schema_and_model_arithmetic():
    r, j = why(demo("branch"))
    for k in ("backend", "level1", "level2", "verdict", "sites", "findings", "machine", "scope", "triage"):
        tdp.check(k in j, "key %s" % k, r)
    l1 = j["level1"]
    tdp.check(set(l1) == {"retiring", "bad_speculation", "frontend_bound", "backend_bound"}, "level1 keys", r)
    tdp.check(abs(sum(l1.values()) - 100) < 0.01, "level 1 adds up to 100: %r" % l1, r)
    l2 = j["level2"]
    tdp.check(l2["bad_speculation"]["machine_clears"] is None, "not simulated: null, never 0", r)
    tdp.check(abs(l2["bad_speculation"]["branch_mispredicts"] - l1["bad_speculation"]) < 1e-9,
              "mispredicts are all of Bad Speculation in the model", r)
    for parent, kids in l2.items():
        s = sum(v for v in kids.values() if v is not None)
        tdp.check(abs(s - l1[parent]) < 0.01, "level 2 of %s sums to it: %r" % (parent, kids), r)
    # docs/sim-machine.md: bad_spec = mispredicts x (15 - 5 of resteer) cycles (generic) over all cycles
    c = j["counts"]
    tdp.check(abs(100.0 * c["branch_misses"] * 10 / c["cycles"] - l1["bad_speculation"]) < 0.01,
              "Bad Speculation = 10 x %d / %d" % (c["branch_misses"], c["cycles"]), r)
    # retiring = µops / 6 slots per cycle over all cycles: one µop per instruction without the
    # block model; with it, fused-domain µops (this loop's instructions are all 1-µop ones, but a
    # conditional jump fused with its compare is none): between instructions - branches and instructions
    most = 100.0 * c["instructions"] / 6 / c["cycles"]
    least = 100.0 * (c["instructions"] - c["branches"]) / 6 / c["cycles"]
    tdp.check(least - 0.5 < l1["retiring"] < most + 0.5, "Retiring %.2f: µops / 6 / cycles in [%.2f, %.2f]"
              % (l1["retiring"], least, most), r)
    tdp.check(j["verdict"]["category"] in l1 and j["verdict"]["next_step"], "verdict", r)
    for f in j["findings"]:
        for k in ("title", "category", "evidence", "site", "fix"):
            tdp.check(k in f and f[k] is not None, "finding key %s: %r" % (k, f), r)


def test_text_says_estimate_and_names_the_line():
    need_valgrind()
    src, line = marker_line("branch", "MISPREDICT")
    r = tdp.run("why", "--backend=sim", "--", demo("branch"), timeout=240)
    tdp.expect_exit(r, 0)
    tdp.expect_in("estimate (simulated)", r.out, "stdout", r)
    tdp.expect_in("branch.c:%d" % line, r.out, "stdout", r)
    tdp.expect_in("tdprof explain branch_mispredicts", r.out, "stdout", r)
    tdp.expect_in("tdprof: simulating", r.err, "progress on stderr", r)


def test_workload_status_and_missing_command():
    need_valgrind()
    wl = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-exit")
    if os.access(wl, os.X_OK):
        r = tdp.run("why", "--backend=sim", "--", wl, "7", timeout=240)
        tdp.expect_exit(r, 7)
    r = tdp.run("why", "--backend=sim", "--", "tdprof-no-such-command")
    tdp.expect_exit(r, 127)
    r = tdp.run("why", "--backend=sim")
    tdp.expect_exit(r, 2)
    r = tdp.run("why", "--backend=sim", "--sim-machine", "no-such-machine", "--", "true")
    tdp.expect_exit(r, 2)


def test_short_or_crashed_runs_say_so():
    """A diagnosis of 100k instructions, or of a program that crashed, is said to be one:
    the figures are there, with a note that they may not mean what the user wants."""
    need_valgrind()
    wl = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-exit")
    if not os.access(wl, os.X_OK):
        raise tdp.Skip("workload not built: %s" % wl)
    r = tdp.run("why", "--backend=sim", "--json", "--", wl, "0", timeout=240)
    tdp.expect_exit(r, 0)
    notes = r.json()["notes"]
    tdp.check(any("the run executed only" in n and "instructions" in n for n in notes), "short run: %r" % notes, r)
    r = tdp.run("why", "--backend=sim", "--json", "--", wl, "segv", timeout=240)
    tdp.expect_exit(r, 128 + 11)
    notes = r.json()["notes"]
    tdp.check(any("died of signal 11 (SIGSEGV)" in n for n in notes), "crash: %r" % notes, r)
    r = tdp.run("why", "--backend=sim", "--", wl, "segv", timeout=240)
    tdp.expect_in("died of signal 11 (SIGSEGV) before it finished", r.out, "stdout", r)
    # a real run of the demo is long enough: no such note
    _, j = why(demo("branch"))
    tdp.check(not any("executed only" in n or "died of signal" in n for n in j["notes"]), "demo: %r" % j["notes"])


def test_backend_pmu_without_a_pmu():
    if not tdp.no_pmu():
        raise tdp.Skip("this machine has a PMU")
    r = tdp.run("why", "--backend=pmu", "--", "true")
    tdp.expect_exit(r, 1)
    tdp.expect_in("hardware counters are unavailable", r.err, "stderr", r)
    tdp.check("hint:" in r.err, "with the remedy", r)


def test_auto_falls_back_loudly():
    if not tdp.no_pmu():
        raise tdp.Skip("this machine has a PMU")
    need_valgrind()
    r = tdp.run("why", "--json", "--", demo("arith"), timeout=240)
    tdp.expect_exit(r, 0)
    notes = [l for l in r.err.splitlines() if l.startswith("tdprof: note: no hardware PMU")]
    tdp.check(len(notes) == 1 and "estimate" in notes[0], "one note saying so: %r" % notes, r)
    tdp.check(r.json()["backend"] == "sim", "backend sim", r)


# ---------------------------------------------------------------------------
# The PMU drill-down (src/diagnose/drill-pmu.h). This machine may have no PMU: the
# documents come from tests/unit/diagnose/gen-why-pmu, which runs the drill-down over
# synthetic recordings of drill-target (tests/unit/diagnose/drill-fixture.h says what
# each holds); the live path runs in the arm64 guest (tests/arm64).

DIAG = os.path.join(tdp.BUILD_ROOT, "tests", "unit", "diagnose")
TARGET_SRC = os.path.join(tdp.SOURCE_ROOT, "tests", "unit", "diagnose", "drill-target.c")


def pmu_doc(scenario, fmt="json"):
    gen, target = os.path.join(DIAG, "diagnose-gen-why-pmu"), os.path.join(DIAG, "diagnose-drill-target")
    if not (os.access(gen, os.X_OK) and os.access(target, os.X_OK)):
        raise tdp.Skip("the drill-down's generator is not built (%s)" % gen)
    p = subprocess.run([gen, target, TARGET_SRC, scenario, fmt], capture_output=True, text=True, timeout=60)
    tdp.check(p.returncode == 0, "gen-why-pmu %s: exit %d: %s" % (scenario, p.returncode, p.stderr))
    return json.loads(p.stdout) if fmt == "json" else p.stdout


def target_line(marker):
    with open(TARGET_SRC) as f:
        for i, line in enumerate(f, 1):
            if "drill-test: " + marker in line:
                return i
    raise AssertionError("no marker %s in %s" % (marker, TARGET_SRC))


def schema_problems(doc):
    """docs/json/why.schema.json's complaints about doc (None: python3-jsonschema is missing)."""
    try:
        import jsonschema
    except ImportError:
        return None
    d = os.path.join(tdp.SOURCE_ROOT, "docs", "json")
    base = "file://" + os.path.abspath(d) + "/"
    schemas = {}
    for n in os.listdir(d):
        if n.endswith(".schema.json"):
            with open(os.path.join(d, n)) as f:
                schemas[base + n] = json.load(f)
    root = {"$ref": base + "why.schema.json"}
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012
        reg = Registry().with_resources([(u, Resource.from_contents(s, default_specification=DRAFT202012))
                                         for u, s in schemas.items()])
        v = jsonschema.Draft202012Validator(root, registry=reg)
    except ImportError:
        v = jsonschema.Draft202012Validator(root, resolver=jsonschema.RefResolver(base, root, store=schemas))
    return ["/".join(map(str, e.absolute_path)) + ": " + e.message[:200] for e in v.iter_errors(doc)]


def test_pmu_drill_documents_match_the_schema():
    checked = 0
    for scenario in ("lbr", "brs", "nofacility", "frontend", "backend", "retiring", "nomodel", "intel", "drilled",
                     "mismeasured", "nomux", "dataaddr", "speloads"):
        doc = pmu_doc(scenario)
        problems = schema_problems(doc)
        if problems is None:
            raise tdp.Skip("python3-jsonschema is missing (apt-get install python3-jsonschema)")
        tdp.check(not problems, "%s: %s" % (scenario, problems))
        tdp.check(doc["backend"] == "pmu" and doc["drilldown"]["sampling"] is not None, scenario)
        checked += 1
    tdp.check(checked == 13, "every scenario")


def test_pmu_bottlenecks_lead():
    """Intel's Bottlenecks view leads why (made-up Sapphire Rapids counts, 45 % Bad Speculation, drilled with
    LBR records): the costs most first, Mispredictions pointing at the drill-down's branch, with its fix."""
    j = pmu_doc("intel")
    b = j["bottlenecks"]
    tdp.check(len(b) >= 8 and [x["rank"] for x in b] == list(range(1, len(b) + 1)), "ranked: %r" % b)
    tdp.check([x["value"] for x in b] == sorted((x["value"] for x in b), reverse=True), "most first")
    m = b[0]
    tdp.check(m["name"] == "Mispredictions" and m["flagged"] and m["node"] == "branch_mispredicts" and m["fix"],
              "Mispredictions leads: %r" % m)
    tdp.check(m["located_by"] == "drilldown" and m["site"]["line"] == target_line("BRANCH") and
              m["site"]["function"] == "pick", "it points at the mispredicting branch: %r" % m)
    other = [x for x in b if x["node"] == "memory_bound"]
    tdp.check(other and all(x["site"] is None and x["located_by"] == "locate_with" and x["locate_with"]
                            for x in other), "memory costs are not what the drill-down located: %r" % other)
    text = pmu_doc("intel", "text")
    tdp.check(0 < text.index("bottlenecks (the vendor's view") < text.index("1. triage"), "the lead comes first")
    tdp.expect_in("1. Mispredictions 40.7 %, above its threshold", text, "the text")
    for scenario in ("lbr", "backend"):  # the simulated tree of the other scenarios has no view
        tdp.check(pmu_doc(scenario)["bottlenecks"] == [], scenario)


def test_pmu_drill_lbr():
    j = pmu_doc("lbr")
    smp = j["drilldown"]["sampling"]
    # drill-fixture.h: 20 samples, 40 records, 14 mispredicted
    tdp.check(smp["method"] == "branch_stack" and smp["branch_facility"] == "lbr" and smp["samples"] == 20
              and smp["branch_records"] == 40 and smp["mispredicted"] == 14 and smp["frequency"] == 4000
              and smp["period"] is None, "sampling: %r" % smp)
    s = j["sites"][0]
    tdp.check(s["file"] == "drill-target.c" and s["line"] == target_line("BRANCH") and s["function"] == "pick",
              "first site: %r" % s)
    # 10 of its 20 records mispredicted: 10/14 of all; no instruction or miss was sampled: null, not 0
    tdp.check(s["samples"] == 20 and s["branches"] == 20 and s["mispredicts"] == 10
              and abs(s["share_pct"] - 100 * 10 / 14) < 1e-3, "figures: %r" % s)
    tdp.check(all(s[k] is None for k in ("instructions", "loads", "l1d_misses", "ll_misses", "l1i_misses")),
              "unsampled counts are null: %r" % s)
    dis = j["drilldown"]["disassembly"]
    target = [i for i in dis["instructions"] if i["target"]]
    tdp.check(len(target) == 1 and target[0]["in_line"] and target[0]["branch"] and dis["target"]
              == target[0]["address"], "the guilty branch is marked: %r" % dis)
    f = j["findings"][1]
    tdp.check(f["site"]["line"] == s["line"] and abs(f["share_pct"] - 60 * 10 / 14) < 1e-3
              and "Intel LBR" in f["evidence"], "finding: %r" % f)
    tdp.check("tdprof branches record" not in j["findings"][0]["fix"], "the trace is made, not asked for")


def test_pmu_drill_brs_and_no_facility():
    j = pmu_doc("brs")
    smp, s = j["drilldown"]["sampling"], j["sites"][0]
    tdp.check(smp["period"] == 100003 and smp["frequency"] is None and smp["mispredicted"] is None,
              "BRS: a fixed period, no flags: %r" % smp)
    tdp.check(s["mispredicts"] is None and s["branches"] == 20 and j["drilldown"]["ranked_by"]
              == "taken branch records", "BRS site: %r" % s)
    j = pmu_doc("nofacility")
    smp, s = j["drilldown"]["sampling"], j["sites"][0]
    tdp.check(smp["method"] == "ip" and smp["branch_facility"] is None and smp["branch_records"] is None
              and "no branch-recording facility" in smp["reason"], "sampling: %r" % smp)
    tdp.check(s["function"] == "spin" and s["line"] == target_line("HOT") and s["samples"] == 60
              and s["branches"] is None, "the hottest line: %r" % s)
    tdp.check(any(f["title"] == "the mispredicting branches cannot be traced on this machine"
                  for f in j["findings"]), "a finding says why: %r" % j["findings"])
    text = pmu_doc("nofacility", "text")
    tdp.check("sampled:" in text and "branches:  no branch-recording facility here" in text
              and "samples   share" in text, "the text says how it sampled and that no facility exists:\n" + text)


def test_pmu_drill_footprint_and_no_model():
    j = pmu_doc("frontend")
    fp = j["drilldown"]["footprint"]
    tdp.check(fp["functions"] == 4 and fp["top"][0]["function"] == "spin" and fp["top"][0]["samples"] == 60
              and fp["top"][0]["instructions"] is None and fp["l1i_bytes"] is None, "footprint: %r" % fp)
    j = pmu_doc("nomodel")
    tdp.check(j["level1"] is None and j["verdict"]["category"] is None and j["findings"] == []
              and "no top-down model" in j["verdict"]["reason"], "no model, no verdict: %r" % j["verdict"])
    tdp.check(j["sites"][0]["function"] == "spin" and j["drilldown"]["kind"] == "hot_loop"
              # spin(n) takes an argument: no tdprof loop command (it would not run), a note instead
              and j["drilldown"]["loop_command"] is None and "'spin' takes arguments" in j["drilldown"]["loop_note"]
              and "drill-target.c" in j["drilldown"]["loop_note"],
              "the hot code still: %r" % j["drilldown"])


def tree_nodes(tree, parent=None):
    """Every node of a nested JSON tree with its parent node, depth first."""
    for n in tree:
        yield n, parent
        yield from tree_nodes(n["children"], n)


def dominant_leaf(doc):
    """The leaf why locates, found here from the JSON alone: from the verdict down, the flagged child of
    largest value, else the largest measured one, until no child is measured."""
    nodes = {n["key"]: n for n, _ in tree_nodes(doc["tree"])}
    leaf = nodes[doc["verdict"]["category"]]
    while True:
        kids = [c for c in leaf["children"] if c["value"] is not None]
        if not kids:
            return leaf
        leaf = max(kids, key=lambda c: (c["flagged"], c["value"]))


def test_pmu_drilled_tree():
    """why on a PMU drills the tree down as topdown --drilldown does (made-up Sapphire Rapids counts given to
    each step's groups, tests/unit/diagnose/drill-fixture.h): every node says the step and run that measured
    it, a node is measured the step after its parent, what no step measured is null, and the leaf the sampled
    run located is the deepest dominant node measured."""
    j = pmu_doc("drilled")
    td = j["tree_drilldown"]
    tdp.check(td and td["steps"] >= 3 and len(td["plan"]) == td["steps"] and td["plan"][0]["nodes"] == "level 1"
              and td["plan"][1]["nodes"] == "children of Backend Bound" and not td["no_multiplex"]
              and td["stopped"] is None and all(p["runs"] == 1 for p in td["plan"]), "the steps: %r" % td)
    measured = 0
    for n, parent in tree_nodes(j["tree"]):
        d = n["drill"]
        if d is None:
            tdp.check(n["value"] is None or n["key"] == "cxl_mem_bound", "%s: a value no step measured" % n["key"])
            continue
        measured += 1
        tdp.check(d["run"] == 1 and d["running_pct"] in (100.0, None) and not d["mismeasured"], "%s: %r" % (n["key"], d))
        tdp.check(d["step"] == (parent["drill"]["step"] + 1 if parent else 1),
                  "%s measured in step %d, its parent in %r" % (n["key"], d["step"], parent and parent["drill"]))
    tdp.check(measured == sum(p["nr_nodes"] for p in td["plan"]), "every node the steps measured has a drill")
    leaf = dominant_leaf(j)
    smp = j["drilldown"]["sampling"]
    tdp.check(smp["located"] == leaf["key"] and leaf["drill"]["step"] >= 3 and smp["locate_event"]
              and leaf["locate_with"] and smp["locate_event"] in leaf["locate_with"]
              and j["drilldown"]["ranked_by"] == "samples of the dominant leaf's Locate-with event",
              "located %s (%s), the dominant leaf is %s (step %s)" % (smp["located"], smp["locate_event"], leaf["key"],
                                                                     leaf["drill"]["step"]))
    tdp.check(j["level2"]["backend_bound"]["memory_bound"] == 50.0 and j["level2"]["frontend_bound"]["fetch_latency"] is None,
              "level2: the measured nodes only: %r" % j["level2"])
    t = pmu_doc("drilled", "text")
    tdp.expect_in("drilled down in %d steps" % td["steps"], t, "text")
    tdp.expect_in("(step 2, run 1, running 100 %)", t, "text")
    tdp.expect_in("step 2:  children of Backend Bound", t, "text")
    tdp.check(re.search(r"^ +Memory Bound +50\.0 % +above 20 % +\(step 2, run 1", t, re.M), "the tree's line", t)


def test_pmu_drilled_mismeasured_and_nomux():
    """A step whose counts are off (3 x topdown-mem-bound, groups that ran 40 % of the time): Memory Bound is
    mismeasured, null in the tree with what was read and the likely cause (multiplexing); with --no-multiplex
    each group is a run of its own."""
    j = pmu_doc("mismeasured")
    mem = next(n for n, _ in tree_nodes(j["tree"]) if n["key"] == "memory_bound")
    d = mem["drill"]
    tdp.check(mem["value"] is None and d["mismeasured"] and d["measured_value"] > 100 and d["running_pct"] == 40.0
              and "--no-multiplex" in d["cause"] and "mismeasured" in mem["why"], "memory_bound: %r" % mem)
    tdp.check(j["level2"]["backend_bound"]["memory_bound"] is None, "level2 holds no mismeasured figure")
    tdp.check(dominant_leaf(j)["key"] == j["drilldown"]["sampling"]["located"], "the leaf skips the mismeasured node")
    t = pmu_doc("mismeasured", "text")
    tdp.check(re.search(r"Memory Bound +- +MISMEASURED \(\d+\.\d % read", t), "MISMEASURED in the text", t)
    j = pmu_doc("nomux")
    plan = j["tree_drilldown"]["plan"]
    tdp.check(j["tree_drilldown"]["no_multiplex"] and all(p["runs"] == p["groups"] for p in plan)
              and any(p["runs"] > 1 for p in plan), "one run per group: %r" % plan)
    runs = {n["drill"]["run"] for n, _ in tree_nodes(j["tree"]) if n["drill"]}
    tdp.check(max(runs) > 1, "nodes of the later runs: %r" % runs)


def test_pmu_data_addresses():
    """A memory leaf sampled precisely (MEM_LOAD_RETIRED.L3_HIT:pp) with data addresses, as perf record -d
    (the fixture's recording: 85 of 100 samples with an address in a [heap] or a [stack]): the hottest data
    lines with their mapping and the code that touched them, named in the located finding."""
    j = pmu_doc("dataaddr")
    smp = j["drilldown"]["sampling"]
    tdp.check(smp["located"] == "l3_hit_latency" and smp["event"] == "MEM_LOAD_RETIRED.L3_HIT:pp"
              and smp["data_addresses"] and smp["with_address"] == 85, "sampling: %r" % smp)
    data = j["drilldown"]["data"]
    tdp.check([(x["address"], x["region"], x["samples"], x["function"], x["line"]) for x in data] ==
              [("0x555556000040", "[heap]", 31, "spin", target_line("HOT")),
               ("0x555556001000", "[heap]", 29, "spin", target_line("HOT")),
               ("0x7ffd00000100", "[stack]", 25, "pick", target_line("BRANCH"))], "data lines: %r" % data)
    tdp.check(abs(sum(x["share_pct"] for x in data) - 100.0) < 1e-6, "shares of the samples with an address")
    f = next(x for x in j["findings"] if " located at " in x["title"] and x["site"]["line"] == target_line("HOT"))
    tdp.expect_in("its hottest data is the line at 0x555556000040 ([heap])", f["evidence"], "finding")
    t = pmu_doc("dataaddr", "text")
    tdp.check(re.search(r"85\s+of\s+them\s+with\s+a\s+data\s+address", t), "the sampling line", t)
    tdp.check(re.search(r"^ +1 +0x555556000040 +\[heap\] +31 +36\.5% +\S*drill-target\.c:\d+ in spin$", t, re.M),
              "the data table", t)
    j = pmu_doc("drilled")
    tdp.check(j["drilldown"]["sampling"]["data_addresses"] is False and "data" not in j["drilldown"],
              "no addresses without a precise memory event")


def test_pmu_spe_loads():
    """Arm with SPE: Backend Bound (Arm's one-level tree) located by SPE's load records (the fixture's
    recording: 95 loads, 85 with a data address), each data line with its loads' mean latency."""
    j = pmu_doc("speloads")
    smp = j["drilldown"]["sampling"]
    tdp.check(smp["method"] == "spe" and smp["loads"] and smp["branch_records"] is None and smp["samples"] == 95
              and smp["with_address"] == 85 and smp["located"] == "backend_bound"
              and smp["event"] == "arm_spe_0/load_filter=1,ts_enable=1,jitter=1/", "sampling: %r" % smp)
    tdp.check([(x["address"], x["latency"]) for x in j["drilldown"]["data"]] ==
              [("0x555556000040", 300.0), ("0x555556001000", 40.0), ("0x7ffd00000100", 4.0)],
              "the data lines' latencies: %r" % j["drilldown"]["data"])
    tdp.check(j["sites"][0]["line"] == target_line("HOT") and j["sites"][0]["samples"] == 60, "the loads' lines")
    t = pmu_doc("speloads", "text")
    tdp.check(re.search(r"^ +1 +0x555556000040 +\[heap\] +31 +36\.5% +300 ", t, re.M), "latency column", t)


def test_no_drill_option():
    r = tdp.run("why", "--help")
    tdp.expect_exit(r, 0)
    tdp.expect_in("--no-drill", r.out, "--help", r)
    need_valgrind()
    r = tdp.run("why", "--backend=sim", "--no-drill", "--json", "--", demo("arith"), timeout=240)
    tdp.expect_exit(r, 0)
    tdp.expect_in("'--no-drill' applies to the PMU backend", r.err, "stderr", r)
    j = r.json()
    tdp.check(j["drilldown"]["sampling"] is None and j["sites"] and j["sites"][0]["samples"] is None
              and j["sites"][0]["instructions"] > 0, "the simulation's sites, unsampled: %r" % j["sites"][:1], r)


tdp.main(globals())
