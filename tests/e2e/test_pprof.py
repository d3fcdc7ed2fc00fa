"""--format=pprof for why and branches report: the gzipped perftools.profiles.Profile
decoded by protoc (Debian's protobuf-compiler) against the vendored profile.proto,
and its sample types, totals, names and lines checked against the JSON document."""
import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile

import tdp

PROTO_DIR = os.path.join(tdp.SOURCE_ROOT, "third_party", "pprof")


def parse_text(text):
    """protoc's text format into nested dicts: every field a list of values."""
    root, stack = {}, []
    cur = root
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            child = {}
            cur.setdefault(line[:-1].strip(), []).append(child)
            stack.append(cur)
            cur = child
        elif line == "}":
            cur = stack.pop()
        else:
            key, val = line.split(":", 1)
            val = val.strip()
            if val.startswith('"'):
                val = json.loads(val) if "\\" not in val else val[1:-1].encode().decode("unicode_escape")
            elif val in ("true", "false"):
                val = val == "true"
            else:
                val = int(val)
            cur.setdefault(key, []).append(val)
    return root


def decode(path):
    if not shutil.which("protoc"):
        raise tdp.Skip("protoc not installed (Debian protobuf-compiler: scripts/deps.sh test)")
    with open(path, "rb") as f:
        raw = f.read()
    tdp.check(raw[:2] == b"\x1f\x8b", "a pprof file is gzipped")
    p = subprocess.run(["protoc", "--decode", "perftools.profiles.Profile", "--proto_path", PROTO_DIR,
                        "profile.proto"], input=gzip.decompress(raw), capture_output=True, timeout=60)
    tdp.check(p.returncode == 0, "protoc decodes the profile: %s" % p.stderr.decode()[-2000:])
    return Profile(parse_text(p.stdout.decode()))


class Profile:
    def __init__(self, m):
        self.m = m
        self.strs = m["string_table"]
        self.types = [self.strs[t["type"][0]] for t in m["sample_type"]]
        self.funcs = {f["id"][0]: f for f in m.get("function", [])}
        self.locs = {l["id"][0]: l for l in m.get("location", [])}
        self.maps = {x["id"][0]: x for x in m.get("mapping", [])}
        self.comments = [self.strs[c] for c in m.get("comment", [])]

    def s(self, d, key):
        return self.strs[d.get(key, [0])[0]]

    def total(self, typ):
        k = self.types.index(typ)
        return sum(s["value"][k] for s in self.m.get("sample", []))

    def lines(self, loc_id):
        """[(function, file, line)] of a location, innermost first."""
        out = []
        for ln in self.locs[loc_id].get("line", []):
            f = self.funcs[ln["function_id"][0]]
            out.append((self.s(f, "name"), self.s(f, "filename"), ln.get("line", [0])[0]))
        return out


def demo():
    path = os.path.join(tdp.BUILD_ROOT, "examples", "branch", "demo-branch")
    if not os.access(path, os.X_OK):
        raise tdp.Skip("demo workload not built: %s" % path)
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind not installed: the simulated why cannot run")
    return path


