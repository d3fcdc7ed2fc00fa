"""The top level of the command line: usage, version, unknown commands and options."""
import re

import tdp


def test_version():
    r = tdp.run("--version")
    tdp.expect_exit(r, 0)
    tdp.check(r.out.startswith("tdprof "), "version line", r)


def test_help_lists_commands():
    r = tdp.run("--help")
    tdp.expect_exit(r, 0)
    tdp.expect_in("usage: tdprof", r.out, "stdout", r)
    tdp.expect_in("commands:", r.out, "stdout", r)


def test_no_command_is_usage_error():
    r = tdp.run()
    tdp.expect_exit(r, 2)
    tdp.expect_in("usage: tdprof", r.err, "stderr", r)


def test_unknown_command_suggests():
    r = tdp.run("stta")
    tdp.expect_exit(r, 2)
    tdp.expect_in("tdprof: error: 'stta' is not a tdprof command", r.err, "stderr", r)
    tdp.expect_in("did you mean 'tdprof stat'?", r.err, "stderr", r)
    tdp.expect_in("tdprof: try 'tdprof --help'", r.err, "stderr", r)


def test_perf_command_words_point_to_their_place():
    # perf users type `tdprof record`: it is a subcommand here
    for word, want in (("record", "branches record"), ("report", "branches report")):
        r = tdp.run(word, "-o", "x.data")
        tdp.expect_exit(r, 2)
        tdp.expect_in("did you mean 'tdprof %s'?" % want, r.err, "stderr", r)


def test_perf_options_point_elsewhere():
    # perf stat -M computes metric groups: the top-down tree is tdprof topdown
    for args in (["-M", "TopdownL1"], ["--metrics", "TopdownL1"]):
        r = tdp.run("stat", *args, "--", "true")
        tdp.expect_exit(r, 2)
        tdp.expect_in("unknown option", r.err, "stderr", r)
        tdp.expect_in("'tdprof topdown -- CMD'", r.err, "stderr", r)


def test_unknown_global_option():
    r = tdp.run("--frobnicate")
    tdp.expect_exit(r, 2)
    tdp.expect_in("unknown option '--frobnicate'", r.err, "stderr", r)


def test_help_command():
    r = tdp.run("help", "stat")
    tdp.expect_exit(r, 0)
    tdp.expect_in("usage: tdprof stat", r.out, "stdout", r)
    # a subcommand's own help, not its parent's
    for sub in ("record", "report"):
        r = tdp.run("help", "branches", sub)
        tdp.expect_exit(r, 0)
        tdp.expect_in("usage: tdprof branches %s" % sub, r.out, "stdout", r)
        tdp.check(r.out == tdp.run("branches", sub, "--help").out, "help branches %s = branches %s --help" % (sub, sub))


def listed_commands():
    """The commands `tdprof --help` lists (the generated command table)."""
    r = tdp.run("--help")
    tdp.expect_exit(r, 0)
    lines = r.out.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [l.split()[0] for l in lines if l.strip() and l.split()[0] != "help"]


def test_every_command_has_help_and_man_page():
    cmds = listed_commands()
    tdp.check(len(cmds) >= 3, "several commands listed: %r" % cmds)
    for c in cmds:
        r = tdp.run(c, "--help")
        tdp.expect_exit(r, 0)
        tdp.expect_in("usage: tdprof " + c, r.out, "%s --help" % c, r)
        tdp.expect_in("-h, --help", r.out, "%s --help" % c, r)
        m = tdp.run(c, "--man")
        tdp.expect_exit(m, 0)
        tdp.check(m.out.startswith(".TH TDPROF-" + c.upper()), "%s --man starts with .TH" % c, m)
        for section in (".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH EXIT STATUS"):
            tdp.expect_in(section, m.out, "%s --man" % c, m)


def help_commands():
    cmds = listed_commands()
    return cmds + [c + " " + s for c in cmds if c == "branches" for s in ("record", "report")]


