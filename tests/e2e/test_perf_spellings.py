"""perf's spellings that tdprof takes (issue 20, item 7): option prefixes as getopt_long
takes them, `stat -j`, `stat -r 0` (until interrupted), `branches record -b`, and
`-e EVENT/period=N/` on a named event."""
import json
import os
import shutil
import signal
import subprocess
import tempfile

import tdp


def test_unambiguous_prefix_is_the_option():
    # --rep is --repeat (stat has no other long option starting so)
    r = tdp.run("stat", "--rep", "2", "-e", "task-clock", "--", "true")
    tdp.expect_exit(r, 0)
    tdp.expect_in("(2 runs)", r.out, "stdout", r)
    # --rep=N too, and a --no- flag by its prefix
    r = tdp.run("stat", "--rep=2", "--no-inh", "-e", "task-clock", "--json", "--", "true")
    tdp.expect_exit(r, 0)
    tdp.check(r.json()["runs"] == 2, "two runs in the JSON", r)


def test_ambiguous_prefix_lists_the_candidates():
    r = tdp.run("stat", "--f", "x", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("option '--f' is ambiguous: it can be '--field-separator', '--format'", r.err, "stderr", r)
    tdp.expect_in("tdprof: try 'tdprof stat --help'", r.err, "stderr", r)
    # an exact name is never ambiguous, though it is the prefix of another
    r = tdp.run("branches", "report", "--by", "site", "--help")
    tdp.expect_exit(r, 0)


def test_unknown_long_option_still_suggests():
    r = tdp.run("stat", "--repaet", "2", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("unknown option '--repaet'", r.err, "stderr", r)
    tdp.expect_in("did you mean '--repeat'?", r.err, "stderr", r)


def test_stat_j_is_json():
    a = tdp.run("stat", "-j", "-e", "task-clock", "--", "true")
    tdp.expect_exit(a, 0)
    doc = a.json()
    tdp.check(doc["events"][0]["event"] == "task-clock", "the JSON document of the counts", a)
    b = tdp.run("stat", "--json", "-e", "task-clock", "--", "true")
    tdp.check(sorted(json.loads(b.out).keys()) == sorted(doc.keys()), "-j and --json give the same document", a)


def test_stat_r0_runs_until_interrupted():
    with tempfile.TemporaryDirectory() as d:
        marks = os.path.join(d, "runs")
        p = subprocess.Popen([tdp.TDPROF, "stat", "-r", "0", "-e", "task-clock", "--", "sh", "-c",
                              "echo x >> '%s'" % marks], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def runs_made():
            try:
                with open(marks) as f:
                    return len(f.readlines())
            except FileNotFoundError:
                return 0
        # the sixth run's mark means the fifth run was over for tdprof too (runs are one after
        # the other): at least five whole runs, whenever the signal lands
        tdp.wait_for(lambda: runs_made() >= 6, "six runs of -r 0")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        made = runs_made()
    tdp.check(p.returncode == 0, "the whole runs succeeded: exit 0, got %d\n%s" % (p.returncode, err))
    tdp.check("Performance counter stats for" in out, "the counts are printed after ^C:\n" + out)
    n = int(out.split(" runs):")[0].rsplit("(", 1)[1])
    tdp.check(n >= 5 and n <= made, "the series holds the whole runs (%d of %d started)" % (n, made))
    tdp.check("-r 0: SIGINT ended the series after %d whole runs" % n in err, "the note says how it ended: " + err)


def test_stat_r0_refused_where_it_means_nothing():
    r = tdp.run("stat", "-r", "0", "-I", "100", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'-r' and '-I' cannot be used together", r.err, "stderr", r)
    r = tdp.run("stat", "-r", "0", "-a")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'-r' needs a command", r.err, "stderr", r)
    r = tdp.run("stat", "-r", "0", "--backend=sim", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("the simulation is deterministic", r.err, "stderr", r)


def test_branches_record_b_is_the_default():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "b.data")
        a = tdp.run("branches", "record", "-o", out, "--", "true")
        b = tdp.run("branches", "record", "-b", "-o", out, "--", "true")
        # -b changes nothing: where a branch stack can be recorded both record it, where not both say why
        tdp.check(a.code == b.code, "-b is accepted as the default it is:\n%r\n%r" % (a, b))
        tdp.check(a.err == b.err, "same diagnostics with and without -b:\n%s\n%s" % (a.err, b.err))
        r = tdp.run("branches", "record", "-b", "-j", "any_call", "-o", out, "--", "true")
        tdp.expect_exit(r, 2)
        tdp.expect_in("'-b' is '-j any': give one of '-b' and '-j'", r.err, "stderr", r)
        r = tdp.run("branches", "record", "-b", "-e", "cpu-clock", "-o", out, "--", "true")
        tdp.expect_exit(r, 2)
        tdp.expect_in("'-b' needs a hardware event: 'cpu-clock' carries no branch stack", r.err, "stderr", r)
        r = tdp.run("branches", "record", "-b", "--no-branch-stack", "-o", out, "--", "true")
        tdp.expect_exit(r, 2)


def test_event_terms_on_a_named_event():
    r = tdp.run("stat", "-e", "cpu-clock/period=1000/", "--", "true")
    tdp.expect_exit(r, 0)
    tdp.expect_in("msec cpu-clock/period=1000/", r.out, "stdout", r)
    r = tdp.run("stat", "-e", "task-clock/name=tc/", "-x,", "--", "true")
    tdp.expect_exit(r, 0)
    tdp.expect_in(",msec,tc,", r.out, "stdout", r)
    r = tdp.run("stat", "-e", "cycles/umask=3/", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("a named event takes perf's terms period=, freq= and name= only at position 8", r.err, "stderr", r)


def test_period_term_sets_the_sampling_period():
    # the recording's attr, as perf reads it back (perf is the oracle)
    if not shutil.which("perf"):
        raise tdp.Skip("perf is not installed")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "p.data")
        r = tdp.run("branches", "record", "-e", "cpu-clock/period=250000/", "-o", out, "--", "true")
        tdp.expect_exit(r, 0)
        ev = subprocess.run(["perf", "evlist", "-v", "-i", out], capture_output=True, text=True)
        tdp.check("sample_freq }: 250000" in ev.stdout and "freq: 1" not in ev.stdout,
                  "period 250000, not a frequency: " + ev.stdout + ev.stderr)


if __name__ == "__main__":
    tdp.main(globals())
