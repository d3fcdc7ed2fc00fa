#!/usr/bin/env python3
"""sim/bpred's mispredict rates per preset against valgrind's own predictor, on the demos
(issue 19 item 3: "show its accuracy against valgrind's on the demos").

Each program is built static and non-PIE (so that its code, libc included, is at its link
addresses) with the demos' flags, then run twice under valgrind:
- cachegrind --branch-sim=yes: valgrind's own predictor, as tdprof's simulation runs it today;
- cachegrind again with the lackey run's VEX options (no chasing, no loop unrolling): by default
  VEX unrolls small loops and cachegrind then misses some of their branches (a 2-instruction
  loop: half of them), so this is the count to check the replay against;
- lackey --trace-superblocks=yes --vex-guest-chase=no --vex-iropt-unroll-thresh=0: the trace of
  superblocks entered (every one: nothing chased or unrolled), from
  which build/bench/bpred-replay recovers every branch's outcome (capstone decodes each block)
  and replays it through each preset's predictor and through a model of cachegrind's predictor.
The model's counts matching cachegrind's measured ones is the check that the outcomes were
recovered faithfully. Rates are mispredicted/executed branches of each kind; conditional
rates count every conditional branch of the run (libc's too), as cachegrind does.

usage: bench/bpred-accuracy.py [--build BUILD] [--only NAME] [--write]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CFLAGS = ["-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-fno-tree-vectorize",
          "-static", "-no-pie"]
# (name, source, arguments)
PROGRAMS = [
    ("examples/branch", "examples/branch/branch.c", []),
    ("examples/branch sorted", "examples/branch/branch.c", ["sorted"]),
    ("examples/interp", "examples/interp/interp.c", []),
    ("sim/branch random", "tests/data/sim/branch.c", ["random"]),
    ("sim/branch sorted", "tests/data/sim/branch.c", ["sorted"]),
    ("sim/interp", "tests/data/sim/interp.c", []),
    ("sim/arith", "tests/data/sim/arith.c", []),
    ("sim/chase", "tests/data/sim/chase.c", []),
    ("sim/bigcode", "tests/data/sim/bigcode.c", []),
    ("kernel every4", "bench/bpred/kernels.c", ["every4"]),
    ("kernel period32", "bench/bpred/kernels.c", ["period32"]),
    ("kernel trip1000", "bench/bpred/kernels.c", ["trip1000"]),
    ("kernel indirect3", "bench/bpred/kernels.c", ["indirect3"]),
    ("kernel random", "bench/bpred/kernels.c", ["random"]),
]
SHOWN = ["skylake", "zen3", "icelake-server", "zen4"]  # alderlake and generic: zen4's tables
BEGIN = "<!-- bpred-accuracy.py: begin -->"
END = "<!-- bpred-accuracy.py: end -->"


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bpred-accuracy: %s exited %d\n%s" % (" ".join(argv), p.returncode, p.stderr[-2000:]))
    return p


def cachegrind(exe, args, exact):
    """valgrind's predictor as measured: (cond, cond miss, ind, ind miss). exact: with the
    VEX options of the lackey run (no chasing, no unrolling), else as tdprof runs it."""
    vex = ["--vex-guest-chase=no", "--vex-iropt-unroll-thresh=0"] if exact else []
    p = run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
             "--cachegrind-out-file=/dev/null"] + vex + [exe] + args)
    num = lambda s: int(s.replace(",", ""))
    b = re.search(r"Branches:\s+[\d,]+\s+\(\s*([\d,]+) cond \+\s*([\d,]+) ind\)", p.stderr)
    m = re.search(r"Mispredicts:\s+[\d,]+\s+\(\s*([\d,]+) cond \+\s*([\d,]+) ind\)", p.stderr)
    if not b or not m:
        sys.exit("bpred-accuracy: no branch summary from cachegrind on %s" % exe)
    return num(b.group(1)), num(m.group(1)), num(b.group(2)), num(m.group(2))


def replay(build, exe, args, tmp):
    """{model: (cond, miss, ind, miss, ret, miss)} and the header line of bpred-replay."""
    log = os.path.join(tmp, "lackey.log")
    run(["valgrind", "--tool=lackey", "--basic-counts=no", "--trace-superblocks=yes",
         "--vex-guest-chase=no", "--vex-guest-max-insns=50", "--vex-iropt-unroll-thresh=0",
         "--log-file=" + log, exe] + args)
    out = run([os.path.join(build, "bench", "bpred-replay"), exe, log]).stdout.splitlines()
    os.unlink(log)
    rows = {}
    for line in out[2:]:
        f = line.split()
        ret = (int(f[7]), int(f[8])) if f[7] != "-" else (0, 0)
        rows[f[0]] = (int(f[1]), int(f[2]), int(f[4]), int(f[5])) + ret
    return rows, out[0]


def pct(a, b):
    return "%.2f" % (100.0 * a / b) if b else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--only", help="one program (its name in the table)")
    ap.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    opt = ap.parse_args()
    cc = os.environ.get("CC", "cc")
    lines = ["| program | cond branches | valgrind as tdprof runs it | valgrind, same VEX options | its model, replayed | "
             + " | ".join(SHOWN) + " | indirect: valgrind | indirect: zen4 | returns: zen4 |",
             "|---|---:|---:|---:|---:|" + "---:|" * len(SHOWN) + "---:|---:|---:|"]
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, src, args in PROGRAMS:
            if opt.only and name != opt.only:
                continue
            exe = os.path.join(tmp, re.sub(r"\W", "_", src))
            if not os.path.exists(exe):
                run([cc] + CFLAGS + ["-o", exe, os.path.join(ROOT, src)])
            cg = cachegrind(exe, args, False)
            cgx = cachegrind(exe, args, True)
            rows, head = replay(opt.build, exe, args, tmp)
            model = rows["cachegrind-model"]
            z = rows["zen4"]
            cells = [name, "{:,}".format(model[0]), "%s of %s" % (pct(cg[1], cg[0]), "{:,}".format(cg[0])),
                     "%s of %s" % (pct(cgx[1], cgx[0]), "{:,}".format(cgx[0])), pct(model[1], model[0])]
            cells += [pct(rows[p][1], rows[p][0]) for p in SHOWN]
            cells += ["%s of %s" % (pct(cg[3], cg[2]), "{:,}".format(cg[2])),
                      pct(z[3], z[2]), "%s of %s" % (pct(z[5], z[4]), "{:,}".format(z[4]))]
            lines.append("| " + " | ".join(cells) + " |")
            notes.append("%s: %s" % (name, head))
            print(lines[-1], flush=True)
    text = ["## sim/bpred against valgrind's branch predictor, on the demos (issue 19, item 3)", "",
            "Command: `python3 bench/bpred-accuracy.py --write` (%s). Machine: %s; load average %s"
            % (os.path.basename(opt.build), benchlib.machine(), open("/proc/loadavg").read().split()[0]),
            "(the rates are deterministic: load changes only the run time).", "",
            "Mispredict rates in % of the executed branches of each kind over the whole run (libc's too, as",
            "cachegrind counts). \"valgrind as tdprof runs it\": cachegrind --branch-sim=yes with default VEX",
            "options, what the simulation uses today; \"same VEX options\": cachegrind without chasing or loop",
            "unrolling, as the lackey trace is taken; \"its model, replayed\": bpred-replay's model of",
            "cachegrind's predictor on the recovered outcomes (it matching the column before it checks the",
            "recovery). Then sim/bpred per preset (alderlake and generic have zen4's tables). Programs are",
            "built static with the demos' flags (`-O1 -fno-if-conversion ...`); kernels are bench/bpred/kernels.c.",
            "", *lines, "", "Replay coverage (bpred-replay's first line per program):", ""]
    text += ["- " + n for n in notes]
    print("\n".join(text))
    if opt.write:
        print("written to", benchlib.write_results(BEGIN, END, "\n".join(text)))


if __name__ == "__main__":
    main()
