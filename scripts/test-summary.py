#!/usr/bin/env python3
"""Summarise Meson test logs as `N passed, N failed, N skipped`.

usage: test-summary.py [--label L] [--log NAME] BUILDDIR...   (several dirs are added up)
Reads BUILDDIR/meson-logs/NAME.json (default testlog; meson names it
testlog-<wrapper>.json when tests run under --wrapper, e.g. testlog-valgrind),
one JSON object per test. A missing log counts as one failure so a build that
never ran its tests cannot look green.
"""
import json
import os
import sys

args = sys.argv[1:]
label = None
logname = "testlog"
while args[:1] in (["--label"], ["--log"]):
    if args[0] == "--label":
        label = args[1]
    else:
        logname = args[1]
    args = args[2:]
passed = failed = skipped = 0
for d in args:
    log = os.path.join(d, "meson-logs", logname + ".json")
    if not os.path.exists(log):
        print("no test log in %s" % d, file=sys.stderr)
        failed += 1
        continue
    with open(log) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line).get("result", "")
            if r in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif r == "SKIP":
                skipped += 1
            else:
                failed += 1
prefix = "%s: " % label if label else ""
print("%s%d passed, %d failed, %d skipped" % (prefix, passed, failed, skipped))
sys.exit(1 if failed else 0)
