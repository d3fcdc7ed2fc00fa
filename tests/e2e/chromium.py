"""Headless Chromium for the HTML report's tests: find it (install Debian's
`chromium` with scripts/deps.sh when running as root), dump a page's DOM after
rendering, take a screenshot, and read the DOM back into elements.

Every test that needs the browser calls browser(); it raises tdp.Skip with the
command to run when Chromium is missing and cannot be installed here.
"""
import html.parser
import os
import shutil
import struct
import subprocess
import tempfile

import tdp

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
_found = []


def browser():
    """The chromium binary; installs it as root when missing, else skips the test."""
    if _found:
        return _found[0]
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe and os.geteuid() == 0 and os.environ.get("TDPROF_NO_INSTALL") is None:
        deps = os.path.join(tdp.SOURCE_ROOT, "scripts", "deps.sh")
        try:
            subprocess.run(["sh", deps, "html"], capture_output=True, timeout=600, check=False)
        except (OSError, subprocess.TimeoutExpired):
            pass
        exe = shutil.which("chromium")
    if not exe:
        raise tdp.Skip("the HTML report is not checked in a browser: chromium is not installed and cannot "
                       "be installed here (run 'sudo scripts/deps.sh html')")
    _found.append(exe)
    return exe


def _run(args, timeout=120):
    profile = tempfile.mkdtemp(prefix="tdprof-chromium-")
    try:
        return subprocess.run([browser()] + FLAGS + ["--user-data-dir=" + profile] + args,
                              capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def dump_dom(path):
    """The DOM of the page at path after Chromium rendered it (a string)."""
    r = _run(["--dump-dom", "file://" + os.path.abspath(path)])
    tdp.check(r.returncode == 0 and "<html" in r.stdout, "chromium --dump-dom %s failed:\n%s" % (path, r.stderr[-2000:]))
    return r.stdout


def screenshot(path, png, width=1200, height=1600):
    """Render path into png; returns (width, height) read from the PNG header."""
    if os.path.exists(png):
        os.unlink(png)
    r = _run(["--screenshot=" + os.path.abspath(png), "--window-size=%d,%d" % (width, height),
              "file://" + os.path.abspath(path)])
    tdp.check(os.path.exists(png), "chromium wrote no screenshot of %s:\n%s" % (path, r.stderr[-2000:]))
    with open(png, "rb") as f:
        head = f.read(24)
    tdp.check(head[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is a PNG")
    return struct.unpack(">II", head[16:24])


class Element:
    def __init__(self, tag, attrs, parents):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parents = parents  # enclosing elements' (tag, attrs) from the root down
        self.text = ""

    def within(self, tag, **attrs):
        """True when an enclosing element has this tag and these attribute values."""
        return any(t == tag and all(a.get(k) == v for k, v in attrs.items()) for t, a in self.parents)


class _Parser(html.parser.HTMLParser):
    VOID = {"meta", "br", "hr", "img", "input", "link", "line", "rect", "path", "circle"}

    def __init__(self):
        super().__init__()
        self.stack = []
        self.elements = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        e = Element(tag, attrs, [(t.tag, t.attrs) for t in self.stack])
        self.elements.append(e)
        if tag not in self.VOID:
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        self.elements.append(Element(tag, attrs, [(t.tag, t.attrs) for t in self.stack]))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if not any(e.tag in ("style", "title") for e in self.stack):
            self.text.append(data)
        for e in self.stack:
            e.text += data


def parse(dom):
    """(elements, visible text) of a DOM dump."""
    p = _Parser()
    p.feed(dom)
    return p.elements, " ".join(" ".join(p.text).split())


def bars(elements, svg_id):
    """{(key, parent): (x, width, value)} of the tree bars in the svg with this id."""
    out = {}
    for e in elements:
        if e.tag == "rect" and "node" in e.attrs.get("class", "") and e.within("svg", id=svg_id):
            key = (e.attrs["data-key"], e.attrs.get("data-parent") or None)
            out[key] = (float(e.attrs["x"]), float(e.attrs["width"]), float(e.attrs["data-value"]))
    return out


def json_values(doc):
    """{(key, parent): value} of a document's level1/level2 (and cycle_accounting), nulls left out."""
    out = {}
    for k, v in (doc.get("level1") or {}).items():
        if v is not None:
            out[(k, None)] = v
    for k, v in (doc.get("cycle_accounting") or {}).items():
        if v is not None:
            out[(k, None)] = v
    for p, kids in (doc.get("level2") or {}).items():
        for k, v in (kids or {}).items():
            if v is not None:
                out[(k, p)] = v
    return out


def check_tree(elements, svg_id, doc, units=10.0):
    """The bars of svg_id are the document's numbers: one bar per measured node, each
    `units` wide per percentage point, level 1 left to right, children under their parent."""
    got = bars(elements, svg_id)
    want = json_values(doc)
    tdp.check(set(got) == set(want), "bars %s, JSON nodes %s" % (sorted(got), sorted(want)))
    x = 0.0
    for (k, p), v in want.items():
        bx, bw, bv = got[(k, p)]
        tdp.check(abs(bv - v) <= 1e-9 * max(1.0, abs(v)), "%s: data-value %r, JSON %r" % (k, bv, v))
        tdp.check(abs(bw - max(v, 0) * units) < 1e-3, "%s: width %r for %r %%" % (k, bw, v))
        if p is None:
            tdp.check(abs(bx - x) < 1e-3, "%s starts at %r, after the bars before it (%r)" % (k, bx, x))
            x += max(v, 0) * units
    for (k, p), (bx, bw, bv) in got.items():
        if p is not None:
            px = got[(p, None)][0]
            tdp.check(bx >= px - 1e-3, "%s lies under its parent %s" % (k, p))
    return got
