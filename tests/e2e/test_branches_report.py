"""tdprof branches report, judged by what Debian's perf 6.1 printed for the same files.

For every recording in ../shared/data/perfdata/, `tdprof branches report --json -n 0`
must give exactly the sample, branch-entry and mispredict counts of
derived/<file>.perf6.1-script-brstack.txt (`perf script -F event,ip,brstack`, parsed
here), and every row perf printed in derived/<file>.perf6.1-report-mispredict.txt
(`perf report --sort symbol_from,symbol_to,mispredict`) must be one of our
symbol_edges with the same count within print rounding (perf's percentage of
all entries, two decimals). Rows perf named by a symbol that we could not
resolve (perf 6.1 names [vdso] addresses from the running machine's vdso) are
listed, not compared. Also: timing only where the LBR is timed, the text, CSV
and folded outputs, -o, and the errors (exit 2, the offset of a truncated file).
"""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import tdp  # noqa: E402

FIXTURES = [
    "perf.data.branch-4.14",
    "perf.data.branch_stack_spec",
    "perf.data.branch_stack_hw_index",
    "perf.data.raw_callgraph_branch-3.4",
]
TMP = tempfile.mkdtemp(prefix="tdprof-branches-")
ENTRY = re.compile(r"0x([0-9a-f]+)/0x([0-9a-f]+)/([MP-])/[X-]/[A-]/(\d+)/")
EVENT_LINE = re.compile(r"^\s*[A-Za-z][^\s]*:\s")


def fixture(name):
    return tdp.shared("perfdata", name)


def derived(name, kind):
    return tdp.shared("perfdata", "derived", "%s.perf6.1-%s.txt" % (name, kind))


def perf_script(name):
    """perf's decode: samples, and the entries as (from, to, mispredicted, cycles)."""
    samples, entries = 0, []
    with open(derived(name, "script-brstack")) as f:
        for line in f:
            if EVENT_LINE.match(line):
                samples += 1
            for m in ENTRY.finditer(line):
                entries.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3) == "M", int(m.group(4))))
    return samples, entries


def norm(sym):
    """'[k] 0xffffffff9dd022c4' and '[k] 0000000000000000' -> the number; '[.] main' -> 'main'."""
    text = re.sub(r"^\[.\] ", "", sym.strip())
    if re.fullmatch(r"(0x)?[0-9a-f]+", text):
        return int(text, 16)
    return text


def perf_report(name):
    """perf's rows: (overhead %, source, target, Y|N|N/A), and its total entries."""
    rows, total = [], None
    with open(derived(name, "report-mispredict")) as f:
        for line in f:
            m = re.match(r"# Event count \(approx\.\): (\d+)", line)
            if m:
                total = int(m.group(1))
            if line.startswith("#") or not line.strip():
                continue
            fields = re.split(r"\s{2,}", line.strip())
            tdp.check(len(fields) >= 4 and fields[0].endswith("%"), "cannot parse perf's row %r" % line)
            rows.append((float(fields[0][:-1]), norm(fields[1]), norm(fields[2]), fields[3]))
    return rows, total


def report_json(name, *extra):
    r = tdp.run("branches", "report", "-i", fixture(name), "--json", "-n", "0", *extra)
    tdp.expect_exit(r, 0)
    return r.json()


