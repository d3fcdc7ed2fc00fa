"""Faults and hostile input across tdprof, each test named after the behaviour it
checks:

- size limits: files that carry absurd sizes (a 10 MB CSV line, more rows than
  IMPORT_MAX_ROWS, a perf.data with 2^40 branch entries, an attr size of 2^31, a
  record or section larger than the file) are refused with exit 2 and a message
  naming the line or offset, without a crash and with bounded memory (the peak
  RSS of tdprof stays under RSS_LIMIT_KB: nothing is allocated from an unchecked
  field);
- truncated perf.data, at every record boundary and inside records;
- interrupted and failed writes (SIGINT during a recording, a full disk);
- workloads that crash, are killed, exec, or fork and exit before their
  children; processes that do not exist or exit while attached;
- perf_event_paranoid = 3 for an unprivileged user, and counters that never ran.

perf.data is read by 'tdprof branches report -i'; those tests skip while that
command is not in the build.
"""
import os
import resource
import shutil
import signal
import struct
import subprocess
import tempfile

import pdsynth
import tdp

WORKLOADS = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads")
# Bound on tdprof's peak RSS while refusing a hostile file: far below what trusting
# any of the crafted sizes would take (2^24 branch entries alone are 400 MB), with
# room for a sanitizer build's shadow memory.
RSS_LIMIT_KB = 256 * 1024
TMP = tempfile.mkdtemp(prefix="tdprof-faults-")


def wl(name):
    p = os.path.join(WORKLOADS, name)
    if not os.access(p, os.X_OK):
        raise tdp.Skip("workload not built: %s" % p)
    return p


def tmpfile(name, data):
    p = os.path.join(TMP, name)
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return p


def has_command(name):
    return tdp.run(name, "--help").code == 0


def need_branches():
    if not has_command("branches"):
        raise tdp.Skip("'tdprof branches' is not in this build yet")


