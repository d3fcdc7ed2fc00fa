"""Every `--json` document tdprof writes, run as a user runs it, held to its JSON Schema
(docs/json/*.schema.json) and to the rules of design.md's contract that a schema cannot
state:

- every JSON document that carries figures carries "backend": "pmu" | "sim" | "import";
  list and explain (which measure nothing) and loop measured with the clock alone carry none
  (issue 16: a backend there would claim a measurement that did not happen);
- level-1 fields under `level1` in percent of slots; where all four are measured they
  (with any measured vendor extra) sum to about 100 (within the tool's own 1-point flag);
- level 2 under `level2` keyed by parent with one vocabulary; a vendor extra keeps its
  name and the document says it is extra (its `extra` list);
- a node the hardware (or the simulation) cannot measure is null or absent, never 0: a
  node whose `why` says it was not measured is null, an event perf printed as
  `<not supported>`/`<not counted>` makes its nodes null, the simulation's unmodelled
  level-2 nodes are null in `why` too, and `diff` carries the nulls of its inputs;
- issue 9: `-r N` keeps every run's figures in the JSON, with a 95 % interval.

The inputs are real: the Zen 4 `perf stat -MPipelineL2` text and the perf.data fixtures
of the shared data (their values checked against what perf printed), the demo workloads
under the simulated backend, a small kernel for `tdprof loop`, and imports whose counts
are chosen here with the expected percentages worked out by hand in the comments.

Needs python3-jsonschema (Debian's 4.10 or later, for draft 2020-12); skips (77) without it.
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import tdp

try:
    import jsonschema
except ImportError:
    print("skip: the Python module 'jsonschema' is missing: apt-get install python3-jsonschema")
    sys.exit(77)

SCHEMA_DIR = os.path.join(tdp.SOURCE_ROOT, "docs", "json")
KINDS = ["info", "stat", "topdown", "branches-report", "branches-samples", "why", "loop", "diff", "list", "explain", "selftest",
         "annotate"]
TMP = tempfile.mkdtemp(prefix="tdprof-schema-")
atexit.register(shutil.rmtree, TMP, True)
EXAMPLES = os.path.join(tdp.BUILD_ROOT, "examples")
GEN = os.path.join(tdp.BUILD_ROOT, "tests", "unit", "diff", "gen-branches")
ZEN4 = ("counters", "amd-zen4-kinematics", "OmpSimdSim.md")

LEVEL1 = ("retiring", "bad_speculation", "frontend_bound", "backend_bound")
LEVEL2 = {
    "frontend_bound": ("fetch_latency", "fetch_bandwidth"),
    "bad_speculation": ("branch_mispredicts", "machine_clears"),
    "backend_bound": ("memory_bound", "core_bound"),
    "retiring": ("light_operations", "heavy_operations"),
}
# design.md: AMD's level-2 names map onto the vocabulary
AMD_LEVEL2 = {
    "frontend_bound_latency": ("frontend_bound", "fetch_latency"),
    "frontend_bound_bandwidth": ("frontend_bound", "fetch_bandwidth"),
    "bad_speculation_mispredicts": ("bad_speculation", "branch_mispredicts"),
    "bad_speculation_pipeline_restarts": ("bad_speculation", "machine_clears"),
    "backend_bound_memory": ("backend_bound", "memory_bound"),
    "backend_bound_cpu": ("backend_bound", "core_bound"),
    "retiring_fastpath": ("retiring", "light_operations"),
    "retiring_microcode": ("retiring", "heavy_operations"),
}

# Every document made, by label: (schema kind, document). The backend check reads them all.
DOCS = {}


def path(name):
    return os.path.join(TMP, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


# ---------------------------------------------------------------------------
# Schemas


def load_schemas():
    out = {}
    for name in sorted(os.listdir(SCHEMA_DIR)):
        if name.endswith(".schema.json"):
            with open(os.path.join(SCHEMA_DIR, name)) as f:
                out[name] = json.load(f)
    return out


SCHEMAS = load_schemas()
BASE = "file://" + os.path.abspath(SCHEMA_DIR) + "/"
VALIDATORS = {}


def validator(kind):
    """A draft 2020-12 validator of kind's schema whose references resolve to the
    other files of docs/json/ (never to the network). jsonschema 4.18+ resolves
    through `referencing`, older ones through RefResolver."""
    if kind not in VALIDATORS:
        root = {"$ref": BASE + kind + ".schema.json"}
        try:
            from referencing import Registry, Resource
            from referencing.jsonschema import DRAFT202012
            reg = Registry().with_resources(
                [(BASE + n, Resource.from_contents(s, default_specification=DRAFT202012)) for n, s in SCHEMAS.items()])
            VALIDATORS[kind] = jsonschema.Draft202012Validator(root, registry=reg)
        except ImportError:
            res = jsonschema.RefResolver(base_uri=BASE, referrer=root,
                                         store={BASE + n: s for n, s in SCHEMAS.items()})
            VALIDATORS[kind] = jsonschema.Draft202012Validator(root, resolver=res)
    return VALIDATORS[kind]


def schema_errors(kind, doc):
    """The schema's complaints about doc, one line per path (array indices as *) and
    message, with how many times it was seen."""
    seen = {}
    for e in validator(kind).iter_errors(doc):
        where = "/".join("*" if isinstance(p, int) else str(p) for p in e.absolute_path) or "(document)"
        msg = e.message
        if e.context:  # anyOf: say what the closest branch said
            msg += " (%s)" % jsonschema.exceptions.best_match(e.context).message
        key = "%s: %s" % (where, re.sub(r"\b\d{3,}\b", "N", msg))
        first, n = seen.get(key, ("%s: %s" % (where, msg[:300]), 0))
        seen[key] = (first, n + 1)
    return [first if n == 1 else "%s (%d times)" % (first, n) for first, n in seen.values()]


def validate(label, kind, doc, problems):
    """Validate doc against kind's schema; add a line per complaint to problems."""
    DOCS[label] = (kind, doc)
    for line in schema_errors(kind, doc):
        problems.append("%s: does not match docs/json/%s.schema.json: %s" % (label, kind, line))


