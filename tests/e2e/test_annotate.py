"""tdprof annotate: one function's source lines and instructions with their counts.

The counts must be the other commands' own, for the same code:
- a recording: every instruction's executions and mispredicts are the sites of
  `branches report --json` at that address, a line's are the sums of its sites, the
  timed blocks ending at an instruction are the report's blocks. Recordings: made
  here by bench/gen-branch-perfdata (stacks that walk a real -g binary's code, with
  LBR cycles: this machine has no LBR), and the shared real recordings (their
  binaries are not here: their kernel addresses are named by a kallsyms file
  written here, and compared address by address);
- a simulated run: the hottest line is the site `why --backend=sim --json` ranks
  first for a known mispredicting branch, with the same executions, branches and
  mispredicts.
C++ names (overloads, mangled names, an inlined helper) and Rust names (when rustc
is installed) are demangled; errors exit 2 with what to do.
"""
import atexit
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile

import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-annotate-")
atexit.register(shutil.rmtree, TMP, True)
WORKLOADS = os.path.join(tdp.SOURCE_ROOT, "tests", "e2e", "workloads")
KERNEL_START = 0xffff800000000000
MANGLED = "_ZN6shapes10count_overEPKhmNS_6FilterE"
FILTER_OVERLOAD = "shapes::count_over(unsigned char const*, unsigned long, shapes::Filter)"


def built(*parts):
    path = os.path.join(tdp.BUILD_ROOT, *parts)
    if not os.access(path, os.X_OK):
        raise tdp.Skip("not built: %s" % path)
    return path


def need_valgrind():
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")


def recording(binary, name, samples=3000):
    """A perf.data whose branch stacks walk binary's code (with LBR cycles)."""
    out = os.path.join(TMP, name + ".data")
    if not os.path.exists(out):
        subprocess.run([built("bench", "gen-branch-perfdata"), binary, out, str(samples), "16"], check=True,
                       capture_output=True)
    return out


def annotate_json(*args, code=0):
    r = tdp.run("annotate", "--json", *args, timeout=300)
    tdp.expect_exit(r, code)
    return r.json()


def report_json(path):
    r = tdp.run("branches", "report", "-i", path, "--json", "-n", "0")
    tdp.expect_exit(r, 0)
    return r.json()


def insn_by_addr(a):
    return {int(i["address"], 16): i for i in a["instructions"]}


def compare_with_report(a, rep):
    """Every site of the annotated function: the same executions and mispredicts at its address."""
    fn = a["function"]
    start = int(fn["address"], 16)
    name = fn["name"].split("(")[0]  # branches report spells functions as perf does: no parameters
    cands = [s for s in rep["sites"] if s["function"] == name and s["dso"] == fn["dso"]]
    # overloads share that name: this one is where the recorded process had it (a load bias keeps page offsets)
    bases = {int(s["address"], 16) - s["offset"] for s in cands}
    bases = [b for b in bases if b & 0xfff == start & 0xfff]
    tdp.check(len(bases) == 1, "cannot tell %s's sites in the report (starts %r)" % (fn["name"], bases))
    sites = [s for s in cands if int(s["address"], 16) - s["offset"] == bases[0]]
    tdp.check(sites, "branches report has no site in %s" % fn["name"])
    insns = insn_by_addr(a)
    for s in sites:
        at = start + s["offset"]  # one address space: the binary's
        tdp.check(at in insns, "site %s (%s+%d) is no instruction of the listing" % (s["address"], fn["name"],
                                                                                     s["offset"]))
        got = insns[at]["counts"]
        tdp.check((got["executions"], got["mispredicts"]) == (s["executions"], s["mispredicts"]),
                  "0x%x: annotate %r, branches report %r" % (at, got, s))
    total = sum(s["executions"] for s in sites)
    tdp.check(a["totals"]["executions"] == total,
              "function executions %d, the report's sites add up to %d" % (a["totals"]["executions"], total))
    return sites


def check_hot_line(a, sites):
    """The hottest line: the most mispredicts of the report's sites by line, with their sums."""
    by_line = {}
    for s in sites:
        c = by_line.setdefault(s["line"], [0, 0])
        c[0] += s["executions"]
        c[1] += s["mispredicts"]
    hot = a["hottest_line"]
    tdp.check(hot is not None and hot["hot"] == 1, "no hottest line: %r" % hot)
    best = max(by_line.values(), key=lambda c: c[1])[1]
    tdp.check(by_line[hot["line"]][1] == best, "line %d is not the report's most mispredicting line (%r)" %
              (hot["line"], by_line))
    tdp.check([hot["counts"]["executions"], hot["counts"]["mispredicts"]] == by_line[hot["line"]],
              "hot line %d: %r, the report's sites there: %r" % (hot["line"], hot["counts"], by_line[hot["line"]]))
    return hot


