"""`tdprof skill`: prints the skill file (docs/SKILL.md from the build tree, the
installed share/tdprof/SKILL.md of a relocated install), -o and --path."""
import os
import shutil
import subprocess
import tempfile

import tdp

SKILL = os.path.join(tdp.SOURCE_ROOT, "docs", "SKILL.md")


def test_prints_the_source_copy_from_the_build_tree():
    with open(SKILL) as f:
        text = f.read()
    r = tdp.run("skill")
    tdp.expect_exit(r, 0)
    tdp.check(r.out == text, "tdprof skill prints docs/SKILL.md as it is", r)
    p = tdp.run("skill", "--path")
    tdp.check(os.path.samefile(p.out.strip(), SKILL), "--path names docs/SKILL.md", p)


def test_output_file():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "SKILL.md")
        r = tdp.run("skill", "-o", out)
        tdp.expect_exit(r, 0)
        with open(out) as f, open(SKILL) as g:
            tdp.check(f.read() == g.read(), "-o FILE holds the skill file")


def test_relocated_install_reads_its_share_dir():
    # a binary outside its build tree reads ../share/tdprof/SKILL.md beside it
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "bin"))
        os.makedirs(os.path.join(d, "share", "tdprof"))
        exe = os.path.join(d, "bin", "tdprof")
        shutil.copy(tdp.TDPROF, exe)
        with open(os.path.join(d, "share", "tdprof", "SKILL.md"), "w") as f:
            f.write("# the installed skill\n")
        p = subprocess.run([exe, "skill"], capture_output=True, text=True, timeout=60)
        tdp.check(p.returncode == 0 and p.stdout == "# the installed skill\n",
                  "the relocated binary prints its share/tdprof/SKILL.md: %r %r" % (p.stdout[:80], p.stderr))


def test_no_arguments():
    r = tdp.run("skill", "extra")
    tdp.expect_exit(r, 2)


tdp.main(globals())
