"""tdprof selftest: every demo workload lands in its bucket (simulated backend, as CI runs it)."""
import os
import shutil

import tdp


def need():
    if not os.access(os.path.join(tdp.BUILD_ROOT, "examples", "branch", "demo-branch"), os.X_OK):
        raise tdp.Skip("demo workloads not built")
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")


def test_selftest_sim_json_passes():
    need()
    r = tdp.run("selftest", "--backend=sim", "--json", "--examples", os.path.join(tdp.BUILD_ROOT, "examples"),
                timeout=280)
    tdp.expect_exit(r, 0)
    j = r.json()
    # arith's hash is one serial chain: Core Bound in the block model (llvm-mca), Retiring without it
    want = {"branch-random": "bad_speculation", "branch-sorted": "retiring", "interp": "bad_speculation",
            "chase": "backend_bound", "bigcode": "frontend_bound",
            "arith": "backend_bound" if shutil.which("llvm-mca") else "retiring"}
    got = {e["name"]: (e["expected"], e["got"], e["pass"]) for e in j["examples"]}
    tdp.check(got == {k: (v, v, True) for k, v in want.items()}, "rows: %r" % got, r)
    tdp.check(j["backend"] == "sim" and j["passed"] == 6 and j["failed"] == 0, "summary", r)


def test_selftest_text_table_next_to_the_binary():
    need()
    if os.path.dirname(os.path.realpath(tdp.TDPROF)) != os.path.realpath(tdp.BUILD_ROOT):
        raise tdp.Skip("tdprof is not in its build tree")
    r = tdp.run("selftest", "--backend=sim", timeout=280)
    tdp.expect_exit(r, 0)
    rows = [l.split() for l in r.out.splitlines() if l.strip().split()[:1] and
            l.split()[0] in ("branch-random", "branch-sorted", "interp", "chase", "bigcode", "arith")]
    tdp.check(len(rows) == 6 and all(row[-1] == "pass" for row in rows), "six passing rows", r)
    tdp.expect_in("estimate (simulated)", r.out, "stdout", r)


def test_selftest_examples_missing():
    r = tdp.run("selftest", "--backend=sim", "--examples", "/nonexistent-tdprof-examples")
    tdp.expect_exit(r, 2)
    tdp.expect_in("was not found", r.err, "stderr", r)


tdp.main(globals())