def peak_rss_kb():
    """Largest RSS of any child this process waited for (tdprof, mostly)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def expect_refused(r, *needles):
    """Exit 2, one error message naming what was wrong, no crash, bounded memory."""
    tdp.expect_exit(r, 2)
    tdp.check(r.err.startswith("tdprof: error: "), "one error message on stderr", r)
    for n in needles:
        tdp.expect_in(n, r.err, "stderr", r)
    for bad in ("AddressSanitizer", "runtime error", "LeakSanitizer", "Segmentation"):
        tdp.check(bad not in r.err, "no sanitizer report or crash", r)
    tdp.check(peak_rss_kb() < RSS_LIMIT_KB, "peak RSS %d KiB stays under %d KiB" % (peak_rss_kb(), RSS_LIMIT_KB), r)


def import_(path):
    return tdp.run("topdown", "--import", path, "--cpu", "zen4", timeout=60)


def report(path):
    return tdp.run("branches", "report", "-i", path, timeout=60)


# ---------------------------------------------------------------- size limits: perf stat output

def test_csv_line_of_10_mb_is_refused_naming_the_line():
    p = tmpfile("long.csv", "1234,,cycles,1000,100.00,,\n" + "1" * (10 << 20) + ",,x,1,100.00,,\n")
    expect_refused(import_(p), "long.csv': line 2", "longer than 65536 bytes")


def test_json_and_text_lines_of_10_mb_are_refused_naming_the_line():
    p = tmpfile("long.json", '{"counter-value" : "1", "unit" : "", "event" : "cycles", "event-runtime" : 1, '
                '"pcnt-running" : 100.00}\n{' + " " * (10 << 20) + "}\n")
    expect_refused(import_(p), "long.json': line 2", "longer than")
    p = tmpfile("long.txt", " Performance counter stats for 'x':\n\n" + " " * (10 << 20) + "1,234   cycles\n")
    expect_refused(import_(p), "long.txt': line 3", "longer than")


def test_more_rows_than_the_limit_are_refused_at_the_first_extra_row():
    # IMPORT_MAX_ROWS = 262144 rows: the refusal comes at row 262145
    p = tmpfile("rows.csv", "1,,cycles,100,100.00,,\n" * 262200)
    expect_refused(import_(p), "rows.csv': line 262145", "more than 262144")


def test_event_name_beyond_the_limit_is_refused_naming_the_line():
    p = tmpfile("name.csv", "1,,cycles,100,100.00,,\n2,," + "c" * 5000 + ",100,100.00,,\n")
    expect_refused(import_(p), "name.csv': line 2", "1024 bytes")


def test_input_beyond_256_mb_is_refused_without_reading_it():
    p = os.path.join(TMP, "huge.csv")
    with open(p, "wb") as f:
        f.truncate((256 << 20) + 1)  # sparse: costs no disk
    r = import_(p)
    expect_refused(r, "huge.csv' is larger than the limit of 268435456 bytes")
    os.unlink(p)


def test_messages_escape_the_control_characters_of_the_input():
    # an escape sequence in a hostile file must not reach the user's terminal
    p = tmpfile("esc.csv", "1,,cycles,100,abc\x1b[2J\x07,,\n")
    r = import_(p)
    expect_refused(r, "line 1", "'abc\\x1b[2J\\x07'")
    tdp.check("\x1b" not in r.err and "\x07" not in r.err, "no raw control character on stderr", r)


# ---------------------------------------------------------------- size limits: options and small files

def test_event_lists_beyond_the_limits_are_refused_before_running_anything():
    # PMU_SPEC_MAX 65536 bytes, PMU_EVENT_NAME_MAX 1024 bytes, PMU_EVENTS_MAX 4096 events
    marker = os.path.join(TMP, "ran")
    cmd = ["--", "/bin/sh", "-c", "touch " + marker]
    expect_refused(tdp.run("stat", "-e", ",".join(["task-clock"] * 7000), *cmd), "longer than 65536 bytes")
    expect_refused(tdp.run("stat", "-e", "x" * 2000, *cmd), "longer than 1024 bytes")
    r = tdp.run("stat", "-e", ",".join(["cs"] * 5000), *cmd)
    tdp.check(r.code == 2 and "4096" in r.err, "more than 4096 events are refused naming the limit", r)
    tdp.check(not os.path.exists(marker), "the workload never ran")


def test_sim_machine_file_beyond_its_limit_is_refused():
    # SIM_MACHINE_MAX_FILE = 65536 bytes: many lines, or one long line
    for name, text in (("many.machine", "width=6\n" * 10000), ("long.machine", "width=" + "6" * (1 << 20) + "\n")):
        r = tdp.run("why", "--backend=sim", "--sim-machine", tmpfile(name, text), "--", "/bin/true")
        expect_refused(r, name + "' is larger than the limit of 65536 bytes")


# ---------------------------------------------------------------- size limits: perf.data

def test_branch_stack_of_2_40_entries_is_refused_naming_the_record():
    need_branches()
    img, lay = pdsynth.build()
    rec = lay.samples[0]
    for nr, name in ((1 << 40, "nr40.data"), (1 << 24, "nr24.data"), (1025, "nr1025.data")):
        p = tmpfile(name, pdsynth.patch(img, lay.brstack_nr[0], "<Q", nr))
        expect_refused(report(p), "offset 0x%x" % rec)


def test_callchain_of_2_40_entries_is_refused_naming_the_record():
    need_branches()
    img, lay = pdsynth.build()
    p = tmpfile("cc40.data", pdsynth.patch(img, lay.callchain_nr[3], "<Q", 1 << 40))
    expect_refused(report(p), "offset 0x%x" % lay.samples[3])


def test_attr_size_of_2_31_is_refused_naming_the_attr():
    need_branches()
    img, lay = pdsynth.build()
    p = tmpfile("attr31.data", pdsynth.patch(img, lay.attr + 4, "<I", 1 << 31))
    expect_refused(report(p), "offset 0x%x" % lay.attr)
    # the header's attr entry size too
    p = tmpfile("attrent.data", pdsynth.patch(img, 16, "<Q", 1 << 31))
    expect_refused(report(p), "attr")


def test_record_larger_than_the_file_is_refused_naming_its_offset():
    need_branches()
    img, lay = pdsynth.build()
    last = lay.records[-2]
    # the last sample claims 65535 bytes: more than the data section holds
    p = tmpfile("recsize.data", pdsynth.patch(img, last + 6, "<H", 65535))
    expect_refused(report(p), "offset 0x%x" % last)
    # a record smaller than its own header
    p = tmpfile("recsmall.data", pdsynth.patch(img, lay.records[1] + 6, "<H", 4))
    expect_refused(report(p), "offset 0x%x" % lay.records[1])


def test_sections_larger_than_the_file_are_refused():
    need_branches()
    img, lay = pdsynth.build()
    cases = [
        ("datasize.data", 48, 1 << 62),   # data.size
        ("dataoff.data", 40, 1 << 40),    # data.offset
        ("attrsize.data", 32, 1 << 62),   # attrs.size
        ("idsize.data", lay.attr + pdsynth.ATTR_SIZE + 8, 1 << 62),  # the attr's ids.size
        ("featsize.data", lay.features + 8, 1 << 62),                # HOSTNAME section size
        ("featoff.data", lay.features, 1 << 50),                     # HOSTNAME section offset
    ]
    for name, off, value in cases:
        p = tmpfile(name, pdsynth.patch(img, off, "<Q", value))
        expect_refused(report(p), "offset 0x")
    # a string in a feature section longer than the section
    p = tmpfile("featstr.data", pdsynth.patch(img, lay.features + 16, "<I", 1 << 31))
    expect_refused(report(p), "offset 0x")


# ---------------------------------------------------------------- truncated perf.data

def test_perf_data_truncated_anywhere_is_refused_naming_the_offset():
    # A finished recording (its header gives the data size) that ends early was
    # damaged after it was written: exit 2 and the offset, never a short report.
    need_branches()
    img, lay = pdsynth.build(nr_samples=8)
    full = tmpfile("full.data", img)
    tdp.expect_exit(report(full), 0)
    cuts = set(lay.records) | {r + 5 for r in lay.records} | {r + 20 for r in lay.samples}
    cuts |= {0, 7, 8, 50, 103, lay.attr + 10, lay.ids + 4, lay.data_end, lay.features + 8, len(img) - 1}
    for cut in sorted(cuts):
        p = tmpfile("cut.data", img[:cut])
        r = report(p)
        expect_refused(r)
        tdp.check("offset" in r.err or "bytes" in r.err or "empty" in r.err,
                  "the message says where the file ends (cut at %d)" % cut, r)


def test_pipe_stream_cut_or_damaged_at_any_record_is_refused_naming_the_offset():
    # A pipe stream has no header saying where it ends: a record cut short, or one
    # whose size field is impossible, is refused naming that record's offset (exit
    # 2), as perf script refuses it, never a short report with exit 0.
    need_branches()
    img, lay = pdsynth.build_pipe(nr_samples=8)
    r = report(tmpfile("full.pipe", img))
    tdp.expect_exit(r, 0)
    ends = lay.records[1:] + [lay.data_end]
    for at, end in zip(lay.records, ends):
        size = end - at
        for cut in sorted({at + 1, at + 5, at + size // 2, end - 1}):
            r = report(tmpfile("cut.pipe", img[:cut]))
            expect_refused(r, "offset 0x%x" % at)
        for bad in (4, 0xffff):
            r = report(tmpfile("bad.pipe", pdsynth.patch(img, at + 6, "<H", bad)))
            expect_refused(r, "offset 0x%x" % at)


def test_pipe_stream_read_with_partial_says_what_was_lost():
    # --partial reads the records before the damage and says where it stopped and
    # how many bytes were not read; the counts are those of the whole records.
    need_branches()
    img, lay = pdsynth.build_pipe(nr_samples=8)
    for k, at in enumerate(lay.samples):
        cut = at + 20
        r = tdp.run("branches", "report", "-i", tmpfile("cut.pipe", img[:cut]), "--partial", "--json", timeout=60)
        tdp.expect_exit(r, 0)
        tdp.expect_in("offset 0x%x" % at, r.err, "stderr", r)
        tdp.expect_in("last %d bytes were not read" % (cut - at), r.err, "stderr", r)
        tdp.check(r.json()["samples"] == k, "%d whole samples before the cut, got %r" % (k, r.json()["samples"]), r)
        tdp.check(r.json()["data_stopped"] == {"offset": at, "unread_bytes": cut - at},
                  "the JSON says where the data stopped: %r" % r.json()["data_stopped"], r)
        # the same without --partial: refused
        expect_refused(report(tmpfile("cut.pipe", img[:cut])), "offset 0x%x" % at)


def feed(argv, chunks, limit=64 << 20):
    """Run tdprof with chunks() written to its stdin until it stops reading (or
    limit bytes). Returns (Result-like code, stderr, bytes it accepted)."""
    p = subprocess.Popen([tdp.TDPROF] + argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    sent = 0
    try:
        for c in chunks():
            p.stdin.write(c)
            p.stdin.flush()
            sent += len(c)
            if sent >= limit:
                break
        p.stdin.close()
    except BrokenPipeError:
        pass
    err = p.stderr.read().decode(errors="replace")
    p.wait(timeout=120)
    return p.returncode, err, sent


def test_stdin_and_devices_are_refused_after_the_bytes_that_show_it():
    # The magic, the header and each pipe record are checked as they arrive:
    # /dev/zero is "bad magic" (not "too large" after 1 GiB), and a stream that
    # goes wrong is refused within 1 MB of reading it, naming the offset.
    need_branches()
    expect_refused(report("/dev/zero"), "'/dev/zero': not a perf.data file: bad magic at offset 0x0")
    expect_refused(import_("/dev/zero"), "'/dev/zero': line 1: holds a NUL byte")
    code, err, sent = feed(["topdown", "--import", "-", "--cpu", "zen4"],
                           lambda: iter([b"1,,cycles,100,100.00,,\n" * 1000, b"\0"] + [bytes(1 << 16)] * 4096))
    tdp.check(code == 2 and "line 1001: holds a NUL byte" in err, "import of a NUL stream: %d %s" % (code, err))
    tdp.check(sent <= (1 << 20) + (2 << 16), "import: %d bytes were accepted before the refusal" % sent)
    pipe_hdr = pdsynth.MAGIC + struct.pack("<Q", 16)
    # AUXTRACE (its whole fixed part: 8 + 40 bytes) claiming a 1 TiB payload
    huge_aux = struct.pack("<IHHQ", 71, 0, 48, 1 << 40) + bytes(32)
    streams = [
        ("zeros", lambda: iter([bytes(1 << 16)] * 4096), "bad magic at offset 0x0"),
        ("a pipe header, then zeros", lambda: iter([pipe_hdr] + [bytes(1 << 16)] * 4096),
         "record at offset 0x10: size 0 is smaller than its header"),
        ("a 1 TiB AUXTRACE payload", lambda: iter([pipe_hdr, huge_aux] + [bytes(1 << 16)] * 4096),
         "record at offset 0x10: AUXTRACE payload of 1099511627776 bytes runs past the limit"),
    ]
    for what, chunks, needle in streams:
        code, err, sent = feed(["branches", "report", "-i", "-"], chunks)
        tdp.check(code == 2, "%s: exit %d, want 2: %s" % (what, code, err))
        tdp.expect_in(needle, err, "stderr for %s" % what)
        # what it read, plus what the pipe buffered (64 KiB) and one chunk in flight
        tdp.check(sent <= (1 << 20) + (2 << 16), "%s: %d bytes were accepted before the refusal" % (what, sent))


def test_unfinished_recording_is_read_up_to_its_last_whole_record_or_refused():
    # An unfinished recording (data size 0 in the header: the recorder was killed)
    # that ends at or inside a record is "finished but short": tdprof either
    # refuses it naming the cause (exit 2, "not finished", with a hint), or reads
    # the whole records it holds and says on stderr where the data stopped (exit 0).
    need_branches()
    img, lay = pdsynth.build(nr_samples=8, finished=False)
    for cut in [len(img)] + [r + 9 for r in lay.samples[2:5]]:
        r = report(tmpfile("unfinished.data", img[:cut]))
        tdp.check(r.code in (0, 2), "exit 0 or 2 (cut at %d)" % cut, r)
        tdp.check("not finished" in r.err or "unfinished" in r.err,
                  "stderr says the recording was not finished", r)


# ---------------------------------------------------------------- interrupted and failed writes

def test_recording_interrupted_by_sigint_leaves_a_finished_file():
    # cpu-clock samples carry no branch stacks: the file is judged by its header
    # and by perf itself (when installed), which must read every sample in it.
    need_branches()
    out = os.path.join(TMP, "sigint.data")
    p = subprocess.Popen([tdp.TDPROF, "branches", "record", "-e", "cpu-clock", "-o", out, "--", wl("wl-spin"), "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tdp.wait_workload(p, "wl-spin", 250)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    tdp.check(p.returncode in (0, 130), "exit 130 (the workload's SIGINT) or 0, got %d: %s" % (p.returncode, err))
    with open(out, "rb") as f:
        img = f.read()
    tdp.check(img[:8] == b"PERFILE2", "a perf.data header")
    data_off = int.from_bytes(img[40:48], "little")
    data_size = int.from_bytes(img[48:56], "little")
    tdp.check(data_size > 0, "the header was finished (data size %d)" % data_size)
    tdp.check(data_off + data_size <= len(img), "the data section lies inside the file")
    r = report(out)
    tdp.check(r.code == 0 or "has no branch records" in r.err, "tdprof read the file to its end", r)
    if shutil.which("perf"):
        ps = subprocess.run(["perf", "script", "-i", out, "-F", "ip"], capture_output=True, text=True, timeout=60)
        tdp.check(ps.returncode == 0, "perf reads it: %s" % ps.stderr[-2000:])
        tdp.check(len(ps.stdout.split()) > 10, "0.8 s of cpu-clock samples (every 1 ms at most) are in it")


def test_stat_to_dev_full_fails_with_the_cause():
    r = tdp.run("stat", "-e", "task-clock", "-o", "/dev/full", "--", "/bin/true")
    tdp.expect_exit(r, 1)
    tdp.expect_in("cannot write '/dev/full': No space left on device", r.err, "stderr", r)
    r = tdp.run("stat", "--json", "-e", "task-clock", "-o", "/dev/full", "--", "/bin/true")
    tdp.expect_exit(r, 1)
    tdp.expect_in("No space left on device", r.err, "stderr", r)


def small_tmpfs():
    """A 64 KiB tmpfs (root only), filled up to a few bytes; returns its path."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        raise tdp.Skip("mounting a full file system needs root")
    d = tempfile.mkdtemp(prefix="tdprof-full-")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d], capture_output=True).returncode:
        os.rmdir(d)
        raise tdp.Skip("cannot mount a tmpfs here")
    try:
        with open(os.path.join(d, "filler"), "wb") as f:
            f.write(b"x" * (64 << 10))
    except OSError:
        pass
    return d


