"""The simulated backend on a program valgrind cannot execute.

A binary built with -march=native on an AVX-512 machine runs AVX-512
instructions, which valgrind does not simulate: under it the program dies of
SIGILL at the first one. tdprof must say so, name the place and the cure, and
exit 1 (analysis failure), instead of estimating the dynamic loader's start-up
that ran before it as if it were the program's work.
"""
import os
import shutil

import tdp


def workload():
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    path = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-avx512")
    if not os.access(path, os.X_OK):
        raise tdp.Skip("wl-avx512 not built (x86-64 only): %s" % path)
    return path


def check_refused(r):
    tdp.expect_exit(r, 1)
    tdp.expect_in("AVX-512", r.err, "stderr", r)
    tdp.expect_in("SIGILL", r.err, "stderr", r)
    tdp.expect_in("wl-avx512.c:", r.err, "stderr (the line of the instruction)", r)
    tdp.expect_in("-march=x86-64-v3", r.err, "stderr (the cure)", r)
    tdp.check("Retiring" not in r.out and "verdict" not in r.out, "no estimate of the start-up is printed", r)


def test_why_refuses_what_valgrind_cannot_run():
    check_refused(tdp.run("why", "--backend=sim", "--", workload(), timeout=240))


def test_topdown_refuses_what_valgrind_cannot_run():
    # topdown's simulated run is cachegrind's, not callgrind's: the same log, the same answer
    check_refused(tdp.run("topdown", "--backend=sim", "--", workload(), timeout=240))


def test_json_gets_no_document():
    r = tdp.run("why", "--backend=sim", "--json", "--", workload(), timeout=240)
    tdp.expect_exit(r, 1)
    tdp.check(not r.out.strip().startswith("{"), "no JSON document for a run that did not happen", r)


tdp.main(globals())
