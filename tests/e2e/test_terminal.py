"""Terminal conventions (issue 20, item 4): colour on a terminal only (--color, NO_COLOR,
TERM=dumb), and a live progress line on stderr during long work that is gone when it
ends, never when piped, never with --quiet, and that leaves the workload's own output
whole. tdprof runs on a pseudo-terminal (python's pty) as it would in a terminal."""
import fcntl
import os
import pty
import select
import shutil
import struct
import subprocess
import tempfile
import termios
import threading

import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-term-")
ROWS, COLS = 24, 100

# Ice Lake server counts: Backend Bound 43.7 % is above its 40 % threshold
ICX_CSV = ("10000,,TOPDOWN.SLOTS,2000000,100.00,,\n"
           "4000,,topdown-retiring,2000000,100.00,40.0,%  tma_retiring\n"
           "1000,,topdown-bad-spec,2000000,100.00,9.0,%  tma_bad_speculation\n"
           "2000,,topdown-fe-bound,2000000,100.00,19.0,%  tma_frontend_bound\n"
           "5000,,topdown-be-bound,2000000,100.00,32.0,%  tma_backend_bound\n"
           "100,,INT_MISC.UOP_DROPPING,2000000,100.00,,\n"
           "40,,cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/,2000000,100.00,,\n")

HOT = "\033[1;31m"
ESC = "\033"


def icx():
    path = os.path.join(TMP, "icx.csv")
    with open(path, "w") as f:
        f.write(ICX_CSV)
    return ["topdown", "--import", path, "--cpu", "icelakex"]


def term_env(**extra):
    env = dict(os.environ, TERM="xterm-256color")
    for k in ("NO_COLOR", "COLUMNS"):
        env.pop(k, None)
    env.update(extra)
    return env


class Pty:
    """tdprof with stdin, stdout and stderr on one pseudo-terminal of ROWS x COLS."""

    def __init__(self, args, env):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.proc = subprocess.Popen([tdp.TDPROF] + args, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     close_fds=True, start_new_session=True)
        os.close(slave)
        self.master = master
        self.data = b""
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while True:
            r, _, _ = select.select([self.master], [], [], 1.0)
            if not r:
                if self.proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the other side is closed
                break
            if not chunk:
                break
            with self.lock:
                self.data += chunk

    def text(self):
        with self.lock:
            return self.data.decode("utf-8", "replace")

    def finish(self):
        code = self.proc.wait(timeout=tdp.WAIT_TIMEOUT)
        self.thread.join(tdp.WAIT_TIMEOUT)
        os.close(self.master)
        return code, self.text()


def test_colour_on_a_terminal_only():
    code, out = Pty(icx(), term_env()).finish()
    tdp.check(code == 0, "exit 0:\n" + out)
    tdp.check(HOT + "Backend Bound" in out, "the node above its threshold is coloured on a terminal:\n" + out)
    tdp.check("\033[1mverdict: Backend Bound" in out, "the verdict is bold:\n" + out)
    tdp.check("\033[36m#" in out, "the bars are coloured:\n" + out)
    r = tdp.run(*icx(), env={"TERM": "xterm-256color"})
    tdp.expect_exit(r, 0)
    tdp.check(ESC not in r.out and "above 40 %" in r.out, "no colour (and no bars) when piped", r)


def test_no_color_and_dumb_terminals():
    for env in ({"NO_COLOR": "1"}, {"NO_COLOR": "anything"}, {"TERM": "dumb"}):
        code, out = Pty(icx(), term_env(**env)).finish()
        tdp.check(code == 0 and ESC not in out and "Backend Bound" in out, "no colour with %r:\n%s" % (env, out))
    # an empty NO_COLOR is as if unset (no-color.org)
    code, out = Pty(icx(), term_env(NO_COLOR="")).finish()
    tdp.check(HOT in out, "colour with an empty NO_COLOR:\n" + out)
    code, out = Pty(["--color=never"] + icx(), term_env()).finish()
    tdp.check(ESC not in out, "--color=never on a terminal:\n" + out)


def test_color_option():
    for spelling in ("--color=always", "--colour=always", "--color"):
        r = tdp.run(spelling, *icx(), env={"NO_COLOR": "1"})
        tdp.expect_exit(r, 0)
        tdp.check(HOT + "Backend Bound" in r.out, "%s colours a pipe, whatever NO_COLOR says" % spelling, r)
    # -o FILE is a report file: never coloured
    out = os.path.join(TMP, "td.txt")
    r = tdp.run("--color=always", *icx(), "-o", out)
    tdp.expect_exit(r, 0)
    with open(out) as f:
        tdp.check(ESC not in f.read(), "no colour in -o FILE")
    r = tdp.run("--color=sometimes", *icx())
    tdp.expect_exit(r, 2)
    tdp.expect_in("WHEN is auto, always or never", r.err, "stderr", r)
    r = tdp.run("--colour=always", "--no-color", *icx())
    tdp.check(ESC not in r.out, "the last of --color and --no-color wins", r)