def test_recording_counts_equal_branches_report():
    wl = built("tests", "e2e", "workloads", "wl-twofn")
    data = recording(wl, "twofn")
    rep = report_json(data)
    a = annotate_json("-i", data)
    tdp.check(a["selected"] == "hottest" and a["hottest_by"] == "mispredicts", "not the hottest: %r" % a["selected"])
    tdp.check(a["backend"] == "import", "backend %r" % a["backend"])
    # the hottest function: the one whose report sites mispredict most
    per_fn = {}
    for s in rep["sites"]:
        if s["function"]:
            per_fn[s["function"]] = per_fn.get(s["function"], 0) + s["mispredicts"]
    tdp.check(per_fn[a["function"]["name"]] == max(per_fn.values()), "hottest %s, report: %r" %
              (a["function"]["name"], per_fn))
    sites = compare_with_report(a, rep)
    check_hot_line(a, sites)
    for name in ("chase", "branchy", "main"):
        b = annotate_json(name, "-i", data)
        tdp.check(b["function"]["name"] == name and b["selected"] == "named", "annotated %r" % b["function"])
        check_hot_line(b, compare_with_report(b, rep))


def test_recording_blocks_equal_branches_report():
    """Timed LBR: the cycles and timed executions of the blocks ending at each instruction."""
    wl = built("tests", "e2e", "workloads", "wl-twofn")
    data = recording(wl, "twofn")
    rep = report_json(data)
    a = annotate_json("branchy", "-i", data)
    fn = a["function"]
    site = next(s for s in rep["sites"] if s["function"] == "branchy")
    base = int(site["address"], 16) - site["offset"]  # branchy's start in the recorded process
    start, size = int(fn["address"], 16), fn["size"]
    want = {}
    for b in rep["blocks"]:
        s, e = int(b["start"], 16) - base, int(b["end"], 16) - base
        if 0 <= s <= e < size:
            w = want.setdefault(start + e, [0, 0.0])
            w[0] += b["timed"]
            w[1] += b["avg_cycles"] * b["timed"]
    tdp.check(want, "no timed block inside branchy in the report")
    insns = insn_by_addr(a)
    for at, (timed, cycles) in want.items():
        got = insns[at]
        tdp.check(got["block_timed"] == timed and abs(got["block_cycles"] - cycles) < 0.5,
                  "block ending at 0x%x: annotate %r/%r, report %r/%r" % (at, got["block_timed"],
                                                                          got["block_cycles"], timed, cycles))
    tdp.check(sum(i["block_timed"] for i in a["instructions"]) == sum(w[0] for w in want.values()),
              "blocks ending elsewhere than the report's")
    tdp.check(a["timing"] and 0 < a["timing"]["ipc"] and 0 < a["timing"]["coverage_pct"] <= 100,
              "timing %r" % a["timing"])


def test_recording_text_one_address_space():
    wl = built("tests", "e2e", "workloads", "wl-twofn")
    data = recording(wl, "twofn")
    r = tdp.run("annotate", "chase", "-i", data, "--stdio")
    tdp.expect_exit(r, 0)
    tdp.expect_in("tdprof annotate: chase", r.out, "the header", r)
    tdp.expect_in("<chase+0x", r.out, "a branch target named in the function", r)
    tdp.expect_in(">>", r.out, "the hottest line marked", r)
    tdp.check("\033[" not in r.out, "colour on a pipe", r)
    nm = subprocess.run(["nm", wl], capture_output=True, text=True, check=True).stdout
    chase = int(next(l.split()[0] for l in nm.splitlines() if l.endswith(" chase")), 16)
    addrs = [int(m, 16) for m in re.findall(r"^\S*\s.*?\s([0-9a-f]+):  ", r.out, re.M)]
    tdp.check(addrs and addrs[0] == chase, "the listing starts at %r, nm says chase is at 0x%x" %
              (addrs[:1], chase), r)
    tdp.check("5555" not in r.out, "a runtime (load) address in the listing", r)
    # the views
    r = tdp.run("annotate", "chase", "-i", data, "--asm-only")
    tdp.check(r.code == 0 and "Source (" not in r.out and "Disassembly" in r.out, "--asm-only", r)
    r = tdp.run("annotate", "chase", "-i", data, "--source-only")
    tdp.check(r.code == 0 and "Source (" in r.out and "Disassembly" not in r.out, "--source-only", r)


