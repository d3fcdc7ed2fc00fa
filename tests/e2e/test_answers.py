"""Issue 16: answers that were wrong or misleading, each reproduced as the issue says.

Item 1 (issue 16 item 1): one source line holding several branches (a C++ template filter built with
g++ -O1 -g -fno-if-conversion -fno-if-conversion2): `why` must mark the branch that
mispredicts, not the first conditional jump of the line, and give the line's aggregate
apart from the branch's own rate. Needs valgrind and g++ (skips without them).

Item 4: `diff` before/after a real fix (random -> sorted data, wl-sortfix.c): lead with
the largest change in cycles (Bad Speculation fell), not with a share that rose because
the run shrank; show the site changes; say when the scopes differ; a count that was 0
is "new", never a percentage.

Item 5: unknown values are not numbers: BRS sites (no mispredict flag) say "unknown", not
"mispred 0, 0.00 %" (the SPE mispredict-only caveat is tested in tests/unit/branch/test-load.c).

Item 7: an indirect call is named an indirect call (from its instruction), not an
indirect jump.

Item 8: `branches report` says both: the samples read and those with branch records.

Item 15: without -g or stripped, sites are never "???:? in ???": the address, the
function (symbol table), the disassembly and how to get lines; a report whose addresses
all fail to resolve says why.

Item 14: text fits the terminal (COLUMNS, else 80 when not a tty); a cut name ends in
"...". Item 19: the cost model's document is cited at its installed path.

Item 10: `why` suggests a `tdprof loop` command only when it runs (a C function of no
arguments; C++ with CC=g++), else says what to write.

Item 13: HTML site tables in human units (percent with %, grouped digits, no exponent),
names that wrap, labels that fit their bars or are left out, and +0.0 not coloured a rise.

Item 12: tree tables list children under their parent (diff text, diff --html, why HTML).
"""
import atexit
import json
import os
import shutil
import subprocess
import tempfile

import tdp

WORKLOADS = os.path.join(tdp.SOURCE_ROOT, "tests", "e2e", "workloads")
TMP = tempfile.mkdtemp(prefix="tdp-answers-")
atexit.register(shutil.rmtree, TMP, True)


def filter_binary():
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    if not shutil.which("g++"):
        raise tdp.Skip("g++ is not installed")
    out = os.path.join(TMP, "filter")
    if not os.path.exists(out):
        subprocess.run(["g++", "-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-o", out,
                        os.path.join(WORKLOADS, "wl-filter.cpp")], check=True)
    return out


def objdump_branches(binary, line):
    """The conditional jumps objdump -l places on `line` of wl-filter.cpp: {address: mnemonic}."""
    text = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", binary], capture_output=True,
                          text=True, check=True).stdout
    cur, out = None, {}
    for ln in text.splitlines():
        if ln.startswith("/") and ":" in ln:
            f, _, n = ln.rpartition(":")
            cur = n.split()[0] if f.endswith("wl-filter.cpp") else None
        elif cur == str(line) and ":\t" in ln:
            addr, _, ins = ln.partition(":\t")
            mnem = ins.split()[0]
            if mnem.startswith("j") and mnem != "jmp":
                out[int(addr.strip(), 16)] = mnem
    return out


def marker():
    with open(os.path.join(WORKLOADS, "wl-filter.cpp")) as f:
        for i, ln in enumerate(f, 1):
            if "MULTI-BRANCH LINE" in ln:
                return i
    raise AssertionError("no marker in wl-filter.cpp")


