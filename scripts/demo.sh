#!/bin/sh
# scripts/demo.sh BUILDDIR: what `make demo` runs after building tdprof and the examples.
# It runs `tdprof why` on the branch demo (examples/branch/branch.c): an `if` on 1 MiB of
# random data (too much for any predictor to learn by heart) that mispredicts half of the time. On a machine without a hardware PMU tdprof
# simulates the run under valgrind and says so; either way it names the guilty line.
set -eu
build=${1:-build}
tdprof="$build/tdprof"
demo="$build/examples/branch/demo-branch"
for f in "$tdprof" "$demo"; do
	if [ ! -x "$f" ]; then
		echo "demo: '$f' is missing: run 'make' first" >&2
		exit 2
	fi
done
if ! command -v valgrind >/dev/null 2>&1; then
	echo "demo: note: valgrind is not installed; without a hardware PMU tdprof needs it" >&2
	echo "demo: note: 'sudo apt-get install valgrind' (or 'scripts/deps.sh test' as root)" >&2
fi
src=$(dirname "$0")/..
line=$(grep -n "tdprof-demo: MISPREDICT" "$src/examples/branch/branch.c" | cut -d: -f1)
echo "The branch demo sums the elements >= 128 of an array of 1 MiB of random bytes:"
echo "the 'if' at examples/branch/branch.c:$line is taken at random, half of the time."
echo
echo "\$ $tdprof why -- $demo"
echo
"$tdprof" why -- "$demo"
echo
echo "The same loop on sorted data is predicted and several times faster; compare:"
echo "\$ $tdprof why -- $demo sorted"