def test_help_wraps_at_the_terminal_width():
    # COLUMNS, else 80 when stdout is not a terminal (as here); the words are the same at any width
    # (issue 16 item 14: paragraphs used to be single lines of up to 1,050 characters)
    for c in help_commands():
        wide = tdp.run(*c.split(), "--help", env={"COLUMNS": "1000"})
        tdp.expect_exit(wide, 0)
        for cols in (None, "70", "50"):
            r = tdp.run(*c.split(), "--help", env={"COLUMNS": cols} if cols else {"COLUMNS": ""})
            tdp.expect_exit(r, 0)
            width = int(cols or 80)
            # an example's command is printed whole, to be copied
            examples = r.out.split("\nexamples:\n", 1)[-1].splitlines() if "\nexamples:\n" in r.out else []
            commands = {l for l in examples if l.startswith("    ") and l[4] != " "}
            # and a single word longer than the room left is never cut
            long = [l for l in r.out.splitlines() if len(l) > width and l not in commands and " " in l.strip()]
            tdp.check(not long, "%s --help at %d columns: %d lines longer:\n%s" % (c, width, len(long),
                                                                                  "\n".join(long[:3])))
            tdp.check(r.out.split() == wide.out.split(), "%s --help at %d columns: the same words" % (c, width))
            if width < 62:
                continue  # narrower: each option's help goes on its own lines below it
            # the option table stays aligned: every option's help starts at column 32
            lines = r.out.split("\nexamples:", 1)[0].splitlines()
            first = min(i for i, l in enumerate(lines) if re.match(r"    (-\w|    --)", l))
            for line in lines[first:]:
                if line.startswith("    -") and len(line) > 32 and line[30:32] == "  ":
                    tdp.check(line[32] != " ", "%s: help at column 32: %r" % (c, line))
                elif line.startswith("     ") and not line.strip().startswith("-"):
                    tdp.check(line.startswith(" " * 32) and line[32] != " ",
                              "%s at %d columns: continuation at column 32: %r" % (c, width, line), r)


def test_top_level_man_page_lists_commands():
    r = tdp.run("--man")
    tdp.expect_exit(r, 0)
    tdp.check(r.out.startswith(".TH TDPROF 1"), "tdprof(1) header", r)
    for c in listed_commands():
        tdp.expect_in("tdprof\\-%s" % c, r.out, "tdprof.1", r)


def test_unknown_command_option_is_usage_error():
    r = tdp.run("stat", "--frobnicate", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("unknown option '--frobnicate'", r.err, "stderr", r)
    tdp.expect_in("tdprof: try 'tdprof stat --help'", r.err, "stderr", r)


def test_output_file_errors_are_the_same_everywhere():
    """-o FILE (a report or a recording) and --html FILE: a path that cannot be
    created, or a directory, is a bad argument (exit 2), a write that fails (a full
    disk: /dev/full) is exit 1; both name the file (base/file.h tdp_out_open())."""
    import os
    import tempfile
    tmp = tempfile.mkdtemp(prefix="tdprof-cli-")
    bad = os.path.join(tmp, "no", "such", "dir", "out")
    perfdata = os.path.join(tdp.SHARED, "perfdata", "perf.data.branch_stack_spec")
    commands = [  # (arguments before -o FILE, arguments after it)
        (["info"], []),
        (["explain", "core_bound"], []),
        (["stat", "-e", "task-clock"], ["--", "true"]),
    ]
    if os.path.exists(perfdata):
        commands.append((["branches", "report", "-i", perfdata], []))
    # a recording and an HTML page follow the same rule as the reports
    import pdsynth
    synth = os.path.join(tmp, "synth.data")
    with open(synth, "wb") as f:
        f.write(pdsynth.build(nr_samples=4)[0])
    commands.append((["branches", "record", "-e", "cpu-clock"], ["--", "true"]))
    for before, after in commands:
        r = tdp.run(*before, "-o", bad, *after)
        tdp.expect_exit(r, 2)
        tdp.expect_in("cannot open '%s' for writing" % bad, r.err, "stderr of %s" % before[0], r)
        r = tdp.run(*before, "-o", tmp, *after)
        tdp.expect_exit(r, 2)
        tdp.expect_in("'%s' for writing: it is a directory" % tmp, r.err, "stderr of %s" % before[0], r)
        r = tdp.run(*before, "-o", "/dev/full", *after)
        tdp.expect_exit(r, 1)
        tdp.expect_in("cannot write '/dev/full'", r.err, "stderr of %s" % before[0], r)
    html = ["branches", "report", "-i", synth, "--no-source", "--html"]
    r = tdp.run(*html, bad)
    tdp.expect_exit(r, 2)
    tdp.expect_in("cannot open '%s' for writing" % bad, r.err, "stderr of --html", r)
    r = tdp.run(*html, "/dev/full")
    tdp.expect_exit(r, 1)
    tdp.expect_in("cannot write '/dev/full'", r.err, "stderr of --html", r)

def test_missing_interpreter_is_127_on_every_path():
    """A script whose '#!' interpreter does not exist cannot be run: 127 (README's
    exit table) under the PMU commands and under the simulated backend alike."""
    import os
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix="tdprof-cli-")
    script = os.path.join(d, "s.sh")
    with open(script, "w") as f:
        f.write("#!/nonexistent/interpreter\necho hi\n")
    os.chmod(script, 0o755)
    paths = [["stat", "-e", "task-clock"], ["branches", "record", "-e", "cpu-clock", "-o", os.path.join(d, "r.data")]]
    if shutil.which("valgrind"):
        paths += [["why", "--backend=sim"], ["topdown", "--backend=sim"]]
    for argv in paths:
        r = tdp.run(*argv, "--", script, timeout=120)
        tdp.expect_exit(r, 127)
        tdp.expect_in("cannot run '%s'" % script, r.err, "stderr of %s" % " ".join(argv), r)


tdp.main(globals())
