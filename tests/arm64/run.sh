#!/usr/bin/env bash
# tests/arm64/run.sh [HOST_BUILD]: test tdprof under a real kernel PMU driver.
#
# Cross-builds tdprof and the harness example for aarch64 against Debian's arm64
# libraries, builds an initramfs with them, busybox and the test workloads, boots
# Debian's arm64 kernel under qemu-system-aarch64 (-M virt -cpu max: QEMU's
# emulated PMUv3, driven by the kernel's armv8_pmuv3 driver), runs
# tests/arm64/guest-tests.sh there and checks its console output on the host with
# tests/arm64/check.py, which also reads the guest's perf.data with Debian's perf
# and with HOST_BUILD/tdprof (default: build). docs/arm64-guest.md explains it all.
#
# Work directory: $TDPROF_ARM64_DIR (default build-arm64/ in the source tree):
#   dl/          the downloaded .debs (kept: a second run downloads nothing)
#   sysroot/     the arm64 libraries and headers tdprof links against
#   cross/       the Meson cross build
#   rootfs/      the initramfs tree; initrd.gz
#   guest.log    the guest's console: every command, its output and status
# The last line is `N passed, N failed, N skipped` (.ci/run reads it); the exit
# status is 0 only when nothing failed. Needs: scripts/deps.sh arm64.
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
host_build=${1:-build}
case "$host_build" in /*) ;; *) host_build=$src/$host_build ;; esac
out=${TDPROF_ARM64_DIR:-$src/build-arm64}
guest_timeout=${TDPROF_ARM64_GUEST_TIMEOUT:-200}
# QEMU counts instructions (INST_RETIRED) only in icount mode: one instruction then
# advances the virtual clock by 2^shift ns, and the cycle counter runs at 1 GHz of
# that clock, so cycles = 2^shift x instructions. Shift 1 keeps the two apart (the
# raw-event checks tell r11 from r8) at no cost in speed. docs/arm64-guest.md.
icount_shift=1
cross=aarch64-linux-gnu
triplet_dirs=("/usr/$cross/lib" "$out/sysroot/usr/lib/$cross" "$out/sysroot/lib/$cross")

# Debian's arm64 packages: the -dev packages tdprof links against, the libraries
# they need at run time, busybox for the guest's user space. The kernel is added
# below (its name carries the ABI version).
lib_pkgs="libjansson-dev libjansson4 libdw-dev libdw1 libelf-dev libelf1 libcapstone-dev libcapstone4
	libpfm4-dev libpfm4 libiberty-dev zlib1g-dev zlib1g liblzma-dev liblzma5 libbz2-dev libbz2-1.0
	libprotobuf-c-dev libprotobuf-c1"
guest_pkgs="busybox-static"

start=$(date +%s)
finished=0
summary_on_exit() {
	# a step that failed before the checks ran: say so in the form .ci/run reads
	if [ $finished = 0 ]; then
		echo "arm64: failed after $(($(date +%s) - start))s (see above)" >&2
		echo "0 passed, 1 failed, 0 skipped"
	fi
}
trap summary_on_exit EXIT

step() { echo "arm64: [$(($(date +%s) - start))s] $*" >&2; }
die() {
	echo "arm64: error: $1" >&2
	[ -n "${2:-}" ] && echo "arm64: hint: $2" >&2
	exit 1
}

for tool in qemu-system-aarch64 $cross-gcc $cross-readelf $cross-strip apt-get dpkg-deb cpio gzip python3; do
	command -v "$tool" >/dev/null || die "'$tool' is not installed" "run 'scripts/deps.sh arm64' (as root)"
done
[ -x "$host_build/tdprof" ] || die "no host tdprof at '$host_build/tdprof'" "build it first: make (or pass the build directory)"
mkdir -p "$out/dl"

# apt-get download as root warns that _apt cannot write here; download as root instead
apt_opts=()
[ "$(id -u)" = 0 ] && apt_opts=(-o APT::Sandbox::User=root)

have_deb() { compgen -G "$out/dl/${1}_*_arm64.deb" >/dev/null; }

fetch() { # fetch PKG...: download the arm64 .debs not yet in dl/
	local missing=() p
	for p in "$@"; do
		have_deb "$p" || missing+=("$p:arm64")
	done
	[ ${#missing[@]} = 0 ] && return 0
	step "downloading ${missing[*]}"
	if ! (cd "$out/dl" && apt-get "${apt_opts[@]}" -qq download "${missing[@]}" >&2); then
		# stale package lists name versions the mirror no longer has
		[ "$(id -u)" = 0 ] || die "cannot download ${missing[*]}" "run 'sudo apt-get update', then run this again"
		apt-get update -qq >&2
		(cd "$out/dl" && apt-get "${apt_opts[@]}" -qq download "${missing[@]}" >&2) ||
			die "cannot download ${missing[*]}" "is the arm64 architecture enabled? run 'scripts/deps.sh arm64'"
	fi
}

# 1. packages
kernel_meta=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^:]*\).*/\1/p' | head -n 1)
[ -n "$kernel_meta" ] || die "apt knows no arm64 kernel (linux-image-arm64:arm64)" \
	"enable the arm64 architecture: 'scripts/deps.sh arm64' as root"
