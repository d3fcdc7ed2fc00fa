#!/usr/bin/env python3
"""Start-up cost of `tdprof stat` against `perf stat` (issue 2, Performance).

Runs `tdprof stat -e task-clock -- /bin/true` and `perf stat -e task-clock --
/bin/true` interleaved (one of each per round, N rounds, default 30), each spawned
with posix_spawn and its output sent to /dev/null, and reports the median wall
time of each, their ratio (the target is <= 0.2), and /bin/true alone for scale.

usage: bench/stat-startup.py [--tdprof PATH] [--perf PATH] [--runs N] [--json]
exit status: 0 when the ratio is within the target, 1 when not, 2 on error.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

TARGET_RATIO = 0.2


def spawn_wall(argv):
    """Wall time in seconds of one run of argv (stdout and stderr to /dev/null)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        t1 = time.perf_counter()
    finally:
        os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s exited with %d" % (" ".join(argv), os.waitstatus_to_exitcode(status)))
    return t1 - t0


def which(name):
    for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return None


def machine():
    return {"cpu": benchlib.cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release(),
            "loadavg": [round(x, 2) for x in os.getloadavg()]}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tdprof", default=os.path.join(here, "..", "build", "tdprof"))
    ap.add_argument("--perf", default=which("perf"))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    a = ap.parse_args()
    if not a.perf:
        print("stat-startup: perf not found", file=sys.stderr)
        return 2
    tdprof = [os.path.abspath(a.tdprof), "stat", "-e", "task-clock", "--", "/bin/true"]
    perf = [a.perf, "stat", "-e", "task-clock", "--", "/bin/true"]
    true = ["/bin/true"]
    times = {"tdprof": [], "perf": [], "true": []}
    try:
        for argv in (tdprof, perf, true):  # warm the page cache once
            spawn_wall(argv)
        for _ in range(a.runs):
            times["tdprof"].append(spawn_wall(tdprof))
            times["perf"].append(spawn_wall(perf))
            times["true"].append(spawn_wall(true))
    except (OSError, RuntimeError) as e:
        print("stat-startup: %s" % e, file=sys.stderr)
        return 2
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["tdprof"] / med["perf"]
    res = {"command": " ".join(tdprof[1:]), "runs": a.runs, "machine": machine(),
           "median_ms": {k: round(v * 1e3, 3) for k, v in med.items()},
           "min_ms": {k: round(min(v) * 1e3, 3) for k, v in times.items()},
           "ratio": round(ratio, 3), "target": TARGET_RATIO, "ok": ratio <= TARGET_RATIO}
    if a.json:
        print(json.dumps(res, indent=2))
    else:
        m = res["machine"]
        print("machine: %s, %d CPUs, kernel %s, load %s" % (m["cpu"], m["cpus"], m["kernel"], m["loadavg"]))
        print("%d interleaved runs each, wall time, median (min):" % a.runs)
        for k, label in (("tdprof", "tdprof stat -e task-clock -- /bin/true"),
                         ("perf", "perf stat -e task-clock -- /bin/true"),
                         ("true", "/bin/true alone")):
            print("  %-40s %8.3f ms (%.3f)" % (label, res["median_ms"][k], res["min_ms"][k]))
        print("ratio tdprof/perf: %.3f (target <= %.1f): %s" % (ratio, TARGET_RATIO, "ok" if res["ok"] else "MISSED"))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
