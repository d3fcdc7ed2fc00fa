#!/bin/sh
# bench/run.sh BUILDDIR: every benchmark, side by side with perf and valgrind in the
# same run, as ratios; `make bench` runs it. The scripts that measure against a
# target print "ok"/"MISSED"; the ones with --write update their section of
# bench/RESULTS.md. Run on a quiet machine: other load skews the medians.
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
status=0

run() {
	echo
	echo "=== $*"
	"$@" || status=1
}

echo "machine: $(uname -srm), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
run python3 "$here/stat-startup.py" --tdprof "$build/tdprof"
[ -f "$here/branches-report.py" ] && run python3 "$here/branches-report.py" --build "$build"
[ -f "$here/why-sim.py" ] && run python3 "$here/why-sim.py" --build "$build" --write "$here/RESULTS.md"
[ -f "$here/bpred-accuracy.py" ] && run python3 "$here/bpred-accuracy.py" --build "$build" --write
[ -f "$here/bpred-speed.py" ] && run python3 "$here/bpred-speed.py" --build "$build" --lines 400000
[ -f "$here/loop-spread.py" ] && run python3 "$here/loop-spread.py" --build "$build"
[ -f "$here/branches-rss.py" ] && run python3 "$here/branches-rss.py" --build "$build"
[ -f "$here/diff-large.py" ] && run python3 "$here/diff-large.py" --build "$build"
[ -f "$here/import-append.py" ] && run python3 "$here/import-append.py" --build "$build" --write "$here/RESULTS.md"
[ -f "$here/pipe-stream.py" ] && run python3 "$here/pipe-stream.py" --build "$build"
[ -x "$build/bench/perfdata-read" ] && [ -x "$build/bench/gen-big-perfdata" ] && {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	shared="$here/../../shared/data/perfdata/perf.data.branch_stack_spec"
	if [ -f "$shared" ]; then
		run "$build/bench/gen-big-perfdata" "$shared" "$tmp/big.data" 200000
		run "$build/bench/perfdata-read" "$tmp/big.data"
	fi
}
exit $status
