"""The public harness library <tdprof/harness.h> as a user program sees it: the example
program, the shared library and its exports, the pkg-config file, the header on its own."""
import ctypes
import json
import math
import os
import platform
import re
import shutil
import subprocess
import tempfile

import tdp

EXAMPLE = os.path.join(tdp.BUILD_ROOT, "examples", "harness", "harness-example")
SHARED = os.path.join(tdp.BUILD_ROOT, "src", "harness", "libtdprof-harness.so")
UNINSTALLED_PC = os.path.join(tdp.BUILD_ROOT, "meson-uninstalled")
INCLUDE = os.path.join(tdp.SOURCE_ROOT, "include")


def cycles_errno():
    """errno of perf_event_open(cycles, user only) for this thread, 0 when it opens."""
    nr = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
    if nr is None:
        raise tdp.Skip("perf_event_open syscall number unknown for %s" % platform.machine())
    libc = ctypes.CDLL(None, use_errno=True)
    attr = (ctypes.c_uint8 * 128)()
    ctypes.c_uint32.from_buffer(attr, 4).value = 128          # size
    ctypes.c_uint64.from_buffer(attr, 40).value = (1 << 5) | (1 << 6)  # exclude_kernel, exclude_hv
    fd = libc.syscall(nr, attr, 0, -1, -1, 0)
    if fd >= 0:
        os.close(fd)
        return 0
    return ctypes.get_errno()


def sanitized():
    """True when this build's harness library is instrumented by ASan (make check-asan)."""
    if not shutil.which("nm") or not os.path.exists(SHARED):
        return False
    out = subprocess.run(["nm", "-D", "--undefined-only", SHARED], capture_output=True, text=True).stdout
    return "__asan" in out


def run_example(*args):
    if not os.path.exists(EXAMPLE):
        raise tdp.Skip("example not built: %s" % EXAMPLE)
    return subprocess.run([EXAMPLE] + list(args), capture_output=True, text=True, timeout=120)


def test_example_json_matches_machine():
    p = run_example("--json")
    tdp.check(p.returncode == 0, "example failed: %s" % p.stderr)
    results = json.loads(p.stdout)
    tdp.check([r["kernel"] for r in results] == ["sum_chain", "sum_four"], "kernels: %r" % results)
    no_pmu = cycles_errno() != 0
    for r in results:
        tdp.check(r["median_ns_per_iteration"] > 0, "median %r" % r)
        tdp.check(r["min_ns_per_iteration"] <= r["median_ns_per_iteration"] <= r["max_ns_per_iteration"],
                  "min <= median <= max: %r" % r)
        tdp.check(r["repetitions"] == 31 and r["iterations"] >= 1, "defaults: %r" % r)
        tdp.check(isinstance(r["cpu"], int), "pinned by default: %r" % r)
        if no_pmu:
            # No hardware PMU: time only, and the note says why.
            tdp.check(r["method"] == "clock", "method %r" % r["method"])
            tdp.check(r["counters"] is None and r["level1"] is None, "counters must be null: %r" % r)
            tdp.check("no hardware PMU" in r["notes"][0], "note: %r" % r["notes"])
        else:
            tdp.check(r["method"] in ("rdpmc", "read"), "method %r" % r["method"])
            tdp.check(r["counters"]["instructions"]["median"] > 4096, "instructions: %r" % r["counters"])


def test_example_speedup_is_real():
    # Summing 4096 doubles in one chain waits one FP-add latency (3-4 cycles) per element;
    # four chains overlap: any out-of-order core runs them about 3-4x faster. The size of
    # the speed-up is a benchmark figure (bench/); here only its direction is checked.
    if sanitized():
        raise tdp.Skip("the example's loads are instrumented by ASan here: it measures the checks")
    p = run_example("--json")
    tdp.check(p.returncode == 0, "example failed: %s" % p.stderr)
    chain, four = json.loads(p.stdout)
    speedup = chain["median_ns_per_iteration"] / four["median_ns_per_iteration"]
    print("sum_chain %.1f ns, sum_four %.1f ns, speed-up %.2fx" % (
        chain["median_ns_per_iteration"], four["median_ns_per_iteration"], speedup))
    tdp.check(speedup > 1.0, "four chains are faster than one: speed-up %.2f" % speedup)


