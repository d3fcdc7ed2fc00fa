"""tdprof info: what this machine is and can measure, in text and JSON, and --sysfs snapshots.

Expected values come from sources independent of tdprof: /proc/cpuinfo (vendor, family, model,
the "hypervisor" flag), the kernel's PMU directory (a core PMU present or not), and the fake
trees built here, whose contents mirror what real kernels expose.
"""
import json
import os
import shutil
import tempfile

import tdp

PMU_DIR = "/sys/bus/event_source/devices"


def cpuinfo():
    """The first processor's fields from /proc/cpuinfo."""
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                if fields:
                    break
                continue
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    return fields


def has_core_pmu():
    if not os.path.isdir(PMU_DIR):
        return False
    return any(n in ("cpu", "cpu_core", "cpu_atom") or n.startswith(("armv8_", "armv9_"))
               for n in os.listdir(PMU_DIR))


def test_text_describes_this_machine():
    ci = cpuinfo()
    r = tdp.run("info")
    tdp.expect_exit(r, 0)
    if "vendor_id" in ci:
        tdp.expect_in("vendor                %s" % ci["vendor_id"], r.out, "stdout", r)
        tdp.expect_in("family/model/stepping %s/%s/" % (ci["cpu family"], ci["model"]), r.out, "stdout", r)
    if ci.get("vendor_id") == "AuthenticAMD" and ci.get("cpu family") == "25" and ci.get("model") == "17":
        # AMD family 19h model 11h is Genoa: Zen 4 (Linux amd.c: models 0x10-0x1f are ZEN4)
        tdp.expect_in("micro-architecture    zen4", r.out, "stdout", r)
        tdp.expect_in("model                 zen4", r.out, "stdout", r)
    if "hypervisor" in ci.get("flags", "").split():
        tdp.expect_in("hypervisor            yes", r.out, "stdout", r)
    for section in ("CPU\n", "\nPMUs (", "\nPermissions\n", "\nHardware events\n", "\nVirtualization\n",
                    "\nTop-down model\n", "\nBranch recording\n", "\nBackend\n"):
        tdp.expect_in(section, r.out, "stdout", r)
    tdp.expect_in("perf_event_paranoid   %s:" % open("/proc/sys/kernel/perf_event_paranoid").read().strip(),
                  r.out, "stdout", r)
    if not has_core_pmu():
        tdp.expect_in("open                  no\n", r.out, "stdout", r)
        tdp.expect_in("why                   no hardware PMU is exposed to this machine", r.out, "stdout", r)
        tdp.expect_in("--backend=auto        sim", r.out, "stdout", r)
        if "hypervisor" in ci.get("flags", "").split():
            tdp.expect_in("(virtual machine without PMU passthrough", r.out, "stdout", r)
    tdp.check(r.err == "", "nothing on stderr", r)


def test_json_describes_this_machine():
    ci = cpuinfo()
    r = tdp.run("info", "--json")
    tdp.expect_exit(r, 0)
    d = r.json()
    for key in ("cpu", "pmus", "perf_event_paranoid", "paranoid_meaning", "privileged", "nmi_watchdog",
                "hardware_events_open", "hardware_events_error", "virtualization", "topdown",
                "branch_recording", "backend"):
        tdp.check(key in d, "key %r in the document" % key, r)
    for key in ("vendor", "family", "model", "stepping", "midr", "brand", "uarch", "hybrid", "core_types",
                "smt", "cpus_online", "gp_counters", "fixed_counters"):
        tdp.check(key in d["cpu"], "key cpu.%s" % key, r)
    if "vendor_id" in ci:
        tdp.check(d["cpu"]["vendor"] == ci["vendor_id"], "vendor", r)
        tdp.check(d["cpu"]["family"] == int(ci["cpu family"]), "family", r)
        tdp.check(d["cpu"]["model"] == int(ci["model"]), "model", r)
        tdp.check(d["cpu"]["midr"] is None, "no MIDR on x86", r)
    if ci.get("vendor_id") == "AuthenticAMD" and ci.get("cpu family") == "25" and ci.get("model") == "17":
        tdp.check(d["cpu"]["uarch"] == "zen4", "uarch zen4", r)
        tdp.check(d["topdown"]["model"] == "zen4", "top-down model zen4", r)
    tdp.check(d["cpu"]["cpus_online"] == os.sysconf("SC_NPROCESSORS_ONLN"), "cpus_online", r)
    tdp.check(d["perf_event_paranoid"] == int(open("/proc/sys/kernel/perf_event_paranoid").read()),
              "perf_event_paranoid", r)
    names = sorted(p["name"] for p in d["pmus"])
    tdp.check(names == sorted(os.listdir(PMU_DIR)), "pmus %r match %s" % (names, PMU_DIR), r)
    for p in d["pmus"]:
        with open(os.path.join(PMU_DIR, p["name"], "type")) as f:
            tdp.check(p["type"] == int(f.read()), "type of %s" % p["name"], r)
    if "hypervisor" in ci.get("flags", "").split():
        tdp.check(d["virtualization"]["hypervisor"] is True, "hypervisor present", r)
    if not has_core_pmu():
        tdp.check(d["hardware_events_open"] is False, "hardware events do not open", r)
        tdp.check("no hardware PMU is exposed to this machine" in d["hardware_events_error"],
                  "hardware_events_error says why", r)
        tdp.check(d["backend"] == "sim", "backend sim", r)
        tdp.check(d["branch_recording"]["facility"] is None, "no branch recording", r)
        tdp.check(d["cpu"]["gp_counters"] == 0, "no counters without a core PMU", r)
    else:
        tdp.check(d["backend"] == ("pmu" if d["hardware_events_open"] else "sim"), "backend follows the probe", r)
    tdp.check(tdp.no_pmu() == (not d["hardware_events_open"]), "tdp.no_pmu() agrees", r)


