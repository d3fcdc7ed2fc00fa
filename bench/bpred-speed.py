#!/usr/bin/env python3
"""sim/bpred's cost in instructions per branch (issue 19 item 6: the predictor runs inside
tdprof's valgrind tool for every branch the workload executes).

Each program below is built static and non-PIE with the demos' flags and traced once with
valgrind lackey (as bench/bpred-accuracy.py does); the first --lines superblocks of each trace
make the fixed input. Then, per preset and per bpred-replay binary, callgrind runs bpred-replay
on that input collecting only inside the predictor's entry points (--toggle-collect), once for
bpred_cond alone and once for every bpred_* call. Ir divided by the branches replayed gives
instructions per conditional branch and per branch of any kind (an indirect call counts once:
bpred_indirect and bpred_call together). Instruction counts are deterministic: load changes
only the run time.

  bench/bpred-speed.py [--replay PATH[=LABEL]]... [--presets skylake,zen4] [--lines N] [--write]

Without --replay: BUILD/bench/bpred-replay. To compare with an older predictor, build its
bpred-replay by hand, e.g. from a checkout of the old commit:
  cc -O2 -g -Isrc -o /tmp/replay-old bench/bpred-replay.c src/sim/bpred.c src/sim/bpred-presets.c \\
     -lcapstone -lelf
(-O2 -g: the build's debugoptimized flags).
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
# Programs that issue 19's other changes leave alone (the demos' data changed with the
# predictor work, so they are not a fixed input): (name, source, arguments)
PROGRAMS = [
    ("kernel random", "bench/bpred/kernels.c", ["random"]),
    ("kernel period32", "bench/bpred/kernels.c", ["period32"]),
    ("kernel trip1000", "bench/bpred/kernels.c", ["trip1000"]),
    ("kernel indirect3", "bench/bpred/kernels.c", ["indirect3"]),
    ("sim/arith", "tests/data/sim/arith.c", []),
    ("sim/chase", "tests/data/sim/chase.c", []),
    ("sim/bigcode", "tests/data/sim/bigcode.c", []),
]
BEGIN = "<!-- bpred-speed.py: begin -->"
END = "<!-- bpred-speed.py: end -->"


def run(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("bpred-speed: %s exited %d\n%s" % (" ".join(argv), p.returncode, p.stderr[-2000:]))
    return p


def trace(exe, args, log, lines):
    full = log + ".full"
    run(["valgrind", "--tool=lackey", "--basic-counts=no", "--trace-superblocks=yes",
         "--vex-guest-chase=no", "--vex-guest-max-insns=50", "--vex-iropt-unroll-thresh=0",
         "--log-file=" + full, exe] + args)
    n = 0
    with open(full) as src, open(log, "w") as dst:
        for line in src:
            if line.startswith("SB "):
                n += 1
                if n > lines:
                    break
            dst.write(line)
    os.unlink(full)


def branches(replay, exe, log, preset):
    """(conditional branches, branches of any kind) the replay feeds to the predictor."""
    out = run([replay, exe, log, preset]).stdout.splitlines()
    head = {k.strip(): v for k, v in re.findall(r"([a-z ]+) (\d+)", out[0])}
    f = out[2].split()
    cond, ind, ret = int(f[1]), int(f[4]), int(f[7])
    return cond, cond + ind + ret + int(head["direct jumps"]) + int(head["direct calls"])


def ir(replay, exe, log, preset, func, tmp):
    out = os.path.join(tmp, "cg.out")
    p = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--toggle-collect=" + func,
             replay, exe, log, preset])
    m = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
    os.unlink(out)
    if not m:
        sys.exit("bpred-speed: no 'Collected' line from callgrind")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--replay", action="append", help="a bpred-replay binary, PATH or PATH=LABEL")
    ap.add_argument("--presets", default="skylake,zen3,zen4")
    ap.add_argument("--lines", type=int, default=1000000, help="superblocks of each trace (default 1,000,000)")
    ap.add_argument("--only", help="one program (its name in the table)")
    ap.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    opt = ap.parse_args()
    replays = []
    for r in opt.replay or [os.path.join(opt.build, "bench", "bpred-replay") + "=this build"]:
        path, _, label = r.partition("=")
        replays.append((path, label or path))
    presets = opt.presets.split(",")
    cc = os.environ.get("CC", "cc")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, src, args in PROGRAMS:
            if opt.only and name != opt.only:
                continue
            exe = os.path.join(tmp, re.sub(r"\W", "_", src))
            if not os.path.exists(exe):
                run([cc] + CFLAGS + ["-o", exe, os.path.join(ROOT, src)])
            log = os.path.join(tmp, re.sub(r"\W", "_", name) + ".log")
            trace(exe, args, log, opt.lines)
            for preset in presets:
                cells = [name, preset]
                for path, _ in replays:
                    cond, allb = branches(path, exe, log, preset)
                    c = ir(path, exe, log, preset, "bpred_cond", tmp)
                    a = ir(path, exe, log, preset, "bpred_*", tmp)
                    cells += ["%.0f" % (c / cond), "%.0f" % (a / allb)]
                cells.insert(2, "{:,}".format(cond))
                cells.insert(3, "{:,}".format(allb))
                rows.append("| " + " | ".join(cells) + " |")
                print(rows[-1], flush=True)
            os.unlink(log)
    head = "| program | preset | cond branches | all branches | " + " | ".join(
        "%s: per cond | %s: per branch" % (l, l) for _, l in replays) + " |"
    text = ["## sim/bpred's cost: instructions per branch (issue 19, item 6)", "",
            "Command: `python3 bench/bpred-speed.py --write%s%s%s`. Machine: %s; load average %s"
            % ("".join(" --replay %s=%s" % (p, l) for p, l in replays) if opt.replay else "",
               " --lines %d" % opt.lines if opt.lines != 1000000 else "",
               " --presets " + opt.presets if opt.presets != "skylake,zen3,zen4" else "",
               benchlib.machine(), open("/proc/loadavg").read().split()[0]),
            "(instruction counts are deterministic: load changes only the run time).", "",
            "Callgrind's Ir inside bpred_cond (\"per cond\") and inside every bpred_* entry point (\"per",
            "branch\": conditional, indirect, call, return and direct jump, an indirect call counted once)",
            "while bench/bpred-replay replays the first %s superblocks of each program's lackey trace," % "{:,}".format(opt.lines),
            "divided by the branches replayed. bpred-replay built -O2 -g (the build's flags).", "",
            head, "|---|---|---:|---:|" + "---:|---:|" * len(replays), *rows]
    print("\n".join(text))
    if opt.write:
        print("written to", benchlib.write_results(BEGIN, END, "\n".join(text)))


if __name__ == "__main__":
    main()
