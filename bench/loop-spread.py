#!/usr/bin/env python3
"""The hot-loop harness's floor and noise (issues 6 and 21), through `tdprof loop`.

Targets on a machine without a PMU (the clock path), default settings:
  - a kernel of about 1 µs shows a relative spread (MAD/median) under 1 % in at least
    9 of 10 rounds on a quiet machine (issue 21);
  - an empty kernel costs under 2 ns per iteration;
  - at any load, no round reports a negative or null figure while it kept repetitions,
    and the discards add up (issue 21: discarded repetitions are counted, never kept).
Runs each kernel of bench/loop/kernels.c ROUNDS times with `tdprof loop --json -- -O2`
and prints every round's median, min, spread, kept repetitions, discards by cause and
the load average at its start; then, per kernel, how many rounds met the target and how
far the median moved between rounds (max/min - 1). Exit 0 when the targets are met.

usage: bench/loop-spread.py [--build BUILD] [--rounds N] [--kernel NAME ...]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# kernel: (key, limit, share of rounds that must meet it)
TARGETS = {"empty": ("median_ns_per_iteration", 2.0, 1.0), "chain_1us": ("spread_pct", 1.0, 0.9)}


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--kernel", action="append", choices=sorted(TARGETS))
    a = ap.parse_args()
    tdprof = os.path.join(a.build, "tdprof")
    src = os.path.join(HERE, "loop", "kernels.c")
    print("load at start %s; %d rounds; %s" % (load(), a.rounds, os.uname().nodename))
    ok = True
    for fn in a.kernel or list(TARGETS):
        key, limit, share = TARGETS[fn]
        met, medians, impossible = 0, [], 0
        for r in range(a.rounds):
            la = load()
            p = subprocess.run([tdprof, "loop", src, "--function", fn, "--json", "--no-mca", "--", "-O2"],
                               capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                print("%s: tdprof loop failed (%d): %s" % (fn, p.returncode, p.stderr.strip()))
                ok = False
                continue
            d = json.loads(p.stdout)
            disc = d["discarded"]
            figs = [d[k] for k in ("median_ns_per_iteration", "min_ns_per_iteration", "max_ns_per_iteration")]
            bad = d["kept_repetitions"] > 0 and any(v is None or v < 0 for v in figs)
            bad |= sum(disc.values()) != d["remeasured"]
            impossible += bad
            good = d[key] is not None and d[key] < limit
            met += good
            if d["median_ns_per_iteration"] is not None:
                medians.append(d["median_ns_per_iteration"])
            print("%-10s round %2d (load %s): median %9.3f ns  min %9.3f ns  spread %6.3f %%  kept %2d/%d  "
                  "discarded %d (pre %d, mig %d, nonpos %d, incons %d)  N %d  [%s < %g: %s]%s" % (
                      fn, r + 1, la, d["median_ns_per_iteration"] or float("nan"),
                      d["min_ns_per_iteration"] or float("nan"), d["spread_pct"] or float("nan"),
                      d["kept_repetitions"], d["repetitions"], d["remeasured"], disc["preempted"],
                      disc["migrated"], disc["nonpositive"], disc["inconsistent"], d["iterations"], key, limit,
                      "ok" if good else "MISSED", "  IMPOSSIBLE FIGURE" if bad else ""))
        need = share * a.rounds
        moved = (max(medians) / min(medians) - 1) * 100 if len(medians) > 1 and min(medians) > 0 else float("nan")
        print("%-10s %d of %d rounds met %s < %g (target %d); median moved %.2f %% between rounds; "
              "%d impossible figures" % (fn, met, a.rounds, key, limit, need, moved, impossible))
        ok &= met >= need and impossible == 0
    print("load at end %s" % load())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
