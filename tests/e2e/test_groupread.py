"""Group-read sampling (PERF_SAMPLE_READ + PERF_FORMAT_GROUP) attributed by IP.

perf records '{cpu-clock,task-clock}:S' here (software events need no PMU); the
counts diagnose/groupread.h charges to each IP (through the test tool groupread-dump)
must equal what perf script charges: the sum of each event's periods per IP, which perf
derives from the same group reads. Skips without perf or when perf cannot record.
"""
import collections
import os
import shutil
import subprocess
import tempfile

import tdp


def dump_tool():
    path = os.path.join(tdp.BUILD_ROOT, "tests", "unit", "diagnose", "groupread-dump")
    if not os.access(path, os.X_OK):
        raise tdp.Skip("groupread-dump not built: %s" % path)
    return path


def record(d):
    if not shutil.which("perf"):
        raise tdp.Skip("perf is not installed")
    wl = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads", "wl-twofn")
    if not os.access(wl, os.X_OK):
        raise tdp.Skip("workload not built: %s" % wl)
    f = os.path.join(d, "g.data")
    r = subprocess.run(["perf", "record", "-e", "{cpu-clock,task-clock}:S", "-o", f, "--", wl],
                       capture_output=True, text=True, timeout=240)
    if r.returncode != 0 or not os.path.exists(f):
        raise tdp.Skip("perf record cannot record here: %s" % r.stderr.strip()[-200:])
    return f


def perf_periods(f):
    r = subprocess.run(["perf", "script", "-i", f, "-F", "ip,period,event"], capture_output=True, text=True,
                       timeout=240)
    tdp.check(r.returncode == 0, "perf script: %s" % r.stderr[-300:])
    got = collections.Counter()
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 3:
            got[(int(f[2], 16), f[1].rstrip(":"))] += int(f[0])
    return got


def test_counts_by_ip_equal_perf_script():
    with tempfile.TemporaryDirectory(prefix="tdprof-gr-") as d:
        f = record(d)
        want = perf_periods(f)
        r = subprocess.run([dump_tool(), f], capture_output=True, text=True, timeout=240)
        tdp.check(r.returncode == 0, "groupread-dump: %s" % r.stderr)
        got = collections.Counter()
        for line in r.stdout.splitlines():
            if not line.startswith("#"):
                ip, ev, v = line.split()
                got[(int(ip, 16), ev)] += int(v)
        tdp.check(len(want) > 10, "perf charged several IPs: %d" % len(want))
        tdp.check({e for _, e in got} == {"cpu-clock", "task-clock"}, "both members: %r" % {e for _, e in got})
        diff = sorted((k, want[k], got[k]) for k in set(want) | set(got) if want[k] != got[k])
        tdp.check(not diff, "per-IP counts differ from perf script's: %r" % diff[:5])


def test_cut_file_is_an_error_not_a_crash():
    with tempfile.TemporaryDirectory(prefix="tdprof-gr-") as d:
        f = record(d)
        data = open(f, "rb").read()
        cut = os.path.join(d, "cut.data")
        with open(cut, "wb") as o:
            o.write(data[:len(data) // 2])
        r = subprocess.run([dump_tool(), cut], capture_output=True, text=True, timeout=60)
        tdp.check(r.returncode == 2 and "cut.data" in r.stderr, "a cut file: exit 2 naming it: %r" % r.stderr)


tdp.main(globals())