def test_why_sim():
    app = demo()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "why.pb.gz")
        r = tdp.run("why", "--backend=sim", "--format=pprof", "-o", out, "--", app, timeout=300)
        tdp.expect_exit(r, 0)
        j = tdp.run("why", "--backend=sim", "--json", "--", app, timeout=300)
        tdp.expect_exit(j, 0)
        doc = j.json()
        p = decode(out)
    for t in ("slots", "cycles", "instructions", "branches", "mispredicts", "l1d_misses", "l1i_misses"):
        tdp.check(t in p.types, "why's profile has sample type %s: %r" % (t, p.types))
    tdp.check(p.strs[p.m["default_sample_type"][0]] == "mispredicts", "mispredicts is the default type")
    # totals are the JSON sites' (the simulation is deterministic)
    for t in ("mispredicts", "branches", "instructions", "l1d_misses", "loads"):
        tdp.check(p.total(t) == sum(s[t] for s in doc["sites"]),
                  "total %s: pprof %d, JSON sites %d" % (t, p.total(t), sum(s[t] for s in doc["sites"])))
    # slots per level-1 bucket: the root frames hold level1 x the scope's slots
    roots = {}
    k = p.types.index("slots")
    for s in p.m["sample"]:
        root = p.lines(s["location_id"][-1])[0][0]
        roots[root] = roots.get(root, 0) + s["value"][k]
    total = sum(roots.values())
    for key, label in (("retiring", "[Retiring]"), ("bad_speculation", "[Bad Speculation]"),
                       ("frontend_bound", "[Frontend Bound]"), ("backend_bound", "[Backend Bound]")):
        share = 100.0 * roots.get(label, 0) / total
        tdp.check(abs(share - doc["level1"][key]) < 0.01,
                  "%s: %.3f%% of the profile's slots, level1 says %.3f%%" % (label, share, doc["level1"][key]))
    # the top site's function, file and line
    top = doc["sites"][0]
    leaf = p.lines(p.m["sample"][0]["location_id"][0])[0]
    tdp.check(leaf[0] == top["function"] and leaf[1].endswith(os.path.basename(top["file"])) and
              leaf[2] == top["line"], "the first sample is the top site %r: %r" % (top, leaf))
    tdp.check("backend: sim (estimates: simulated)" in p.comments, "comments name the backend: %r" % p.comments)
    tdp.check(any(c.startswith("model: ") for c in p.comments), "comments name the model")
    tdp.check(any(c.startswith("verdict: %s" % doc["verdict"]["category"]) for c in p.comments), "the verdict")


def branch_data():
    path = tdp.shared("perfdata", "perf.data.branch-4.14")
    return path


def test_branches_report():
    data = branch_data()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "br.pb.gz")
        r = tdp.run("branches", "report", "-i", data, "--format=pprof", "-o", out)
        tdp.expect_exit(r, 0)
        doc = tdp.run("branches", "report", "-i", data, "--json", "--all").json()
        p = decode(out)
    tdp.check(p.types == ["branches", "mispredicts"], "sample types: %r" % p.types)
    tdp.check(p.total("branches") == doc["branch_entries"], "branches total %d == branch_entries %d" % (
        p.total("branches"), doc["branch_entries"]))
    tdp.check(p.total("mispredicts") == doc["mispredicted_entries"], "mispredicts total == mispredicted_entries")
    tdp.check(len(p.m["sample"]) == len(doc["sites"]), "one sample per site (all of them)")
    by_addr = {l.get("address", [0])[0]: l for l in p.locs.values()}
    for s in doc["sites"]:
        loc = by_addr.get(int(s["address"], 16))
        tdp.check(loc is not None, "site %s has a location" % s["address"])
        lines = p.lines(loc["id"][0])
        name = s["function"] if s["function"] else "0x%x" % int(s["address"], 16)
        tdp.check(lines[-1][0] == name, "site %s: function %r, pprof %r" % (s["address"], name, lines))
        if s["line"]:
            tdp.check(lines[0][2] == s["line"], "site %s: line %r" % (s["address"], lines))
        if s["dso"]:
            tdp.check(p.s(p.maps[loc["mapping_id"][0]], "filename") == s["dso"], "site %s: mapping" % s["address"])
    bids = [p.s(m, "build_id") for m in p.maps.values() if p.s(m, "build_id")]
    tdp.check(bids and all(re.fullmatch(r"[0-9a-f]{40}", b) for b in bids), "mappings carry build-ids: %r" % bids)
    tdp.check("backend: import" in p.comments, "comments name the backend")


def test_help_names_the_format():
    # --format pprof is a choice of both commands (and nowhere else)
    for argv in (("why", "--help"), ("branches", "report", "--help")):
        r = tdp.run(*argv)
        tdp.expect_in("pprof", r.out, " ".join(argv))


tdp.main(globals())