def waiting_workload(flag):
    """A command that prints a line, waits for `flag` to exist (polled), prints another."""
    return ["sh", "-c", "echo workload started; while [ ! -e '%s' ]; do sleep 0.05; done; echo workload done" % flag]


def need_valgrind():
    if not shutil.which("valgrind"):
        raise tdp.Skip("valgrind is not installed")


def test_progress_during_a_simulated_run():
    need_valgrind()
    flag = os.path.join(TMP, "go")
    p = Pty(["stat", "--backend=sim", "--"] + waiting_workload(flag), term_env())
    try:
        # the line shows on the terminal's last row while the workload runs: save the cursor, go there, draw
        tdp.wait_for(lambda: "\0337\033[%d;1H\033[2Ktdprof: simulating sh -c" % ROWS in p.text(),
                     "the progress line on the last row")
        tdp.wait_for(lambda: "workload started" in p.text(), "the workload's first line")
    finally:
        open(flag, "w").close()
    code, out = p.finish()
    os.unlink(flag)
    tdp.check(code == 0, "exit 0:\n" + out)
    tdp.check("\033[1;%dr" % (ROWS - 1) in out, "the last row is kept for the line (a scrolling region):\n" + out)
    tdp.check("\0337\033[%d;1H\033[2K\033[r\0338" % ROWS in out, "the row is cleared and given back:\n" + out)
    # gone when done: the row is given back before any result is printed
    tdp.check(out.rindex("\033[r") < out.index("Performance counter stats"), "the line is gone before the result")
    # the workload's lines are whole: nothing of the progress line is inside them
    for line in ("workload started\r\n", "workload done\r\n"):
        tdp.check(line in out, "the workload's line %r is whole:\n%s" % (line, out))
    # every update is one group: save the cursor, the last row, the text, restore the cursor
    draw = "\0337\033[%d;1H\033[2K" % ROWS
    pieces = out.split("tdprof: simulating sh -c")
    for before, after in zip(pieces, pieces[1:]):
        tdp.check(before.endswith(draw) and "\0338" in after.split("\n")[0],
                  "an update outside its save/restore group:\n%r" % (before[-40:] + after[:120]))


def test_no_progress_when_piped_or_quiet():
    need_valgrind()
    flag = os.path.join(TMP, "go2")
    open(flag, "w").close()
    r = tdp.run("stat", "--backend=sim", "--", *waiting_workload(flag))
    tdp.expect_exit(r, 0)
    tdp.check(ESC not in r.err and "\r" not in r.err, "no live line on a piped stderr", r)
    # on a terminal with --quiet: nothing either
    code, out = Pty(["--quiet", "stat", "--backend=sim", "--"] + waiting_workload(flag), term_env()).finish()
    tdp.check(code == 0 and "\0337" not in out and "tdprof: simulating" not in out, "no line with --quiet:\n" + out)
    code, out = Pty(["stat", "--backend=sim", "--"] + waiting_workload(flag), term_env(TERM="dumb")).finish()
    tdp.check(code == 0 and "\0337" not in out, "no live line on a dumb terminal:\n" + out)
    os.unlink(flag)


def test_progress_never_in_a_document():
    need_valgrind()
    flag = os.path.join(TMP, "go3")
    open(flag, "w").close()
    # stdout is a file (the JSON document), stderr the terminal: the line stays on stderr
    out_path = os.path.join(TMP, "stat.json")
    with open(out_path, "w") as out_f:
        master, slave = os.openpty()
        p = subprocess.Popen([tdp.TDPROF, "stat", "--backend=sim", "--json", "--"] + waiting_workload(flag),
                             stdout=out_f, stderr=slave, stdin=slave, env=term_env())
        os.close(slave)
        p.wait(timeout=tdp.WAIT_TIMEOUT)
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass
        os.close(master)
    with open(out_path) as f:
        text = f.read()
    tdp.check(p.returncode == 0 and ESC not in text and "\r" not in text and text.lstrip().startswith("{"),
              "the JSON document holds no terminal control:\n" + text)
    os.unlink(flag)


if __name__ == "__main__":
    tdp.main(globals())
