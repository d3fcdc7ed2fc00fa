#!/usr/bin/env python3
"""--format on the commands that render through report/render.h (topdown, why,
branches report, loop, info, diff, selftest, list, explain; and stat): --format=json is the document --json prints (and csv, folded
their aliases' output), --format=text the default text, -o FILE gets the same
bytes, and a format the command has not, or an alias with another --format, is
a usage error (exit 2)."""
import json
import os
import tempfile

import tdp

# Ice Lake-SP level-1 counts as perf stat -x, writes them.
CSV = ("1000,,TOPDOWN.SLOTS,1000,100.00,,\n400,,topdown-retiring,1000,100.00,,\n"
       "100,,topdown-bad-spec,1000,100.00,,\n200,,topdown-fe-bound,1000,100.00,,\n"
       "300,,topdown-be-bound,1000,100.00,,\n")


def counts():
    f = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
    f.write(CSV)
    f.close()
    return f.name


def topdown(path, *extra):
    return tdp.run("topdown", "--import", path, "--cpu", "icelakex", *extra)


def test_json_alias():
    path = counts()
    try:
        a = topdown(path, "--json")
        b = topdown(path, "--format=json")
        tdp.expect_exit(a, 0)
        tdp.expect_exit(b, 0)
        tdp.check(a.out == b.out, "--format=json and --json differ", b)
        doc = json.loads(b.out)
        tdp.check(doc.get("backend") == "import", "not the topdown document", b)
        tdp.check(abs(doc["level1"]["retiring"] - 40.0) < 1e-6, "retiring is not 400 of 1000 slots", b)
    finally:
        os.unlink(path)


def test_text_default():
    path = counts()
    try:
        a = topdown(path)
        b = topdown(path, "--format", "text")
        tdp.expect_exit(a, 0)
        tdp.check(a.out == b.out, "--format=text differs from the default output", b)
        tdp.expect_in("Retiring", a.out, "the text output", a)
    finally:
        os.unlink(path)


def test_output_file_same_bytes():
    path = counts()
    out = path + ".json"
    try:
        a = topdown(path, "--format=json")
        b = topdown(path, "--format=json", "-o", out)
        tdp.expect_exit(b, 0)
        tdp.check(b.out == "", "-o FILE also wrote to stdout", b)
        with open(out) as f:
            tdp.check(f.read() == a.out, "-o FILE holds other bytes than stdout", b)
    finally:
        os.unlink(path)
        if os.path.exists(out):
            os.unlink(out)


def test_bad_format():
    path = counts()
    try:
        r = topdown(path, "--format=yaml")
        tdp.expect_exit(r, 2)
        tdp.expect_in("text|json", r.err, "stderr", r)
        r = topdown(path, "--json", "--format=text")
        tdp.expect_exit(r, 2)
        tdp.expect_in("--format=json", r.err, "stderr", r)
        r = tdp.run("why", "--format=folded", "--", "/bin/true")
        tdp.expect_exit(r, 2)
        r = tdp.run("why", "--json", "--format=text", "--", "/bin/true")
        tdp.expect_exit(r, 2)
        for argv in (("info", "--json", "--format=text"), ("diff", "a.json", "b.json", "--json", "--format=text"),
                     ("selftest", "--json", "--format=text"), ("list", "--json", "--format=text"),
                     ("explain", "retiring", "--json", "--format=text")):
            r = tdp.run(*argv)
            tdp.expect_exit(r, 2)
            tdp.expect_in("--format=json", r.err, "stderr", r)
        r = tdp.run("loop", "x.c", "--function", "f", "--json", "--format=text")
        tdp.expect_exit(r, 2)
        tdp.expect_in("--format=json", r.err, "stderr", r)
    finally:
        os.unlink(path)


def test_info_list_explain_formats():
    a = tdp.run("info", "--json")
    b = tdp.run("info", "--format=json")
    tdp.expect_exit(b, 0)
    tdp.check(a.out == b.out and json.loads(b.out), "info --format=json is not --json's document", b)
    for argv in (("list",), ("list", "metrics", "--cpu", "zen4"), ("list", "events", "--cpu", "icelakex"),
                 ("explain",), ("explain", "retiring")):
        a = tdp.run(*argv, "--json")
        b = tdp.run(*argv, "--format=json")
        tdp.expect_exit(b, 0)
        tdp.check(a.out == b.out and json.loads(b.out), "%s --format=json is not --json's document" % " ".join(argv), b)
    t = tdp.run("info", "--format", "text")
    tdp.expect_exit(t, 0)
    tdp.check(t.out == tdp.run("info").out, "info --format=text differs from the default", t)


def test_stat_formats():
    a = tdp.run("stat", "-x,", "-e", "task-clock", "--", "/bin/true")
    b = tdp.run("stat", "--format=csv", "-e", "task-clock", "--", "/bin/true")
    tdp.expect_exit(b, 0)
    fields = lambda r: [ln.split(",")[1:3] for ln in r.out.splitlines() if ln]
    tdp.check(fields(a) == fields(b) == [["msec", "task-clock"]], "--format=csv is not -x,'s layout", b)
    j = tdp.run("stat", "--format=json", "-e", "task-clock", "--", "/bin/true")
    tdp.expect_exit(j, 0)
    tdp.check([e["event"] for e in json.loads(j.out)["events"]] == ["task-clock"], "--format=json", j)
    r = tdp.run("stat", "-x,", "--format=text", "--", "/bin/true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'-x' is the CSV layout", r.err, "stderr", r)
    r = tdp.run("stat", "-x,", "--json", "--", "/bin/true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("cannot be used together", r.err, "stderr", r)


def test_branches_report_aliases():
    data = tdp.shared("perfdata", "perf.data.branch_stack_spec")
    for fmt in ("json", "csv", "folded"):
        a = tdp.run("branches", "report", "-i", data, "--" + fmt, "-n", "5")
        b = tdp.run("branches", "report", "-i", data, "--format=" + fmt, "-n", "5")
        tdp.expect_exit(a, 0)
        tdp.check(a.out == b.out and a.out, "--format=%s and --%s differ" % (fmt, fmt), b)
    a = tdp.run("branches", "report", "-i", data, "-n", "5")
    b = tdp.run("branches", "report", "-i", data, "--format=text", "-n", "5")
    tdp.check(a.out == b.out, "--format=text differs from the default", b)
    r = tdp.run("branches", "report", "-i", data, "--csv", "--format=json")
    tdp.expect_exit(r, 2)
    tdp.expect_in("--format=csv", r.err, "stderr", r)


tdp.main(globals())
