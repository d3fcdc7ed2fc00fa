"""tdprof branches record: the recording machinery, judged by Debian's perf 6.1.

This machine has no hardware PMU, so the machinery is exercised with cpu-clock
sampling (software events carry no branch stack): the file must be one that
`perf script` and `perf report` read, with the samples in the workload's hot
function, the build-ids `readelf -n` prints, the header features perf writes,
samples from threads and forked children with their FORK/EXIT records, and our
reader (src/perfdata, through bench/perfdata-read) must count the samples perf
prints. Also: SIGINT mid-recording, a full disk, lost samples, the no-PMU
message for the default (hardware) event, bad -j filters, exit statuses.
Skips what needs perf when it is not installed.
"""
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import tdp  # noqa: E402

WORKLOADS = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads")
TMP = tempfile.mkdtemp(prefix="tdprof-record-")
HOT = "wl_hot_loop"  # the function wl-hot burns its CPU time in


def wl(name):
    p = os.path.join(WORKLOADS, name)
    if not os.access(p, os.X_OK):
        raise tdp.Skip("workload not built: %s" % p)
    return p


def perf():
    p = shutil.which("perf")
    if not p:
        raise tdp.Skip("perf is not installed")
    return p


def out_file(name):
    p = os.path.join(TMP, name)
    if os.path.exists(p):
        os.unlink(p)
    return p


def sh(argv, ok=True, timeout=120):
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if ok:
        tdp.check(proc.returncode == 0, "%s exited %d:\n%s" % (argv, proc.returncode, proc.stderr[-3000:]))
    return proc


def perf_script(path, fields):
    return sh([perf(), "script", "-i", path, "-F", fields]).stdout.splitlines()


def record(path, *args, timeout=120):
    return tdp.run("branches", "record", "-o", path, *args, timeout=timeout)


def build_id_of(binary):
    """The GNU build-id as readelf prints it (an independent reading of the ELF note)."""
    out = sh(["readelf", "-n", binary]).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not m:
        raise tdp.Skip("%s has no build-id note" % binary)
    return m.group(1)


def reader_counts(path):
    """Samples and branch entries as src/perfdata's reader counts them (bench/perfdata-read)."""
    tool = os.path.join(tdp.BUILD_ROOT, "bench", "perfdata-read")
    if not os.access(tool, os.X_OK):
        raise tdp.Skip("bench/perfdata-read not built")
    out = sh([tool, path, "1"]).stdout
    m = re.search(r"samples (\d+) entries (\d+)", out)
    tdp.check(m is not None, "perfdata-read printed no counts: %r" % out)
    return int(m.group(1)), int(m.group(2))


# ---- cpu-clock recordings read back by perf ---------------------------------------------