def test_shared_library_exports_only_tdp():
    if not shutil.which("nm"):
        raise tdp.Skip("nm not installed")
    if not os.path.exists(SHARED):
        raise tdp.Skip("shared library not built: %s" % SHARED)
    out = subprocess.run(["nm", "-D", "--defined-only", SHARED], capture_output=True, text=True).stdout
    names = [line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()]
    names = [n for n in names if n != "TDPROF_HARNESS_0"]
    tdp.check(names, "no exported symbols")
    bad = [n for n in names if not n.startswith("tdp_harness_")]
    tdp.check(not bad, "exported non-API symbols: %r" % bad)
    # every function <tdprof/harness.h> declares is exported (a declaration without
    # TDP_HARNESS_API is hidden by -fvisibility=hidden, and a user's link fails)
    with open(os.path.join(INCLUDE, "tdprof", "harness.h")) as f:
        declared = set(re.findall(r"\b(tdp_harness_[a-z_]+)\s*\(", re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)))
    declared.discard("tdp_harness_log_fn")  # a function type, not a function
    tdp.check(len(declared) >= 10, "functions declared in harness.h: %r" % sorted(declared))
    missing = sorted(declared - set(names))
    tdp.check(not missing, "declared in harness.h but not exported: %r" % missing)


USER_PROGRAM = r"""
#include <tdprof/harness.h>
#include <stdio.h>
static void spin(void *arg, uint64_t n) { volatile uint64_t *x = arg; for (uint64_t i = 0; i < n; i++) *x += i; }
int main(void)
{
    volatile uint64_t x = 0;
    struct tdp_harness_kernel k = { "spin", spin, NULL, NULL, NULL, (void *)&x };
    struct tdp_harness_config cfg;
    struct tdp_harness_result r;
    char err[256], buf[8192];
    struct tdp_harness *h;

    tdp_harness_config_init(&cfg);
    cfg.repetitions = 5;
    cfg.target_seconds = 0.002;
    if (tdp_harness_measure(&k, &cfg, &r, err, sizeof(err))) { fprintf(stderr, "%s\n", err); return 1; }
    tdp_harness_format_json(&r, buf, sizeof(buf));
    fputs(buf, stdout);
    /* the rest of the API, as a user calls it */
    if (tdp_harness_open(&h, &cfg, err, sizeof(err))) { fprintf(stderr, "%s\n", err); return 1; }
    fprintf(stderr, "method %s, clock %s, error '%s'\n", tdp_harness_method_name(tdp_harness_method(h)),
            tdp_harness_clock_name(r.clock), tdp_harness_error(h));
    tdp_harness_close(h);
    return 0;
}
"""


def test_pkgconfig_and_shared_library():
    if not shutil.which("pkg-config"):
        raise tdp.Skip("pkg-config not installed")
    if not os.path.exists(os.path.join(UNINSTALLED_PC, "tdprof-harness-uninstalled.pc")):
        raise tdp.Skip("no uninstalled pkg-config file in %s" % UNINSTALLED_PC)
    env = dict(os.environ, PKG_CONFIG_PATH=UNINSTALLED_PC)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tdprof-harness"], capture_output=True,
                           text=True, env=env)
    tdp.check(flags.returncode == 0, "pkg-config: %s" % flags.stderr)
    tdp.check("-ltdprof-harness" in flags.stdout, "libs: %r" % flags.stdout)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "user.c")
        exe = os.path.join(d, "user")
        with open(src, "w") as f:
            f.write(USER_PROGRAM)
        extra = []
        if sanitized():
            extra = ["-fsanitize=address,undefined"]  # a sanitized build's library needs the runtime
        cc = subprocess.run(["cc", "-O2", src, "-o", exe] + flags.stdout.split() + extra, capture_output=True,
                            text=True)
        tdp.check(cc.returncode == 0, "cannot build against the .pc file: %s" % cc.stderr)
        ldd = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
        tdp.check("libtdprof-harness.so" in ldd, "not linked to the shared library: %s" % ldd)
        env["LD_LIBRARY_PATH"] = os.path.dirname(SHARED)
        env.pop("LD_PRELOAD", None)
        p = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=60)
        tdp.check(p.returncode == 0, "user program failed: %s" % p.stderr)
        r = json.loads(p.stdout)
        tdp.check(r["kernel"] == "spin" and r["repetitions"] == 5, "result: %r" % r)
        tdp.check(math.isfinite(r["median_ns_per_iteration"]), "median: %r" % r)
        tdp.check(re.search(r"method (rdpmc|read|clock), clock (tsc|monotonic_raw), error ''", p.stderr),
                  "the names and the error of the API: %r" % p.stderr)