def test_why_marks_the_mispredicting_branch_of_a_line():
    binary = filter_binary()
    line = marker()
    r = tdp.run("why", "--backend=sim", "--json", "--", binary, timeout=300)
    tdp.expect_exit(r, 0)
    j = r.json()
    s = j["sites"][0]
    tdp.check(s["line"] == line, "top site is the filter's loop line %d" % line, r)
    br = j["drilldown"]["line_branches"]
    tdp.check(br and len(br) >= 2, "the line's branches, each counted: %r" % br, r)
    cond = objdump_branches(binary, line)
    tdp.check(len(cond) >= 2, "objdump: several conditional jumps on line %d: %r" % (line, cond))
    # random bytes: the data-dependent branch mispredicts about half its runs, the loop test almost never
    top = br[0]
    rate = top["mispredicts"] / top["executions"]
    tdp.check(0.35 < rate < 0.65, "the top branch mispredicts about half: %r" % top, r)
    tdp.check(int(top["address"], 16) in cond, "the top branch is a conditional jump of the line: %r" % top, r)
    others = [b for b in br[1:] if b["executions"]]
    tdp.check(all(b["mispredicts"] < top["mispredicts"] / 100 for b in others),
              "the other branches barely mispredict: %r" % br, r)
    # the line's aggregate is the site's, and differs from the branch's own rate
    tdp.check(sum(b["mispredicts"] for b in br) == s["mispredicts"], "branches add up to the line", r)
    dis = j["drilldown"]["disassembly"]
    marked = [i for i in dis["instructions"] if i["target"]]
    tdp.check(len(marked) == 1 and marked[0]["address"] == top["address"],
              "the disassembly marks the top branch: %r" % marked, r)
    tdp.check(dis["target"] == top["address"], "target is the top branch", r)
    # the text says both: the branch's rate and the line's
    t = tdp.run("why", "--backend=sim", "--", binary, timeout=300)
    tdp.expect_exit(t, 0)
    tdp.expect_in("the whole line", t.out, "the line's aggregate row", t)
    mark = [ln for ln in t.out.splitlines() if "<- the mispredicted branch" in ln and ln.lstrip().startswith("*")]
    tdp.check(len(mark) == 1 and cond[int(top["address"], 16)] in mark[0], "one marked branch: %r" % mark, t)


def c_binary(name):
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise tdp.Skip("no C compiler")
    out = os.path.join(TMP, name)
    if not os.path.exists(out):
        subprocess.run([cc, "-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-o", out,
                        os.path.join(WORKLOADS, name + ".c")], check=True)
    return out


DOCS = {}


def sortfix_docs():
    """why --json of wl-sortfix before (random) and after (sorted) the fix."""
    if not DOCS:
        binary = c_binary("wl-sortfix")
        for name, args in (("before", []), ("after", ["sorted"])):
            path = os.path.join(TMP, name + ".json")
            r = tdp.run("why", "--backend=sim", "--json", "-o", path, "--", binary, *args, timeout=300)
            tdp.expect_exit(r, 0)
            DOCS[name] = path
    return DOCS["before"], DOCS["after"]


def test_diff_after_a_fix_leads_with_cycles_and_shows_sites():
    a, b = sortfix_docs()
    r = tdp.run("diff", "--json", a, b)
    tdp.expect_exit(r, 0)
    d = r.json()
    v = d["verdict"]
    tdp.check(v["node"] == "bad_speculation" and v["delta"] < -50 and v["by_cycles"],
              "the fix: Bad Speculation fell, the largest change in cycles: %s" % v, r)
    tdp.check(v["text"].startswith("Bad Speculation fell"), "the verdict leads with it: %s" % v["text"], r)
    nodes = {n["key"]: n for n in d["nodes"] if n["level"] == 1}
    big = max(nodes.values(), key=lambda n: abs(n["cycles_delta"]))
    tdp.check(big["key"] == "bad_speculation", "largest change in cycles: %r" % big, r)
    tdp.check(d["measure"] == "mispredicts" and d["sites"], "site changes, on mispredicts: %r" % d["sites"], r)
    with open(os.path.join(WORKLOADS, "wl-sortfix.c")) as f:
        line = [i for i, ln in enumerate(f, 1) if "SORTFIX-BRANCH" in ln][0]
    top = d["sites"][0]
    tdp.check(top["line"] == line and top["delta"] < 0, "the fixed branch lost its mispredicts: %r" % top, r)
    tdp.check(not v["scopes_differ"] and d["a"]["scope"] == d["b"]["scope"] == "program", "same scope", r)
    t = tdp.run("diff", a, b)
    tdp.expect_exit(t, 0)
    rows = [ln for ln in t.out.splitlines() if "wl-sortfix.c:%d in main" % line in ln]
    tdp.check(rows, "the text's sites table shows the fixed line", t)


