#!/usr/bin/env python3
"""The lint checks fail on what they forbid: scripts/lint/check-layers.py and
check-banned.py run on small trees made here, clean and with one violation each;
tests/headers/check-listed.py on a tree with a header missing from the header
test's list, and with a listed header that is gone.

usage: test_checks.py SOURCE_ROOT
"""
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.environ['TDPROF_SOURCE_ROOT']
LAYERS = os.path.join(ROOT, 'scripts', 'lint', 'check-layers.py')
BANNED = os.path.join(ROOT, 'scripts', 'lint', 'check-banned.py')
LISTED = os.path.join(ROOT, 'tests', 'headers', 'check-listed.py')

HACKING = """# Hacking

<!-- layers -->
```text
cli
top
mid1 mid2
base
```
"""

CLEAN = {
    'docs/hacking.md': HACKING,
    'src/base/base.h': '#include <stddef.h>\nsize_t base_len(const char *s);\n',
    'src/mid1/mid1.h': '#include "base/base.h"\n#include "mid1-internal.h"\n',
    'src/mid1/mid1-internal.h': '/* printf("in a comment"); exit(1); */\nint mid1_x;\n',
    'src/mid2/mid2.c': '#include "base/base.h"\nstatic const char m[] = "stderr: sprintf(";\n',
    'src/top/top.c': '#include "mid1/mid1.h"\n#include "mid2/mid2.h"\n',
    'src/cli/main.c': '#include "top/top.h"\n#include <stdio.h>\nint main(void) { printf("hi\\n"); exit(0); }\n',
    'tests/unit/mid1/t.c': '#include "mid1/mid1-internal.h"\nint t(void) { return snprintf(0, 0, "x"); }\n',
}

# (file, text appended, check, the words its report must contain)
VIOLATIONS = [
    ('src/base/base.h', '#include "top/top.h"\n', LAYERS, ['src/base/base.h:3', 'a layer above it']),
    ('src/mid1/mid1.h', '#include "mid2/mid2.h"\n', LAYERS, ['src/mid1/mid1.h:3', 'on its own layer']),
    ('src/top/top.c', '#include "mid1/mid1-internal.h"\n', LAYERS, ['src/top/top.c:3', 'internal to src/mid1/']),
    ('tests/unit/mid2/t.c', '#include "mid1/mid1-internal.h"\n', LAYERS, ['tests/unit/mid2/t.c:1', 'internal']),
    ('src/mid2/mid2.c', 'void f(void) { fprintf(stderr, "x"); }\n', LAYERS, ['src/mid2/mid2.c:3', 'stderr']),
    ('src/mid2/mid2.c', 'void f(void) { exit(2); }\n', LAYERS, ['src/mid2/mid2.c:3', 'exit below cli/']),
    ('src/mid2/mid2.c', 'const char *f(void) { return getenv("HOME"); }\n', LAYERS, ['getenv below cli/']),
    ('src/new/new.c', 'int n;\n', LAYERS, ['src/new/', 'not in the layer diagram']),
    ('src/mid2/mid2.c', '#include "../mid1/mid1.h"\n', LAYERS, ['src/mid2/mid2.c:3', 'not with ..']),
    ('src/mid2/mid2.c', 'void f(char *d) { sprintf(d, "%d", 1); }\n', BANNED, ['src/mid2/mid2.c:3', 'sprintf']),
    ('src/cli/main.c', 'void f(char *d) { strcpy(d, "x"); }\n', BANNED, ['src/cli/main.c:4', 'strcpy']),
    ('tests/unit/mid1/t.c', 'int g(const char *s) { return atoi(s); }\n', BANNED, ['t.c:3', 'atoi']),
    ('src/top/top.c', 'int h(void) { return system ("ls"); }\n', BANNED, ['src/top/top.c:3', 'system']),
    ('src/top/top.c', 'void *h(void) { return popen("ls", "r"); }\n', BANNED, ['popen']),
    ('src/top/top.c', 'void h(char *b) { gets(b); strcat(b, "x"); }\n', BANNED, ['gets', 'strcat']),
]


