"""tdprof stat end to end with software events (they work without a PMU):
enable_on_exec, inherit, exit codes, -r, -I, -x and --json, -p/-t, bad input."""
import json
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


def csv_rows(text, sep=","):
    """perf stat -x rows as dicts (non-interval, no -r)."""
    rows = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        f = line.split(sep)
        tdp.check(len(f) == 7, "expected 7 CSV fields (6 separators), got %d: %r" % (len(f), line))
        rows[f[2]] = {"value": f[0], "unit": f[1], "run": int(f[3]), "pct": float(f[4]),
                      "metric": f[5], "metric_unit": f[6]}
    return rows


def msec(row):
    tdp.check(row["unit"] == "msec", "task-clock is in msec: %r" % row)
    return float(row["value"])


def software_ok():
    r = tdp.run("stat", "-x,", "-e", "task-clock", "--", "/bin/true")
    if r.code != 0 or "<not supported>" in r.out:
        raise tdp.Skip("software counters do not open here:\n%r" % r)


def test_enable_on_exec_sleep_not_counted():
    software_ok()
    # /bin/sleep 0.2 sleeps 200 ms; it runs for well under 1 ms. If tdprof's own
    # start-up or the sleep were counted, task-clock would be far larger.
    r = tdp.run("stat", "-x,", "-e", "task-clock,page-faults", "--", "/bin/sleep", "0.2")
    tdp.expect_exit(r, 0)
    rows = csv_rows(r.out)
    tc = msec(rows["task-clock"])
    tdp.check(0 < tc < 20, "task-clock %.2f ms should be far below the 200 ms slept" % tc, r)
    tdp.check(r.elapsed >= 0.2, "the run lasted the 200 ms sleep", r)
    tdp.check(int(rows["page-faults"]["value"]) > 0, "sleep faults in its pages", r)


def test_enable_on_exec_counts_the_work():
    software_ok()
    # wl-spin 80 burns 80 ms of its own CPU time: task-clock counts at least that,
    # and not much more (start-up of a small C program is ~1 ms).
    r = tdp.run("stat", "-x,", "-e", "task-clock", "--", wl("wl-spin"), "80")
    tdp.expect_exit(r, 0)
    tc = msec(csv_rows(r.out)["task-clock"])
    # (the bound is loose: start-up under a sanitizer or on a loaded machine costs more)
    tdp.check(75 <= tc < 120, "task-clock %.2f ms for 80 ms of CPU burnt" % tc, r)


def test_inherit_two_threads():
    software_ok()
    # Two threads each burn 200 ms of CPU: 2 x 200 = 400 ms in total.
    r = tdp.run("stat", "-x,", "-e", "task-clock", "--", wl("wl-busy-threads"), "2", "200")
    tdp.expect_exit(r, 0)
    tc = msec(csv_rows(r.out)["task-clock"])
    self_ns = int(r.err.split("cpu_ns=")[1].split()[0])
    tdp.check(tc >= 380, "task-clock %.1f ms covers both threads (2 x 200 ms)" % tc, r)
    tdp.check(abs(tc - self_ns / 1e6) < 0.1 * tc,
              "task-clock %.1f ms agrees with the process CPU time %.1f ms" % (tc, self_ns / 1e6), r)
    # About twice the wall time when two CPUs are free (not on a loaded machine).
    j = tdp.run("stat", "--json", "-e", "task-clock", "--", wl("wl-busy-threads"), "2", "200").json()
    util = j["events"][0]["value"] * 1e6 / j["elapsed_ns"]
    if (os.cpu_count() or 1) >= 2 and os.getloadavg()[0] < 0.5:
        tdp.check(util > 1.6, "two busy threads: %.2f CPUs utilized, expected about 2" % util)
    else:
        print("note: %.2f CPUs utilized (machine loaded: not checked)" % util)


def test_no_inherit_counts_only_the_main_thread():
    software_ok()
    r = tdp.run("stat", "-x,", "--no-inherit", "-e", "task-clock", "--", wl("wl-busy-threads"), "2", "200")
    tdp.expect_exit(r, 0)
    tc = msec(csv_rows(r.out)["task-clock"])
    tdp.check(tc < 50, "main thread only (it just joins): %.1f ms, not the threads' 400 ms" % tc, r)


