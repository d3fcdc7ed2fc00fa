"""Write perf.data files whose samples read their group, as `perf record -e
'{a,b,c}:S'` writes them, with any events and counts the test chooses (hardware
events this machine has no PMU for), for the per-function top-down tests.

The layout is perf's (tools/perf/Documentation/perf.data-file-format.txt, file mode):
the 104-byte header, one attr entry per event {attr (128 bytes), ids {offset, size}},
their ids, the data section, then the feature index and sections: EVENT_DESC (the
events' names; left out with names=False, so that a reader names them from their
type and config), GROUP_DESC (one group led by the first event: perf report --group
needs it) and CPUID. Every sample is {ip, pid, tid, time, id, period, read}, the read
being {nr, {value, id} x nr}: each member's running total (the counts since the
previous sample are what perf charges to the sample's IP).
"""
import re
import struct
import subprocess

MAGIC = b"PERFILE2"
HEADER_SIZE = 104
ATTR_SIZE = 128
IP, TID, TIME, READ, ID, PERIOD = 1, 2, 4, 16, 64, 256
SAMPLE_TYPE = IP | TID | TIME | READ | ID | PERIOD
FORMAT_ID, FORMAT_GROUP = 4, 8
SAMPLE_ID_ALL = 1 << 18
MISC_USER = 2
FEAT_CPUID, FEAT_EVENT_DESC, FEAT_GROUP_DESC = 9, 12, 17
PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_RAW = 0, 1, 4
FIRST_ID = 100


def rec(rtype, body, misc=0):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def perf_string(s):
    """perf's do_write_string(): {u32 len; the string, NUL-padded to 64 bytes}."""
    b = s.encode() + b"\0"
    b += b"\0" * (-len(b) % 64)
    return struct.pack("<I", len(b)) + b


def attr(etype, config, leader):
    a = bytearray(ATTR_SIZE)
    flags = SAMPLE_ID_ALL | (1 | (1 << 8) | (1 << 9) if leader else 0)  # disabled, mmap, comm on the leader
    struct.pack_into("<IIQQQQQ", a, 0, etype, ATTR_SIZE, config, 100003 if leader else 0, SAMPLE_TYPE,
                     FORMAT_ID | FORMAT_GROUP, flags)
    return bytes(a)


def build(events, samples, maps, names=True, cpuid=None, pid=4242, comm="wl"):
    """events: [(name, type, config)], the first is the leader; samples: [(ip,
    [running total per event])] in time order; maps: [(start, length, pgoff, path)]
    executable mappings of the process. Returns the file's bytes."""
    n = len(events)
    ids = list(range(FIRST_ID, FIRST_ID + n))
    attrs = [attr(t, c, i == 0) for i, (_, t, c) in enumerate(events)]
    attr_off = HEADER_SIZE
    ids_off = attr_off + n * (ATTR_SIZE + 16)
    data_off = ids_off + 8 * n
    attr_sec = b"".join(a + struct.pack("<QQ", ids_off + 8 * i, 8) for i, a in enumerate(attrs))
    id_sec = b"".join(struct.pack("<Q", i) for i in ids)

    def sid(time):  # sample_id_all trailer: TID, TIME, ID
        return struct.pack("<IIQQ", pid, pid, time, ids[0])

    data = rec(3, struct.pack("<II", pid, pid) + pad8(comm.encode() + b"\0") + sid(1), misc=1 << 13)
    for start, length, pgoff, path in maps:
        data += rec(1, struct.pack("<IIQQQ", pid, pid, start, length, pgoff) + pad8(path.encode() + b"\0") + sid(2),
                    misc=MISC_USER)
    last = 0
    for k, (ip, values) in enumerate(samples):
        assert len(values) == n
        body = struct.pack("<QIIQQQ", ip, pid, pid, 1000 + k, ids[0], values[0] - last)
        body += struct.pack("<Q", n) + b"".join(struct.pack("<QQ", v, i) for v, i in zip(values, ids))
        last = values[0]
        data += rec(9, body, misc=MISC_USER)
    data += rec(68, b"")  # FINISHED_ROUND

    feats = []
    if cpuid:
        feats.append((FEAT_CPUID, perf_string(cpuid)))
    if names:
        ed = struct.pack("<II", n, ATTR_SIZE)
        for (name, _, _), a, i in zip(events, attrs, ids):
            ed += a + struct.pack("<I", 1) + perf_string(name) + struct.pack("<Q", i)
        feats.append((FEAT_EVENT_DESC, ed))
    feats.append((FEAT_GROUP_DESC, struct.pack("<I", 1) + perf_string("{anon_group}") + struct.pack("<II", 0, n)))
    feats.sort()
    bitmap = bytearray(32)
    index_off = data_off + len(data)
    at = index_off + 16 * len(feats)
    index, body = b"", b""
    for fid, sec in feats:
        bitmap[fid // 8] |= 1 << (fid % 8)
        index += struct.pack("<QQ", at, len(sec))
        body += sec
        at += len(sec)
    header = MAGIC + struct.pack("<QQQQQQQQ", HEADER_SIZE, ATTR_SIZE + 16, attr_off, len(attr_sec), data_off,
                                 len(data), 0, 0) + bytes(bitmap)
    return header + attr_sec + id_sec + data + index + body


def exec_segment(binary):
    """(p_offset, p_vaddr, p_filesz) of the executable PT_LOAD of an ELF64 binary."""
    with open(binary, "rb") as f:
        elf = f.read()
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        ptype, pflags, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", elf, phoff + i * phentsize)
        if ptype == 1 and pflags & 1:
            return off, vaddr, filesz
    raise ValueError("%s: no executable PT_LOAD" % binary)


def mapping(binary, base):
    """The executable mapping of binary loaded at base (a PIE's load address) as perf's
    MMAP record has it: (start, length, pgoff, path)."""
    off, vaddr, filesz = exec_segment(binary)
    start, pgoff = base + (vaddr & ~0xfff), off & ~0xfff
    return start, ((vaddr & 0xfff) + filesz + 0xfff) & ~0xfff, pgoff, binary


def line_addresses(binary, function):
    """{line: [ELF addresses of its instructions]} in function, from objdump -dl."""
    out = subprocess.run(["objdump", "-dl", "--no-show-raw-insn", "--disassemble=" + function, binary],
                         capture_output=True, text=True, check=True).stdout
    lines, cur = {}, None
    for text in out.splitlines():
        m = re.match(r"^\S+:(\d+)( \(discriminator \d+\))?$", text)
        if m:
            cur = int(m.group(1))
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s", text)
        if m and cur:
            lines.setdefault(cur, []).append(int(m.group(1), 16))
    return lines