def finish(problems):
    tdp.check(not problems, "\n  " + "\n  ".join(problems))


def run_json(label, *args, timeout=300):
    """Run tdprof with args (which include --json); exit 0; the document on stdout."""
    r = tdp.run(*args, timeout=timeout)
    tdp.check(r.code == 0, "%s: exit %d" % (label, r.code), r)
    return r.json()


def need_example(name):
    exe = os.path.join(EXAMPLES, name, "demo-" + name)
    if not os.access(exe, os.X_OK):
        raise tdp.Skip("the demo workloads are not built (%s)" % exe)
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is needed for the simulated backend")
    return exe


# ---------------------------------------------------------------------------
# Contract checks a schema cannot state


def close(a, b, eps):
    return a is not None and b is not None and abs(a - b) <= eps


def check_level1_sum(label, doc, problems):
    """Where all four level-1 nodes are measured, they and the measured extras sum to
    about 100 % of slots: within 1 point, the tool's own level1_sum_off threshold."""
    l1 = doc.get("level1")
    if not isinstance(l1, dict) or any(l1.get(k) is None for k in LEVEL1):
        return
    total = sum(v for v in l1.values() if isinstance(v, (int, float)))
    if abs(total - 100) > 1.0:
        problems.append("%s: level1 sums to %.3f, not about 100" % (label, total))
    if "level1_sum" in doc and not close(doc["level1_sum"], total, 1e-6):
        problems.append("%s: level1_sum %r is not the sum of level1 (%.6f)" % (label, doc["level1_sum"], total))


def check_extras(label, doc, problems):
    """A key outside the vocabulary at level 1 or 2 is a vendor extra the document names."""
    declared = set(doc.get("extra") or [])
    l1 = doc.get("level1") if isinstance(doc.get("level1"), dict) else {}
    for k in l1:
        if k not in LEVEL1 and k not in declared:
            problems.append("%s: level1 key %r is not in the vocabulary and not named in 'extra'" % (label, k))
    l2 = doc.get("level2") if isinstance(doc.get("level2"), dict) else {}
    for parent, children in l2.items():
        for k in children if isinstance(children, dict) else ():
            if k not in LEVEL2.get(parent, ()) and k not in declared:
                problems.append("%s: level2 %s key %r is not in the vocabulary and not named in 'extra'" %
                                (label, parent, k))


def tree_value(tree, node):
    """The value of a topdown node in the document's level1/level2/cycle_accounting (below
    level 2: in the nested tree), and whether the document has it there at all."""
    if node["level"] > 2:
        stack = list(tree.get("tree") or [])
        while stack:
            t = stack.pop()
            if t["key"] == node["key"]:
                return t["value"], True
            stack.extend(t["children"])
        return None, False
    if node["level"] == 2:
        box = (tree.get("level2") or {}).get(node["parent"])
    elif tree.get("model_kind") == "cycle_accounting":
        box = tree.get("cycle_accounting")
    else:
        box = tree.get("level1")
    if not isinstance(box, dict) or node["key"] not in box:
        return None, False
    return box[node["key"]], True


def check_nodes(label, tree, problems):
    """topdown: each node's value is the one in level1/level2; one it says was not
    measured ('why') is null there and in nodes, never 0."""
    for n in tree.get("nodes", []):
        v, present = tree_value(tree, n)
        if not present:
            problems.append("%s: node %r is in 'nodes' but not in its level's object" % (label, n["key"]))
        elif not (v is None and n["value"] is None) and not close(v, n["value"], 1e-9):
            problems.append("%s: %s is %r in nodes but %r in level%d" % (label, n["key"], n["value"], v, n["level"]))
        if n.get("why") and (n["value"] is not None or v is not None):
            problems.append("%s: %s was not measured (%s) but its value is %r / %r, not null" %
                            (label, n["key"], n["why"], n["value"], v))


def check_repeat(label, doc, problems):
    """-r N: runs lists repeat.runs runs; each node's mean (level1/level2) is the mean of
    its runs, and lies in its 95 % interval."""
    if "repeat" not in doc:
        return
    runs = doc["runs"]
    if len(runs) != doc["repeat"]["runs"]:
        problems.append("%s: %d runs listed, repeat.runs says %d" % (label, len(runs), doc["repeat"]["runs"]))
        return
    for key in LEVEL1:
        vals = [r.get("level1", {}).get(key) for r in runs]
        if any(v is None for v in vals):
            continue
        mean = sum(vals) / len(vals)
        if not close(doc["level1"][key], mean, 1e-6 * max(1, abs(mean))):
            problems.append("%s: level1.%s %r is not the mean of its runs %r" % (label, key, doc["level1"][key], vals))
        ci = doc["ci95"]["level1"].get(key)
        if ci is not None and not ci[0] - 1e-9 <= mean <= ci[1] + 1e-9:
            problems.append("%s: the 95 %% interval %r of %s misses its mean %r" % (label, ci, key, mean))