def check_counts(name):
    samples, entries = perf_script(name)
    j = report_json(name)
    misp = sum(1 for e in entries if e[2])
    tdp.check(j["samples"] == samples, "%s: samples %d, perf printed %d" % (name, j["samples"], samples))
    tdp.check(j["branch_entries"] == len(entries),
              "%s: branch_entries %d, perf printed %d" % (name, j["branch_entries"], len(entries)))
    tdp.check(j["mispredicted_entries"] == misp,
              "%s: mispredicted_entries %d, perf printed %d" % (name, j["mispredicted_entries"], misp))
    tdp.check(j["lost_samples"] == 0, "%s: lost_samples %r" % (name, j["lost_samples"]))
    tdp.check(j["backend"] == "import", "%s: backend %r" % (name, j["backend"]))
    # every (from, to) edge with perf's count and mispredicts
    want = {}
    for f, t, m, _ in entries:
        c = want.setdefault((f, t), [0, 0])
        c[0] += 1
        c[1] += m
    got = {(int(e["from"], 16), int(e["to"], 16)): [e["count"], e["mispredicts"]] for e in j["edges"]}
    tdp.check(got == want, "%s: edges differ from perf's script output" % name)
    for e in j["edges"] + j["sites"]:
        for key in ("from", "to", "address"):
            if key in e:
                tdp.check(re.fullmatch(r"0x[0-9a-f]+", e[key]) is not None, "address not a 0x string: %r" % e[key])
    # sites: executions and mispredicts are the sums over their edges
    by_site = {}
    for (f, _), (c, m) in want.items():
        s = by_site.setdefault(f, [0, 0])
        s[0] += c
        s[1] += m
    for s in j["sites"]:
        tdp.check([s["executions"], s["mispredicts"]] == by_site[int(s["address"], 16)],
                  "%s: site %s differs" % (name, s["address"]))
    tdp.check(len(j["sites"]) == len(by_site), "%s: %d sites, expected %d" % (name, len(j["sites"]), len(by_site)))
    ranked = [(s["mispredicts"], s["executions"]) for s in j["sites"]]
    tdp.check(ranked == sorted(ranked, reverse=True), "%s: sites not ranked by mispredicts" % name)
    timed = any(e[3] for e in entries)
    if timed:
        tdp.check(j["timing"] is not None and j["blocks"], "%s: timed LBR but no blocks" % name)
    else:
        tdp.check(j["timing"] is None and j["blocks"] == [], "%s: timing %r" % (name, j["timing"]))
        tdp.expect_in("no timing in this recording", j["timing_reason"], "timing_reason")
    return j


def check_perf_rows(name):
    rows, total = perf_report(name)
    j = report_json(name)
    tdp.check(total == j["branch_entries"], "%s: perf's total %r, ours %d" % (name, total, j["branch_entries"]))
    # rows print the same text when the addresses differ but sit at the same offset
    # of their binaries (several processes): perf keeps them apart, so do we; match
    # them as multisets
    ours = {}
    for r in j["symbol_edges"]:
        key = (norm(r["from_symbol"]), norm(r["to_symbol"]), r["mispredicted"])
        ours.setdefault(key, []).append(r["count"])
    compared, named = 0, []
    for pct, src, dst, flag in rows:
        key = (src, dst, flag)
        if key not in ours:
            tdp.check(isinstance(src, str) or isinstance(dst, str),
                      "%s: perf's row %r is not among ours" % (name, (pct,) + key))
            named.append(key)
            continue
        best = min(ours[key], key=lambda c: abs(100.0 * c / total - pct))
        ours_pct = 100.0 * best / total
        tdp.check(abs(ours_pct - pct) <= 0.005 + 1e-9,
                  "%s: row %r: %d entries = %.4f%%, perf printed %.2f%%" % (name, key, best, ours_pct, pct))
        ours[key].remove(best)
        if not ours[key]:
            del ours[key]
        compared += 1
    # only perf's [vdso] names may be missing here (perf 6.1 reads its own vdso)
    for key in named:
        tdp.check(any(isinstance(k, str) and k.startswith("__vdso") for k in key[:2]),
                  "%s: perf's row %r is not among ours" % (name, key))
    print("     %s: %d of perf's rows equal ours; named by perf, not here: %r" % (name, compared, named))


