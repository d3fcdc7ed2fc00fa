#!/usr/bin/env python3
"""Benchmark `-i -` (a pipe-mode stream on stdin) against `-i FILE`, tdprof and perf side by side (issue 17, item 7).

    bench/pipe-stream.py [--build DIR] [--runs N] [--samples N] [--no-write]

1. Makes a perf.data of SAMPLES samples x 32 LBR entries by repeating the samples
   of ../shared/data/perfdata/perf.data.branch-4.14 (bench/gen-big-perfdata
   --zero-cycles, as bench/branches-report.py: Debian's perf 6.1 segfaults on timed
   LBR in branch mode), and turns it into a pipe-mode stream with
   `perf inject -i BIG -o -` (what `perf record -o -` writes).
2. Times, interleaved, N runs each of
       tdprof branches report -i STREAM.pipe            (the file: mapped)
       cat STREAM.pipe | tdprof branches report -i -    (read as it arrives)
       perf report -b -i STREAM.pipe --sort symbol_from,symbol_to,mispredict --stdio
       cat STREAM.pipe | perf report -b -i - --sort symbol_from,symbol_to,mispredict --stdio
   (stdout to /dev/null; `cat` feeds a real pipe), taking each reader's wall time,
   CPU time and peak RSS (os.wait4 on the reader, not on cat); reports medians, MB/s,
   and the ratios pipe/file (per tool) and tdprof/perf (per input).
3. The reader's own accounting of its stream buffer on the same pipe
   (tests/tools/perfdata-count -: buffer_peak), which bounds what `-i -` holds of
   the stream whatever its length.
Writes the figures, the commands and the machine (with the load average: the
machine may be busy) into bench/RESULTS.md between the markers of its section.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SHARED = os.environ.get("TDPROF_SHARED_DATA") or os.path.join(ROOT, "..", "shared", "data")
BEGIN = "<!-- pipe-stream: begin (written by bench/pipe-stream.py) -->"
END = "<!-- pipe-stream: end -->"
PERF_SORT = ["--sort", "symbol_from,symbol_to,mispredict", "--stdio"]


def measure_piped(argv, path):
    """argv with path fed to its stdin through a pipe by cat; (wall s, cpu s, peak RSS KiB, exit) of argv."""
    with open(os.devnull, "wb") as null:
        t0 = time.monotonic()
        cat = subprocess.Popen(["cat", path], stdout=subprocess.PIPE)
        p = subprocess.Popen(argv, stdin=cat.stdout, stdout=null, stderr=subprocess.DEVNULL)
        cat.stdout.close()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        cat.wait()
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


def interleave(cmds, runs):
    """cmds {name: (argv, piped_path or None)}: medians per name over runs alternating rounds."""
    res = {k: [] for k in cmds}
    for _ in range(runs):
        for k, (argv, piped) in cmds.items():
            wall, cpu, rss, code = measure_piped(argv, piped) if piped else benchlib.measure(argv)
            if code != 0:
                sys.exit("benchmark: %s exited %d" % (" ".join(argv), code))
            res[k].append((wall, cpu, rss))
    return {k: {"wall": statistics.median(x[0] for x in v), "cpu": statistics.median(x[1] for x in v),
                "rss": statistics.median(x[2] for x in v), "runs": len(v)} for k, v in res.items()}


def write_results(text):
    return benchlib.write_results(BEGIN, END, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build directory (default build/)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    ap.add_argument("--samples", type=int, default=200000, help="samples in the stream (default 200000)")
    ap.add_argument("--no-write", action="store_true", help="print, do not write bench/RESULTS.md")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    tdprof = os.path.join(build, "tdprof")
    gen = os.path.join(build, "bench", "gen-big-perfdata")
    count = os.path.join(build, "tests", "unit", "perfdata", "perfdata-count")
    src = os.path.join(SHARED, "perfdata", "perf.data.branch-4.14")
    for need in (tdprof, gen, count, src):
        if not os.path.exists(need):
            print("skip: %s not found" % need)
            return 0
    if not shutil.which("perf"):
        print("skip: perf is not installed")
        return 0
    work = tempfile.mkdtemp(prefix="tdprof-bench-pipe-")
    try:
        big, stream = os.path.join(work, "big.data"), os.path.join(work, "stream.pipe")
        subprocess.run([gen, "--zero-cycles", src, big, str(a.samples)], check=True, stdout=subprocess.DEVNULL)
        with open(stream, "wb") as f:
            subprocess.run(["perf", "inject", "-i", big, "-o", "-"], stdout=f, stderr=subprocess.DEVNULL,
                           check=True)
        os.unlink(big)
        size = os.path.getsize(stream)
        tdp = [tdprof, "branches", "report", "--no-disasm", "-i"]
        perf = ["perf", "report", "-b"] + PERF_SORT + ["-i"]
        cmds = {
            "tdprof file": (tdp + [stream], None),
            "tdprof pipe": (tdp + ["-"], stream),
            "perf file": (perf + [stream], None),
            "perf pipe": (perf + ["-"], stream),
        }
        for argv, piped in cmds.values():  # warm-up (page cache, binaries)
            measure_piped(argv, piped) if piped else benchlib.measure(argv)
        r = interleave(cmds, a.runs)
        cat = subprocess.Popen(["cat", stream], stdout=subprocess.PIPE)
        peak = json.loads(subprocess.run([count, "-"], stdin=cat.stdout, capture_output=True,
                                         check=True).stdout)
        cat.stdout.close()
        cat.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = "%.2f / %.2f / %.2f" % os.getloadavg()
    mb = size / 1e6
    rows = []
    for k in cmds:
        v = r[k]
        rows.append("| %s | %.3f s | %.3f s | %.0f MB/s | %.1f MB |" % (k, v["wall"], v["cpu"], mb / v["wall"],
                                                                      v["rss"] / 1024))
    ratio = {
        "tdprof pipe / file": r["tdprof pipe"]["wall"] / r["tdprof file"]["wall"],
        "perf pipe / file": r["perf pipe"]["wall"] / r["perf file"]["wall"],
        "tdprof / perf, file": r["tdprof file"]["wall"] / r["perf file"]["wall"],
        "tdprof / perf, pipe": r["tdprof pipe"]["wall"] / r["perf pipe"]["wall"],
    }
    text = """## `-i -`: a pipe-mode stream read as it arrives (issue 17, item 7)

