"""genlib: what the build-time generators of vendor data share (src/*/gen/gen-*.py):
the error a damaged data file raises, C string literals, and the one way a
generator runs: read its data file, build the lines of its C output, write them
whole (a temporary renamed into place) or nothing, exit 0 / 1 (bad data, with
the file and the reason) / 2 (usage)."""
import os
import sys


class Bad(Exception):
    """A data file that cannot be generated from (the message says where and why)."""


def c_str(s):
    """s as a C string literal (NULL for None)."""
    if s is None:
        return "NULL"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def write_atomic(path, lines):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


def run(argv, usage, build):
    """main() of a generator called as `gen-X.py DATA OUTPUT`: build(DATA) returns the
    output's lines or raises (Bad, OSError, ValueError: the reason; KeyError,
    TypeError: a malformed entry). Returns the exit status."""
    prog = os.path.basename(argv[0])
    if len(argv) != 3:
        sys.stderr.write(f"usage: {prog} {usage}\n")
        return 2
    try:
        lines = build(argv[1])
    except (Bad, OSError, ValueError) as e:
        sys.stderr.write(f"{prog}: {argv[1]}: {e}\n")
        return 1
    except (KeyError, TypeError) as e:
        sys.stderr.write(f"{prog}: {argv[1]}: malformed entry ({e!r})\n")
        return 1
    write_atomic(argv[2], lines)
    return 0