def edited(path, name, fn):
    with open(path) as f:
        doc = json.load(f)
    fn(doc)
    out = os.path.join(TMP, name)
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def test_diff_says_when_scopes_differ_and_new_is_not_a_percentage():
    a, b = sortfix_docs()
    # B as if it covered the whole run; A's top site with no mispredict at all
    b2 = edited(b, "b-whole.json", lambda d: d["scope"].update(kind="whole_run"))
    def zero_top(d):
        d["sites"][0]["mispredicts"] = 0
        d["sites"][0]["cond_mispredicts"] = 0
    a0 = edited(a, "a-zero.json", zero_top)
    b0 = edited(a, "b-same.json", lambda d: None)
    r = tdp.run("diff", "--json", a, b2)
    tdp.expect_exit(r, 0)
    v = r.json()["verdict"]
    tdp.check(v["scopes_differ"] and v["text"].startswith("The scopes differ (A: the program's own code, B: the "
                                                          "whole run"), "scopes said: %s" % v["text"], r)
    t = tdp.run("diff", a0, b0)
    tdp.expect_exit(t, 0)
    row = [ln for ln in t.out.splitlines() if ln.strip().startswith("wl-sortfix.c:") and " 0 " in ln]
    tdp.check(row and row[0].rstrip().endswith("new"), "a count that was 0 is new: %r" % row, t)
    tdp.check(not any("%" in ln for ln in row), "no percentage of 0: %r" % row, t)


def check_tree_rows(keys, parents, what, result):
    """Each row's parent is the nearest earlier row of the level above (children under their parent)."""
    stack = []
    for k in keys:
        p = parents.get(k)
        while stack and stack[-1] != p:
            stack.pop()
        tdp.check(p is None or stack, "%s: %s listed away from its parent %s: %r" % (what, k, p, keys), result)
        stack.append(k)


def test_tree_tables_list_children_under_their_parent():
    a, b = sortfix_docs()
    with open(a) as f:
        doc = json.load(f)
    parents = {}
    for parent, kids in doc["level2"].items():
        for k in kids:
            parents[k] = parent
    labels = {}
    r = tdp.run("diff", "--json", a, b)
    for n in r.json()["nodes"]:
        labels[n["label"]] = n["key"]
    t = tdp.run("diff", a, b)
    tdp.expect_exit(t, 0)
    keys = []
    for ln in t.out.splitlines():
        name = ln[:28].strip()
        if ln.startswith("  ") and name in labels:
            keys.append(labels[name])
    tdp.check(len(keys) == len(labels), "every node in the text: %r" % keys, t)
    check_tree_rows(keys, parents, "diff text", t)
    html = os.path.join(TMP, "d.html")
    h = tdp.run("diff", "--html", html, a, b)
    tdp.expect_exit(h, 0)
    with open(html) as f:
        page = f.read()
    import re
    table = page[page.index('id="changes"'):]
    table = table[:table.index("</table>")]
    check_tree_rows(re.findall(r'data-key="([a-z0-9_]+)"', table), parents, "diff --html", h)
    wh = os.path.join(TMP, "w.html")
    w = tdp.run("why", "--html", wh, "--backend=sim", "--", c_binary("wl-sortfix"), timeout=300)
    if w.code == 2 and "html" in w.err:
        raise tdp.Skip("why has no --html here")
    tdp.expect_exit(w, 0)
    with open(wh) as f:
        page = f.read()
    table = page[page.index('class="nodes"'):]
    table = table[:table.index("</table>")]
    check_tree_rows(re.findall(r'data-key="([a-z0-9_]+)"', table), parents, "why html", w)


