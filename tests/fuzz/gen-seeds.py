#!/usr/bin/env python3
"""Write the hand-made seed inputs of the fuzz targets into tests/fuzz/corpus/.

usage: gen-seeds.py [CORPUS_DIR]   (default: corpus/ beside this script)

Seeds are small valid inputs (and a few near misses) of each parser, written
here from the formats' documentation, so that the fuzzer starts inside each
grammar. Deterministic: running it again rewrites the same files. Regression
seeds (inputs that once crashed a parser) are added by hand as
corpus/<target>/regress-<what>, and crashers that scripts/fuzz.sh saves as
corpus/<target>/crash-<sha1>; neither is touched here.
"""
import os
import struct
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


# --- event specifications (pmu/event.h) -------------------------------------
for i, s in enumerate([
        "cycles", "instructions:u,branch-misses:k", "{slots,topdown-retiring,topdown-bad-spec}",
        "cpu/event=0x3c,umask=0x0,cmask=1,edge,inv/u", "cpu/topdown-retiring/", "r01c2:ppp",
        "INT_MISC.RECOVERY_CYCLES:c=1:e", "inst_retired.any:upp", "msr/tsc/", "power/energy-pkg/",
        "armv8_pmuv3_0/stall_slot/", "cpu/mem-loads,ldlat=30/P", "task-clock,cs,migrations,faults",
        "L1-dcache-load-misses,LLC-loads,dTLB-load-misses", "cpu/config=0x1234,config1=5,name=x/S",
        "{cycles,instructions}:W", "cpu/period=1000,freq=0/D", "de_no_dispatch_per_slot.no_ops_from_frontend",
        "cpu/event=0x3c/,cpu/frontend=0x11/", "ls_not_halted_cyc:G,ex_ret_ops:H", "cpu/wide=0xff/",
        "cycles/period=1000,name=c/u,cpu-clock/freq=99/:k"]):
    put("events", "%02d" % i, s)
for i, s in enumerate([
        "INT_MISC.RECOVERY_CYCLES:c=1:e", "inst_retired.any:upp", "INST_RETIRED:ANY_P:k",
        "CPU_CLK_UNHALTED.THREAD", "de_no_dispatch_per_slot.no_ops_from_frontend",
        "ex_ret_brn_misp,ls_not_halted_cyc:u", "RETIRED_OPS:i", "{ex_ret_ops,ls_not_halted_cyc}:W",
        "amd64_fam19h_zen4::RETIRED_BRANCH_INSTRUCTIONS", "cycles,retired_ops:c=2:t=1"]):
    put("events-pfm", "%02d" % i, s)

# --- perf stat output (import/import.h) ---------------------------------------
put("import", "csv-semicolon", "1234;;cycles;1000;100.00;;\n56;;instructions;1000;100.00;0.05;insn per cycle\n")
put("import", "csv-interval-percpu",
    "     1.001;CPU0;100;;cycles;500;50.00;;\n     1.001;CPU1;<not counted>;;cycles;0;0.00;;\n"
    "     2.002;CPU0;200;;cycles;500;50.00;;\n")
put("import", "csv-repeat", "10.5,msec,task-clock,3.49%,10500000,100.00,0.987,CPUs utilized\n")
put("import", "json-61",
    '{"counter-value" : "1234.000000", "unit" : "", "event" : "cycles", "event-runtime" : 1000, '
    '"pcnt-running" : 100.00, "metric-value" : 0.000000, "metric-unit" : "GHz"}\n'
    '{"counter-value" : "<not supported>", "unit" : "", "event" : "branches", "event-runtime" : 0, '
    '"pcnt-running" : 0.00, "metric-value" : 0.000000, "metric-unit" : "", }\n')
put("import", "json-613",
    '{"interval" : 1.000, "cpu" : "0", "counter-value" : "5.00", "unit" : "msec", "event" : "task-clock", '
    '"event-runtime" : 5000000, "pcnt-running" : 100.00, "metric-value" : "0.005", "metric-unit" : "CPUs utilized"}\n')
put("import", "text",
    "$ perf stat ./x\n\n Performance counter stats for './x':\n\n"
    "              1.23 msec task-clock                #    0.873 CPUs utilized          \n"
    "         1,234,567      cycles                    #    1.000 GHz                      (83.33%)\n"
    "     <not counted>      instructions                                                (0.00%)\n"
    "   <not supported>      branches                                                    \n"
    "            12,345      branch-misses             #    1.23% of all branches          ( +-  2.00% )\n\n"
    "       0.001409000 seconds time elapsed\n\n       0.001000000 seconds user\n"
    "       0.000000000 seconds sys\n\n")
