"""Shell completion (issue 20, item 4): `tdprof completion bash|zsh` is made from the
option tables, the build installs what it prints, and bash (and zsh) complete the
commands, subcommands, options and their values with it."""
import os
import pty
import select
import shutil
import subprocess
import tempfile
import time

import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-comp-")
TDPROF = os.path.abspath(tdp.TDPROF)


def script(shell):
    r = tdp.run("completion", shell)
    tdp.expect_exit(r, 0)
    path = os.path.join(TMP, "tdprof." + shell)
    with open(path, "w") as f:
        f.write(r.out)
    return path


def bash_complete(path, *words):
    """What bash's completion function offers for the command line `words` (the last
    one being completed), as COMP_WORDS/COMP_CWORD set by bash itself."""
    prog = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); '
            '_tdprof_main; printf "%s\\n" "${COMPREPLY[@]}"')
    # the first word is this build's tdprof (-e's events are asked of it)
    p = subprocess.run(["bash", "--norc", "-c", prog, "bash", path, TDPROF] + list(words[1:]),
                       capture_output=True, text=True, timeout=60, cwd=TMP)
    tdp.check(p.returncode == 0, "bash ran the completion: %s" % p.stderr)
    return [w for w in p.stdout.split("\n") if w]


def spec(*cmd):
    r = tdp.run(*cmd, "--completion-spec")
    tdp.expect_exit(r, 0)
    return [l.split("\t") for l in r.out.splitlines()]


def test_bash_registers_the_function():
    path = script("bash")
    p = subprocess.run(["bash", "--norc", "-c", 'source "$1" && complete -p tdprof', "bash", path],
                       capture_output=True, text=True)
    tdp.check(p.stdout.strip() == "complete -F _tdprof_main tdprof", "complete -p: %r %r" % (p.stdout, p.stderr))


def test_commands_and_subcommands():
    path = script("bash")
    got = bash_complete(path, "tdprof", "")
    for line in tdp.run("--help").out.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines():
        name = line.split()[0]
        tdp.check(name in got, "every command of the table is completed: %s not in %s" % (name, got))
    tdp.check(bash_complete(path, "tdprof", "st") == ["stat"], "st -> stat")
    tdp.check(bash_complete(path, "tdprof", "branches", "re") == ["record", "report"], "branches subcommands")
    tdp.check(bash_complete(path, "tdprof", "help", "bra") == ["branches"], "help COMMAND")
    tdp.check(bash_complete(path, "tdprof", "-q", "--color", "=", "al") == ["always"], "--color=WHEN")
    tdp.check("--quiet" in bash_complete(path, "tdprof", "--q"), "global options")
    tdp.check(bash_complete(path, "tdprof", "list", "m") == ["models", "metrics"], "list's words")


def test_every_option_of_every_table():
    """Each command's options, as its table gives them (`CMD --completion-spec`)."""
    path = script("bash")
    for cmd in (["stat"], ["topdown"], ["why"], ["branches", "record"], ["branches", "report"], ["completion"]):
        want = set()
        for f in spec(*cmd):
            if f[0] == "opt":
                want |= {x for x in f[1:3] if x != "-"}
        got = set(bash_complete(path, "tdprof", *cmd, "-"))
        tdp.check(want and want == got, "%s: the options of its table %s, completed %s" % (cmd, sorted(want), sorted(got)))
    tdp.check(bash_complete(path, "tdprof", "stat", "--rep") == ["--repeat"], "a long option by its prefix")