def test_exit_status_is_the_workload_s():
    r = tdp.run("stat", "-e", "task-clock", "--", wl("wl-exit"), "7")
    tdp.expect_exit(r, 7)
    tdp.expect_in("task-clock", r.out, "stdout", r)


def test_sigsegv_is_139():
    r = tdp.run("stat", "-e", "task-clock", "--", wl("wl-exit"), "segv")
    tdp.expect_exit(r, 139)
    tdp.expect_in("Performance counter stats", r.out, "stdout: counts are printed anyway", r)


def test_missing_command_is_127():
    r = tdp.run("stat", "-e", "task-clock", "--", "tdprof-no-such-command")
    tdp.expect_exit(r, 127)
    tdp.expect_in("tdprof: error: 'tdprof-no-such-command': command not found", r.err, "stderr", r)
    tdp.expect_in("tdprof: hint:", r.err, "stderr", r)
    tdp.check("Performance counter stats" not in r.out, "nothing measured", r)
    r = tdp.run("stat", "-e", "task-clock", "--", "./no/such/prog")
    tdp.expect_exit(r, 127)
    tdp.expect_in("cannot run './no/such/prog': no such file or directory", r.err, "stderr", r)


def test_not_executable_is_126():
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("not a program\n")
    try:
        os.chmod(f.name, 0o644)
        r = tdp.run("stat", "-e", "task-clock", "--", f.name)
        tdp.expect_exit(r, 126)
        tdp.expect_in("cannot run '%s': permission denied" % f.name, r.err, "stderr", r)
        tdp.expect_in("chmod +x", r.err, "stderr", r)
    finally:
        os.unlink(f.name)


def test_repeat_shows_variance():
    software_ok()
    r = tdp.run("stat", "-r", "3", "-e", "task-clock,page-faults", "--", wl("wl-spin"), "5")
    tdp.expect_exit(r, 0)
    tdp.expect_in("Performance counter stats for '%s 5' (3 runs):" % wl("wl-spin"), r.out, "stdout", r)
    line = [l for l in r.out.splitlines() if "task-clock" in l][0]
    tdp.check("( +-" in line and line.rstrip().endswith("% )"), "variance on the task-clock line: %r" % line, r)
    tdp.expect_in(" +- ", [l for l in r.out.splitlines() if "seconds time elapsed" in l][0], "elapsed line", r)
    # CSV: the variance is the 4th field, right after the event name (perf 6.1)
    r = tdp.run("stat", "-r", "3", "-x,", "-e", "task-clock,cycles", "--", wl("wl-spin"), "5")
    tdp.expect_exit(r, 0)
    for line in r.out.splitlines():
        f = line.split(",")
        tdp.check(len(f) == 8 and f[3].endswith("%"), "variance after the event name: %r" % line, r)
    j = tdp.run("stat", "--json", "-r", "3", "-e", "task-clock", "--", wl("wl-spin"), "5").json()
    tdp.check(j["runs"] == 3 and j["events"][0]["stddev_pct"] is not None, "JSON stddev_pct with -r", None)


def test_intervals():
    software_ok()
    # wl-spin burns 450 ms of CPU: at least four 100 ms intervals, then the partial one.
    r = tdp.run("stat", "-I", "100", "-x,", "-e", "task-clock", "--", wl("wl-spin"), "450")
    tdp.expect_exit(r, 0)
    lines = [l for l in r.out.splitlines() if l.strip()]
    tdp.check(len(lines) >= 4, "several intervals, got %d" % len(lines), r)
    times, total = [], 0.0
    for l in lines:
        f = l.split(",")
        tdp.check(len(f) == 8 and f[0].startswith(" ") and f[3] == "task-clock",
                  "perf's -I CSV layout (space-padded time first): %r" % l, r)
        times.append(float(f[0]))
        if f[1] != "<not counted>":
            total += float(f[1])
    tdp.check(times == sorted(times) and times[0] >= 0.09, "timestamps increase from ~0.1 s: %r" % times, r)
    tdp.check(total >= 449, "the intervals add up to the 450 ms burnt (%.1f ms)" % total, r)
    # human layout: perf's header, then the summary tdprof adds
    r = tdp.run("stat", "-I", "100", "-e", "task-clock", "--", wl("wl-spin"), "250")
    tdp.expect_exit(r, 0)
    tdp.check(r.out.startswith("#           time             counts unit events\n"), "perf's -I header", r)
    tdp.expect_in("Performance counter stats for", r.out, "summary after the intervals", r)
    j = tdp.run("stat", "--json", "-I", "100", "-e", "task-clock", "--", wl("wl-spin"), "250").json()
    tdp.check(len(j["intervals"]) >= 2, "JSON intervals: %d" % len(j["intervals"]))


