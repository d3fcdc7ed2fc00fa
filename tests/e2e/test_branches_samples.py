"""`tdprof branches report` on plain samples (issue 20, item 6): a recording without
branch stacks (`tdprof branches record -e cpu-clock`, `perf record -e cpu-clock -g`)
gives hot functions, hot source lines and, with call chains, folded stacks.

Oracles: perf 6.1 on the same file. `perf report --stdio --sort sym --no-children
-F sample,sym` for the functions and their sample counts, `--sort srcline` for the
program's source lines, and `perf script -F
comm,ip,sym,dso` folded as stackcollapse-perf.pl folds it for --folded. The
program sampled is compiled here with -g and frame pointers, so that its call
chains and lines are known: main -> outer -> hot_a (about 3/4 of the time) and
hot_b (1/4). Skips without perf or a C compiler, or when cpu-clock cannot be
recorded.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import tdp  # noqa: E402

TMP = tempfile.mkdtemp(prefix="tdprof-samples-")
PROG_C = r"""
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void hot_a(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
}
__attribute__((noinline)) static void hot_b(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	sink += x;
}
__attribute__((noinline)) static void outer(unsigned long n)
{
	hot_a(3 * n);
	hot_b(n);
}
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	for (int r = 0; r < 20; r++)
		outer(n);
	return 0;
}
"""
_prog = None


def prog():
    global _prog
    if _prog:
        return _prog
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc or not shutil.which("perf"):
        raise tdp.Skip("needs perf and a C compiler")
    src, exe = os.path.join(TMP, "prog.c"), os.path.join(TMP, "prog")
    with open(src, "w") as f:
        f.write(PROG_C)
    subprocess.run([cc, "-O0", "-g", "-fno-omit-frame-pointer", "-o", exe, src], check=True)
    _prog = exe
    return exe


ARG = "1500000"  # about 0.3 s of CPU at -O0


def perf_record(name, *extra):
    path = os.path.join(TMP, name)
    r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-o", path] + list(extra) + ["--", prog(), ARG],
                       capture_output=True, timeout=300)
    if r.returncode != 0:
        raise tdp.Skip("perf record -e cpu-clock failed here: %s" % r.stderr.decode()[-300:])
    return path


def perf_functions(path):
    """{perf's symbol text: samples} from perf report --sort sym --no-children."""
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "--sort", "sym", "--no-children",
                          "-F", "sample,sym"], capture_output=True, text=True, timeout=300).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r"^\s*(\d+)\s+(\[.\] .*?)\s*$", line)
        if m:
            rows[m.group(2)] = rows.get(m.group(2), 0) + int(m.group(1))
    tdp.check(rows, "perf report printed no rows:\n" + out[-2000:])
    return rows


def perf_folded(path):
    """perf script's samples folded as stackcollapse-perf.pl does: {comm;outer;...;inner: samples}.
    A frame in the vDSO is "[unknown]": perf names it from its own copy of the vDSO, which
    tdprof does not read."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "comm,ip,sym,dso"], capture_output=True,
                         text=True, timeout=300).stdout
    folded = collections.Counter()
    comm, frames = None, []
    for line in out.splitlines() + [""]:
        if not line.strip():
            if comm is not None:
                folded[";".join([comm] + frames[::-1])] += 1
            comm, frames = None, []
        elif not line[0].isspace():
            comm = line.split()[0]
        else:
            m = re.match(r"^\s*[0-9a-f]+ (.*) \((.*)\)$", line)
            tdp.check(m, "perf script line: %r" % line)
            sym, dso = m.group(1), m.group(2)
            sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
            frames.append("[unknown]" if dso == "[vdso]" else sym)
    return folded


def from_main(folded):
    """Folded stacks cut to "comm;main;...;inner" (stacks without main: "comm;(outside main)")."""
    out = collections.Counter()
    for stack, n in folded.items():
        frames = stack.split(";")
        at = frames.index("main") if "main" in frames else None
        out[";".join([frames[0]] + (frames[at:] if at is not None else ["(outside main)"]))] += n
    return out


def exec_as_one(folded):
    """Folded stacks with perf's pre-exec name of the workload ("perf-exec") read as its own."""
    out = collections.Counter()
    for stack, n in folded.items():
        comm, _, rest = stack.partition(";")
        out[("prog" if comm == "perf-exec" else comm) + (";" + rest if rest else "")] += n
    return out