def test_brs_sites_say_unknown_not_zero():
    src = tdp.shared("perfdata", "perf.data.branch_stack_spec")
    if not os.path.exists(src):
        raise tdp.Skip("no shared perf.data fixtures")
    path = tdp.brs_like_copy(src)
    try:
        t = tdp.run("branches", "report", "-i", path, "-n", "5")
        tdp.expect_exit(t, 0)
        lines = t.out.splitlines()
        start = [i for i, ln in enumerate(lines) if ln.startswith("Misprediction sites")][0]
        rows = [ln for ln in lines[start + 1:start + 9] if ln.strip()[:1].isdigit()]
        tdp.check(rows, "site rows", t)
        for ln in rows:
            tdp.check("unknown" in ln.split("0x", 1)[1][:40], "the mispredicts of a BRS site are unknown: %r" % ln, t)
            tdp.check(" 0.00%" not in ln.split()[4:5] and "0.00%  " not in ln[:60], "no 0.00 %% rate: %r" % ln, t)
        tdp.expect_in("mispredicts unknown", t.out, "the table says why", t)
    finally:
        os.unlink(path)


def test_branches_report_counts_samples_read_and_with_records():
    import pdsynth
    img, _ = pdsynth.build(nr_samples=30, empty_stacks=12)
    path = os.path.join(TMP, "empty.data")
    with open(path, "wb") as f:
        f.write(img)
    t = tdp.run("branches", "report", "-i", path)
    tdp.expect_exit(t, 0)
    tdp.expect_in("samples 30 read, 18 with branch records (12 with an empty branch stack)", t.out, "the header", t)
    j = tdp.run("branches", "report", "-i", path, "--json").json()
    tdp.check(j["samples"] == 30 and j["samples_with_branch_records"] == 18 and j["branch_entries"] == 18 * 4,
              "JSON: %r" % {k: j[k] for k in ("samples", "samples_with_branches", "samples_with_branch_records")})


def test_indirect_call_is_named_a_call():
    if not shutil.which("valgrind") or not shutil.which("g++"):
        raise tdp.Skip("needs valgrind and g++")
    binary = os.path.join(TMP, "vcall")
    subprocess.run(["g++", "-O1", "-g", "-o", binary, os.path.join(WORKLOADS, "wl-vcall.cpp")], check=True)
    r = tdp.run("why", "--backend=sim", "--json", "--", binary, timeout=300)
    tdp.expect_exit(r, 0)
    j = r.json()
    marked = [i for i in j["drilldown"]["disassembly"]["instructions"] if i["target"]]
    tdp.check(len(marked) == 1 and marked[0]["text"].startswith("call"), "the marked branch is the call: %r" % marked, r)
    f = j["findings"][0]
    tdp.check(f["title"].startswith("unpredictable indirect call at"), "named a call: %s" % f["title"], r)
    tdp.check("indirect jump" not in f["title"] + f["evidence"], "never a jump: %r" % f, r)


