"""--backend on the measuring commands: stat and topdown simulated, labelled estimates.

Needs valgrind for the simulated runs (those tests skip without it).
"""
import os
import shutil

import tdp


def demo(name):
    path = os.path.join(tdp.BUILD_ROOT, "examples", name, "demo-" + name)
    if not os.access(path, os.X_OK):
        raise tdp.Skip("demo workload not built: %s" % path)
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    return path


def test_stat_sim_text_says_estimate():
    r = tdp.run("stat", "--backend=sim", "--", demo("branch"), timeout=240)
    tdp.expect_exit(r, 0)
    tdp.expect_in("estimate (simulated)", r.out, "stdout", r)
    tdp.expect_in(" branch-misses ", r.out, "stdout", r)
    tdp.check("<not supported>" not in r.out, "the simulation gives every default count", r)


def test_stat_sim_json():
    r = tdp.run("stat", "--backend=sim", "--json", "--", demo("branch"), timeout=240)
    tdp.expect_exit(r, 0)
    j = r.json()
    tdp.check(j["backend"] == "sim", "backend sim", r)
    ev = {e["event"]: e["value"] for e in j["events"]}
    # the if of examples/branch/branch.c alone runs N * PASSES (1 MiB * 3 = 3,145,728) conditional
    # branches, about half of them mispredicted on random bytes; the loops add as many predicted
    src = os.path.join(tdp.SOURCE_ROOT, "examples", "branch", "branch.c")
    execs = tdp.c_define(src, "N") * tdp.c_define(src, "PASSES")
    tdp.check(ev["branches"] > 2 * execs, "branches %r" % ev["branches"], r)
    tdp.check(0.45 * execs < ev["branch-misses"] < 0.6 * execs + 20000, "branch-misses %r" % ev["branch-misses"], r)
    tdp.check(j["metrics"]["branch_mpki"] > 5, "triage sees the branch: %r" % j["metrics"], r)


def test_topdown_sim_json():
    r = tdp.run("topdown", "--backend=sim", "-l", "2", "--json", "--", demo("chase"), timeout=240)
    tdp.expect_exit(r, 0)
    j = r.json()
    tdp.check(j["backend"] == "sim" and j["cpu"] == "sim", "backend and model: %s %s" % (j["backend"], j["cpu"]), r)
    tdp.check(abs(sum(j["level1"].values()) - 100) < 0.01, "level 1 adds up: %r" % j["level1"], r)
    tdp.check(j["verdict"]["category"] == "backend_bound", "the chase is backend bound: %r" % j["verdict"], r)
    # the block model (Core Bound) runs for topdown as for why: the same estimate of the program
    be = j["level2"]["backend_bound"]
    if shutil.which("llvm-mca"):
        tdp.check(be["core_bound"] is not None and be["memory_bound"] > be["core_bound"],
                  "the chase's stall is memory, not the core: %r" % be, r)
        tdp.check(abs(be["memory_bound"] + be["core_bound"] - j["level1"]["backend_bound"]) < 0.01,
                  "memory + core = backend: %r" % be, r)
        w = tdp.run("why", "--backend=sim", "--json", "--", demo("chase"), timeout=240)
        tdp.expect_exit(w, 0)
        wl = w.json()["whole_run"] or w.json()["level1"]  # null when the scope is the whole run
        tdp.check(all(abs(wl[k] - j["level1"][k]) < 0.5 for k in j["level1"]),
                  "topdown's level 1 is why's whole run: %r vs %r" % (j["level1"], wl), w)
    else:
        tdp.check(be["core_bound"] is None, "without llvm-mca core bound is not simulated: null", r)
        tdp.check(be["memory_bound"] == j["level1"]["backend_bound"], "memory = backend", r)


def test_topdown_sim_text_says_estimate():
    r = tdp.run("topdown", "--backend=sim", "--", demo("interp"), timeout=240)
    tdp.expect_exit(r, 0)
    tdp.expect_in("estimate (simulated)", r.out, "stdout", r)
    tdp.expect_in("Bad Speculation", r.out, "stdout", r)


