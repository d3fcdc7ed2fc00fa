"""Symbols where users have them (issue 20, item 5): debug info fetched from a
debuginfod server when DEBUGINFOD_URLS is set (and no network otherwise), JIT code
named by perf's /tmp/perf-PID.map, and what to do when nothing resolves.

The recordings are made here (pdsynth's records): a stripped binary built by the
test, mapped by an MMAP2 with its build-id, and branch samples in it; the server is
python's http.server on 127.0.0.1, serving the binary's separated debug file at
/buildid/ID/debuginfo as debuginfod does."""
import http.server
import os
import shutil
import struct
import subprocess
import tempfile
import threading

import pdsynth
import tdp

TMP = tempfile.mkdtemp(prefix="tdprof-syms-")
PID = 42

PROG = r"""
int sink;
__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		if ((i * 7) % 3)
			s += i;
	return s;
}
int main(void) { sink = work(1000); return 0; }
"""


def sample_id():
    return struct.pack("<IIQQII", PID, PID, 1000, 7, 0, 0)


def mmap2(start, length, pgoff, filename, build_id=None, prot=5):
    name = filename + b"\0" * (8 - len(filename) % 8)
    if build_id:
        union = struct.pack("<B3x", len(build_id)) + build_id.ljust(20, b"\0")
        misc = 2 | (1 << 14)  # PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID
    else:
        union = struct.pack("<IIQQ", 8, 1, 1234, 0)
        misc = 2
    body = struct.pack("<IIQQQ", PID, PID, start, length, pgoff) + union + struct.pack("<II", prot, 2)
    return pdsynth.rec(10, body + name + sample_id(), misc=misc)


def recording(maps, branch_froms, path):
    """A perf.data of branch-stack samples of process PID whose branches go from the
    addresses branch_froms (each mispredicted once in four), with maps (MMAP2 records)."""
    attr = bytearray(pdsynth.ATTR_SIZE)
    struct.pack_into("<IIQQQQQ", attr, 0, 1, pdsynth.ATTR_SIZE, 0, 100000, pdsynth.SAMPLE_TYPE, 0,
                     pdsynth.SAMPLE_ID_ALL)
    struct.pack_into("<Q", attr, 72, pdsynth.BRANCH_ANY)
    attr_at = pdsynth.HEADER_SIZE
    ids_at = attr_at + pdsynth.ATTR_SIZE + 16
    data_at = ids_at + 8
    attrs = bytes(attr) + struct.pack("<QQ", ids_at, 8)
    data = pdsynth.rec(3, struct.pack("<II", PID, PID) + b"prog\0\0\0\0" + sample_id(), misc=1 << 13)
    data += b"".join(maps)
    for i in range(40):
        br = [(frm, frm + 0x10, 1 if (i + k) % 4 == 0 else 2) for k, frm in enumerate(branch_froms)]
        b = struct.pack("<QIIQQII", branch_froms[0], PID, PID, 2000 + i, 7, 0, 0) + struct.pack("<Q", 100000)
        b += struct.pack("<Q", 0)  # no callchain
        b += struct.pack("<Q", len(br)) + b"".join(struct.pack("<QQQ", *x) for x in br)
        data += pdsynth.rec(9, b, misc=2)
    data += pdsynth.rec(68, b"")
    header = pdsynth.MAGIC + struct.pack("<QQQQQQQQ", pdsynth.HEADER_SIZE, pdsynth.ATTR_SIZE + 16, attr_at,
                                         len(attrs), data_at, len(data), 0, 0) + bytes(32)
    with open(path, "wb") as f:
        f.write(header + attrs + struct.pack("<Q", 7) + data)
    return path