def report(path, *extra):
    r = tdp.run("branches", "report", "-i", path, *extra)
    tdp.expect_exit(r, 0)
    return r


def check_functions(j, perf_rows):
    ours = {f["symbol"]: f["self"] for f in j["functions"]}
    total = sum(perf_rows.values())
    tdp.check(j["samples"] == total, "samples %d, perf report %d" % (j["samples"], total))
    top = max(perf_rows, key=perf_rows.get)
    tdp.check(j["functions"][0]["symbol"] == top and j["functions"][0]["self"] == perf_rows[top],
              "top function %r, perf's %r %d" % (j["functions"][0], top, perf_rows[top]))
    same = [k for k in perf_rows if k in ours]
    for k in same:
        tdp.check(ours[k] == perf_rows[k], "%s: %d samples, perf report %d" % (k, ours[k], perf_rows[k]))
    # every row perf names, tdprof names alike, except perf's own vDSO copy's
    named = sum(perf_rows[k] for k in same)
    tdp.check(named >= 0.95 * total, "only %d of %d samples in rows named as perf names them" % (named, total))
    tdp.check(perf_rows.get("[.] hot_a", 0) > perf_rows.get("[.] hot_b", 0) > 0, "hot_a and hot_b: %r" % perf_rows)


def perf_lines(path):
    """{line: samples} of prog.c from perf report --sort srcline --no-children."""
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "--sort", "srcline", "--no-children",
                          "-F", "sample,srcline"], capture_output=True, text=True, timeout=300).stdout
    return {int(m.group(2)): int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s+prog\.c:(\d+)\s*$", out, re.M)}


def check_lines(j, path):
    src = [ln for ln in j["lines"] if ln["file"].endswith("prog.c")]
    tdp.check(src, "no lines of prog.c: %r" % j["lines"][:5])
    want = perf_lines(path)
    got = {ln["line"]: ln["samples"] for ln in src}
    tdp.check(got == want, "lines of prog.c %r, perf report --sort srcline %r" % (got, want))
    self_prog = sum(f["self"] for f in j["functions"] if f["dso"] and f["dso"].endswith("/prog"))
    tdp.check(sum(ln["samples"] for ln in src) == self_prog,
              "lines of prog.c %d samples, its functions %d" % (sum(ln["samples"] for ln in src), self_prog))
    # ranked as perf ranks them (hot_b's one line can outweigh either of hot_a's two: no
    # function is pinned, a sampling tie may fall either way)
    tdp.check(src[0]["samples"] == max(want.values()), "hottest line %r, perf's %r" % (src[0], want))


def test_tdprof_recording():
    out = os.path.join(TMP, "td.data")
    r = tdp.run("branches", "record", "-e", "cpu-clock", "-o", out, "--", prog(), ARG, timeout=300)
    if r.code != 0:
        raise tdp.Skip("tdprof branches record -e cpu-clock failed here: %s" % r.err[-300:])
    j = report(out, "--json", "-n", "0").json()
    tdp.check(j["mode"] == "samples" and j["backend"] == "pmu" and j["event"] == "cpu-clock", "header %r" % j)
    tdp.check(not j["callchains"] and j["stacks"] is None, "no call chains were recorded: %r" % j["stacks"])
    check_functions(j, perf_functions(out))
    check_lines(j, out)
    t = report(out).out
    tdp.expect_in("Hot functions", t, "the text report")
    tdp.expect_in("[.] hot_a", t, "the text report")
    tdp.expect_in("call chains: not recorded", t, "the text report")
    # without chains, each sample folds to its function
    folded = dict(ln.rsplit(" ", 1) for ln in report(out, "--folded").out.splitlines())
    tdp.check(int(folded.get("prog;hot_a", 0)) == next(f["self"] for f in j["functions"] if f["symbol"] == "[.] hot_a"),
              "folded prog;hot_a: %r" % list(folded.items())[:5])
    csv = report(out, "--csv").out.splitlines()
    tdp.check(csv[0] == "symbol,function,dso,self,self_share,total,total_share" and csv[1].startswith("[.] hot_a,"),
              "csv: %r" % csv[:2])


def test_perf_recording_with_callchains():
    path = perf_record("g.data", "-g")
    j = report(path, "--json", "-n", "0").json()
    tdp.check(j["mode"] == "samples" and j["backend"] == "import" and j["callchains"], "header %r" % j)
    tdp.check(j["samples_with_callchain"] == j["samples"], "samples with a chain: %d of %d" % (
        j["samples_with_callchain"], j["samples"]))
    check_functions(j, perf_functions(path))
    check_lines(j, path)
    ours = collections.Counter()
    for line in report(path, "--folded").out.splitlines():
        stack, n = line.rsplit(" ", 1)
        ours[stack] += int(n)
    # a function's total is the samples whose chain holds it: outer's holds nearly all of hot_a's
    # and hot_b's (not a sample in their prologue, before the frame pointer is pushed: the chain
    # then skips the caller, in perf's report too)
    fn = {f["symbol"]: f for f in j["functions"]}
    for name in ("outer", "main"):
        under = sum(n for stack, n in ours.items() if name in stack.split(";")[1:])
        tdp.check(fn["[.] " + name]["total"] == under, "%s total %r, %d samples in its stacks" % (
            name, fn["[.] " + name], under))
    tdp.check(fn["[.] outer"]["total"] >= 0.95 * (fn["[.] hot_a"]["self"] + fn["[.] hot_b"]["self"]),
              "outer total %r" % fn["[.] outer"])
    tdp.check(fn["[.] main"]["total"] >= fn["[.] outer"]["total"], "main total %r" % fn["[.] main"])
    want = perf_folded(path)
    tdp.check(sum(ours.values()) == sum(want.values()) == j["samples"], "folded totals %d, perf %d" % (
        sum(ours.values()), sum(want.values())))
    # Below main every frame is the program's or the kernel's, which both name alike; above it
    # (libc's start code, ld.so's) perf reads symbols tdprof's symbol module may not (libc6-dbg,
    # ld.so's local labels): there, compare how many samples, not the names.
    # Around the exec, which name a sample has ("perf-exec" before, "prog" after) depends on the
    # order perf processes records in, which a VM's disagreeing vCPU clocks move (unit-tested in
    # test-ips.c: names_by_time, names_by_flush): here the two names count as one process's.
    ours_m, want_m = from_main(exec_as_one(ours)), from_main(exec_as_one(want))
    diff = {k: (ours_m.get(k, 0), want_m.get(k, 0)) for k in set(ours_m) | set(want_m)
            if ours_m.get(k, 0) != want_m.get(k, 0)}
    tdp.check(not diff, "folded stacks differ from perf script's: %r" % sorted(diff.items())[:10])
    tdp.check(sum(ours_m.values()) >= 0.95 * j["samples"], "%d of %d samples under main" % (
        sum(ours_m.values()), j["samples"]))
    top = max(want_m, key=want_m.get)
    tdp.check(top == "prog;main;outer;hot_a" and max(ours, key=ours.get).endswith(";main;outer;hot_a"),
              "top stack %r" % top)
    tdp.expect_in("Hot call chains", report(path).out, "the text report")


def test_perf_pipe_stream_with_callchains():
    # perf record -o - | tdprof branches report -i -: the same report as the file it makes
    path = os.path.join(TMP, "g.pipe")
    with open(path, "wb") as f:
        r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-g", "-o", "-", "--", prog(), ARG],
                           stdout=f, stderr=subprocess.PIPE, timeout=300)
    if r.returncode != 0:
        raise tdp.Skip("perf record -o - failed here: %s" % r.stderr.decode()[-300:])
    with open(path, "rb") as f:
        piped = subprocess.run([tdp.TDPROF, "branches", "report", "-i", "-", "--json", "-n", "0"], stdin=f,
                               capture_output=True, timeout=300)
    tdp.check(piped.returncode == 0, "exit %d: %s" % (piped.returncode, piped.stderr.decode()[-1000:]))
    a = json.loads(piped.stdout)
    b = report(path, "--json", "-n", "0").json()
    a.pop("file")
    b.pop("file")
    tdp.check(a == b, "-i - and -i FILE differ")
    check_functions(a, perf_functions(path))


def test_no_samples_at_all_is_still_refused():
    # a recording with neither branch stacks nor samples: the message of before
    import pdsynth
    img, lay = pdsynth.build(nr_samples=0)
    img = pdsynth.patch(img, lay.attr + 24, "<Q", pdsynth.SAMPLE_TYPE & ~pdsynth.BRANCH_STACK)
    path = os.path.join(TMP, "empty.data")
    with open(path, "wb") as f:
        f.write(img)
    r = tdp.run("branches", "report", "-i", path)
    tdp.expect_exit(r, 2)
    tdp.expect_in("has no branch records", r.err, "stderr")


if __name__ == "__main__":
    tdp.main(globals())
