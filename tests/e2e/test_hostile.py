"""Malformed input never crashes or hangs tdprof: random, truncated and mutated
perf stat output (CSV, JSON lines, text) through 'tdprof topdown --import' and
perf.data files through 'tdprof branches report -i' (when that command is in
the build). Each run must end within RUN_TIMEOUT seconds with exit 0, 1 or 2,
and say why on stderr when it is not 0, with the input's control characters
escaped; no sanitizer report, no signal.
The inputs are generated from the test fixtures with a fixed seed, so a
failure repeats; the failing input is kept in the message's path.
"""
import os
import random
import re
import subprocess
import tempfile

import pdsynth
import tdp

RUN_TIMEOUT = 20
ROUNDS = 150   # inputs per format family
TMP = tempfile.mkdtemp(prefix="tdprof-hostile-")
FIXTURES = os.path.join(tdp.SOURCE_ROOT, "tests", "data")
TOKENS = [b",", b";", b"\n", b"\"", b"{", b"}", b"<not counted>", b"<not supported>", b"msec", b"%", b"#",
          b"99999999999999999999999", b"-1", b"nan", b"1e308", b"Performance counter stats for", b"(",
          b"seconds time elapsed", b"\xff\xff\xff\xff", b"\x00", b"\x7f\xff\xff\xff", b"\x00\x00\x00\x80"]


def mutate(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(6)
        at = rng.randrange(len(b) + 1)
        if op == 0 and b:       # flip bytes
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 1:           # delete a range
            del b[at:at + rng.randint(1, 64)]
        elif op == 2:           # repeat a range
            b[at:at] = b[at:at + rng.randint(1, 256)] * rng.randint(1, 4)
        elif op == 3:           # insert a token
            b[at:at] = rng.choice(TOKENS)
        elif op == 4:           # cut short
            del b[at:]
        elif b:                 # an aligned 64-bit field set to a boundary value
            at -= at % 8
            b[at:at + 8] = rng.choice([0, 1, 0xffffffff, 1 << 31, 1 << 40, (1 << 64) - 1,
                                       len(b), len(b) + 8]).to_bytes(8, "little")
    return bytes(b)


def check_run(args, path):
    argv = [tdp.TDPROF] + list(args)
    try:
        # bytes: a message may quote the input's own bytes, which need not be UTF-8
        proc = subprocess.run(argv, capture_output=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError("tdprof %s hung (over %d s) on %s" % (" ".join(args), RUN_TIMEOUT, path))
    tdp.check(not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", proc.stderr),
              "no control character of the input reaches the terminal through stderr on %s: %r" % (path, proc.stderr))
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    r = tdp.Result(argv, proc, 0.0)
    tdp.check(r.code in (0, 1, 2), "exit 0, 1 or 2 on %s" % path, r)
    if r.code:
        tdp.check(r.err.startswith("tdprof: "), "a message on stderr for exit %d on %s" % (r.code, path), r)
    for bad in ("AddressSanitizer", "runtime error:", "LeakSanitizer", "Segmentation fault"):
        tdp.check(bad not in r.err, "no sanitizer report on %s" % path, r)
    return r


def fixtures(sub, pred=lambda n: True):
    d = os.path.join(FIXTURES, sub)
    out = []
    for n in sorted(os.listdir(d)):
        if pred(n):
            with open(os.path.join(d, n), "rb") as f:
                out.append(f.read())
    return out


def run_family(rng, seeds, suffix, argv, rounds=ROUNDS):
    exits = {}
    for i in range(rounds):
        kind = i % 4
        if kind == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 2048)))
        elif kind == 1:
            s = rng.choice(seeds)
            data = s[:rng.randrange(len(s) + 1)]
        else:
            data = mutate(rng, rng.choice(seeds))
        path = os.path.join(TMP, "in-%03d%s" % (i, suffix))
        with open(path, "wb") as f:
            f.write(data)
        r = check_run(argv(path), path)
        exits[r.code] = exits.get(r.code, 0) + 1
        os.unlink(path)
    print("     %d inputs: exit status counts %r" % (rounds, dict(sorted(exits.items()))))
    return exits


