"""The files tdprof writes: reports (-o, --html) and recordings (branches record -o).

- every output is created 0600 (it holds the recording's addresses) unless --mode
  says otherwise;
- a symbolic link planted by another user at the output path is never followed:
  its target keeps its contents and mode (reports replace the link, recordings
  move it to PATH.old as perf moves an old perf.data);
- rewriting a file leaves its readers the old inode (a report is renamed into
  place, an old recording becomes PATH.old), so a reader that has it mapped
  never meets a truncated file;
- -o DIR is a usage error (exit 2) for every command, naming the path.
"""
import mmap
import os
import stat
import tempfile

import pdsynth
import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-outputs-")
NOBODY = 65534


def path(name):
    return os.path.join(TMP, name)


def branches_file():
    p = path("in.data")
    if not os.path.exists(p):
        img, _ = pdsynth.build(nr_samples=8)
        with open(p, "wb") as f:
            f.write(img)
    return p


# Each writer: (label, argv builder taking the output path); none needs a PMU.
WRITERS = [
    ("stat -o", lambda o: ["stat", "-e", "task-clock", "-o", o, "--", "true"]),
    ("explain -o", lambda o: ["explain", "memory_bound", "-o", o]),
    ("info -o", lambda o: ["info", "--json", "-o", o]),
    ("branches report -o", lambda o: ["branches", "report", "-i", branches_file(), "--no-source", "-o", o]),
    ("branches report --html", lambda o: ["branches", "report", "-i", branches_file(), "--no-source", "--html", o]),
    ("branches record -o", lambda o: ["branches", "record", "-e", "cpu-clock", "-o", o, "--", "true"]),
]


def write(argv, what):
    r = tdp.run(*argv, timeout=60)
    tdp.check(r.code == 0, "%s: exit %d" % (what, r.code), r)
    return r


def mode_of(p):
    return stat.S_IMODE(os.lstat(p).st_mode)


def test_outputs_are_created_0600_unless_mode_says_otherwise():
    for label, argv in WRITERS:
        out = path("mode.out")
        for old in (out, out + ".old"):
            if os.path.lexists(old):
                os.unlink(old)
        write(argv(out), label)
        tdp.check(mode_of(out) == 0o600, "%s: mode %04o, want 0600" % (label, mode_of(out)))
        # an existing world-readable file is replaced by a private one
        os.chmod(out, 0o644)
        write(argv(out), label)
        tdp.check(mode_of(out) == 0o600, "%s over a 0644 file: mode %04o, want 0600" % (label, mode_of(out)))
        a = argv(out)
        write(a[:1 + (a[0] == "branches")] + ["--mode", "0640"] + a[1 + (a[0] == "branches"):], label)
        tdp.check(mode_of(out) == 0o640, "%s --mode 0640: mode %04o" % (label, mode_of(out)))
    r = tdp.run("stat", "--mode", "999", "-o", path("x"), "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("not an octal file mode", r.err, "stderr", r)


def test_planted_symlink_of_another_user_is_never_followed():
    if os.geteuid() != 0:
        raise tdp.Skip("making a link owned by another user needs root")
    d = path("sticky")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o1777)  # like /tmp
    victim = path("victim")
    for label, argv in WRITERS:
        with open(victim, "w") as f:
            f.write("precious\n")
        os.chmod(victim, 0o644)
        link = os.path.join(d, "out")
        for old in (link, link + ".old"):
            if os.path.lexists(old):
                os.unlink(old)
        os.symlink(victim, link)
        os.lchown(link, NOBODY, NOBODY)
        write(argv(link), label)
        with open(victim) as f:
            tdp.check(f.read() == "precious\n", "%s wrote through the planted link" % label)
        tdp.check(mode_of(victim) == 0o644, "%s changed the mode of the link's target" % label)
        st = os.lstat(link)
        tdp.check(stat.S_ISREG(st.st_mode) and st.st_uid == 0 and st.st_size > 0,
                  "%s: the output is a new regular file of ours" % label)
        if label.startswith("branches record"):
            tdp.check(os.path.islink(link + ".old"), "the link was moved to .old, as perf moves an old perf.data")


