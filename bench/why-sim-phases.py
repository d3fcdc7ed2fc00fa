#!/usr/bin/env python3
"""Where the wall time of `tdprof why --backend=sim` goes, phase by phase (issue 19, Performance).

Uprobes on tdprof's functions (perf probe: root, a kernel with uprobes) and the scheduler's exec
and exit events of its children give, per run:
  start-up   tdprof starts -> valgrind starts
  tool       valgrind starts -> valgrind exits (the simulation itself)
  reap       valgrind exits -> tdprof starts parsing its cost files (the kernel tearing valgrind down)
  parse      the cost files parsed (sim_callgrind_parse), then the run's directory removed
  blocks     the core model before llvm-mca: hot blocks found, decoded, load flags, llvm-mca's input
  llvm-mca   llvm-mca's runs (loop_spawn / loop_spawn_many), from the first start to the last end
  model      the rest of simcore_model() and the estimate (sim_estimate_core[_keep](): the sites)
  diagnosis  diag_from_sim()
  output     the document rendered, tdprof exits
Medians of --rounds runs per workload; several TDPROF binaries (e.g. before and after a change)
are run interleaved, so that they see the same machine load.

usage: sudo bench/why-sim-phases.py [--rounds N] [--workload NAME]... TDPROF [TDPROF...]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

WORKLOADS = {"branch": ("branch", []), "branch-sorted": ("branch", ["sorted"]), "interp": ("interp", []),
             "chase": ("chase", []), "bigcode": ("bigcode", []), "arith": ("arith", [])}
FUNCS = ["main", "sim_callgrind_parse", "sim_run", "simcore_model", "loop_spawn", "loop_spawn_many",
         "sim_estimate_core", "sim_estimate_core_keep", "diag_from_sim"]
PHASES = ["start-up", "tool", "reap", "parse", "blocks", "llvm-mca", "model", "diagnosis", "output", "total"]


def perf(*args, check=True):
    p = subprocess.run(["perf"] + list(args), capture_output=True, text=True)
    if check and p.returncode:
        sys.exit("why-sim-phases: perf %s: %s" % (" ".join(args), p.stderr.strip()))
    return p


def add_probes(tdprof):
    perf("probe", "-q", "-d", "probe_tdprof*:*", check=False)
    group = "probe_tdprof"
    for f in FUNCS:
        for suffix in ("", "%return"):
            perf("probe", "-q", "-x", tdprof, "--add", f + suffix, check=False)
    listed = perf("probe", "-l").stdout
    if "main" not in listed:
        sys.exit("why-sim-phases: no uprobe could be added on %s (root, and a kernel with uprobes, are needed)"
                 % tdprof)
    return group


def one_run(tdprof, exe, args, tmp):
    data = os.path.join(tmp, "perf.data")
    out = os.path.join(tmp, "why.json")
    perf("record", "-q", "-o", data, "-e", "probe_tdprof:*", "-e", "sched:sched_process_exec",
         "-e", "sched:sched_process_exit", "--", tdprof, "why", "--backend=sim", "--json", "-o", out, "--", exe,
         *args)
    text = perf("script", "-i", data, "-F", "pid,time,event,trace").stdout
    ev = []
    for line in text.splitlines():
        m = re.match(r"\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)", line)
        if m:
            ev.append((int(m.group(1)), float(m.group(2)) * 1e3, m.group(3).replace("probe_tdprof:", ""),
                       m.group(4)))
    t0 = ev[0][1]
    me = ev[0][0]

    def first(name, pid=None):
        return next(t for p, t, e, _ in ev if e == name and (pid is None or p == pid))

    def last(name, pid=None):
        return [t for p, t, e, _ in ev if e == name and (pid is None or p == pid)][-1]

    vg = next(p for p, t, e, r in ev if e == "sched:sched_process_exec" and "valgrind" in r)
    vg_start = first("sched:sched_process_exec", vg)
    vg_end = last("sched:sched_process_exit", vg)
    spawn = [t for p, t, e, _ in ev if e in ("loop_spawn", "loop_spawn_many") and p == me]
    spawned = [t for p, t, e, _ in ev if e in ("loop_spawn__return", "loop_spawn_many__return") and p == me]
    core_in, core_out = first("simcore_model", me), first("simcore_model__return", me)
    est = "sim_estimate_core_keep" if any(e == "sim_estimate_core_keep" for _, _, e, _ in ev) else "sim_estimate_core"
    ph = {
        "start-up": vg_start - t0,
        "tool": vg_end - vg_start,
        "reap": first("sim_callgrind_parse", me) - vg_end,
        "parse": first("sim_run__return", me) - first("sim_callgrind_parse", me),
        "blocks": (min(spawn) if spawn else core_out) - core_in,
        "llvm-mca": (max(spawned) - min(spawn)) if spawn else 0.0,
        "model": (core_out - (max(spawned) if spawned else core_out)) +
                 (first(est + "__return", me) - first(est, me)),
        "diagnosis": first("diag_from_sim__return", me) - first("diag_from_sim", me),
        "output": last("sched:sched_process_exit", me) - first("diag_from_sim__return", me),
        "total": last("sched:sched_process_exit", me) - t0,
    }
    return ph


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default="build", help="where the demos are (BUILD/examples)")
    ap.add_argument("--workload", action="append", choices=sorted(WORKLOADS))
    ap.add_argument("tdprof", nargs="+")
    a = ap.parse_args()
    names = a.workload or list(WORKLOADS)
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for r in range(a.rounds):
                for name in names:
                    d, args = WORKLOADS[name]
                    exe = os.path.join(a.build, "examples", d, "demo-" + d)
                    for td in a.tdprof:
                        add_probes(os.path.abspath(td))  # probes are per binary: one set at a time
                        res.setdefault((name, td), []).append(one_run(os.path.abspath(td), exe, args, tmp))
        finally:
            perf("probe", "-q", "-d", "probe_tdprof*:*", check=False)
    print("load average %.1f %.1f %.1f; medians of %d runs, ms" % (*os.getloadavg(), a.rounds))
    print("%-14s %-28s" % ("workload", "tdprof") + "".join("%10s" % p for p in PHASES))
    for name in names:
        for td in a.tdprof:
            runs = res[(name, td)]
            print("%-14s %-28s" % (name, td[-28:]) +
                  "".join("%10.1f" % statistics.median(r[p] for r in runs) for p in PHASES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
