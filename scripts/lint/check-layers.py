#!/usr/bin/env python3
"""The layering check (docs/hacking.md, Layers).

usage: check-layers.py SOURCE_ROOT
Reads the layer diagram from SOURCE_ROOT/docs/hacking.md (the ```text block after
the line `<!-- layers -->`: one line per layer, top first, the modules of a layer
separated by spaces) and checks every C file of src/ and tests/:
  - src/<m>/ includes only its own files and modules on lower lines (no include
    upward, none between two modules of one line);
  - every folder of src/ is in the diagram;
  - a `*-internal.h` is included only from its own folder (and its module's unit
    tests, tests/unit/<m>/);
  - below cli/ nothing prints to stdout or stderr, exits or reads the environment.
Prints FILE:LINE: what for each violation and exits 1 when any.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csource  # noqa: E402

# Headers made by the build (configure_file, custom_target) in a module's build folder.
GENERATED = {'commands.h': 'cli', 'kb-data.h': 'model', 'harness-paths.h': 'harness', 'cpus-data.h': 'cpu',
             'harness-cpus-data.h': 'harness', 'pfm-aliases-data.h': 'pmu'}
# Below cli/: printing, exiting (the child of a fork may _exit), the environment.
BELOW_CLI = re.compile(r'(?<![\w.>])(printf|vprintf|puts|putchar|perror|exit|getenv|secure_getenv)\s*\('
                       r'|(?<![\w.>])(stdout|stderr)\b')


def read_layers(root):
    path = os.path.join(root, 'docs', 'hacking.md')
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    try:
        i = lines.index('<!-- layers -->')
    except ValueError:
        sys.exit('check-layers: %s: no line "<!-- layers -->" before the layer diagram' % path)
    if i + 1 >= len(lines) or lines[i + 1].strip() != '```text':
        sys.exit('check-layers: %s:%d: the layer diagram must be a ```text block' % (path, i + 2))
    rank = {}
    rows = []
    for line in lines[i + 2:]:
        if line.strip() == '```':
            break
        mods = line.split('#')[0].split()
        if mods:
            rows.append(mods)
    for r, mods in enumerate(reversed(rows)):
        for m in mods:
            rank[m] = r
    if not rank:
        sys.exit('check-layers: %s: the layer diagram is empty' % path)
    return rank


def target_of(root, path, inc, angle, modules):
    """The module an include names (None: a system or library header)."""
    if angle:
        return 'harness' if inc.startswith('tdprof/') else None
    here = os.path.dirname(path)
    parts = path.split(os.sep)
    first = inc.split('/')[0]
    if os.path.exists(os.path.join(root, here, inc)):
        if parts[0] == 'src':
            return parts[1]
    if first in modules and '/' in inc:
        return first
    if inc in GENERATED:
        return GENERATED[inc]
    if parts[:2] == ['tests', 'unit'] and len(parts) > 3:
        return parts[2]  # a header of the module under test, by its include directory
    return None


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    rank = read_layers(root)
    modules = sorted(d for d in os.listdir(os.path.join(root, 'src'))
                     if os.path.isdir(os.path.join(root, 'src', d)))
    bad = []
    for m in modules:
        if m not in rank:
            bad.append('src/%s/: not in the layer diagram of docs/hacking.md' % m)
    for path, text in csource.sources(root, ['src', 'tests']):
        parts = path.split(os.sep)
        own = parts[1] if parts[0] == 'src' else None
        tested = parts[2] if parts[:2] == ['tests', 'unit'] and len(parts) > 3 else None
        for mt in csource.INCLUDE.finditer(text):
            inc, angle = mt.group(2), mt.group(1) == '<'
            line = csource.line_of(text, mt.start())
            if '..' in inc.split('/'):
                bad.append('%s:%d: "%s": include by module path, not with ..' % (path, line, inc))
                continue
            tgt = target_of(root, path, inc, angle, modules)
            if tgt is None:
                continue
            if inc.endswith('-internal.h') and tgt not in (own, tested):
                bad.append('%s:%d: "%s" is internal to src/%s/' % (path, line, inc, tgt))
            if own is None or tgt == own or own not in rank or tgt not in rank:
                continue
            if rank[tgt] > rank[own]:
                bad.append('%s:%d: "%s": %s/ includes %s/, a layer above it' % (path, line, inc, own, tgt))
            elif rank[tgt] == rank[own]:
                bad.append('%s:%d: "%s": %s/ includes %s/, on its own layer' % (path, line, inc, own, tgt))
        if own is not None and own != 'cli':
            code = csource.strip(text)
            for mt in BELOW_CLI.finditer(code):
                what = mt.group(1) or mt.group(2)
                bad.append('%s:%d: %s below cli/ (only cli/ prints, exits and reads the environment)'
                           % (path, csource.line_of(code, mt.start()), what))
    for b in bad:
        print(b)
    if bad:
        print('check-layers: %d violation%s' % (len(bad), '' if len(bad) == 1 else 's'), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
