"""The simulated backend's core model (issue 19): kernels whose bottleneck is known by
construction (tests/e2e/workloads/wl-core.c), each classified as constructed by
`why --backend=sim` (callgrind per instruction, the llvm-mca block model).

Needs valgrind and llvm-mca (each test skips without them). No figure is pinned:
the checks are the verdict, the level-2 node, and the direction of a change.
"""
import platform

import simkernel
import tdp


def kernel():
    return simkernel.workload("wl-core", mca=True)


def why(name, machine=None):
    return simkernel.why(kernel(), name, machine)


def test_divide_chain_is_core_bound():
    j, r = why("div")
    tdp.check(j["verdict"]["category"] == "backend_bound", "a divide chain is Backend Bound: %r" % j["verdict"], r)
    be = j["level2"]["backend_bound"]
    tdp.check(be["core_bound"] > be["memory_bound"], "and Core Bound within it: %r" % be, r)
    tdp.check(j["level1"]["retiring"] < 50, "not 'Retiring 99.9 %%' any more: %r" % j["level1"], r)
    top = j["findings"][0]
    tdp.check(top["node"] == "core_bound" and top["title"].startswith("dependency chain at")
              and top["site"]["function"].startswith("k_div"), "the chain is named: %r" % top, r)


def test_accumulators_lower_core_bound():
    one, r1 = why("mul1")
    eight, r8 = why("mul8")
    tdp.check(one["level2"]["backend_bound"]["core_bound"] > 50, "one multiply chain is Core Bound: %r" % one["level2"], r1)
    tdp.check(eight["level2"]["backend_bound"]["core_bound"] < one["level2"]["backend_bound"]["core_bound"],
              "8 accumulators: Core Bound falls (%r -> %r)" % (one["level2"], eight["level2"]), r8)
    tdp.check(eight["level1"]["retiring"] > one["level1"]["retiring"],
              "8 accumulators: Retiring rises (%r -> %r)" % (one["level1"], eight["level1"]), r8)


def test_indirect_calls_resteer_the_front_end():
    j, r = why("icall")
    tdp.check(j["verdict"]["category"] == "frontend_bound", "indirect calls: Frontend Bound: %r" % j["level1"], r)
    tdp.check(j["level2"]["frontend_bound"]["fetch_latency"] > 20, "as fetch latency (resteers): %r" % j["level2"], r)
    tdp.check(j["level1"]["bad_speculation"] < 5, "predicted calls are no Bad Speculation: %r" % j["level1"], r)
    # named as resteers at the call, not as i-cache misses (it has none) nor a code footprint
    top = j["findings"][0]
    tdp.check(top["title"].startswith("front-end resteers at") and top["site"]["function"].startswith("k_icall")
              and "devirtualisation" in top["fix"], "the call's resteers: %r" % top, r)
    tdp.check(not any(f["title"].startswith(("instruction-cache misses", "hot code footprint")) for f in j["findings"]),
              "no i-cache finding: %r" % [f["title"] for f in j["findings"]], r)
    tdp.check("devirtualise" in j["verdict"]["next_step"], "the next step: %r" % j["verdict"]["next_step"], r)


def test_chase_overlaps_less_than_a_strided_walk():
    walk, rw = why("stride")
    chase, rc = why("chase")
    for j, r, what in ((walk, rw, "stride"), (chase, rc, "chase")):
        tdp.check(j["verdict"]["category"] == "backend_bound", "%s is Backend Bound: %r" % (what, j["level1"]), r)
        be = j["level2"]["backend_bound"]
        tdp.check(be["memory_bound"] > be["core_bound"], "%s: Memory Bound within it: %r" % (what, be), r)
    # the same misses (one per line of the same footprint): the chase cannot overlap them
    tdp.check(abs(walk["counts"]["l1d_misses"] - chase["counts"]["l1d_misses"]) < 0.05 * chase["counts"]["l1d_misses"],
              "same misses: %r %r" % (walk["counts"], chase["counts"]), rc)
    tdp.check(chase["level2"]["backend_bound"]["memory_bound"] > walk["level2"]["backend_bound"]["memory_bound"],
              "the chase is more Memory Bound (%r vs %r)" % (chase["level2"], walk["level2"]), rc)
    tdp.check(chase["counts"]["cycles"] > 2 * walk["counts"]["cycles"],
              "and costs more cycles for the same misses (%r vs %r)" % (chase["counts"], walk["counts"]), rc)


