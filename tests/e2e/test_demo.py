"""make demo (scripts/demo.sh BUILDDIR) and the demo workloads' generated code.

The marker comments in examples/ name the lines that must stay a conditional jump
and an indirect jump: checked here with objdump, independently of tdprof.
"""
import os
import re
import shutil
import subprocess

import tdp


def marker_line(name, marker):
    with open(os.path.join(tdp.SOURCE_ROOT, "examples", name, name + ".c")) as f:
        for i, line in enumerate(f, 1):
            if "tdprof-demo: " + marker in line:
                return i
    raise AssertionError("no marker %s" % marker)


def line_insns(name, line):
    """The instructions objdump -dl attributes to examples/NAME/NAME.c:LINE."""
    exe = os.path.join(tdp.BUILD_ROOT, "examples", name, "demo-" + name)
    if not os.access(exe, os.X_OK):
        raise tdp.Skip("not built: %s" % exe)
    if not shutil.which("objdump"):
        raise tdp.Skip("objdump is not installed")
    out = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", "-M", "intel", exe],
                         capture_output=True, text=True, check=True).stdout
    insns, cur = [], False
    for l in out.splitlines():
        m = re.match(r"^/.*/%s\.c:(\d+)" % name, l)
        if m:
            cur = int(m.group(1)) == line
            continue
        if re.match(r"^\S", l):
            cur = False if not l.startswith(" ") and ":" not in l[:20] else cur
        m = re.match(r"^\s+[0-9a-f]+:\s+(\S+)\s*(.*)$", l)
        if cur and m:
            insns.append((m.group(1), m.group(2)))
    return insns


def test_branch_stays_a_conditional_jump():
    insns = line_insns("branch", marker_line("branch", "MISPREDICT"))
    mn = [m for m, _ in insns]
    tdp.check(any(m.startswith("j") and m != "jmp" for m in mn), "a jcc at the if line: %r" % insns)
    tdp.check(not any(m.startswith("cmov") for m in mn), "no cmov: %r" % insns)


def test_dispatch_is_an_indirect_jump():
    insns = line_insns("interp", marker_line("interp", "DISPATCH"))
    tdp.check(any(m == "jmp" and not re.match(r"^[0-9a-f]+ <", ops) for m, ops in insns),
              "an indirect jmp at the switch: %r" % insns)


def test_demo_script_names_the_line():
    if not shutil.which("valgrind") and tdp.no_pmu():
        raise tdp.Skip("valgrind is not installed and there is no PMU")
    script = os.path.join(tdp.SOURCE_ROOT, "scripts", "demo.sh")
    build = tdp.BUILD_ROOT
    if not os.access(os.path.join(build, "tdprof"), os.X_OK):
        raise tdp.Skip("no tdprof in %s" % build)
    p = subprocess.run(["sh", script, build], capture_output=True, text=True, timeout=280, cwd=tdp.SOURCE_ROOT)
    tdp.check(p.returncode == 0, "demo.sh exit %d\n%s\n%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    line = marker_line("branch", "MISPREDICT")
    tdp.check("why -- " in p.stdout, "prints the command it runs first:\n%s" % p.stdout[:600])
    tdp.check(p.stdout.index("why -- ") < p.stdout.index("1. triage"), "the command comes first")
    tdp.check("branch.c:%d" % line in p.stdout, "names branch.c:%d:\n%s" % (line, p.stdout[-3000:]))
    tdp.check("unpredictable branch at" in p.stdout, "the finding names it")


def make_dry_run(*args):
    """What `make ARGS` would run here (make -n), one command a line."""
    if not shutil.which("make"):
        raise tdp.Skip("make is not installed")
    p = subprocess.run(["make", "-n", "--no-print-directory", "-C", tdp.SOURCE_ROOT, "BUILD=" + tdp.BUILD_ROOT]
                       + list(args), capture_output=True, text=True, timeout=60)
    tdp.check(p.returncode == 0, "make -n %s: %s" % (" ".join(args), p.stderr))
    return p.stdout.splitlines()


def test_make_demo_builds_only_the_demo():
    # a new user's first result should not wait for the tests, fuzzers and benchmarks
    lines = make_dry_run("demo")
    builds = [l for l in lines if l.startswith("ninja ")]
    tdp.check(len(builds) == 1, "one ninja command: %r" % lines)
    targets = builds[0].split()[3:]
    # sim-tool: tdprof's valgrind tool where it is built (the simulated backend's), else tdprof again
    tdp.check(sorted(targets) == ["examples/branch/demo-branch", "sim-tool", "tdprof"], "demo targets: %r" % builds[0])
    tdp.check(any(l == "scripts/deps.sh demo" for l in lines), "installs what the demo needs: %r" % lines)


def test_make_install_uses_the_prefix_given_now():
    # the build directory keeps the prefix of its first setup (make demo: /usr/local);
    # make install PREFIX=... must install there all the same
    lines = make_dry_run("install", "PREFIX=/opt/tdprof-test")
    conf = [i for i, l in enumerate(lines) if l.startswith("meson configure") and "--prefix=/opt/tdprof-test" in l]
    inst = [i for i, l in enumerate(lines) if l.startswith("meson install")]
    tdp.check(conf and inst and conf[0] < inst[0], "configures the prefix before installing: %r" % lines)


tdp.main(globals())
