"""The build-time generators of vendor data (src/model/gen/gen-arm.py, gen-amd.py,
src/cpu/gen/gen-cpus.py, src/pmu/gen/gen-pfm-aliases.py): the data in the tree generates, and a damaged copy stops
with exit 1 and a message naming the file and the fault, writing nothing."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import tdp

ROOT = tdp.SOURCE_ROOT
TMP = tempfile.mkdtemp(prefix="tdprof-e2e-vendor-")


def gen(script, data, out):
    return subprocess.run([sys.executable, os.path.join(ROOT, script), data, out],
                          capture_output=True, text=True, timeout=120)


def damaged(src_dir, name, edit):
    """A copy of src_dir with JSON file name changed by edit(doc)."""
    dst = os.path.join(TMP, "copy-%d" % len(os.listdir(TMP)))
    shutil.copytree(src_dir, dst)
    p = os.path.join(dst, name)
    with open(p) as f:
        doc = json.load(f)
    edit(doc)
    with open(p, "w") as f:
        json.dump(doc, f)
    return p


def expect_refused(r, out, needle):
    tdp.check(r.returncode == 1, "exit 1, got %d: %s" % (r.returncode, r.stderr))
    tdp.check(needle in r.stderr, "%r in %r" % (needle, r.stderr))
    tdp.check(not os.path.exists(out), "nothing written")


def test_the_tree_generates():
    for script, data in (("src/model/gen/gen-arm.py", "data/arm/models.json"),
                         ("src/model/gen/gen-amd.py", "data/amd/zen.json"),
                         ("src/cpu/gen/gen-cpus.py", "data/cpus.json"),
                         ("src/pmu/gen/gen-pfm-aliases.py", "data/pfm-aliases.json")):
        out = os.path.join(TMP, os.path.basename(script) + ".out")
        r = gen(script, os.path.join(ROOT, data), out)
        tdp.check(r.returncode == 0, "%s: %s" % (script, r.stderr))
        tdp.check(os.path.getsize(out) > 1000, "%s wrote its tables" % script)


def test_arm_faults():
    arm = os.path.join(ROOT, "data", "arm")

    def unknown_unit(d):
        d["metrics"]["branch_mpki"]["units"] = "furlongs"
    p = damaged(arm, "neoverse-v2.json", unknown_unit)
    out = os.path.join(TMP, "arm1.c")
    expect_refused(gen("src/model/gen/gen-arm.py", os.path.join(os.path.dirname(p), "models.json"), out),
                   out, "neoverse-v2.json: metric 'branch_mpki' has an unknown unit 'furlongs'")

    def unknown_event(d):
        d["metrics"]["frontend_bound"]["formula"] = "STALL_SLOT_FRONTEND / NO_SUCH_EVENT"
    p = damaged(arm, "neoverse-n2.json", unknown_event)
    out = os.path.join(TMP, "arm2.c")
    expect_refused(gen("src/model/gen/gen-arm.py", os.path.join(os.path.dirname(p), "models.json"), out),
                   out, "names 'NO_SUCH_EVENT'")


def test_cpus_faults():
    def overlap(d):
        for r in d["arm64"]:
            if r.get("revisions"):
                r["revisions"].append({"from": "r0p1", "to": "r0p4", "name": "x"})
                break
    tmp = os.path.join(TMP, "cpus.json")
    with open(os.path.join(ROOT, "data", "cpus.json")) as f:
        doc = json.load(f)
    overlap(doc)
    with open(tmp, "w") as f:
        json.dump(doc, f)
    out = os.path.join(TMP, "cpus1.h")
    expect_refused(gen("src/cpu/gen/gen-cpus.py", tmp, out), out, "overlap another row")
    doc["arm64"][0]["revisions"] = [{"from": "r0p9x", "to": "r0p1"}]
    with open(tmp, "w") as f:
        json.dump(doc, f)
    expect_refused(gen("src/cpu/gen/gen-cpus.py", tmp, out), out, "'r0p9x' is not a revision")


def test_pfm_alias_faults():
    with open(os.path.join(ROOT, "data", "pfm-aliases.json")) as f:
        doc = json.load(f)
    doc["aliases"]["skl"].append(["INST_RETIRED.ANY", "X"])
    tmp = os.path.join(TMP, "pfm.json")
    with open(tmp, "w") as f:
        json.dump(doc, f)
    out = os.path.join(TMP, "pfm1.h")
    expect_refused(gen("src/pmu/gen/gen-pfm-aliases.py", tmp, out), out, "skl: 'INST_RETIRED.ANY' twice")


def test_amd_faults():
    with open(os.path.join(ROOT, "data", "amd", "zen.json")) as f:
        doc = json.load(f)
    doc["models"][2]["formulas"][0]["source"] = "nowhere"
    tmp = os.path.join(TMP, "zen.json")
    with open(tmp, "w") as f:
        json.dump(doc, f)
    out = os.path.join(TMP, "amd1.c")
    expect_refused(gen("src/model/gen/gen-amd.py", tmp, out), out, "cites an unknown source 'nowhere'")


tdp.main(globals())
