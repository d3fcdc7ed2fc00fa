#!/bin/sh
# deps.sh KIND: make sure the Debian packages tdprof needs for KIND are installed.
#   build  compile tdprof
#   demo   run `make demo` (adds valgrind and llvm's llvm-mca: the simulated backend where no
#          PMU is, and its core model)
#   test   run `make check` (adds valgrind, perf, python3)
#   fuzz   libFuzzer targets (clang and its runtime)
#   html   the HTML report test (Chromium)
#   arm64  the arm64 guest under qemu
#   perf612  only the perf 6.12 step below (also part of `test`)
# Installs them when run as root; otherwise prints the exact apt-get line and fails.
#
# The test kind also fetches Debian's linux-perf 6.12 (bookworm-backports) for the
# differential test of the models against current perf's metric definitions
# (tests/e2e/test_perf_metrics.py): downloaded with apt-get download through a private
# apt configuration (the system's sources stay as they are), unpacked with dpkg -x
# with the shared libraries it needs that this system lacks, into
# $TDPROF_PERF612 (default /var/cache/tdprof-perf612 as root, else
# ~/.cache/tdprof-perf612). Quick when already there; offline, it warns and the
# test skips.
set -eu
kind=${1:-build}

perf612_dir() {
	if [ -n "${TDPROF_PERF612:-}" ]; then
		echo "$TDPROF_PERF612"
	elif [ "$(id -u)" = 0 ]; then
		echo /var/cache/tdprof-perf612
	else
		echo "${XDG_CACHE_HOME:-$HOME/.cache}/tdprof-perf612"
	fi
}

# perf612_libpath ROOT: the library directories of the unpacked packages.
perf612_libpath() {
	lp=""
	for d in "$1"/usr/lib/*-linux-gnu "$1"/lib/*-linux-gnu; do
		[ -d "$d" ] && lp="$lp${lp:+:}$d"
	done
	echo "$lp"
}

perf612_ok() {
	[ -x "$1/root/usr/bin/perf" ] &&
		LD_LIBRARY_PATH=$(perf612_libpath "$1/root") "$1/root/usr/bin/perf" --version 2>/dev/null | grep -q '^perf version 6\.12'
}

# Never fails the caller: without perf 6.12 the differential test skips.
perf612() {
	dir=$(perf612_dir)
	perf612_ok "$dir" && return 0
	if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
		echo "tdprof: note: no apt-get/dpkg: the perf 6.12 differential test will skip" >&2
		return 0
	fi
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	if [ ! -r "$keyring" ]; then
		echo "tdprof: note: $keyring missing (debian-archive-keyring): the perf 6.12 differential test will skip" >&2
		return 0
	fi
	echo "tdprof: fetching Debian's linux-perf 6.12 (bookworm-backports) into $dir for the differential test" >&2
	if ! perf612_fetch "$dir" "$keyring"; then
		echo "tdprof: warning: could not fetch linux-perf 6.12 (offline?): the perf 6.12 differential test will skip" >&2
	fi
	return 0
}

perf612_fetch() (
	dir=$1
	apt="$dir/apt"
	set -e
	rm -rf "$dir/root" "$dir/debs"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$dir/debs"
	# bookworm for libraries this system lacks (a fresh machine has no libtraceevent1...)
	{
		echo "deb [signed-by=$2] http://deb.debian.org/debian bookworm main"
		echo "deb [signed-by=$2] http://deb.debian.org/debian bookworm-backports main"
	} >"$apt/sources.list"
	set -- -q -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts" \
		-o "Dir::Etc::PreferencesParts=$apt/parts" -o "Dir::Etc::Preferences=$apt/none" \
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1
	[ "$(id -u)" = 0 ] && set -- "$@" -o APT::Sandbox::User=root
	apt-get "$@" update >&2
	ver=$(apt-cache "$@" madison linux-perf | awk -F'|' '$2 ~ /^ *6\.12/ { gsub(/ /, "", $2); print $2; exit }')
	[ -n "$ver" ] || { echo "tdprof: no linux-perf 6.12 in bookworm-backports" >&2; exit 1; }
	# What installing it would add or upgrade here (dependencies included), from the
	# system's own dpkg status: those are the packages to unpack beside it.
	pkgs=$(apt-get "$@" -s install --no-install-recommends "linux-perf=$ver" |
		awk '$1 == "Inst" { print $2 }' | grep -v '^linux-libc-dev$')
	# shellcheck disable=SC2086
	(cd "$dir/debs" && apt-get "$@" download $pkgs >&2)
	for deb in "$dir"/debs/*.deb; do
		dpkg -x "$deb" "$dir/root"
	done
	rm -rf "$dir/debs"
	perf612_ok "$dir" || { echo "tdprof: the unpacked perf 6.12 does not run" >&2; exit 1; }
	echo "$ver" >"$dir/version"
)
build="gcc make pkg-config meson ninja-build libpfm4-dev libdw-dev libelf-dev libcapstone-dev libjansson-dev libcmocka-dev libiberty-dev zlib1g-dev liblzma-dev libbz2-dev libprotobuf-c-dev protobuf-c-compiler"
case "$kind" in
build) pkgs="$build" ;;
demo) pkgs="$build valgrind llvm" ;;
# test: perf is the oracle for perf.data; g++, clang and llvm (llvm-mca) build and
# read the programs of the loop, harness, sim and line-0 tests; procps (pgrep),
# util-linux (taskset, setpriv) and passwd (useradd) drive the process tests; bash and zsh
# load the completion scripts; debuginfod brings debuginfod-find, the client tdprof runs to fetch
# debug info when DEBUGINFOD_URLS is set.
test) pkgs="$build valgrind linux-perf python3 python3-jsonschema procps dwz binutils g++ clang llvm util-linux passwd protobuf-compiler bash zsh debuginfod" ;;
fuzz) pkgs="$build clang libclang-rt-14-dev" ;;
html) pkgs="chromium" ;;
# arm64: the cross compiler, qemu, cpio for the initramfs, perf to read the guest's
# perf.data; the arm64 libraries, kernel and busybox are downloaded by tests/arm64/run.sh
# (apt-get download: needs the arm64 foreign architecture, added below).
perf612) perf612; exit 0 ;;
arm64) pkgs="$build qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio gzip linux-perf python3" ;;
*) echo "deps.sh: unknown kind '$kind' (build, demo, test, fuzz, html, arm64, perf612)" >&2; exit 2 ;;
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
if [ -z "$missing" ]; then
	[ "$kind" = test ] && perf612
	exit 0
fi
if [ "$(id -u)" = 0 ]; then
	echo "tdprof: installing missing packages:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || true
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >&2
	[ "$kind" = test ] && perf612
	exit 0
fi
echo "tdprof: error: missing Debian packages:$missing" >&2
echo "tdprof: hint: run 'sudo apt-get install -y$missing', then run make again" >&2
exit 1