def test_plain_samples_equal_branches_report():
    """cpu-clock samples (perf record here: software events need no PMU): samples per line as branches report's."""
    wl = built("tests", "e2e", "workloads", "wl-hot")
    if not shutil.which("perf"):
        raise tdp.Skip("perf is not installed")
    data = os.path.join(TMP, "cpu-clock.data")
    r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-o", data, "--", wl, "spin", "1", "100"],
                       capture_output=True, text=True)
    if r.returncode:
        raise tdp.Skip("perf record -e cpu-clock failed here: %s" % r.stderr[-300:])
    r = tdp.run("branches", "report", "-i", data, "--json", "-n", "0")
    tdp.expect_exit(r, 0)
    rep = r.json()
    a = annotate_json("wl_hot_loop", "-i", data)
    fn = next(f for f in rep["functions"] if f["function"] == "wl_hot_loop")
    tdp.check(a["totals"]["samples"] == fn["self"], "samples %d, branches report's self %d" %
              (a["totals"]["samples"], fn["self"]))
    want = {l["line"]: l["samples"] for l in rep["lines"] if l["function"] == "wl_hot_loop"}
    got = {l["line"]: l["counts"]["samples"] for l in a["lines"] if l["counts"]["samples"]}
    tdp.check(got == want, "samples by line: annotate %r, branches report %r" % (got, want))
    tdp.check(a["hottest_line"]["counts"]["samples"] == max(want.values()), "hottest line %r" % a["hottest_line"])


def kallsyms_for(rep, path):
    """A kallsyms naming fake_fn, the 4 KiB around the kernel site with the most mispredicts; None without one."""
    k = [s for s in rep["sites"] if int(s["address"], 16) >= KERNEL_START]
    if not k:
        return None
    top = max(k, key=lambda s: (s["mispredicts"], s["executions"]))
    start = int(top["address"], 16) & ~0xfff
    with open(path, "w") as f:
        f.write("%016x T fake_fn\n%016x T fake_next\n" % (start, start + 0x1000))
    return start


def test_shared_recordings_by_address():
    """The real recordings: a kallsyms written here names one function; no vmlinux, so no disassembly."""
    done = 0
    for data in sorted(glob.glob(os.path.join(tdp.shared("perfdata"), "perf.data.*"))):
        rep = report_json(data)
        ks = os.path.join(TMP, os.path.basename(data) + ".kallsyms")
        start = kallsyms_for(rep, ks)
        if start is None:
            continue
        a = annotate_json("fake_fn", "-i", data, "--kallsyms", ks)
        tdp.check(not a["disassembled"] and "vmlinux" in a["no_disassembly"], "%s: %r" % (data, a["no_disassembly"]))
        want = {int(s["address"], 16): (s["executions"], s["mispredicts"]) for s in rep["sites"]
                if start <= int(s["address"], 16) < start + 0x1000}
        # the listing is the addresses the recording names there (sites, and ends of timed blocks)
        got = {int(i["address"], 16): (i["counts"]["executions"], i["counts"].get("mispredicts"))
               for i in a["instructions"] if i["counts"]["executions"]}
        tdp.check(got == want, "%s: annotate %r, branches report %r" % (data, got, want))
        hot = max(want.items(), key=lambda kv: (kv[1][1], -kv[0]))
        if hot[1][1]:
            tdp.check(int(a["hottest_instruction"], 16) == hot[0], "%s: hottest %s, report's %x" %
                      (data, a["hottest_instruction"], hot[0]))
        done += 1
    if not done:
        raise tdp.Skip("no shared recording with kernel sites")


def demo_branch():
    return built("examples", "branch", "demo-branch")


def marker_line(path, marker):
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    raise AssertionError("no %r in %s" % (marker, path))


