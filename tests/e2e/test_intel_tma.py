"""tdprof topdown on the Intel models generated from Intel's TMA data: the whole tree
(-l 6, --nodes, --info, the Bottlenecks view) and a differential check against
Intel's own fully expanded per-platform metrics (tests/data/intel/, intel/perfmon,
TMA 5.2: every event an alias, every formula written out), evaluated here by an
independent evaluator on made-up counts."""

import csv
import json
import math
import os
import random
import re
import tempfile

import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-e2e-intel-")
DATA = os.path.join(tdp.SOURCE_ROOT, "tests", "data", "intel")
TMA_CSV = os.path.join(tdp.SOURCE_ROOT, "data", "intel", "TMA_Metrics-full.csv")
PERF_METRICS = {"FRONTEND_BOUND": "topdown-fe-bound", "BAD_SPECULATION": "topdown-bad-spec",
                "RETIRING": "topdown-retiring", "BACKEND_BOUND": "topdown-be-bound",
                "HEAVY_OPERATIONS": "topdown-heavy-ops", "BRANCH_MISPREDICTS": "topdown-br-mispredict",
                "FETCH_LATENCY": "topdown-fetch-lat", "MEMORY_BOUND": "topdown-mem-bound"}


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def perf_name(ev):
    """Intel's event spelling (NAME:c1:e1, PERF_METRICS.X, X_PS) as perf stat prints it."""
    base, _, mods = ev.partition(":")
    base = re.sub(r"_PS$", "", base)
    if base.startswith("PERF_METRICS."):
        return PERF_METRICS[base.split(".", 1)[1]]
    terms = []
    for m in [m for m in mods.split(":") if m]:
        if m in ("perf_metrics", "percore"):
            continue
        if re.fullmatch(r"c\d+", m):
            terms.append("cmask=%d" % int(m[1:]))
        elif m == "e1":
            terms.append("edge")
        elif m == "i1":
            terms.append("inv")
        elif re.fullmatch(r"u0x[0-9a-fA-F]+", m):
            terms.append("umask=" + m[1:].lower())
        elif m.startswith("ocr_msr_val="):
            terms.append("offcore_rsp=" + m.split("=", 1)[1].lower())
        else:
            return None
    return "cpu/%s,%s/" % (base, ",".join(terms)) if terms else base


def intel_values(path, seed):
    """Made-up counts for every event of Intel's metrics, and Intel's value of each metric."""
    with open(path) as f:
        doc = json.load(f)
    rnd = random.Random(seed)
    counts, want = {}, {}
    for m in doc["Metrics"]:
        if m.get("Constants"):
            continue
        env = {}
        for e in m["Events"]:
            n = perf_name(e["Name"])
            if n is None:
                env = None
                break
            if n not in counts:
                counts[n] = {"TOPDOWN.SLOTS": 5e7, "CPU_CLK_UNHALTED.THREAD": 1e7}.get(n, float(rnd.randint(10**4, 10**7)))
            env[e["Alias"]] = counts[n]
        if env is None:
            continue
        py = m["Formula"].replace("&", " and ").replace("|", " or ")
        py = re.sub(r"#SMT_on", "0", py)
        try:
            want[m["MetricName"]] = eval(py, {"__builtins__": {}, "max": max, "min": min}, env)
        except ZeroDivisionError:
            want[m["MetricName"]] = float("nan")
    return counts, want


def differential(model, data_file):
    path = os.path.join(DATA, data_file)
    if not os.path.exists(path):
        raise tdp.Skip("no %s" % path)
    counts, want = intel_values(path, 7)
    csv_path = write(model + ".csv", "".join("%d,,%s,1000,100.00,,\n" % (v, n) for n, v in counts.items()))
    r = tdp.run("topdown", "--import", csv_path, "--cpu", model, "-l", "6", "--info", "--json")
    tdp.expect_exit(r, 0)
    doc = r.json()
    got = {n["label"].replace(" ", "_"): n["value"] for n in doc["nodes"]}
    got.update({"Bottleneck_" + b["name"]: b["value"] for b in doc["bottlenecks"]})
    got.update({"Info_%s_%s" % (i["group"].replace("Info.", "").replace(".", "_").strip(), i["name"]): i["value"]
                for i in doc["info"]})
    compared, bad = 0, []
    for name, v in sorted(want.items()):
        if name not in got:
            continue
        t = got[name]
        compared += 1
        if not math.isfinite(v) or t is None:
            if (t is None) != (not math.isfinite(v)):
                bad.append("%s: Intel %r, tdprof %r" % (name, v, t))
        elif abs(t - v) > 0.05:   # the bound for a differential check: 0.05 point
            bad.append("%s: Intel %.4f, tdprof %.4f" % (name, v, t))
    tdp.check(compared >= 150, "%s: only %d metrics compared" % (model, compared))
    tdp.check(not bad, "%s: %d of %d differ from Intel's expanded formulas:\n  %s" %
              (model, len(bad), compared, "\n  ".join(bad)))