put("import", "text-interval",
    "#           time             counts unit events\n"
    "     1.000965000              1,001      context-switches                                            \n"
    "     2.002100000                  3      context-switches                                            \n")
put("import", "text-r", "\n Performance counter stats for 'true' (5 runs):\n\n"
    "              0.50 msec task-clock:u              #    0.500 CPUs utilized            ( +-  1.50% )\n\n"
    "          0.001 +- 0.000100 seconds time elapsed  ( +-  10.00% )\n\n")
# the running and unit columns of text rows: units, glued and spaced percentages,
# and the running values the importer refuses ((abc%), (nan%), (101%))
put("import", "text-running-units", "\n Performance counter stats for 'x':\n\n"
    "          2,000.50 msec cpu-clock                 #    1.000 CPUs utilized             (99.99%)\n"
    "               150 ns   duration_time             #  150.0 ns                          (100.00%)\n"
    "             5,000      cycles:u                  #    2.50 GHz                        ( +-  0.50% )  (50.00%)\n"
    "             1,000      instructions              #    0.20  insn per cycle          \n"
    "                                                  #    12.5% stalled                   (0.01%)\n")
put("import", "text-running-bad", "\n Performance counter stats for 'x':\n\n"
    "             1,000      cycles                                                      (abc%)\n"
    "             1,000      instructions                                                (nan%)\n"
    "             1,000      branches                                                    (101%)\n"
    "             1,000      branch-misses             ( +- -1% )\n")

# --- perf.data (perfdata/perfdata.h) ------------------------------------------
# A file-mode image: header, one attr (software cpu-clock) with one id, a data
# section of records and a HOSTNAME + CPUID feature section.
MAGIC = b"PERFILE2"
ST_IP, ST_TID, ST_TIME, ST_ADDR, ST_READ, ST_CALLCHAIN, ST_ID, ST_CPU, ST_PERIOD = (
    1, 2, 4, 8, 16, 32, 64, 128, 256)
ST_BRANCH_STACK, ST_IDENTIFIER = 1 << 11, 1 << 16
SAMPLE_ID_ALL = 1 << 18


def attr(sample_type, read_format=0, flags=SAMPLE_ID_ALL, branch_sample_type=0, size=128):
    a = bytearray(size)
    struct.pack_into("<IIQQQQQ", a, 0, 1, size, 0, 10000, sample_type, read_format, flags)
    struct.pack_into("<Q", a, 72, branch_sample_type)
    return bytes(a)


def rec(rtype, body, misc=0):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def sample_id(st, pid=42, tid=42, time=1000, id_=7, cpu=1):
    """The sample_id trailer (sample_id_all) for sample_type st."""
    b = b""
    if st & ST_TID:
        b += struct.pack("<II", pid, tid)
    if st & ST_TIME:
        b += struct.pack("<Q", time)
    if st & ST_ID:
        b += struct.pack("<Q", id_)
    if st & ST_CPU:
        b += struct.pack("<II", cpu, 0)
    if st & ST_IDENTIFIER:
        b += struct.pack("<Q", id_)
    return b


def sample(st, ip, branches=(), callchain=(), hw_idx=None):
    b = b""
    if st & ST_IDENTIFIER:
        b += struct.pack("<Q", 7)
    if st & ST_IP:
        b += struct.pack("<Q", ip)
    if st & ST_TID:
        b += struct.pack("<II", 42, 42)
    if st & ST_TIME:
        b += struct.pack("<Q", 2000)
    if st & ST_ID:
        b += struct.pack("<Q", 7)
    if st & ST_CPU:
        b += struct.pack("<II", 1, 0)
    if st & ST_PERIOD:
        b += struct.pack("<Q", 10000)
    if st & ST_CALLCHAIN:
        b += struct.pack("<Q", len(callchain)) + b"".join(struct.pack("<Q", c) for c in callchain)
    if st & ST_BRANCH_STACK:
        b += struct.pack("<Q", len(branches))
        if hw_idx is not None:
            b += struct.pack("<Q", hw_idx)
        for frm, to, flags in branches:
            b += struct.pack("<QQQ", frm, to, flags)
    return rec(9, b, misc=2)