HOSTILE_NAME = b"/tmp/ev\x1b[31mil\nname\xff\xc2\x9b"


def run_bytes(*args):
    """tdprof with bytes out (names may not be UTF-8)."""
    p = subprocess.run([tdp.TDPROF] + list(args), capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_control_characters_of_recorded_names_are_escaped():
    # A recorded file name with an escape sequence, a newline, a byte that is not
    # UTF-8 and a C1 control (CSI): text, CSV and folded reports show \xNN, never
    # the raw bytes, and keep one record per line.
    img, _ = pdsynth.build(nr_samples=8, filename=HOSTILE_NAME)
    path = os.path.join(TMP, "names.data")
    with open(path, "wb") as f:
        f.write(img)
    for fmt, rows in (([], None), (["--csv"], 1 + 8), (["--folded"], None)):
        code, out, err = run_bytes("branches", "report", "-i", path, "--no-source", "-n", "0", *fmt)
        tdp.check(code == 0, "exit %d: %r" % (code, err))
        for raw in (b"\x1b", b"\xff", b"\xc2\x9b", b"il\nname"):
            tdp.check(raw not in out, "%s: raw %r in the report" % (fmt or "text", raw))
        if fmt != ["--folded"]:  # folded names functions, and these addresses have none
            tdp.check(b"ev\\x1b[31mil\\x0aname\\xff\\xc2\\x9b" in out,
                      "%s: the name escaped:\n%s" % (fmt or "text", out[:600]))
        if rows is not None:
            tdp.check(len([l for l in out.splitlines() if l.startswith((b"1,", b"2,", b"3,", b"4,", b"5,", b"6,", b"7,", b"8,"))]) <= rows,
                      "CSV rows stay rows")
    # JSON carries the real name (JSON escapes it)
    code, out, err = run_bytes("branches", "report", "-i", path, "--no-source", "--json")
    tdp.check(code == 0 and b"\\u001b[31mil\\u000aname" in out, "JSON escapes the name its own way")


def test_messages_escape_bytes_of_the_input():
    # an error message quoting a hostile path: no raw escape, newline or bad UTF-8 on stderr
    bad = os.fsencode(TMP) + b"/no\x1b]0;owned\x07such-file\xff"
    code, out, err = run_bytes(b"branches", b"report", b"-i", bad)
    tdp.check(code == 2, "exit %d" % code)
    tdp.check(b"\x1b" not in err and b"\x07" not in err and b"\xff" not in err, "raw bytes on stderr: %r" % err)
    tdp.check(b"no\\x1b]0;owned\\x07such" in err and b"\\xff" in err, "escaped on stderr: %r" % err)


def test_perf_stat_output_mutated_never_crashes_topdown_import():
    rng = random.Random(7)
    seeds = fixtures("import", lambda n: not n.endswith(".md"))
    exits = run_family(rng, seeds, ".txt", lambda p: ["topdown", "--import", p, "--cpu", "zen4"], 2 * ROUNDS)
    # the generator must reach both sides: some inputs still import, most fail
    tdp.check(exits.get(2, 0) > 0, "some inputs were refused as bad input: %r" % exits)


def test_perf_data_mutated_never_crashes_branches_report():
    if tdp.run("branches", "--help").code != 0:
        raise tdp.Skip("'tdprof branches' is not in this build yet")
    rng = random.Random(11)
    seeds = [pdsynth.build()[0], pdsynth.build(finished=False)[0]]
    seeds += fixtures("perfdata", lambda n: n.endswith(".pipe"))
    exits = run_family(rng, seeds, ".data", lambda p: ["branches", "report", "-i", p], 2 * ROUNDS)
    tdp.check(exits.get(2, 0) > 0, "some inputs were refused as bad input: %r" % exits)


try:
    tdp.main(globals())
finally:
    import shutil
    shutil.rmtree(TMP, ignore_errors=True)
