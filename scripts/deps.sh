#!/bin/sh
# deps.sh KIND: make sure the Debian packages tdprof needs for KIND are installed.
#   build  compile tdprof
#   demo   run `make demo` (adds valgrind: the simulated backend where no PMU is)
#   test   run `make check` (adds valgrind, perf, python3)
#   fuzz   libFuzzer targets (clang and its runtime)
#   html   the HTML report test (Chromium)
#   arm64  the arm64 guest under qemu
# Installs them when run as root; otherwise prints the exact apt-get line and fails.
set -eu
kind=${1:-build}
build="gcc make pkg-config meson ninja-build libpfm4-dev libdw-dev libelf-dev libcapstone-dev libjansson-dev libcmocka-dev libiberty-dev zlib1g-dev liblzma-dev libbz2-dev"
case "$kind" in
build) pkgs="$build" ;;
demo) pkgs="$build valgrind" ;;
# test: perf is the oracle for perf.data; g++, clang and llvm (llvm-mca) build and
# read the programs of the loop, harness, sim and line-0 tests; procps (pgrep),
# util-linux (taskset, setpriv) and passwd (useradd) drive the process tests.
test) pkgs="$build valgrind linux-perf python3 python3-jsonschema procps dwz binutils g++ clang llvm util-linux passwd" ;;
fuzz) pkgs="$build clang libclang-rt-14-dev" ;;
html) pkgs="chromium" ;;
# arm64: the cross compiler, qemu, cpio for the initramfs, perf to read the guest's
# perf.data; the arm64 libraries, kernel and busybox are downloaded by tests/arm64/run.sh
# (apt-get download: needs the arm64 foreign architecture, added below).
arm64) pkgs="$build qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio gzip linux-perf python3" ;;
*) echo "deps.sh: unknown kind '$kind' (build, demo, test, fuzz, html, arm64)" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "tdprof: note: not a Debian system; make sure these (or your distribution's equivalents) are installed: $pkgs" >&2
	exit 0
fi
missing=""
if [ "$kind" = arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
	if [ "$(id -u)" != 0 ]; then
		echo "tdprof: error: the arm64 foreign architecture is not enabled (tests/arm64 downloads arm64 packages)" >&2
		echo "tdprof: hint: run 'sudo dpkg --add-architecture arm64 && sudo apt-get update', then run make again" >&2
		exit 1
	fi
	echo "tdprof: adding the arm64 foreign architecture (for apt-get download of arm64 packages)" >&2
	dpkg --add-architecture arm64
	apt-get update -qq >&2
fi
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "tdprof: installing missing packages:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || true
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >&2
	exit 0
fi
echo "tdprof: error: missing Debian packages:$missing" >&2
echo "tdprof: hint: run 'sudo apt-get install -y$missing', then run make again" >&2
exit 1