def records(st):
    comm = rec(3, struct.pack("<II", 42, 42) + b"true\0\0\0\0" + sample_id(st), misc=1 << 13)
    mmap2 = rec(10, struct.pack("<IIQQQIIQQII", 42, 42, 0x400000, 0x1000, 0, 8, 1, 1234, 0, 5, 2)
                + b"/usr/bin/true\0\0\0" + sample_id(st), misc=2)
    fork = rec(7, struct.pack("<IIIIQ", 43, 42, 43, 42, 1500) + sample_id(st))
    lost = rec(2, struct.pack("<QQ", 7, 3) + sample_id(st))
    fin = rec(68, b"")
    return comm + mmap2 + fork + lost + fin


def file_mode(st, recs, branch_sample_type=0, features=True, data_size=None):
    a = attr(st, branch_sample_type=branch_sample_type)
    ids = struct.pack("<Q", 7)
    hdr_size, attr_size = 104, len(a)
    attr_off = hdr_size
    ids_off = attr_off + attr_size + 16
    data_off = ids_off + len(ids)
    attrs = a + struct.pack("<QQ", ids_off, len(ids))
    feats = b""
    bitmap = bytearray(32)
    if features:
        host = b"fuzzhost"
        host_s = struct.pack("<I", 16) + host.ljust(16, b"\0")
        cpuid = b"AuthenticAMD,25,17,1"
        cpuid_s = struct.pack("<I", 24) + cpuid.ljust(24, b"\0")
        sec_off = data_off + len(recs)
        index_size = 16 * 2
        feats = struct.pack("<QQ", sec_off + index_size, len(host_s))
        feats += struct.pack("<QQ", sec_off + index_size + len(host_s), len(cpuid_s))
        feats += host_s + cpuid_s
        bitmap[0] |= 1 << 3  # HOSTNAME
        bitmap[1] |= 1 << 1  # CPUID (9)
    header = MAGIC + struct.pack("<QQ", hdr_size, attr_size + 16)
    header += struct.pack("<QQ", attr_off, len(attrs))
    header += struct.pack("<QQ", data_off, len(recs) if data_size is None else data_size)
    header += struct.pack("<QQ", 0, 0) + bytes(bitmap)
    assert len(header) == hdr_size
    return header + attrs + ids + recs + feats


st = ST_IP | ST_TID | ST_TIME | ST_ID | ST_CPU | ST_PERIOD
body = records(st) + sample(st, 0x401000) + sample(st, 0x401010)
put("perfdata", "file-cpu-clock", file_mode(st, body))
put("perfdata", "file-unfinished", file_mode(st, body, features=False, data_size=0))
stb = st | ST_BRANCH_STACK | ST_CALLCHAIN
br = [(0x401020, 0x401000, 1 | (5 << 4)), (0x401100, 0x401010, 2)]  # mispred, predicted; cycles
body = records(stb) + sample(stb, 0x401000, br, callchain=[0xfffffffffffffe00, 0x401000])
put("perfdata", "file-brstack", file_mode(stb, body, branch_sample_type=1 << 3))
# a first sample whose branch stack is empty (nr 0), then two that are not: the
# threaded branch_load() once copied its NULL entries with memcpy (UBSan)
body = records(stb) + sample(stb, 0x401004, [], callchain=[1]) + sample(stb, 0x401000, br, callchain=[1]) \
    + sample(stb, 0x401008, br[:1], callchain=[1])
put("branch-load", "empty-stack", file_mode(stb, body, branch_sample_type=1 << 3))
# the same with branch counters (-j counter): an empty stack has no counters, and
# the reader once copied them from a NULL buffer (UBSan, sample.c read_branches)
put("perfdata", "empty-stack-counters", file_mode(stb, body, branch_sample_type=(1 << 3) | (1 << 19)))
stx = stb | ST_IDENTIFIER
body = sample(stx, 0x401000, br, callchain=[0x401000], hw_idx=1)
put("perfdata", "file-brstack-hwidx", file_mode(stx, body, branch_sample_type=(1 << 3) | (1 << 17)))
pipe_attr = rec(64, attr(st) + struct.pack("<Q", 7))
put("perfdata", "pipe-cpu-clock", MAGIC + struct.pack("<Q", 16) + pipe_attr + records(st) + sample(st, 0x401000))
# a pipe stream cut inside its last sample (read strictly: an error; with PARTIAL: the end)
put("perfdata", "pipe-cut", (MAGIC + struct.pack("<Q", 16) + pipe_attr + records(st) + sample(st, 0x401000))[:-5])