def test_sapphirerapids_matches_intel_expanded_formulas():
    differential("sapphirerapids", "spr-metrics-5.2.json")


def test_icelakex_matches_intel_expanded_formulas():
    differential("icelakex", "icx-metrics-5.2.json")


def test_graniterapids_matches_intel_expanded_formulas():
    differential("graniterapids", "gnr-metrics-5.2.json")


def every_event_csv(model):
    """A count for every event of the model ('list events --cpu MODEL')."""
    r = tdp.run("list", "events", "--cpu", model, "--json")
    tdp.expect_exit(r, 0)
    doc = r.json()
    events = [e["name"] for e in doc["events"][0]["events"]]
    tdp.check(len(events) > 100, "%s has the level 1-6 events (%d)" % (model, len(events)), r)
    rnd = random.Random(3)
    fixed = {"TOPDOWN.SLOTS": 5e7, "CPU_CLK_UNHALTED.THREAD": 1e7}
    return write(model + "-all.csv", "".join("%d,,%s,1000,100.00,,\n" % (fixed.get(n, rnd.randint(10**3, 10**6)), n)
                                              for n in events))


def tree_nodes(tree):
    for n in tree:
        yield n
        yield from tree_nodes(n["children"])


def test_level6_tree_with_thresholds():
    path = every_event_csv("icelake")
    r = tdp.run("topdown", "--import", path, "--cpu", "icelake", "-l", "6", "--json")
    tdp.expect_exit(r, 0)
    doc = r.json()
    nodes = list(tree_nodes(doc["tree"]))
    levels = {n["level"] for n in nodes}
    tdp.check(levels == {1, 2, 3, 4, 5, 6}, "levels 1-6 in the tree: %s" % sorted(levels), r)
    deep = [n for n in nodes if n["level"] >= 3]
    tdp.check(all(n["threshold"] is not None for n in deep), "every level 3-6 node has its threshold", r)
    tdp.check(all(n["description"] for n in deep), "and its description", r)
    # design.md's fields of a tree node: key, name, level, parent, value, threshold, crossed, description
    for n in nodes:
        tdp.check(n["name"] == n["label"] and n["crossed"] == n["flagged"], "name and crossed of %s" % n["key"], r)
        if n["crossed"]:
            tdp.check(n["value"] is not None and n["threshold"] is not None and n["value"] > n["threshold"],
                      "a crossed node is above its threshold: %s" % n["key"], r)
    # children sit inside their parent
    for n in nodes:
        for c in n["children"]:
            tdp.check(c["parent"] == n["key"] and c["level"] == n["level"] + 1, "nesting of %s" % c["key"], r)
    # level1 and level2 as before
    tdp.check(set(doc["level1"]) >= {"retiring", "bad_speculation", "frontend_bound", "backend_bound"}, "level1", r)
    tdp.check("fetch_latency" in doc["level2"]["frontend_bound"], "level2", r)
    # the text: indented tree, level 6 nodes shown under their parents
    r = tdp.run("topdown", "--import", path, "--cpu", "icelake", "-l", "6")
    tdp.expect_exit(r, 0)
    tdp.expect_in("\n            Load STLB Miss 4K", r.out, "stdout", r)
    tdp.expect_in("\n      ICache Misses", r.out, "stdout", r)


def test_level_deeper_than_the_model_is_refused():
    path = every_event_csv("icelake")
    r = tdp.run("topdown", "--import", path, "--cpu", "zen4", "-l", "3")
    tdp.expect_exit(r, 2)
    tdp.expect_in("there is no level 3", r.err, "stderr", r)
    tdp.expect_in("-l 1 to -l 2", r.err, "stderr", r)


