"""Helpers for tdprof's end-to-end tests: run build/tdprof, check what a user sees.

Each test file is a script: it defines functions named test_*, and ends with
`tdp.main(globals())`, which runs them in order and exits 0 (all passed),
1 (a failure, with the reason) or 77 (skipped: Meson's code).
"""
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
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