# perfdata-records: FIELDS (52 bytes: sample_type, read_format, flags,
# branch_sample_type, regs_user, regs_intr, u32 stack_user) then records.
def fields(st, read_format=0, flags=SAMPLE_ID_ALL, bst=0, regs_user=0, regs_intr=0, stack_user=0):
    return struct.pack("<QQQQQQI", st, read_format, flags, bst, regs_user, regs_intr, stack_user)

put("perfdata-records", "plain", fields(st) + records(st) + sample(st, 0x401000))
put("perfdata-records", "brstack", fields(stb, bst=1 << 3) + sample(stb, 0x401000, br, callchain=[1, 2]))
put("perfdata-records", "brstack-hwidx",
    fields(stx, bst=(1 << 3) | (1 << 17)) + sample(stx, 0x401000, br, callchain=[3], hw_idx=0))
# READ with a group: {nr, time_enabled, time_running, {value, id} x nr}
str_ = ST_TID | ST_READ | ST_ID
read = struct.pack("<QQQQQQQ", 2, 100, 90, 5, 7, 6, 8)
put("perfdata-records", "read-group",
    fields(str_, read_format=1 | 2 | 4 | 8) + rec(9, struct.pack("<II", 1, 1) + struct.pack("<Q", 7) + read))
# REGS_USER {abi, regs[popcount(mask)]}, STACK_USER {size, data[size], dyn_size}
stu = ST_IP | (1 << 12) | (1 << 13)
body = struct.pack("<Q", 0x400) + struct.pack("<QQQ", 2, 11, 12) + struct.pack("<Q", 16) + bytes(16) + struct.pack("<Q", 8)
put("perfdata-records", "regs-stack", fields(stu, regs_user=3, stack_user=16) + rec(9, body))
# RAW {u32 size, data}, WEIGHT, DATA_SRC, TRANSACTION, PHYS_ADDR, CGROUP, page sizes
stw = ST_IP | (1 << 10) | (1 << 14) | (1 << 15) | (1 << 17) | (1 << 19) | (1 << 21) | (1 << 22) | (1 << 23)
body = struct.pack("<Q", 0x401000) + struct.pack("<I", 4) + b"abcd" + struct.pack("<QQQQQQQ", 1, 2, 3, 4, 5, 4096, 4096)
put("perfdata-records", "raw-weight", fields(stw) + rec(9, body))
put("perfdata-records", "aux", fields(st) + rec(11, struct.pack("<QQQ", 0, 4096, 0) + sample_id(st))
    + rec(71, struct.pack("<QQQIII", 8, 0, 1, 0, 42, 1) + bytes(4)) + bytes(8))

# --- valgrind cost files (sim/profile.h) --------------------------------------
put("cachegrind", "all-events",
    "desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
    "desc: D1 cache:         49152 B, 64 B, 12-way associative\n"
    "desc: LL cache:         33554432 B, 64 B, 16-way associative\n"
    "cmd: ./x 1\nevents: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
    "fl=a.c\nfn=f\n3 10 1 1 4 2 1 . . . 2 1\n3 5\nfn=(below main)\n7 1\n"
    "fl=b.c\nfn=f\n3 2\nsummary: 18 1 1 4 2 1 0 0 0 2 1 0 0\n")
put("cachegrind", "ir-only", "events: Ir\nfl=/usr/src/x.c\nfn=main\n1 5\n2 7\nsummary: 12\n")
put("cachegrind", "crlf", "cmd: x\r\nevents: Ir Dr\r\nfl=a\r\nfn=b\r\n0 1 2\r\nsummary: 1 2\r\n")
put("callgrind", "compressed",
    "# callgrind format\nversion: 1\ncreator: hand\npositions: instr line\nevents: Ir Bc Bcm Bi Bim\n\n"
    "ob=(1) /bin/prog\nfl=(1) main.c\nfn=(1) main\n0x1000 10 5 1 1\n+4 * 3 . 0 1 1\n+2 +2 7\n"
    "cfi=(2) lib.c\ncfn=(2) helper\ncalls=4 0x2000 +90\n* * 400 40 20\n-6 -2 2\nfi=(3) inl.h\n"
    "+0x10 50 9\nfe=(1)\n+1 -38 1\nfl=(2)\nfn=(2)\n0x2000 100 100 40 20\njump=3 +4 *\n"
    "totals: 127 41 21 1 1\n")
