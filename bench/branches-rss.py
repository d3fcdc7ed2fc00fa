#!/usr/bin/env python3
"""Peak RSS of `tdprof branches report` at any load (issue 21, deliverable 1).

    bench/branches-rss.py [--build DIR] [--work DIR] [--sizes 200000,1000000,5000000] [--runs N]

1. Makes perf.data files of SIZES samples x 32 LBR entries by repeating the 13 samples
   of ../shared/data/perfdata/perf.data.branch-4.14 (bench/gen-big-perfdata; 163 MB,
   816 MB and 4.1 GB), in --work (default: a temporary directory, removed at the end).
2. For each size, quiet and then with two CPU hogs (child processes spinning, one per
   CPU of this 2-CPU machine, killed before the next condition), runs
       tdprof branches report -i FILE            (unpinned)
       taskset -c 0 tdprof branches report -i FILE  (pinned to CPU 0)
   alternately, N times each, with stdout to /dev/null, and takes each child's peak RSS
   (os.wait4's ru_maxrss) and CPU time. The file pages are warm in the page cache
   (one untimed run first), so the figure is the window of the mapping, not I/O.
3. Prints one line per (size, load, pinning): median and largest peak RSS, median CPU
   time, the load average before the condition. Exit 1 when any run's peak RSS passes
   LIMIT_MIB (64 MiB plus the aggregation tables, which are under 1 MiB for this input:
   its 13 samples repeated have a few hundred distinct edges).
Peak RSS is a memory figure that depends on the scheduling: it is benchmarked here, never
asserted in a test.
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
SHARED = os.environ.get("TDPROF_SHARED_DATA") or os.path.join(ROOT, "..", "shared", "data")
LIMIT_MIB = 65


def run_child(argv):
    """(peak RSS KiB, cpu s, wall s) of argv, stdout to /dev/null."""
    wall, cpu, rss = benchlib.measure_ok(argv)
    return rss, cpu, wall


def start_hogs(n):
    """n processes that spin until killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def stop_hogs(hogs):
    for h in hogs:
        h.kill()
    for h in hogs:
        h.wait()


def load():
    return "%.2f %.2f %.2f" % os.getloadavg()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work")
    ap.add_argument("--sizes", default="200000,1000000,5000000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--hogs", type=int, default=2)
    a = ap.parse_args()
    src = os.path.join(SHARED, "perfdata", "perf.data.branch-4.14")
    if not os.path.exists(src):
        print("skip: %s is absent" % src)
        return 0
    tdprof = os.path.join(a.build, "tdprof")
    gen = os.path.join(a.build, "bench", "gen-big-perfdata")
    work = a.work or tempfile.mkdtemp(prefix="tdprof-rss-")
    os.makedirs(work, exist_ok=True)
    ok = True
    print("machine: %s, %d CPUs; tdprof %s; %d runs per line" % (os.uname().release, os.cpu_count(), tdprof,
                                                                   a.runs))
    print("| samples | file | load | pinned | peak RSS median | peak RSS max | CPU median | load avg before |")
    print("|---:|---:|---|---|---:|---:|---:|---|")
    try:
        for n in [int(x) for x in a.sizes.split(",")]:
            path = os.path.join(work, "big-%d.data" % n)
            if not os.path.exists(path):
                subprocess.run([gen, src, path, str(n)], check=True, stdout=subprocess.DEVNULL)
            size = os.path.getsize(path)
            cmd = [tdprof, "branches", "report", "-i", path]
            run_child(cmd)  # warm the page cache
            for hogs in (0, a.hogs):
                before = load()
                hp = start_hogs(hogs)
                try:
                    res = {False: [], True: []}
                    for _ in range(a.runs):
                        for pinned in (False, True):
                            res[pinned].append(run_child((["taskset", "-c", "0"] if pinned else []) + cmd))
                finally:
                    stop_hogs(hp)
                for pinned in (False, True):
                    rss = [r[0] / 1024 for r in res[pinned]]
                    ok &= max(rss) <= LIMIT_MIB
                    print("| %d | %.0f MB | %s | %s | %.1f MiB | %.1f MiB | %.2f s | %s |" % (
                        n, size / 1e6, "%d hogs" % hogs if hogs else "no hogs", "yes" if pinned else "no",
                        statistics.median(rss), max(rss), statistics.median(r[1] for r in res[pinned]), before),
                        flush=True)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print("load average at the end: %s; limit %d MiB: %s" % (load(), LIMIT_MIB, "met" if ok else "MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