def test_links_of_our_own_are_followed():
    # /dev/stdout is root's link to fd 1: writing through it is what the user asked
    r = tdp.run("explain", "memory_bound", "-o", "/dev/stdout")
    tdp.expect_exit(r, 0)
    tdp.check(len(r.out) > 100, "the text went to standard output", r)
    tdp.check(os.path.islink("/dev/stdout"), "/dev/stdout is still a link")


def test_rewriting_a_file_leaves_its_readers_the_old_inode():
    for label, argv in WRITERS:
        out = path("reread.out")
        for old in (out, out + ".old"):
            if os.path.lexists(old):
                os.unlink(old)
        write(argv(out), label)
        with open(out, "rb") as f:
            before = f.read()
            m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
            ino = os.fstat(f.fileno()).st_ino
            write(argv(out), label)
            # the mapping still holds the whole old file: nothing truncated it
            tdp.check(m[:] == before and os.fstat(f.fileno()).st_size == len(before),
                      "%s: a reader of the old file sees it whole" % label)
            m.close()
        tdp.check(os.stat(out).st_ino != ino, "%s: the new file is a new inode" % label)
        if label.startswith("branches record"):
            tdp.check(os.stat(out + ".old").st_ino == ino, "the old recording is PATH.old")


def test_output_to_a_directory_is_exit_2_naming_it():
    for label, argv in WRITERS:
        r = tdp.run(*argv(TMP), timeout=60)
        tdp.check(r.code == 2, "%s to a directory: exit %d, want 2" % (label, r.code), r)
        tdp.expect_in("'%s'" % TMP, r.err, "stderr", r)
        tdp.check("directory" in r.err, "%s: says it is a directory" % label, r)


def test_own_file_in_a_read_only_directory_is_rewritten_in_place():
    # no temporary can be made next to it: the file (ours, not a link) is rewritten
    if os.geteuid() == 0:
        raise tdp.Skip("root writes any directory: the case does not arise")
    d = path("ro")
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, "out.txt")
    with open(out, "w") as f:
        f.write("old\n")
    os.chmod(d, 0o500)
    try:
        write(["explain", "memory_bound", "-o", out], "explain -o in a read-only directory")
        with open(out) as f:
            tdp.check(len(f.read()) > 100, "the report was written")
    finally:
        os.chmod(d, 0o700)


def test_a_failed_command_leaves_no_partial_file():
    # the output is opened before the run (stat streams its intervals into it): a
    # run that fails removes its temporary, and a file already at the path is kept
    fails = [
        ("stat -o, workload not found", lambda o: ["stat", "-e", "task-clock", "-o", o, "--", "/nonexistent/tdprof-x"],
         127),
        ("stat -I -o, workload not found",
         lambda o: ["stat", "-e", "task-clock", "-I", "100", "-o", o, "--", "/nonexistent/tdprof-x"], 127),
        ("branches report --html, not a perf.data",
         lambda o: ["branches", "report", "-i", path("not.data"), "--no-source", "--html", o], 2),
    ]
    with open(path("not.data"), "wb") as f:
        f.write(b"not a perf.data at all" * 8)
    for label, argv, code in fails:
        out = path("failed.out")
        if os.path.lexists(out):
            os.unlink(out)
        r = tdp.run(*argv(out), timeout=60)
        tdp.expect_exit(r, code)
        tdp.check(not os.path.lexists(out), "%s: left %r" % (label, out), r)
        with open(out, "w") as f:
            f.write("old\n")
        r = tdp.run(*argv(out), timeout=60)
        tdp.expect_exit(r, code)
        with open(out) as f:
            tdp.check(f.read() == "old\n", "%s: the old file was changed" % label, r)
        leftovers = [n for n in os.listdir(TMP) if ".tdprof-" in n]
        tdp.check(not leftovers, "%s: temporaries left: %r" % (label, leftovers), r)


def test_no_temporary_is_left_behind():
    leftovers = [n for n in os.listdir(TMP) if ".tdprof-" in n]
    tdp.check(not leftovers, "temporaries left: %r" % leftovers)


if __name__ == "__main__":
    tdp.main(globals())