put("callgrind", "parts", "events: Ir\nfn=a\n1 5\ntotals: 5\npart: 2\nevents: Ir\nfn=a\n2 3\ntotals: 3\n")
put("callgrind", "lines", "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 7\ncmd: ./a\n"
    "part: 1\ndesc: I1 cache: 32768 B, 64 B, 8-way associative\npositions: line\nevents: Ir Dr Dw\n"
    "summary: 30 4 2\nob=(1) /lib/ld.so\nfl=(1) ???\nfn=(1) _start\n0 10 2 1\ncob=(2) /a\ncfi=(2) a.c\n"
    "cfn=(3) 'main'\ncalls=1 0\n0 20 2 1\nfl=(2)\nfn=(3)\n5 20 2 1\ntotals: 30 4 2\n")
# tdprof's valgrind tool (vgtool/): callgrind's format with its events; the first lines of a real file
put("callgrind", "tdpsim",
    '# callgrind format\n'
    'version: 1\n'
    'creator: tdpsim-1\n'
    'pid: 4242\n'
    'cmd: /bin/true\n'
    "desc: Tool: tdpsim 1 (tdprof's valgrind tool)\n"
    'desc: Machine: generic: L1I 32768 B 8-way, L1D 49152 B 12-way, L2 1310720 B 10-way, L3 33554432 B 16-way, 64 B lines; latency L1 5, L2 15, L3 55, DRAM 400 cycles; width 6.000; ROB 512; MSHR 16; bandwidth L2 48, L3 20, DRAM 7.000 B/cycle; BTB 8192; uop cache 512 x 64 B; prefetch stride 1 (max 2048 B) stream 1; predictor generic\n'
    'desc: I1 cache: 32768 B, 64 B, 8-way associative\n'
    'desc: D1 cache: 49152 B, 64 B, 12-way associative\n'
    'desc: L2 cache: 1310720 B, 64 B, 10-way associative\n'
    'desc: LL cache: 33554432 B, 64 B, 16-way associative\n'
    '\n'
    'positions: instr line\n'
    'events: Ir Dr Dw I1mr I2mr ILmr D1mr D2mr DLmr D1mw D2mw DLmw Bc Bcm Bi Bim Br Brm Btk Btbm Dpf Dsw Ddep Dcy2 Dcy3 DcyM Idsbm Imite\n'
    '\n'
    'ob=(1) /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n'
    'fl=(2) ???\n'
    'fn=(2) ???\n'
    '0x1010 0 3 3 . 1 1 1 . . . . . . . . 3 1 . . 3 . . . . . . . 1 1\n'
    '0x1040 0 1 1 . 1 1 1 . . . . . . . . 1 1 . . 1 . . . . . . . 1 1\n'
    '0x1ab70 0 1 . . 1 1 1 . . . . . . . . . . . . . . . . . . . . 1 2\n'
    '0x1ab73 0 1 . 1 . . . . . . 1 1 1 . . . . . . 1 1\n'
    '0x1ab78 0 1 . . 1 . . . . . . . . . . . . . . . . . . . . . . 1 3\n'
    '0x1ab7b 0 1 1 . . . . 1 . . . . . . . . . . . . . . . 1\n'
    '0x1ab7f 0 1 . . 1 1 1 . . . . . . . . . . . . . . . . . . . . 1 7\n'
    '0x1ab82 0 1\n'
    '0x1ab85 0 1\n'
    '0x1ab89 0 1 1\n'
    '0x1ab90 0 1\n'
    '0x1ab95 0 1\n'
    '0x1ab99 0 1\n'
    '0x1ab9b 0 1 . 1 . . . . . . . . . . . . . . . 1 1\n'
    '0x1aba0 0 1\n'
    '0x1aba7 0 1\n'
    '0x1abaa 0 1 . . . . . . . . . . . . . 1 1 . . 1\n'
    'fl=(4) ./elf/./elf/rtld.c\n'
    'fn=(3) _dl_start\n'
    '0x1b770 520 1 . 1 1 1 1 . . . . . . . . . . . . . . . . . . . . 1 4\n'
    '0x1b771 520 1\n'
    '0x1b778 520 1\n'
    '0x1b77f 520 1 . . 1 1 1 . . . . . . . . . . . . . . . . . . . . 1 11\n'
    '0x1b784 520 1\n'
    '0x1b789 520 1\n'
    '0x1b78d 520 1\n'
    '\n'
    'totals: 26 6 3 7 6 6 1 0 0 1 1 1 0 0 5 3 0 0 7 2 0 0 1 0 0 0 7 29\n'
)