def test_simulated_hot_line_equals_why():
    need_valgrind()
    exe = demo_branch()
    a = annotate_json("--backend=sim", "--", exe)
    r = tdp.run("why", "--backend=sim", "--json", "--", exe, timeout=300)
    tdp.expect_exit(r, 0)
    site = r.json()["sites"][0]
    hot = a["hottest_line"]
    line = marker_line(os.path.join(tdp.SOURCE_ROOT, "examples", "branch", "branch.c"), "tdprof-demo: MISPREDICT")
    tdp.check(a["backend"] == "sim" and a["estimate"], "not labelled simulated: %r" % a["backend"])
    tdp.check(a["function"]["name"] == "main" and a["selected"] == "hottest", "annotated %r" % a["function"])
    tdp.check(hot["line"] == line == site["line"], "hot line %d, why's site %d, the marker %d" %
              (hot["line"], site["line"], line))
    tdp.check(hot["file"].endswith("examples/branch/branch.c") and site["file"].endswith("examples/branch/branch.c"),
              "files %r %r" % (hot["file"], site["file"]))
    for key in ("executions", "branches", "mispredicts"):
        tdp.check(hot["counts"][key] == site[key], "%s: annotate %d, why %d" % (key, hot["counts"][key], site[key]))
    tdp.check(hot["counts"]["Ir"] == site["instructions"], "Ir %d, why's instructions %d" %
              (hot["counts"]["Ir"], site["instructions"]))
    # the line's one conditional branch holds all of its mispredicts
    branch = [i for i in a["instructions"] if i["line"] == line and i["counts"]["mispredicts"]]
    tdp.check(len(branch) == 1 and a["hottest_instruction"] == branch[0]["address"] and
              branch[0]["branch_type"] == "COND", "the hot branch: %r" % branch)
    r = tdp.run("annotate", "main", "--", exe, timeout=300)
    tdp.expect_exit(r, 0)
    tdp.expect_in("estimate (simulated)", r.out, "the label", r)
    row = next(l for l in r.out.splitlines() if re.match(r">>.*\s%d\s" % line, l))
    tdp.expect_in("{:,}".format(site["mispredicts"]), row, "the hot line's mispredicts", r)


def cxx_binary():
    if not shutil.which("g++"):
        raise tdp.Skip("g++ is not installed")
    out = os.path.join(TMP, "wl-annot")
    if not os.path.exists(out):
        subprocess.run(["g++", "-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-o", out,
                        os.path.join(WORKLOADS, "wl-annot.cpp")], check=True)
    return out


def test_cxx_names():
    need_valgrind()
    exe = cxx_binary()
    # two overloads of one name: both listed, with their counts, exit 2
    r = tdp.run("annotate", "shapes::count_over", "--backend=sim", "--", exe, timeout=300)
    tdp.expect_exit(r, 2)
    tdp.expect_in("names 2 functions", r.err, "the error", r)
    tdp.expect_in(FILTER_OVERLOAD, r.err, "the first overload", r)
    tdp.expect_in("shapes::count_over(unsigned char const*, unsigned long, int)", r.err, "the second overload", r)
    tdp.check(re.search(r"mispredicts [1-9]", r.err), "no counts with the candidates", r)
    # the whole name, and the mangled one, name the same function with the same counts
    a = annotate_json(FILTER_OVERLOAD, "--backend=sim", "--", exe)
    b = annotate_json(MANGLED, "--backend=sim", "--", exe)
    tdp.check(a["function"]["name"] == b["function"]["name"] == FILTER_OVERLOAD, "names %r %r" %
              (a["function"]["name"], b["function"]["name"]))
    tdp.check(a["totals"] == b["totals"], "the mangled name counted otherwise")
    line = marker_line(os.path.join(WORKLOADS, "wl-annot.cpp"), "HOT BRANCH")
    tdp.check(a["hottest_line"]["line"] == line, "hot line %d, expected %d" % (a["hottest_line"]["line"], line))
    # a helper inlined into main: its lines say so
    m = annotate_json("main", "--backend=sim", "--", exe)
    inl = marker_line(os.path.join(WORKLOADS, "wl-annot.cpp"), "INLINED LINE")
    row = next((l for l in m["lines"] if l["line"] == inl), None)
    tdp.check(row and row["has_code"] and row["inlined"] and "mix" in row["function"], "the inlined line: %r" % row)
    tdp.check(any(len(i["inline"]) > 1 and i["line"] == inl for i in m["instructions"]),
              "no instruction with an inline chain on line %d" % inl)


def test_cxx_names_in_a_recording():
    exe = cxx_binary()
    data = recording(exe, "cxx", 2000)
    rep = report_json(data)
    for name in (MANGLED, FILTER_OVERLOAD):
        a = annotate_json(name, "-i", data)
        tdp.check(a["function"]["name"] == FILTER_OVERLOAD, "%s named %r" % (name, a["function"]["name"]))
        check_hot_line(a, compare_with_report(a, rep))


RUST = """
#[inline(never)]
fn branchy(v: &[u8]) -> u64 {
    let mut s = 0u64;
    for &b in v {
        if b < 128 { // HOT BRANCH
            s += b as u64;
        }
    }
    s
}

fn main() {
    let mut x: u32 = 2463534242;
    let mut v = vec![0u8; 100000];
    for b in v.iter_mut() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    let mut t = 0;
    for _ in 0..3 {
        t += branchy(std::hint::black_box(&v));
    }
    println!("{}", t);
}
"""


