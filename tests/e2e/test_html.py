"""tdprof --html: the report rendered in a real browser (headless Chromium).

For topdown, why, branches report and diff the page is rendered, its text read
back from the DOM (the verdict, the sites, the source line and the disassembly),
the bars of the tree checked against the JSON document of the same run (one bar
per measured node, 10 units wide per percentage point), and a screenshot taken
(kept in the build tree: tests/e2e/html-*.png). Skips when Chromium is missing and
cannot be installed (scripts/deps.sh html)."""
import json
import os
import re
import subprocess
import tempfile

import chromium
import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-html-")
DIFF_DATA = os.path.join(tdp.SOURCE_ROOT, "tests", "data", "diff")
SHOTS = os.path.join(tdp.BUILD_ROOT, "tests", "e2e")


def path(name):
    return os.path.join(TMP, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def load(p):
    with open(p) as f:
        return json.load(f)


def shot(page, name):
    """A screenshot of page kept beside the build's test logs; returns the PNG's size."""
    os.makedirs(SHOTS, exist_ok=True)
    png = os.path.join(SHOTS, "html-%s.png" % name)
    w, h = chromium.screenshot(page, png)
    tdp.check((w, h) == (1200, 1600), "the screenshot is 1200x1600, got %dx%d" % (w, h))
    tdp.check(os.path.getsize(png) > 20000, "the screenshot shows something (%d bytes)" % os.path.getsize(png))
    return png


def self_contained(page):
    with open(page) as f:
        text = f.read()
    for bad in ("<script", " src=\"", " href=\"", "url(", "@import", "https://", "http://fonts"):
        tdp.check(bad not in text, "the page holds %r: it must not fetch anything" % bad)
    urls = set(re.findall(r"https?://[^\"' )]+", text))
    tdp.check(urls <= {"http://www.w3.org/2000/svg"}, "no URL but the SVG namespace: %s" % urls)


# A perf 5.x-style Ice Lake-X import: level 1 from the four topdown events over their
# sum (40 / 10 / 20 / 30 %), Bad Speculation split by BR_MISP / (BR_MISP + CLEARS):
# branch_mispredicts = 90 / 100 * 10 = 9 %, machine_clears = 1 %.
ICX = ("1000,,TOPDOWN.SLOTS,2000000,100.00,,\n"
       "400,,topdown-retiring,2000000,100.00,,\n"
       "100,,topdown-bad-spec,2000000,100.00,,\n"
       "200,,topdown-fe-bound,2000000,100.00,,\n"
       "300,,topdown-be-bound,2000000,100.00,,\n"
       "90,,BR_MISP_RETIRED.ALL_BRANCHES,2000000,100.00,,\n"
       "10,,MACHINE_CLEARS.COUNT,2000000,100.00,,\n")


def test_topdown_page():
    chromium.browser()
    csv = write("icx.csv", ICX)
    page = path("topdown.html")
    r = tdp.run("topdown", "--import", csv, "--cpu", "icelakex", "--json", "-o", path("topdown.json"),
                "--html", page)
    tdp.expect_exit(r, 0)
    doc = load(path("topdown.json"))
    self_contained(page)
    elements, text = chromium.parse(chromium.dump_dom(page))
    got = chromium.check_tree(elements, "tree", doc)
    # the numbers by hand: 40/10/20/30 and 9/1 -> widths 400, 100, 200, 300; 90, 10
    want = {("retiring", None): 400, ("bad_speculation", None): 100, ("frontend_bound", None): 200,
            ("backend_bound", None): 300, ("branch_mispredicts", "bad_speculation"): 90,
            ("machine_clears", "bad_speculation"): 10}
    for k, w in want.items():
        tdp.check(abs(got[k][1] - w) < 1e-6, "%s is %r wide, want %r" % (k, got[k][1], w))
    tdp.check(abs(got[("branch_mispredicts", "bad_speculation")][0] - 400) < 1e-6,
              "branch_mispredicts starts under bad_speculation (x = 400)")
    for words in ("Backend Bound: 30.0 % of slots, below its 40 % threshold", "icelakex", "import",
                  "Not measurable here (no bar, never 0): Fetch Latency"):
        tdp.expect_in(words, text, "the rendered page")
    tdp.check("estimate (simulated)" not in text, "an import is no estimate")
    shot(page, "topdown")


def build(src, out, *flags):
    cc = os.environ.get("CC", "cc")
    r = subprocess.run([cc, "-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-fno-tree-vectorize",
                        "-fno-sanitize=all"] + list(flags) + ["-o", out, src], capture_output=True, text=True)
    tdp.check(r.returncode == 0, "cannot build %s:\n%s" % (src, r.stderr))
    return out


def marker_line(src, marker):
    with open(src) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    raise AssertionError("no %r in %s" % (marker, src))


def test_why_page_simulated():
    chromium.browser()
    src = os.path.join(DIFF_DATA, "bad", "parse.c")
    exe = build(src, path("bad-parse"))
    line = marker_line(src, "tdprof-diff: HOT")
    page = path("why.html")
    r = tdp.run("why", "--backend=sim", "--json", "-o", path("why.json"), "--html", page, "--", exe, timeout=300)
    tdp.expect_exit(r, 0)
    doc = load(path("why.json"))
    self_contained(page)
    elements, text = chromium.parse(chromium.dump_dom(page))
    chromium.check_tree(elements, "tree", doc)
    tdp.expect_in("Bad Speculation: %.1f %% of slots, above its 15 %% threshold" % doc["level1"]["bad_speculation"],
                  text, "the verdict")
    tdp.expect_in("estimate (simulated)", text, "the page")
    tdp.expect_in("parse.c:%d in parse_token" % line, text, "the sites")
    # the first site's source, its line marked, and the disassembly with the site's branch
    hot = [e for e in elements if e.tag == "span" and e.attrs.get("data-site-line") == "1"]
    tdp.check(hot and "tdprof-diff: HOT" in hot[0].text, "the site's source line is shown and marked")
    dis = [e for e in elements if e.tag == "pre" and e.attrs.get("class") == "disasm"]
    tdp.check(dis and "this site" in dis[0].text, "the disassembly marks the site's instruction")
    tdp.check(re.search(r"\bj[a-z]+\b", dis[0].text), "the disassembly shows a jump")
    shot(page, "why")


def test_branches_page():
    chromium.browser()
    data = tdp.shared("perfdata", "perf.data.branch_stack_spec")
    page = path("branches.html")
    r = tdp.run("branches", "report", "-i", data, "--json", "-o", path("br.json"), "--html", page)
    if r.code == 2 and "--html" in r.err:
        raise tdp.Skip("'branches report' has no --html yet")
    tdp.expect_exit(r, 0)
    doc = load(path("br.json"))
    self_contained(page)
    elements, text = chromium.parse(chromium.dump_dom(page))
    rows = [e for e in elements if e.tag == "tr" and e.attrs.get("class") == "site"]
    tdp.check(len(rows) == min(10, len(doc["sites"])), "one row per site (%d)" % len(rows))
    tdp.expect_in("mispredicted_entries %d" % doc["mispredicted_entries"], text, "the recording's counts")
    tdp.expect_in(doc["edges"][0]["from_symbol"], text, "the edges")
    tdp.check(not chromium.bars(elements, "tree"), "a branch report has no top-down tree")
    shot(page, "branches")


def test_diff_page_side_by_side():
    chromium.browser()
    a, b = write("a.csv", ICX), write("b.csv", ICX.replace("400,,topdown-retiring", "300,,topdown-retiring")
                                          .replace("100,,topdown-bad-spec", "250,,topdown-bad-spec")
                                          .replace("200,,topdown-fe-bound", "150,,topdown-fe-bound")
                                          .replace("90,,BR_MISP", "240,,BR_MISP"))
    for name, csv in (("a", a), ("b", b)):
        tdp.expect_exit(tdp.run("topdown", "--import", csv, "--cpu", "icelakex", "--json", "-o",
                                path(name + ".json")), 0)
    page = path("diff.html")
    r = tdp.run("diff", path("a.json"), path("b.json"), "--html", page)
    tdp.expect_exit(r, 0)
    self_contained(page)
    elements, text = chromium.parse(chromium.dump_dom(page))
    chromium.check_tree(elements, "tree-a", load(path("a.json")))
    chromium.check_tree(elements, "tree-b", load(path("b.json")))
    tdp.expect_in("Bad Speculation rose 15.0 points", text, "the verdict")
    moved = [e for e in elements if e.tag == "tr" and "moved" in e.attrs.get("class", "").split()]
    tdp.check(sorted(e.attrs["data-key"] for e in moved) ==
              ["bad_speculation", "branch_mispredicts", "frontend_bound", "retiring"],
              "the nodes beyond the 2-point floor are marked: %s" % [e.attrs["data-key"] for e in moved])
    shot(page, "diff")


tdp.main(globals())
