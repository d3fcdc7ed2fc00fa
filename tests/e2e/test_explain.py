"""`tdprof explain`: the knowledge base (docs/tma-diagnosis-actions.md) as users see it,
and the generator that compiles it in (src/model/gen-kb.py), which must refuse a
document whose structure is broken."""
import fcntl
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import termios

import tdp

DOC = os.path.join(tdp.SOURCE_ROOT, "docs", "tma-diagnosis-actions.md")
GEN = os.path.join(tdp.SOURCE_ROOT, "src", "model", "gen-kb.py")

TREE = [
    ("frontend_bound", None), ("fetch_latency", "frontend_bound"), ("fetch_bandwidth", "frontend_bound"),
    ("bad_speculation", None), ("branch_mispredicts", "bad_speculation"), ("machine_clears", "bad_speculation"),
    ("backend_bound", None), ("memory_bound", "backend_bound"), ("core_bound", "backend_bound"),
    ("retiring", None), ("light_operations", "retiring"), ("heavy_operations", "retiring"),
    ("smt_contention", None), ("frontend_stalled_cycles", None), ("backend_stalled_cycles", None),
]


def prose_lines(text):
    """Lines of rendered text that are not code (code is indented 8 or more)."""
    return [l for l in text.split("\n") if len(l) - len(l.lstrip(" ")) < 8]


def test_list():
    r = tdp.run("explain")
    tdp.expect_exit(r, 0)
    for key, parent in TREE:
        pat = r"^  %s%s +\S" % ("  " if parent else "", re.escape(key))
        tdp.check(re.search(pat, r.out, re.M), "node %s listed (indented when level 2)" % key, r)
    tdp.check(len([l for l in r.out.split("\n") if l.startswith("  ")]) == len(TREE), "one line per node", r)
    tdp.expect_in("smt_contention            SMT Contention (extra level-1 bucket)", r.out, "stdout", r)


def test_entry_text():
    r = tdp.run("explain", "branch_mispredicts")
    tdp.expect_exit(r, 0)
    tdp.check(r.out.startswith("Branch Mispredicts (branch_mispredicts)\n"), "title line", r)
    for h in ("\nMEANING\n", "\nHOW TO CONFIRM\n", "\nTYPICAL CAUSES\n", "\nFIXES\n", "\nSOURCES\n"):
        tdp.expect_in(h, r.out, "stdout", r)
    # the C example verbatim, and the sources
    tdp.expect_in("            int64_t keep = -(int64_t)(a[i] >= 128);   /* all ones or zero */\n", r.out, "stdout", r)
    tdp.expect_in("tdprof branches record -o br.data", r.out, "stdout", r)
    tdp.expect_in("P. Khuong and P. Morin", " ".join(r.out.split()), "stdout (words)", r)
    # not a terminal: 80 columns
    for l in prose_lines(r.out):
        tdp.check(len(l) <= 80, "line within 80 columns: %r" % l, r)
    tdp.check("`" not in r.out, "no Markdown backticks", r)


def test_entry_on_a_terminal_uses_its_width():
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
    proc = subprocess.Popen([tdp.TDPROF, "explain", "memory_bound"], stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:
            break
        if not b:
            break
        chunks.append(b)
    proc.wait(timeout=60)
    os.close(master)
    out = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    tdp.check(proc.returncode == 0, "exit 0 on a terminal: %d" % proc.returncode)
    tdp.expect_in("Memory Bound (memory_bound)", out, "terminal output")
    widths = [len(l) for l in prose_lines(out)]
    tdp.check(max(widths) <= 60, "wrapped to the terminal's 60 columns (widest %d)" % max(widths))
    tdp.check(max(widths) > 50, "uses the width (widest %d)" % max(widths))


def test_aliases_and_case():
    for name, key in (("tma_fetch_latency", "fetch_latency"), ("Backend-Bound", "backend_bound"),
                      ("backend_bound_memory", "memory_bound"), ("retiring_microcode", "heavy_operations"),
                      ("stalled-cycles-backend", "backend_stalled_cycles")):
        r = tdp.run("explain", name, "--json")
        tdp.expect_exit(r, 0)
        tdp.check(r.json()["key"] == key, "%s finds %s" % (name, key), r)


def test_unknown_node():
    r = tdp.run("explain", "fetch-latncy")
    tdp.expect_exit(r, 2)
    tdp.expect_in("tdprof: error: 'fetch-latncy' is not a node of the top-down tree", r.err, "stderr", r)
    tdp.expect_in("tdprof: hint: did you mean 'tdprof explain fetch_latency'?", r.err, "stderr", r)
    tdp.check(r.out == "", "nothing on stdout", r)
    r = tdp.run("explain", "nothing_like_it_at_all")
    tdp.expect_exit(r, 2)
    tdp.expect_in("tdprof: hint: 'tdprof explain' lists the nodes", r.err, "stderr", r)


def test_usage_errors():
    r = tdp.run("explain", "retiring", "core_bound")
    tdp.expect_exit(r, 2)
    tdp.expect_in("explain takes one node", r.err, "stderr", r)
    tdp.expect_in("tdprof: try 'tdprof explain --help'", r.err, "stderr", r)
    r = tdp.run("explain", "--frob")
    tdp.expect_exit(r, 2)
    r = tdp.run("explain", "--help")
    tdp.expect_exit(r, 0)
    tdp.expect_in("usage: tdprof explain", r.out, "stdout", r)


def test_json_entry_and_list():
    r = tdp.run("explain", "frontend_bound", "--json")
    tdp.expect_exit(r, 0)
    d = r.json()
    tdp.check(d["key"] == "frontend_bound" and d["level"] == 1 and d["parent"] is None, "level-1 entry", r)
    tdp.check(d["children"] == ["fetch_latency", "fetch_bandwidth"], "children in order", r)
    for k in ("title", "summary", "meaning", "confirm", "causes", "fixes", "sources", "aliases"):
        tdp.check(d.get(k), "non-empty %s" % k, r)
    tdp.expect_in("llvm-bolt", d["fixes"], "fixes", r)

    r = tdp.run("explain", "--json")
    tdp.expect_exit(r, 0)
    nodes = r.json()["nodes"]
    tdp.check([(n["key"], n["parent"]) for n in nodes] == TREE, "the tree, in order", r)


def test_output_file():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "core.txt")
        r = tdp.run("explain", "core_bound", "-o", path)
        tdp.expect_exit(r, 0)
        tdp.check(r.out == "", "nothing on stdout with -o", r)
        with open(path) as f:
            text = f.read()
        tdp.check(text.startswith("Core Bound (core_bound)\n"), "the entry in the file")
        r = tdp.run("explain", "core_bound", "-o", os.path.join(d, "no", "such", "dir", "x"))
        tdp.expect_exit(r, 2)
        tdp.expect_in("cannot open", r.err, "stderr", r)


