#!/usr/bin/env python3
"""gen-arm.py: generate tdprof's Arm models from Arm's telemetry specifications.

Usage: gen-arm.py MODELS.json OUTPUT.c

MODELS.json (data/arm/models.json) names each model, the Arm JSON it comes from
(in the same folder: Arm's telemetry-solution per-core specifications, Apache-2.0),
its aliases, and what tdprof adds. From each Arm file this takes:
  - stage 1 of the topdown methodology (Topdown_L1, or Cycle_Accounting on N1):
    the tree's level-1 nodes, their formulas (Arm's percentages become fractions:
    tdprof scales every node to percent once), titles, descriptions, sample events;
  - every other metric group (stage 2, and V3/N3's Topdown_Frontend/_Backend
    drill-down, which are percentages of stalled cycles, not of slots) as
    MODEL_METRIC_STAGE2 metrics with their unit and description; a metric in
    several groups is listed under the first one the methodology explores;
  - the decision tree: for each level-1 node, the groups to explore next,
    following Arm's drill-down nodes down to their groups.
Formulas are Arm's text, unchanged but for the scaling. An unknown unit, a formula
naming an event the file does not define, or a malformed entry stops the build
with FILE: message. Standard library only; the output is written only when every
model is valid.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from genlib import Bad, c_str, run  # noqa: E402  (scripts/genlib.py)

UNITS = {
    "percent of slots": "percent_of_slots",
    "percent of cycles": "percent",
    "percent of operations": "percent",
    "MPKI": "per_kilo_instructions",
    "per branch": "ratio",
    "per cache access": "ratio",
    "per TLB access": "ratio",
    "per cycle": "per_cycle",
    "operations per cycle": "per_cycle",
}
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_EVENTS, MAX_FORMULAS, MAX_METRICS = 96, 80, 192


def top_level_sum(expr):
    """True when expr has a + or - outside parentheses (not a sign after an operator)."""
    depth, prev = 0, "("
    for ch in expr:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch in "+-" and depth == 0 and prev not in "(*/+-":
            return True
        if not ch.isspace():
            prev = ch
    return False


def wraps(expr):
    """True when expr is one parenthesised whole: "(...)"."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(expr):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(expr) - 1:
            return False
    return True


def fraction(expr):
    """Arm's percentage formula as a fraction: "100 * (X)" and "X * 100" (X a product) lose the 100;
    anything else is divided by 100."""
    e = expr.strip()
    if e.startswith("100 * ") and wraps(e[6:].strip()):
        return e[6:].strip()[1:-1].strip()
    if e.endswith(" * 100") and not top_level_sum(e[:-6]):
        return e[:-6].strip()
    return f"({e}) / 100"


def names_in(expr):
    return [n for n in NAME.findall(re.sub(r"#\w+", "", expr)) if n not in ("if", "else")]


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Bad(f"{path}: {e}")


