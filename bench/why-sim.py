#!/usr/bin/env python3
"""tdprof why --backend=sim against the valgrind run alone (issue 5, Performance; issue 19
added the llvm-mca core model to tdprof's side and tdprof's own valgrind tool, tdpsim).

Target (issue 19 item 6): `tdprof why --backend=sim -- CMD` takes at most 1.5x the wall time
of the valgrind run alone on CMD, on each demo workload of examples/. Two baselines, so the
comparison stays honest now that `why` runs tdprof's own tool where it is built:
  callgrind  `valgrind --tool=callgrind --dump-instr=yes --cache-sim=yes --branch-sim=yes` with
             the generic machine's caches: what `why` ran before the tool (issue 16);
  tdpsim     tdprof's tool alone with the generic machine's options (what `why` runs now),
             loaded through a VALGRIND_LIB made as the runner makes it.
The ratio to callgrind is the target; the ratio to tdpsim is tdprof's own work on top of the
tool. Rounds are interleaved (callgrind, tdpsim, tdprof per workload per round) so all see the
same machine load; the figures are medians.

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
# ... and what the runner passes tdprof's tool for it (docs/sim-machine.md section 1).
TDPSIM = ["--tdp-l1i=32768,8,64", "--tdp-l1d=49152,12,64", "--tdp-l2=1310720,10,64", "--tdp-l3=33554432,16,64",
          "--tdp-latency=5,15,50,400", "--tdp-width=6.000", "--tdp-rob=512", "--tdp-mshr=16",
          "--tdp-bandwidth=48.000,20.000,7.000", "--tdp-btb=8192,8", "--tdp-dsb=512,8,64", "--tdp-prefetch=1,1,2048",
          "--tdp-dep-range=512", "--tdp-machine=generic", "--tdp-bpred=generic"]
VG_LIBS = ["/usr/libexec/valgrind", "/usr/lib/x86_64-linux-gnu/valgrind", "/usr/lib64/valgrind", "/usr/lib/valgrind"]
BEGIN = "<!-- why-sim.py: begin -->"
END = "<!-- why-sim.py: end -->"


def vglib(build, tmp):
    """A VALGRIND_LIB for tdprof's tool, as the runner makes it (src/sim/vglib.c); None when it is not built."""
    tool = os.path.abspath(os.path.join(build, "vgtool", "tdpsim-amd64-linux"))
    sys_lib = next((d for d in VG_LIBS if os.path.exists(os.path.join(d, "vgpreload_core-amd64-linux.so"))), None)
    if not os.access(tool, os.X_OK) or not sys_lib:
        return None
    d = os.path.join(tmp, "vglib")
    os.mkdir(d)
    for f in os.listdir(sys_lib):  # what the runner links: the core's preload objects and the suppressions
        if f.startswith("vgpreload_core-") or f.endswith(".supp"):
            os.symlink(os.path.join(sys_lib, f), os.path.join(d, f))
    os.symlink(tool, os.path.join(d, "tdpsim-amd64-linux"))
    return d


def timed(argv, env=None):
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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
        lib = vglib(a.build, tmp)
        env = dict(os.environ, VALGRIND_LIB=lib) if lib else None
        for name, d, args in WORKLOADS:
            exe = os.path.join(a.build, "examples", d, "demo-" + d)
            vg = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--cache-sim=yes", "--branch-sim=yes"] + \
                 CACHES + ["--trace-children=yes", "--callgrind-out-file=" + out, exe] + args
            td = ["valgrind", "--tool=tdpsim"] + TDPSIM + ["--trace-children=yes", "--vgdb=no",
                                                           "--tdp-out-file=" + os.path.join(tmp, "td.%p"), exe] + args
            why = [tdprof, "why", "--backend=sim", "--json", "-o", os.path.join(tmp, "why.json"), "--", exe] + args
            timed(vg)  # warm-up: page cache, valgrind's own start
            if lib:
                timed(td, env)
            timed(why)
            tv, tt, tw = [], [], []
            for _ in range(a.rounds):
                tv.append(timed(vg))
                if lib:
                    tt.append(timed(td, env))
                tw.append(timed(why))
            mv, mw = statistics.median(tv), statistics.median(tw)
            mt = statistics.median(tt) if tt else float("nan")
            rows.append((name, mv, mt, mw, mw / mv, mw / mt))
            print("%-14s callgrind %6.3f s  tdpsim %6.3f s  tdprof why %6.3f s  why/callgrind %.3f  why/tdpsim %.3f"
                  % (name, mv, mt, mw, mw / mv, mw / mt), flush=True)
    worst = max(r[4] for r in rows)
    worst_t = max(r[5] for r in rows)
    print("worst ratio to callgrind %.3f (target <= 1.5), to tdpsim alone %.3f" % (worst, worst_t))
    if a.write:
        load = os.getloadavg()
        md = [BEGIN, "## tdprof why --backend=sim against the valgrind run alone (issues 5 and 19, Performance)", "",
              "Target: `tdprof why --backend=sim -- CMD` at most **1.5x** the wall time of the valgrind run alone on",
              "CMD. Two baselines: **callgrind** (`valgrind --tool=callgrind --dump-instr=yes --cache-sim=yes",
              "--branch-sim=yes` with the generic machine's `--I1 --D1 --LL`: what `why` ran before tdprof's own",
              "tool) and **tdpsim** (tdprof's tool alone with the generic machine's `--tdp-*` options: what `why`",
              "runs now where the tool is built). `why / tdpsim` is tdprof's own work on top of its tool;",
              "`why / callgrind` is what a user sees against the old run. `--trace-children=yes` everywhere,",
              "median of %d interleaved rounds after one warm-up run of each, on the demo workloads of examples/." % a.rounds,
              "", "Command: `bench/why-sim.py --build BUILD --rounds %d --write bench/RESULTS.md`." % a.rounds, "",
              "Machine: %s, %d CPUs, kernel %s, no hardware PMU (so tdprof simulates); load average "
              "%.1f / %.1f / %.1f when the script ended (other engineers' builds and tests were running: "
              "not quiet); %s." % (platform.machine(), os.cpu_count(), platform.release(), load[0], load[1],
                                   load[2], time.strftime("%Y-%m-%d")), "",
              "| workload | callgrind alone | tdpsim alone | tdprof why --backend=sim | why / callgrind | why / tdpsim |",
              "|---|---:|---:|---:|---:|---:|"]
        for name, mv, mt, mw, r, rt in rows:
            md.append("| %s | %.3f s | %.3f s | %.3f s | %.3f | %.3f |" % (name, mv, mt, mw, r, rt))
        md += ["", "Worst: **%.3f** against callgrind, **%.3f** against tdpsim alone. tdprof's own work (parsing "
               "the cost file, the executable's symbols, DWARF line table and disassembly, the diagnosis, the core "
               "model's decoding and its two llvm-mca runs, at once, docs/sim-machine.md 4b) is the difference "
               "between why and tdpsim (phase by phase: `bench/why-sim-phases.py`, below); the tool's own cost "
               "over callgrind is mostly its TAGE predictor's history updates (docs/sim-machine.md 1b)."
               % (worst, worst_t), END]
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
