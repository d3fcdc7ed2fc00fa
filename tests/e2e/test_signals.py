"""SIGINT, SIGTERM and SIGHUP to the long commands that run a child of their own
(why/topdown --backend=sim under valgrind, why's two llvm-mca runs, loop with its
compiler and pinned harness): the signal is passed on to the child's process group, tdprof waits for
it, removes its temporary directory (tdprof-sim-XXXXXX, tdprof-loop-XXXXXX) and
exits 128+N. No process and no temporary directory is left.

Each test waits, polling with a generous deadline, until the child runs and its
directory exists, so that the signal lands where it matters.
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import tdp

WORKLOADS = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads")
DEADLINE = 180  # seconds: valgrind and the compiler start slowly on a loaded machine

SPIN_C = r"""
volatile unsigned long n;

void spin(void)
{
    for (;;)
        n++;
}

int main(void)
{
    spin();
    return 0;
}
"""


def wl(name):
    p = os.path.join(WORKLOADS, name)
    if not os.access(p, os.X_OK):
        raise tdp.Skip("workload not built: %s" % p)
    return p


def children_of():
    """{pid: ppid} of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
            out[int(d)] = int(s[s.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            pass
    return out


def descendants(pid):
    tree = children_of()
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for c, pp in tree.items():
            if pp == p and c not in found:
                found.add(c)
                todo.append(c)
    return found


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return ""


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
        return s[s.rindex(")") + 2] != "Z"
    except OSError:
        return False


def interrupt(argv, sig, ready, tmp, cwd=None, path=None):
    """Start tdprof argv with TMPDIR=tmp (and PATH=path first), poll until ready(descendant
    commands, tmp entries) holds, send sig; returns (exit code, stderr, the descendants seen)."""
    env = dict(os.environ, TMPDIR=tmp)
    if path:
        env["PATH"] = path + os.pathsep + env.get("PATH", "")
    p = subprocess.Popen([tdp.TDPROF] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    seen = set()
    t0 = time.monotonic()
    try:
        while True:
            if p.poll() is not None:
                raise AssertionError("tdprof ended before the signal: exit %d: %s" % (
                    p.returncode, p.stderr.read().decode(errors="replace")))
            kids = descendants(p.pid)
            seen |= kids
            if ready([cmdline(k) for k in kids], os.listdir(tmp)):
                break
            tdp.check(time.monotonic() - t0 < DEADLINE, "the child did not start within %d s" % DEADLINE)
            time.sleep(0.05)
        seen |= descendants(p.pid)
        p.send_signal(sig)
        err = p.communicate(timeout=DEADLINE)[1].decode(errors="replace")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, err, seen


def expect_clean(what, sig, code, err, seen, tmp):
    tdp.check(code == 128 + sig, "%s, %s: exit %d, want %d: %s" % (what, signal.Signals(sig).name, code,
                                                                   128 + sig, err))
    # the children were reaped by tdprof: none may be left running (reparented to init)
    deadline = time.monotonic() + 30
    while any(alive(k) for k in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [(k, cmdline(k)) for k in seen if alive(k)]
    tdp.check(not left, "%s: processes left after %s: %r" % (what, signal.Signals(sig).name, left))
    tdp.check(not os.listdir(tmp), "%s: left in TMPDIR: %r" % (what, os.listdir(tmp)))


def test_sim_commands_pass_signals_on_and_clean_up():
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    spin = wl("wl-spin")

    def ready(kids, entries):
        return any("valgrind" in k or k.endswith("wl-spin") for k in kids) and \
            any(e.startswith("tdprof-sim-") for e in entries)

    for cmd, sig in (("why", signal.SIGINT), ("why", signal.SIGTERM), ("why", signal.SIGHUP),
                     ("topdown", signal.SIGTERM)):
        tmp = tempfile.mkdtemp(prefix="tdprof-e2e-sig-")
        code, err, seen = interrupt([cmd, "--backend=sim", "--", spin, "0"], sig, ready, tmp)
        expect_clean("%s --backend=sim" % cmd, sig, code, err, seen, tmp)
        os.rmdir(tmp)


def test_why_passes_signals_on_to_both_llvm_mca_runs():
    """The block model's two llvm-mca runs go at once, in one process group: a signal reaches
    both (here a stand-in llvm-mca that sleeps), tdprof removes llvm-mca's input file and exits
    128+N."""
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    prog = wl("wl-exit")
    bindir = tempfile.mkdtemp(prefix="tdprof-e2e-sig-bin-")
    with open(os.path.join(bindir, "llvm-mca"), "w") as f:
        f.write("#!/bin/sh\nexec sleep 120\n")
    os.chmod(os.path.join(bindir, "llvm-mca"), 0o755)

    def ready(kids, entries):
        return sum(k == "sleep" for k in kids) >= 2 and any(e.startswith("tdprof-simcore-") for e in entries)

    for sig in (signal.SIGINT, signal.SIGTERM):
        tmp = tempfile.mkdtemp(prefix="tdprof-e2e-sig-")
        code, err, seen = interrupt(["why", "--backend=sim", "--", prog, "0"], sig, ready, tmp, path=bindir)
        expect_clean("why --backend=sim (llvm-mca)", sig, code, err, seen, tmp)
        os.rmdir(tmp)
    shutil.rmtree(bindir)


def test_loop_passes_signals_on_to_the_harness_and_cleans_up():
    if not (shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")):
        raise tdp.Skip("no C compiler")
    work = tempfile.mkdtemp(prefix="tdprof-e2e-sig-src-")
    with open(os.path.join(work, "spin.c"), "w") as f:
        f.write(SPIN_C)

    def ready(kids, entries):
        # the harness program is DIR/loop, inside tdprof-loop-XXXXXX
        return any("tdprof-loop-" in k and k.endswith("/loop") for k in kids)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        tmp = tempfile.mkdtemp(prefix="tdprof-e2e-sig-")
        code, err, seen = interrupt(["loop", "spin.c", "--function", "spin", "--no-mca"], sig, ready, tmp,
                                    cwd=work)
        expect_clean("loop", sig, code, err, seen, tmp)
        os.rmdir(tmp)
    shutil.rmtree(work)


if __name__ == "__main__":
    tdp.main(globals())