def test_cpu_clock_recording_is_read_by_perf():
    f = out_file("spin.data")
    # 300 ms of the workload's own CPU time sampled every 100000 ns of cpu-clock:
    # 300e6 / 1e5 = 3000 samples (plus a few for start-up and exit)
    r = record(f, "-e", "cpu-clock", "-c", "100000", "--", wl("wl-hot"), "spin", "1", "300")
    tdp.expect_exit(r, 0)
    tdp.expect_in("'cpu-clock' is a software event", r.err, "stderr", r)
    mode = stat.S_IMODE(os.stat(f).st_mode)
    tdp.check(mode == 0o600, "the recording must be private (0600), not %o" % mode, r)

    lines = perf_script(f, "comm,ip,sym")
    tdp.check(2400 <= len(lines) <= 4500, "expected about 3000 samples, perf script printed %d" % len(lines), r)
    hot = [ln for ln in lines if ln.split()[-1:] == [HOT]]
    tdp.check(all(ln.split()[0] == "wl-hot" for ln in lines), "every sample is of wl-hot:\n%s" % lines[:5])
    # the loop is all the workload does between its clock reads
    tdp.check(len(hot) > len(lines) // 2, "most samples must be in %s: %d of %d" % (HOT, len(hot), len(lines)))

    rep = sh([perf(), "report", "-i", f, "--stdio", "--sort", "comm,dso,sym"])
    tdp.expect_in(HOT, rep.stdout, "perf report")
    tdp.check(re.search(r"# Samples: \d+K? +of event 'cpu-clock'", rep.stdout) is not None,
              "perf report names the event:\n" + rep.stdout[:800])
    tdp.check("WARNING" not in rep.stderr, "perf warns about the file:\n" + rep.stderr)

    samples, entries = reader_counts(f)
    tdp.check(samples == len(lines), "our reader counts %d samples, perf script printed %d" % (samples, len(lines)))
    tdp.check(entries == 0, "cpu-clock samples carry no branch entries, the reader found %d" % entries)
    tdp.expect_in("wrote '%s': %d samples" % (f, samples), r.err, "stderr", r)


def test_build_ids_are_those_readelf_prints():
    f = out_file("bid.data")
    r = record(f, "-e", "cpu-clock", "-F", "2000", "--", wl("wl-hot"), "spin", "1", "200")
    tdp.expect_exit(r, 0)
    ids = {}
    for line in sh([perf(), "buildid-list", "-i", f]).stdout.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2:
            ids[parts[1]] = parts[0]
    want = build_id_of(wl("wl-hot"))
    tdp.check(ids.get(os.path.realpath(wl("wl-hot"))) == want,
              "build-id of wl-hot: file has %r, readelf says %s" % (ids, want))
    # the kernel's, from /sys/kernel/notes, when kernel samples were taken
    if "[kernel.kallsyms]" in ids and os.access("/sys/kernel/notes", os.R_OK):
        with open("/sys/kernel/notes", "rb") as fh:
            notes = fh.read()
        tdp.check(bytes.fromhex(ids["[kernel.kallsyms]"]) in notes, "kernel build-id not in /sys/kernel/notes")
    hdr = sh([perf(), "report", "-i", f, "--header-only"]).stdout
    tdp.check("BUILD_ID" not in re.sub(r"(?s).*missing features:", "", hdr).split("\n")[0],
              "the BUILD_ID feature is present:\n" + hdr)


def test_header_features_say_where_and_how():
    f = out_file("hdr.data")
    r = record(f, "-e", "cpu-clock", "-F", "1000", "--", wl("wl-hot"), "spin", "1", "50")
    tdp.expect_exit(r, 0)
    hdr = sh([perf(), "report", "-i", f, "--header-only"]).stdout
    u = os.uname()
    for want in ("# hostname : " + socket.gethostname(), "# os release : " + u.release, "# arch : " + u.machine,
                 "# nrcpus online : %d" % os.cpu_count(), "branches record -o " + f, "# cpuid : ",
                 "name = cpu-clock", "sample_type = IP|TID|TIME|CPU|PERIOD|IDENTIFIER", "sample_id_all = 1",
                 "enable_on_exec = 1", "inherit = 1", "mmap2 = 1", "comm_exec = 1", "# pmu mappings: "):
        tdp.expect_in(want, hdr, "perf report --header-only")
    with open("/proc/cpuinfo") as fh:
        vendor = re.search(r"vendor_id\s*: (\S+)", fh.read())
    if vendor:
        tdp.expect_in("# cpuid : " + vendor.group(1) + ",", hdr, "perf report --header-only")


def test_freq_mode():
    f = out_file("freq.data")
    # 300 ms of CPU at 1000 samples per second: about 300 samples
    r = record(f, "-e", "cpu-clock", "-F", "1000", "--", wl("wl-hot"), "spin", "1", "300")
    tdp.expect_exit(r, 0)
    ev = sh([perf(), "evlist", "-v", "-i", f]).stdout
    tdp.expect_in("sample_freq }: 1000", ev, "perf evlist -v")
    tdp.expect_in("freq: 1", ev, "perf evlist -v")
    n = len(perf_script(f, "ip"))
    tdp.check(200 <= n <= 450, "expected about 300 samples at -F 1000 for 300 ms, got %d" % n)


def test_threads_are_followed():
    f = out_file("threads.data")
    r = record(f, "-e", "cpu-clock", "-F", "1000", "--", wl("wl-hot"), "threads", "2", "200")
    tdp.expect_exit(r, 0)
    tids = set(re.findall(r"tid=(\d+)", r.err))
    tdp.check(len(tids) == 2, "the workload printed its threads' ids", r)
    seen = {}
    for line in perf_script(f, "tid,ip,sym"):  # perf prints sym only with ip
        p = line.split()
        if len(p) >= 3 and p[-1] == HOT:
            seen[p[0]] = seen.get(p[0], 0) + 1
    for t in tids:
        # 200 ms of CPU each at 1000 Hz: about 200 samples in the loop
        tdp.check(seen.get(t, 0) >= 100, "thread %s has %d samples in %s (%r)" % (t, seen.get(t, 0), HOT, seen))


def test_forked_children_are_followed():
    f = out_file("fork.data")
    r = record(f, "-e", "cpu-clock", "-F", "1000", "--", wl("wl-hot"), "fork", "2", "200")
    tdp.expect_exit(r, 0)
    parent = re.search(r"pid=(\d+)", r.err).group(1)
    children = set(re.findall(r"child=(\d+)", r.err))
    tdp.check(len(children) == 2, "the workload printed its children's ids", r)
    per_pid = {}
    for line in perf_script(f, "pid,ip,sym"):
        p = line.split()
        if len(p) >= 3 and p[-1] == HOT:
            per_pid[p[0]] = per_pid.get(p[0], 0) + 1
    for c in children:
        tdp.check(per_pid.get(c, 0) >= 100, "child %s has %d samples in %s (%r)" % (c, per_pid.get(c, 0), HOT,
                                                                                 per_pid))
    events = sh([perf(), "script", "-i", f, "--show-task-events", "-F", "comm,pid"]).stdout
    for c in children:
        tdp.check(re.search(r"PERF_RECORD_FORK\(%s:%s\):\(%s:%s\)" % (c, c, parent, parent), events),
                  "no FORK record of child %s from %s:\n%s" % (c, parent, events[-2000:]))
        tdp.check(re.search(r"PERF_RECORD_EXIT\(%s:%s\)" % (c, c), events), "no EXIT record of child " + c)


def test_sigint_mid_recording_finishes_the_file():
    f = out_file("sigint.data")
    p = subprocess.Popen([tdp.TDPROF, "branches", "record", "-e", "cpu-clock", "-o", f, "--", wl("wl-spin"), "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tdp.wait_workload(p, "wl-spin", 100)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    tdp.check(p.returncode == 128 + signal.SIGINT, "exit %d, want %d (the workload's death by SIGINT):\n%s" %
              (p.returncode, 128 + signal.SIGINT, err))
    tdp.expect_in("SIGINT was passed on to the command", err, "stderr")
    rep = sh([perf(), "report", "-i", f, "--stdio"])
    tdp.check("WARNING" not in rep.stderr, "perf warns about the interrupted file:\n" + rep.stderr)
    tdp.expect_in("of event 'cpu-clock'", rep.stdout, "perf report")
    tdp.check(len(perf_script(f, "ip")) > 0, "no samples before the interrupt")


def test_sigterm_and_sighup_finish_the_file_as_sigint_does():
    # a closed terminal (SIGHUP) or kill (SIGTERM): passed on to the workload, the file
    # finished and renamed into place, no temporary and no workload left behind
    for sig in (signal.SIGTERM, signal.SIGHUP):
        d = tempfile.mkdtemp(prefix="sig-", dir=TMP)
        f = os.path.join(d, "rec.data")
        p = subprocess.Popen([tdp.TDPROF, "branches", "record", "-e", "cpu-clock", "-o", f, "--",
                              wl("wl-spin"), "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        spin = tdp.wait_workload(p, "wl-spin", 100)
        p.send_signal(sig)
        try:
            _, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            if tdp.proc_stat(spin) and tdp.proc_stat(spin)["state"] != "Z":
                os.kill(spin, signal.SIGKILL)
                raise AssertionError("%s: the workload %d was left running" % (sig.name, spin))
        tdp.check(p.returncode == 128 + sig, "%s: exit %d, want %d (the workload's death by it):\n%s" %
                  (sig.name, p.returncode, 128 + sig, err))
        tdp.expect_in("SIG%s was passed on to the command" % sig.name[3:], err, "stderr")
        tdp.check(sorted(os.listdir(d)) == ["rec.data"], "%s: left in the directory: %r" % (sig.name, os.listdir(d)))
        r = tdp.run("branches", "report", "-i", f)
        tdp.expect_exit(r, 0)
        tdp.check(len(perf_script(f, "ip")) > 0, "%s: no samples before the signal" % sig.name)


def attach_and_record(f, target, cpu_ms):
    """Record target with -p until it has used cpu_ms more of CPU after tdprof opened its
    events; returns tdprof's exit status and stderr."""
    p = subprocess.Popen([tdp.TDPROF, "branches", "record", "-e", "cpu-clock", "-F", "1000", "-o", f,
                          "-p", str(target.pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tdp.wait_attached(p)
    tdp.wait_cpu(target.pid, tdp.proc_stat(target.pid)["cpu_ms"] + cpu_ms)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    return p.returncode, err


def test_attach_to_a_running_process():
    f = out_file("attach.data")
    target = subprocess.Popen([wl("wl-spin"), "0"])
    try:
        # wl-spin has started once its name is its own (after exec)
        tdp.wait_for(lambda: (tdp.proc_stat(target.pid) or {}).get("comm") == "wl-spin", "wl-spin to start")
        # The events are opened disabled and enabled once what exists has been synthesized
        # (/proc maps, kallsyms), which a loaded machine can make long: samples come with the
        # target's CPU time after that. Record again, longer, until the recording has them.
        for cpu_ms in (100, 400, 1600):
            code, err = attach_and_record(f, target, cpu_ms)
            tdp.check(code == 0, "exit %d:\n%s" % (code, err))
            syms = [ln.split()[-1] for ln in perf_script(f, "comm,ip,sym") if ln.split()]
            if syms.count("main"):
                break
    finally:
        target.kill()
        target.wait()
    tdp.expect_in("recording stopped by SIGINT", err, "stderr")
    events = sh([perf(), "script", "-i", f, "--show-task-events", "--show-mmap-events", "-F", "comm,pid"]).stdout
    # what existed before recording: the thread (COMM) and the executable mapping (MMAP2)
    tdp.check(re.search(r"PERF_RECORD_COMM: wl-spin:%d/%d" % (target.pid, target.pid), events),
              "no synthesized COMM of the process:\n" + events[:2000])
    tdp.check(re.search(r"PERF_RECORD_MMAP2 %d/%d: .* r-xp %s" % (target.pid, target.pid,
                                                                    re.escape(os.path.realpath(wl("wl-spin")))),
                        events), "no synthesized MMAP2 of wl-spin:\n" + events[:2000])
    tdp.check(syms.count("main") > 0, "no sample of wl-spin's main: %r" % syms[:20])


# ---- errors ------------------------------------------------------------------------------

def test_full_disk_is_an_error_and_no_file_is_claimed():
    r = record("/dev/full", "-e", "cpu-clock", "--", wl("wl-hot"), "spin", "1", "50")
    tdp.expect_exit(r, 1)
    tdp.expect_in("cannot write '/dev/full'", r.err, "stderr", r)
    tdp.check("wrote" not in r.err, "a failed recording must not claim a file", r)


def test_default_event_without_pmu_says_why():
    if not tdp.no_pmu():
        raise tdp.Skip("this machine opens hardware events")
    f = out_file("nopmu.data")
    r = record(f, "--", wl("wl-hot"), "spin", "1", "50")
    tdp.expect_exit(r, 1)
    tdp.expect_in("tdprof: error: cannot record branches here: no hardware PMU is exposed", r.err, "stderr", r)
    tdp.expect_in("tdprof: hint: 'tdprof why --backend=sim -- CMD' gives simulated branch sites", r.err, "stderr", r)
    tdp.check(not os.path.exists(f), "no file for a recording that cannot start", r)
    # a hardware event given by name, without branch stacks: the probe's words too
    r = record(f, "-e", "cycles", "--no-branch-stack", "--", wl("wl-hot"), "spin", "1", "50")
    tdp.expect_exit(r, 1)
    tdp.expect_in("cannot sample 'cycles': no hardware PMU is exposed", r.err, "stderr", r)


def test_bad_branch_filter_is_named():
    f = out_file("badj.data")
    r = record(f, "-j", "any,bogus", "--", wl("wl-hot"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("'-j any,bogus': unknown branch filter 'bogus'", r.err, "stderr", r)
    r = record(f, "-j", "cnd", "--", wl("wl-hot"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("did you mean 'cond'", r.err, "stderr", r)
    r = record(f, "-j", "any,,u", "--", wl("wl-hot"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("empty branch filter", r.err, "stderr", r)
    # a software event has no branch stack to filter
    r = record(f, "-e", "cpu-clock", "-j", "any", "--", wl("wl-hot"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("'-j' needs a hardware event", r.err, "stderr", r)


def test_usage_errors():
    f = out_file("usage.data")
    for args, want in ((["-c", "1000", "-F", "100", "--", wl("wl-hot")], "'-c' and '-F' cannot be used together"),
                       (["-e", "cpu-clock"], "no command to record"),
                       (["-m", "3", "-e", "cpu-clock", "--", wl("wl-hot")], "power of two"),
                       (["-e", "cpu-clock,task-clock", "--", wl("wl-hot")], "give one sampling event"),
                       (["-e", "no-such-event", "--", wl("wl-hot")], "no-such-event")):
        r = record(f, *args)
        tdp.expect_exit(r, 2)
        tdp.expect_in(want, r.err, "stderr", r)


def test_lost_samples_are_counted_and_reported():
    perf()
    if not shutil.which("taskset"):
        raise tdp.Skip("taskset is not installed")
    f = out_file("lost.data")
    # One CPU for tdprof and two busy threads, one data page per ring, a sample
    # every 10 us of CPU (cpu-clock's floor): 56-byte samples fill the 4 KiB ring
    # in under 1 ms while the reader waits for its turn on the CPU.
    argv = ["taskset", "-c", "0", tdp.TDPROF, "branches", "record", "-m", "1", "-e", "cpu-clock", "-c", "10000",
            "-o", f, "--", wl("wl-hot"), "threads", "2", "300"]
    proc = sh(argv)
    m = re.search(r"warning: (\d+) samples were lost \((\d+) times a ring buffer was full\)", proc.stderr)
    tdp.check(m is not None, "no lost samples reported:\n" + proc.stderr)
    lost, times = int(m.group(1)), int(m.group(2))
    tdp.check(lost >= times > 0, "lost %d samples in %d LOST records" % (lost, times))
    rep = sh([perf(), "report", "-i", f, "--stdio"])
    chunks = re.search(r"lost (\d+) chunks", rep.stdout + rep.stderr)
    tdp.check(chunks is not None and int(chunks.group(1)) == times,
              "perf counts %s lost chunks, we reported %d" % (chunks.group(1) if chunks else "no", times))


def test_exit_status_is_the_workload_s():
    f = out_file("exit.data")
    r = record(f, "-e", "cpu-clock", "--", wl("wl-exit"), "3")
    tdp.expect_exit(r, 3)
    r = record(f, "-e", "cpu-clock", "--", wl("wl-exit"), "segv")
    tdp.expect_exit(r, 128 + signal.SIGSEGV)
    sh([perf(), "report", "-i", f, "--stdio"])
    r = record(f, "-e", "cpu-clock", "--", os.path.join(TMP, "no-such-command"))
    tdp.expect_exit(r, 127)
    tdp.expect_in("no such file or directory", r.err, "stderr", r)
    r = record(f, "-e", "cpu-clock", "--", "/etc/passwd")
    tdp.expect_exit(r, 126)


def test_help_documents_filters_and_software_events():
    r = tdp.run("branches", "record", "--help")
    tdp.expect_exit(r, 0)
    for want in ("-j, --branch-filter", "any_call", "save_type", "--no-branch-stack", "--spe",
                 "Software events (-e cpu-clock, task-clock) carry no branch stack", "0600"):
        tdp.expect_in(want, " ".join(r.out.split()), "--help (its words)")


tdp.main(globals())
