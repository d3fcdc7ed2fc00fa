#!/bin/sh
# The guest side of tests/arm64: run tdprof and the test programs under the
# armv8_pmuv3 driver and print everything, between markers, on the console.
# Nothing is judged here: tests/arm64/check.py reads the console log on the host.
#
#   @@@ begin NAME                       a test starts
#   @@@ stdout / @@@ stderr              what it wrote
#   @@@ end NAME rc=N ms=N               its exit status and wall time (guest clock)
#   @@@ file NAME / @@@ endfile NAME     a file, gzip + base64 (perf.data)
#
# The workloads are short: the guest runs under TCG emulation.

uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# run NAME CMD [ARGS]: run one command and print its output between markers
run() {
	name=$1
	shift
	echo "@@@ begin $name"
	echo "@@@ cmd $*"
	t0=$(uptime_ms)
	"$@" >/tmp/out 2>/tmp/err
	rc=$?
	t1=$(uptime_ms)
	echo "@@@ stdout"
	cat /tmp/out
	echo "@@@ stderr"
	cat /tmp/err
	echo "@@@ end $name rc=$rc ms=$((t1 - t0))"
}

# send NAME FILE: copy a file to the host over the console
send() {
	echo "@@@ file $1"
	if [ -f "$2" ]; then
		gzip -c "$2" | base64
	fi
	echo "@@@ endfile $1"
}

# facts the host compares tdprof's report with, read here without tdprof
run kernel-pmu sh -c 'dmesg | grep -i "perfevents\|pmu"; uname -r'
run sysfs-pmu sh -c 'd=/sys/bus/event_source/devices/armv8_pmuv3
	echo "type $(cat $d/type)"
	for f in $d/caps/*; do echo "cap_${f##*/} $(cat $f)"; done
	echo "events $(ls $d/events | tr "\n" " ")"
	echo "midr $(cat /sys/devices/system/cpu/cpu0/regs/identification/midr_el1)"
	echo "perf_user_access $(cat /proc/sys/kernel/perf_user_access)"
	echo "perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"'

run info-text tdprof info
run info-json tdprof info --json

# hardware cycles and instructions against task-clock, one thread and four
run stat-busy tdprof stat --json -e task-clock,cycles,instructions -- busy 20
run stat-threads tdprof stat --json -e task-clock,cycles,instructions -- threads 4 5
run stat-default tdprof stat -- busy 10

# raw syntax: CPU_CYCLES is event 0x11, INST_RETIRED 0x08 (Arm ARM, PMUv3)
run stat-raw tdprof stat --json -e cycles,r11,armv8_pmuv3/event=0x11/,armv8_pmuv3/cpu_cycles/,instructions,r8 -- busy 20

# 10 hardware events for 7 counters (6 + the cycle counter): the kernel multiplexes
run stat-mux tdprof stat --json -e cycles,instructions,r11,r8,r11,r8,r11,r8,r11,r8 -- busy 40

# events QEMU's PMU does not implement: <not supported>, never 0
run stat-branches tdprof stat --json -e cycles,branches,branch-misses -- branchy 5

# top-down: QEMU's cpu max has no slot events (caps/slots = 0) and no model
run topdown tdprof topdown -- busy 5
run topdown-json tdprof topdown --json -- busy 5
# the cycle-accounting model (STALL_FRONTEND, STALL_BACKEND: QEMU has them, and counts 0)
run topdown-cycles tdprof topdown --cpu neoverse-n1 --json -- busy 5

# sampling: cycles overflow interrupts into a perf.data (no branch stack on QEMU)
if tdprof branches record --help >/dev/null 2>&1; then
	run record tdprof branches record --no-branch-stack -e cycles -c 100000 -o /tmp/perf.data -- busy 20
	send perf.data /tmp/perf.data
else
	echo "@@@ skip record: this tdprof has no 'branches record' command"
fi

# tdprof why on the PMU: no top-down model here (no slot events), so the counted run gives the
# triage and the drill-down samples a second run by its cycles IPs (QEMU records no branches)
run why-pmu tdprof why --backend=pmu --json -- busy 5
run why-pmu-text tdprof why --backend=pmu -- branchy 2

# issue 18: the drill-down reruns the workload per step. Neoverse N1's cycle accounting is counted here
# (QEMU counts STALL_FRONTEND and STALL_BACKEND, as 0): one step, each node with its run; Neoverse
# N2's slot events are not counted by QEMU: the honest outcome is an error naming them, no figures
run drilldown tdprof topdown --drilldown --cpu neoverse-n1 --json -- busy 5
run drilldown-nomux tdprof topdown --drilldown --no-multiplex --cpu neoverse-n1 -- busy 5
run drilldown-n2 tdprof topdown --drilldown --cpu neoverse-n2 --json -- busy 5

# issue 18: why on the PMU drills its tree down as topdown --drilldown does (Arm's trees are one level deep:
# one step), then samples the dominant leaf's Locate-with event: QEMU opens STALL_FRONTEND but never counts
# it, so the honest outcome is "not located" and cycles samples instead. N2: QEMU counts no OP_RETIRED /
# OP_SPEC, so Retiring and Bad Speculation are null with their reason.
run why-drill tdprof why --backend=pmu --cpu neoverse-n1 --json -- busy 5
run why-drill-text tdprof why --backend=pmu --cpu neoverse-n1 --no-multiplex -- busy 5
run why-drill-n2 tdprof why --backend=pmu --cpu neoverse-n2 --json -- busy 5

# issue 18: per-function top-down from group reads, sampled by the PMU driver: cycles leading
# instructions (both counted by QEMU), the recording sent to the host; then the model's own group
# (N1: CPU_CYCLES leading the stall events)
run byfunc-group tdprof topdown --by function -e '{cycles,instructions}' --cpu neoverse-n1 --save-data /tmp/gr.data --json -- busy 20
send gr.data /tmp/gr.data
run byfunc-model tdprof topdown --by function --cpu neoverse-n1 --json -- busy 5

# the harness library: user-space counter reads (mrs) when perf_user_access = 1,
# read() of the group when it is 0
echo 1 >/proc/sys/kernel/perf_user_access
run harness-user harness-example --json
echo 0 >/proc/sys/kernel/perf_user_access
run harness-read harness-example --json
