"""Imports from hybrid Intel CPUs: recognised from perf's cpu_core/ and cpu_atom/ prefixes.

The inputs have the shapes perf 6.x prints on Alder Lake and Meteor Lake for
`perf stat -M TopdownL1` (text and -x, CSV): the default events (cpu_atom/cycles/,
cpu_core/cycles/) in their own multiplexed slices, the P-cores' group led by
cpu_core/TOPDOWN.SLOTS/ with the topdown-* metrics events, the E-cores' group of
TOPDOWN_*.ALL (Alder Lake) or TOPDOWN_*.ALL_P (Meteor Lake, as perf 6.12's
meteorlake metrics name them) with its own cpu_atom/CPU_CLK_UNHALTED.CORE/. The
counts are chosen so that each core type's level 1 is known exactly: P-core
30/10/25/35, E-core 30/30/20/20 % of 5 slots per cycle (25/25/16.7/16.7 of 6 on
Crestmont).
"""
import os
import tempfile

import tdp

P_L1 = {"retiring": 30.0, "bad_speculation": 10.0, "frontend_bound": 25.0, "backend_bound": 35.0}
E_L1 = {"retiring": 30.0, "bad_speculation": 30.0, "frontend_bound": 20.0, "backend_bound": 20.0}
CMT_L1 = {"retiring": 25.0, "bad_speculation": 25.0, "frontend_bound": 100.0 / 6, "backend_bound": 100.0 / 6}

# (value, event, running %) as perf prints them, in perf's order.
DEFAULT = [(1234.56, "msec task-clock", None), (2.0e9, "cpu_atom/cycles/", 30.0), (4.0e9, "cpu_core/cycles/", 70.0)]
P_GROUP = [(24.0e9, "cpu_core/TOPDOWN.SLOTS/", 70.0), (7.2e9, "cpu_core/topdown-retiring/", 70.0),
           (2.4e9, "cpu_core/topdown-bad-spec/", 70.0), (6.0e9, "cpu_core/topdown-fe-bound/", 70.0),
           (8.4e9, "cpu_core/topdown-be-bound/", 70.0), (0, "cpu_core/INT_MISC.UOP_DROPPING/", 70.0),
           (0, "cpu_core/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/", 70.0)]


def e_group(suffix):
    return [(1.5e9, "cpu_atom/TOPDOWN_RETIRING.%s/" % suffix, 29.0),
            (1.5e9, "cpu_atom/TOPDOWN_BAD_SPECULATION.%s/" % suffix, 29.0),
            (1.0e9, "cpu_atom/TOPDOWN_FE_BOUND.%s/" % suffix, 29.0),
            (1.0e9, "cpu_atom/TOPDOWN_BE_BOUND.%s/" % suffix, 29.0),
            (1.0e9, "cpu_atom/CPU_CLK_UNHALTED.CORE/", 29.0)]


def text(rows, prompt="$ perf stat -M TopdownL1 -- ./app"):
    out = [prompt, "", " Performance counter stats for './app':", ""]
    for v, ev, pct in rows:
        num = "{:,.2f}".format(v) if ev.startswith("msec") else "{:,.0f}".format(v)
        line = "%18s      %-40s" % (num, ev)
        if pct is not None:
            line += "  (%.2f%%)" % pct
        out.append(line)
    out += ["", "       1.237000000 seconds time elapsed", ""]
    return "\n".join(out) + "\n"


def csv(rows):
    out = []
    for v, ev, pct in rows:
        unit, name = ("msec", ev.split()[1]) if ev.startswith("msec") else ("", ev)
        p = 100.0 if pct is None else pct
        out.append("%s,%s,%s,%d,%.2f,," % ("%.2f" % v if unit else "%.0f" % v, unit, name,
                                          int(1.0e9 * p / 100), p))
    return "\n".join(out) + "\n"


def topdown(d, name, content, *args):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(content)
    return tdp.run("topdown", "--import", path, "-l", "1", *args)


def core_types(r):
    tdp.expect_exit(r, 0)
    doc = r.json()
    return doc, {c["cpu"]: c["level1"] for c in doc.get("core_types") or []}


def near(got, want, what, r):
    for k, v in want.items():
        tdp.check(got.get(k) is not None and abs(got[k] - v) < 0.05,
                  "%s %s = %r, expected %.1f" % (what, k, got.get(k), v), r)


def test_alder_lake_without_cpu():
    with tempfile.TemporaryDirectory() as d:
        for name, content in (("adl.txt", text(DEFAULT + P_GROUP + e_group("ALL"))),
                              ("adl.csv", csv(DEFAULT + P_GROUP + e_group("ALL")))):
            r = topdown(d, name, content, "--json")
            doc, types = core_types(r)
            tdp.check(doc["cpu"] == "alderlake", "%s: model %r, expected alderlake" % (name, doc["cpu"]), r)
            tdp.check(sorted(types) == ["alderlake", "gracemont"], "%s: core types %r" % (name, sorted(types)), r)
            near(types["alderlake"], P_L1, name + " P-core", r)
            near(types["gracemont"], E_L1, name + " E-core", r)