def make_tree(d, extra=None):
    files = dict(CLEAN)
    if extra:
        path, text = extra
        files[path] = files.get(path, '') + text
    for path, text in files.items():
        p = os.path.join(d, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w') as f:
            f.write(text)


def run(check, tree, *extra):
    r = subprocess.run([sys.executable, check, tree] + list(extra), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def check_listed():
    """check-listed.py: 0 with every header listed, 1 naming a missing or a stale one."""
    failures = 0
    cases = [
        ("header_test_headers = ['base/base.h', 'mid1/mid1.h', 'mid1/mid1-internal.h']\n", 0, []),
        ("header_test_headers = ['base/base.h', 'mid1/mid1.h']\n", 1, ['src/mid1/mid1-internal.h', 'not in']),
        ("header_test_headers = ['base/base.h', 'mid1/mid1.h', 'mid1/mid1-internal.h', 'gone/gone.h']\n", 1,
         ['gone/gone.h', 'not in the tree']),
    ]
    for listing, want, words in cases:
        with tempfile.TemporaryDirectory() as d:
            make_tree(d)
            lst = os.path.join(d, 'tests', 'headers', 'meson.build')
            os.makedirs(os.path.dirname(lst), exist_ok=True)
            with open(lst, 'w') as f:
                f.write(listing)
            rc, out = run(LISTED, d, lst)
            missing = [w for w in words if w not in out]
            if rc != want or missing:
                print('FAIL: check-listed.py with %r: exit %d, missing %s\n%s' % (listing.strip(), rc, missing, out))
                failures += 1
            else:
                print('ok: check-listed.py exits %d with %r' % (rc, listing.strip()))
    return failures


def check_project_diagram():
    """The project's own diagram (docs/hacking.md): report/ and diff/ share a line, so
    the renderers take the diff document from doc/ and an include of diff/ from
    report/ (or of report/ from diff/) fails."""
    with open(os.path.join(ROOT, 'docs', 'hacking.md')) as f:
        hacking = f.read()
    base = {
        'docs/hacking.md': hacking,
        'src/doc/diff-result.h': '#include <stddef.h>\n',
        'src/diff/diff.h': '#include "doc/diff-result.h"\n',
        'src/report/diff-text.c': '#include "doc/diff-result.h"\n',
        'src/cli/cmd-diff.c': '#include "diff/diff.h"\n#include "report/diff.h"\n',
    }
    cases = [
        (None, 0, []),
        (('src/report/diff-text.c', '#include "diff/diff.h"\n'), 1,
         ['src/report/diff-text.c:2', 'report/ includes diff/, on its own layer']),
        (('src/diff/diff.h', '#include "report/diff.h"\n'), 1, ['src/diff/diff.h:2', 'on its own layer']),
    ]
    failures = 0
    for extra, want, words in cases:
        with tempfile.TemporaryDirectory() as d:
            files = dict(base)
            if extra:
                files[extra[0]] += extra[1]
            for path, text in files.items():
                p = os.path.join(d, path)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, 'w') as f:
                    f.write(text)
            rc, out = run(LAYERS, d)
            missing = [w for w in words if w not in out]
            if rc != want or missing:
                print('FAIL: check-layers.py on the project diagram with %r: exit %d, missing %s\n%s'
                      % (extra, rc, missing, out))
                failures += 1
            else:
                print('ok: check-layers.py on the project diagram exits %d with %r' % (rc, extra))
    return failures


def main():
    failures = check_project_diagram()
    with tempfile.TemporaryDirectory() as d:
        make_tree(d)
        for check in (LAYERS, BANNED):
            rc, out = run(check, d)
            if rc != 0:
                print('FAIL: %s on the clean tree: exit %d\n%s' % (os.path.basename(check), rc, out))
                failures += 1
    for path, text, check, words in VIOLATIONS:
        with tempfile.TemporaryDirectory() as d:
            make_tree(d, (path, text))
            rc, out = run(check, d)
            missing = [w for w in words if w not in out]
            if rc != 1 or missing:
                print('FAIL: %s with %r in %s: exit %d, missing %s\n%s'
                      % (os.path.basename(check), text.strip(), path, rc, missing, out))
                failures += 1
            else:
                print('ok: %s catches %r in %s' % (os.path.basename(check), text.strip(), path))
    failures += check_listed()
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
