#!/usr/bin/env python3
"""The branch predictor links into a valgrind tool: compiled freestanding
(-ffreestanding -nostdlib -fno-builtin, no include path, as vgtool/ compiles it by
path) at every optimisation level, its objects have no undefined symbol (no memset,
memcpy or libgcc helper a tool cannot link). -fno-stack-protector as valgrind's own
tool flags. Usage: check-bpred-freestanding.py NM CC [CC ARGS...]"""
import os
import subprocess
import sys
import tempfile

SOURCES = ['bpred.c', 'bpred-presets.c']


def main():
    nm, cc = sys.argv[1], sys.argv[2:]
    src = os.path.join(os.environ['TDPROF_SOURCE_ROOT'], 'src', 'sim')
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for opt in ['-O0', '-O2', '-O3', '-Os']:
            for name in SOURCES:
                obj = os.path.join(tmp, name + opt + '.o')
                cmd = cc + ['-std=c17', opt, '-Wall', '-Wextra', '-Werror', '-ffreestanding', '-nostdlib',
                            '-fno-builtin', '-fno-stack-protector', '-c', os.path.join(src, name), '-o', obj]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    bad.append('%s %s: does not compile freestanding:\n%s' % (name, opt, r.stderr))
                    continue
                undef = subprocess.run([nm, '-u', obj], capture_output=True, text=True, check=True).stdout.split()
                undef = [u for u in undef if u not in ('U',)]
                if undef:
                    bad.append('%s %s: undefined symbols %s' % (name, opt, ' '.join(undef)))
    for b in bad:
        print(b)
    if not bad:
        print('bpred compiles freestanding with no undefined symbol at -O0, -O2, -O3, -Os')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