def test_no_debug_info_shows_address_disassembly_and_how_to_get_lines():
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")
    cc = shutil.which("cc") or shutil.which("gcc")
    nog = os.path.join(TMP, "sortfix-nog")
    subprocess.run([cc, "-O1", "-fno-if-conversion", "-fno-if-conversion2", "-o", nog,
                    os.path.join(WORKLOADS, "wl-sortfix.c")], check=True)
    stripped = os.path.join(TMP, "sortfix-stripped")
    shutil.copy(nog, stripped)
    if not shutil.which("strip"):
        raise tdp.Skip("no strip")
    subprocess.run(["strip", stripped], check=True)
    for binary, what in ((nog, "built without -g"), (stripped, "stripped")):
        r = tdp.run("why", "--backend=sim", "--", binary, timeout=300)
        tdp.expect_exit(r, 0)
        tdp.check("???:?" not in r.out and "in ???" not in r.out, "no ???:? in ???", r)
        tdp.expect_in("(no line)", r.out, "the site is named by its address", r)
        tdp.expect_in("<- the mispredicted branch", r.out, "the disassembly around the branch", r)
        flat = " ".join(r.out.split())  # notes wrap at the terminal's width
        tdp.expect_in(what, flat, "the note says why there are no lines", r)
        tdp.expect_in("Rebuild with -g", flat, "and how to get them", r)
        j = tdp.run("why", "--backend=sim", "--json", "--", binary, timeout=300).json()
        dis = j["drilldown"]["disassembly"]
        tdp.check(dis["target"] and any(i["target"] and i["text"].startswith("j") for i in dis["instructions"]),
                  "a marked conditional jump: %r" % dis)
    nm = subprocess.run(["nm", nog], capture_output=True, text=True).stdout
    main = [int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" main")]
    tdp.check(main, "nm finds main")
    tdp.check(int(dis["target"], 16) > main[0], "the branch is after main's start (link-time addresses)")