def test_counts_branch_414():
    j = check_counts(FIXTURES[0])
    # the LBR is timed: blocks [e[i+1].to, e[i].from] with e[i].cycles (recomputed from perf's text)
    _, entries = perf_script(FIXTURES[0])
    blocks = {}
    samples = []
    with open(derived(FIXTURES[0], "script-brstack")) as f:
        for line in f:
            samples.append([(int(m.group(1), 16), int(m.group(2), 16), int(m.group(4))) for m in ENTRY.finditer(line)])
    for s in samples:
        for i in range(len(s) - 1):
            start, end, cyc = s[i + 1][1], s[i][0], s[i][2]
            if start and end and start <= end and end - start < 65536:
                b = blocks.setdefault((start, end), [0, 0])
                b[0] += 1
                b[1] += cyc
    got = {(int(b["start"], 16), int(b["end"], 16)): b for b in j["blocks"]}
    tdp.check(set(got) == set(blocks), "branch-4.14: blocks differ from perf's text")
    for k, (count, cycles) in blocks.items():
        tdp.check(got[k]["count"] == count, "block %r: count %d, expected %d" % (k, got[k]["count"], count))
        timed = got[k]["timed"]
        if timed:
            tdp.check(abs(got[k]["avg_cycles"] * timed - cycles) < 1e-6, "block %r: cycles" % (k,))


def test_counts_stack_spec():
    check_counts(FIXTURES[1])


def test_counts_hw_index():
    check_counts(FIXTURES[2])


def test_counts_raw_callgraph():
    check_counts(FIXTURES[3])


def test_perf_rows_stack_spec():
    check_perf_rows(FIXTURES[1])


def test_perf_rows_hw_index():
    check_perf_rows(FIXTURES[2])


def test_perf_rows_raw_callgraph():
    check_perf_rows(FIXTURES[3])


def test_text_report():
    r = tdp.run("branches", "report", "-i", fixture(FIXTURES[1]))
    tdp.expect_exit(r, 0)
    # perf's top row, as perf printed it (derived/...report-mispredict.txt)
    tdp.expect_in("19.53%  [k] 0xffffffff9dd022c4  [k] 0xffffffff9dd022b2  N", r.out, "stdout", r)
    tdp.expect_in("samples 8 read, 8 with branch records, branch entries 128, mispredicted 9 (7.03%)", r.out, "stdout", r)
    tdp.expect_in("no timing in this recording", r.out, "stdout", r)
    tdp.check(r.err == "", "stderr not empty:\n" + r.err)
    r = tdp.run("branches", "report", "-i", fixture(FIXTURES[0]), "--by", "block", "-n", "3")
    tdp.expect_exit(r, 0)
    tdp.expect_in("Timed basic blocks by total cycles (3 of", r.out, "stdout", r)


def test_csv_and_folded():
    r = tdp.run("branches", "report", "-i", fixture(FIXTURES[1]), "--csv", "-n", "5")
    tdp.expect_exit(r, 0)
    lines = r.out.splitlines()
    tdp.check(lines[0].startswith("rank,address,function,"), "CSV header: %r" % lines[0])
    tdp.check(len(lines) == 6, "CSV: %d lines for -n 5" % len(lines))
    r = tdp.run("branches", "report", "-i", fixture(FIXTURES[3]), "--folded")
    tdp.expect_exit(r, 0)
    total = 0
    for line in r.out.splitlines():
        m = re.fullmatch(r"([^;]+);([^;]+) (\d+)", line)
        tdp.check(m is not None, "not a folded line: %r" % line)
        total += int(m.group(3))
    # weights are mispredicted entries: they add up to all of them
    tdp.check(total == 453, "folded weights add up to %d, not 453" % total)


def test_output_file():
    out = os.path.join(TMP, "report.json")
    r = tdp.run("branches", "report", "-i", fixture(FIXTURES[1]), "--json", "-o", out)
    tdp.expect_exit(r, 0)
    tdp.check(r.out == "", "stdout not empty with -o")
    with open(out) as f:
        tdp.check(json.load(f)["branch_entries"] == 128, "-o file content")


