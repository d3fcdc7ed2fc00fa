"""Shared by the benchmark scripts: measure one child process (wall, CPU, peak RSS), and say which machine."""
import os
import platform
import subprocess
import sys
import time


def measure(argv):
    """Run argv with stdout and stderr to /dev/null; (wall s, cpu s, peak RSS KiB, exit status)."""
    with open(os.devnull, "wb") as null:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=null, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


def measure_ok(argv):
    """measure(), exiting the benchmark when argv fails; (wall s, cpu s, peak RSS KiB)."""
    wall, cpu, rss, code = measure(argv)
    if code != 0:
        sys.exit("benchmark: %s exited %d" % (" ".join(argv), code))
    return wall, cpu, rss


def cpu_model():
    """The CPU's model name from /proc/cpuinfo; "" when it has none."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def machine():
    """The machine in one line for RESULTS.md: CPU, CPUs, kernel and perf's version."""
    perf = subprocess.run(["perf", "--version"], capture_output=True, text=True).stdout.strip()
    return "%s, %d CPUs, Linux %s, %s" % (cpu_model() or "unknown CPU", os.cpu_count() or 0, platform.release(), perf)


def write_results(begin, end, text):
    """Put text between the markers begin and end of bench/RESULTS.md (replacing what
    stood there, else appended; the file made when missing); returns its path."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md")
    old = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    block = begin + "\n" + text.rstrip("\n") + "\n" + end + "\n"
    if begin in old and end in old:
        new = old[:old.index(begin)] + block + old[old.index(end) + len(end):].lstrip("\n")
    else:
        new = (old.rstrip("\n") + "\n\n" if old else "# Benchmark results\n\n") + block
    with open(path, "w") as f:
        f.write(new)
    return path
