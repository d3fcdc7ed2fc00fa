#!/usr/bin/env python3
"""tdprof why --backend=sim against the same valgrind tool alone (issue 5, Performance; issue 19
added the llvm-mca core model to tdprof's side).

Target: `tdprof why --backend=sim -- CMD` takes at most 1.5x the wall time of
`valgrind --tool=callgrind --dump-instr=yes --cache-sim=yes --branch-sim=yes` with the
same cache options on CMD (what `why` runs since issue 16: per-instruction counts tell
the branches of one source line apart; docs/sim-machine.md), on each demo workload of
examples/. The target is tdprof's own work on top of the tool; the tool's own cost over
cachegrind is docs/sim-machine.md's table. Rounds are interleaved (valgrind, then tdprof, per workload per
round) so both see the same machine load; the figures are medians.

usage: bench/why-sim.py [--build BUILD] [--rounds N] [--write bench/RESULTS.md]
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

WORKLOADS = [("branch random", "branch", []), ("branch sorted", "branch", ["sorted"]),
             ("interp", "interp", []), ("chase", "chase", []), ("bigcode", "bigcode", []),
             ("arith", "arith", [])]
# The generic machine's caches (src/sim/machine-presets.c): what tdprof passes.
CACHES = ["--I1=32768,8,64", "--D1=49152,12,64", "--LL=33554432,16,64"]
BEGIN = "<!-- why-sim.py: begin -->"
END = "<!-- why-sim.py: end -->"


def timed(argv):
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("why-sim: %s exited %d" % (" ".join(argv), p.returncode))
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--write", metavar="RESULTS_MD")
    a = ap.parse_args()
    tdprof = os.path.join(a.build, "tdprof")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cl.out.%p")
        for name, d, args in WORKLOADS:
            exe = os.path.join(a.build, "examples", d, "demo-" + d)
            vg = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--cache-sim=yes", "--branch-sim=yes"] + \
                 CACHES + ["--trace-children=yes", "--callgrind-out-file=" + out, exe] + args
            why = [tdprof, "why", "--backend=sim", "--json", "-o", os.path.join(tmp, "why.json"), "--", exe] + args
            timed(vg)  # warm-up: page cache, valgrind's own start
            timed(why)
            tv, tw = [], []
            for _ in range(a.rounds):
                tv.append(timed(vg))
                tw.append(timed(why))
            mv, mw = statistics.median(tv), statistics.median(tw)
            rows.append((name, mv, mw, mw / mv))
            print("%-14s valgrind %6.3f s  tdprof why %6.3f s  ratio %.3f" % (name, mv, mw, mw / mv), flush=True)
    worst = max(r[3] for r in rows)
    print("worst ratio %.3f (target <= 1.5)" % worst)
    if a.write:
        load = os.getloadavg()
        md = [BEGIN, "## tdprof why --backend=sim against valgrind alone (issue 5, Performance)", "",
              "Target: `tdprof why --backend=sim -- CMD` at most **1.5x** the wall time of the same valgrind",
              "tool alone on CMD (`valgrind --tool=callgrind --dump-instr=yes --cache-sim=yes --branch-sim=yes`, what",
              "`why` runs since issue 16, with the",
              "generic machine's `--I1 --D1 --LL`, `--trace-children=yes`), median of %d interleaved rounds" % a.rounds,
              "after one warm-up run of each, on the demo workloads of examples/.", "",
              "Command: `bench/why-sim.py --build BUILD --rounds %d --write bench/RESULTS.md`." % a.rounds, "",
              "Machine: %s, %d CPUs, kernel %s, no hardware PMU (so tdprof simulates); load average "
              "%.1f / %.1f / %.1f when the script ended (other engineers' builds and tests were running: "
              "not quiet); %s." % (platform.machine(), os.cpu_count(), platform.release(), load[0], load[1],
                                   load[2], time.strftime("%Y-%m-%d")), "",
              "| workload | valgrind alone | tdprof why --backend=sim | ratio |", "|---|---:|---:|---:|"]
        for name, mv, mw, r in rows:
            md.append("| %s | %.3f s | %.3f s | %.3f |" % (name, mv, mw, r))
        md += ["", "Worst ratio: **%.3f**. tdprof's own work (parsing the cost file, the executable's symbols, "
               "DWARF line table and disassembly, the diagnosis; since issue 19 the core model too: the hot "
               "blocks decoded and two llvm-mca runs, docs/sim-machine.md 4b) is the difference." % worst, END]
        text = open(a.write).read() if os.path.exists(a.write) else "# Benchmark results\n"
        if BEGIN in text and END in text:
            text = text[:text.index(BEGIN)] + "\n".join(md) + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n" + "\n".join(md) + "\n"
        with open(a.write, "w") as f:
            f.write(text)
    return 0 if worst <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
