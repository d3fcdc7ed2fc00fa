"""The HTML page of topdown draws the whole tree (issue 15): every level of the
document (Intel to level 6 from an imported count file, made as test_intel_tma.py
makes them), each node's bar under its parent's, crossed nodes marked, and the
Bottlenecks, Info and stage-2 sections when the document has them; why's page
shows the per-branch table of its top line. Read with a plain HTML parser: no
browser needed."""
import html.parser
import json
import os
import random
import shutil
import subprocess
import tempfile

import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-e2e-html-tree-")
WORKLOADS = os.path.join(tdp.BUILD_ROOT, "tests", "e2e", "workloads")


class Page(html.parser.HTMLParser):
    """The tree's bars (rect.node attributes), and each section's table rows (their cells' text)."""

    def __init__(self):
        super().__init__()
        self.bars, self.sections, self.rows = [], {}, None
        self.section, self.cell, self.row_attrs = None, None, None
        self.svgs = []  # the open svg elements (a bar's clip is the innermost class="clip")

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svgs.append(a)
        if tag == "rect" and "node" in (a.get("class") or "").split():
            clips = [v for v in self.svgs if v.get("class") == "clip"]
            a["clip"] = clips[-1] if clips else None
            self.bars.append(a)
        elif tag == "section":
            self.section = a.get("id")
            self.sections.setdefault(self.section, [])
        elif tag == "tr" and self.section:
            self.rows = []
            self.row_attrs = a
        elif tag in ("td", "th") and self.rows is not None:
            self.cell = ""

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag == "svg" and self.svgs:
            self.svgs.pop()
        if tag in ("td", "th") and self.cell is not None:
            self.rows.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.rows is not None:
            self.sections[self.section].append((self.row_attrs, self.rows))
            self.rows = None
        elif tag == "section":
            self.section = None


def page(p):
    with open(p) as f:
        text = f.read()
    pg = Page()
    pg.feed(text)
    return pg


def counts_csv(model, name):
    """A count for every event of the model ('list events --cpu MODEL')."""
    r = tdp.run("list", "events", "--cpu", model, "--json")
    tdp.expect_exit(r, 0)
    events = [e["name"] for e in r.json()["events"][0]["events"]]
    rnd = random.Random(3)
    fixed = {"TOPDOWN.SLOTS": 5e7, "CPU_CLK_UNHALTED.THREAD": 1e7}
    p = os.path.join(TMP, name)
    with open(p, "w") as f:
        f.write("".join("%d,,%s,1000,100.00,,\n" % (fixed.get(n, rnd.randint(10**3, 10**6)), n) for n in events))
    return p


def tree_nodes(tree):
    for n in tree:
        yield n
        yield from tree_nodes(n["children"])


def doc_and_page(*args):
    out = os.path.join(TMP, "page.html")
    r = tdp.run(*args, "--json", "--html", out)
    tdp.expect_exit(r, 0)
    return r.json(), page(out)


