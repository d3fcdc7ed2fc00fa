#!/usr/bin/env python3
"""gen-kb.py: compile the knowledge base docs/tma-diagnosis-actions.md into kb-data.h.

Usage: gen-kb.py INPUT.md OUTPUT.h

The document's structure is fixed (its "Format of the entries" section says so):
everything before the first node heading is a preamble; then each node is

    ## `key`: Title
    Parent: none | `parent_key`
    Aliases: `name`, `name`, ...          (optional)
    ### Summary   (one paragraph)
    ### Meaning
    ### Confirm
    ### Causes
    ### Fixes
    ### Sources

The keys and their parents are fixed below (the top-down tree tdprof reports). A
missing or repeated node, an unknown key, a wrong parent, a missing, empty, extra or
misplaced section, or an alias that clashes with another name stops the build with
`INPUT:LINE: message`. Headings inside fenced code blocks are text. Standard library
only; the output is written only when the whole document is valid.
"""
import os
import re
import sys

# key -> parent (None at level 1): the nodes of tdprof's top-down tree.
NODES = {
    "frontend_bound": None,
    "fetch_latency": "frontend_bound",
    "fetch_bandwidth": "frontend_bound",
    "bad_speculation": None,
    "branch_mispredicts": "bad_speculation",
    "machine_clears": "bad_speculation",
    "backend_bound": None,
    "memory_bound": "backend_bound",
    "core_bound": "backend_bound",
    "retiring": None,
    "light_operations": "retiring",
    "heavy_operations": "retiring",
    "smt_contention": None,
    "frontend_stalled_cycles": None,
    "backend_stalled_cycles": None,
}
SECTIONS = ["Summary", "Meaning", "Confirm", "Causes", "Fixes", "Sources"]

NODE_RE = re.compile(r"^## `([^`]*)`: (\S.*)$")
PARENT_RE = re.compile(r"^Parent: (none|`([a-z0-9_]+)`)$")
ALIASES_RE = re.compile(r"^Aliases: (`[^`]+`(, `[^`]+`)*)$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")


class DocError(Exception):
    def __init__(self, line, msg):
        super().__init__(msg)
        self.line = line
        self.msg = msg


def normalise(name):
    """The form tdprof matches names in (model/advice.c does the same)."""
    n = name.strip().lower()
    for c in "- .:":
        n = n.replace(c, "_")
    if n.startswith("tma_"):
        n = n[4:]
    return n


def parse(text):
    lines = text.split("\n")
    entries = []
    cur = None          # the entry being read
    section = None      # name of the section being read, or None in the header
    in_fence = False
    fence_line = 0

    def close_entry(lineno):
        if cur is None:
            return
        missing = [s for s in SECTIONS if s not in cur["sections"]]
        if missing:
            raise DocError(lineno, "node '%s' (line %d) has no '### %s' section"
                           % (cur["key"], cur["line"], missing[0]))
        if cur["parent_line"] is None:
            raise DocError(cur["line"], "node '%s' has no 'Parent:' line" % cur["key"])
        for s in SECTIONS:
            body = "\n".join(cur["sections"][s]).strip("\n")
            if not body.strip():
                raise DocError(cur["section_lines"][s], "section '%s' of node '%s' is empty" % (s, cur["key"]))
            cur["sections"][s] = body
        if "\n\n" in cur["sections"]["Summary"]:
            raise DocError(cur["section_lines"]["Summary"],
                           "the Summary of node '%s' must be one paragraph" % cur["key"])
        entries.append(cur)

    for i, line in enumerate(lines, 1):
        if "\t" in line and not in_fence:
            raise DocError(i, "a tab character (use spaces)")
        if FENCE_RE.match(line):
            if cur is None or section is None:
                # code in the preamble or a header: allowed in the preamble only
                if cur is not None:
                    raise DocError(i, "a code block outside a section of node '%s'" % cur["key"])
            in_fence = not in_fence
            fence_line = i
            if cur is not None:
                cur["sections"][section].append(line)
            continue
        if in_fence:
            if cur is not None:
                cur["sections"][section].append(line)
            continue
        if line.startswith("## "):
            m = NODE_RE.match(line)
            if not m:
                if cur is None:
                    continue  # a heading of the preamble
                raise DocError(i, "'%s' is not a node heading (expected: ## `key`: Title)" % line)
            key, title = m.group(1), m.group(2).strip()
            if key not in NODES:
                raise DocError(i, "unknown node key '%s' (known: %s)" % (key, ", ".join(NODES)))
            if any(e["key"] == key for e in entries) or (cur is not None and cur["key"] == key):
                raise DocError(i, "node '%s' appears twice" % key)
            close_entry(i)
            cur = {"key": key, "title": title, "line": i, "parent": None, "parent_line": None,
                   "aliases": [], "sections": {}, "section_lines": {}}
            section = None
            continue
        if cur is None:
            if line.startswith("### "):
                raise DocError(i, "a '###' section before the first node")
            continue
        if line.startswith("### "):
            name = line[4:].strip()
            if name not in SECTIONS:
                raise DocError(i, "unknown section '%s' in node '%s' (expected one of: %s)"
                               % (name, cur["key"], ", ".join(SECTIONS)))
            if name in cur["sections"]:
                raise DocError(i, "section '%s' appears twice in node '%s'" % (name, cur["key"]))
            want = SECTIONS[len(cur["sections"])]
            if name != want:
                raise DocError(i, "section '%s' of node '%s' is out of order (expected '%s' here)"
                               % (name, cur["key"], want))
            if cur["parent_line"] is None:
                raise DocError(i, "node '%s' has no 'Parent:' line before its sections" % cur["key"])
            section = name
            cur["sections"][name] = []
            cur["section_lines"][name] = i
            continue
        if line.startswith("#"):
            raise DocError(i, "heading '%s' is not part of the format (use ## or ### as described)" % line)
        if section is None:
            if not line.strip():
                continue
            m = PARENT_RE.match(line)
            if m:
                if cur["parent_line"] is not None:
                    raise DocError(i, "node '%s' has two 'Parent:' lines" % cur["key"])
                cur["parent"] = m.group(2)
                cur["parent_line"] = i
                continue
            m = ALIASES_RE.match(line)
            if m:
                cur["aliases"] = re.findall(r"`([^`]+)`", m.group(1))
                continue
            raise DocError(i, "unexpected text before the sections of node '%s': '%s'" % (cur["key"], line))
        cur["sections"][section].append(line)
    if in_fence:
        raise DocError(fence_line, "a code block is not closed")
    close_entry(len(lines))

    # The tree: every node once, with the parent tdprof's models give it.
    seen = {e["key"]: e for e in entries}
    for key, parent in NODES.items():
        if key not in seen:
            raise DocError(len(lines), "node '%s' is missing" % key)
        if seen[key]["parent"] != parent:
            raise DocError(seen[key]["parent_line"], "node '%s' must have parent %s, not %s"
                           % (key, "'%s'" % parent if parent else "none",
                              "'%s'" % seen[key]["parent"] if seen[key]["parent"] else "none"))
    names = {}
    for e in entries:
        for n in [e["key"]] + e["aliases"]:
            k = normalise(n)
            if not k:
                raise DocError(e["line"], "an empty alias in node '%s'" % e["key"])
            if k in names and names[k] != e["key"]:
                raise DocError(e["line"], "name '%s' of node '%s' already names node '%s'" % (n, e["key"], names[k]))
            names[k] = e["key"]
    return entries