def test_csv_and_json_agree():
    software_ok()
    ev = "task-clock,page-faults,cycles,context-switches"
    r = tdp.run("stat", "-x,", "-e", ev, "--", wl("wl-spin"), "100")
    tdp.expect_exit(r, 0)
    rows = csv_rows(r.out)
    j = tdp.run("stat", "--json", "-e", ev, "--", wl("wl-spin"), "100").json()
    tdp.check(j["backend"] == "pmu" and j["exit_status"] == 0, "JSON header fields: %r" % j)
    names = [e["event"] for e in j["events"]]
    tdp.check(names == ev.split(","), "same events in the same order: %r" % names)
    for e in j["events"]:
        row = rows[e["event"]]
        tdp.check(row["unit"] == e["unit"], "unit of %s: %r vs %r" % (e["event"], row, e))
        if e["status"] == "counted":
            tdp.check(e["value"] is not None and not row["value"].startswith("<"), "counted in both: %r" % e)
        else:
            tdp.check(e["value"] is None and row["value"] == "<%s>" % e["status"],
                      "%s is %s in both, never 0: CSV %r" % (e["event"], e["status"], row))
    # both measured ~100 ms of CPU for the same workload
    tc_csv, tc_json = msec(rows["task-clock"]), j["events"][0]["value"]
    tdp.check(99 <= tc_csv < 130 and 99 <= tc_json < 130, "task-clock %.1f vs %.1f ms" % (tc_csv, tc_json))
    for k in ("cpi", "ipc", "branch_miss_rate", "branch_mpki", "l1i_mpki", "llc_mpki"):
        tdp.check(k in j["metrics"], "metrics.%s present" % k)
    tdp.check("next" in j["route"] and "reason" in j["route"], "route {next, reason}")
    tdp.check(j["elapsed_ns"] >= 99e6, "elapsed_ns covers the run: %r" % j["elapsed_ns"])


def test_output_file_and_separator():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "counts.csv")
        r = tdp.run("stat", "-x;", "-o", out, "-e", "task-clock", "--", "/bin/true")
        tdp.expect_exit(r, 0)
        tdp.check(r.out == "", "results went to the file", r)
        with open(out) as f:
            text = f.read()
        tdp.check(text.count(";") == 6 and ";msec;task-clock;" in text, "CSV with ';': %r" % text, r)


def test_bad_event_is_exit_2_and_runs_nothing():
    with tempfile.TemporaryDirectory() as d:
        marker = os.path.join(d, "ran")
        r = tdp.run("stat", "-e", "task-clock,no-such-event-xyz", "--", "/usr/bin/touch", marker)
        tdp.expect_exit(r, 2)
        tdp.expect_in("tdprof: error:", r.err, "stderr", r)
        tdp.expect_in("no-such-event-xyz", r.err, "stderr names the event", r)
        tdp.check(not os.path.exists(marker), "the workload must not run", r)


def test_usage_errors():
    for args, want in ((["stat"], "no command to run"),
                       (["stat", "--json", "-x,", "--", "true"], "'--json' and '-x' cannot be used together"),
                       (["stat", "-r", "2", "-I", "100", "--", "true"], "'-r' and '-I' cannot be used together"),
                       (["stat", "-p", "12x"], "'12x' is not a process or thread id"),
                       (["stat", "-a", "-C", "0", "--", "true"], "'-a' and '-C' cannot be used together"),
                       (["stat", "-C", "0-", "--", "true"], "CPU list '0-'")):
        r = tdp.run(*args)
        tdp.expect_exit(r, 2)
        tdp.expect_in(want, r.err, "stderr", r)