def contract(label, doc, problems):
    if isinstance(doc, dict):
        check_level1_sum(label, doc, problems)
        check_extras(label, doc, problems)
        check_repeat(label, doc, problems)
        for t in [doc] + (doc.get("core_types") or []):
            if "nodes" in t and "model_kind" in t:
                check_nodes(label, t, problems)


# ---------------------------------------------------------------------------
# Documents


def test_schemas_are_valid_and_documented():
    names = set(SCHEMAS)
    for kind in KINDS + ["defs"]:
        tdp.check(kind + ".schema.json" in names, "docs/json/%s.schema.json is missing" % kind)
    with open(os.path.join(SCHEMA_DIR, "README.md")) as f:
        readme = f.read()
    problems = []
    for name, s in SCHEMAS.items():
        try:
            jsonschema.Draft202012Validator.check_schema(s)
        except jsonschema.exceptions.SchemaError as e:
            problems.append("%s is not a valid draft 2020-12 schema: %s" % (name, e.message))
        if s.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            problems.append("%s does not declare draft 2020-12" % name)
        if name != "defs.schema.json" and name not in readme:
            problems.append("README.md does not mention %s" % name)
        # every key a document may have is explained in the README
        for key in list(s.get("properties", {})) + list(s.get("$defs", {}).get("tree", {}).get("properties", {})):
            if "`%s`" % key not in readme:
                problems.append("README.md does not explain %s's key `%s`" % (name, key))
    finish(problems)


def test_info():
    problems = []
    doc = run_json("info", "info", "--json")
    validate("info --json", "info", doc, problems)
    # an arm64 machine from a sysfs snapshot (MIDR 0x413fd0c1: Arm, part 0xd0c = Neoverse N1)
    root = path("n1")
    files = {"sys/devices/system/cpu/online": "0-1\n",
             "sys/bus/event_source/devices/armv8_pmuv3_0/type": "8\n",
             "sys/bus/event_source/devices/armv8_pmuv3_0/format/event": "config:0-15\n",
             "sys/bus/event_source/devices/armv8_pmuv3_0/caps/slots": "0x5\n",
             "sys/bus/event_source/devices/software/type": "1\n",
             "proc/sys/kernel/perf_event_paranoid": "2\n"}
    for n in range(2):
        files["sys/devices/system/cpu/cpu%d/regs/identification/midr_el1" % n] = "0x00000000413fd0c1\n"
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    arm = run_json("info arm64 snapshot", "info", "--json", "--sysfs", os.path.join(root, "sys"),
                   "--procfs", os.path.join(root, "proc"))
    validate("info --sysfs (Neoverse N1)", "info", arm, problems)
    if arm["cpu"]["midr"] != "0x00000000413fd0c1" or arm["cpu"]["part"] != 0xd0c or arm["cpu"]["family"] is not None:
        problems.append("info --sysfs: the MIDR is not read back as written: %s" % arm["cpu"])
    if arm["pmus"] and arm["pmus"][0]["caps"].get("slots") != "0x5":
        problems.append("info --sysfs: a hexadecimal caps value is kept as its text: %s" % arm["pmus"][0]["caps"])
    finish(problems)


def test_list_and_explain():
    problems = []
    for args in (["list"], ["list", "metrics"], ["list", "metrics", "--cpu", "zen4"],
                 ["list", "events", "--cpu", "alderlake"], ["list", "events"]):
        doc = run_json(" ".join(args), *args, "--json")
        validate("%s --json" % " ".join(args), "list", doc, problems)
    models = {m["name"] for m in DOCS["list --json"][1]["models"]}
    for name in ("skylake", "cascadelake", "icelake", "icelakex", "sapphirerapids", "alderlake", "zen2", "zen3",
                 "zen4", "zen5", "neoverse-n1", "neoverse-v1", "neoverse-n2", "neoverse-v2", "neoverse-v3"):
        if name not in models:
            problems.append("list --json: design.md's model %r is missing" % name)
    for args in (["explain"], ["explain", "memory_bound"], ["explain", "smt_contention"]):
        doc = run_json(" ".join(args), *args, "--json")
        validate("%s --json" % " ".join(args), "explain", doc, problems)
    finish(problems)