def test_option_values():
    path = script("bash")
    tdp.check(bash_complete(path, "tdprof", "topdown", "--format", "") == ["text", "json", "csv", "html"],
              "--format's choices from the table")
    tdp.check(bash_complete(path, "tdprof", "why", "--format", "=", "p") == ["pprof"], "--format=VALUE")
    tdp.check(bash_complete(path, "tdprof", "stat", "--backend", "s") == ["sim"], "--backend")
    models = tdp.run("list", "models").out
    zen = bash_complete(path, "tdprof", "topdown", "--cpu", "zen")
    tdp.check(zen == ["zen2", "zen3", "zen4", "zen5"] and all(z in models for z in zen), "--cpu: the models: %s" % zen)
    tdp.check("neoverse-n1" in bash_complete(path, "tdprof", "why", "--sim-machine", "neo"), "--sim-machine presets")
    ev = bash_complete(path, "tdprof", "stat", "-e", "task-c")
    tdp.check(ev == ["task-clock"], "-e: the events 'tdprof list events' knows: %s" % ev)
    ev = bash_complete(path, "tdprof", "branches", "record", "-e", "cycles,cpu-cl")
    tdp.check(ev == ["cycles,cpu-clock"], "-e: the last of a comma list: %s" % ev)
    for name in ("rec.data", "other.txt"):
        open(os.path.join(TMP, name), "w").close()
    tdp.check(bash_complete(path, "tdprof", "branches", "report", "-i", "rec") == ["rec.data"], "-i FILE: files")
    tdp.check(bash_complete(path, "tdprof", "stat", "-r", "") == [], "a number: nothing to offer")
    # after '--': the command to run
    tdp.check("true" in bash_complete(path, "tdprof", "why", "--backend=sim", "--", "tru"), "the workload's name")


def test_the_build_installs_what_it_prints():
    built = os.path.join(tdp.BUILD_ROOT, "docs")
    for shell, name in (("bash", "tdprof"), ("zsh", "_tdprof")):
        p = os.path.join(built, name)
        if not os.path.exists(p):
            raise tdp.Skip("no %s in the build (cross build?)" % p)
        with open(p) as f:
            tdp.check(f.read() == tdp.run("completion", shell).out, "build/docs/%s is 'tdprof completion %s'" % (name, shell))
    r = tdp.run("completion", "fish")
    tdp.expect_exit(r, 2)
    tdp.expect_in("'tdprof completion bash' or 'tdprof completion zsh'", r.err, "stderr", r)


def zsh_screen(line, wait_for):
    """Type `line` and a Tab into an interactive zsh on a pseudo-terminal with the
    completion in $fpath; the screen once `wait_for` shows on it."""
    d = os.path.join(TMP, "zfunc")
    os.makedirs(d, exist_ok=True)
    shutil.copy(script("zsh"), os.path.join(d, "_tdprof"))
    bindir = os.path.join(TMP, "bin")
    os.makedirs(bindir, exist_ok=True)
    if not os.path.exists(os.path.join(bindir, "tdprof")):
        os.symlink(TDPROF, os.path.join(bindir, "tdprof"))
    env = dict(os.environ, PATH=bindir + ":" + os.environ.get("PATH", ""), TERM="xterm", HOME=TMP)
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe("zsh", ["zsh", "-f", "-i"], env)
    out = b""

    def send(s):
        os.write(fd, s.encode())

    def read_until(pred, what):
        nonlocal out
        deadline = time.monotonic() + tdp.WAIT_TIMEOUT
        while not pred(out.decode("utf-8", "replace")):
            tdp.check(time.monotonic() < deadline, "zsh never showed %s:\n%r" % (what, out[-2000:]))
            r, _, _ = select.select([fd], [], [], 1.0)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
    try:
        send("PS1='ready> '; fpath=(%s $fpath); autoload -U compinit; compinit -u; echo set''up\n" % d)
        read_until(lambda s: "setup" in s, "the setup")
        out = b""
        send(line + "\t")
        read_until(lambda s: wait_for in s, repr(wait_for))
        return out.decode("utf-8", "replace")
    finally:
        os.write(fd, b"\x03exit\n")
        os.close(fd)
        os.waitpid(pid, 0)


def test_zsh():
    if not shutil.which("zsh"):
        raise tdp.Skip("zsh is not installed")
    zsh_screen("tdprof sta", "tdprof stat")
    zsh_screen("tdprof stat --for", "--format")
    zsh_screen("tdprof topdown --cpu zen", "zen5")


if __name__ == "__main__":
    tdp.main(globals())