def test_json_top_and_all():
    """--json is cut at the text's 20 rows per ranked table and says what it left out; --all keeps every row."""
    name = FIXTURES[0]
    r = tdp.run("branches", "report", "-i", fixture(name), "--json", "--all")
    tdp.expect_exit(r, 0)
    full = r.json()
    tdp.check(full["top"] is None, "--all: top null", r)
    tdp.check(full["rows_left_out"] == {"sites": 0, "edges": 0, "symbol_edges": 0, "blocks": 0},
              "--all leaves nothing out", r)
    r = tdp.run("branches", "report", "-i", fixture(name), "--json")
    tdp.expect_exit(r, 0)
    cut = r.json()
    tdp.check(cut["top"] == 20, "default top 20", r)
    for key in ("sites", "edges", "symbol_edges", "blocks"):
        n = len(full[key])
        tdp.check(len(cut[key]) == min(n, 20), "%s: %d rows of %d" % (key, len(cut[key]), n), r)
        tdp.check(cut["rows_left_out"][key] == n - len(cut[key]), "%s: rows_left_out" % key, r)
        tdp.check(cut[key] == full[key][:len(cut[key])], "%s: the top rows, the same" % key, r)
    tdp.check(len(full["sites"]) > 20, "the fixture has more than 20 sites (%d)" % len(full["sites"]), r)
    tdp.check(cut["branch_entries"] == full["branch_entries"], "totals are not cut", r)
    r = tdp.run("branches", "report", "-i", fixture(name), "--json", "-n", "5")
    tdp.expect_exit(r, 0)
    tdp.check(len(r.json()["sites"]) == 5 and r.json()["rows_left_out"]["sites"] == len(full["sites"]) - 5,
              "-n 5", r)
    r = tdp.run("branches", "report", "-i", fixture(name), "--json", "--all", "-n", "5")
    tdp.expect_exit(r, 2)
    tdp.expect_in("--all and -n 5 exclude each other", r.err, "stderr", r)