def doc_summaries():
    """The Summary paragraph of each node, read from the document with a plain scan."""
    out, key, in_summary, lines = {}, None, False, []
    for l in open(DOC, encoding="utf-8").read().split("\n"):
        m = re.match(r"^## `([a-z_]+)`: ", l)
        if m:
            key = m.group(1)
            continue
        if l.startswith("### "):
            if in_summary:
                out[key] = "\n".join(lines).strip()
            in_summary = l == "### Summary"
            lines = []
            continue
        if in_summary:
            lines.append(l)
    return out


def test_binary_carries_the_document():
    summaries = doc_summaries()
    tdp.check(len(summaries) == len(TREE), "the document has %d summaries" % len(summaries))
    nodes = tdp.run("explain", "--json").json()["nodes"]
    for n in nodes:
        tdp.check(n["summary"] == summaries[n["key"]], "summary of %s as in the document" % n["key"])


def gen(doc_text):
    """Run gen-kb.py on doc_text; returns (exit code, stderr, whether it wrote the output)."""
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "kb.md"), os.path.join(d, "kb-data.h")
        with open(src, "w", encoding="utf-8") as f:
            f.write(doc_text)
        p = subprocess.run([sys.executable, GEN, src, dst], capture_output=True, text=True, timeout=60)
        return p.returncode, p.stderr, os.path.exists(dst)


def test_generator_accepts_the_document():
    code, err, wrote = gen(open(DOC, encoding="utf-8").read())
    tdp.check(code == 0 and wrote and err == "", "gen-kb.py accepts the document: %d %s" % (code, err))


def test_generator_refuses_broken_structure():
    doc = open(DOC, encoding="utf-8").read()
    line_of = lambda needle: doc[:doc.index(needle)].count("\n") + 1
    cases = [
        # a section heading removed: the next one is then out of order
        (doc.replace("### Causes\n\n- Loads missing the caches or the TLB",
                     "- Loads missing the caches or the TLB", 1),
         ":%d: error: section 'Fixes' of node 'backend_bound' is out of order (expected 'Causes' here)"
         % (line_of("### Fixes\n\n- Follow the larger child: `memory_bound` or `core_bound`.") - 2)),  # 2 lines fewer
        # the last section of the last node removed
        (doc[:doc.rindex("### Sources")],
         "node 'backend_stalled_cycles' (line %d) has no '### Sources' section"
         % line_of("## `backend_stalled_cycles`")),
        # an unknown key
        (doc.replace("## `core_bound`: Core Bound", "## `core_bond`: Core Bound", 1),
         ":%d: error: unknown node key 'core_bond'" % line_of("## `core_bound`")),
        # a node missing altogether
        (doc[:doc.index("## `backend_stalled_cycles`")],
         "error: node 'backend_stalled_cycles' is missing"),
        # a wrong parent
        (doc.replace("Parent: `frontend_bound`\nAliases: `tma_fetch_latency`",
                     "Parent: `retiring`\nAliases: `tma_fetch_latency`", 1),
         "node 'fetch_latency' must have parent 'frontend_bound', not 'retiring'"),
        # sections out of order
        (doc.replace("### Meaning\n\nA slot is Frontend Bound", "### Sources\n\nA slot is Frontend Bound", 1),
         "section 'Sources' of node 'frontend_bound' is out of order (expected 'Meaning' here)"),
        # a summary of two paragraphs
        (doc.replace("Run `tdprof topdown -l 2` to see which.", "Run it.\n\nTwo paragraphs.", 1),
         "the Summary of node 'frontend_bound' must be one paragraph"),
        # an unclosed code block at the end
        (doc + "\n```c\nint x;\n", "a code block is not closed"),
        # an alias naming two nodes
        (doc.replace("Aliases: `tma_core_bound`,", "Aliases: `memory`, `tma_core_bound`,", 1),
         "name 'memory' of node 'core_bound' already names node 'memory_bound'"),
    ]
    for text, message in cases:
        tdp.check(text != doc, "the case changes the document (%s)" % message)
        code, err, wrote = gen(text)
        tdp.check(code == 1, "gen-kb.py fails (%s): exit %d, %s" % (message, code, err))
        tdp.check(message in err, "message %r in %r" % (message, err))
        tdp.check(not wrote, "no kb-data.h written (%s)" % message)


tdp.main(globals())
