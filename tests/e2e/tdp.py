"""Helpers for tdprof's end-to-end tests: run build/tdprof, check what a user sees.

Each test file is a script: it defines functions named test_*, and ends with
`tdp.main(globals())`, which runs them in order and exits 0 (all passed),
1 (a failure, with the reason) or 77 (skipped: Meson's code).
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback

# A shell without job control starts background jobs with SIGINT and SIGQUIT
# ignored, and the programs a test starts would inherit that: tdprof rightly
# respects an ignored SIGINT, so tests that send it would hang. Give the tests
# (and through exec, everything they start) the default dispositions.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)

TDPROF = os.environ.get("TDPROF") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "tdprof")
SHARED = os.environ.get("TDPROF_SHARED_DATA") or os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "data")
SOURCE_ROOT = os.environ.get("TDPROF_SOURCE_ROOT") or os.path.join(os.path.dirname(__file__), "..", "..")
BUILD_ROOT = os.environ.get("TDPROF_BUILD_ROOT") or os.path.join(SOURCE_ROOT, "build")


class Skip(Exception):
    """Raise to skip the current test (and, if every test skips, the file)."""


class Result:
    def __init__(self, argv, proc, elapsed):
        self.argv = argv
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self.elapsed = elapsed

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError as e:
            raise AssertionError("stdout of %s is not JSON (%s):\n%s" % (self.argv, e, self.out[:2000]))

    def __repr__(self):
        return "argv=%r\nexit=%d\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            self.argv, self.code, self.out[-4000:], self.err[-4000:])


def run(*args, stdin=None, timeout=120, env=None, cwd=None):
    """Run tdprof with args; returns a Result (never raises on a non-zero exit)."""
    argv = [TDPROF] + [str(a) for a in args]
    e = dict(os.environ)
    if env:
        e.update(env)
    t0 = time.monotonic()
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=e, cwd=cwd)
    return Result(argv, proc, time.monotonic() - t0)


def check(cond, msg, result=None):
    if not cond:
        raise AssertionError(msg + ("\n" + repr(result) if result is not None else ""))


def expect_exit(result, code):
    check(result.code == code, "expected exit %d, got %d" % (code, result.code), result)


def expect_in(needle, haystack, what, result=None):
    check(needle in haystack, "expected %r in %s" % (needle, what), result)


def shared(*parts):
    """Path of a file in the shared data; skips the test when it is absent."""
    p = os.path.join(SHARED, *parts)
    if not os.path.exists(p):
        raise Skip("shared data not found: %s" % p)
    return p


def c_define(src, name):
    """The value of `#define NAME <integer expression>` in a C source (integers, parentheses, <<
    and *): the tests derive the demos' counts from their sources, never copy them."""
    def value(e):
        e = e.strip()
        if e.startswith("(") and e.endswith(")"):
            return value(e[1:-1])
        if "<<" in e:
            a, b = e.split("<<", 1)
            return value(a) << value(b)
        if "*" in e:
            a, b = e.split("*", 1)
            return value(a) * value(b)
        return int(e)

    with open(src) as f:
        for line in f:
            m = re.match(r"#define\s+%s\s+([0-9()<* ]+?)\s*(/\*.*)?$" % name, line)
            if m:
                return value(m.group(1))
    raise AssertionError("no #define %s in %s" % (name, src))


def no_pmu():
    """True when hardware events cannot be opened here (as on our VMs)."""
    r = run("info", "--json")
    if r.code != 0:
        return True
    try:
        return not r.json().get("hardware_events_open", False)
    except AssertionError:
        return True


def brs_like_copy(src):
    """A copy of the perf.data `src` whose branch entries carry neither mispred nor predicted
    (bits 0 and 1 of perf_branch_entry.flags cleared), as AMD Zen 3 BRS records them.
    Only for single-attr files whose samples are IP|TID|TIME|BRANCH_STACK without hw_index."""
    data = bytearray(open(src, "rb").read())
    check(data[:8] == b"PERFILE2", "%s is a file-mode perf.data" % src)
    attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<Q QQ QQ", data, 16)
    check(attrs_size == attr_size, "%s has one attr" % src)
    sample_type, = struct.unpack_from("<Q", data, attrs_off + 24)
    branch_sample_type, = struct.unpack_from("<Q", data, attrs_off + 72)
    check(sample_type == (1 | 2 | 4 | 1 << 11) and not branch_sample_type & (1 << 17),
              "%s samples are IP|TID|TIME|BRANCH_STACK without hw_index" % src)
    pos, cleared = data_off, 0
    while pos < data_off + data_size:
        rtype, _, size = struct.unpack_from("<IHH", data, pos)
        if rtype == 9:  # PERF_RECORD_SAMPLE: header, ip, pid/tid, time, then nr and the entries
            nr, = struct.unpack_from("<Q", data, pos + 32)
            for k in range(nr):
                at = pos + 40 + 24 * k + 16
                flags, = struct.unpack_from("<Q", data, at)
                struct.pack_into("<Q", data, at, flags & ~3)
                cleared += 1
        pos += size
    check(cleared > 0, "entries were found to clear")
    out = tempfile.NamedTemporaryFile(prefix="tdprof-brs-", suffix=".data", delete=False)
    out.write(data)
    out.close()
    return out.name


