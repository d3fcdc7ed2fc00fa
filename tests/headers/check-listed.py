#!/usr/bin/env python3
"""Every header of src/ and include/ is in the header test's list.

usage: check-listed.py SOURCE_ROOT tests/headers/meson.build
A header missing from the list would escape the test that it compiles on its
own; this names it and exits 1.
"""
import os
import re
import sys

# The per-architecture bodies that src/harness/arch.h chooses between.
NOT_ALONE = re.compile(r'^harness/arch-[a-z0-9]+\.h$')


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, listing = argv[1], argv[2]
    with open(listing) as f:
        listed = set(re.findall(r"'([\w./-]+\.h)'", f.read()))
    missing = []
    for top in ('src', 'include'):
        base = os.path.join(root, top)
        for dirpath, _, filenames in os.walk(base):
            for name in filenames:
                if name.endswith('.h'):
                    rel = os.path.relpath(os.path.join(dirpath, name), base)
                    if not NOT_ALONE.match(rel) and rel not in listed:
                        missing.append(os.path.join(top, rel))
    stale = [h for h in listed
             if not os.path.exists(os.path.join(root, 'src', h))
             and not os.path.exists(os.path.join(root, 'include', h))]
    for h in sorted(missing):
        print('%s: not in the header test (%s)' % (h, listing))
    for h in sorted(stale):
        print('%s: listed in %s but not in the tree' % (h, listing))
    return 1 if missing or stale else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