def test_nodes_chooses_subtrees():
    path = every_event_csv("icelake")
    r = tdp.run("topdown", "--import", path, "--cpu", "icelake", "--nodes", "Memory_Bound,-L3_Bound", "--json")
    tdp.expect_exit(r, 0)
    doc = r.json()
    keys = {n["key"] for n in tree_nodes(doc["tree"])}
    tdp.check({"backend_bound", "memory_bound", "l1_bound", "dtlb_load", "load_stlb_miss_4k"} <= keys,
              "Memory_Bound's subtree and its ancestor (to the model's depth): %s" % sorted(keys), r)
    tdp.check("l3_bound" not in keys and "sq_full" not in keys, "-L3_Bound hides it and its subtree", r)
    tdp.check("frontend_bound" not in keys and "core_bound" not in keys, "nothing else", r)
    # toplev's other spellings: ^ removes, wildcards match
    r = tdp.run("topdown", "--import", path, "--cpu", "icelake", "--nodes", "*STLB_Miss_?K,^Code_STLB_Miss_4K",
                "--json")
    tdp.expect_exit(r, 0)
    keys = {n["key"] for n in tree_nodes(r.json()["tree"])}
    tdp.check({"load_stlb_miss_4k", "store_stlb_miss_4k", "dtlb_load", "memory_bound"} <= keys and
              "code_stlb_miss_4k" not in keys and "load_stlb_miss_2m" not in keys,
              "wildcards and ^: %s" % sorted(keys), r)
    r = tdp.run("topdown", "--import", path, "--cpu", "icelake", "--nodes", "No_Such_Node")
    tdp.expect_exit(r, 2)
    tdp.expect_in("no node No_Such_Node", r.err, "stderr", r)


def test_info_and_bottlenecks():
    path = every_event_csv("sapphirerapids")
    r = tdp.run("topdown", "--import", path, "--cpu", "sapphirerapids", "-l", "3", "--info", "--json")
    tdp.expect_exit(r, 0)
    doc = r.json()
    info = {i["name"]: i for i in doc["info"]}
    tdp.check({"IPC", "CPI", "SLOTS"} <= set(info), "the Info metrics: %s" % sorted(info)[:10], r)
    ev = {g_ev: c for g in doc["groups"] for g_ev, c in zip(g["events"], g["counts"])}
    ipc = ev["INST_RETIRED.ANY"] / ev["CPU_CLK_UNHALTED.THREAD"]
    tdp.check(abs(info["IPC"]["value"] - ipc) < 1e-9, "IPC = INST_RETIRED.ANY / CLKS", r)
    b = doc["bottlenecks"]
    names = [x["name"] for x in b]
    tdp.check({"Mispredictions", "Big_Code", "Instruction_Fetch_BW", "Data_Cache_Memory_Bandwidth",
               "Data_Cache_Memory_Latency", "Memory_Data_TLBs", "Memory_Synchronization", "Compute_Bound_Est",
               "Irregular_Overhead", "Branching_Overhead", "Useful_Work", "Other_Bottlenecks"} == set(names),
              "Intel's twelve bottlenecks: %s" % names, r)
    vals = [x["value"] for x in b if x["value"] is not None]
    tdp.check(vals == sorted(vals, reverse=True) and [x["rank"] for x in b] == list(range(1, len(b) + 1)),
              "ranked, largest first", r)
    r = tdp.run("topdown", "--import", path, "--cpu", "sapphirerapids", "--info")
    tdp.expect_exit(r, 0)
    tdp.expect_in("bottlenecks (Intel's view", r.out, "stdout", r)
    tdp.expect_in("info metrics:", r.out, "stdout", r)


def tma_column_nodes(column_chain):
    """The tree nodes Intel's TMA defines for a platform (first filled cell of the chain, not #NA)."""
    with open(TMA_CSV, encoding="utf-8", errors="replace", newline="") as f:
        rows = list(csv.reader(f))
    hdr = next(r for r in rows if r and r[0] == "Key")
    levels = [i for i, h in enumerate(hdr) if re.fullmatch(r"Level\d", h)]
    names, stack = [], {}
    for r in rows[rows.index(hdr) + 1:]:
        if not r or not r[0].startswith(("FE", "BAD", "BE", "RET")):
            continue
        lv = [(k + 1, r[i].strip()) for k, i in enumerate(levels) if r[i].strip()]
        if not lv:
            continue
        level, name = lv[0]
        for k in [k for k in stack if k >= level]:
            del stack[k]
        cell = next((r[hdr.index(c)].strip() for c in column_chain if r[hdr.index(c)].strip()), "")
        if not cell or cell == "#NA" or (level > 1 and level - 1 not in stack):
            continue
        stack[level] = name
        names.append(name)
    return names


def test_every_tma_node_of_the_column_is_in_the_model():
    with open(os.path.join(tdp.SOURCE_ROOT, "data", "intel", "platforms.json")) as f:
        plat = {p["name"]: p for p in json.load(f)["models"]}
    for model in [p for p in plat if plat[p]["csv"] == "full"]:
        want = tma_column_nodes(plat[model]["inherit"].split(";"))
        r = tdp.run("list", "metrics", "--cpu", model, "--json")
        tdp.expect_exit(r, 0)
        have = {m["node"] for m in r.json()["metrics"][0]["metrics"] if m["node"]}
        missing = [n for n in want if n.lower() not in have and n not in ("Base", "MS_uops")]
        tdp.check(not missing, "%s: TMA nodes missing: %s" % (model, missing), r)


tdp.main(globals())