def test_unresolved_addresses_say_why():
    path = tdp.shared("perfdata", "perf.data.branch-4.14")
    t = tdp.run("branches", "report", "-i", path, "-n", "1")
    tdp.expect_exit(t, 0)
    tdp.expect_in("symbols: 0 of", t.out, "none resolved", t)
    tdp.expect_in("why none:", t.out, "why", t)
    # its kernel addresses want the recorded kernel's symbols; its user ones are in no map (wrapped at 80)
    flat = " ".join(t.out.split())
    tdp.expect_in("to resolve them: --kallsyms FILE", flat, "how to resolve them", t)
    tdp.expect_in("which no option brings back", flat, "what no option can do", t)
    hint = t.out.split("symbols: ", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    tdp.check(len(hint) > 2 and all(len(l) <= 80 for l in hint), "the hint wraps at 80 columns", t)


def test_why_text_fits_the_terminal_and_cuts_with_an_ellipsis():
    binary = filter_binary()
    for cols, env in ((80, {"COLUMNS": ""}), (132, {"COLUMNS": "132"})):
        r = tdp.run("why", "--backend=sim", "--", binary, timeout=300, env=env)
        tdp.expect_exit(r, 0)
        long = [ln for ln in r.out.splitlines() if len(ln) > cols]
        tdp.check(not long, "lines wider than %d columns: %r" % (cols, long), r)
        rows = [ln for ln in r.out.splitlines() if "wl-filter.cpp:" in ln and "%" in ln]
        tdp.check(rows, "site rows", r)
    # the C++ template's name does not fit 80 columns: it is cut with "...", never silently
    r80 = tdp.run("why", "--backend=sim", "--", binary, timeout=300, env={"COLUMNS": ""})
    j = tdp.run("why", "--backend=sim", "--json", "--", binary, timeout=300).json()
    fn = [s["function"] for s in j["sites"] if s["function"] and len(s["function"]) > 30]
    if fn:
        row = [ln for ln in r80.out.splitlines() if fn[0][:8] in ln and "%" in ln]
        tdp.check(row and "..." in row[0] and fn[0] not in row[0], "a cut name ends in ...: %r" % row, r80)
    flat = " ".join(r80.out.split())
    tdp.expect_in("share/doc/tdprof/sim-machine.md", flat, "the installed document", r80)


def test_loop_suggestion_runs_or_says_what_to_write():
    import shlex
    if not shutil.which("valgrind") or not shutil.which("g++"):
        raise tdp.Skip("needs valgrind and g++")
    work = os.path.join(TMP, "loopdir")
    os.makedirs(work, exist_ok=True)
    for src, cc in (("wl-args.c", "gcc"), ("wl-noarg.cpp", "g++")):
        shutil.copy(os.path.join(WORKLOADS, src), work)
        subprocess.run([cc, "-O1", "-g", "-o", os.path.join(work, src.split(".")[0]), src], cwd=work, check=True)
    r = tdp.run("why", "--backend=sim", "--json", "--", "./wl-args", cwd=work, timeout=300)
    tdp.expect_exit(r, 0)
    dd = r.json()["drilldown"]
    tdp.check(dd["kind"] == "hot_loop", "a hot loop: %r" % dd["kind"], r)
    tdp.check(dd["loop_command"] is None and "takes arguments" in dd["loop_note"], "no command for work(n, m): %r" % dd, r)
    r = tdp.run("why", "--backend=sim", "--json", "--", "./wl-noarg", cwd=work, timeout=300)
    tdp.expect_exit(r, 0)
    cmd = r.json()["drilldown"]["loop_command"]
    tdp.check(cmd and cmd.startswith("CC=g++ tdprof loop wl-noarg.cpp --function work"), "C++: CC=g++: %r" % cmd, r)
    words = shlex.split(cmd)
    env = dict(os.environ, CC="g++")
    p = subprocess.run([tdp.TDPROF] + words[2:], cwd=work, env=env,
                       capture_output=True, text=True, timeout=300)
    tdp.check(p.returncode == 0, "the suggested command runs: %s\n%s" % (cmd, p.stderr[-2000:]))


def test_html_tables_in_human_units():
    import re
    a, b = sortfix_docs()
    wh = os.path.join(TMP, "human.html")
    r = tdp.run("why", "--backend=sim", "--html", wh, "--", c_binary("wl-sortfix"), timeout=300)
    tdp.expect_exit(r, 0)
    with open(wh) as f:
        page = f.read()
    sites = page[page.index('id="sites"'):]
    sites = sites[:sites.index("</table>")]
    heads = re.findall(r'<th class="num">([^<]*)', sites)
    tdp.check("share (%)" in heads and "share_pct" not in heads, "column heads for people: %r" % heads)
    cells = re.findall(r'<td class="num">([^<]*)', sites)
    tdp.check(not any(re.search(r"\de[-+]\d", c) for c in cells), "no exponent: %r" % cells)
    tdp.check(any(re.fullmatch(r"\d{1,3}(,\d{3})+", c) for c in cells), "grouped digits: %r" % cells)
    tdp.check(any(c.endswith(" %") for c in cells), "percent with %%: %r" % cells)
    dh = os.path.join(TMP, "diff-human.html")
    # B: A with Frontend Bound 0.03 points higher (printed +0.0) and Retiring 0.03 lower (-0.0)
    def nudge(doc):
        doc["level1"]["frontend_bound"] += 0.03
        doc["level1"]["retiring"] -= 0.03
    b3 = edited(a, "nudged.json", nudge)
    d = tdp.run("diff", "--html", dh, a, b3)
    tdp.expect_exit(d, 0)
    with open(dh) as f:
        page = f.read()
    zero = re.findall(r'<td class="num ([a-z]*)">[+-]0\.0\b', page)
    tdp.check(zero and not any(z for z in zero), "+0.0 and -0.0 are not coloured: %r" % zero)
    # a label is drawn whole or not at all: the bar is wide enough for the text it holds
    for m in re.finditer(r'<svg x="[\d.]+" y="\d+" width="([\d.]+)" height="\d+"><text x="6" y="\d+" '
                         r'class="in-bar" font-size="([\d.]+)">([^<]*)</text>', page):
        w, font, text = float(m.group(1)), float(m.group(2)), m.group(3)
        tdp.check(len(text) * 0.58 * font + 6 <= w + 1, "label %r fits its bar of %.0f units" % (text, w))


tdp.main(globals())