def unmount(d):
    subprocess.run(["umount", d], capture_output=True)
    os.rmdir(d)


def test_stat_to_a_full_disk_fails_and_claims_nothing():
    d = small_tmpfs()
    try:
        out = os.path.join(d, "stat.txt")
        r = tdp.run("stat", "-e", "task-clock", "-o", out, "--", "/bin/true")
        tdp.expect_exit(r, 1)
        tdp.expect_in("No space left on device", r.err, "stderr", r)
        text = open(out).read() if os.path.exists(out) else ""
        tdp.check("seconds time elapsed" not in text, "no complete report was left in %s" % out, r)
    finally:
        unmount(d)


def test_recording_to_a_full_disk_fails_and_leaves_no_finished_file():
    need_branches()
    r = tdp.run("branches", "record", "-e", "cpu-clock", "-o", "/dev/full", "--", wl("wl-spin"), "100")
    tdp.check(r.code not in (0, 139, 134), "a recording to /dev/full fails", r)
    tdp.check("/dev/full" in r.err, "the message names the file", r)
    d = small_tmpfs()
    try:
        out = os.path.join(d, "rec.data")
        r = tdp.run("branches", "record", "-e", "cpu-clock", "-o", out, "--", wl("wl-spin"), "300")
        tdp.check(r.code not in (0, 139, 134), "a recording to a full disk fails", r)
        tdp.expect_in("No space left on device", r.err, "stderr", r)
        if os.path.exists(out) and os.path.getsize(out) >= 104:
            with open(out, "rb") as f:
                head = f.read(104)
            tdp.check(int.from_bytes(head[48:56], "little") == 0, "the header does not claim a finished file")
    finally:
        unmount(d)