def test_meteor_lake_without_cpu():
    with tempfile.TemporaryDirectory() as d:
        r = topdown(d, "mtl.txt", text(DEFAULT + P_GROUP + e_group("ALL_P")), "--json")
        doc, types = core_types(r)
        tdp.check(doc["cpu"] == "meteorlake", "model %r, expected meteorlake" % doc["cpu"], r)
        tdp.check(sorted(types) == ["crestmont", "meteorlake"], "core types %r" % sorted(types), r)
        near(types["meteorlake"], P_L1, "P-core", r)
        near(types["crestmont"], CMT_L1, "E-core", r)


def test_a_hint_keeps_both_core_types():
    with tempfile.TemporaryDirectory() as d:
        content = text(DEFAULT + P_GROUP + e_group("ALL"))
        for hint in ("gracemont", "alderlake", "raptorlake"):
            doc, types = core_types(topdown(d, "adl.txt", content, "--cpu", hint, "--json"))
            tdp.check(sorted(types) == ["alderlake", "gracemont"], "--cpu %s: core types %r" % (hint, sorted(types)))
            near(types["alderlake"], P_L1, "--cpu %s P-core" % hint, None)
            near(types["gracemont"], E_L1, "--cpu %s E-core" % hint, None)


def test_a_non_hybrid_hint_on_hybrid_counts_is_refused():
    """--cpu sapphirerapids (one core type) on the counts of both core types would read
    cpu_core/ and cpu_atom/ events as one CPU's: refused (exit 2), naming the hybrid
    models; the same model on P-core counts alone is taken as given."""
    with tempfile.TemporaryDirectory() as d:
        for name, content in (("adl.txt", text(DEFAULT + P_GROUP + e_group("ALL"))),
                              ("adl.csv", csv(DEFAULT + P_GROUP + e_group("ALL")))):
            for hint in ("sapphirerapids", "icelake"):
                r = topdown(d, name, content, "--cpu", hint)
                tdp.expect_exit(r, 2)
                tdp.expect_in("'--cpu %s' is a model of one core type" % hint, r.err, "stderr", r)
                tdp.expect_in("hybrid model (alderlake, meteorlake)", r.err, "stderr", r)
                tdp.check(not r.out, "nothing printed for a refused hint", r)
        r = topdown(d, "core.txt", text([DEFAULT[0], DEFAULT[2]] + P_GROUP), "--cpu", "sapphirerapids", "--json")
        tdp.expect_exit(r, 0)
        tdp.check(r.json()["cpu"] == "sapphirerapids", "P-core counts alone: the model given", r)


def test_default_cycles_beside_the_ecore_group():
    """perf's default cpu_atom/cycles/ printed right before the E-cores' group with
    the same running percentage reads as one group; the E-core level 1 must take the
    group's own CPU_CLK_UNHALTED.CORE (1e9), not the default event's 2e9 (that would
    halve Retiring to 15 %)."""
    rows = [DEFAULT[0], DEFAULT[2]] + P_GROUP + [(2.0e9, "cpu_atom/cycles/", 29.0)] + e_group("ALL")
    with tempfile.TemporaryDirectory() as d:
        for name, content in (("adj.txt", text(rows)), ("adj.csv", csv(rows))):
            r = topdown(d, name, content, "--json")
            doc, types = core_types(r)
            near(types["gracemont"], E_L1, name + " E-core", r)
            near(types["alderlake"], P_L1, name + " P-core", r)


def test_ecore_counts_alone():
    with tempfile.TemporaryDirectory() as d:
        r = topdown(d, "atom.txt", text([DEFAULT[0], DEFAULT[1]] + e_group("ALL")), "--json")
        tdp.expect_exit(r, 0)
        doc = r.json()
        tdp.check(doc["cpu"] == "gracemont", "model %r, expected gracemont" % doc["cpu"], r)
        near(doc["level1"], E_L1, "E-core", r)


def test_pcore_counts_alone_are_ambiguous():
    """Alder Lake's and Meteor Lake's P-core models read the same events: without
    E-core counts the import names both and asks for --cpu (exit 2)."""
    with tempfile.TemporaryDirectory() as d:
        r = topdown(d, "core.txt", text([DEFAULT[0], DEFAULT[2]] + P_GROUP))
        tdp.expect_exit(r, 2)
        tdp.expect_in("alderlake, meteorlake", r.err, "stderr", r)
        tdp.expect_in("--cpu", r.err, "stderr", r)


if __name__ == "__main__":
    tdp.main(globals())