# ---- waiting for a state, never for a time ------------------------------------------------
# The machine may be loaded (CI shares it; other builds run beside the tests): a test that
# must act once a process has reached some state polls for that state, with a deadline
# far longer than any quiet run needs. No test sleeps a fixed time and hopes.

WAIT_TIMEOUT = 120


def wait_for(pred, what, timeout=WAIT_TIMEOUT, interval=0.01):
    """Poll pred() until it returns a true value, and return that value; fail naming
    `what` when `timeout` seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %d s waiting for %s" % (timeout, what))
        time.sleep(interval)


def proc_stat(pid):
    """/proc/PID/stat as {comm, state, ppid, cpu_ms}, or None when the process is gone."""
    try:
        with open("/proc/%d/stat" % int(pid)) as f:
            text = f.read()
    except OSError:
        return None
    rest = text[text.rindex(")") + 2:].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return {"comm": text[text.index("(") + 1:text.rindex(")")], "state": rest[0], "ppid": int(rest[1]),
            "cpu_ms": (int(rest[11]) + int(rest[12])) * 1000.0 / ticks}


def alive(pid):
    """True while the process exists and is not a zombie."""
    st = proc_stat(pid)
    return st is not None and st["state"] not in ("Z", "X")


def descendants(pid):
    """The process ids below `pid` (children, grandchildren...), now."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = proc_stat(int(d))
            if st:
                kids.setdefault(st["ppid"], []).append(int(d))
    out, todo = [], [int(pid)]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


def wait_workload(proc, comm, cpu_ms=0, timeout=WAIT_TIMEOUT):
    """Wait until a live descendant of the Popen `proc` runs the program `comm` (its name
    after exec) and has used at least `cpu_ms` of CPU; return its pid. Fails at once if
    `proc` ends first."""
    def ready():
        if proc.poll() is not None:
            raise AssertionError("%s ended (exit %s) before its workload %s ran" % (proc.args, proc.returncode,
                                                                                    comm))
        for k in descendants(proc.pid):
            st = proc_stat(k)
            if st and st["comm"] == comm[:15] and st["state"] != "Z" and st["cpu_ms"] >= cpu_ms:
                return k
        return None
    return wait_for(ready, "%s to run %s with %d ms of CPU" % (proc.args[0], comm, cpu_ms), timeout)


def wait_cpu(pid, cpu_ms, timeout=WAIT_TIMEOUT):
    """Wait until process `pid` has used at least `cpu_ms` of CPU in all."""
    def ready():
        st = proc_stat(pid)
        if st is None:
            raise AssertionError("process %d ended before it used %d ms of CPU" % (pid, cpu_ms))
        return st["cpu_ms"] >= cpu_ms
    wait_for(ready, "process %d to use %d ms of CPU" % (pid, cpu_ms), timeout)


def holds_perf_event(pid):
    """True when process `pid` has a perf_event file descriptor open (it counts or samples)."""
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == "anon_inode:[perf_event]":
                return True
        except OSError:
            pass
    return False


def wait_attached(proc, timeout=WAIT_TIMEOUT):
    """Wait until the tdprof of the Popen `proc` has opened its perf events."""
    def ready():
        if proc.poll() is not None:
            raise AssertionError("%s ended (exit %s) before it opened its events" % (proc.args, proc.returncode))
        return holds_perf_event(proc.pid)
    wait_for(ready, "%s to open its perf events" % proc.args[0], timeout)


def processes_running(prog, arg):
    """The live processes of program `prog` whose first argument is `arg` (to find the
    orphans a workload left, wherever they were reparented)."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 1 and os.path.basename(argv[0]) == prog.encode() and argv[1] == arg.encode() and \
                alive(int(d)):
            found.append(int(d))
    return found


class Lines:
    """Collects the lines of a text stream (a Popen's stdout) in a thread, so a test can
    wait for output while the program runs; .text() is everything read so far."""

    def __init__(self, stream):
        self.lines = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream):
        for line in stream:
            with self._lock:
                self.lines.append(line)

    def wait(self, pred, what, timeout=WAIT_TIMEOUT):
        """Wait until pred(list of lines so far) is true."""
        wait_for(lambda: pred(self.snapshot()), what, timeout)

    def snapshot(self):
        with self._lock:
            return list(self.lines)

    def finish(self, timeout=WAIT_TIMEOUT):
        """Wait for the end of the stream; return all its text."""
        self._thread.join(timeout)
        return "".join(self.snapshot())


def main(env):
    tests = [(n, f) for n, f in sorted(env.items()) if n.startswith("test_") and callable(f)]
    # keep definition order (sorted by code line), not alphabetical
    tests.sort(key=lambda nf: nf[1].__code__.co_firstlineno)
    passed = failed = skipped = 0
    for name, fn in tests:
        try:
            fn()
            passed += 1
            print("ok   %s" % name)
        except Skip as s:
            skipped += 1
            print("skip %s: %s" % (name, s))
        except Exception:
            failed += 1
            print("FAIL %s" % name)
            traceback.print_exc(file=sys.stdout)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    sys.stdout.flush()
    if failed:
        sys.exit(1)
    if skipped and not passed:
        sys.exit(77)
    sys.exit(0)