def test_documents_on_stdout_hold_no_workload_output():
    software_ok()
    # `tdprof stat --json -- ./prog > s.json` must give JSON: the program's own output goes
    # to stderr meanwhile (as perf keeps its counts apart from the program's)
    r = tdp.run("stat", "--json", "-e", "task-clock", "--", "/bin/echo", "workload-says-hello")
    tdp.expect_exit(r, 0)
    tdp.check(r.json()["backend"] == "pmu", "stdout is one JSON document", r)
    tdp.expect_in("workload-says-hello", r.err, "stderr", r)
    r = tdp.run("stat", "-x,", "-e", "task-clock", "--", "/bin/echo", "workload-says-hello")
    tdp.expect_exit(r, 0)
    tdp.check("workload-says-hello" not in r.out and ",task-clock," in r.out, "stdout holds only the CSV", r)
    tdp.expect_in("workload-says-hello", r.err, "stderr", r)
    # with -o FILE the program keeps its stdout
    out = os.path.join(tempfile.mkdtemp(prefix="tdprof-e2e-stat-"), "s.json")
    r = tdp.run("stat", "--json", "-o", out, "-e", "task-clock", "--", "/bin/echo", "workload-says-hello")
    tdp.expect_exit(r, 0)
    tdp.expect_in("workload-says-hello", r.out, "stdout", r)
    with open(out) as f:
        tdp.check(json.load(f)["backend"] == "pmu", "the file holds the document", r)


