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

usage: bench/bpred-accuracy.py [--build BUILD] [--only NAME] [--compare OLD_REPLAY] [--write]

OLD_REPLAY: bench/bpred-replay built from an older commit, e.g.
  git archive OLD src/sim bench/bpred-replay.c | tar -x -C /tmp/old && cd /tmp/old &&
  cc -O2 -g -Isrc -o /tmp/replay-OLD bench/bpred-replay.c src/sim/bpred.c src/sim/bpred-presets.c -lcapstone -lelf
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
CXX_FLAGS = ["-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-static", "-no-pie"]
# The one branch of each workload that must look random, for the second table: (name, source,
# arguments, marker on its line, "cond" or "ind", flags).
SITES = [
    ("examples/branch", "examples/branch/branch.c", [], "tdprof-demo: MISPREDICT", "cond", CFLAGS),
    ("examples/interp", "examples/interp/interp.c", [], "tdprof-demo: DISPATCH", "ind", CFLAGS),
    ("sim/branch random", "tests/data/sim/branch.c", ["random"], "BRANCH-LINE", "cond", CFLAGS),
    ("sim/interp", "tests/data/sim/interp.c", [], "DISPATCH-LINE", "ind", CFLAGS),
    ("wl-twofn", "tests/e2e/workloads/wl-twofn.c", [], "random: mispredicted", "cond", CFLAGS),
    ("wl-sortfix", "tests/e2e/workloads/wl-sortfix.c", [], "SORTFIX-BRANCH", "cond", CFLAGS),
    ("wl-filter", "tests/e2e/workloads/wl-filter.cpp", [], "MULTI-BRANCH LINE", "cond", CXX_FLAGS),
    ("wl-annot", "tests/e2e/workloads/wl-annot.cpp", [], "HOT BRANCH", "cond", CXX_FLAGS),
    ("wl-vcall", "tests/e2e/workloads/wl-vcall.cpp", [], "VCALL-LINE", "ind", CXX_FLAGS),
    ("diff/bad/parse", "tests/data/diff/bad/parse.c", [], "tdprof-diff: HOT", "cond", CFLAGS),
]
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


def replay(replays, exe, args, tmp):
    """Per bpred-replay binary: {model: (cond, miss, ind, miss, ret, miss)} and its header line,
    all on one lackey trace."""
    log = os.path.join(tmp, "lackey.log")
    run(["valgrind", "--tool=lackey", "--basic-counts=no", "--trace-superblocks=yes",
         "--vex-guest-chase=no", "--vex-guest-max-insns=50", "--vex-iropt-unroll-thresh=0",
         "--log-file=" + log, exe] + args)
    res = []
    for binary in replays:
        out = run([binary, exe, log]).stdout.splitlines()
        rows = {}
        for line in out[2:]:
            f = line.split()
            if len(f) < 9 or f[0] == "site":
                continue
            ret = (int(f[7]), int(f[8])) if f[7] != "-" else (0, 0)
            rows[f[0]] = (int(f[1]), int(f[2]), int(f[4]), int(f[5])) + ret
        res.append((rows, out[0]))
    os.unlink(log)
    return res


def pct(a, b):
    return "%.2f" % (100.0 * a / b) if b else "-"


def marker_line(path, marker):
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    sys.exit("bpred-accuracy: no '%s' in %s" % (marker, path))


def site_addresses(exe, src, line, kind):
    """The conditional (kind "cond") or indirect ("ind") jumps and calls objdump -l places on
    src:line (a line may hold several: the replay keeps the most mispredicted)."""
    out = run(["objdump", "-d", "-l", "--no-show-raw-insn", exe]).stdout
    name, cur, found = os.path.basename(src), False, []
    for l in out.splitlines():
        m = re.match(r"^/\S*/([^/:]+):(\d+)", l)
        if m:
            cur = m.group(1) == name and int(m.group(2)) == line
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", l)
        if not cur or not m:
            continue
        mn, ops = m.group(2), m.group(3)
        if (kind == "cond" and mn.startswith("j") and mn != "jmp") or \
           (kind == "ind" and mn in ("jmp", "call") and "*" in ops):
            found.append(m.group(1))
    if not found:
        sys.exit("bpred-accuracy: no %s jump at %s:%d in %s" % (kind, src, line, exe))
    return found


def cachegrind_line(exe, args, src, line, tmp):
    """valgrind's own predictor at src:line, as tdprof runs it: (executed, mispredicted) of the
    conditional and of the indirect branches there."""
    out = os.path.join(tmp, "cg.out")
    run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
         "--cachegrind-out-file=" + out, exe] + args)
    events, fl, tot = [], None, [0, 0, 0, 0]
    with open(out) as f:
        for l in f:
            if l.startswith("events:"):
                events = l.split()[1:]
            elif l.startswith("fl="):
                fl = l[3:].strip()
            elif l[:1].isdigit() and fl and os.path.basename(fl) == os.path.basename(src):
                v = l.split()
                if int(v[0]) == line:
                    for k, e in enumerate(("Bc", "Bcm", "Bi", "Bim")):
                        tot[k] += int(v[1 + events.index(e)]) if len(v) > 1 + events.index(e) else 0
    os.unlink(out)
    return tot