# --- Arm SPE (branch/spe.h) ---------------------------------------------------
# Packets from the Arm ARM's SPE chapter: address b0+i (8-byte payload: 56-bit
# address, EL in bits 61-62, NS bit 63), OP-TYPE 48+class (1 byte), EVENTS 52
# (2 bytes), counters 98+i (2 bytes), CONTEXT 65 (4 bytes), DATA-SOURCE 43,
# TIMESTAMP 71 (8 bytes), END 01, PAD 00.
def spe_addr(idx, addr, el=0, ns=1):
    return bytes([0xb0 | idx]) + struct.pack("<Q", addr | (el << 61) | (ns << 63))


def spe_branch(pc, tgt, op=0x01, ev=0x02, ts=1000):
    return (spe_addr(0, pc) + bytes([0x4a, op]) + bytes([0x52]) + struct.pack("<H", ev) + b"\x99\x10\x00"
            + b"\x98\x11\x00" + spe_addr(1, tgt) + b"\x71" + struct.pack("<Q", ts))


spe_ld = (spe_addr(0, 0x401000) + b"\x00\x00" + b"\x65\x80\x5f\x00\x00" + b"\x49\x00" + b"\x52\x16\x00"
          + b"\x99\x04\x00" + spe_addr(2, 0x7fff0000, ns=0) + b"\x9a\x01\x00" + b"\x43\x00" + b"\x01")
spe_trace = spe_ld + spe_branch(0x401010, 0x401100, 0x01, 0x82) + spe_branch(0x401020, 0x401200, 0x01 | 1 << 3, 0x42, 2000)
put("spe", "records", spe_trace)
put("spe", "extended", b"\x20\xb0" + struct.pack("<Q", 0x401000) + b"\x20\x98\x05\x00" + b"\x00" * 7 + b"\x01")
put("spe", "ret-indirect", spe_branch(0x401030, 0x402000, 0x02 | 2 << 3, 0x02) + spe_branch(0x401040, 0x403000, 0x02, 0x82))
# a pipe-mode perf.data with an SPE AUXTRACE_INFO and one AUXTRACE buffer
aux_info = rec(70, struct.pack("<II", 4, 0) + bytes(16))
aux = rec(71, struct.pack("<QQQIII", len(spe_trace) + (-len(spe_trace)) % 8, 0, 1, 0, 42, 0) + bytes(4))
put("branch-load", "spe-pipe", MAGIC + struct.pack("<Q", 16) + pipe_attr + aux_info + aux
    + spe_trace + bytes((-len(spe_trace)) % 8))

# --- the simulated machine (sim/machine.h) ------------------------------------
for i, s in enumerate(["generic", "zen4", "alderlake,width=8", "skylake,ll=8M:16:64",
                       "i1=32K:8:64,d1=48KiB:12:64,ll=32MiB:16:64", "neoverse-n1,branch-penalty=11,mlp=4",
                       "width=6,uops-per-insn=1.1,mem-latency=300,stream-mlp=8,stream-ratio=0.2",
                       "d1-size=64K,d1-assoc=16,ll-line=128,i1-latency=12,ll-latency=40"]):
    put("sim-machine", "%02d" % i, s)
put("sim-machine-file", "preset", "# a machine\npreset = zen4\nwidth = 6\nll = 32M:16:64\n\nmlp=6\n")
put("sim-machine-file", "keys", "i1-size=32K\ni1-assoc=8\ni1-line=64\nd1=48K:12:64\nbranch-penalty = 15\n"
    "mem-latency = 250\n# comment\nstream-ratio=0.25\n")

