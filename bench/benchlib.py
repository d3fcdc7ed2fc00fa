"""Shared by the benchmark scripts: measure one child process (wall, CPU, peak RSS)."""
import os
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