def test_software_prefetch_hides_misses():
    walk, rw = why("stride")
    pf, rp = why("prefetch")
    if "tdpsim" in pf["machine"]["description"]:
        # tdprof's tool runs the prefetches: the lines are in the cache when the loads come
        tdp.check(pf["counts"]["l1d_misses"] < 0.5 * walk["counts"]["l1d_misses"],
                  "the prefetches take the misses: %r %r" % (walk["counts"], pf["counts"]), rp)
    else:
        tdp.check(abs(walk["counts"]["l1d_misses"] - pf["counts"]["l1d_misses"]) < 0.05 * walk["counts"]["l1d_misses"],
                  "valgrind sees the same misses: %r %r" % (walk["counts"], pf["counts"]), rp)
    tdp.check(pf["counts"]["cycles"] < walk["counts"]["cycles"],
              "the prefetched walk costs fewer cycles (%r vs %r)" % (pf["counts"], walk["counts"]), rp)


def dominant(j):
    """The largest level-1 bucket (the verdict names the largest stall when none is over its threshold)."""
    return max(j["level1"], key=j["level1"].get)


def x86_kernel():
    if platform.machine() not in ("x86_64", "AMD64"):
        raise tdp.Skip("ports, spread, heavy and ucode are x86 assembly")


def test_one_busy_port_is_core_bound_spread_work_retires():
    x86_kernel()
    ports, rp = why("ports")
    spread, rs = why("spread")
    tdp.check(ports["verdict"]["category"] == "backend_bound", "8 multiplies on one port: Backend Bound: %r"
              % ports["level1"], rp)
    be = ports["level2"]["backend_bound"]
    tdp.check(be["core_bound"] > 50 and be["memory_bound"] < 1, "as Core Bound (no chain, no miss): %r" % be, rp)
    top = ports["findings"][0]
    tdp.check(top["title"].startswith("busy execution port") and top["site"]["function"].startswith("k_ports"),
              "a busy port, not a chain: %r" % top, rp)
    tdp.check(dominant(spread) == "retiring", "as many adds any ALU runs: Retiring: %r"
              % spread["level1"], rs)
    tdp.check(spread["level2"]["backend_bound"]["core_bound"] < be["core_bound"],
              "Core Bound falls: %r -> %r" % (be, spread["level2"]["backend_bound"]), rs)
    tdp.check(spread["counts"]["cycles"] < 0.6 * ports["counts"]["cycles"],
              "and the cycles with it: %r -> %r" % (ports["counts"]["cycles"], spread["counts"]["cycles"]), rs)


def test_multi_uop_instructions_are_heavy_operations():
    x86_kernel()
    # xchg is three µops on Skylake, which issues four a cycle: the slots retire heavy operations
    j, r = why("heavy", "skylake")
    tdp.check(dominant(j) == "retiring", "register swaps on Skylake: Retiring: %r" % j["level1"], r)
    ret = j["level2"]["retiring"]
    tdp.check(ret["heavy_operations"] > ret["light_operations"], "mostly Heavy Operations: %r" % ret, r)
    # the same count of single-µop adds: no Heavy Operations
    spread, rs = why("spread")
    tdp.check(spread["level2"]["retiring"]["heavy_operations"] < 1,
              "single-µop adds are no Heavy Operations: %r" % spread["level2"]["retiring"], rs)


def test_microcoded_copies_are_heavy_operations():
    x86_kernel()
    j, r = why("ucode")
    tdp.check(dominant(j) == "retiring", "64-byte rep movsb copies: Retiring: %r" % j["level1"], r)
    ret = j["level2"]["retiring"]
    tdp.check(ret["heavy_operations"] > 2 * ret["light_operations"], "mostly Heavy Operations: %r" % ret, r)
    top = j["findings"][0]
    tdp.check(top["node"] == "heavy_operations" and "microcoded" in top["title"] and top["site"]["function"].startswith("k_ucode"),
              "the first finding names the microcoded line: %r" % top, r)
    tdp.check("memcpy" in top["fix"], "and its fix: %r" % top["fix"], r)
    # the copies are not charged one µop per byte any more: 64 bytes in a few cycles, not ~11
    per_copy = j["counts"]["cycles"] / 500000.0
    tdp.check(per_copy < 10, "%.1f cycles per 64-byte copy" % per_copy, r)


def test_other_presets_model_the_core():
    for machine in ("skylake", "zen4"):
        j, r = why("div", machine)
        tdp.check(j["level2"]["backend_bound"]["core_bound"] > 50, "%s: a divide chain is Core Bound: %r"
                  % (machine, j["level2"]), r)


tdp.main(globals())
