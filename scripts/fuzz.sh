#!/usr/bin/env bash
# scripts/fuzz.sh SECONDS [TARGET...]: run each libFuzzer target for SECONDS.
#
# Builds build-fuzz/ (FUZZ_BUILD) with clang, libFuzzer, ASan and UBSan (the
# libraries instrumented with -fsanitize=fuzzer-no-link), then runs the targets of
# tests/fuzz/ (all, or those named) FUZZ_JOBS at a time (default 2: one per CPU).
# Each starts from its seed corpus (tests/fuzz/corpus/<target>, the test fixtures
# and seeds cut from the real recordings in the shared data, when present) and
# keeps what it finds in build-fuzz/fuzz-corpus/<target>/ for the next run.
# A crash, leak, timeout (> FUZZ_TIMEOUT s on one input), out-of-memory (RSS over
# FUZZ_RSS_MB) or sanitizer report fails the target; the input is saved as
# tests/fuzz/corpus/<target>/{crash,leak,timeout,oom}-<sha1> for triage (the
# corpus replayer of `make check` then replays it: fix the parser, keep the file
# as a regression seed). Logs: build-fuzz/fuzz-logs/<target>.log.
# Prints per target its executions, and as its last line
# `N passed, N failed, N skipped` (one test per target).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
build=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-2}
timeout_s=${FUZZ_TIMEOUT:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
shared=${TDPROF_SHARED_DATA:-$(pwd)/../shared/data}

all_targets() {
	for f in tests/fuzz/fuzz-*.c; do
		t=${f#tests/fuzz/fuzz-}
		echo "${t%.c}"
	done
}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(all_targets)

# Largest input per target (libFuzzer's -max_len).
max_len() {
	case "$1" in
	perfdata | perfdata-records | branch-load) echo 65536 ;;
	import | cachegrind | callgrind | spe) echo 32768 ;;
	events | events-pfm | sim-machine-file | expr) echo 8192 ;;
	*) echo 4096 ;;
	esac
}
# Fixture directories of the tests that seed a target too.
extra_seeds() {
	case "$1" in
	import) echo tests/data/import ;;
	perfdata) echo tests/data/perfdata ;;
	branch-load) echo tests/fuzz/corpus/perfdata "$seeds/perfdata" ;;
	esac
}

if ! command -v clang >/dev/null 2>&1; then
	echo "fuzz: error: clang not found" >&2
	echo "fuzz: hint: run 'scripts/deps.sh fuzz' (installs clang and libclang-rt-14-dev)" >&2
	echo "0 passed, ${#targets[@]} failed, 0 skipped"
	exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Dfuzzing_engine=libfuzzer -Dtests=enabled \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined" >"${TMPDIR:-/tmp}/tdprof-fuzz-setup.log" 2>&1 ||
		{ cat "${TMPDIR:-/tmp}/tdprof-fuzz-setup.log" >&2; echo "0 passed, ${#targets[@]} failed, 0 skipped"; exit 1; }
fi
ninja_targets=()
for t in "${targets[@]}"; do
	ninja_targets+=("tests/fuzz/fuzz-$t")
done
if ! ninja -C "$build" "${ninja_targets[@]}" >"$build/fuzz-build.log" 2>&1; then
	tail -n 40 "$build/fuzz-build.log" >&2
	echo "0 passed, ${#targets[@]} failed, 0 skipped"
	exit 1
fi

# Seeds cut from the shared recordings (generated here, never committed).
seeds="$build/fuzz-seeds"
mkdir -p "$seeds/perfdata" "$seeds/perfdata-records" "$seeds/cachegrind" "$seeds/callgrind" "$build/fuzz-logs"
if [ -d "$shared/perfdata" ]; then
	for f in "$shared"/perfdata/perf.data.*; do
		[ -f "$f" ] || continue
		python3 tests/fuzz/shrink-perfdata.py "$f" "$seeds/perfdata" "$(basename "$f")"
		mv -f "$seeds/perfdata/$(basename "$f").records" "$seeds/perfdata-records/" 2>/dev/null
	done
fi
mkdir -p "$seeds/spe"
for f in "$shared"/spe/*.txt; do # hex packets in quotes, one packet a line
	[ -f "$f" ] && python3 -c 'import re, sys
sys.stdout.buffer.write(bytes.fromhex("".join(re.findall(r"\"([0-9a-fA-F ]+)\"", open(sys.argv[1]).read()))))' \
		"$f" >"$seeds/spe/$(basename "$f" .txt).bin"
done
[ -f "$shared/cachegrind/cachegrind.out.brmix_O0" ] && cp -f "$shared/cachegrind/cachegrind.out.brmix_O0" "$seeds/cachegrind/"
[ -f "$shared/cachegrind/callgrind.out.brmix_O0" ] && cp -f "$shared/cachegrind/callgrind.out.brmix_O0" "$seeds/callgrind/"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

run_one() { # run_one TARGET: writes $build/fuzz-logs/TARGET.{log,status}
	local t=$1 bin="$build/tests/fuzz/fuzz-$1" work="$build/fuzz-corpus/$1" dirs=()
	local log="$build/fuzz-logs/$t.log"
	mkdir -p "$work"
	dirs=("$work" "tests/fuzz/corpus/$t")
	for d in $(extra_seeds "$t") "$seeds/$t"; do
		[ -d "$d" ] && dirs+=("$d")
	done
	"$bin" "${dirs[@]}" -max_total_time="$secs" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
		-max_len="$(max_len "$t")" -artifact_prefix="tests/fuzz/corpus/$t/" -print_final_stats=1 \
		-detect_leaks=1 >"$log" 2>&1
	echo $? >"$build/fuzz-logs/$t.status"
}

passed=0 failed=0 skipped=0 running=0
for t in "${targets[@]}"; do
	if [ ! -x "$build/tests/fuzz/fuzz-$t" ]; then
		continue
	fi
	rm -f "$build/fuzz-logs/$t.status"
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
for t in "${targets[@]}"; do
	log="$build/fuzz-logs/$t.log"
	if [ ! -x "$build/tests/fuzz/fuzz-$t" ]; then
		echo "skip $t: not built (its parser is not in this tree)"
		skipped=$((skipped + 1))
		continue
	fi
	status=$(cat "$build/fuzz-logs/$t.status" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	if [ "$status" = 0 ]; then
		echo "ok   $t: ${execs:-?} executions in ${secs}s (${cov:-cov: ?})"
		passed=$((passed + 1))
	else
		echo "FAIL $t: exit $status after ${execs:-?} executions; log $log"
		grep -E 'ERROR: |SUMMARY: |fuzz check failed|runtime error|Test unit written' "$log" | head -n 8 | sed 's/^/     /'
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
