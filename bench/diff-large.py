#!/usr/bin/env python3
"""`tdprof diff` of two large branch documents (issue 21, deliverable 4).

    bench/diff-large.py [--build DIR] [--runs N] [--work DIR]

1. Makes two perf.data files whose stacks walk the code of a copy of BUILD/tdprof
   (bench/gen-branch-perfdata, 200,000 and 190,000 samples x 32 entries) and writes
   `tdprof branches report --json --all` of each: about 180 MB and 170 MB of JSON.
2. Runs `tdprof diff A.json B.json` (text) and `... --json` N times each, interleaved,
   stdout to /dev/null, taking each child's wall time, CPU time (user+sys) and peak RSS
   (os.wait4), with the load average before and after.
Targets: under 5 s and 500 MiB per diff. The inputs are warm in the page cache.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def run_child(argv):
    """(wall s, cpu s, peak RSS MiB) of argv."""
    wall, cpu, rss = benchlib.measure_ok(argv)
    return wall, cpu, rss / 1024


def load():
    return "%.2f %.2f %.2f" % os.getloadavg()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work")
    a = ap.parse_args()
    tdprof = os.path.join(a.build, "tdprof")
    gen = os.path.join(a.build, "bench", "gen-branch-perfdata")
    work = a.work or tempfile.mkdtemp(prefix="tdprof-diff-")
    os.makedirs(work, exist_ok=True)
    try:
        binary = os.path.join(work, "tdprof-g")
        shutil.copy(tdprof, binary)
        docs = []
        for name, n in (("a", 200000), ("b", 190000)):
            data, doc = os.path.join(work, name + ".data"), os.path.join(work, name + ".json")
            if not os.path.exists(doc):
                subprocess.run([gen, binary, data, str(n), "32"], check=True, stdout=subprocess.DEVNULL)
                subprocess.run([tdprof, "branches", "report", "-i", data, "--json", "--all", "-o", doc], check=True)
            docs.append(doc)
        print("documents: %s" % ", ".join("%s %.0f MB" % (os.path.basename(d), os.path.getsize(d) / 1e6)
                                          for d in docs))
        cmds = {"text": [tdprof, "diff"] + docs, "json": [tdprof, "diff", "--json"] + docs}
        res = {k: [] for k in cmds}
        before = load()
        for _ in range(a.runs):
            for k, argv in cmds.items():
                res[k].append(run_child(argv))
        after = load()
        ok = True
        print("load average before/after: %s / %s; %d runs each, interleaved" % (before, after, a.runs))
        print("| command | wall median | wall max | CPU median | peak RSS median | peak RSS max |")
        print("|---|---:|---:|---:|---:|---:|")
        for k, v in res.items():
            ok &= max(x[2] for x in v) < 500 and statistics.median(x[0] for x in v) < 5
            print("| `tdprof diff %sA.json B.json` | %.2f s | %.2f s | %.2f s | %.0f MiB | %.0f MiB |" % (
                "--json " if k == "json" else "", statistics.median(x[0] for x in v), max(x[0] for x in v),
                statistics.median(x[1] for x in v), statistics.median(x[2] for x in v), max(x[2] for x in v)))
        print("targets (median under 5 s, every run under 500 MiB): %s" % ("met" if ok else "MISSED"))
        return 0 if ok else 1
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
