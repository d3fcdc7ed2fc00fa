"""Issue 16: answers that were wrong or misleading, each reproduced as the issue says.

Item 1: one source line holding several branches (a C++ template filter built with
g++ -O1 -g -fno-if-conversion -fno-if-conversion2): `why` must mark the branch that
mispredicts, not the first conditional jump of the line, and give the line's aggregate
apart from the branch's own rate. Needs valgrind and g++ (skips without them).
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


tdp.main(globals())