def site_rows(opt, tmp):
    """The second table: each workload's random branch, its rate per model."""
    cc, cxx = os.environ.get("CC", "cc"), os.environ.get("CXX", "c++")
    rows = []
    for name, src, args, marker, kind, flags in SITES:
        if opt.only and name != opt.only:
            continue
        path = os.path.join(ROOT, src)
        exe = os.path.join(tmp, re.sub(r"\W", "_", src))
        run([cxx if src.endswith(".cpp") else cc] + flags + ["-o", exe, path])
        line = marker_line(path, marker)
        cg = cachegrind_line(exe, args, src, line, tmp)
        log = os.path.join(tmp, "lackey.log")
        run(["valgrind", "--tool=lackey", "--basic-counts=no", "--trace-superblocks=yes",
             "--vex-guest-chase=no", "--vex-guest-max-insns=50", "--vex-iropt-unroll-thresh=0",
             "--log-file=" + log, exe] + args)
        site = None
        for addr in site_addresses(exe, src, line, kind):
            out = run([os.path.join(opt.build, "bench", "bpred-replay"), exe, log, "-s", addr]).stdout
            this = {}
            for l in out.splitlines():
                f = l.split()
                if f and f[0] == "site":
                    this[f[2]] = (int(f[4]), int(f[6])) if kind == "cond" else (int(f[8]), int(f[10]))
            if site is None or this["cachegrind-model"][1] > site["cachegrind-model"][1]:
                site = this
        os.unlink(log)
        execs = site["cachegrind-model"][0]
        cells = [name, "%s:%d (%s)" % (os.path.basename(src), line, "conditional" if kind == "cond" else "indirect"),
                 "{:,}".format(execs), pct(cg[1], cg[0]) if kind == "cond" else pct(cg[3], cg[2]),
                 pct(*reversed(site["cachegrind-model"]))]
        cells += [pct(site[p][1], site[p][0]) for p in SHOWN]
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--only", help="one program (its name in the table)")
    ap.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    ap.add_argument("--compare", metavar="REPLAY",
                    help="an older build's bpred-replay: a before/after table of the predictor's rates")
    opt = ap.parse_args()
    replays = [os.path.join(opt.build, "bench", "bpred-replay")] + ([opt.compare] if opt.compare else [])
    versus = []
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
            res = replay(replays, exe, args, tmp)
            rows, head = res[0]
            if opt.compare:
                old = res[1][0]
                cells = [name] + ["%s → %s" % (pct(old[p][1], old[p][0]), pct(rows[p][1], rows[p][0])) for p in SHOWN]
                cells += ["%s → %s" % (pct(old["zen4"][3], old["zen4"][2]), pct(rows["zen4"][3], rows["zen4"][2]))]
                versus.append("| " + " | ".join(cells) + " |")
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
        site = site_rows(opt, tmp)
    text = ["## sim/bpred against valgrind's branch predictor, on the demos (issue 19, item 3)", "",
            "Command: `python3 bench/bpred-accuracy.py --write%s` (%s). Machine: %s; load average %s"
            % (" --compare " + opt.compare if opt.compare else "", os.path.basename(opt.build), benchlib.machine(),
               open("/proc/loadavg").read().split()[0]),
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
    text += ["", "The \"random\" branch of each demo and workload alone: mispredicted % of its executions",
             "(cachegrind: its counts at that line, as tdprof runs it; the others replayed). Each must stay near",
             "a coin's rate (conditional: 50 %; an indirect jump among 8 random targets: 87.5 %) on every",
             "preset: a sequence of outcomes that repeats is learnt by heart when it is short enough.", "",
             "| workload | branch | executions | valgrind (cachegrind) | its model, replayed | " + " | ".join(SHOWN) + " |",
             "|---|---|---:|---:|---:|" + "---:|" * len(SHOWN), *site]
    if versus:
        text += ["", "This predictor against the one of `%s` (`--compare`), on the same traces: mispredict" % opt.compare,
                 "rates before → after (conditional branches per preset, then indirect ones on zen4).", "",
                 "| program | " + " | ".join(SHOWN) + " | indirect: zen4 |", "|---|" + "---:|" * (len(SHOWN) + 1),
                 *versus]
    print("\n".join(text))
    if opt.write:
        print("written to", benchlib.write_results(BEGIN, END, "\n".join(text)))


if __name__ == "__main__":
    main()
