"""Shared by the tests of the simulated backend's kernels (test_sim_core.py: wl-core,
test_sim_mach.py: wl-mem): the workload, skipped without what it needs, and
`why --backend=sim --json` on one of its kernels with the checks every estimate must pass
(labelled an estimate, level 1 adding up to 100, each level-2 parent the sum of its children).
"""
import os
import shutil

import tdp


def workload(name, tool=False, mca=False):
    """The path of tests/e2e/workloads/NAME; tdp.Skip without it, valgrind, and (when asked)
    tdprof's valgrind tool or llvm-mca."""
    path = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", name)
    if not os.access(path, os.X_OK):
        raise tdp.Skip("workload not built: %s" % path)
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    if tool and not os.access(os.path.join(tdp.BUILD_ROOT, "vgtool", "tdpsim-amd64-linux"), os.X_OK):
        raise tdp.Skip("tdprof's valgrind tool is not built (valgrind's static libraries are missing)")
    if mca and not shutil.which("llvm-mca"):
        raise tdp.Skip("llvm-mca is not installed (apt-get install llvm)")
    return path


def why(path, kernel, machine=None):
    """(document, result) of `why --backend=sim --json [--sim-machine MACHINE] -- PATH KERNEL`."""
    args = ["why", "--backend=sim", "--json"]
    if machine:
        args += ["--sim-machine", machine]
    r = tdp.run(*args, "--", path, kernel, timeout=280)
    tdp.expect_exit(r, 0)
    j = r.json()
    tdp.check(j["estimate"] is True, "every figure an estimate", r)
    l1 = j["level1"]
    tdp.check(abs(sum(l1.values()) - 100) < 0.01, "level 1 adds up: %r" % l1, r)
    for parent, kids in j["level2"].items():
        s = sum(v for v in kids.values() if v is not None)
        tdp.check(abs(s - l1[parent]) < 0.01, "level 2 of %s adds up to it: %r vs %r" % (parent, kids, l1[parent]), r)
    return j, r