# ---------------------------------------------------------------- workloads and targets

def msec_of(out, event="task-clock"):
    for line in out.splitlines():
        f = line.split(",")
        if len(f) >= 3 and f[2] == event:
            return None if f[0].startswith("<") else float(f[0])
    raise AssertionError("no %s row in:\n%s" % (event, out))


def test_crashing_workload_exits_139_with_its_counts():
    r = tdp.run("stat", "-x,", "-e", "task-clock", "--", wl("wl-exit"), "segv")
    tdp.expect_exit(r, 139)  # 128 + SIGSEGV(11)
    tdp.check(msec_of(r.out) is not None, "task-clock printed after the crash", r)


def test_killed_workload_exits_137_with_its_counts():
    # the workload kills itself with SIGKILL after burning CPU
    r = tdp.run("stat", "-x,", "-e", "task-clock", "--", "/bin/sh", "-c", wl("wl-spin") + " 200; kill -KILL $$")
    tdp.expect_exit(r, 137)  # 128 + SIGKILL(9)
    tdp.check(msec_of(r.out) >= 200, "the 250 ms of CPU before the signal were counted", r)


def test_counts_follow_the_workload_across_exec():
    # sh execs wl-spin, which burns 300 ms: counting must not stop at the first exec
    r = tdp.run("stat", "-x,", "-e", "task-clock", "--", "/bin/sh", "-c", "exec " + wl("wl-spin") + " 300")
    tdp.expect_exit(r, 0)
    tdp.check(msec_of(r.out) >= 250, "the exec'd program's 300 ms are counted", r)


