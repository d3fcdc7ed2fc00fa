"""Importing perf stat output as a user does: `tdprof topdown --import FILE --cpu MODEL`.

The real recordings are the AMD Zen 4 `perf stat -MPipelineL2` text blocks of
$TDPROF_SHARED_DATA/counters/amd-zen4-kinematics/*.md, cut out at run time into a
temporary file (nothing is copied into the repository); every level-2 value must be
within 0.2 point of what perf printed (expected_metrics.json). Bad input must exit 2
with the file and the line in the message. Skips while `tdprof topdown` is not built.
"""
import json
import os
import re
import tempfile

import tdp

FIXTURES = os.path.join(tdp.SOURCE_ROOT, "tests", "data", "import")

# AMD's PipelineL2 metric names in design.md's shared level-2 vocabulary.
AMD_L2 = {
    "frontend_bound_latency": ("frontend_bound", "fetch_latency"),
    "frontend_bound_bandwidth": ("frontend_bound", "fetch_bandwidth"),
    "bad_speculation_mispredicts": ("bad_speculation", "branch_mispredicts"),
    "bad_speculation_pipeline_restarts": ("bad_speculation", "machine_clears"),
    "backend_bound_memory": ("backend_bound", "memory_bound"),
    "backend_bound_cpu": ("backend_bound", "core_bound"),
    "retiring_fastpath": ("retiring", "light_operations"),
    "retiring_microcode": ("retiring", "heavy_operations"),
}


def need_topdown():
    r = tdp.run("topdown", "--help")
    if r.code != 0:
        raise tdp.Skip("'tdprof topdown' is not in this build yet (its --import reads src/import)")


def pipeline_l2_runs(md_text):
    """The `perf stat -MPipelineL2` runs of an .md file: each from its `$ perf stat`
    line to the next `$ ` line or the end of its fenced block."""
    runs, cur, fence = [], None, False
    for line in md_text.split("\n"):
        if line.startswith("```"):
            if cur is not None:
                runs.append(cur)
                cur = None
            fence = not fence
            continue
        if not fence:
            continue
        if line.startswith("$ "):
            if cur is not None:
                runs.append(cur)
            cur = [] if line.startswith("$ perf stat -MPipelineL2") else None
            continue
        if cur is not None:
            cur.append(line)
    return ["\n".join(r) + "\n" for r in runs if any("Performance counter stats" in l for l in r)]


def test_zen4_pipeline_l2_text():
    need_topdown()
    base = tdp.shared("counters", "amd-zen4-kinematics")
    expected = json.load(open(os.path.join(base, "expected_metrics.json")))
    checked = 0
    with tempfile.TemporaryDirectory() as d:
        for md in sorted(f for f in os.listdir(base) if f.endswith(".md")):
            runs = pipeline_l2_runs(open(os.path.join(base, md), encoding="utf-8").read())
            entries = [e for e in expected if e["file"] == md]
            tdp.check(len(runs) * 8 == len(entries), "%s: %d runs for %d entries" % (md, len(runs), len(entries)))
            for k, text in enumerate(runs):
                path = os.path.join(d, "%s-%d.txt" % (md[:-3], k))
                with open(path, "w") as f:
                    f.write(text)
                r = tdp.run("topdown", "--import", path, "--cpu", "zen4", "-l", "2", "--json")
                tdp.expect_exit(r, 0)
                doc = r.json()
                tdp.check(doc.get("backend") == "import", "backend is import", r)
                for e in entries[8 * k:8 * k + 8]:
                    parent, node = AMD_L2[e["metric"]]
                    got = doc["level2"][parent][node]
                    tdp.check(got is not None and abs(got - e["printed_pct"]) <= 0.2,
                              "%s run %d: %s.%s = %r, perf printed %.1f" % (md, k, parent, node, got,
                                                                            e["printed_pct"]), r)
                    checked += 1
    tdp.check(checked == len(expected), "all %d metrics checked (%d)" % (len(expected), checked))


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def test_bad_input_names_file_and_line():
    need_topdown()
    with tempfile.TemporaryDirectory() as d:
        cases = [
            ("cut.csv", "1000,,cycles,100,100.00,,\n2000,,instructions,100,100.00,,\n30,,bran\n",
             "'%s': line 3: 'bran' has no run time and running percentage"),
            ("pct.csv", "1000,,cycles,100,150.00,,\n", "'%s': line 1: running percentage '150.00'"),
            ("bad.json", '{"counter-value" : "1", "event" : "cycles"}\n{"counter-value" : "2\n',
             "'%s': line 2: not a perf stat -j object"),
            ("bad.txt", " Performance counter stats for './a':\n\n     1,000      cycles\n  12x  instructions\n",
             "'%s': line 4:"),
            ("empty.txt", "\n\n", "'%s' is empty"),
            ("prose.txt", "this is not\nperf output at all\n", "'%s' is not perf stat output"),
        ]
        for name, text, message in cases:
            path = write(d, name, text)
            r = tdp.run("topdown", "--import", path, "--cpu", "zen4")
            tdp.expect_exit(r, 2)
            tdp.expect_in(message % path, r.err, "stderr", r)
            tdp.check(r.err.startswith("tdprof: error: "), "an error line", r)


def test_two_runs_in_one_file():
    need_topdown()
    with tempfile.TemporaryDirectory() as d:
        one = " Performance counter stats for './a':\n\n     1,000      cycles\n"
        path = write(d, "two.txt", one + "\n" + one)
        r = tdp.run("topdown", "--import", path, "--cpu", "zen4")
        tdp.expect_exit(r, 2)
        tdp.expect_in("a second 'Performance counter stats' block", r.err, "stderr", r)
        tdp.expect_in("tdprof: hint: import one perf stat run per file", r.err, "stderr", r)


def test_missing_file():
    need_topdown()
    r = tdp.run("topdown", "--import", "/nonexistent/perf-stat.csv", "--cpu", "zen4")
    tdp.expect_exit(r, 2)
    tdp.expect_in("/nonexistent/perf-stat.csv", r.err, "stderr", r)


def test_fixtures_are_read():
    """Every committed fixture imports (software events only: the model may then
    find nothing to compute, but the input itself must not be refused as bad)."""
    need_topdown()
    for name in sorted(os.listdir(FIXTURES)):
        if name == "README.md":
            continue
        r = tdp.run("topdown", "--import", os.path.join(FIXTURES, name), "--cpu", "zen4")
        tdp.check(not re.search(r"line \d+:", r.err), "%s: no parse error" % name, r)


tdp.main(globals())