class Model:
    def __init__(self, entry, cfg, folder):
        self.e = entry
        self.cfg = cfg
        self.folder = folder
        self.events = ["CPU_CYCLES"]  # the clock first, then in first-use order
        self.codes = {}
        self.formulas = []    # (name, [exprs], [whens], source)
        self.nodes = []       # dict
        self.metrics = []     # dict
        self.explore = []     # (node, groups)
        self.kind = "MODEL_KIND_SLOTS"
        self.slots = entry.get("slots")
        self.sources = ""

    def use(self, expr, where):
        for n in names_in(expr):
            if n not in self.codes:
                raise Bad(f"{where}: formula names '{n}', which the file does not define as an event")
            if n not in self.events:
                self.events.append(n)

    def build_generic(self):
        g = self.e["generic"]
        self.codes = dict(g["codes"])
        self.sources = g["source"]
        for key in ("retiring", "bad_speculation", "frontend_bound", "backend_bound"):
            expr = g["nodes"][key]
            self.use(expr, f"models.json {self.e['name']}.{key}")
            self.formulas.append((key, [expr], ["MODEL_WHEN_ANY"], g["source"]))
            self.nodes.append({"key": key, "formula": key, "label": None, "description": None,
                               "locate_with": None, "groups": "TopdownL1"})
        self.events = [e for e in g["events"] if e in self.events]

    def build_spec(self):
        fname = self.e["spec"]
        path = os.path.join(self.folder, fname)
        d = load(path)
        doc = d.get("document", {})
        pc = d.get("product_configuration", {})
        where = fname
        try:
            self.codes = {k: v["code"] for k, v in d["events"].items()}
            metrics, groups = d["metrics"], d["groups"]["metrics"]
            td = d["methodologies"]["topdown_methodology"]
            stage1, stage2 = td["metric_grouping"]["stage_1"], td["metric_grouping"]["stage_2"]
            tree = td["decision_tree"]
            roots = tree["root_nodes"]
        except (KeyError, TypeError) as e:
            raise Bad(f"{where}: missing {e}")
        if self.slots is None:
            self.slots = int(pc.get("num_slots", 0))
        stamp = doc.get("timestamp", "?")
        sha = doc.get("sha1", "")
        src = (f"Arm telemetry-solution data/pmu/cpu/neoverse/{fname} ({pc.get('product_name')} "
               f"r{pc.get('major_revision')}p{pc.get('minor_revision')}, {stamp}"
               + (f", sha1 {sha[:12]}" if sha else "") + ")")
        self.sources = src + ("; " + self.e["spec_note"] if self.e.get("spec_note") else "")
        l1_group = stage1[0]
        if l1_group == "Cycle_Accounting":
            self.kind = "MODEL_KIND_CYCLE_ACCOUNTING"
        fb = self.cfg["fallbacks"].get(self.e.get("fallback")) if self.e.get("fallback") else None
        if self.e.get("fallback") and not fb:
            raise Bad(f"models.json {self.e['name']}: unknown fallback '{self.e['fallback']}'")
        tree_by_name = {m["name"]: m for m in tree["metrics"]}
        # level 1, slot models in the vocabulary's order (the JSON's level1 keeps it)
        order = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
        for key in sorted(roots, key=lambda k: order.index(k) if k in order else len(order)):
            m = metrics.get(key)
            if not m or key not in groups[l1_group]["metrics"]:
                raise Bad(f"{where}: root node '{key}' is not a metric of {l1_group}")
            if m["units"] not in ("percent of slots", "percent of cycles"):
                raise Bad(f"{where}: level-1 metric '{key}' has unit '{m['units']}'")
            expr = fraction(m["formula"])
            self.use(expr, f"{where}: {key}")
            exprs, whens, source = [expr], ["MODEL_WHEN_ANY"], src
            if fb and key in fb["nodes"]:
                self.use(fb["nodes"][key], f"models.json fallback for {key}")
                exprs.append(fb["nodes"][key])
                whens.append("MODEL_WHEN_IMPORT")
                source = src + "; when an import lacks an event of it: " + fb["source"]
            self.formulas.append((key, exprs, whens, source))
            self.nodes.append({"key": key, "formula": key, "label": m.get("title"),
                               "description": m.get("description"),
                               "locate_with": ";".join(tree_by_name.get(key, {}).get("sample_events",
                                                                                      m.get("sample_events", []))),
                               "groups": l1_group})
        # the groups to explore under each level-1 node (following drill-down nodes)
        explore_order = []
        for key in roots:
            seen, out, todo = set(), [], list(tree_by_name.get(key, {}).get("next_items", []))
            while todo:
                item = todo.pop(0)
                if item in seen:
                    continue
                seen.add(item)
                if item in groups:
                    out.append(item)
                elif item in tree_by_name:
                    g = tree_by_name[item].get("group")
                    if g and g not in out:
                        out.append(g)
                    todo.extend(tree_by_name[item].get("next_items", []))
                else:
                    raise Bad(f"{where}: decision tree names '{item}', neither a group nor a node")
            if out:
                self.explore.append((key, ";".join(out)))
            explore_order += [g for g in out if g not in explore_order]
        # stage 2: every metric of the other groups, under its first explored group
        group_order = explore_order + [g for g in list(stage1) + list(stage2) if g not in explore_order]
        group_order += [g for g in groups if g not in group_order]
        placed = {}
        for g in group_order:
            if g == l1_group or g not in groups:
                continue
            for key in groups[g]["metrics"]:
                if key in roots or key in placed:
                    continue
                if key not in metrics:
                    raise Bad(f"{where}: group {g} lists '{key}', which is not a metric")
                placed[key] = g
        for key, g in placed.items():
            m = metrics[key]
            unit = UNITS.get(m["units"])
            if not unit:
                raise Bad(f"{where}: metric '{key}' has an unknown unit '{m['units']}'")
            self.use(m["formula"], f"{where}: {key}")
            self.formulas.append((key, [m["formula"]], ["MODEL_WHEN_ANY"], src))
            self.metrics.append({"key": key, "formula": key, "group": g, "unit": unit,
                                 "description": m.get("title", key) + ": " + m.get("description", "")})

    def build(self):
        if "generic" in self.e:
            self.build_generic()
        else:
            self.build_spec()
        n = self.e["name"]
        if len(self.events) > MAX_EVENTS or len(self.formulas) > MAX_FORMULAS or len(self.metrics) > MAX_METRICS:
            raise Bad(f"models.json {n}: {len(self.events)} events, {len(self.formulas)} formulas, "
                      f"{len(self.metrics)} metrics exceed model.h's limits")

    def emit(self, out):
        v = self.e["var"].replace("model_", "")
        aliases = self.cfg["event_aliases"]
        thr = self.cfg["thresholds"]
        out.append(f"/* {self.e['name']}: {self.sources} */")
        out.append(f"static const struct model_event {v}_events[] = {{")
        for ev in self.events:
            al = aliases.get(ev, [])
            fields = [f".name = {c_str(ev)}"]
            if al:
                fields.append(".aliases = { " + ", ".join(c_str(a) for a in al) + " }")
            if ev == "CPU_CYCLES":
                fields.append(".counter = MODEL_CTR_FIXED, .fixed_idx = 0, .clock = true")
            else:
                code = int(self.codes[ev], 16)
                fields.append(f'.spec = "r{code:x}"')
            out.append("\t{ " + ", ".join(fields) + " },")
        out.append("};")
        out.append(f"static const struct model_formula {v}_formulas[] = {{")
        for name, exprs, whens, source in self.formulas:
            out.append(f"\t{{ .name = {c_str(name)}, .expr = {{ " + ", ".join(c_str(x) for x in exprs) + " }, "
                       f".when = {{ " + ", ".join(whens) + f" }}, .source = {c_str(source)} }},")
        out.append("};")
        out.append(f"static const struct model_node_def {v}_nodes[] = {{")
        for nd in self.nodes:
            t = thr.get(nd["key"], "THR_NONE") if self.kind == "MODEL_KIND_SLOTS" else "THR_NONE"
            out.append(f"\t{{ .key = {c_str(nd['key'])}, .formula = {c_str(nd['formula'])}, .threshold = {t}, "
                       f".level = 1, .label = {c_str(nd['label'])}, .description = {c_str(nd['description'])}, "
                       f".locate_with = {c_str(nd['locate_with'] or None)}, .groups = {c_str(nd['groups'])} }},")
        out.append("};")
        if self.metrics:
            out.append(f"static const struct model_metric_def {v}_metrics[] = {{")
            for m in self.metrics:
                out.append(f"\t{{ .key = {c_str(m['key'])}, .formula = {c_str(m['formula'])}, "
                           f".kind = MODEL_METRIC_STAGE2, .group = {c_str(m['group'])}, .unit = {c_str(m['unit'])}, "
                           f".description = {c_str(m['description'])}, .threshold = THR_NONE }},")
            out.append("};")
        if self.explore:
            out.append(f"static const struct model_explore {v}_explore[] = {{")
            for node, gs in self.explore:
                out.append(f"\t{{ .node = {c_str(node)}, .groups = {c_str(gs)} }},")
            out.append("};")
        out.append(f"const struct model {self.e['var']} = {{")
        out.append(f"\t.name = {c_str(self.e['name'])},")
        out.append("\t.aliases = { " + ", ".join(c_str(a) for a in self.e.get("aliases", [])) + " },")
        out.append(f"\t.description = {c_str(self.e['description'])},")
        out.append(f"\t.sources = {c_str(self.sources)},")
        out.append(f"\t.note = {c_str(self.e.get('note'))},")
        out.append("\t.vendor = MODEL_VENDOR_ARM,")
        out.append(f"\t.kind = {self.kind},")
        out.append(f"\t.slots = {0 if self.kind != 'MODEL_KIND_SLOTS' and 'generic' not in self.e else self.slots},")
        out.append(f"\t.gp_counters = {int(self.e.get('gp_counters', 6))},")
        out.append("\t.fixed_counters = 1,")
        for part, arr in (("events", self.events), ("formulas", self.formulas), ("nodes", self.nodes),
                          ("metrics", self.metrics), ("explore", self.explore)):
            if arr:
                out.append(f"\t.{part} = {v}_{part},")
                out.append(f"\t.nr_{part} = ARRAY_SIZE({v}_{part}),")
        out.append("};")
        out.append("")


def build(path):
    cfg = load(path)
    folder = os.path.dirname(os.path.abspath(path))
    out = ["/* Generated by src/model/gen/gen-arm.py from data/arm/: do not edit. */",
           '#include "model/tables/tables.h"', ""]
    names = set()
    for entry in cfg["models"]:
        if entry["name"] in names:
            raise Bad(f"models.json: model '{entry['name']}' twice")
        names.add(entry["name"])
        m = Model(entry, cfg, folder)
        m.build()
        m.emit(out)
    return out


def main(argv):
    return run(argv, "MODELS.json OUTPUT.c", build)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