def test_errors():
    r = tdp.run("branches", "report", "-i", os.path.join(TMP, "missing.data"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("cannot open", r.err, "stderr", r)
    # truncated inside the data section: the reader's message with the offset
    with open(fixture(FIXTURES[3]), "rb") as f:
        data = f.read()
    cut = os.path.join(TMP, "cut.data")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    r = tdp.run("branches", "report", "-i", cut)
    tdp.expect_exit(r, 2)
    tdp.expect_in("offset", r.err, "stderr", r)
    # the header of the 100th record says it is 4 bytes long: refused, naming its offset
    bad = bytearray(data)
    off = int.from_bytes(bad[40:48], "little")  # the data section (file header, formats.md 3.1)
    for _ in range(99):
        off += int.from_bytes(bad[off + 6:off + 8], "little")
    bad[off + 6:off + 8] = (4).to_bytes(2, "little")
    corrupt = os.path.join(TMP, "corrupt.data")
    with open(corrupt, "wb") as f:
        f.write(bad)
    r = tdp.run("branches", "report", "-i", corrupt)
    tdp.expect_exit(r, 2)
    tdp.expect_in("record at offset %#x: size 4 is smaller than its header" % off, r.err, "stderr", r)
    r = tdp.run("branches", "report", "-i", "/etc/hostname")
    tdp.expect_exit(r, 2)
    tdp.expect_in("not a perf.data", r.err, "stderr", r)
    pipe = os.path.join(tdp.SOURCE_ROOT, "tests", "data", "perfdata", "cpu-clock.pipe")
    if os.path.exists(pipe):
        # plain samples (no branch stacks) are reported by IP (test_branches_samples.py)
        r = tdp.run("branches", "report", "-i", pipe)
        tdp.expect_exit(r, 0)
        tdp.expect_in("plain samples 124 ", r.out, "stdout", r)
    r = tdp.run("branches", "report", "-i", fixture(FIXTURES[1]), "--sort", "cycles")
    tdp.expect_exit(r, 2)
    r = tdp.run("branches", "report", "-i", fixture(FIXTURES[1]), "--json", "--csv")
    tdp.expect_exit(r, 2)
    r = tdp.run("branches")
    tdp.expect_exit(r, 2)
    r = tdp.run("branches", "report", "--help")
    tdp.expect_exit(r, 0)
    tdp.expect_in("--no-source", r.out, "help")


def test_pipe_mode():
    """perf's pipe format (perf inject -o -) read from standard input: the same counts."""
    import shutil
    import subprocess
    if not shutil.which("perf"):
        raise tdp.Skip("perf is not installed")
    pipe = subprocess.run(["perf", "inject", "-i", fixture(FIXTURES[1]), "-o", "-"], capture_output=True)
    tdp.check(pipe.returncode == 0 and pipe.stdout[:8] == b"PERFILE2", "perf inject -o - failed")
    argv = [tdp.TDPROF, "branches", "report", "-i", "-", "--json", "-n", "0"]
    proc = subprocess.run(argv, input=pipe.stdout, capture_output=True, timeout=120)
    tdp.check(proc.returncode == 0, "exit %d: %s" % (proc.returncode, proc.stderr.decode()[-2000:]))
    j = json.loads(proc.stdout)
    samples, entries = perf_script(FIXTURES[1])
    tdp.check((j["samples"], j["branch_entries"], j["mispredicted_entries"]) ==
              (samples, len(entries), sum(1 for e in entries if e[2])), "pipe mode counts: %r" % (
                  (j["samples"], j["branch_entries"], j["mispredicted_entries"]),))


def test_sort_and_top():
    j = report_json(FIXTURES[3], "--sort", "rate")
    rates = [s["rate"] for s in j["sites"]]
    tdp.check(rates == sorted(rates, reverse=True), "--sort rate: not ranked")
    j = report_json(FIXTURES[3], "--sort", "executions", "-n", "7")
    tdp.check(len(j["sites"]) == 7, "-n 7 gave %d sites" % len(j["sites"]))
    ex = [s["executions"] for s in j["sites"]]
    tdp.check(ex == sorted(ex, reverse=True), "--sort executions: not ranked")


def test_no_mispredict_flags_are_null_not_zero():
    """A recording without mispredict flags (AMD Zen 3 BRS) measures no mispredicts:
    every mispredict figure is null in JSON (never 0), and the text says so."""
    import os
    path = tdp.brs_like_copy(fixture(FIXTURES[1]))
    try:
        r = tdp.run("branches", "report", "-i", path, "--json", "-n", "0")
        tdp.expect_exit(r, 0)
        j = r.json()
        tdp.check(j["mispredict_flags"] is False, "no mispredict flags", r)
        tdp.check(j["mispredicted_entries"] is None, "mispredicted_entries null, not 0", r)
        tdp.check(j["branch_entries"] > 0 and j["sites"] and j["edges"], "entries, sites and edges remain", r)
        for s in j["sites"]:
            tdp.check(s["mispredicts"] is None and s["rate"] is None and s["share"] is None,
                      "site %s: mispredict figures null" % s["address"], r)
        for e in j["edges"]:
            tdp.check(e["mispredicts"] is None, "edge %s->%s: mispredicts null" % (e["from"], e["to"]), r)
        t = tdp.run("branches", "report", "-i", path)
        tdp.expect_exit(t, 0)
        tdp.expect_in("mispredicted: not recorded", t.out, "stdout", t)
        c = tdp.run("branches", "report", "-i", path, "--csv")
        tdp.expect_exit(c, 0)
        rows = [l.split(",") for l in c.out.splitlines()[1:3]]
        tdp.check(rows and all(row[8:11] == ["", "", ""] for row in rows),
                  "CSV: mispredicts, rate and share are empty fields, not 0", c)
    finally:
        os.unlink(path)


tdp.main(globals())