def c_string(s, indent):
    """s as adjacent C string literals, one per source line, every byte escaped."""
    out = []
    cur = '"'
    for b in s.encode("utf-8"):
        c = chr(b)
        if c == "\\":
            cur += "\\\\"
        elif c == '"':
            cur += '\\"'
        elif c == "?":
            cur += "\\?"  # no trigraphs in ISO C17 mode
        elif c == "\n":
            cur += '\\n"'
            out.append(cur)
            cur = '"'
        elif c == "\t":
            cur += "\\t"
        elif b < 0x20 or b >= 0x7f:
            cur += "\\%03o" % b  # octal: at most three digits, never greedy
        else:
            cur += c
    cur += '"'
    if cur != '""' or not out:
        out.append(cur)
    return ("\n" + indent).join(out)


def ident(key):
    return re.sub(r"[^a-z0-9_]", "_", key)


def generate(entries, src_name):
    o = []
    o.append("/*")
    o.append(" * kb-data.h: generated by src/model/gen-kb.py from %s. Do not edit:" % src_name)
    o.append(" * change the document and rebuild. Included once, by model/advice.c.")
    o.append(" */")
    o.append("#define KB_NR_ENTRIES %d" % len(entries))
    o.append("")
    for e in entries:
        o.append("static const char *const kb_aliases_%s[] = {" % ident(e["key"]))
        for a in e["aliases"]:
            o.append("\t%s," % c_string(a, "\t"))
        o.append("\tNULL,")
        o.append("};")
    o.append("")
    o.append("static const struct advice_entry kb_entries[KB_NR_ENTRIES] = {")
    for e in entries:
        o.append("\t{")
        o.append("\t\t.key = %s," % c_string(e["key"], "\t\t"))
        o.append("\t\t.title = %s," % c_string(e["title"], "\t\t"))
        o.append("\t\t.parent = %s," % (c_string(e["parent"], "\t\t") if e["parent"] else "NULL"))
        o.append("\t\t.level = %d," % (2 if e["parent"] else 1))
        o.append("\t\t.aliases = kb_aliases_%s," % ident(e["key"]))
        for s in SECTIONS:
            o.append("\t\t.%s = %s," % (s.lower(), c_string(e["sections"][s], "\t\t\t")))
        o.append("\t},")
    o.append("};")
    return "\n".join(o) + "\n"


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: gen-kb.py INPUT.md OUTPUT.h\n")
        return 2
    src, dst = argv[1], argv[2]
    try:
        with open(src, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        sys.stderr.write("gen-kb.py: cannot read '%s': %s\n" % (src, e))
        return 1
    try:
        entries = parse(text)
    except DocError as e:
        sys.stderr.write("%s:%d: error: %s\n" % (src, e.line, e.msg))
        sys.stderr.write("gen-kb.py: the knowledge base does not follow its format; kb-data.h not written\n")
        return 1
    out = generate(entries, os.path.basename(src))
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(out)
    os.replace(tmp, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
