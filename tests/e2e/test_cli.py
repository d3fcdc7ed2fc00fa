"""The top level of the command line: usage, version, unknown commands and options."""
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


def test_unknown_global_option():
    r = tdp.run("--frobnicate")
    tdp.expect_exit(r, 2)
    tdp.expect_in("unknown option '--frobnicate'", r.err, "stderr", r)


def test_help_command():
    r = tdp.run("help", "stat")
    tdp.expect_exit(r, 0)
    tdp.expect_in("usage: tdprof stat", r.out, "stdout", r)


tdp.main(globals())