def test_workload_exiting_before_its_children_ends_the_run():
    # the parent exits 3 at once; its orphan burns a minute of CPU on its own, and is
    # still running when tdprof returns (it is killed then)
    with tempfile.TemporaryFile("w+") as out:
        p = subprocess.Popen([tdp.TDPROF, "stat", "-x,", "-e", "task-clock", "--", wl("wl-fork-orphan"), "60002", "3"],
                             stdout=out, stderr=subprocess.DEVNULL)
        code = p.wait(timeout=120)
        orphans = tdp.processes_running("wl-fork-orphan", "60002")
        for k in orphans:
            os.kill(k, signal.SIGKILL)
        out.seek(0)
        text = out.read()
    tdp.check(code == 3, "the parent's status 3, got %d" % code)
    tdp.check(orphans, "tdprof did not wait for the orphan: it still ran when tdprof returned")
    tdp.check(msec_of(text) is not None, "counts printed:\n" + text)


def test_attaching_to_a_pid_that_does_not_exist_is_exit_2():
    with open("/proc/sys/kernel/pid_max") as f:
        pid = int(f.read()) + 1
    r = tdp.run("stat", "-e", "task-clock", "-p", pid)
    tdp.expect_exit(r, 2)
    tdp.expect_in("no process with id %d" % pid, r.err, "stderr", r)


