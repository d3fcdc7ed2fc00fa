"""tdprof list: models, their metrics and events."""
import tdp

DESIGN_MODELS = ["skylake", "cascadelake", "icelake", "icelakex", "sapphirerapids", "alderlake", "zen2",
                 "zen3", "zen4", "zen5", "neoverse-n1", "neoverse-v1", "neoverse-n2", "neoverse-v2",
                 "neoverse-v3"]


def test_models_text():
    r = tdp.run("list")
    tdp.expect_exit(r, 0)
    names = [line.split()[0] for line in r.out.splitlines() if line and not line.startswith(" ")]
    for m in DESIGN_MODELS:
        tdp.check(m in names, "model %s listed" % m, r)
    r2 = tdp.run("list", "models")
    tdp.check(r2.out == r.out, "'list' is 'list models'", r2)


def test_models_json():
    r = tdp.run("list", "models", "--json")
    tdp.expect_exit(r, 0)
    doc = r.json()
    tdp.check("backend" not in doc, "list measures nothing: no backend (issue 16)", r)
    models = {m["name"]: m for m in doc["models"]}
    tdp.check(models["zen4"]["slots"] == 6 and models["zen4"]["model_kind"] == "slots", "zen4", r)
    tdp.check(models["zen5"]["slots"] == 8, "zen5 has 8 slots", r)
    tdp.check(models["zen3"]["model_kind"] == "cycle_accounting", "zen3 is cycle accounting", r)
    tdp.check(models["neoverse-n1"]["model_kind"] == "cycle_accounting", "n1 is cycle accounting", r)
    tdp.check(models["neoverse-n2"]["slots"] == 5, "n2 has 5 slots", r)
    tdp.check(models["sbsa"]["slots"] is None, "sbsa takes #slots from caps/slots", r)
    tdp.check(models["alderlake"]["companion"] == "gracemont", "hybrid P-core has its E-core", r)
    tdp.check("cascadelakex" in models["cascadelake"]["aliases"], "aliases", r)


def test_metrics_of_a_model():
    r = tdp.run("list", "metrics", "--cpu", "zen4")
    tdp.expect_exit(r, 0)
    tdp.expect_in("frontend_bound_latency -> frontend_bound/fetch_latency", r.out, "stdout", r)
    tdp.expect_in("cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x6@", r.out, "stdout", r)
    tdp.expect_in("source: perf amdzen4/pipeline.json", r.out, "stdout", r)
    # N2 r0p0-r0p2 subtract the erratum's slot per cycle; r0p3 and later do not (Arm's data)
    r = tdp.run("list", "metrics", "--cpu", "neoverse-n2-r0p1", "--json")
    doc = r.json()
    fe = [m for m in doc["metrics"][0]["metrics"] if m["name"] == "frontend_bound"][0]
    tdp.check("STALL_SLOT_FRONTEND - CPU_CYCLES" in fe["expr"][0], "the N2 erratum form", r)
    tdp.check("BR_MIS_PRED" in fe["expr"][0], "Arm's current form moves mispredicts out", r)
    r = tdp.run("list", "metrics", "--cpu", "neoverse-n2-r0p3", "--json")
    fe = [m for m in r.json()["metrics"][0]["metrics"] if m["name"] == "frontend_bound"][0]
    tdp.check("- CPU_CYCLES)" not in fe["expr"][0], "no erratum on r0p3", r)
    tdp.check("neoverse-n2-r0p3.json" in fe["source"], "cites Arm's r0p3 file", r)


def test_events_of_a_model_and_of_this_machine():
    r = tdp.run("list", "events", "--cpu", "icelakex")
    tdp.expect_exit(r, 0)
    tdp.expect_in("INT_MISC.CLEARS_COUNT", r.out, "stdout", r)
    tdp.expect_in("cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/", r.out, "stdout", r)
    r = tdp.run("list", "events")
    tdp.expect_exit(r, 0)
    tdp.check(any(line.split()[0] == "cycles" for line in r.out.splitlines() if line.strip()), "cycles", r)


def test_errors():
    r = tdp.run("list", "frob")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'frob' is not a list", r.err, "stderr", r)
    r = tdp.run("list", "metrics", "--cpu", "nope")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'nope' is not a top-down model", r.err, "stderr", r)


tdp.main(globals())