def elf_info(path):
    """(build-id bytes, the executable PT_LOAD as (offset, vaddr, filesz)) of a 64-bit ELF."""
    with open(path, "rb") as f:
        img = f.read()
    phoff, = struct.unpack_from("<Q", img, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", img, 0x36)
    text, bid = None, None
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", img, phoff + i * phentsize)
        if p_type == 1 and p_flags & 1:
            text = (p_offset, p_vaddr, p_filesz)
        if p_type == 4:  # PT_NOTE
            off, end = p_offset, p_offset + p_filesz
            while off + 12 <= end:
                namesz, descsz, ntype = struct.unpack_from("<III", img, off)
                name = img[off + 12:off + 12 + namesz]
                desc_at = off + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and name.startswith(b"GNU"):
                    bid = img[desc_at:desc_at + descsz]
                off = desc_at + ((descsz + 3) & ~3)
    return bid, text


def build_prog():
    """prog (debug info stripped, symbols kept), prog.debug (its debug info), build-id, work's address."""
    for tool in ("gcc", "objcopy", "nm"):
        if not shutil.which(tool):
            raise tdp.Skip("%s is not installed" % tool)
    d = os.path.join(TMP, "bin")
    os.makedirs(d, exist_ok=True)
    src, prog, dbg = os.path.join(d, "prog.c"), os.path.join(d, "prog"), os.path.join(d, "prog.debug")
    if not os.path.exists(prog):
        with open(src, "w") as f:
            f.write(PROG)
        subprocess.run(["gcc", "-g", "-O1", "-no-pie", "-Wl,--build-id", "-o", prog, src], check=True)
        subprocess.run(["objcopy", "--only-keep-debug", prog, dbg], check=True)
        subprocess.run(["objcopy", "--strip-debug", prog], check=True)
    nm = subprocess.run(["nm", prog], capture_output=True, text=True, check=True).stdout
    work = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" work"))
    bid, text = elf_info(prog)
    tdp.check(bid is not None and text is not None, "the test binary has a build-id and a text segment")
    return prog, dbg, bid, text, work


def prog_recording():
    prog, dbg, bid, (off, vaddr, filesz), work = build_prog()
    start, pgoff = vaddr & ~0xfff, off & ~0xfff
    path = recording([mmap2(start, filesz + (vaddr & 0xfff), pgoff, prog.encode(), bid)], [work, work + 4],
                     os.path.join(TMP, "prog.data"))
    return path, dbg, bid


class Server:
    """A debuginfod server of one debug file; .requests lists the paths asked for."""

    def __init__(self, bid, dbg):
        self.requests = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append(self.path)
                if self.path == "/buildid/%s/debuginfo" % bid.hex():
                    with open(dbg, "rb") as f:
                        body = f.read()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    self.send_error(404)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_debuginfod_names_the_lines():
    if not shutil.which("debuginfod-find"):
        raise tdp.Skip("debuginfod-find (libdebuginfod's client) is not installed")
    rec, dbg, bid = prog_recording()
    srv = Server(bid, dbg)
    try:
        cache = tempfile.mkdtemp(dir=TMP)
        r = tdp.run("branches", "report", "-i", rec, env={"DEBUGINFOD_URLS": srv.url, "DEBUGINFOD_CACHE_PATH": cache})
        tdp.expect_exit(r, 0)
        tdp.check("/buildid/%s/debuginfo" % bid.hex() in srv.requests, "the server was asked: %s" % srv.requests, r)
        tdp.expect_in("work", r.out, "stdout", r)
        tdp.expect_in("prog.c:", r.out, "stdout (the source lines of the fetched debug info)", r)
        # the JSON names the line too
        doc = tdp.run("branches", "report", "-i", rec, "--json",
                      env={"DEBUGINFOD_URLS": srv.url, "DEBUGINFOD_CACHE_PATH": cache}).json()
        tdp.check(any((s.get("file") or "").endswith("prog.c") and s.get("line") for s in doc["sites"]),
                  "a site with prog.c's line in the JSON")
    finally:
        srv.close()


def test_no_network_without_debuginfod_urls():
    rec, dbg, bid = prog_recording()
    srv = Server(bid, dbg)
    try:
        env = {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}
        p = subprocess.run([tdp.TDPROF, "branches", "report", "-i", rec], capture_output=True, text=True, env=env)
        tdp.check(p.returncode == 0, "exit 0: " + p.stderr)
        tdp.check("work" in p.stdout, "the symbol is named: " + p.stdout)
        tdp.check("prog.c:" not in p.stdout, "no source lines without debug info:\n" + p.stdout)
        tdp.check("debuginfod" in p.stdout, "the report says where lines would come from:\n" + p.stdout)
        r = tdp.run("branches", "report", "-i", rec, env={"DEBUGINFOD_URLS": ""})
        tdp.check("prog.c:" not in r.out, "an empty DEBUGINFOD_URLS is unset", r)
        tdp.check(srv.requests == [], "no request reached the server: %s" % srv.requests)
    finally:
        srv.close()


