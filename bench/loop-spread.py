#!/usr/bin/env python3
"""The hot-loop harness's floor and noise (issue 6, Performance), through `tdprof loop`.

Targets on a machine without a PMU (the clock path), default settings:
  - a kernel of about 1 µs shows a relative spread (MAD/median) under 1 %;
  - an empty kernel costs under 2 ns per iteration.
Runs each kernel of bench/loop/kernels.c ROUNDS times with `tdprof loop --json -- -O2`
and reports every round's median, min and spread; exit 0 when every round meets
the targets, 1 otherwise.

usage: bench/loop-spread.py [--build BUILD] [--rounds N]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = {"empty": ("median_ns_per_iteration", 2.0), "chain_1us": ("spread_pct", 1.0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    tdprof = os.path.join(a.build, "tdprof")
    src = os.path.join(HERE, "loop", "kernels.c")
    print("load %s" % open("/proc/loadavg").read().split()[:3])
    ok = True
    for fn, (key, limit) in TARGETS.items():
        for r in range(a.rounds):
            p = subprocess.run([tdprof, "loop", src, "--function", fn, "--json", "--no-mca", "--", "-O2"],
                               capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                print("%s: tdprof loop failed (%d): %s" % (fn, p.returncode, p.stderr.strip()))
                ok = False
                continue
            d = json.loads(p.stdout)
            met = d[key] < limit
            ok &= met
            print("%-10s round %d: median %9.3f ns  min %9.3f ns  spread %6.3f %%  method %s  [%s %s < %g: %s]" % (
                fn, r + 1, d["median_ns_per_iteration"], d["min_ns_per_iteration"], d["spread_pct"],
                d["method"], key, "%.3f" % d[key], limit, "ok" if met else "MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