# --- expressions (model/expr.h) -----------------------------------------------
for i, s in enumerate([
        "topdown\\-retiring / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + topdown\\-retiring + topdown\\-be\\-bound)",
        "d_ratio(ex_ret_ops, #slots * ls_not_halted_cyc)",
        "(UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + 4 * (INT_MISC.RECOVERY_CYCLES_ANY / 2 if #SMT_on else INT_MISC.RECOVERY_CYCLES)) / tma_info_thread_slots",
        "cpu@INT_MISC.RECOVERY_CYCLES\\,cmask\\=1\\,edge@ / CPU_CLK_UNHALTED.THREAD",
        "max(0, min(1, 1 - a / b)) * 100", "a if b > 0.5 & c <= 2 | d != 3 else -e",
        "'topdown-fe-bound' * 1e-3 + 0x10 - #core_wide", "((((((((x))))))))", "1 / 0 + d_ratio(1, 0)"]):
    put("expr", "%02d" % i, s)

# --- CPU strings (cpu/cpu.h) --------------------------------------------------
for i, s in enumerate(["GenuineIntel,6,78,3", "AuthenticAMD,25,17,1", "GenuineIntel-6-4E-3",
                       "0x00000000410fd490", "0x00000000413fd0c1", "HygonGenuine,24,0,1", "GenuineIntel,6,183,1"]):
    put("cpuid", "%02d" % i, s)
put("cpuinfo", "x86", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
    "model name\t: AMD EPYC 9654 96-Core Processor\nstepping\t: 1\nflags\t\t: fpu vme de pse hypervisor\n\n"
    "processor\t: 1\nvendor_id\t: AuthenticAMD\n")
put("cpuinfo", "arm64", "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n"
    "CPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n")
for i, s in enumerate(["0-3,8,10-11\n", "0\n", "\n", "0-127", "5,3,1,3", "0-1023"]):
    put("cpulist", "%02d" % i, s)

# --- tdprof loop's assembly and llvm-mca readers (loop/loop.h) ----------------
# The first line names the function; the rest is the assembly (and is also read
# as an llvm-mca report).
put("loop-asm", "gcc", "mv\n\t.text\n\t.globl\tmv\n\t.type\tmv, @function\nmv:\n.LFB0:\n\t.cfi_startproc\n"
    "\txorl\t%edx, %edx\n.L2:\n\tpxor\t%xmm1, %xmm1\n\txorl\t%eax, %eax\n.L3:\n\tmovapd\tm(%rdx,%rax), %xmm0\n"
    "\taddq\t$16, %rax\n\taddsd\t%xmm0, %xmm1\n\tcmpq\t$512, %rax\n\tjne\t.L3\n\taddq\t$512, %rdx\n"
    "\tcmpq\t%rdi, %rdx\n\tjne\t.L2\n\tret\n\t.cfi_endproc\n.LFE0:\n\t.size\tmv, .-mv\n")
put("loop-asm", "clang", "f\nf:                                      # @f\n\t.cfi_startproc\n# %bb.0:\n"
    ".LBB0_1:                                # =>This Inner Loop Header: Depth=1\n\taddq\t$1, %rax\n"
    "\tcmpq\t$64, %rax\n\tjne\t.LBB0_1\n# %bb.2:\n\tretq\n.Lfunc_end0:\n\t.size\tf, .Lfunc_end0-f\n")
put("loop-asm", "arm64", "g\ng:\n.L4:\n\tldr\td0, [x1], 8\n\tfadd\td1, d1, d0\n\tcmp\tx1, x2\n\tbne\t.L4\n\tret\n"
    "\t.size\tg, .-g\n")
put("loop-asm", "mca", "x\nIterations:        100\nInstructions:      1200\nTotal Cycles:      353\n"
    "Total uOps:        1300\n\nDispatch Width:    6\nuOps Per Cycle:    3.68\nIPC:               3.40\n"
    "Block RThroughput: 3.0\n")


# --- JIT maps, /tmp/perf-PID.map (symbol/perfmap.c) --------------------------
put("perfmap", "node", "7f1234500000 200 LazyCompile:*hot_loop app.js:12\n0x7f1234502000 0x40 Stub:cold\n\n")
put("perfmap", "overlap", "1000 100 a\n1000 100 b\n1080 10 inner\r\nffffffffffffff00 100 top\n")
put("perfmap", "bad-line", "1000 10 fine\nnot a map line\n")
put("perfmap", "no-name", "1000 10 \n")
put("perfmap", "wrap", "ffffffffffffffff 2 wraps\n")
