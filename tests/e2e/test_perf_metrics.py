"""Differential test: tdprof's models against current perf's own metric definitions.

For every model `tdprof list models` prints, perf 6.12 (Debian's linux-perf from
bookworm-backports, unpacked by `scripts/deps.sh perf612`, which `make check` runs)
prints its metric expressions for a CPU of that model (`PERF_CPUID=... perf list -j
metrics`). The test writes synthetic, self-consistent counts for every event those
expressions name, evaluates perf's expressions with its own evaluator (perfexpr.py),
imports the same counts as `perf stat -x,` CSV with `tdprof topdown --import FILE
--cpu MODEL -l N --json` (N the deepest level tdprof accepts, up to 6), and compares
every top-down node perf defines (its TopdownL1..L6 or PipelineL1/L2 metrics) with
the tdprof node whose vendor name is perf's MetricName (or the name Intel's TMA 5.2
gave that node since, RENAMED): within 0.05 point.

What still differs on purpose is listed in EXPECTED_DIFFERENCES, each with its
reason; an entry that no longer matches any difference fails the test, so that the
list only shrinks. Arm models: perf's x86 binary carries no arm64 tables, so perf 6.12's arm64
JSON is read from tests/data/perf612-arm64 (Linux 6.12's own files, see its
README) for the MIDRs in ARM_MIDR; that part runs without perf. The x86 part skips
(with a message) when perf 6.12 is not unpacked.
"""
import fnmatch
import glob
import hashlib
import json
import os
import re
import subprocess
import tempfile

import perfexpr
import tdp

TOLERANCE = 0.05  # percentage points

# A CPU id of each model, as perf's pmu-events/arch/x86/mapfile.csv (v6.12) matches
# it (vendor-family-model-stepping, the model in hex without leading zeros) as perf matches
# it. A model tdprof lists that is missing here fails the test: add its row.
MODEL_CPUID = {
    "sandybridge": "GenuineIntel-6-2A-7",
    "ivybridge": "GenuineIntel-6-3A-9",
    "haswell": "GenuineIntel-6-3C-3",
    "broadwell": "GenuineIntel-6-3D-4",
    "skylake": "GenuineIntel-6-5E-3",
    "skylakex": "GenuineIntel-6-55-4",
    "cascadelake": "GenuineIntel-6-55-7",
    "icelake": "GenuineIntel-6-7E-5",
    "rocketlake": "GenuineIntel-6-A7-1",
    "tigerlake": "GenuineIntel-6-8C-1",
    "icelakex": "GenuineIntel-6-6A-6",
    "sapphirerapids": "GenuineIntel-6-8F-8",
    "emeraldrapids": "GenuineIntel-6-CF-2",
    "graniterapids": "GenuineIntel-6-AD-1",
    "alderlake": "GenuineIntel-6-97-2",    # hybrid: its cpu_core metrics
    "gracemont": "GenuineIntel-6-BE-0",    # Alder Lake-N: Gracemont cores only
    "meteorlake": "GenuineIntel-6-AA-4",   # hybrid: its cpu_core metrics
    "lioncove": "GenuineIntel-6-C6-2",     # Arrow Lake: its cpu_core metrics (Skymont: no model yet)
    "crestmont": "GenuineIntel-6-AF-3",    # Sierra Forest: Crestmont cores only
    "zen2": "AuthenticAMD-23-31-0",
    "zen3": "AuthenticAMD-25-21-0",
    "zen4": "AuthenticAMD-25-11-1",
    "zen5": "AuthenticAMD-26-2-0",
}

# Arm models: (label, MIDR) rows, each evaluated with perf 6.12's arm64 JSON for
# that MIDR (mapfile.csv) and imported with --cpu MODEL. sbsa: perf's generic
# sbsa.json level 1 itself, at 5 slots. A model missing here fails the test.
ARM_MIDR = {
    "sbsa": [("sbsa", None)],
    "neoverse-n1": [("neoverse-n1", 0x410FD0C0)],
    "cortex-a76": [("cortex-a76", 0x410FD0B0)],
    "neoverse-v1": [("neoverse-v1", 0x410FD400)],
    "neoverse-n2": [("neoverse-n2-r0p3", 0x410FD493)],
    "neoverse-n2-r0p0": [("neoverse-n2-r0p0", 0x410FD490)],
    "neoverse-v2": [("neoverse-v2", 0x410FD4F0)],
    "neoverse-n3": [("neoverse-n3", 0x410FD8E0)],
    "neoverse-v3": [("neoverse-v3", 0x410FD840)],
}
ARM_DATA = os.path.join(tdp.SOURCE_ROOT, "tests", "data", "perf612-arm64")
SBSA_SLOTS = 5

# Nodes Intel's TMA 5.2 renamed since the TMA 4.x that perf 6.12's tables come
# from: perf's MetricName -> tdprof's (TMA 5.2) vendor name, compared by value.
RENAMED = {
    "tma_dram_bound": "tma_l3_miss_bound",            # TMA 5.2: DRAM_Bound -> L3_Miss_Bound
    "tma_l1_hit_latency": "tma_l1_latency_dependency",  # TMA 5.2: L1_Hit_Latency -> L1_Latency_Dependency
}