def test_attached_process_exiting_mid_run_ends_with_its_counts():
    # the target is started by a shell that exits at once, so that init reaps it
    # as it would any process a user attaches to (our own child would stay a zombie);
    # it spins until killed, 200 ms of its CPU after tdprof attached
    pid = int(subprocess.run(["/bin/sh", "-c", wl("wl-spin") + " 0 >/dev/null 2>&1 & echo $!"],
                             capture_output=True, text=True, check=True).stdout)
    try:
        p = subprocess.Popen([tdp.TDPROF, "stat", "-x,", "-e", "task-clock", "-p", str(pid)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tdp.wait_attached(p)
        tdp.wait_cpu(pid, tdp.proc_stat(pid)["cpu_ms"] + 200)
        os.kill(pid, signal.SIGKILL)
        out, err = p.communicate(timeout=60)
        tdp.check(p.returncode == 0, "exit 0 when the attached process ends, got %d: %s" % (p.returncode, err))
        ms = msec_of(out)
        tdp.check(ms is not None and ms >= 180, "the 200 ms it ran while attached were counted: %r" % ms)
        tdp.check(not tdp.alive(pid), "tdprof returned after the process ended")
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def test_counter_that_never_ran_prints_not_counted_never_zero():
    # No PMU here, so no counter can fail to be scheduled; a stopped process gives
    # the same state: its task-clock is enabled only while it runs, i.e. never.
    target = subprocess.Popen(["/bin/sleep", "30"])
    try:
        os.kill(target.pid, signal.SIGSTOP)
        # the signal is delivered when the target next runs: wait until it has stopped
        # (state T), or the first interval counts the microseconds it took to stop
        tdp.wait_for(lambda: tdp.proc_stat(target.pid)["state"] == "T", "the target to stop")
        p = subprocess.Popen([tdp.TDPROF, "stat", "-I", "200", "-x,", "-e", "task-clock", "-p", str(target.pid)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = tdp.Lines(p.stdout)
        lines.wait(lambda ls: len([l for l in ls if ",task-clock," in l]) >= 3, "three intervals printed")
        target.kill()
        err = p.stderr.read()
        p.wait(timeout=60)
        out = lines.finish()
    finally:
        target.kill()
        target.wait()
    tdp.check(p.returncode == 0, "exit 0, got %d: %s" % (p.returncode, err))
    rows = [l.split(",") for l in out.splitlines() if ",task-clock," in l]
    tdp.check(len(rows) >= 3, "three intervals of 200 ms:\n" + out)
    tdp.check(all(r[1] == "<not counted>" for r in rows[:3]),
              "the stopped process's intervals are <not counted>, not 0:\n" + out)


PARANOID = "/proc/sys/kernel/perf_event_paranoid"
FAULT_USER = "tdprof-fault"


def run_unprivileged(paranoid, *args):
    """Run a copy of tdprof with args as an unprivileged user the test creates, with
    perf_event_paranoid set to `paranoid` for the run and restored afterwards."""
    if os.geteuid() != 0:
        raise tdp.Skip("needs root to create a user and set perf_event_paranoid")
    if not shutil.which("setpriv") or not shutil.which("useradd"):
        raise tdp.Skip("setpriv or useradd missing")
    if subprocess.run(["id", FAULT_USER], capture_output=True).returncode:
        subprocess.run(["useradd", "-M", "-r", "-s", "/usr/sbin/nologin", FAULT_USER], check=True,
                       capture_output=True)
    # a copy the user can reach (the build tree may be under a private home)
    d = tempfile.mkdtemp(prefix="tdprof-user-")
    os.chmod(d, 0o755)
    exe = os.path.join(d, "tdprof")
    shutil.copy(tdp.TDPROF, exe)
    os.chmod(exe, 0o755)
    user = ["setpriv", "--reuid=" + FAULT_USER, "--regid=" + FAULT_USER, "--clear-groups", exe]
    if subprocess.run(user + ["--version"], capture_output=True).returncode:
        shutil.rmtree(d, ignore_errors=True)
        raise tdp.Skip("the unprivileged user cannot run a copy of %s" % tdp.TDPROF)
    with open(PARANOID) as f:
        old = f.read().strip()
    try:
        with open(PARANOID, "w") as f:
            f.write(str(paranoid))
        r = subprocess.run(user + list(args), capture_output=True, text=True, timeout=60)
    finally:
        with open(PARANOID, "w") as f:
            f.write(old)
        shutil.rmtree(d, ignore_errors=True)
    with open(PARANOID) as f:
        tdp.check(f.read().strip() == old, "perf_event_paranoid restored to %s" % old)
    return r


def test_paranoid_3_and_an_unprivileged_user_get_the_exact_remedy():
    """Debian's kernels forbid perf_event_open to unprivileged users at level 3: nothing
    counts, and the message names the event and the exact remedy. Upstream kernels treat
    3 as 2 (user space only), where tdprof counts user space and says so."""
    r = run_unprivileged(3, "stat", "-e", "task-clock", "--", "/bin/true")
    if r.returncode == 0:
        tdp.check("counts are of user space only" in r.stderr,
                  "this kernel treats 3 as 2: the user-space fallback is said:\n" + r.stderr)
        return
    tdp.check(r.returncode == 1, "exit 1 (nothing could be counted), got %d:\n%s" % (r.returncode, r.stderr))
    tdp.check("not allowed to count 'task-clock'" in r.stderr, "the message names the event:\n" + r.stderr)
    # user-space counting of one's own process needs level 2, not 1
    tdp.check("sudo sysctl -w kernel.perf_event_paranoid=2" in r.stderr,
              "the hint gives the exact command:\n" + r.stderr)
    tdp.check("Performance counter stats" not in r.stdout, "no counts are claimed")


def test_cpu_wide_unprivileged_needs_level_0():
    """-a counts every process on the CPUs: refused to an unprivileged user above level 0,
    and the remedy is level 0 (or CAP_PERFMON), not level 1."""
    r = run_unprivileged(1, "stat", "-a", "-e", "task-clock", "--", "/bin/true")
    tdp.check(r.returncode == 1, "exit 1 (nothing could be counted), got %d:\n%s" % (r.returncode, r.stderr))
    tdp.check("not allowed to count 'task-clock'" in r.stderr, "the message names the event:\n" + r.stderr)
    tdp.check("sudo sysctl -w kernel.perf_event_paranoid=0" in r.stderr and "CAP_PERFMON" in r.stderr,
              "the hint gives level 0 or CAP_PERFMON:\n" + r.stderr)
    tdp.check("paranoid=1" not in r.stderr, "level 1 would not allow -a:\n" + r.stderr)


def test_another_users_process_is_a_ptrace_refusal():
    """-p on a process of another user is refused by the ptrace access check, whatever
    the paranoid level, for a software event too: the message says whose process it is
    and blames neither paranoid levels nor hardware events."""
    r = run_unprivileged(-1, "stat", "-e", "task-clock", "-p", "1")
    tdp.check(r.returncode == 1, "exit 1, got %d:\n%s" % (r.returncode, r.stderr))
    tdp.check("of process 1, which belongs to another user" in r.stderr, "says whose process:\n" + r.stderr)
    tdp.check("ptrace" in r.stderr and "sysctl" not in r.stderr, "the cause is ptrace access:\n" + r.stderr)
    tdp.check("hardware" not in r.stderr, "a software event is not blamed on hardware events:\n" + r.stderr)


def test_kernel_only_event_unprivileged_gets_the_exact_remedy():
    """An event the user asked for in the kernel only (':k') cannot fall back to user
    space: refused at level 2, it fails with the event's name and the exact remedy."""
    r = run_unprivileged(2, "stat", "-e", "task-clock:k", "--", "/bin/true")
    tdp.check(r.returncode == 1, "exit 1 (nothing could be counted), got %d:\n%s" % (r.returncode, r.stderr))
    tdp.check("not allowed to count 'task-clock:k'" in r.stderr, "the message names the event:\n" + r.stderr)
    tdp.check("sudo sysctl -w kernel.perf_event_paranoid=1" in r.stderr,
              "the hint gives the exact command:\n" + r.stderr)
    tdp.check("Performance counter stats" not in r.stdout, "no counts are claimed")


def test_paranoid_2_counts_user_space_as_perf_does():
    """At perf_event_paranoid 2 an unprivileged user may not count the kernel: like perf,
    tdprof counts user space only (exclude_kernel) and says so, instead of failing."""
    r = run_unprivileged(2, "stat", "-e", "task-clock,page-faults", "--", "/bin/true")
    tdp.check(r.returncode == 0, "exit 0, got %d:\n%s" % (r.returncode, r.stderr))
    tdp.check("Performance counter stats" in r.stdout, "the counts are printed:\n" + r.stdout)
    row = [l for l in r.stdout.splitlines() if "task-clock" in l]
    tdp.check(row and "<not" not in row[0], "task-clock is counted:\n" + r.stdout)
    tdp.check("counts are of user space only" in r.stderr, "the fallback is said:\n" + r.stderr)

try:
    tdp.main(globals())
finally:
    shutil.rmtree(TMP, ignore_errors=True)