def test_stat():
    problems = []
    spin = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-spin")
    if not os.access(spin, os.X_OK):
        raise tdp.Skip("wl-spin is not built (%s)" % spin)
    # wl-spin 100 burns 100 ms of its thread's CPU time: task-clock (a "msec" count,
    # in milliseconds) is about 100, the wall time (elapsed_ns, nanoseconds) at least 1e8.
    # The kernel's task clock and the thread's CPU clock may differ by the last tick's
    # accounting (99.4 was seen on a loaded machine): this checks the unit, not the clock.
    doc = run_json("stat", "stat", "--json", "--", spin, "100")
    validate("stat --json -- wl-spin 100", "stat", doc, problems)
    ev = {e["event"]: e for e in doc["events"]}
    tc = ev.get("task-clock", {})
    if tc.get("unit") != "msec" or not 90 <= (tc.get("value") or 0) < 5000:
        problems.append("stat: task-clock of 100 ms of CPU should be about 100 (msec): %s" % tc)
    if not 1e8 <= (doc["elapsed_ns"] or 0) < 5e10:
        problems.append("stat: elapsed_ns %r is not in nanoseconds of a 100 ms run" % doc["elapsed_ns"])
    if not doc["hardware"]["available"]:
        # no PMU here: the hardware counts are <not supported>, null, never 0
        for name in ("cycles", "instructions", "branch-misses"):
            e = ev.get(name)
            if not e or e["status"] == "counted" or e["value"] is not None:
                problems.append("stat without a PMU: %s should be null and not counted: %s" % (name, e))
        if doc["metrics"]["cpi"] is not None or doc["route"]["next"] is not None:
            problems.append("stat without a PMU: no CPI, no route: %s %s" % (doc["metrics"], doc["route"]))
    doc = run_json("stat -I", "stat", "--json", "-e", "task-clock", "-I", "50", "--", spin, "250")
    validate("stat --json -I 50", "stat", doc, problems)
    times = [iv["time_ns"] for iv in doc.get("intervals", [])]
    if len(times) < 3 or times != sorted(times):
        problems.append("stat -I 50 over 250 ms: intervals %r" % times)
    if shutil.which("valgrind"):
        doc = run_json("stat --backend=sim", "stat", "--backend=sim", "--json", "--", "true")
        validate("stat --backend=sim --json", "stat", doc, problems)
        if doc["backend"] != "sim" or "estimate" not in doc["target"]:
            problems.append("stat --backend=sim: backend %r, target %r" % (doc["backend"], doc["target"]))
    finish(problems)


def test_stat_repeat_keeps_every_run():
    # issue 9: "-r N on topdown and why (and stat, which has it) keeps every run's figures and
    # reports each metric's mean and a 95 % confidence interval; the JSON keeps the per-run values"
    problems = []
    doc = run_json("stat -r 3", "stat", "--json", "-r", "3", "-e", "task-clock,page-faults", "--", "true")
    validate("stat --json -r 3", "stat", doc, problems)
    for e in doc["events"]:
        if e["status"] != "counted":
            continue
        lists = [v for v in e.values() if isinstance(v, list)]
        per_run = [v for v in lists if len(v) == 3 and all(isinstance(x, (int, float)) for x in v)]
        if not per_run or not any(close(sum(v) / 3, e["value"], 1e-6 * max(1, e["value"])) for v in per_run):
            problems.append("stat --json -r 3: event %r has no per-run values whose mean is its value %r "
                            "(issue 9: the JSON keeps the per-run values)" % (e["event"], e["value"]))
        if not any(len(v) == 2 and v[0] <= e["value"] <= v[1] for v in lists):
            problems.append("stat --json -r 3: event %r has no 95 %% interval [lo, hi] around its mean "
                            "(issue 9)" % e["event"])
    finish(problems)


def zen4_block(n):
    with open(tdp.shared(*ZEN4)) as f:
        blocks = re.findall(r"\$ perf stat -MPipelineL2[^\n]*\n(.*?)```", f.read(), re.S)
    tdp.check(len(blocks) > n, "%s has %d -MPipelineL2 runs" % (ZEN4[-1], len(blocks)))
    return blocks[n]


def test_topdown_import_zen4():
    problems = []
    block = zen4_block(0)
    doc = run_json("topdown --import", "topdown", "--import", write("zen4.txt", block), "--cpu", "zen4", "--json")
    validate("topdown --import zen4 (-MPipelineL2 text)", "topdown", doc, problems)
    contract("topdown --import zen4", doc, problems)
    # every level-2 value perf printed, under design.md's names, within print rounding (0.05)
    printed = {m: float(v) for v, m in re.findall(r"#\s+([\d.]+) %\s+(\w+)", block)}
    tdp.check(set(AMD_LEVEL2) <= set(printed), "perf printed the eight level-2 metrics: %s" % printed)
    for metric, (parent, key) in AMD_LEVEL2.items():
        got = (doc["level2"].get(parent) or {}).get(key)
        if not close(got, printed[metric], 0.05 + 1e-9):
            problems.append("zen4 import: level2.%s.%s = %r, perf printed %s %.1f" %
                            (parent, key, got, metric, printed[metric]))
    if doc["backend"] != "import" or doc["model_kind"] != "slots" or "smt_contention" not in doc["extra"]:
        problems.append("zen4 import: backend %r, model_kind %r, extra %r" %
                        (doc["backend"], doc["model_kind"], doc["extra"]))
    DOCS["zen4 a"] = ("topdown", doc)
    doc = run_json("topdown --import", "topdown", "--import", write("zen4-b.txt", zen4_block(1)), "--cpu", "zen4",
                   "--json")
    validate("topdown --import zen4 (second run)", "topdown", doc, problems)
    DOCS["zen4 b"] = ("topdown", doc)
    finish(problems)


