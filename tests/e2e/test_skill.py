"""docs/SKILL.md, the skill file for coding assistants: every command in it runs as
written (with ./app standing for a shipped demo), and the JSON keys it tells a model
to read are there. Needs valgrind where there is no PMU (the commands then simulate)."""
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile

import tdp

SKILL = os.path.join(tdp.SOURCE_ROOT, "docs", "SKILL.md")


def app():
    path = os.path.join(tdp.BUILD_ROOT, "examples", "branch", "demo-branch")
    if not os.access(path, os.X_OK):
        raise tdp.Skip("demo workload not built: %s" % path)
    if tdp.no_pmu() and not shutil.which("valgrind"):
        raise tdp.Skip("no PMU and no valgrind: the commands cannot measure here")
    return path


def commands():
    """The shell commands of the skill's ```sh blocks, in order."""
    with open(SKILL) as f:
        text = f.read()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    cmds = [l.strip() for b in blocks for l in b.splitlines() if l.strip() and not l.strip().startswith("#")]
    tdp.check(len(cmds) >= 8, "the skill shows its commands: %r" % cmds)
    return cmds


def run(cmd, cwd):
    argv = shlex.split(cmd)
    tdp.check(argv[0] == "tdprof", "every command is tdprof's: %r" % cmd)
    argv = [tdp.TDPROF] + [app() if a == "./app" else a for a in argv[1:]]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=cwd)
    tdp.check(p.returncode == 0, "%s: exit %d\n%s" % (cmd, p.returncode, p.stderr[-3000:]))
    return p


def test_every_command_runs_as_written():
    with tempfile.TemporaryDirectory() as d:
        docs = {}
        for cmd in commands():
            p = run(cmd, d)
            if "--json" in cmd.split() and "-o" not in cmd.split():
                try:
                    docs[cmd.split()[1]] = json.loads(p.stdout)
                except ValueError as e:
                    raise AssertionError("%s: stdout is not JSON (%s)" % (cmd, e))
        for name in ("before.json", "after.json"):
            with open(os.path.join(d, name)) as f:
                tdp.check(json.load(f)["backend"] in ("pmu", "sim"), "%s is a why document" % name)
    # the keys the skill tells a model to read
    why = docs["why"]
    tdp.check(why["backend"] in ("pmu", "sim", "import"), "why: backend")
    v = why["verdict"]
    for k in ("category", "over_threshold", "next_step"):
        tdp.check(k in v, "why: verdict.%s" % k)
    tdp.check(why["findings"], "why: findings")
    for k in ("title", "evidence", "site", "fix", "share_pct"):
        tdp.check(k in why["findings"][0], "why: findings[].%s" % k)
    top = docs["topdown"]
    for k in ("retiring", "bad_speculation", "frontend_bound", "backend_bound"):
        tdp.check(k in top["level1"], "topdown: level1.%s" % k)
    tdp.check("branch_mispredicts" in top["level2"]["bad_speculation"], "topdown: level2 by parent")
    tdp.check("flagged" in top, "topdown: flagged")
    st = docs["stat"]
    for k in ("cpi", "ipc", "branch_mpki", "l1i_mpki", "llc_mpki"):
        tdp.check(k in st["metrics"], "stat: metrics.%s" % k)
    tdp.check("next" in st["route"] and "command" in st["route"], "stat: route.next and route.command")
    tdp.check("hardware_events_open" in docs["info"], "info: hardware_events_open")
    an = docs["annotate"]
    for k in ("file", "line", "text", "counts", "rate"):
        tdp.check(k in an["hottest_line"], "annotate: hottest_line.%s" % k)
    tdp.check("mispredicts" in an["hottest_line"]["counts"] and an["lines"] and an["instructions"],
              "annotate: counts.mispredicts, lines, instructions")


def test_thresholds_are_the_models():
    # the skill's table says what the tool applies (design.md's level-1 thresholds)
    with open(SKILL) as f:
        text = f.read()
    d = tdp.run("topdown", "--json", "--", app(), timeout=300).json()
    for key, label in (("bad_speculation", "Bad Speculation"), ("frontend_bound", "Frontend Bound"),
                       ("backend_bound", "Backend Bound"), ("retiring", "Retiring")):
        m = re.search(r"\| %s \| above (\d+) \|" % label, text)
        tdp.check(m, "the skill gives %s's threshold" % label)
        tdp.check(abs(float(m.group(1)) - d["thresholds"][key]) < 1e-9,
                  "%s: skill says %s, the tool applies %r" % (label, m.group(1), d["thresholds"][key]))


tdp.main(globals())
