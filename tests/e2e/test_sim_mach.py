"""The machine of tdprof's own valgrind tool (vgtool/, tdpsim; issue 19): kernels whose
behaviour is known by construction (tests/e2e/workloads/wl-mem.c), each classified as
constructed by `why --backend=sim`, and each fix measured as fewer estimated cycles.

Needs valgrind and the tool (built where valgrind's static libraries are: Debian's valgrind
package); each test skips without them. No figure is pinned: the checks are verdicts, the
order of costs and the direction of a change.
"""
import os
import re
import subprocess
import tempfile

import simkernel
import tdp


def kernel():
    return simkernel.workload("wl-mem", tool=True)


def why(name, machine=None):
    j, r = simkernel.why(kernel(), name, machine)
    tdp.check("simulated by tdpsim" in j["machine"]["description"], "tdprof's tool ran: %r" % j["machine"], r)
    return j, r


def memory_bound(j, r, what):
    tdp.check(j["verdict"]["category"] == "backend_bound", "%s is Backend Bound: %r" % (what, j["level1"]), r)
    be = j["level2"]["backend_bound"]
    tdp.check(be["memory_bound"] > be["core_bound"], "%s: Memory Bound within it: %r" % (what, be), r)


def test_strided_walk_overlaps_a_chase_does_not():
    walk, rw = why("stride")
    chase, rc = why("chase")
    memory_bound(walk, rw, "the 256-byte stride walk over 64 MiB")
    memory_bound(chase, rc, "the chase over the same 64 MiB")
    # the same loads of the same lines (one per 256-byte node, twice over)
    tdp.check(abs(walk["counts"]["l1d_misses"] - chase["counts"]["l1d_misses"]) < 0.1 * chase["counts"]["l1d_misses"],
              "the same misses: %r %r" % (walk["counts"], chase["counts"]), rc)
    # the walk's misses are prefetched and overlap; each of the chase's waits for the one before
    tdp.check(chase["counts"]["cycles"] > 5 * walk["counts"]["cycles"],
              "the chase costs far more cycles (%r vs %r)" % (chase["counts"], walk["counts"]), rc)
    tdp.check(chase["level2"]["backend_bound"]["memory_bound"] > walk["level2"]["backend_bound"]["memory_bound"],
              "and is more Memory Bound (%r vs %r)" % (chase["level2"], walk["level2"]), rc)


def test_latency_by_level():
    got = {}
    for level in ("l2", "l3", "dram"):
        j, r = why(level)
        memory_bound(j, r, "a chase resident in %s" % level)
        got[level] = (j, r)
    (l2, _), (l3, _), (dram, rd) = got["l2"], got["l3"], got["dram"]
    # the same number of steps: each costs its level's latency
    tdp.check(l2["counts"]["cycles"] * 1.5 < l3["counts"]["cycles"] and l3["counts"]["cycles"] * 1.5 < dram["counts"]["cycles"],
              "cycles ordered as the latencies: L2 %r, L3 %r, DRAM %r" % (l2["counts"]["cycles"], l3["counts"]["cycles"],
                                                                       dram["counts"]["cycles"]), rd)
    tdp.check(dram["counts"]["ll_misses"] > 1000000 and l3["counts"]["ll_misses"] < 0.01 * dram["counts"]["ll_misses"],
              "only the 128 MiB chase misses the L3: %r %r" % (l3["counts"], dram["counts"]), rd)


def test_software_prefetch_is_a_fix():
    plain, rp = why("gather")
    pf, rf = why("gatherpf")
    memory_bound(plain, rp, "a gather of scattered elements")
    tdp.check(pf["counts"]["cycles"] < 0.9 * plain["counts"]["cycles"],
              "prefetching 16 elements ahead saves cycles (%r vs %r)" % (pf["counts"], plain["counts"]), rf)
    tdp.check(pf["counts"]["l1d_misses"] < 0.5 * plain["counts"]["l1d_misses"],
              "the prefetches took the misses: %r %r" % (pf["counts"], plain["counts"]), rf)


def cachegrind_mispredict_rate(*argv):
    """valgrind's own predictor on the same program: conditional mispredicts / branches."""
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
                            "--cachegrind-out-file=" + os.path.join(tmp, "cg.out")] + list(argv),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=280)
    m = re.search(r"Mispredicts:\s+[\d,]+\s+\(\s*([\d,]+) cond", p.stderr)
    b = re.search(r"Branches:\s+[\d,]+\s+\(\s*([\d,]+) cond", p.stderr)
    if p.returncode != 0 or not m or not b:
        raise AssertionError("cachegrind failed:\n" + p.stderr)
    return int(m.group(1).replace(",", "")) / int(b.group(1).replace(",", ""))


def test_pattern_branch_is_predicted():
    pat, rp = why("pattern")
    rnd, rr = why("random")
    tdp.check(pat["level1"]["bad_speculation"] < 3, "a branch taken every 4th time is learnt: %r" % pat["level1"], rp)
    tdp.check(rnd["verdict"]["category"] == "bad_speculation", "the same branch on random data: %r" % rnd["level1"], rr)
    # valgrind's 2-bit counters with 7 bits of global history cannot see the period among the
    # other branches: a quarter of the tested branch (one in four conditional branches) missed
    rate = cachegrind_mispredict_rate(kernel(), "pattern")
    tdp.check(rate > 0.04, "cachegrind's predictor mispredicts the pattern: %.3f" % rate, rp)
    tdp.check(pat["counts"]["branch_misses"] < rate * pat["counts"]["branches"] / 4,
              "tdprof's predictor far less (%r)" % pat["counts"], rp)


def test_string_copy_is_no_core_chain():
    # glibc's memcpy copies with rep movsb: valgrind runs it byte by byte, each byte one execution,
    # where llvm-mca sees one microcoded instruction of many cycles: the block model leaves it out
    j, r = why("copy")
    tdp.check(j["level2"]["backend_bound"]["core_bound"] < 20, "no per-byte microcode stall: %r" % j["level2"], r)


tdp.main(globals())