def test_topdown_unmeasured_is_null():
    problems = []
    block = zen4_block(0)
    # ex_ret_ucode_ops <not supported>: retiring_microcode and retiring_fastpath (heavy and light
    # operations) need it; <not counted> on the cmask=6 event: frontend latency and bandwidth
    cases = [("ex_ret_ucode_ops", "<not supported>", "retiring", ("light_operations", "heavy_operations")),
             ("cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/", "<not counted>", "frontend_bound",
              ("fetch_latency", "fetch_bandwidth"))]
    for i, (event, status, parent, keys) in enumerate(cases):
        text, n = re.subn(r"^ *[\d,]+( +%s )" % re.escape(event), lambda m: "%20s%s" % (status, m.group(1)), block,
                          flags=re.M)
        tdp.check(n == 1, "the block has one %s line" % event)
        doc = run_json("topdown --import", "topdown", "--import", write("zen4-%d.txt" % i, text), "--cpu",
                       "zen4", "--json")
        label = "topdown --import zen4 with %s %s" % (event, status)
        validate(label, "topdown", doc, problems)
        contract(label, doc, problems)
        for k in keys:
            if doc["level2"].get(parent, {}).get(k, None) is not None:
                problems.append("%s: level2.%s.%s = %r, not null" % (label, parent, k, doc["level2"][parent][k]))
        # the other level-2 nodes are still there (within perf's rounding of 0.05)
        if not close(doc["level2"]["backend_bound"]["memory_bound"], 60.2, 0.05 + 1e-9):
            problems.append("%s: memory_bound %r, perf printed 60.2" % (label, doc["level2"]["backend_bound"]))
    # a cycle-accounting model: no four-way split (the four null), its buckets in percent of cycles:
    # 123 / 1000 = 12.3 %, 342 / 1000 = 34.2 %
    csv = "1000,,CPU_CYCLES,1000,100.00,,\n123,,STALL_FRONTEND,1000,100.00,,\n342,,STALL_BACKEND,1000,100.00,,\n"
    doc = run_json("topdown n1", "topdown", "--import", write("n1.csv", csv), "--cpu", "neoverse-n1", "--json")
    validate("topdown --import neoverse-n1", "topdown", doc, problems)
    contract("topdown --import neoverse-n1", doc, problems)
    ca = doc.get("cycle_accounting", {})
    if any(doc["level1"][k] is not None for k in LEVEL1) or not (
            close(ca.get("frontend_stalled_cycles"), 12.3, 1e-9) and close(ca.get("backend_stalled_cycles"), 34.2, 1e-9)):
        problems.append("neoverse-n1: level1 %s, cycle_accounting %s" % (doc["level1"], ca))
    finish(problems)


# Alder Lake: P-core counts (PERF_METRICS, slots 10000) and E-core counts (Gracemont, 5 slots
# per cycle, 1000 cycles = 5000 slots). P-core: FE 2000/10000 = 20 %, BE 30 %, RET 40 %,
# BAD = 1 - 0.9 = 10 %; fetch latency 1500/10000 = 15 %, bandwidth 20 - 15 = 5 %; mispredicts
# 8 %, clears 10 - 8 = 2 %; memory 20 %, core 30 - 20 = 10 %; heavy 5 %, light 40 - 5 = 35 %.
# E-core: FE 1000/5000 = 20 %, BE 1500/5000 = 30 %, RET 2000/5000 = 40 %, BAD 10 %; no
# level-2 events: its level 2 is null.
ADL_CSV = """10000,,cpu_core/TOPDOWN.SLOTS/,1000,100.00,,
4000,,cpu_core/topdown-retiring/,1000,100.00,,
1000,,cpu_core/topdown-bad-spec/,1000,100.00,,
2000,,cpu_core/topdown-fe-bound/,1000,100.00,,
3000,,cpu_core/topdown-be-bound/,1000,100.00,,
500,,cpu_core/topdown-heavy-ops/,1000,100.00,,
800,,cpu_core/topdown-br-mispredict/,1000,100.00,,
1500,,cpu_core/topdown-fetch-lat/,1000,100.00,,
2000,,cpu_core/topdown-mem-bound/,1000,100.00,,
0,,cpu_core/INT_MISC.UOP_DROPPING/,1000,100.00,,
1000,,cpu_atom/CPU_CLK_UNHALTED.CORE/,1000,100.00,,
1000,,cpu_atom/TOPDOWN_FE_BOUND.ALL/,1000,100.00,,
1500,,cpu_atom/TOPDOWN_BE_BOUND.ALL/,1000,100.00,,
2000,,cpu_atom/TOPDOWN_RETIRING.ALL/,1000,100.00,,
"""


def test_topdown_intel_whole_tree():
    # every event of the Ice Lake model, made-up counts: -l 6 with --info and the Bottlenecks view
    problems = []
    events = run_json("list events", "list", "events", "--cpu", "icelake", "--json")["events"][0]["events"]
    # (a cmask= event counts cycles with at least N uops: fewer than the plain event)
    counts = "".join("%d,,%s,1000,100.00,,\n" % ({"TOPDOWN.SLOTS": 5e7}.get(
        e["name"], 100 if "cmask=" in e["name"] else 10000 + 37 * i), e["name"]) for i, e in enumerate(events))
    doc = run_json("topdown icelake -l 6", "topdown", "--import", write("icl-all.csv", counts), "--cpu", "icelake",
                   "-l", "6", "--info", "--json")
    validate("topdown --import icelake -l 6 --info", "topdown", doc, problems)
    contract("topdown --import icelake -l 6", doc, problems)
    if not doc.get("tree") or not doc.get("info") or len(doc.get("bottlenecks", [])) != 12:
        problems.append("icelake -l 6: tree, info and the twelve bottlenecks expected")
    finish(problems)