kernel_pkg=$kernel_meta-unsigned
# shellcheck disable=SC2086
fetch $lib_pkgs $guest_pkgs "$kernel_pkg"

# 2. the sysroot: Debian's arm64 libraries, extracted (nothing is installed)
step "extracting the arm64 libraries into $out/sysroot"
rm -rf "$out/sysroot"
mkdir -p "$out/sysroot"
for p in $lib_pkgs; do
	dpkg-deb -x "$(compgen -G "$out/dl/${p}_*_arm64.deb" | head -n 1)" "$out/sysroot"
done
kernel=$out/kernel/vmlinuz-${kernel_meta#linux-image-}
if [ ! -f "$kernel" ]; then
	step "extracting the kernel from $kernel_pkg"
	rm -rf "$out/kernel.tmp"
	mkdir -p "$out/kernel.tmp"
	dpkg-deb --fsys-tarfile "$(compgen -G "$out/dl/${kernel_pkg}_*_arm64.deb" | head -n 1)" |
		tar -x -C "$out/kernel.tmp" --wildcards './boot/vmlinuz-*'
	mkdir -p "$out/kernel"
	mv "$out/kernel.tmp"/boot/vmlinuz-* "$kernel"
	rm -rf "$out/kernel.tmp"
fi

# 3. the cross build. The sysroot's path goes into a second machine file: with
# --sysroot the cross gcc searches its include and library directories (static
# archives included: the project prefers them) after its own arm64 libc.
libdir=$out/sysroot/usr/lib/$cross
cat >"$out/sysroot.ini" <<EOF
# written by tests/arm64/run.sh: where the arm64 sysroot is
[properties]
sys_root = '$out/sysroot'
pkg_config_libdir = ['$libdir/pkgconfig']

[built-in options]
c_args = ['--sysroot=$out/sysroot']
c_link_args = ['--sysroot=$out/sysroot', '-Wl,-rpath-link,$libdir:$out/sysroot/lib/$cross']
EOF
if [ ! -f "$out/cross/build.ninja" ]; then
	step "configuring the cross build in $out/cross"
	meson setup "$out/cross" "$src" --cross-file "$src/tests/arm64/aarch64-linux-gnu.ini" \
		--cross-file "$out/sysroot.ini" -Dtests=disabled -Dwerror=true >"$out/cross-setup.log" 2>&1 ||
		{ tail -n 30 "$out/cross-setup.log" >&2; die "meson setup of the cross build failed (log: $out/cross-setup.log)"; }
fi
step "cross-building tdprof and the harness example"
ninja -C "$out/cross" tdprof examples/harness/harness-example >"$out/cross-build.log" 2>&1 ||
	{ tail -n 30 "$out/cross-build.log" >&2; die "the cross build failed (log: $out/cross-build.log)"; }

# 4. the initramfs
step "building the initramfs"
root=$out/rootfs
rm -rf "$root"
mkdir -p "$root"/{bin,usr/bin,lib,proc,sys,dev,tmp,tests}
dpkg-deb --fsys-tarfile "$(compgen -G "$out/dl/busybox-static_*_arm64.deb" | head -n 1)" |
	tar -x -O ./bin/busybox >"$root/bin/busybox"
chmod 755 "$root/bin/busybox"
for w in busy threads branchy; do
	$cross-gcc -std=c17 -O2 -g -Wall -Wextra -pthread -o "$root/bin/$w" "$src/tests/arm64/workloads/$w.c"
done
$cross-strip --strip-debug -o "$root/usr/bin/tdprof" "$out/cross/tdprof"
$cross-strip --strip-debug -o "$root/usr/bin/harness-example" "$out/cross/examples/harness/harness-example"
install -m 755 "$src/tests/arm64/init" "$root/init"
install -m 644 "$src/tests/arm64/guest-tests.sh" "$root/tests/guest-tests.sh"

find_lib() { # find_lib NAME: the path of an arm64 library, from the cross libc or the sysroot
	local d
	for d in "${triplet_dirs[@]}"; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
# every library the programs need, and the libraries those need (LD_LIBRARY_PATH=/lib in the guest)
queue=("$root/usr/bin/tdprof" "$root/usr/bin/harness-example" "$root/bin/threads")
while [ ${#queue[@]} -gt 0 ]; do
	f=${queue[0]}
	queue=("${queue[@]:1}")
	for n in $($cross-readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -e "$root/lib/$n" ] && continue
		p=$(find_lib "$n") || die "'$f' needs '$n', which neither the cross libc nor the sysroot has" \
			"add its Debian package to lib_pkgs in tests/arm64/run.sh"
		$cross-strip --strip-debug -o "$root/lib/$n" "$p"
		queue+=("$root/lib/$n")
	done
done
cp -L "$(find_lib ld-linux-aarch64.so.1)" "$root/lib/ld-linux-aarch64.so.1"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1 >"$out/initrd.gz")

# 5. boot: the guest runs the tests and powers off; its console goes to guest.log
step "booting the guest ($(du -k "$out/initrd.gz" | cut -f1) KiB initramfs, log: $out/guest.log)"
rm -f "$out/guest.log"
boot_start=$(date +%s)
qemu_rc=0
timeout "$guest_timeout" qemu-system-aarch64 -M virt -cpu max -icount shift=$icount_shift -m 512 -smp 1 \
	-display none -monitor none -nic none -serial "file:$out/guest.log" \
	-kernel "$kernel" -initrd "$out/initrd.gz" \
	-append "console=ttyAMA0 quiet panic=-1" -no-reboot </dev/null || qemu_rc=$?
step "the guest ran for $(($(date +%s) - boot_start))s (qemu exit status $qemu_rc)"
[ $qemu_rc = 124 ] && echo "arm64: the guest did not finish within ${guest_timeout}s" >&2

# 6. the checks
step "checking the guest's output on the host"
set +e
python3 "$src/tests/arm64/check.py" --log "$out/guest.log" --tdprof "$host_build/tdprof" \
	--rootfs "$root" --out "$out" --qemu-status "$qemu_rc" --icount-shift "$icount_shift" | tee "$out/check.log"
rc=${PIPESTATUS[0]}
set -e
summary=$(tail -n 1 "$out/check.log")
if ! [[ "$summary" =~ ^[0-9]+\ passed,\ [0-9]+\ failed,\ [0-9]+\ skipped$ ]]; then
	echo "arm64: check.py ended without its summary (exit status $rc)" >&2
	summary="0 passed, 1 failed, 0 skipped"
	rc=1
fi
finished=1
echo "arm64: total wall time $(($(date +%s) - start))s"
echo "$summary"
exit "$rc"