def test_installed_tree_builds_and_runs_a_user_program():
    """`make install PREFIX=...` as a user has it: the harness library built against through
    the installed pkg-config file and run, and the documents the outputs cite (the
    simulated machine, the knowledge base, the JSON schemas) installed beside it."""
    if not shutil.which("pkg-config") or not shutil.which("meson"):
        raise tdp.Skip("pkg-config or meson not installed")
    if sanitized():
        raise tdp.Skip("a sanitized build's library needs the sanitizer runtime in the user's program")
    with tempfile.TemporaryDirectory() as d:
        dest = os.path.join(d, "root")
        p = subprocess.run(["meson", "install", "-C", tdp.BUILD_ROOT, "--no-rebuild", "--quiet", "--destdir", dest],
                           capture_output=True, text=True, timeout=300)
        tdp.check(p.returncode == 0, "meson install --destdir: %s%s" % (p.stdout[-2000:], p.stderr[-2000:]))
        pcs = [os.path.join(r, f) for r, _, fs in os.walk(dest) for f in fs if f == "tdprof-harness.pc"]
        tdp.check(len(pcs) == 1, "one installed tdprof-harness.pc: %r" % pcs)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]), PKG_CONFIG_SYSROOT_DIR=dest)
        env.pop("PKG_CONFIG_LIBDIR", None)
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tdprof-harness"], capture_output=True,
                               text=True, env=env)
        tdp.check(flags.returncode == 0 and dest in flags.stdout, "installed pkg-config: %r %s" % (
            flags.stdout, flags.stderr))
        src, exe = os.path.join(d, "user.c"), os.path.join(d, "user")
        with open(src, "w") as f:
            f.write(USER_PROGRAM)
        cc = subprocess.run(["cc", "-O2", src, "-o", exe] + flags.stdout.split(), capture_output=True, text=True)
        tdp.check(cc.returncode == 0, "cannot build against the installed library: %s" % cc.stderr)
        libdir = [a[2:] for a in flags.stdout.split() if a.startswith("-L")][0]
        run_env = dict(os.environ, LD_LIBRARY_PATH=libdir)
        run_env.pop("LD_PRELOAD", None)
        r = subprocess.run([exe], capture_output=True, text=True, env=run_env, timeout=60)
        tdp.check(r.returncode == 0, "the user program failed: %s" % r.stderr)
        tdp.check(json.loads(r.stdout)["kernel"] == "spin", "its result: %r" % r.stdout[:300])
        ldd = subprocess.run(["ldd", exe], capture_output=True, text=True, env=run_env).stdout
        tdp.check(libdir in ldd, "linked to the installed library: %s" % ldd)
        # the documents, byte for byte the ones in docs/
        share = [os.path.join(r, "share") for r, ds, _ in os.walk(dest) if "share" in ds][0]
        for rel, src_rel in (("doc/tdprof/sim-machine.md", "docs/sim-machine.md"),
                             ("doc/tdprof/tma-diagnosis-actions.md", "docs/tma-diagnosis-actions.md")):
            with open(os.path.join(share, rel), "rb") as a, open(os.path.join(tdp.SOURCE_ROOT, src_rel), "rb") as b:
                tdp.check(a.read() == b.read(), "installed %s is docs' copy" % rel)
        tdp.check(os.path.exists(os.path.join(share, "tdprof", "SKILL.md")), "share/tdprof/SKILL.md installed")
        schemas = os.path.join(tdp.SOURCE_ROOT, "docs", "json")
        for name in os.listdir(schemas):
            if name.endswith(".schema.json"):
                inst = os.path.join(share, "tdprof", "schemas", name)
                tdp.check(os.path.exists(inst), "schema %s installed in share/tdprof/schemas" % name)


def test_header_compiles_alone():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "h.c")
        with open(src, "w") as f:
            f.write("#include <tdprof/harness.h>\nint main(void) { return TDP_HARNESS_NR_COUNTERS != 3; }\n")
        for std in ("-std=c99", "-std=c11", "-std=c17"):
            p = subprocess.run(["cc", std, "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", INCLUDE, "-fsyntax-only",
                                src], capture_output=True, text=True)
            tdp.check(p.returncode == 0, "harness.h with %s: %s" % (std, p.stderr))
        if shutil.which("g++"):
            p = subprocess.run(["g++", "-x", "c++", "-Wall", "-Wextra", "-Werror", "-I", INCLUDE, "-fsyntax-only",
                                src], capture_output=True, text=True)
            tdp.check(p.returncode == 0, "harness.h as C++: %s" % p.stderr)


tdp.main(globals())