def test_simulated_next_steps_run_here():
    """Without a PMU there is no branch trace to record: the simulated stat and topdown
    send the user to `why` (which names the branches from the simulation) and say what
    needs the PMU, and the command they offer runs."""
    for args in (["stat", "--backend=sim"], ["topdown", "--backend=sim"]):
        r = tdp.run(*args, "--", demo("branch"), timeout=240)
        tdp.expect_exit(r, 0)
        nxt = [l for l in r.out.splitlines() if l.lstrip().startswith(("next:", "next step:"))]
        tdp.check(len(nxt) == 1, "one next step in %s" % args, r)
        tdp.expect_in("tdprof why -- ", nxt[0], "the next step of %s" % args, r)
        tdp.expect_in("needs a hardware PMU", nxt[0], "the next step of %s" % args, r)
        tdp.check("-o br" not in nxt[0], "no branch recording offered: %r" % nxt[0], r)
    j = tdp.run("stat", "--backend=sim", "--json", "--", demo("branch"), timeout=240).json()
    cmd = j["route"]["command"]
    tdp.check(cmd and cmd.startswith("tdprof why -- "), "JSON next command: %r" % cmd)
    r = tdp.run("why", "--backend=sim", "--", demo("branch"), timeout=240)
    tdp.expect_exit(r, 0)
    tdp.expect_in("mispredicted", r.out, "stdout of the offered 'tdprof why'", r)


def test_backend_usage_errors():
    for args, text in ((["stat", "--backend=sim", "-e", "cycles", "--", "true"], "its own fixed set of events"),
                       (["topdown", "--backend=import", "--", "true"], "needs the file"),
                       (["why", "--backend=import", "--", "true"], "'import' is not one of"),
                       (["stat", "--backend=bogus", "--", "true"], "bogus")):
        r = tdp.run(*args)
        tdp.expect_exit(r, 2)
        tdp.expect_in(text, r.err, "stderr", r)


def test_backend_pmu_without_a_pmu():
    if not tdp.no_pmu():
        raise tdp.Skip("this machine has a PMU")
    for cmd in ("stat", "topdown"):
        r = tdp.run(cmd, "--backend=pmu", "--", "true")
        tdp.expect_exit(r, 1)
        tdp.expect_in("hardware counters are unavailable", r.err, "stderr", r)


def test_stat_sim_refusals_say_why():
    """--backend=sim cannot do everything stat can: each refusal names the option and why."""
    cases = [(["-r", "2"], "deterministic"), (["-e", "cycles"], "'-e'"), (["-I", "100"], "'-I'")]
    for opts, why in cases:
        r = tdp.run("stat", "--backend=sim", *opts, "--", "true")
        tdp.expect_exit(r, 2)
        tdp.expect_in(why, r.err, "stderr of stat --backend=sim %s" % " ".join(opts), r)
    r = tdp.run("stat", "--backend=sim", "-p", "1")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'-p'", r.err, "stderr", r)


def test_unreadable_dwarf5_gets_the_rebuild_hint():
    """valgrind 3.19 gives up on some DWARF 5 that clang 14 writes; the error must say
    to rebuild with -gdwarf-4 rather than only 'valgrind failed'."""
    import os
    import shutil
    import subprocess
    import tempfile
    clang = shutil.which("clang")
    funcs = os.path.join(tdp.BUILD_ROOT, "examples", "bigcode", "bigcode-funcs.c")
    if not clang or not os.path.exists(funcs):
        raise tdp.Skip("needs clang and the generated bigcode demo (%s)" % funcs)
    src = os.path.join(tdp.SOURCE_ROOT, "examples", "bigcode")
    exe = os.path.join(tempfile.mkdtemp(prefix="tdprof-dwarf5-"), "bigcode5")
    subprocess.run([clang, "-O1", "-g", "-gdwarf-5", "-I", src, "-o", exe, os.path.join(src, "bigcode.c"), funcs],
                   check=True)
    r = tdp.run("why", "--backend=sim", "--", exe, timeout=300)
    if r.code == 0:
        raise tdp.Skip("this valgrind reads clang's DWARF 5")
    tdp.expect_exit(r, 1)
    tdp.expect_in("rebuild it with -gdwarf-4", r.err, "stderr", r)


tdp.main(globals())