def test_topdown_hybrid():
    problems = []
    doc = run_json("topdown adl", "topdown", "--import", write("adl.csv", ADL_CSV), "--cpu", "alderlake", "--json")
    validate("topdown --import alderlake (P- and E-core)", "topdown", doc, problems)
    contract("topdown --import alderlake", doc, problems)
    want1 = {"retiring": 40, "bad_speculation": 10, "frontend_bound": 20, "backend_bound": 30}
    want2 = {"frontend_bound": {"fetch_latency": 15, "fetch_bandwidth": 5},
             "bad_speculation": {"branch_mispredicts": 8, "machine_clears": 2},
             "backend_bound": {"memory_bound": 20, "core_bound": 10},
             "retiring": {"light_operations": 35, "heavy_operations": 5}}
    cores = {c.get("core_type"): c for c in doc.get("core_types", [])}
    if set(cores) != {"P-core", "E-core"}:
        problems.append("alderlake: core_types %r" % list(cores))
    else:
        for name, tree in (("top level", doc), ("P-core", cores["P-core"]), ("E-core", cores["E-core"])):
            for k, v in want1.items():
                if not close(tree["level1"][k], v, 1e-9):
                    problems.append("alderlake %s: level1.%s = %r, want %d" % (name, k, tree["level1"][k], v))
        for p, kids in want2.items():
            for k, v in kids.items():
                if not close(cores["P-core"]["level2"][p][k], v, 1e-9):
                    problems.append("alderlake P-core: level2.%s.%s = %r, want %d" %
                                    (p, k, cores["P-core"]["level2"][p][k], v))
                if (cores["E-core"]["level2"].get(p) or {}).get(k) is not None:
                    problems.append("alderlake E-core: level2.%s.%s = %r with no event for it, not null" %
                                    (p, k, cores["E-core"]["level2"][p][k]))
    finish(problems)


def sim_topdown():
    """topdown -l 2 of the branch demo on the simulated backend (memoised)."""
    if "topdown sim" not in DOCS:
        exe = need_example("branch")
        DOCS["topdown sim"] = ("topdown", run_json("topdown sim", "topdown", "--backend=sim", "-l", "2", "--json",
                                                   "--", exe))
    return DOCS["topdown sim"][1]


def test_topdown_sim():
    problems = []
    doc = sim_topdown()
    validate("topdown --backend=sim -l 2 (branch demo)", "topdown", doc, problems)
    contract("topdown --backend=sim -l 2", doc, problems)
    unmodelled = [n["key"] for n in doc["nodes"] if n["why"]]
    if doc["backend"] != "sim" or not unmodelled:
        problems.append("topdown sim: backend %r; the nodes the simulation cannot estimate say why: %r" %
                        (doc["backend"], unmodelled))
    doc = run_json("topdown sim -r", "topdown", "--backend=sim", "-r", "3", "--json", "--",
                   need_example("arith"))
    validate("topdown --backend=sim -r 3 (arith demo)", "topdown", doc, problems)
    contract("topdown --backend=sim -r 3", doc, problems)
    if "repeat" not in doc:
        problems.append("topdown -r 3: no repeat, runs, ci95, stddev")
    finish(problems)


def test_topdown_by_function_group_read():
    """--by function over group reads (a synthetic Sapphire Rapids recording, test_byfunc_pmu.py's) and
    over the simulation."""
    import test_byfunc_pmu
    problems = []
    path, _ = test_byfunc_pmu.spr_file(TMP)
    doc = run_json("topdown --by function -i spr.data", "topdown", "--by", "function", "-i", path, "--json")
    validate("topdown --by function -i (group reads)", "topdown", doc, problems)
    contract("topdown --by function -i", doc, problems)
    if doc["by_function"]["source"] != "group_read" or len(doc["functions"]) != 2:
        problems.append("topdown --by function -i: %r" % doc["by_function"])
    doc = run_json("topdown --by function --backend=sim", "topdown", "--by", "function", "--backend=sim", "--json",
                   "--", need_example("arith"))
    validate("topdown --by function --backend=sim (arith demo)", "topdown", doc, problems)
    if doc["by_function"]["source"] != "sim":
        problems.append("topdown --by function --backend=sim: %r" % doc["by_function"])
    finish(problems)


def test_why_sim():
    problems = []
    unmodelled = {(n["parent"], n["key"]) for n in sim_topdown()["nodes"] if n["why"] and n["level"] == 2}
    for name, kind in (("branch", "branches"), ("interp", "branches"), ("chase", "memory"), ("bigcode", "icache"),
                       ("arith", "hot_loop")):
        label = "why --backend=sim (%s demo)" % name
        doc = run_json(label, "why", "--backend=sim", "--json", "--", need_example(name))
        DOCS["why " + name] = ("why", doc)
        contract(label, doc, problems)
        if doc["drilldown"]["kind"] != kind:
            problems.append("%s: drilldown %r, want %r" % (label, doc["drilldown"]["kind"], kind))
        # what the simulation does not model is null in why's level 2 too (never 0); why runs
        # callgrind, so the block model (llvm-mca) estimates core_bound, fetch_bandwidth and
        # heavy_operations there, which topdown's cachegrind run leaves null
        block_model = {("backend_bound", "core_bound"), ("frontend_bound", "fetch_bandwidth"),
                       ("retiring", "heavy_operations")}
        for parent, key in sorted(unmodelled - block_model if shutil.which("llvm-mca") else unmodelled):
            v = ((doc.get("level2") or {}).get(parent) or {}).get(key)
            if v is not None:
                problems.append("%s: level2.%s.%s = %r, but the simulation does not estimate it" %
                                (label, parent, key, v))
        validate(label, "why", doc, problems)
    doc = run_json("why -r", "why", "--backend=sim", "-r", "2", "--json", "--", need_example("chase"))
    validate("why --backend=sim -r 2 (chase demo)", "why", doc, problems)
    contract("why -r 2", doc, problems)
    finish(problems)


