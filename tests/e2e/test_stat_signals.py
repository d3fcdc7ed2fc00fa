"""tdprof stat and signals: SIGINT/SIGTERM sent to tdprof reach the workload, the
counts are still printed, and the exit status is the workload's (128+N)."""
import os
import signal
import subprocess
import time

import tdp

WORKLOADS = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads")


def wl(name):
    p = os.path.join(WORKLOADS, name)
    if not os.access(p, os.X_OK):
        raise tdp.Skip("workload not built: %s" % p)
    return p


def start(*args):
    return subprocess.Popen([tdp.TDPROF] + [str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def interrupt(p, sig, after=0.4):
    time.sleep(after)
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    return p.returncode, out, err


def task_clock_ms(out):
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] == "task-clock" and f[1] == "msec":
            return float(f[0].replace(",", ""))
    raise AssertionError("no task-clock line in:\n" + out)


def test_sigint_reaches_the_workload_and_counts_are_printed():
    # wl-spin 0 spins until a signal kills it
    p = start("stat", "-e", "task-clock", "--", wl("wl-spin"), "0")
    code, out, err = interrupt(p, signal.SIGINT)
    tdp.check(code == 130, "128 + SIGINT(2) = 130, got %d\n%s\n%s" % (code, out, err))
    tdp.check("Performance counter stats for" in out, "counts printed after ^C:\n" + out)
    tc = task_clock_ms(out)
    tdp.check(tc > 10, "it spun for ~0.4 s before the signal: %.1f ms" % tc)
    tdp.check("SIGINT" in err, "stderr says a SIGINT was passed on: %r" % err)


def test_sigterm_is_143():
    p = start("stat", "-x,", "-e", "task-clock", "--", wl("wl-spin"), "0")
    code, out, err = interrupt(p, signal.SIGTERM, 0.3)
    tdp.check(code == 143, "128 + SIGTERM(15) = 143, got %d\n%s" % (code, err))
    tdp.check(",msec,task-clock," in out, "CSV counts printed after SIGTERM:\n" + out)


def test_sigint_with_intervals():
    p = start("stat", "-I", "100", "-x,", "-e", "task-clock", "--", wl("wl-spin"), "0")
    code, out, err = interrupt(p, signal.SIGINT, 0.45)
    tdp.check(code == 130, "exit 130, got %d: %s" % (code, err))
    lines = [l for l in out.splitlines() if l.strip()]
    tdp.check(len(lines) >= 3, "intervals before the signal and the last partial one:\n" + out)


def test_workload_killed_from_outside():
    # SIGKILL does not go through tdprof: the workload dies, tdprof reports 137.
    p = start("stat", "-e", "task-clock", "--", wl("wl-spin"), "0")
    time.sleep(0.3)
    kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
    if not kids:
        p.kill()
        raise tdp.Skip("pgrep found no child")
    os.kill(int(kids[0]), signal.SIGKILL)
    out, err = p.communicate(timeout=30)
    tdp.check(p.returncode == 137, "128 + SIGKILL(9) = 137, got %d: %s" % (p.returncode, err))
    tdp.check(task_clock_ms(out) > 10, "counts printed:\n" + out)


def test_workload_ignoring_sigint_keeps_running():
    # A workload that ignores SIGINT (as a shell's background job does) is not
    # killed: tdprof passes the signal on and waits for the workload's own end.
    p = start("stat", "-e", "task-clock", "--", "/bin/sh", "-c", "trap '' INT; sleep 0.6; exit 5")
    t0 = time.monotonic()
    code, out, err = interrupt(p, signal.SIGINT, 0.2)
    tdp.check(code == 5, "the workload's own status 5, got %d: %s" % (code, err))
    tdp.check(time.monotonic() - t0 >= 0.3, "tdprof waited for the workload")
    tdp.check("Performance counter stats" in out, "counts printed")


tdp.main(globals())