JIT_START = 0x7f1234500000


def jit_recording(name):
    return recording([mmap2(JIT_START, 0x10000, 0, b"//anon", prot=7)], [JIT_START + 0x120, JIT_START + 0x2010],
                     os.path.join(TMP, name))


def test_perf_map_names_jit_code():
    rec = jit_recording("jit.data")
    root = os.path.join(TMP, "symfs")
    os.makedirs(os.path.join(root, "tmp"), exist_ok=True)
    with open(os.path.join(root, "tmp", "perf-%d.map" % PID), "w") as f:
        f.write("%x 200 LazyCompile:*hot_loop app.js:12\n" % JIT_START)
        f.write("0x%x 0x40 Stub:cold\n\n" % (JIT_START + 0x2000))
    r = tdp.run("branches", "report", "-i", rec, "--symfs", root, "--json")
    tdp.expect_exit(r, 0)
    names = {s["address"] if isinstance(s["address"], int) else int(s["address"], 16): s.get("function")
             for s in r.json()["sites"]}
    tdp.check(names.get(JIT_START + 0x120) == "LazyCompile:*hot_loop app.js:12" and
              names.get(JIT_START + 0x2010) == "Stub:cold", "the JIT's names, spaces and all: %s" % names, r)
    # without the map the addresses stay anonymous
    r = tdp.run("branches", "report", "-i", rec, "--symfs", os.path.join(TMP, "empty"))
    tdp.check("hot_loop" not in r.out and "anonymous memory" in r.out, "no map, no names", r)


def test_perf_map_in_tmp():
    """perf's place: /tmp/perf-PID.map of the recorded pid (a pid no process here has)."""
    global PID
    saved, PID = PID, 4190000 + os.getpid() % 4000
    path = "/tmp/perf-%d.map" % PID
    try:
        rec = jit_recording("jit-tmp.data")
        with open(path, "w") as f:
            f.write("%x 4000 jitted_function\n" % JIT_START)
        r = tdp.run("branches", "report", "-i", rec)
        tdp.expect_exit(r, 0)
        tdp.expect_in("jitted_function", r.out, "stdout", r)
    finally:
        PID = saved
        os.unlink(path)


def test_malformed_perf_map_is_named():
    rec = jit_recording("jit-bad.data")
    root = os.path.join(TMP, "badfs")
    os.makedirs(os.path.join(root, "tmp"), exist_ok=True)
    with open(os.path.join(root, "tmp", "perf-%d.map" % PID), "w") as f:
        f.write("%x 100 fine\nnot a map line\n" % JIT_START)
    r = tdp.run("branches", "report", "-i", rec, "--symfs", root)
    tdp.expect_exit(r, 0)
    tdp.expect_in("/tmp/perf-%d.map' line 2: not 'START SIZE NAME'" % PID, " ".join(r.out.split()), "stdout", r)
    tdp.check("fine" not in r.out.split("why none", 1)[0].split("Misprediction sites", 1)[-1],
              "names of a malformed map are not used", r)


def test_missing_binary_names_the_symfs_path():
    """A binary that is not here: how many addresses, why, and the --symfs path it must have."""
    rec = recording([mmap2(0x400000, 0x10000, 0, b"/opt/recorded/app")], [0x401000, 0x401040],
                    os.path.join(TMP, "missing.data"))
    r = tdp.run("branches", "report", "-i", rec)
    tdp.expect_exit(r, 0)
    flat = " ".join(r.out.split())  # the hint wraps at the terminal's width
    tdp.expect_in("symbols: 0 of 4 addresses resolved", flat, "stdout", r)
    tdp.expect_in("why none: 4 user addresses, e.g. in '/opt/recorded/app' (binary not found", flat, "stdout", r)
    tdp.expect_in("to resolve them: --symfs DIR, a copy of the recorded machine's files: DIR/opt/recorded/app must "
                  "be the recorded binary", flat, "stdout", r)
    r = tdp.run("branches", "report", "-i", rec, env={"COLUMNS": "200"})
    tdp.check(any("DIR/opt/recorded/app must be the recorded binary" in l and "to resolve them" in l
                  for l in r.out.splitlines()), "one line at 200 columns", r)


if __name__ == "__main__":
    tdp.main(globals())