# What differs today between tdprof and perf 6.12, each with its reason. model and
# node are fnmatch patterns (node: perf's MetricName); kind "missing": tdprof has no
# value for a node perf defines; "value": both have one and they differ by more than
# TOLERANCE; "range": perf's own value of a node is outside -0.5..100.5 %, which the
# synthetic counts are made to avoid (each event within what contains it), so that
# only a formula that is no fraction lands there. model and node hold one or more
# patterns separated by blanks, kind one or more kinds.
# min_level/max_level: the entry covers nodes of perf's levels in that range only.
# Remove an entry when the work that fixes it lands (the test fails while an entry
# matches nothing).
EXPECTED_DIFFERENCES = [
    {"model": "haswell", "node": "tma_memory_bound tma_core_bound", "kind": "value range", "max_level": 2,
     "reason": "perf 6.12's haswell tma_memory_bound, non-SMT arm of its '... if #SMT_on else ...', lacks the "
               "division of (min(CPU_CLK_UNHALTED.THREAD, CYCLE_ACTIVITY.STALLS_LDM_PENDING) + RESOURCE_STALLS.SB) "
               "by the backend-bound cycles that its SMT arm has (a perf bug); tdprof follows Intel's TMA 5.2 "
               "Memory_Bound = #Memory_Bound_Fraction x Backend_Bound, and Core_Bound = Backend - Memory"},
    {"model": "sandybridge ivybridge", "node": "tma_x87_use tma_fp_arith", "kind": "range",
     "reason": "TMA 5.2's SNB and IVB X87_Use (and perf 6.12's) is #Retired_Slots x FP_COMP_OPS_EXE.X87 / "
               "UOPS_DISPATCHED.THREAD (IVB: / UOPS_EXECUTED.THREAD) with #Retired_Slots = "
               "UOPS_RETIRED.RETIRE_SLOTS, a count, where later columns take the fraction Retiring: the value is "
               "a count of slots, not a fraction; tdprof and perf agree on it (FP_Arith adds it)"},
    {"model": "sandybridge", "node": "tma_dtlb_load", "kind": "missing",
     "reason": "TMA 5.2's SNB column has L1_Bound #NA, so tdprof leaves L1_Bound's subtree out; perf 6.12 keeps "
               "DTLB_Load (SNB cell) as a level-4 node without its parent"},
    {"model": "cascadelake icelakex sapphirerapids", "node": "tma_pmm_bound", "kind": "missing",
     "reason": "TMA 5.2 has no PMM_Bound row (Optane persistent memory; its L3_Miss_Bound takes #PMM_App_Direct, "
               "0 in tdprof); perf 6.12 (TMA 4.x) still defines it, 0 without #has_pmem"},
    {"model": "meteorlake", "node": "tma_lock_latency", "kind": "missing",
     "reason": "TMA 5.2's MTL Lock_Latency is MEM_INST_RETIRED.LOCK_LOADS x $PEBS / CLKS, with no cap to fall "
               "back to: tdprof takes ADL/RPL's LOCK_CYCLES.CACHE_LOCK_DURATION / CLKS, perf 6.12 LOCK_LOADS x "
               "LOCK_LOADS@R (retire latency) / CLKS, and neither perf's events nor its formula give tdprof a value"},
    {"model": "meteorlake", "node": "tma_ports_utilized_0 tma_ports_utilization", "kind": "value",
     "reason": "TMA 5.2's MTL Ports_Utilized_0 is max(EXE_ACTIVITY.EXE_BOUND_0_PORTS - RESOURCE_STALLS.SCOREBOARD, "
               "0) / CLKS; perf 6.12 has max((EXE_ACTIVITY.EXE_BOUND_0_PORTS + max(RS.EMPTY_RESOURCE - "
               "RESOURCE_STALLS.SCOREBOARD, 0)) / CLKS, 1) x (CYCLE_ACTIVITY.STALLS_TOTAL - "
               "EXE_ACTIVITY.BOUND_ON_LOADS) / CLKS (ADL's formula, the first factor held at 1 or more); "
               "Ports_Utilization adds it"},
    {"model": "meteorlake", "node": "tma_contested_accesses tma_dtlb_store tma_store_stlb_hit", "kind": "value",
     "reason": "TMA 5.2's MTL cells weigh these loads and stores by their retire latency, capped: X x min($PEBS, "
               "cap); perf 6.12 reads $PEBS as X@R (perf's retire-latency modifier), which tdprof does not read, "
               "so it takes the cap alone (the Core_Frequency-scaled #Mem_*_Cost, or 7 cycles): with retire "
               "latencies above the caps both agree"},
]