def rustc():
    for c in (shutil.which("rustc"), os.path.expanduser("~/.cargo/bin/rustc")):
        if c and os.access(c, os.X_OK):
            return c
    return None


def test_rust_names():
    rc = rustc()
    if not rc:
        raise tdp.Skip("rustc is not installed: Rust names not checked")
    need_valgrind()
    src = os.path.join(TMP, "wl_rust.rs")
    exe = os.path.join(TMP, "wl_rust")
    with open(src, "w") as f:
        f.write(RUST)
    subprocess.run([rc, "-C", "opt-level=1", "-g", "-o", exe, src], check=True, capture_output=True)
    a = annotate_json("wl_rust::branchy", "--backend=sim", "--", exe)
    tdp.check(a["function"]["name"] == "wl_rust::branchy", "name %r" % a["function"]["name"])
    line = marker_line(src, "HOT BRANCH")
    tdp.check(any(l["line"] == line and l["has_code"] for l in a["lines"]), "no code at line %d" % line)
    tdp.check(a["hottest_line"]["function"] == "wl_rust::branchy", "hot line %r" % a["hottest_line"])
    nm = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    mangled = next(l.split()[2] for l in nm.splitlines() if "wl_rust" in l and "7branchy" in l)
    b = annotate_json(mangled, "--backend=sim", "--", exe)
    tdp.check(b["function"]["name"] == "wl_rust::branchy", "%s named %r" % (mangled, b["function"]["name"]))


def test_errors():
    wl = built("tests", "e2e", "workloads", "wl-twofn")
    data = recording(wl, "twofn")
    r = tdp.run("annotate", "no_such_function", "-i", data)
    tdp.expect_exit(r, 2)
    tdp.expect_in("no function 'no_such_function'", r.err, "the error", r)
    tdp.check(re.search(r"hint:\s+branchy\s+\(wl-twofn, executions [\d,]+, mispredicts [\d,]+\)", r.err),
              "the candidates with their counts", r)
    r = tdp.run("annotate", "bran", "-i", data)
    tdp.expect_exit(r, 2)
    tdp.check("branchy" in r.err and "chase" not in r.err, "a part of a name lists the names holding it", r)
    # not a perf.data: the offset named
    bad = os.path.join(TMP, "not-perf.data")
    with open(bad, "w") as f:
        f.write("this is not a recording\n" * 4)
    r = tdp.run("annotate", "-i", bad)
    tdp.expect_exit(r, 2)
    tdp.check(re.search(r"offset 0x[0-9a-f]+", r.err), "no offset in the error", r)
    r = tdp.run("annotate", "-i", os.path.join(TMP, "missing.data"))
    tdp.expect_exit(r, 2)
    tdp.expect_in("tdprof branches record", r.err, "how to make one", r)
    r = tdp.run("annotate", "--asm-only", "--source-only", "-i", data)
    tdp.expect_exit(r, 2)
    r = tdp.run("annotate", "chase", "-i", data, "--sort", "bogus")
    tdp.expect_exit(r, 2)
    tdp.expect_in("executions", r.err, "the keys it takes", r)
    r = tdp.run("annotate", "chase", "-i", data, "extra")
    tdp.expect_exit(r, 2)


def test_html_page():
    wl = built("tests", "e2e", "workloads", "wl-twofn")
    data = recording(wl, "twofn")
    page = os.path.join(TMP, "chase.html")
    a = annotate_json("chase", "-i", data, "--html", page)
    with open(page) as f:
        html = f.read()
    tdp.check("<script" not in html and "http://" not in html.replace("http://www.w3.org", ""), "not self-contained")
    tdp.expect_in("tdprof annotate: chase", html, "the title")
    hot = re.findall(r'<tr data-line="(\d+)" data-hot="1"', html)
    tdp.check(hot == [str(a["hottest_line"]["line"])], "hot rows %r, JSON's %r" % (hot, a["hottest_line"]["line"]))
    rows = re.findall(r'<tr data-address="0x([0-9a-f]+)"', html)
    tdp.check([int(x, 16) for x in rows] == [int(i["address"], 16) for i in a["instructions"]],
              "the page's instructions differ from the JSON's")
    r = tdp.run("annotate", "chase", "-i", data, "--format", "html")
    tdp.expect_exit(r, 0)
    tdp.check(r.out.startswith("<!DOCTYPE html>"), "--format html", r)


tdp.main(globals())
