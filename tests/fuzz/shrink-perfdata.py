#!/usr/bin/env python3
"""Cut a file-mode perf.data into small fuzz seeds (run by scripts/fuzz.sh on the
real recordings in the shared data, which are never copied into the repository).

usage: shrink-perfdata.py PERF.DATA OUTDIR PREFIX

Writes OUTDIR/PREFIX.data: the file's header, attrs and ids as recorded, the first
few records and samples of its data section (at most MAX_DATA bytes), the data size
set to match and the feature bitmap cleared (the sections are gone); and
OUTDIR/PREFIX.records: the same records after the 52 bytes of attr fields that the
fuzz-perfdata-records target reads (sample_type, read_format, flag word,
branch_sample_type, sample_regs_user, sample_regs_intr, sample_stack_user).
Exits 0 and writes nothing for a file it cannot cut (pipe mode, other byte order).
"""
import os
import struct
import sys

MAX_DATA = 24 * 1024
HEAD_RECORDS = 10   # records of any type from the start of the data
SAMPLES = 40        # then SAMPLE records only


def main():
    path, outdir, prefix = sys.argv[1:4]
    with open(path, "rb") as f:
        d = f.read()
    if len(d) < 104 or d[:8] != b"PERFILE2":
        return 0
    hdr_size, attr_size, attr_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQQQ", d, 8)
    if data_off > len(d) or data_off + data_size > len(d) or attrs_size < attr_size or attr_size < 64 + 16:
        return 0
    keep, off, end, head = [], data_off, data_off + data_size, 0
    total = 0
    while off + 8 <= end and len(keep) < HEAD_RECORDS + SAMPLES:
        rtype, _misc, size = struct.unpack_from("<IHH", d, off)
        if size < 8 or off + size > end:
            break
        if head < HEAD_RECORDS or rtype == 9:
            if total + size > MAX_DATA:
                break
            keep.append(d[off:off + size])
            total += size
            head += 1
        off += size
    recs = b"".join(keep)
    out = bytearray(d[:data_off])
    struct.pack_into("<QQ", out, 40, data_off, len(recs))
    out[72:104] = bytes(32)  # no feature sections
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, prefix + ".data"), "wb") as f:
        f.write(bytes(out) + recs)
    a = d[attr_off:attr_off + attr_size - 16]

    def u64(o):
        return struct.unpack_from("<Q", a, o)[0] if o + 8 <= len(a) else 0
    stack_user = struct.unpack_from("<I", a, 88)[0] if len(a) >= 92 else 0
    fields = struct.pack("<QQQQQQI", u64(24), u64(32), u64(40), u64(72), u64(80), u64(96), stack_user)
    with open(os.path.join(outdir, prefix + ".records"), "wb") as f:
        f.write(fields + recs)
    return 0


sys.exit(main())