def perf612():
    """(perf binary, environment) of the unpacked perf 6.12, or Skip."""
    dirs = [os.environ.get("TDPROF_PERF612") or "", "/var/cache/tdprof-perf612",
            os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tdprof-perf612")]
    for d in dirs:
        perf = os.path.join(d, "root", "usr", "bin", "perf")
        if not d or not os.access(perf, os.X_OK):
            continue
        libs = [p for p in glob.glob(os.path.join(d, "root", "usr", "lib", "*-linux-gnu")) +
                glob.glob(os.path.join(d, "root", "lib", "*-linux-gnu")) if os.path.isdir(p)]
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = ":".join(libs + [env.get("LD_LIBRARY_PATH", "")]).rstrip(":")
        try:
            out = subprocess.run([perf, "--version"], capture_output=True, text=True, env=env, timeout=30).stdout
        except OSError:
            continue
        if out.startswith("perf version 6.12"):
            return perf, env
    raise tdp.Skip("perf 6.12 is not unpacked (looked in $TDPROF_PERF612, /var/cache/tdprof-perf612, "
                   "~/.cache/tdprof-perf612): run 'scripts/deps.sh perf612' (make check does)")


def perf_metrics(perf, env, cpuid):
    """perf's metrics for cpuid: {MetricName: [definition dicts]} (a hybrid CPU can
    define one name once per core type)."""
    e = dict(env)
    e["PERF_CPUID"] = cpuid
    r = subprocess.run([perf, "list", "-j", "metrics"], capture_output=True, text=True, env=e, timeout=120)
    tdp.check(r.returncode == 0, "perf list -j metrics for %s: exit %d\n%s" % (cpuid, r.returncode, r.stderr[-2000:]))
    out = {}
    for m in json.loads(r.stdout or "[]"):
        if "MetricName" in m and "MetricExpr" in m:
            # perf prints a metric once per metric group it is in: merge the groups
            defs = out.setdefault(m["MetricName"], [])
            same = [d for d in defs if d["MetricExpr"] == m["MetricExpr"]]
            if same:
                same[0]["MetricGroup"] = same[0].get("MetricGroup", "") + ";" + m.get("MetricGroup", "")
            else:
                defs.append(dict(m))
    return out


def core_pmu_of(expr):
    """'cpu_core', 'cpu_atom' or None: the hybrid PMU an expression's events name."""
    pmus = set(re.findall(r"\b(cpu_core|cpu_atom)@", expr))
    return pmus.pop() if len(pmus) == 1 else (None if not pmus else "mixed")


def select_defs(metrics, core_type, companion=None):
    """One definition per name: on a hybrid CPU, the P-core's (cpu_core) ones, or
    those that name no PMU; perf prints both core types' metrics in one list,
    without saying which is whose. A definition that names no PMU and is the
    E-core's own (the same name and expression in companion, the metrics of a CPU
    of the E-cores alone) is the E-core's (tma_resource_bound)."""
    want = "cpu_core" if core_type == "P-core" else None
    ecore = {(n, d["MetricExpr"]) for n, defs in (companion or {}).items() for d in defs}
    chosen = {}
    for name, defs in metrics.items():
        fit = [d for d in defs if core_pmu_of(d["MetricExpr"]) in (want, None) and
               not (want and core_pmu_of(d["MetricExpr"]) is None and (name, d["MetricExpr"]) in ecore)]
        fit.sort(key=lambda d: core_pmu_of(d["MetricExpr"]) is None)
        if fit:
            chosen[name] = fit[0]
    return chosen


def node_level(m):
    """perf's top-down level of a metric (TopdownL<n>, PipelineL<n>), or None."""
    levels = [int(x) for x in re.findall(r"(?:Topdown|Pipeline)L(\d)\b", m.get("MetricGroup", ""))]
    return min(levels) if levels else None


def perf_event_name(ev, hybrid):
    """The event as `perf stat` prints it: `cpu@X,cmask=1@` -> `cpu/X,cmask=1/`;
    on a hybrid CPU every core event carries its PMU (`cpu_core/cycles/`)."""
    m = re.fullmatch(r"([a-z_0-9]+)@(.*)@(.*)", ev)
    if m:
        return "%s/%s/%s" % m.groups()
    if ev == "TSC":
        return "msr/tsc/"
    if hybrid and ev not in ("duration_time",):
        return "cpu_core/%s/" % ev
    return ev


def frac(name, lo, hi):
    """A fraction in [lo, hi) that depends only on the name (reproducible counts)."""
    h = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") / 2.0 ** 64
    return lo + (hi - lo) * h


CYCLES = {"CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.THREAD_P", "CPU_CLK_UNHALTED.CORE", "CPU_CLK_UNHALTED.CORE_P",
          "CPU_CLK_UNHALTED.THREAD_ANY", "CPU_CLK_UNHALTED.DISTRIBUTED", "cycles", "cpu-cycles", "ls_not_halted_cyc"}
SLOTS = {"TOPDOWN.SLOTS", "TOPDOWN.SLOTS_P", "slots"}
# Level 1 as fractions of all slots; level 2 as fractions of their parent.
L1 = {"retiring": 0.30, "bad-spec": 0.10, "fe-bound": 0.25, "be-bound": 0.35}
L2 = {"heavy-ops": ("retiring", 0.3), "br-mispredict": ("bad-spec", 0.7), "fetch-lat": ("fe-bound", 0.6),
      "mem-bound": ("be-bound", 0.55)}


REF_TSC_HZ = 0.9e9  # the TSC's rate (#system_tsc_freq)
DURATION_S = 1.0     # the run's wall time
# perf's tool events in a metric expression are in seconds (stat-shadow.c's
# prepare_metric scales duration_time, user_time and system_time by 1e-9), while
# perf stat -x, prints them in ns.
TOOL_TIME_EVENTS = ("duration_time", "user_time", "system_time")


class Counts:
    """Synthetic counts of one run: C cycles, W x C slots, the top-down fractions
    above summing to the slots on every encoding (perf_metrics topdown-*, the
    E-cores' TOPDOWN_*.ALL, SNB-CLX's uop events, AMD's dispatch slots), children
    within their parents; any other event a reproducible fraction of the cycles."""

    def __init__(self, width):
        self.C = 1.0e9
        self.W = float(width)
        self.S = self.W * self.C

    def base(self, ev):
        C, S = self.C, self.S
        name = ev.split(":")[0]
        if name in CYCLES:
            return C
        if name in SLOTS:
            return S
        # One second of a never-halted CPU at 1 GHz whose TSC ticks at REF_TSC_HZ: the
        # TSC counts what REF_TSC does, duration_time (in ns, as perf stat prints it)
        # one second, so that Core_Frequency = cycles / REF_TSC x TSC / 1e9 / seconds
        # is C / 1e9 GHz on both sides.
        if name in ("CPU_CLK_UNHALTED.REF_TSC", "CPU_CLK_UNHALTED.REF_XCLK", "TSC", "msr/tsc/"):
            return REF_TSC_HZ * DURATION_S
        if name == "duration_time":
            return DURATION_S * 1.0e9
        m = re.fullmatch(r"topdown-(.*)", name)
        if m:
            k = m.group(1)
            if k in L1:
                return S * L1[k]
            if k in L2:
                return S * L1[L2[k][0]] * L2[k][1]
        ecore = {"TOPDOWN_RETIRING.ALL": "retiring", "TOPDOWN_BAD_SPECULATION.ALL": "bad-spec",
                 "TOPDOWN_FE_BOUND.ALL": "fe-bound", "TOPDOWN_BE_BOUND.ALL": "be-bound",
                 "TOPDOWN_RETIRING.ALL_P": "retiring", "TOPDOWN_BAD_SPECULATION.ALL_P": "bad-spec",
                 "TOPDOWN_FE_BOUND.ALL_P": "fe-bound", "TOPDOWN_BE_BOUND.ALL_P": "be-bound"}
        if name in ecore:
            return S * L1[ecore[name]]
        m = re.fullmatch(r"(TOPDOWN_(?:FE_BOUND|BE_BOUND|BAD_SPECULATION|RETIRING))\.(.*)", name)
        if m:
            return self.base(m.group(1) + ".ALL") * frac(name, 0.05, 0.3)
        # SNB-CLX level 1: FE = IDQ_UOPS_NOT_DELIVERED.CORE, retiring = RETIRE_SLOTS,
        # bad speculation = ISSUED - RETIRE_SLOTS + W x RECOVERY_CYCLES. UOPS_RETIRED.SLOTS
        # counts what topdown-retiring does, a little off as two counters are: a formula
        # that swaps one for the other is then seen.
        if name == "UOPS_RETIRED.RETIRE_SLOTS":
            return S * L1["retiring"]
        if name == "UOPS_RETIRED.SLOTS":
            return S * L1["retiring"] * 0.93
        if name == "IDQ_UOPS_NOT_DELIVERED.CORE":
            return S * L1["fe-bound"]
        if name == "UOPS_ISSUED.ANY":
            return S * (L1["retiring"] + 0.6 * L1["bad-spec"])
        if name in ("INT_MISC.RECOVERY_CYCLES", "INT_MISC.RECOVERY_CYCLES_ANY", "INT_MISC.CLEAR_RESTEER_CYCLES"):
            return S * 0.4 * L1["bad-spec"] / self.W
        # Arm (perf spells them in either case): slots of #slots per cycle, stalled or
        # issued; of the issued operations a share retires.
        arm = {"stall_slot_frontend": 0.25, "stall_slot_backend": 0.35, "stall_slot": 0.60, "op_spec": 0.40,
               "op_retired": 0.30}
        if name.lower() in arm:
            return S * arm[name.lower()]
        if name.lower() == "cpu_cycles":
            return C
        if name.lower() == "br_mis_pred":
            return C * 0.004
        if name.lower() in ("inst_retired", "inst_spec"):
            return C * 1.2
        # Without SMT one thread is always active.
        if name in ("CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "CPU_CLK_THREAD_UNHALTED.ONE_THREAD_ACTIVE"):
            return self.base("CPU_CLK_UNHALTED.REF_XCLK")
        # AMD: dispatch slots of W per cycle.
        amd = {"de_no_dispatch_per_slot.no_ops_from_frontend": 0.25, "de_no_dispatch_per_slot.backend_stalls": 0.30,
               "de_no_dispatch_per_slot.smt_contention": 0.05, "ex_ret_ops": 0.30, "de_src_op_disp.all": 0.40}
        if name in amd:
            return S * amd[name]
        if name == "ex_ret_ucode_ops":
            return S * 0.30 * 0.1
        if name == "ex_no_retire.not_complete":
            return C * 0.4
        if name == "ex_no_retire.load_not_complete":
            return C * 0.4 * 0.6
        # Stall cycles, nested: total > memory > L1D miss > L2 miss > L3 miss.
        stalls = {"STALLS_TOTAL": 0.40, "CYCLES_NO_EXECUTE": 0.40, "STALLS_MEM_ANY": 0.30, "STALLS_LDM_PENDING": 0.30,
                  "STALLS_L1D_MISS": 0.20, "STALLS_L1D_PENDING": 0.20, "STALLS_L2_MISS": 0.12,
                  "STALLS_L2_PENDING": 0.12, "STALLS_L3_MISS": 0.06, "CYCLES_MEM_ANY": 0.45,
                  "CYCLES_L1D_MISS": 0.30, "CYCLES_L2_MISS": 0.2, "CYCLES_L3_MISS": 0.1}
        m = re.fullmatch(r"CYCLE_ACTIVITY\.(.*)", name)
        if m and m.group(1) in stalls:
            return C * stalls[m.group(1)]
        # Of the stall cycles, those with no port busy, of which some wait on the
        # scoreboard (Ports_Utilized_0 takes their difference).
        if name == "EXE_ACTIVITY.EXE_BOUND_0_PORTS":
            return C * 0.12
        if name == "RESOURCE_STALLS.SCOREBOARD":
            return C * 0.04
        # Cycles with at least k uops executed, nested: 1 > 2 > 3 > 4; the RS empty.
        m = re.fullmatch(r"UOPS_EXECUTED\.CYCLES_GE_(\d)_UOPS?_EXEC", name)
        if m:
            return C * (0.75 - 0.15 * int(m.group(1)))
        if name == "RS_EVENTS.EMPTY_CYCLES":
            return C * 0.05
        # A uop source's cycles with any uop exceed those with all it can deliver.
        if re.fullmatch(r"IDQ\.(?:ALL_)?(?:DSB|MITE|MS)_CYCLES_(?:ANY|ANY_UOPS)", name):
            return C * frac(name, 0.15, 0.3)
        if re.fullmatch(r"IDQ\.(?:ALL_)?(?:DSB|MITE|MS)_CYCLES_(?:OK|\d_UOPS)", name):
            return C * frac(name, 0.02, 0.12)
        # One port dispatches at most one uop a cycle.
        if re.fullmatch(r"UOPS_(?:DISPATCHED|EXECUTED|DISPATCHED_PORT)\.PORT_?\d.*", name):
            return C * frac(name, 0.05, 0.6)
        # Rare events that formulas weigh by tens to hundreds of cycles each: a few
        # per ten thousand cycles, so that each node stays within its parent.
        if name.startswith(("LD_BLOCKS.", "LD_BLOCKS_PARTIAL.", "OFFCORE_RESPONSE.", "OCR.", "ASSISTS.",
                            "MISC_RETIRED.", "ROB_MISC_EVENTS.", "OTHER_ASSISTS.", "FP_ASSIST.")):
            return C * frac(name, 0.0001, 0.002)
        # x87 and SSE/AVX operations are a share of the uops dispatched.
        if name.startswith(("FP_COMP_OPS_EXE.", "SIMD_FP_256.")):
            return self.exact("UOPS_DISPATCHED.THREAD") * frac(name, 0.01, 0.05)
        # Outstanding offcore requests: cycles with any, more than with k or more.
        if name.startswith("OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_"):
            return C * 0.5
        # Instructions and what retires with them.
        inst = 1.2 * C
        if name in ("INST_RETIRED.ANY", "INST_RETIRED.ANY_P", "instructions"):
            return inst
        per_inst = {"BR_INST_RETIRED.ALL_BRANCHES": 0.2, "BR_MISP_RETIRED.ALL_BRANCHES": 0.01,
                    "MACHINE_CLEARS.COUNT": 0.001, "MEM_INST_RETIRED.ALL_LOADS": 0.3, "MEM_UOPS_RETIRED.ALL_LOADS": 0.3,
                    "MEM_INST_RETIRED.ALL_STORES": 0.15, "MEM_UOPS_RETIRED.ALL_STORES": 0.15,
                    "MEM_LOAD_RETIRED.L1_HIT": 0.27, "MEM_LOAD_UOPS_RETIRED.L1_HIT": 0.27,
                    "MEM_LOAD_RETIRED.L1_MISS": 0.02, "MEM_LOAD_UOPS_RETIRED.L1_MISS": 0.02,
                    "MEM_LOAD_RETIRED.FB_HIT": 0.004, "MEM_LOAD_UOPS_RETIRED.HIT_LFB": 0.004,
                    "MEM_LOAD_RETIRED.L2_HIT": 0.012, "MEM_LOAD_UOPS_RETIRED.L2_HIT": 0.012,
                    "MEM_LOAD_RETIRED.L2_MISS": 0.008, "MEM_LOAD_UOPS_RETIRED.L2_MISS": 0.008,
                    "MEM_LOAD_RETIRED.L3_HIT": 0.005, "MEM_LOAD_UOPS_RETIRED.L3_HIT": 0.005,
                    "MEM_LOAD_UOPS_RETIRED.LLC_HIT": 0.005, "MEM_LOAD_RETIRED.L3_MISS": 0.003,
                    "MEM_LOAD_UOPS_RETIRED.L3_MISS": 0.003, "MEM_LOAD_UOPS_RETIRED.LLC_MISS": 0.003}
        if name in per_inst:
            return inst * per_inst[name]
        if name == "UOPS_RETIRED.MACRO_FUSED":   # fused branches: some of the branches
            return inst * per_inst["BR_INST_RETIRED.ALL_BRANCHES"] * 0.6
        if name == "IDQ.MS_UOPS":   # microcode: a few of the heavy operations
            return S * 0.01
        for fam, parent in (("BR_MISP_RETIRED.", "BR_MISP_RETIRED.ALL_BRANCHES"),
                            ("BR_INST_RETIRED.", "BR_INST_RETIRED.ALL_BRANCHES"),
                            ("MACHINE_CLEARS.", "MACHINE_CLEARS.COUNT"),
                            ("MEM_LOAD_L3_HIT_RETIRED.", "MEM_LOAD_RETIRED.L3_HIT"),
                            ("MEM_LOAD_UOPS_L3_HIT_RETIRED.", "MEM_LOAD_UOPS_RETIRED.L3_HIT"),
                            ("MEM_LOAD_UOPS_LLC_HIT_RETIRED.", "MEM_LOAD_UOPS_RETIRED.LLC_HIT"),
                            ("MEM_LOAD_L3_MISS_RETIRED.", "MEM_LOAD_RETIRED.L3_MISS"),
                            ("MEM_LOAD_UOPS_L3_MISS_RETIRED.", "MEM_LOAD_UOPS_RETIRED.L3_MISS"),
                            ("MEM_LOAD_UOPS_LLC_MISS_RETIRED.", "MEM_LOAD_UOPS_RETIRED.LLC_MISS"),
                            ("MEM_INST_RETIRED.", "MEM_INST_RETIRED.ALL_LOADS"),
                            ("MEM_UOPS_RETIRED.", "MEM_UOPS_RETIRED.ALL_LOADS"),
                            ("MEM_LOAD_RETIRED.", "MEM_LOAD_RETIRED.L1_MISS"),
                            ("FP_ARITH_INST_RETIRED.", "INST_RETIRED.ANY"),
                            ("INST_RETIRED.", "INST_RETIRED.ANY")):
            if name.startswith(fam):
                return self.base(parent) * frac(name, 0.05, 0.3)
        if name.startswith(("UOPS_", "uops_", "IDQ.", "LSD.UOPS", "DSB", "MS_UOPS", "UOPS_DISPATCHED")):
            if "CYCLES" not in name and "STALL" not in name:
                return S * frac(name, 0.02, 0.2)
        # Occupancy (outstanding requests summed per cycle) may exceed the cycles.
        if name.startswith("OFFCORE_REQUESTS_OUTSTANDING.") and "CYCLES" not in name:
            return C * frac(name, 0.2, 2.0)
        # Anything else: cycles with a condition, or events a few per hundred cycles.
        if re.search(r"CYCLES|STALL|_ACTIVE|PENDING|ACTIVITY|_DURATION|BLOCK", name):
            return C * frac(name, 0.01, 0.2)
        return C * frac(name, 0.001, 0.05)

    def value(self, ev):
        """The count of an event as a metric expression names it: a whole number, as
        the CSV carries it, so that both sides evaluate the same counts (a formula
        whose value is itself a count, as SNB/IVB's X87_Use, which multiplies the
        count #Retired_Slots by a ratio in Intel's TMA and in perf, would otherwise
        differ by the rounding)."""
        return float("%.0f" % self.exact(ev))

    def exact(self, ev):
        m = re.fullmatch(r"([a-z_0-9]+)@(.*)@(.*)", ev)
        if m:
            terms = m.group(2).split(",")
            base = self.base(terms[0])
            cmask = [t for t in terms[1:] if t.startswith("cmask=")]
            if cmask and terms[0].startswith("OFFCORE_REQUESTS_OUTSTANDING."):
                # cycles with k or more outstanding: within those with any
                k = int(cmask[0].split("=")[1], 0)
                return self.exact("OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD") * 0.8 ** k
            if cmask:
                k = int(cmask[0].split("=")[1], 0)
                # cycles with at least k of them: within the cycles and base / k
                cyc = min(self.C, base / max(k, 1)) * (0.9 - 0.1 * min(k, 6))
                if "edge" in terms[1:] or "edge=1" in terms[1:]:
                    cyc *= 0.05
                return cyc
            if "inv" in terms[1:] or "inv=1" in terms[1:]:
                return self.C - min(self.C, base)
            if m.group(3) == "R":
                # perf's R modifier: the event's average retire latency (cycles per
                # retired instance, from PEBS), not a count
                return frac(m.group(2) + "@R", 4.0, 40.0)
            return base * (0.97 if m.group(3) else 1.0)
        return self.base(ev)


def evaluate_perf(defs, counts, events, cpuid_at_least):
    """Every metric of defs evaluated on counts; events collects the events named."""
    cache, parsed = {}, {}

    def metric(name, stack=()):
        if name in cache:
            return cache[name]
        if name in stack:
            raise perfexpr.ExprError("metric %s refers to itself" % name)
        if name not in parsed:
            parsed[name] = perfexpr.parse(defs[name]["MetricExpr"])

        def lookup(ident):
            if ident in defs:
                return metric(ident, stack + (name,))
            events.add(ident)
            if ident in TOOL_TIME_EVENTS:
                return counts.value(ident) * 1e-9
            return counts.value(ident)
        v = perfexpr.evaluate(parsed[name], lookup, literal, has_event=lambda e: True,
                              cpuid_at_least=cpuid_at_least)
        cache[name] = v
        return v

    literal = literal_of(counts)
    return metric


def literal_of(counts):
    """perf's literals on the synthetic machine: no SMT, not core-wide, 8 CPUs."""
    def literal(lit):
        table = {"#slots": counts.W, "#smt_on": 0.0, "#core_wide": 0.0, "#num_cpus": 8.0, "#num_cpus_online": 8.0,
                 "#num_cores": 8.0, "#num_dies": 1.0, "#num_packages": 1.0, "#system_tsc_freq": REF_TSC_HZ, "#has_pmem": 0.0}
        if lit.lower() not in table:  # perf reads literals case-blind (#SMT_on)
            raise perfexpr.ExprError("unknown literal %s" % lit)
        return table[lit.lower()]
    return literal


def tdprof_nodes(doc):
    """{vendor name: (value, level)} of every node of a tdprof topdown document."""
    out = {}

    def visit(n):
        if not isinstance(n, dict):
            return
        name = n.get("vendor") or n.get("vendor_metric")
        if isinstance(name, str) and "value" in n:
            out.setdefault(name, (n.get("value"), n.get("level")))
        for k in ("children", "nodes", "tree"):
            v = n.get(k)
            for c in (v if isinstance(v, list) else v.values() if isinstance(v, dict) else []):
                visit(c)
    for n in doc.get("nodes") or []:
        visit(n)
    tree = doc.get("tree")
    for n in (tree if isinstance(tree, list) else [tree] if isinstance(tree, dict) else []):
        visit(n)
    return out


def run_tdprof(path, model, extra=()):
    """tdprof's document at the deepest level it accepts (6 down to 1)."""
    last = None
    for level in range(6, 0, -1):
        r = tdp.run("topdown", "--import", path, "--cpu", model, "-l", level, "--json", *extra)
        if r.code == 0:
            return level, r.json()
        last = r
    raise AssertionError("tdprof refused the import of %s at every level:\n%r" % (path, last))


def arm_metrics(midr):
    """perf 6.12's arm64 metrics for a MIDR (None: sbsa.json's own), merged as
    jevents.py does: an ArchStdEvent entry takes sbsa.json's entry of that name
    and overrides its fields. {} when perf has no directory for the MIDR."""
    std = {m["MetricName"]: m for m in json.load(open(os.path.join(ARM_DATA, "sbsa.json"))) if "MetricName" in m}
    if midr is None:
        return dict(std)
    cpu_dir = None
    for line in open(os.path.join(ARM_DATA, "mapfile.csv")):
        f = line.strip().split(",")
        if len(f) >= 3 and f[0].startswith("0x") and (int(f[0], 16) & 0xFF0FFFF0) == (midr & 0xFF0FFFF0):
            cpu_dir = f[2]
    path = os.path.join(ARM_DATA, cpu_dir or "-", "metrics.json")
    if not cpu_dir or not os.path.exists(path):
        return {}
    out = {}
    for m in json.load(open(path)):
        name = m.get("MetricName") or m.get("ArchStdEvent")
        merged = dict(std.get(m.get("ArchStdEvent"), {}))
        merged.update({k: v for k, v in m.items() if k != "ArchStdEvent"})
        merged["MetricName"] = name
        if "MetricExpr" in merged:
            out[name] = merged
    return out


def midr_at_least(midr):
    """strcmp_cpuid_str() on arm64: the same implementer and part, and the CPU's
    variant and revision at least the argument's."""
    def test(arg):
        want = int(arg, 16)
        same = (want & 0xFF00FFF0) == (midr & 0xFF00FFF0)
        return same and ((midr >> 20) & 0xF, midr & 0xF) >= ((want >> 20) & 0xF, want & 0xF)
    return test


def m_scale(m):
    """100 for a metric perf prints in percent (ScaleUnit 100%), else 1."""
    return 100.0 if m.get("ScaleUnit", "").startswith("100") else 1.0


def compare_model(perf, env, model, d, arm=None):
    """The differences on one model: [(model, node, perf level, kind, perf, tdprof)].
    arm: (label, MIDR) of an Arm row (ARM_MIDR)."""
    if arm:
        defs = arm_metrics(arm[1])
    else:
        companion = None
        if model.get("core_type") == "P-core" and model.get("companion") in MODEL_CPUID:
            companion = perf_metrics(perf, env, MODEL_CPUID[model["companion"]])
        defs = select_defs(perf_metrics(perf, env, MODEL_CPUID[model["name"]]), model.get("core_type"), companion)
    nodes = {n: m for n, m in defs.items() if node_level(m) is not None}
    if not nodes:
        return None, []
    width = model.get("slots") or SBSA_SLOTS
    counts = Counts(width)
    events = set()
    metric = evaluate_perf(defs, counts, events, midr_at_least(arm[1]) if arm and arm[1] else lambda c: False)
    want = {}
    for name, m in sorted(nodes.items()):
        v = metric(name)
        want[name] = (v * m_scale(m), node_level(m))
    # Every event perf counts for the nodes: both arms of an if-else, but only the
    # taken one where perf knows the condition when it parses (#core_wide, #smt_on).
    def names(metric_name, seen):
        if metric_name in seen:
            return
        seen.add(metric_name)
        for ident in perfexpr.counted_ids(perfexpr.parse(defs[metric_name]["MetricExpr"]), literal_of(counts)):
            if ident in defs:
                names(ident, seen)
            elif ident not in ("if", "else"):
                events.add(ident)
    seen = set()
    for name in nodes:
        names(name, seen)
    hybrid = model.get("core_type") == "P-core"
    path = os.path.join(d, (arm[0] if arm else model["name"]) + ".csv")
    with open(path, "w") as f:
        for ev in sorted(events):
            f.write("%.0f,,%s,1000000000,100.00,,\n" % (counts.value(ev), perf_event_name(ev, hybrid)))
    level, doc = run_tdprof(path, model["name"], [] if model.get("slots") else ["--slots", width])
    got = tdprof_nodes(doc)
    diffs = []
    for name, (pv, plevel) in sorted(want.items(), key=lambda kv: (kv[1][1], kv[0])):
        tv = got.get(name, got.get(RENAMED.get(name), (None, None)))[0]
        if pv != pv:  # perf's own NaN (a division by zero perf prints as nothing)
            continue
        if not -0.5 <= pv <= 100.5 and m_scale(nodes[name]) == 100.0:
            diffs.append((model["name"], name, plevel, "range", pv, tv))
        if tv is None:
            diffs.append((model["name"], name, plevel, "missing", pv, None))
        elif abs(tv - pv) > TOLERANCE + 1e-9:
            diffs.append((model["name"], name, plevel, "value", pv, tv))
    return (len(want), level), diffs


def expected(diff):
    model, node, plevel, kind = diff[:4]
    def match(name, patterns):
        return any(fnmatch.fnmatchcase(name, p) for p in patterns.split())
    for i, e in enumerate(EXPECTED_DIFFERENCES):
        if (match(model, e["model"]) and match(node, e["node"]) and kind in e["kind"].split() and
                e.get("min_level", 1) <= plevel <= e.get("max_level", 6)):
            return i
    return None


def test_evaluator():
    perfexpr.selftest()


def check_rows(rows, minimum):
    """Compare every (model, arm row or None) of rows; fail on a difference not in
    EXPECTED_DIFFERENCES, and on an entry for these models that matched nothing."""
    perf, env = rows[0][2] if rows else (None, None)
    unexpected, used, compared, lines, labels = [], set(), 0, [], []
    # TDPROF_PERF_METRICS_KEEP=DIR keeps the CSV inputs there, to rerun tdprof by hand.
    keep = os.environ.get("TDPROF_PERF_METRICS_KEEP")
    with tempfile.TemporaryDirectory() as tmp:
        d = keep or tmp
        if keep:
            os.makedirs(keep, exist_ok=True)
        for model, arm, _ in rows:
            label = arm[0] if arm else model["name"]
            labels.append(label)
            info, diffs = compare_model(perf, env, model, d, arm)
            if info is None:
                print("note %s: perf 6.12 defines no top-down nodes for %s" % (
                    label, ("MIDR 0x%x" % arm[1]) if arm else MODEL_CPUID[model["name"]]))
                continue
            compared += info[0]
            lines.append("%-16s %3d perf nodes, tdprof -l %d, %d differ" % (label, info[0], info[1], len(diffs)))
            for diff in diffs:
                diff = (label,) + diff[1:]
                i = expected(diff)
                text = "%-16s L%d %-40s %-7s perf %8.2f tdprof %s" % (
                    diff[0], diff[2], diff[1], diff[3], diff[4], "-" if diff[5] is None else "%.2f" % diff[5])
                if i is None:
                    unexpected.append(text)
                else:
                    used.add(i)
                    lines.append("  expected: " + text)
    print("\n".join(lines))
    tdp.check(compared >= minimum, "only %d perf nodes compared: is perf 6.12's list empty?" % compared)
    stale = [e for i, e in enumerate(EXPECTED_DIFFERENCES) if i not in used and
             any(fnmatch.fnmatchcase(lb, p) for lb in labels for p in e["model"].split())]
    msg = ""
    if unexpected:
        msg += "%d nodes differ from perf 6.12 (by more than %.2f point):\n  %s\n" % (
            len(unexpected), TOLERANCE, "\n  ".join(unexpected))
    if stale:
        msg += "EXPECTED_DIFFERENCES entries that no longer match anything (remove them):\n  %s\n" % (
            "\n  ".join(json.dumps(e) for e in stale))
    tdp.check(not msg, msg)


def listed_models():
    r = tdp.run("list", "models", "--json")
    tdp.expect_exit(r, 0)
    return r.json()["models"]


def test_models_against_perf612():
    """Every x86 model against perf 6.12's own tables (PERF_CPUID)."""
    perf, env = perf612()
    rows = []
    for model in listed_models():
        if model["vendor"] == "Arm":
            continue
        tdp.check(model["name"] in MODEL_CPUID, "model %s has no row in MODEL_CPUID: add a CPU id of it" % model["name"])
        rows.append((model, None, (perf, env)))
    check_rows(rows, 100)


def test_arm_models_against_perf612_json():
    """Every Arm model against perf 6.12's arm64 JSON (tests/data/perf612-arm64)."""
    rows = []
    for model in listed_models():
        if model["vendor"] != "Arm":
            continue
        tdp.check(model["name"] in ARM_MIDR, "model %s has no row in ARM_MIDR: add its MIDR" % model["name"])
        rows += [(model, arm, (None, None)) for arm in ARM_MIDR[model["name"]]]
    check_rows(rows, 12)


if __name__ == "__main__":
    tdp.main(globals())
