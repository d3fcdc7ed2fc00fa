"""tdprof topdown --import on Arm Neoverse N2: the revision picks the formulas
(r0p0-r0p2 subtract the STALL_SLOT erratum's slot per cycle, r0p3 does not), given
by --cpu neoverse-n2-r0p3 or --midr; without it the output says which was assumed.
Counts are made up; the expected values are worked by hand below."""
import os
import tempfile

import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-e2e-armrev-")

# perf stat -x, of Arm's level-1 events (BR_MIS_PRED included, as Arm's current form needs).
# cycles 1000, BR_MIS_PRED 50:
#   r0p3: FE = 1500/5000 - 0.05 = 25 %, BE = 1500/5000 - 0.15 = 15 %, RET = 0.9 * (1 - 0.6) = 36 %,
#         BAD = 0.1 * 0.4 + 0.2 = 24 %
#   r0p0: FE = 500/5000 - 0.05 = 5 %, BE = 15 %, RET = 0.9 * (1 - 0.4) = 54 %, BAD = 0.06 + 0.2 = 26 %
CSV = ("1000,,cpu_cycles,1000,100.00,,\n"
       "1500,,stall_slot_frontend,1000,100.00,,\n"
       "1500,,stall_slot_backend,1000,100.00,,\n"
       "3000,,stall_slot,1000,100.00,,\n"
       "450,,op_retired,1000,100.00,,\n"
       "500,,op_spec,1000,100.00,,\n"
       "50,,BR_MIS_PRED,1000,100.00,,\n")
R0P3 = {"frontend_bound": 25, "backend_bound": 15, "retiring": 36, "bad_speculation": 24}
R0P0 = {"frontend_bound": 5, "backend_bound": 15, "retiring": 54, "bad_speculation": 26}


def path():
    p = os.path.join(TMP, "n2.csv")
    with open(p, "w") as f:
        f.write(CSV)
    return p


def level1(*args):
    r = tdp.run("topdown", "--import", path(), *args, "--json")
    tdp.expect_exit(r, 0)
    return r, r.json()


def expect(r, doc, want, model):
    tdp.check(doc["model"]["name"] == model, "model %s" % model, r)
    for k, v in want.items():
        tdp.check(abs(doc["level1"][k] - v) < 1e-6, "%s = %s" % (k, v), r)


def test_cpu_names_the_revision():
    r, doc = level1("--cpu", "neoverse-n2-r0p3")
    expect(r, doc, R0P3, "neoverse-n2")
    r, doc = level1("--cpu", "neoverse-n2-r0p1")
    expect(r, doc, R0P0, "neoverse-n2-r0p0")


def test_midr_names_the_revision():
    r, doc = level1("--midr", "0x410fd493")
    expect(r, doc, R0P3, "neoverse-n2")
    r, doc = level1("--midr", "0x410fd490")
    expect(r, doc, R0P0, "neoverse-n2-r0p0")
    r, doc = level1("--midr", "0x6d0fd492")  # Azure Cobalt 100 r0p2: an N2 with the erratum
    expect(r, doc, R0P0, "neoverse-n2-r0p0")


def test_without_a_revision_the_assumption_is_said():
    r, doc = level1("--cpu", "neoverse-n2")
    expect(r, doc, R0P3, "neoverse-n2")
    r = tdp.run("topdown", "--import", path(), "--cpu", "neoverse-n2")
    tdp.expect_exit(r, 0)
    tdp.expect_in("the revision assumed when none is given", r.out, "stdout", r)


def test_midr_errors():
    r = tdp.run("topdown", "--import", path(), "--midr", "0x410fd493", "--cpu", "neoverse-n2")
    tdp.expect_exit(r, 2)
    tdp.expect_in("not both", r.err, "stderr", r)
    r = tdp.run("topdown", "--import", path(), "--midr", "frob")
    tdp.expect_exit(r, 2)
    tdp.expect_in("MIDR_EL1 value", r.err, "stderr", r)
    r = tdp.run("topdown", "--import", path(), "--midr", "0x410fd030")  # Cortex-A53: no model
    tdp.expect_exit(r, 2)
    tdp.expect_in("has no top-down model", r.err, "stderr", r)


def n2_snapshot(root, midr):
    """A Neoverse N2 sysfs/procfs snapshot whose MIDR_EL1 is midr."""
    def put(base, rel, text):
        p = os.path.join(base, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    sysfs, procfs = os.path.join(root, "sys"), os.path.join(root, "proc")
    put(sysfs, "devices/system/cpu/online", "0-1\n")
    for n in range(2):
        put(sysfs, "devices/system/cpu/cpu%d/regs/identification/midr_el1" % n, midr + "\n")
    pmu = "bus/event_source/devices/armv8_pmuv3_0/"
    put(sysfs, pmu + "type", "8\n")
    put(sysfs, pmu + "caps/slots", "0x00000005\n")
    put(sysfs, pmu + "events/stall_slot", "event=0x003f\n")
    put(sysfs, "bus/event_source/devices/software/type", "1\n")
    put(procfs, "sys/kernel/perf_event_paranoid", "1\n")
    return sysfs, procfs


def test_info_names_the_revision_model():
    for midr, model in (("0x00000000410fd491", "neoverse-n2-r0p0"), ("0x00000000410fd493", "neoverse-n2")):
        root = tempfile.mkdtemp(prefix="tdprof-e2e-armrev-info-")
        sysfs, procfs = n2_snapshot(root, midr)
        r = tdp.run("info", "--json", "--sysfs", sysfs, "--procfs", procfs)
        tdp.expect_exit(r, 0)
        d = r.json()
        tdp.check(d["cpu"]["uarch"] == "neoverse-n2", "uarch", r)
        tdp.check(d["topdown"]["model"] == model, "model %s for %s" % (model, midr), r)


tdp.main(globals())