def test_sysfs_missing_dir_is_usage_error():
    missing = os.path.join(tempfile.gettempdir(), "tdprof-no-such-sysfs-%d" % os.getpid())
    r = tdp.run("info", "--sysfs", missing)
    tdp.expect_exit(r, 2)
    tdp.expect_in("tdprof: error: cannot read sysfs tree '%s': no such directory" % missing, r.err, "stderr", r)
    tdp.check(r.out == "", "nothing on stdout", r)


def test_sysfs_not_a_sysfs_tree():
    d = tempfile.mkdtemp(prefix="tdprof-info-")
    try:
        r = tdp.run("info", "--sysfs", d)
        tdp.expect_exit(r, 2)
        tdp.expect_in("is not a sysfs tree", r.err, "stderr", r)
        tdp.expect_in("tdprof: hint: pass the root of a copy of /sys", r.err, "stderr", r)
    finally:
        shutil.rmtree(d)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def icelakex_snapshot(root):
    """An Ice Lake-SP (family 6 model 106 = 0x6A, ICELAKE_X in intel-family.h) as its kernel shows it."""
    sysfs, procfs = os.path.join(root, "sys"), os.path.join(root, "proc")
    write(sysfs, "devices/system/cpu/online", "0-79\n")
    write(sysfs, "devices/system/cpu/smt/active", "1\n")
    cpu = "bus/event_source/devices/cpu/"
    write(sysfs, cpu + "type", "4\n")
    write(sysfs, cpu + "caps/pmu_name", "icelake\n")
    write(sysfs, cpu + "caps/max_precise", "3\n")
    write(sysfs, cpu + "caps/branches", "32\n")
    write(sysfs, cpu + "format/event", "config:0-7\n")
    write(sysfs, cpu + "format/umask", "config:8-15\n")
    write(sysfs, cpu + "events/slots", "event=0x00,umask=0x4\n")
    write(sysfs, cpu + "events/topdown-retiring", "event=0x00,umask=0x80\n")
    write(sysfs, "bus/event_source/devices/software/type", "1\n")
    write(procfs, "cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\n"
          "model name\t: Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz\nstepping\t: 6\nflags\t\t: fpu\n")
    write(procfs, "sys/kernel/perf_event_paranoid", "1\n")
    write(procfs, "sys/kernel/nmi_watchdog", "1\n")
    return sysfs, procfs


def neoverse_n1_snapshot(root):
    """An Arm Neoverse N1 (MIDR implementer 0x41, part 0xd0c: arm64 cputype.h) with its PMU."""
    sysfs, procfs = os.path.join(root, "sys"), os.path.join(root, "proc")
    write(sysfs, "devices/system/cpu/online", "0-3\n")
    for n in range(4):
        write(sysfs, "devices/system/cpu/cpu%d/regs/identification/midr_el1" % n, "0x00000000413fd0c1\n")
    pmu = "bus/event_source/devices/armv8_pmuv3_0/"
    write(sysfs, pmu + "type", "8\n")
    write(sysfs, pmu + "format/event", "config:0-15\n")
    write(sysfs, pmu + "events/stall_frontend", "event=0x0023\n")
    write(sysfs, "bus/event_source/devices/software/type", "1\n")
    write(procfs, "sys/kernel/perf_event_paranoid", "1\n")
    return sysfs, procfs