def perf_script_counts(name):
    """(samples, branch entries, mispredicted entries) in perf 6.1's `perf script -F
    ip,brstack` of a fixture: a sample starts with its event name, each entry is
    FROM/TO/M|P/..."""
    samples = entries = misp = 0
    with open(tdp.shared("perfdata", "derived", name + ".perf6.1-script-brstack.txt")) as f:
        for line in f:
            if re.match(r"^ *[A-Za-z][^\s/]*:(\s|$)", line):
                samples += 1
            flags = re.findall(r"0x[0-9a-f]+/0x[0-9a-f]+/([MP-])/", line)
            entries += len(flags)
            misp += flags.count("M")
    return samples, entries, misp


def test_branches_samples():
    # plain samples (no branch stacks): the pipe-mode cpu-clock fixture, and perf record -g where perf runs
    problems = []
    pipe = os.path.join(tdp.SOURCE_ROOT, "tests", "data", "perfdata", "cpu-clock.pipe")
    doc = run_json("branches report (plain samples)", "branches", "report", "-i", pipe, "--json")
    validate("branches report (plain samples)", "branches-samples", doc, problems)
    if doc["samples"] != 124 or doc["stacks"] is not None:
        problems.append("cpu-clock.pipe: %d samples (perf script: 124), stacks %r" % (doc["samples"], doc["stacks"]))
    wl = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-hot")
    if shutil.which("perf") and os.access(wl, os.X_OK):
        r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-g", "-o", path("g.data"), "--", wl, "spin",
                            "1", "100"], capture_output=True)
        if r.returncode == 0:
            label = "branches report (plain samples, -g)"
            doc = run_json(label, "branches", "report", "-i", path("g.data"), "--json")
            validate(label, "branches-samples", doc, problems)
            if not doc["callchains"] or not doc["stacks"]:
                problems.append("%s: no stacks" % label)
    finish(problems)


def test_branches_report():
    problems = []
    fixtures = ["perf.data.branch-4.14", "perf.data.branch_stack_hw_index", "perf.data.branch_stack_spec",
                "perf.data.raw_callgraph_branch-3.4"]
    for name in fixtures:
        label = "branches report -i %s" % name
        doc = run_json(label, "branches", "report", "-i", tdp.shared("perfdata", name), "--json")
        validate(label, "branches-report", doc, problems)
        want = perf_script_counts(name)
        got = (doc["samples"], doc["branch_entries"], doc["mispredicted_entries"])
        if got != want:
            problems.append("%s: samples, entries, mispredicted %r; perf script shows %r" % (label, got, want))
        if doc["backend"] != "import":
            problems.append("%s: recorded by perf: backend %r, not import" % (label, doc["backend"]))
    # a recording of a program with debug info (gen-branches writes the branch stacks:
    # classify -> count 30 times, 10 mispredicted; main -> classify 20 times, none):
    # 50 samples of one entry, 10 mispredicted; classify's site: rate 10/30, share 10/10
    cc = shutil.which(os.environ.get("CC", "cc"))
    if os.access(GEN, os.X_OK) and cc:
        exe = path("shift")
        r = subprocess.run([cc, "-O1", "-g", "-o", exe, os.path.join(tdp.SOURCE_ROOT, "tests", "data", "diff",
                                                                      "shift.c")], capture_output=True, text=True)
        tdp.check(r.returncode == 0, "cannot build shift.c: %s" % r.stderr)
        for tag, cm in (("a", 10), ("b", 25)):
            r = subprocess.run([GEN, exe, path("shift-%s.data" % tag), "classify+0x0:count+0x0:30:%d" % cm,
                                "main+0x0:classify+0x0:20:0"], capture_output=True, text=True)
            tdp.check(r.returncode == 0, "gen-branches: %s" % r.stderr)
            label = "branches report (synthesized, %s)" % tag
            doc = run_json(label, "branches", "report", "-i", path("shift-%s.data" % tag), "--json")
            validate(label, "branches-report", doc, problems)
            with open(path("shift-%s.json" % tag), "w") as f:
                json.dump(doc, f)
            DOCS["branches " + tag] = ("branches-report", doc)
            top = doc["sites"][0] if doc["sites"] else {}
            if (doc["samples"], doc["branch_entries"], doc["mispredicted_entries"]) != (50, 50, cm) or \
                    top.get("function") != "classify" or not close(top.get("rate"), cm / 30, 1e-12) or \
                    not close(top.get("share"), 1.0, 1e-12) or not top.get("line") or not doc["disassembly"]:
                problems.append("%s: counts %r, top site %s" % (label, (doc["samples"], doc["branch_entries"],
                                                                         doc["mispredicted_entries"]), top))
    finish(problems)


def test_annotate():
    # a recording whose stacks walk a -g binary (bench/gen-branch-perfdata), and a simulated run
    problems = []
    gen = os.path.join(tdp.BUILD_ROOT, "bench", "gen-branch-perfdata")
    wl = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-twofn")
    if not (os.access(gen, os.X_OK) and os.access(wl, os.X_OK)):
        raise tdp.Skip("bench/gen-branch-perfdata or wl-twofn is not built")
    subprocess.run([gen, wl, path("twofn.data"), "500", "16"], check=True, capture_output=True)
    for fn in ("branchy", "main"):
        label = "annotate %s -i (recording)" % fn
        validate(label, "annotate", run_json(label, "annotate", fn, "-i", path("twofn.data"), "--json"), problems)
    label = "annotate -- demo-branch (simulated)"
    doc = run_json(label, "annotate", "--json", "--backend=sim", "--", need_example("branch"))
    validate(label, "annotate", doc, problems)
    if doc["backend"] != "sim" or not doc["estimate"]:
        problems.append("%s: backend %r, estimate %r" % (label, doc["backend"], doc["estimate"]))
    finish(problems)


