"""Build small perf.data files in memory for the fault and hostile-input tests.

The layout follows perf's perf.data-file-format.txt (file mode): a 104-byte
header {magic, size, attr_size, attrs {offset, size}, data {offset, size},
event_types {0, 0}, feature bitmap[32]}, the attrs section (each entry an attr
and an {offset, size} of its ids), the ids, the data section of records
{u32 type, u16 misc, u16 size, body}, then the feature index {offset, size} per
set bit and the feature sections. Every field a test wants to corrupt is at an
offset the returned Layout names.
"""
import struct

MAGIC = b"PERFILE2"
HEADER_SIZE = 104
ATTR_SIZE = 128

# sample_type bits
IP, TID, TIME, ID, CPU, PERIOD, CALLCHAIN, BRANCH_STACK = 1, 2, 4, 64, 128, 256, 32, 1 << 11
SAMPLE_ID_ALL = 1 << 18
BRANCH_ANY = 1 << 3
SAMPLE_TYPE = IP | TID | TIME | ID | CPU | PERIOD | CALLCHAIN | BRANCH_STACK


class Layout:
    """Offsets in the image: attr (the attr entry), ids, data, data_end, features
    (the feature index), records (offset of each record), samples (offset of
    each SAMPLE record), brstack_nr (offset of each sample's branch nr field),
    callchain_nr (same for the callchain)."""

    def __init__(self):
        self.records, self.samples, self.brstack_nr, self.callchain_nr = [], [], [], []


def rec(rtype, body, misc=0):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def sample_id():
    return struct.pack("<IIQQII", 42, 42, 1000, 7, 0, 0)  # tid, time, id, cpu


def sample(ip, branches, callchain, layout=None, at=0):
    b = struct.pack("<QIIQQII", ip, 42, 42, 2000, 7, 0, 0) + struct.pack("<Q", 100000)
    cc_at = at + 8 + len(b)
    b += struct.pack("<Q", len(callchain)) + b"".join(struct.pack("<Q", c) for c in callchain)
    br_at = at + 8 + len(b)
    b += struct.pack("<Q", len(branches))
    for frm, to, flags in branches:
        b += struct.pack("<QQQ", frm, to, flags)
    if layout is not None:
        layout.callchain_nr.append(cc_at)
        layout.brstack_nr.append(br_at)
    return rec(9, b, misc=2)


def build(nr_samples=20, finished=True, filename=b"/tmp/loop", empty_stacks=0):
    """A finished (or, finished=False, unfinished: data size 0, no features)
    recording of nr_samples branch-stack samples, the code mapped from filename;
    the first empty_stacks of them have an empty stack (nr 0, as a system-wide
    recording's idle samples). Returns (bytes, Layout)."""
    lay = Layout()
    attr = bytearray(ATTR_SIZE)
    struct.pack_into("<IIQQQQQ", attr, 0, 1, ATTR_SIZE, 0, 100000, SAMPLE_TYPE, 0, SAMPLE_ID_ALL)
    struct.pack_into("<Q", attr, 72, BRANCH_ANY)
    lay.attr = HEADER_SIZE
    lay.ids = lay.attr + ATTR_SIZE + 16
    lay.data = lay.ids + 8
    attrs = bytes(attr) + struct.pack("<QQ", lay.ids, 8)
    data = b""

    def add(r, is_sample=False):
        nonlocal data
        lay.records.append(lay.data + len(data))
        if is_sample:
            lay.samples.append(lay.data + len(data))
        data += r

    add(rec(3, struct.pack("<II", 42, 42) + b"loop\0\0\0\0" + sample_id(), misc=1 << 13))
    name = filename + b"\0" * (8 - len(filename) % 8)  # NUL-terminated, padded to 8 bytes
    add(rec(10, struct.pack("<IIQQQIIQQII", 42, 42, 0x400000, 0x10000, 0, 8, 1, 1234, 0, 5, 2)
            + name + sample_id(), misc=2))
    for i in range(nr_samples):
        br = [(0x401000 + 16 * ((i + k) % 8), 0x401100 + 16 * k, 1 if (i + k) % 3 == 0 else 2) for k in range(4)]
        if i < empty_stacks:
            br = []
        at = lay.data + len(data)
        add(sample(0x401000 + 4 * i, br, [0x401000, 0x402000], lay, at), True)
    add(rec(68, b""))  # FINISHED_ROUND
    lay.data_end = lay.data + len(data)
    feats, bitmap = b"", bytearray(32)
    if finished:
        host = struct.pack("<I", 16) + b"faulthost".ljust(16, b"\0")
        lay.features = lay.data_end
        feats = struct.pack("<QQ", lay.features + 16, len(host)) + host
        bitmap[0] |= 1 << 3  # HOSTNAME
    else:
        lay.features = None
    header = MAGIC + struct.pack("<QQQQQQQQ", HEADER_SIZE, ATTR_SIZE + 16, lay.attr, len(attrs), lay.data,
                                 len(data) if finished else 0, 0, 0) + bytes(bitmap)
    return header + attrs + struct.pack("<Q", 7) + data + feats, lay


def build_pipe(nr_samples=20):
    """The same recording as a pipe-mode stream (perf record -o -): the 16-byte
    header {magic, size 16}, a HEADER_ATTR record (the attr and its id), then the
    records. Returns (bytes, Layout) with records, samples and data_end set
    (records[0] is the HEADER_ATTR)."""
    img, flay = build(nr_samples)
    lay = Layout()
    attr = img[flay.attr:flay.attr + ATTR_SIZE]
    out = MAGIC + struct.pack("<Q", 16)
    lay.records.append(len(out))
    out += rec(64, attr + struct.pack("<Q", 7))  # HEADER_ATTR
    shift = len(out) - flay.data
    out += img[flay.data:flay.data_end]
    lay.records += [r + shift for r in flay.records]
    lay.samples = [r + shift for r in flay.samples]
    lay.data, lay.data_end = 16, len(out)
    return out, lay


def patch(image, offset, fmt, value):
    b = bytearray(image)
    struct.pack_into(fmt, b, offset, value)
    return bytes(b)