def test_level6_tree_drawn_whole_with_children_under_their_parent():
    doc, pg = doc_and_page("topdown", "--import", counts_csv("icelake", "icl.csv"), "--cpu", "icelake", "-l", "6",
                           "--info")
    nodes = [n for n in tree_nodes(doc["tree"])]
    measured = {n["key"]: n for n in nodes if n["value"] is not None}
    bars = {b["data-key"]: b for b in pg.bars}
    tdp.check({int(b["data-level"]) for b in pg.bars} == {1, 2, 3, 4, 5, 6},
              "bars at levels %s" % sorted({b["data-level"] for b in pg.bars}))
    tdp.check(set(bars) == set(measured), "one bar per measured node: missing %s, extra %s" % (
        sorted(set(measured) - set(bars))[:8], sorted(set(bars) - set(measured))[:8]))
    row = None
    for n in nodes:
        if n["key"] not in bars:
            continue
        b = bars[n["key"]]
        x, y, w = float(b["x"]), float(b["y"]), float(b["width"])
        tdp.check(abs(w - 10 * max(n["value"], 0)) < 1e-3, "%s: 10 units per point" % n["key"])
        tdp.check(b["data-flagged"] == ("1" if n["flagged"] else "0"), "%s: crossed marked as in the JSON" % n["key"])
        if n["level"] == 1:
            row = y if row is None else row
            tdp.check(y == row, "level 1 in one row")
        # the children: one row down, from the parent's left edge, one after another
        cx = x
        for c in n["children"]:
            if c["key"] not in bars:
                continue
            cb = bars[c["key"]]
            tdp.check(abs(float(cb["x"]) - cx) < 1e-3, "%s starts where its earlier siblings under %s end "
                      "(x %s, want %.4f)" % (c["key"], n["key"], cb["x"], cx))
            tdp.check(float(cb["y"]) > y, "%s is drawn below %s" % (c["key"], n["key"]))
            tdp.check(cb["data-parent"] == n["key"], "%s names its parent" % c["key"])
            # shown only within its parent's span (children may add up to more than it)
            clip = cb["clip"]
            tdp.check(clip is not None and float(clip["x"]) >= x - 1e-3 and
                      float(clip["x"]) + float(clip["width"]) <= x + w + 1e-3,
                      "%s is clipped to %s's span: %r" % (c["key"], n["key"], clip))
            cx += float(cb["width"])
    tdp.check(any(b["data-flagged"] == "1" for b in pg.bars), "some node crossed its threshold")
    # the node table in tree order: each row's parent listed before it
    keys = [a.get("data-key") for a, _ in pg.sections["tree-section"] if a.get("data-key")]
    seen = set()
    for k in keys:
        p = measured.get(k, {}).get("parent") or next((n["parent"] for n in nodes if n["key"] == k), None)
        tdp.check(p is None or p in seen, "table row %s after its parent %s" % (k, p))
        seen.add(k)
    # the Bottlenecks view, ranked, and the Info metrics
    b_rows = [cells for a, cells in pg.sections.get("bottlenecks", []) if a.get("data-name")]
    tdp.check([r[1] for r in b_rows] == [b["name"] for b in doc["bottlenecks"]] and len(b_rows) == 12,
              "the twelve bottlenecks in the JSON's ranking: %s" % [r[1] for r in b_rows])
    tdp.check([r[0] for r in b_rows] == [str(b["rank"]) for b in doc["bottlenecks"]], "their ranks")
    i_rows = [cells for a, cells in pg.sections.get("info", []) if a.get("data-name")]
    tdp.check(len(i_rows) == len(doc["info"]) and len(i_rows) > 20, "every Info metric: %d of %d" % (
        len(i_rows), len(doc["info"])))
    ipc = next(i for i in doc["info"] if i["name"] == "IPC")
    row = next(r for r in i_rows if r[1] == "IPC")
    tdp.check(abs(float(row[2].replace(",", "")) - ipc["value"]) < 0.01, "IPC's value: %r vs %r" % (row, ipc))


def test_level1_page_has_no_empty_sections():
    doc, pg = doc_and_page("topdown", "--import", counts_csv("icelake", "icl.csv"), "--cpu", "icelake", "-l", "1")
    tdp.check({int(b["data-level"]) for b in pg.bars} == {1}, "level 1 only at -l 1")
    tdp.check("info" not in pg.sections, "no Info section without --info")


def test_arm_stage2_section():
    doc, pg = doc_and_page("topdown", "--import", counts_csv("neoverse-n2", "n2.csv"), "--cpu", "neoverse-n2",
                           "-l", "2")
    tdp.check(doc.get("stage2") and doc["stage2"]["metrics"], "the document has stage-2 metrics", doc)
    rows = [cells for a, cells in pg.sections.get("stage2", []) if a.get("data-name")]
    tdp.check([(r[0], r[1]) for r in rows] == [(m["group"], m["name"]) for m in doc["stage2"]["metrics"]],
              "every stage-2 metric with its group: %s" % rows)


def test_why_page_shows_the_top_line_s_branches():
    # issue 16 item 1: one line holding several branches; the page gives each its own counts
    if not shutil.which("valgrind") or not shutil.which("g++"):
        raise tdp.Skip("needs valgrind and g++")
    binary = os.path.join(TMP, "filter")
    subprocess.run(["g++", "-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-o", binary,
                    os.path.join(tdp.SOURCE_ROOT, "tests", "e2e", "workloads", "wl-filter.cpp")], check=True)
    out = os.path.join(TMP, "why.html")
    r = tdp.run("why", "--backend=sim", "--json", "--html", out, "--", binary, timeout=300)
    tdp.expect_exit(r, 0)
    br = r.json()["drilldown"]["line_branches"]
    tdp.check(br and len(br) >= 2, "the document has the line's branches: %r" % br, r)
    rows = page(out).sections.get("line-branches", [])
    body = [(a, c) for a, c in rows if c and c[0] != "address"]
    tdp.check(len(body) == len(br) + 1, "one row per branch and the line's: %r" % body)
    for b, (a, c) in zip(br, body):
        tdp.check(c[0] == b["address"] and c[1] == b["text"], "row %r is %r" % (c, b))
        tdp.check(int(c[2].replace(",", "")) == b["mispredicts"] and int(c[3].replace(",", "")) == b["executions"],
                  "its counts: %r vs %r" % (c, b))
        tdp.check(("flagged" in (a.get("class") or "")) == b["target"], "the marked branch: %r" % c)
    site = r.json()["sites"][0]
    tdp.check(body[-1][1][1] == "the whole line" and int(body[-1][1][2].replace(",", "")) == site["mispredicts"],
              "the line's aggregate apart: %r" % (body[-1],))


tdp.main(globals())
