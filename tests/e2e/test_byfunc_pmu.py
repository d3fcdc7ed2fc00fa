"""Per-function top-down from a sampling group's reads (`tdprof topdown --by function -i
FILE.data`), held to perf and to an independent evaluation of the model's formulas.

1. perf records the workload of two functions (tests/e2e/workloads/wl-twofn.c) with the
   software groups '{cpu-clock,task-clock}:S' and '{cpu-clock,task-clock,page-faults}:S'
   (no PMU needed). Each function's count of each event must equal what `perf report
   --group --sort symbol -F period,sym` prints for it: the functions of the workload by
   name, every other row by its counts, and the totals.
2. Synthetic files (pdgroup.py) carry hardware events with counts chosen here: Sapphire
   Rapids' PERF_METRICS group {slots, topdown-*} at the addresses of two functions'
   lines. perf reads them too (the same per-function counts). Each function's level 1 and
   level 2 must equal the model's formulas (as `tdprof list metrics --json` prints them)
   evaluated by perfexpr.py on that function's counts, its dominant node the one built
   in, and its guilty line the line given that node's counts.
3. Events named by their attr (no EVENT_DESC): cycles and instructions in a generic group.
4. What is not a group-read recording: an error that says what to record.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile

import pdgroup
import perfexpr
import tdp

BASE = 0x555555554000  # where the synthetic files load the workload
SPR = [("slots", 4, 0x400), ("topdown-retiring", 4, 0x8000), ("topdown-bad-spec", 4, 0x8100),
       ("topdown-fe-bound", 4, 0x8200), ("topdown-be-bound", 4, 0x8300), ("topdown-heavy-ops", 4, 0x8400),
       ("topdown-br-mispredict", 4, 0x8500), ("topdown-fetch-lat", 4, 0x8600), ("topdown-mem-bound", 4, 0x8700)]
LEVEL1 = ("retiring", "bad_speculation", "frontend_bound", "backend_bound")
LEVEL2 = ("fetch_latency", "fetch_bandwidth", "branch_mispredicts", "machine_clears", "memory_bound", "core_bound",
          "light_operations", "heavy_operations")
SRC = os.path.join(tdp.SOURCE_ROOT, "tests", "e2e", "workloads", "wl-twofn.c")


def twofn():
    path = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-twofn")
    if not os.access(path, os.X_OK):
        raise tdp.Skip("workload not built: %s" % path)
    return path


def need_perf():
    if not shutil.which("perf"):
        raise tdp.Skip("perf is not installed")


def line_of(marker):
    with open(SRC) as f:
        for n, text in enumerate(f, 1):
            if marker in text:
                return n
    raise AssertionError("no %r in %s" % (marker, SRC))


def perf_report(path):
    """{perf's symbol text: (count per event)} from perf report --group -F period,sym."""
    r = subprocess.run(["perf", "report", "-i", path, "--group", "--sort", "symbol", "-F", "period,sym",
                        "--stdio", "--percent-limit", "0"], capture_output=True, text=True, timeout=240)
    tdp.check(r.returncode == 0, "perf report: %s" % r.stderr[-400:])
    rows = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*((?:\d+\s+)+)(\[[.k]\]) (.+?)\s*(?:-\s+-\s*)?$", line)
        if m:
            key = "%s %s" % (m.group(2), m.group(3).strip())
            counts = tuple(int(x) for x in m.group(1).split())
            old = rows.get(key)
            rows[key] = counts if old is None else tuple(a + b for a, b in zip(old, counts))
    return rows


def by_function(path, *extra):
    r = tdp.run("topdown", "--by", "function", "-i", path, "--json", *extra, timeout=240)
    tdp.expect_exit(r, 0)
    return r.json()


def counts_of(doc, fn):
    return tuple(fn["counts"][e] for e in doc["by_function"]["events"])


def check_against_perf(doc, rows, names, r=None):
    events = doc["by_function"]["events"]
    tdp.check(all(len(c) == len(events) for c in rows.values()), "perf printed one column per event", r)
    mine = {("[k] " if f["kernel"] else "[.] ") + f["function"]: f for f in doc["functions"]}
    for name in names:
        tdp.check("[.] " + name in mine and "[.] " + name in rows, "%s in both: %r" % (name, list(mine)[:8]), r)
        tdp.check(counts_of(doc, mine["[.] " + name]) == rows["[.] " + name],
                  "%s: tdprof %r, perf %r" % (name, counts_of(doc, mine["[.] " + name]), rows["[.] " + name]), r)
    perf_tuples = sorted(rows.values())
    for key, f in mine.items():
        tdp.check(counts_of(doc, f) in perf_tuples, "%s's counts %r are a row of perf's" % (key, counts_of(doc, f)), r)
    totals = tuple(sum(c[i] for c in rows.values()) for i in range(len(events)))
    tdp.check(tuple(doc["by_function"]["totals"][e] for e in events) == totals,
              "totals: tdprof %r, perf %r" % (doc["by_function"]["totals"], totals), r)
    shares = [f["share_pct"] for f in doc["functions"]]
    tdp.check(shares == sorted(shares, reverse=True) and sum(shares) >= 95 or len(shares) == 64,
              "the functions of 95 %% of the leader, largest first: %r" % shares, r)


def test_perf_software_groups_equal_perf_report():
    need_perf()
    wl = twofn()
    with tempfile.TemporaryDirectory(prefix="tdprof-bfp-") as d:
        for group in ("{cpu-clock,task-clock}:S", "{cpu-clock,task-clock,page-faults}:S"):
            f = os.path.join(d, "g.data")
            r = subprocess.run(["perf", "record", "-e", group, "-o", f, "--", wl], capture_output=True, text=True,
                               timeout=240)
            if r.returncode != 0:
                raise tdp.Skip("perf record cannot record here: %s" % r.stderr.strip()[-200:])
            doc = by_function(f)
            tdp.check(doc["by_function"]["source"] == "group_read" and doc["backend"] == "import", "an import", None)
            tdp.check(doc["by_function"]["leader"] == "cpu-clock", "cpu-clock leads: %r" % doc["by_function"], None)
            check_against_perf(doc, perf_report(f), ("chase", "branchy"))
            for fn in doc["functions"]:
                tdp.check(all(fn["level1"][k] is None for k in LEVEL1) and fn["dominant"] is None and fn["why"],
                          "software events measure no node, and say why: %r" % fn, None)
            chase = [fn for fn in doc["functions"] if fn["function"] == "chase"][0]
            # a timer's samples land on the instruction after the one that waited: the loop's other line
            tdp.check(chase["line"] in (line_of("a dependent load"), line_of("a dependent load") - 1) and
                      chase["file"].endswith("wl-twofn.c"), "chase's hottest line is its loop: %r" % chase, None)


def test_live_group_reads_equal_perf_report():
    """--by function -- CMD samples a group with group reads (here software events: -e gives the group,
    which needs no PMU); the recording it keeps (--save-data) is a perf.data perf reports the same counts of."""
    need_perf()
    wl = twofn()
    with tempfile.TemporaryDirectory(prefix="tdprof-bfp-") as d:
        f = os.path.join(d, "live.data")
        r = tdp.run("topdown", "--by", "function", "-e", "{cpu-clock,task-clock,page-faults}", "--save-data", f,
                    "--json", "--", wl, timeout=240)
        tdp.expect_exit(r, 0)
        doc = r.json()
        tdp.check(doc["backend"] == "pmu" and doc["by_function"]["source"] == "group_read" and
                  doc["by_function"]["events"] == ["cpu-clock", "task-clock", "page-faults"],
                  "a live group read: %r" % doc["by_function"], r)
        check_against_perf(doc, perf_report(f), ("chase", "branchy"), r)
        # the same from the file, as an import
        again = by_function(f)
        tdp.check([(x["function"], x["counts"]) for x in again["functions"]] ==
                  [(x["function"], x["counts"]) for x in doc["functions"]], "the import of the file says the same")
        # without --save-data the recording stays in memory and nothing is written
        r = tdp.run("topdown", "--by", "function", "-e", "{cpu-clock,task-clock}", "--", wl, timeout=240, cwd=d)
        tdp.expect_exit(r, 0)
        tdp.expect_in("functions holding 95 % of cpu-clock", r.out, "stdout", r)
        tdp.check(sorted(os.listdir(d)) == ["live.data"], "no file left: %r" % os.listdir(d), r)


def test_live_needs_a_pmu_or_a_group():
    if not tdp.no_pmu():
        raise tdp.Skip("this machine has a PMU: the refusal is for machines without one")
    r = tdp.run("topdown", "--by", "function", "--backend=pmu", "--", "true")
    tdp.expect_exit(r, 1)
    tdp.expect_in("hardware counters are unavailable", r.err, "stderr", r)
    tdp.expect_in("'--by function -e GROUP'", r.err, "stderr: the hint names the way without a PMU", r)
    tdp.expect_in("software events need no PMU", r.err, "stderr", r)
    # and that way works under --backend=pmu too: software events open without a PMU
    r = tdp.run("topdown", "--by", "function", "--backend=pmu", "-e", "{cpu-clock,task-clock}", "--json", "--", "true")
    tdp.expect_exit(r, 0)
    tdp.check(r.json()["by_function"]["events"] == ["cpu-clock", "task-clock"], "the group was sampled", r)
    r = tdp.run("topdown", "--by", "function", "-e", "cpu-clock,{task-clock,page-faults}", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("samples one group", r.err, "stderr", r)
    r = tdp.run("topdown", "-e", "{cpu-clock,task-clock}", "--", "true")
    tdp.expect_exit(r, 2)


def spr_file(d, names=True):
    """A Sapphire Rapids recording: chase's samples mostly memory bound at its load, a few retiring at its
    loop; branchy's mispredicting at its if. Returns (path, {function: {line: deltas}})."""
    wl = twofn()
    if not shutil.which("objdump"):
        raise tdp.Skip("objdump is not installed")
    chase = pdgroup.line_addresses(wl, "chase")
    branchy = pdgroup.line_addresses(wl, "branchy")
    load, loop_line = line_of("a dependent load"), min(chase)
    iff = line_of("mispredicted half")
    tdp.check(load in chase and iff in branchy and loop_line != load, "the lines have code: %r %r" % (chase, branchy))
    plan = [  # (function, line, address, deltas of retiring, bad, fe, be, heavy, br-mispredict, fetch-lat, mem)
        ("chase", load, chase[load][0], (110, 6, 14, 790, 12, 5, 7, 690)),
        ("chase", loop_line, chase[loop_line][0], (290, 4, 12, 54, 8, 3, 4, 21)),
        ("branchy", iff, branchy[iff][0], (310, 590, 83, 27, 22, 545, 41, 11)),
        ("branchy", min(branchy), branchy[min(branchy)][0], (200, 30, 50, 20, 5, 28, 20, 10)),
    ]
    total, samples, want = [0] * len(SPR), [], {}
    for k in range(37):
        for fn, line, addr, d8 in plan:
            if fn == "branchy" and line != iff and k % 3:
                continue
            deltas = [sum(d8[:4])] + list(d8)
            total = [a + b for a, b in zip(total, deltas)]
            samples.append((BASE + addr, list(total)))
            w = want.setdefault(fn, {}).setdefault(line, [0] * len(SPR))
            want[fn][line] = [a + b for a, b in zip(w, deltas)]
    path = os.path.join(d, "spr.data")
    with open(path, "wb") as f:
        f.write(pdgroup.build(SPR, samples, [pdgroup.mapping(wl, BASE)], names=names,
                              cpuid="GenuineIntel,6,143,8"))
    return path, want


def model_formulas(model):
    r = tdp.run("list", "metrics", "--cpu", model, "--json")
    tdp.expect_exit(r, 0)
    return {m["name"]: m for m in r.json()["metrics"][0]["metrics"]}


def evaluate(formulas, counts):
    """Each node's value (percent) from the model's formulas: per formula its first variant whose
    names are all counted events or formulas that can be evaluated, as the model's contract says."""
    cache = {}

    def value(name):
        if name in counts:
            return float(counts[name])
        if name not in formulas:
            raise KeyError(name)
        if name not in cache:
            cache[name] = None
            for text in formulas[name]["expr"]:
                tree = perfexpr.parse(text)
                try:
                    cache[name] = perfexpr.evaluate(tree, value, lambda lit: {"#slots": 6}.get(lit, 0))
                    break
                except KeyError:
                    continue
            if cache[name] is None:
                raise KeyError(name)
        return cache[name]

    out = {}
    for name, m in formulas.items():
        if m["node"] in LEVEL1 + LEVEL2:
            try:
                out[m["node"]] = 100 * value(name)
            except KeyError:
                out[m["node"]] = None
    return out


def test_synthetic_sapphire_rapids_against_perf_and_the_formulas():
    with tempfile.TemporaryDirectory(prefix="tdprof-bfp-") as d:
        path, want = spr_file(d)
        doc = by_function(path)
        tdp.check(doc["cpu"] == "sapphirerapids" and doc["by_function"]["model"] == "sapphirerapids",
                  "the recording's CPU names the model: %r" % doc["cpu"])
        tdp.check(doc["by_function"]["leader"] == "slots", "slots leads")
        if shutil.which("perf"):
            check_against_perf(doc, perf_report(path), ("chase", "branchy"))
        formulas = model_formulas("sapphirerapids")
        fns = {f["function"]: f for f in doc["functions"]}
        tdp.check(set(fns) == {"chase", "branchy"}, "two functions: %r" % list(fns))
        for name, lines in want.items():
            f = fns[name]
            sums = [sum(v[i] for v in lines.values()) for i in range(len(SPR))]
            tdp.check(counts_of(doc, f) == tuple(sums), "%s's counts %r, built %r" % (name, counts_of(doc, f), sums))
            ref = evaluate(formulas, {e: sums[i] for i, (e, _, _) in enumerate(SPR)})
            for k in LEVEL1:
                tdp.check(ref[k] is not None and abs(f["level1"][k] - ref[k]) < 1e-6,
                          "%s %s: tdprof %r, formulas %r" % (name, k, f["level1"][k], ref[k]))
            for k in LEVEL2:
                tdp.check(ref[k] is not None and abs(f["level2"][k] - ref[k]) < 1e-6,
                          "%s %s: tdprof %r, formulas %r" % (name, k, f["level2"][k], ref[k]))
        c, b = fns["chase"], fns["branchy"]
        tdp.check(c["dominant"] == "backend_bound" and c["dominant_node"] == "memory_bound", "chase: %r" % c)
        tdp.check(b["dominant"] == "bad_speculation" and b["dominant_node"] == "branch_mispredicts", "branchy: %r" % b)
        tdp.check(c["line"] == line_of("a dependent load"), "chase's guilty line is its load: %r" % c)
        tdp.check(b["line"] == line_of("mispredicted half"), "branchy's guilty line is its if: %r" % b)
        # the line's share: its memory-bound weight among the function's lines (see byfunc-pmu.h)
        lines = want["chase"]
        w = {ln: v[8] / sum(v[1:5]) * v[0] for ln, v in lines.items()}
        tdp.check(abs(c["line_share_pct"] - 100 * w[c["line"]] / sum(w.values())) < 1e-6,
                  "chase's line share %r" % c["line_share_pct"])


def test_synthetic_text_and_csv():
    with tempfile.TemporaryDirectory(prefix="tdprof-bfp-") as d:
        path, _ = spr_file(d)
        r = tdp.run("topdown", "--by", "function", "-i", path, timeout=120)
        tdp.expect_exit(r, 0)
        tdp.expect_in("functions holding 95 % of slots", r.out, "stdout", r)
        tdp.expect_in("Backend Bound > Memory Bound, at ", r.out, "stdout", r)
        tdp.expect_in("wl-twofn.c:%d (" % line_of("a dependent load"), r.out, "stdout", r)
        tdp.expect_in("perf report --group", r.out, "stdout", r)
        r = tdp.run("topdown", "--by", "function", "-i", path, "--csv", timeout=120)
        tdp.expect_exit(r, 0)
        rows = [l.split(",") for l in r.out.splitlines()]
        head = rows[0]
        tdp.check(head[:4] == ["function", "dso", "kernel", "share_pct"] and head[-len(SPR):] == [e for e, _, _ in SPR],
                  "CSV header: %r" % head, r)
        byname = {row[0]: dict(zip(head, row)) for row in rows[1:]}
        tdp.check(byname["chase"]["dominant_node"] == "memory_bound" and byname["branchy"]["dominant"] ==
                  "bad_speculation", "CSV rows: %r" % byname, r)
        # without --by function, CSV is the whole recording's tree: one row per node
        r = tdp.run("topdown", "-i", path, "--csv")
        tdp.expect_exit(r, 0)
        rows = list(csv.reader(io.StringIO(r.out)))
        tdp.check(rows[0] == ["key", "name", "level", "parent", "value", "threshold", "crossed"],
                  "node table header: %r" % rows[0], r)
        level1 = {row[0]: float(row[4]) for row in rows[1:] if row[2] == "1"}
        tdp.check(set(LEVEL1) <= set(level1) and abs(sum(level1[k] for k in LEVEL1) - 100) < 0.05,
                  "level 1 of the whole recording adds up: %r" % level1, r)


def test_html_grid_sorts_without_script():
    """--html: the functions in a grid drawn once per sort key (share, each level-1 node, name), each copy in
    its order, the headings the labels of the radio buttons that choose a copy; a bar per function."""
    with tempfile.TemporaryDirectory(prefix="tdprof-bfp-") as d:
        path, _ = spr_file(d)
        page = os.path.join(d, "f.html")
        r = tdp.run("topdown", "--by", "function", "-i", path, "--html", page, timeout=120)
        tdp.expect_exit(r, 0)
        text = open(page).read()
        sec = text[text.index('<section id="functions">'):]
        sec = sec[:sec.index("</section>")]
        tdp.check("<script" not in text, "no script in the page")
        order = {}
        for key in ("share", "ret", "bad", "fe", "be", "name"):
            tdp.check('<input type="radio" name="fsort" id="fs-%s"' % key in sec, "a radio for %s" % key)
            tdp.check('<label for="fs-%s">' % key in sec, "a heading that sorts by %s" % key)
            table = sec[sec.index('<table class="funcs by-%s">' % key):]
            table = table[:table.index("</table>")]
            order[key] = re.findall(r"<b>([^<]+)</b>", table)
            tdp.check(table.count("<svg class=\"fbar\"") == 2, "a bar per function (%s)" % key)
        tdp.check(order["share"] == ["chase", "branchy"] and order["bad"] == ["branchy", "chase"] and
                  order["be"] == ["chase", "branchy"] and order["name"] == ["branchy", "chase"],
                  "each copy in its order: %r" % order)
        tdp.check("#fs-bad:checked~table.by-bad" in text, "CSS shows the chosen copy")


def test_events_named_by_their_attrs():
    """No EVENT_DESC: the generic hardware events are named as perf names them."""
    wl = twofn()
    chase = pdgroup.line_addresses(wl, "chase")
    load = line_of("a dependent load")
    events = [("cycles", 0, 0), ("instructions", 0, 1), ("branch-misses", 0, 5)]
    total, samples = [0, 0, 0], []
    for k in range(20):
        total = [total[0] + 1000, total[1] + 250, total[2] + (k % 2)]
        samples.append((BASE + chase[load][0], list(total)))
    with tempfile.TemporaryDirectory(prefix="tdprof-bfp-") as d:
        path = os.path.join(d, "gen.data")
        with open(path, "wb") as f:
            f.write(pdgroup.build(events, samples, [pdgroup.mapping(wl, BASE)], names=False))
        doc = by_function(path, "--cpu", "skylake")
        tdp.check(doc["by_function"]["events"] == ["cycles", "instructions", "branch-misses"],
                  "named from type and config: %r" % doc["by_function"]["events"])
        f = doc["functions"][0]
        tdp.check(f["function"] == "chase" and f["cycles"] == 20000 and f["instructions"] == 5000 and
                  f["counts"]["branch-misses"] == 10, "chase's counts: %r" % f)
        tdp.check(f["level1"]["retiring"] is None and "not measured" in (f["why"] or ""), "no node: %r" % f)
        if shutil.which("perf"):
            check_against_perf(doc, perf_report(path), ("chase",))


def test_not_a_group_read_recording():
    with tempfile.TemporaryDirectory(prefix="tdprof-bfp-") as d:
        csv = os.path.join(d, "c.csv")
        with open(csv, "w") as f:
            f.write("1000,,cycles,1000,100.00,,\n")
        r = tdp.run("topdown", "--by", "function", "-i", csv)
        tdp.expect_exit(r, 2)
        tdp.expect_in("perf stat output", r.err, "stderr", r)
        path, _ = spr_file(d)
        data = open(path, "rb").read()
        cut = os.path.join(d, "cut.data")
        with open(cut, "wb") as f:
            f.write(data[:len(data) * 2 // 3])
        r = tdp.run("topdown", "--by", "function", "-i", cut)
        tdp.expect_exit(r, 2)
        tdp.expect_in("cut.data", r.err, "stderr", r)
        r = tdp.run("topdown", "--by", "function", "-i", path, "--cpu", "nosuchcpu")
        tdp.expect_exit(r, 2)


def test_plain_samples_say_how_to_record_a_group():
    need_perf()
    with tempfile.TemporaryDirectory(prefix="tdprof-bfp-") as d:
        f = os.path.join(d, "p.data")
        r = subprocess.run(["perf", "record", "-e", "cpu-clock", "-o", f, "--", "true"], capture_output=True,
                           text=True, timeout=120)
        if r.returncode != 0:
            raise tdp.Skip("perf record cannot record here")
        r = tdp.run("topdown", "--by", "function", "-i", f)
        tdp.expect_exit(r, 1)
        tdp.expect_in("no sample reads its group", r.err, "stderr", r)
        tdp.expect_in(":S'", r.err, "stderr", r)


if __name__ == "__main__":  # test_json_schema.py imports spr_file
    tdp.main(globals())
