#!/usr/bin/env python3
"""The banned-function check (docs/hacking.md, Naming): no call of a function
that has a bounded or safer replacement in the tree.

usage: check-banned.py SOURCE_ROOT
Scans the C files of src/, include/, tests/, bench/ and examples/ (comments and
strings ignored); prints FILE:LINE: NAME for each call and exits 1 when any.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csource  # noqa: E402

# name: what to use instead
BANNED = {
    'sprintf': 'snprintf or strbuf_addf',
    'vsprintf': 'vsnprintf or strbuf_vaddf',
    'strcpy': 'memcpy with a checked length, or strbuf',
    'strcat': 'strbuf',
    'strtok': 'strtok_r or a hand-written scanner',
    'gets': 'fgets',
    'atoi': 'strtol with error checks (base/str.h)',
    'atol': 'strtol with error checks (base/str.h)',
    'alloca': 'tdp_malloc',
    'system': 'posix_spawn with an argv (no shell)',
    'popen': 'posix_spawn with a pipe (no shell)',
}
CALL = re.compile(r'(?<![\w.>])(' + '|'.join(BANNED) + r')\s*\(')


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    bad = 0
    for path, text in csource.sources(root, ['src', 'include', 'tests', 'bench', 'examples']):
        code = csource.strip(text)
        for m in CALL.finditer(code):
            name = m.group(1)
            print('%s:%d: %s() is banned; use %s' % (path, csource.line_of(code, m.start()), name,
                                                    BANNED[name]))
            bad += 1
    if bad:
        print('check-banned: %d banned call%s' % (bad, '' if bad == 1 else 's'), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