`tdprof branches report -i -` decodes a `perf record -o -` stream from a buffer of two of the
largest records (128 KiB) instead of reading it whole first: memory no longer grows with the
stream. Measured against the same bytes read from the file (mapped), and perf report on both.

Command: `bench/pipe-stream.py --build BUILD --runs %d --samples %d` (a stream of %d samples x 32
LBR entries, %.1f MB, made by `perf inject -o -` from bench/gen-big-perfdata's repetition of
perf.data.branch-4.14; `cat` feeds the pipe; medians of %d interleaved runs after one warm-up).

Machine: %s; load average %s when the script ended (other sessions' builds and tests were
running: not quiet, so read the ratios, not the times); %s.

| reader | wall | CPU | throughput | peak RSS |
|---|---:|---:|---:|---:|
%s

Ratios (wall): tdprof pipe / file **%.2f**, perf pipe / file %.2f; tdprof / perf on the file
**%.3f**, on the pipe **%.3f**.

The reader's own accounting on the same pipe (tests/tools/perfdata-count -): stream buffer peak
%d bytes for %d bytes of stream (%d records). tdprof's peak RSS on the pipe is below that on the
file because the mapped file's pages count in RSS as they are read. A large file is decoded on
two threads (one decodes, one aggregates); a stream on one, as its writer (here cat, in real use
perf record) has the other CPU.
""" % (a.runs, a.samples, a.samples, mb, a.runs, benchlib.machine(), load, datetime.date.today().isoformat(),
       "\n".join(rows), ratio["tdprof pipe / file"], ratio["perf pipe / file"], ratio["tdprof / perf, file"],
       ratio["tdprof / perf, pipe"], peak["buffer_peak"], size, peak["records"])
    print(text)
    if not a.no_write:
        print("wrote", write_results(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