def test_pid_on_a_sleeping_process():
    software_ok()
    # the target sleeps until tdprof has attached, then ends: tdprof ends with it
    target = subprocess.Popen(["/bin/sleep", "600"])
    try:
        p = subprocess.Popen([tdp.TDPROF, "stat", "-x,", "-e", "task-clock,context-switches", "-p",
                              str(target.pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tdp.wait_attached(p)
        tdp.check(p.poll() is None, "tdprof keeps counting while the process sleeps")
        target.terminate()
        target.wait()
        out, err = p.communicate(timeout=60)
        tdp.check(p.returncode == 0, "exit 0 when the attached process ends, got %d: %s" % (p.returncode, err))
        rows = csv_rows(out)
        # it slept the whole time: almost no CPU, whatever is printed must be real
        tc = rows["task-clock"]["value"]
        tdp.check(tc == "<not counted>" or float(tc) < 5, "a sleeping process uses no CPU: %r" % tc)
    finally:
        target.kill()
        target.wait()


def test_pid_until_sigint_leaves_the_target_alone():
    software_ok()
    target = subprocess.Popen([wl("wl-spin"), "0"])
    try:
        p = subprocess.Popen([tdp.TDPROF, "stat", "-x,", "-e", "task-clock", "-p", str(target.pid)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tdp.wait_attached(p)
        tdp.wait_cpu(target.pid, tdp.proc_stat(target.pid)["cpu_ms"] + 50)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        tdp.check(p.returncode == 0, "exit 0 after ^C when attached, got %d: %s" % (p.returncode, err))
        tc = msec(csv_rows(out)["task-clock"])
        tdp.check(tc > 20, "the spinning target ran while attached: %.1f ms" % tc)
        tdp.check(target.poll() is None, "the target keeps running after tdprof stops")
    finally:
        target.kill()
        target.wait()


def test_tid_of_a_thread():
    software_ok()
    target = subprocess.Popen(["/bin/sleep", "600"])
    try:
        p = subprocess.Popen([tdp.TDPROF, "stat", "-e", "task-clock", "-t", str(target.pid)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tdp.wait_attached(p)
        target.terminate()
        out, err = p.communicate(timeout=60)
        tdp.check(p.returncode == 0, "exit 0, got %d: %s" % (p.returncode, err))
        tdp.expect_in("Performance counter stats for thread id '%d'" % target.pid, out, "stdout")
    finally:
        target.kill()
        target.wait()


def test_pid_that_does_not_exist():
    with open("/proc/sys/kernel/pid_max") as f:
        pid = int(f.read()) + 1
    r = tdp.run("stat", "-e", "task-clock", "-p", pid)
    tdp.expect_exit(r, 2)
    tdp.expect_in("tdprof: error: no process with id %d" % pid, r.err, "stderr", r)


def run_fork_orphan(ms, code):
    """Run `tdprof stat -- wl-fork-orphan MS CODE`; check its exit status is CODE; return its
    stdout and the orphans (the children that outlived tdprof, killed here)."""
    with tempfile.TemporaryFile("w+") as out:
        p = subprocess.Popen([tdp.TDPROF, "stat", "-x,", "-e", "task-clock", "--", wl("wl-fork-orphan"), ms, code],
                             stdout=out, stderr=subprocess.DEVNULL)
        rc = p.wait(timeout=120)
        found = tdp.processes_running("wl-fork-orphan", ms)
        for pid in found:
            os.kill(pid, signal.SIGKILL)
        out.seek(0)
        text = out.read()
    tdp.check(rc == int(code), "the parent's exit status %s, got %d" % (code, rc))
    return text, found


def test_workload_that_forks_and_exits_before_its_children():
    software_ok()
    # The parent exits at once with 3; its child burns a minute of CPU. tdprof, like
    # perf, ends with the command it started: it must not wait for the orphan, which
    # is still running when tdprof returns.
    text, orphans = run_fork_orphan("60001", "3")
    tdp.check(orphans, "tdprof ended with its command, while the orphan still runs")
    tc = msec(csv_rows(text)["task-clock"])
    tdp.check(tc > 0, "counts printed: %.2f ms" % tc)


def test_all_cpus_and_cpu_list():
    software_ok()
    r = tdp.run("stat", "-x,", "-e", "cpu-clock", "-C", "0", "--", "/bin/sleep", "0.2")
    if r.code == 1 and "not allowed" in r.err:
        raise tdp.Skip("CPU-wide counting not allowed here")
    tdp.expect_exit(r, 0)
    # cpu-clock on one CPU for the 200 ms the command ran: about 200 ms
    cc = msec(csv_rows(r.out)["cpu-clock"])
    tdp.check(190 <= cc <= 400, "cpu-clock of CPU 0 over 0.2 s: %.1f ms" % cc, r)
    n = os.cpu_count() or 1
    r = tdp.run("stat", "-x,", "-e", "cpu-clock", "-a", "--", "/bin/sleep", "0.2")
    tdp.expect_exit(r, 0)
    cc = msec(csv_rows(r.out)["cpu-clock"])
    tdp.check(190 * n <= cc <= 400 * n, "cpu-clock summed over %d CPUs: %.1f ms" % (n, cc), r)


def test_default_set_without_a_pmu():
    r = tdp.run("stat", "--", "/bin/true")
    tdp.expect_exit(r, 0)
    for ev in ("task-clock", "context-switches", "cpu-migrations", "page-faults", "cycles", "instructions",
               "branches", "branch-misses", "L1-icache-load-misses", "cache-references", "cache-misses"):
        tdp.expect_in(" %s " % ev, r.out, "stdout lists %s" % ev, r)
    hw = [l for l in r.out.splitlines() if l.split() and l.split()[-1] == "cycles"]
    if "<not supported>" in hw[0]:
        tdp.check(r.out.count("hardware counters are unavailable") == 1, "one line saying so", r)
        tdp.expect_in("rerun with --backend=sim for a simulated estimate", r.out, "stdout", r)
        tdp.check(" 0      cycles" not in r.out, "never 0 for an unsupported count", r)
        j = tdp.run("stat", "--json", "--", "/bin/true").json()
        tdp.check(j["hardware"]["available"] is False and j["route"]["next"] is None, "JSON says so: %r" % j)
        tdp.check(all(e["value"] is None for e in j["events"] if e["status"] != "counted"), "nulls")
    else:
        tdp.expect_in(" next: ", r.out, "a routing verdict with a PMU", r)


def test_layout_matches_perf_stat():
    # The same events through perf stat 6.1 and tdprof stat: the columns line up
    # the same way (values differ between runs; positions must not).
    try:
        perf = subprocess.run(["perf", "stat", "-e", "task-clock,page-faults,cycles", "--", "/bin/true"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        raise tdp.Skip("perf not available")
    if perf.returncode != 0:
        raise tdp.Skip("perf stat failed here: %s" % perf.stderr[-300:])
    r = tdp.run("stat", "-e", "task-clock,page-faults,cycles", "--", "/bin/true")
    tdp.expect_exit(r, 0)

    def shape(text):
        out = {}
        for l in text.splitlines():
            for ev in ("task-clock", "page-faults", "cycles"):
                if l.split()[-1:] == [ev] or (" %s " % ev) in l:
                    # a line with a metric can grow when the metric needs more digits
                    # (perf's own elapsed time is sometimes tiny): compare its length
                    # only when there is no metric
                    out[ev] = (l.index(ev), l.find("#"), len(l) if "#" not in l else None)
        return out
    theirs, ours = shape(perf.stderr), shape(r.out)
    tdp.check(theirs == ours, "column positions (name, '#', length) differ:\nperf %r\ntdprof %r\n%s" %
              (theirs, ours, perf.stderr), r)


tdp.main(globals())
