"""`-i -` reads a pipe-mode perf.data as it arrives, in bounded memory.

A long stream (tens of MB: pdsynth's branch-stack recording with its samples
repeated, and one made by `perf record -o -` here) piped into
`tdprof branches report -i -` gives the same report as the same bytes read from a
file; tests/tools/perfdata-count reads the same pipe the way tdprof does and prints
the reader's own accounting: its stream buffer never grew past two of the largest
records, whatever the stream's length. A file-mode perf.data on a pipe (cat FILE |)
is still read. Damaged streams: test_faults.py and test_hostile.py.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import pdsynth  # noqa: E402
import tdp  # noqa: E402

TMP = tempfile.mkdtemp(prefix="tdprof-pipe-")
BOUND = 2 * 65536  # the reader's buffer: one record being decoded, one arriving


def count_tool():
    p = os.path.join(tdp.BUILD_ROOT, "tests", "unit", "perfdata", "perfdata-count")
    if not os.access(p, os.X_OK):
        raise tdp.Skip("perfdata-count not built: %s" % p)
    return p


def piped(argv, path):
    """argv with the file at path on its stdin through a real pipe (cat PATH |)."""
    cat = subprocess.Popen(["cat", path], stdout=subprocess.PIPE)
    proc = subprocess.run(argv, stdin=cat.stdout, capture_output=True, timeout=300)
    cat.stdout.close()
    cat.wait()
    return proc


def report(src, path, *extra):
    argv = [tdp.TDPROF, "branches", "report", "--json", "-n", "0", "--no-disasm"] + list(extra)
    if src == "pipe":
        proc = piped(argv + ["-i", "-"], path)
    else:
        proc = subprocess.run(argv + ["-i", path], capture_output=True, timeout=300)
    tdp.check(proc.returncode == 0, "%s: exit %d: %s" % (src, proc.returncode, proc.stderr.decode()[-2000:]))
    j = json.loads(proc.stdout)
    j.pop("file", None)
    return j


def counts(path, pipe):
    tool = count_tool()
    proc = piped([tool, "-"], path) if pipe else subprocess.run([tool, path], capture_output=True)
    tdp.check(proc.returncode == 0, "perfdata-count: %s" % proc.stderr.decode())
    return json.loads(proc.stdout)


def long_synth_stream(repeat):
    """pdsynth's pipe stream with its samples repeated `repeat` times."""
    img, lay = pdsynth.build_pipe(nr_samples=40)
    first, last = lay.samples[0], lay.records[lay.records.index(lay.samples[-1]) + 1]
    return img[:first] + img[first:last] * repeat + img[last:]


def test_long_stream_is_read_as_it_arrives():
    count_tool()  # skip early when the tool is absent
    path = os.path.join(TMP, "long.pipe")
    with open(path, "wb") as f:
        f.write(long_synth_stream(4000))  # 40 MB, 160,000 samples
    size = os.path.getsize(path)
    tdp.check(size > 100 * BOUND, "stream of %d bytes is not long" % size)
    c = counts(path, True)
    tdp.check(c["pipe"] and c["samples"] == 160000, "counts through a pipe: %r" % c)
    tdp.check(0 < c["buffer_peak"] <= BOUND, "stream buffer peak %d for %d bytes" % (c["buffer_peak"], size))
    f = counts(path, False)
    tdp.check((f["records"], f["samples"]) == (c["records"], c["samples"]), "file %r, pipe %r" % (f, c))
    via_pipe, via_file = report("pipe", path), report("file", path)
    tdp.check(via_pipe["samples"] == 160000 and via_pipe["branch_entries"] == 640000,
              "pipe report counts: %r" % ((via_pipe["samples"], via_pipe["branch_entries"]),))
    tdp.check(via_pipe == via_file, "the report of -i - differs from that of the file")


def test_perf_pipe_stream():
    if not shutil.which("perf"):
        raise tdp.Skip("perf is not installed")
    path = os.path.join(TMP, "perf.pipe")
    with open(path, "wb") as f:
        r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "20000", "-o", "-", "--",
                            "dd", "if=/dev/zero", "of=/dev/null", "bs=4k", "count=200000"],
                           stdout=f, stderr=subprocess.PIPE, timeout=300)
    if r.returncode != 0:
        raise tdp.Skip("perf record -o - failed here: %s" % r.stderr.decode()[-500:])
    script = subprocess.run(["perf", "script", "-F", "ip", "-i", path], capture_output=True, timeout=300)
    tdp.check(script.returncode == 0, "perf script: %s" % script.stderr.decode()[-500:])
    nr = len(script.stdout.splitlines())
    c = counts(path, True)
    tdp.check(c["pipe"] and c["samples"] == nr, "samples through a pipe %r, perf script %d" % (c, nr))
    tdp.check(0 < c["buffer_peak"] <= BOUND, "stream buffer peak %d" % c["buffer_peak"])
    # plain samples (cpu-clock has no branch stack): the same report through the pipe as from the file
    via_pipe, via_file = report("pipe", path), report("file", path)
    tdp.check(via_pipe["mode"] == "samples" and via_pipe["samples"] == nr, "pipe report: %r" % via_pipe["samples"])
    tdp.check(via_pipe == via_file, "the report of -i - differs from that of the file")


def test_file_mode_on_a_pipe():
    img, _ = pdsynth.build(nr_samples=300)
    path = os.path.join(TMP, "file.data")
    with open(path, "wb") as f:
        f.write(img)
    c = counts(path, True)
    tdp.check(not c["pipe"] and c["samples"] == 300, "file mode through a pipe: %r" % c)
    tdp.check(report("pipe", path) == report("file", path), "cat FILE | differs from the file")


def test_partial_stream_says_what_was_lost():
    # cut in the middle of a long stream: refused naming the offset, or with --partial read up to it
    data = long_synth_stream(500)
    cut = len(data) // 2 + 5
    path = os.path.join(TMP, "cut.pipe")
    with open(path, "wb") as f:
        f.write(data[:cut])
    proc = piped([tdp.TDPROF, "branches", "report", "--json", "-i", "-"], path)
    tdp.check(proc.returncode == 2 and b"record at offset 0x" in proc.stderr, "cut stream: %r" % (proc.stderr,))
    j = report("pipe", path, "--partial")
    f = report("file", path, "--partial")
    tdp.check(j == f, "--partial: -i - and the file differ")
    c = json.loads(piped([count_tool(), "--partial", "-"], path).stdout)
    tdp.check(c["stopped_at"] and c["stopped_at"] + c["tail_bytes"] == cut, "partial counts %r" % c)
    tdp.check(c["buffer_peak"] <= BOUND, "stream buffer peak %d" % c["buffer_peak"])


if __name__ == "__main__":
    tdp.main(globals())