def test_snapshot_cycle_accounting_model_is_stated():
    root = tempfile.mkdtemp(prefix="tdprof-info-")
    try:
        sysfs, procfs = neoverse_n1_snapshot(root)
        r = tdp.run("info", "--json", "--sysfs", sysfs, "--procfs", procfs)
        tdp.expect_exit(r, 0)
        d = r.json()
        tdp.check(d["cpu"]["uarch"] == "neoverse-n1", "uarch neoverse-n1", r)
        tdp.check(d["topdown"]["model"] == "neoverse-n1", "top-down model from the registry", r)
        tdp.expect_in("cycle accounting only", d["topdown"]["reason"], "topdown.reason", r)
    finally:
        shutil.rmtree(root)


def test_sysfs_snapshot_json():
    root = tempfile.mkdtemp(prefix="tdprof-info-")
    try:
        sysfs, procfs = icelakex_snapshot(root)
        r = tdp.run("info", "--json", "--sysfs", sysfs, "--procfs", procfs)
        tdp.expect_exit(r, 0)
        d = r.json()
        tdp.check(d["source"]["live"] is False, "a snapshot", r)
        tdp.check(d["cpu"]["vendor"] == "GenuineIntel" and d["cpu"]["model"] == 106, "identity", r)
        tdp.check(d["cpu"]["uarch"] == "icelakex", "uarch icelakex", r)
        tdp.check(d["topdown"]["model"] == "icelakex", "top-down model", r)
        tdp.check(d["cpu"]["cpus_online"] == 80 and d["cpu"]["smt"] is True, "cpus and smt", r)
        tdp.check(d["cpu"]["gp_counters"] is None, "counters unknown in a snapshot", r)
        tdp.check([p["name"] for p in d["pmus"]] == ["cpu", "software"], "pmus", r)
        cpu = d["pmus"][0]
        tdp.check(cpu["caps"] == {"branches": 32, "max_precise": 3, "pmu_name": "icelake"}, "caps", r)
        tdp.check(cpu["events"] == 2, "two aliases", r)
        tdp.check(cpu["format"] == [{"name": "event", "value": "config:0-7"},
                                    {"name": "umask", "value": "config:8-15"}], "format", r)
        tdp.check(d["branch_recording"]["facility"] == "lbr" and d["branch_recording"]["depth"] == 32, "LBR", r)
        tdp.check(d["perf_event_paranoid"] == 1 and d["nmi_watchdog"] is True, "permissions", r)
        tdp.check(d["privileged"] is None, "credentials are not part of a snapshot", r)
        tdp.check(d["hardware_events_open"] is False and "not probed" in d["hardware_events_error"], "probe", r)
        tdp.check(d["virtualization"]["hypervisor"] is False, "no hypervisor flag", r)
        tdp.check(d["backend"] == "sim", "backend", r)
        # text mode says it is a snapshot
        r = tdp.run("info", "--sysfs", sysfs, "--procfs", procfs)
        tdp.expect_exit(r, 0)
        tdp.check(r.out.startswith("Snapshot of another machine"), "snapshot banner", r)
        tdp.expect_in("facility              lbr, depth 32, PMU cpu", r.out, "stdout", r)
        tdp.expect_in("NMI watchdog          on (on x86 it holds one hardware counter", r.out, "stdout", r)
    finally:
        shutil.rmtree(root)


def test_output_file():
    d = tempfile.mkdtemp(prefix="tdprof-info-")
    try:
        out = os.path.join(d, "info.json")
        r = tdp.run("info", "--json", "-o", out)
        tdp.expect_exit(r, 0)
        tdp.check(r.out == "", "nothing on stdout with -o", r)
        with open(out) as f:
            doc = json.load(f)
        tdp.check(doc["backend"] in ("pmu", "sim"), "the file holds the document", r)
        r = tdp.run("info", "-o", os.path.join(d, "no", "such", "dir", "x"))
        tdp.expect_exit(r, 2)
        tdp.expect_in("cannot open '%s' for writing" % os.path.join(d, "no", "such", "dir", "x"), r.err,
                      "stderr", r)
    finally:
        shutil.rmtree(d)


def test_usage_errors():
    r = tdp.run("info", "extra")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'info' takes no arguments ('extra')", r.err, "stderr", r)
    tdp.expect_in("tdprof: try 'tdprof info --help'", r.err, "stderr", r)
    r = tdp.run("info", "--frobnicate")
    tdp.expect_exit(r, 2)
    r = tdp.run("info", "--help")
    tdp.expect_exit(r, 0)
    tdp.expect_in("--sysfs", r.out, "stdout", r)


tdp.main(globals())
