"""tdprof stat and signals: SIGINT/SIGTERM sent to tdprof reach the workload, the
counts are still printed, and the exit status is the workload's (128+N).

Each signal is sent once the workload is seen running (polled, not slept for): on a
loaded machine tdprof may take a while to start it."""
import os
import signal
import subprocess
import tempfile

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


def interrupt(p, sig, comm="wl-spin", cpu_ms=30):
    """Send `sig` to tdprof once its workload `comm` has run for `cpu_ms` of CPU."""
    tdp.wait_workload(p, comm, cpu_ms)
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
    tdp.check(tc >= 25, "it spun for 30 ms of CPU before the signal: %.1f ms" % tc)
    tdp.check("SIGINT" in err, "stderr says a SIGINT was passed on: %r" % err)


def test_sigterm_is_143():
    p = start("stat", "-x,", "-e", "task-clock", "--", wl("wl-spin"), "0")
    code, out, err = interrupt(p, signal.SIGTERM)
    tdp.check(code == 143, "128 + SIGTERM(15) = 143, got %d\n%s" % (code, err))
    tdp.check(",msec,task-clock," in out, "CSV counts printed after SIGTERM:\n" + out)


def test_signals_leave_the_report_whole_and_no_temporary():
    # -o FILE is a temporary until the counts are written: SIGINT, SIGTERM and SIGHUP
    # end the workload, the report is still published whole, nothing else is left
    d = tempfile.mkdtemp(prefix="tdprof-stat-signals-")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        out = os.path.join(d, "out.txt")
        p = start("stat", "-e", "task-clock", "-o", out, "--", wl("wl-spin"), "0")
        code, _, err = interrupt(p, sig)
        tdp.check(code == 128 + sig, "%s: exit %d, want %d\n%s" % (sig.name, code, 128 + sig, err))
        with open(out) as f:
            text = f.read()
        tdp.check("Performance counter stats for" in text and "task-clock" in text,
                  "%s: the report is whole:\n%s" % (sig.name, text))
        left = sorted(n for n in os.listdir(d) if n != "out.txt")
        tdp.check(not left, "%s: left behind: %s" % (sig.name, left))
        os.unlink(out)


def test_sigint_with_intervals():
    p = start("stat", "-I", "100", "-x,", "-e", "task-clock", "--", wl("wl-spin"), "0")
    out = tdp.Lines(p.stdout)
    out.wait(lambda ls: len([l for l in ls if l.strip()]) >= 2, "two intervals printed")
    p.send_signal(signal.SIGINT)
    err = p.stderr.read()
    p.wait(timeout=60)
    text = out.finish()
    tdp.check(p.returncode == 130, "exit 130, got %d: %s" % (p.returncode, err))
    lines = [l for l in text.splitlines() if l.strip()]
    tdp.check(len(lines) >= 3, "intervals before the signal and the last partial one:\n" + text)


def test_workload_killed_from_outside():
    # SIGKILL does not go through tdprof: the workload dies, tdprof reports 137.
    p = start("stat", "-e", "task-clock", "--", wl("wl-spin"), "0")
    os.kill(tdp.wait_workload(p, "wl-spin", 30), signal.SIGKILL)
    out, err = p.communicate(timeout=30)
    tdp.check(p.returncode == 137, "128 + SIGKILL(9) = 137, got %d: %s" % (p.returncode, err))
    tdp.check(task_clock_ms(out) >= 25, "counts printed:\n" + out)


def test_workload_ignoring_sigint_keeps_running():
    # A workload that ignores SIGINT (as a shell's background job does) is not
    # killed: tdprof passes the signal on and waits for the workload's own end.
    # The shell has set its trap once it runs sleep; the signal comes then. Its own status 5
    # shows that tdprof waited for it (a killed shell would give 130).
    p = start("stat", "-e", "task-clock", "--", "/bin/sh", "-c", "trap '' INT; sleep 0.5; exit 5")
    code, out, err = interrupt(p, signal.SIGINT, comm="sleep", cpu_ms=0)
    tdp.check(code == 5, "the workload's own status 5, got %d: %s" % (code, err))
    tdp.check("Performance counter stats" in out, "counts printed")


tdp.main(globals())