def test_loop():
    if not shutil.which(os.environ.get("CC", "cc")):
        raise tdp.Skip("no C compiler for tdprof loop")
    src = write("kern.c", "static volatile int sink;\n\nint sum16(void)\n{\n\tint s = 0;\n\n"
                          "\tfor (int i = 0; i < 16; i++)\n\t\ts += i * sink;\n\treturn s;\n}\n")
    problems = []
    doc = run_json("loop", "loop", src, "--function", "sum16", "--reps", "7", "--json", "--", "-O2")
    validate("loop --json (sum16)", "loop", doc, problems)
    contract("loop", doc, problems)
    if doc["repetitions"] != 7 or doc["function"] != "sum16":
        problems.append("loop: repetitions %r, function %r" % (doc["repetitions"], doc["function"]))
    if doc["method"] == "clock" and (doc["counters"] is not None or doc["level1"] is not None):
        problems.append("loop without counters: counters and level1 must be null, not %r %r" %
                        (doc["counters"], doc["level1"]))
    finish(problems)


def diff_doc(label, a, b):
    pa, pb = path(label.replace(" ", "-") + "-a.json"), path(label.replace(" ", "-") + "-b.json")
    for p, d in ((pa, a), (pb, b)):
        with open(p, "w") as f:
            json.dump(d, f)
    return run_json(label, "diff", pa, pb, "--json")


def check_diff_nodes(label, d, a, b, problems):
    """Each node of a diff holds its inputs' values: null where an input has null (or no
    such node), never 0; delta = b - a."""
    for n in d["nodes"]:
        for side, src in (("a", a), ("b", b)):
            if n["level"] == 1:
                want = (src.get("level1") or {}).get(n["key"])
            else:
                want = ((src.get("level2") or {}).get(n["parent"]) or {}).get(n["key"])
            if not (want is None and n[side] is None) and not close(want, n[side], 1e-6):
                problems.append("%s: node %s: %s = %r, its document has %r" % (label, n["key"], side, n[side], want))
        if n["a"] is not None and n["b"] is not None and not close(n["delta"], n["b"] - n["a"], 1e-6):
            problems.append("%s: node %s: delta %r is not b - a" % (label, n["key"], n["delta"]))
        if (n["a"] is None or n["b"] is None) and n["delta"] is not None:
            problems.append("%s: node %s: a or b unmeasured but delta %r" % (label, n["key"], n["delta"]))


def test_diff():
    problems = []
    # the documents the tests above made (a test that failed on a check still made them)
    pairs = [("diff of two topdown imports", "zen4 a", "zen4 b"),
             ("diff of two why documents", "why branch", "why arith"),
             ("diff of two branch reports", "branches a", "branches b")]
    made = 0
    for label, ka, kb in pairs:
        if ka not in DOCS or kb not in DOCS:
            continue
        a, b = DOCS[ka][1], DOCS[kb][1]
        d = diff_doc(label, a, b)
        validate(label, "diff", d, problems)
        check_diff_nodes(label, d, a, b, problems)
        made += 1
    if not made:
        raise tdp.Skip("none of the documents to compare could be made here")
    finish(problems)


def test_selftest():
    need_example("branch")
    problems = []
    r = tdp.run("selftest", "--backend=sim", "--json", timeout=600)
    doc = r.json()
    validate("selftest --backend=sim --json", "selftest", doc, problems)
    if doc["passed"] + doc["failed"] != len(doc["examples"]) or \
            doc["passed"] != sum(1 for e in doc["examples"] if e["pass"]):
        problems.append("selftest: passed %r, failed %r of %d examples" % (doc["passed"], doc["failed"],
                                                                          len(doc["examples"])))
    if r.code != (0 if doc["failed"] == 0 else 1):
        problems.append("selftest: exit %d with %d failed" % (r.code, doc["failed"]))
    finish(problems)


def test_every_document_carries_backend():
    # design.md: 'Every JSON document carries "backend": "pmu" | "sim" | "import"', for
    # every document with figures; those of commands that measure nothing (list, explain)
    # and loop's clock-only measurement carry none (issue 16); every document the tests
    # above made is looked at
    if not DOCS:
        raise tdp.Skip("no document was made")
    missing = []
    for label, (kind, doc) in sorted(DOCS.items()):
        if kind in ("list", "explain") or (kind == "loop" and isinstance(doc, dict) and doc.get("method") == "clock"):
            if isinstance(doc, dict) and "backend" in doc:
                missing.append("%s: measures nothing, yet says backend %r" % (label, doc["backend"]))
            continue
        if not isinstance(doc, dict) or doc.get("backend") not in ("pmu", "sim", "import"):
            what = "a JSON %s" % type(doc).__name__ if not isinstance(doc, dict) else "backend %r" % doc.get("backend")
            missing.append("%s: %s, no \"backend\": \"pmu\" | \"sim\" | \"import\"" % (label, what))
    tdp.check(not missing, "documents without the backend design.md requires of every JSON document:\n  " +
              "\n  ".join(missing))


tdp.main(globals())
