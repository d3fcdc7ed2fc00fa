"""--format html: the HTML page as a format of its own, for every document with a page
(why, branches report, diff; topdown once its --format lists html).

For each: the file is written, is one self-contained HTML page, is the same page as
the --html FILE shortcut, and holds the numbers of the command's JSON document (the
bars of the top-down tree carry the JSON's values; a branch report's site rows its
addresses and counts). The HTML is read with a plain parser: no browser needed
(test_html.py renders the pages in Chromium).
"""
import json
import os
import re
import subprocess
import tempfile

import chromium
import pdsynth
import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-format-html-")
DIFF_DATA = os.path.join(tdp.SOURCE_ROOT, "tests", "data", "diff")

# Ice Lake-X level-1 counts as perf stat -x, writes them (40 / 10 / 20 / 30 %).
ICX = ("1000,,TOPDOWN.SLOTS,2000000,100.00,,\n"
       "400,,topdown-retiring,2000000,100.00,,\n"
       "100,,topdown-bad-spec,2000000,100.00,,\n"
       "200,,topdown-fe-bound,2000000,100.00,,\n"
       "300,,topdown-be-bound,2000000,100.00,,\n"
       "90,,BR_MISP_RETIRED.ALL_BRANCHES,2000000,100.00,,\n"
       "10,,MACHINE_CLEARS.COUNT,2000000,100.00,,\n")


def path(name):
    return os.path.join(TMP, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def read(p):
    with open(p) as f:
        return f.read()


def is_page(p, what):
    tdp.check(os.path.exists(p), "%s: %s was written" % (what, p))
    text = read(p)
    tdp.check(text.startswith("<!DOCTYPE html>"), "%s: the file is HTML: %r" % (what, text[:40]))
    tdp.check(text.rstrip().endswith("</html>"), "%s: the page is whole" % what)
    tdp.check("<script" not in text, "%s: no script" % what)
    return text


def test_branches_report_format_html():
    data = path("in.data")
    img, _ = pdsynth.build(nr_samples=8)
    with open(data, "wb") as f:
        f.write(img)
    base = ["branches", "report", "-i", data, "--no-source"]
    r = tdp.run(*base, "--format", "html", "-o", path("br.html"))
    tdp.expect_exit(r, 0)
    page = is_page(path("br.html"), "branches report")
    # the shortcut draws the same page; to stdout the same bytes
    tdp.expect_exit(tdp.run(*base, "--html", path("br2.html")), 0)
    tdp.check(read(path("br2.html")) == page, "--html FILE and --format html give the same page")
    r = tdp.run(*base, "--format=html")
    tdp.expect_exit(r, 0)
    tdp.check(r.out == page, "--format html on stdout is the same page")
    doc = json.loads(tdp.run(*base, "--json").out)
    rows = re.findall(r'<tr class="site" data-rank="(\d+)">(.*?)</tr>', page)
    tdp.check(len(rows) == len(doc["sites"]) and len(rows) > 2, "one row per site: %d, JSON %d" %
              (len(rows), len(doc["sites"])))
    for (rank, row), site in zip(rows, doc["sites"]):
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        tdp.check(site["address"] in cells, "site %s: address %s in %s" % (rank, site["address"], cells))
        for key in ("executions", "mispredicts"):
            tdp.check(str(site[key]) in cells, "site %s: %s %s in %s" % (rank, key, site[key], cells))
    r = tdp.run(*base, "--format", "html", "--json")
    tdp.expect_exit(r, 2)


def test_diff_format_html():
    a = write("a.csv", ICX)
    b = write("b.csv", ICX.replace("400,,topdown-retiring", "300,,topdown-retiring")
              .replace("100,,topdown-bad-spec", "250,,topdown-bad-spec")
              .replace("200,,topdown-fe-bound", "150,,topdown-fe-bound")
              .replace("90,,BR_MISP", "240,,BR_MISP"))
    for name, csv in (("a", a), ("b", b)):
        tdp.expect_exit(tdp.run("topdown", "--import", csv, "--cpu", "icelakex", "--json", "-o",
                                path(name + ".json")), 0)
    r = tdp.run("diff", path("a.json"), path("b.json"), "--format", "html", "-o", path("diff.html"))
    tdp.expect_exit(r, 0)
    page = is_page(path("diff.html"), "diff")
    tdp.expect_exit(tdp.run("diff", path("a.json"), path("b.json"), "--html", path("diff2.html")), 0)
    tdp.check(read(path("diff2.html")) == page, "--html FILE and --format html give the same page")
    elements, text = chromium.parse(page)
    with open(path("a.json")) as f:
        chromium.check_tree(elements, "tree-a", json.load(f))
    with open(path("b.json")) as f:
        chromium.check_tree(elements, "tree-b", json.load(f))
    d = json.loads(tdp.run("diff", path("a.json"), path("b.json"), "--json").out)
    tdp.check(d["verdict"]["text"], "the diff has a verdict")
    tdp.expect_in(" ".join(d["verdict"]["text"].split()), text, "the verdict")


def test_why_format_html():
    src = os.path.join(DIFF_DATA, "bad", "parse.c")
    exe = path("bad-parse")
    cc = os.environ.get("CC", "cc")
    b = subprocess.run([cc, "-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-fno-tree-vectorize",
                        "-fno-sanitize=all", "-o", exe, src], capture_output=True, text=True)
    tdp.check(b.returncode == 0, "cannot build %s:\n%s" % (src, b.stderr))
    r = tdp.run("why", "--backend=sim", "--format", "html", "-o", path("why.html"), "--html", path("why2.html"),
                "--", exe, timeout=300)
    tdp.expect_exit(r, 0)
    page = is_page(path("why.html"), "why")
    tdp.check(read(path("why2.html")) == page, "--html FILE and --format html give the same page")
    # the page against the JSON of the same run (two runs of a program need not simulate alike to
    # the last digit: its stack and environment addresses move with the environment)
    r = tdp.run("why", "--backend=sim", "--json", "--html", path("why3.html"), "--", exe, timeout=300)
    tdp.expect_exit(r, 0)
    doc = r.json()
    page = is_page(path("why3.html"), "why")
    elements, text = chromium.parse(page)
    chromium.check_tree(elements, "tree", doc)
    tdp.expect_in("estimate (simulated)", text, "the page")


def test_why_format_html_on_stdout_keeps_the_workload_out():
    # the page on stdout is a document: the workload's own output goes to stderr meanwhile
    r = tdp.run("why", "--backend=sim", "--format", "html", "--", "/bin/echo", "tdprof-workload-says", timeout=300)
    tdp.expect_exit(r, 0)
    tdp.check(r.out.startswith("<!DOCTYPE html>") and r.out.rstrip().endswith("</html>"), "stdout is one page", r)
    tdp.check("tdprof-workload-says" in r.err.splitlines(), "the workload's line went to stderr", r)
    tdp.check("\ntdprof-workload-says\n" not in r.out, "the workload's line is not in the page", r)


def test_topdown_format_html():
    csv = write("icx.csv", ICX)
    r = tdp.run("topdown", "--import", csv, "--cpu", "icelakex", "--format", "html", "-o", path("td.html"))
    if r.code == 2 and "html" in r.err:
        raise tdp.Skip("topdown's --format does not list html yet (its renderer table has the page)")
    tdp.expect_exit(r, 0)
    page = is_page(path("td.html"), "topdown")
    doc = tdp.run("topdown", "--import", csv, "--cpu", "icelakex", "--json").json()
    elements, _ = chromium.parse(page)
    chromium.check_tree(elements, "tree", doc)


tdp.main(globals())
