#!/usr/bin/env python3
"""tools/gpu-resources.py, the build's resource and loadability check, on
forged code objects and fatbins (each fault planted in an otherwise good
image) and, given --clang, on a kernel compiled to spill.

usage: test-gpu-resources.py GPU_RESOURCES_PY [--clang CLANG --kernels DIR]
"""
import importlib.util
import os
import struct
import subprocess
import sys
import tempfile
import unittest

TOOL = sys.argv[1]
CLANG = sys.argv[sys.argv.index("--clang") + 1] if "--clang" in sys.argv else None
KERNELS = sys.argv[sys.argv.index("--kernels") + 1] if "--kernels" in sys.argv else None
HERE = os.path.dirname(os.path.abspath(__file__))

spec = importlib.util.spec_from_file_location("gpu_resources", TOOL)
gr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gr)


# ---- a msgpack encoder (the decoder under test reads what it writes) --------

def pack(value):
    if value is None:
        return b"\xc0"
    if value is True or value is False:
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, int):
        if 0 <= value <= 0x7f:
            return bytes([value])
        if -32 <= value < 0:
            return struct.pack("b", value)
        if 0 <= value <= 0xffff:
            return b"\xcd" + struct.pack(">H", value)
        if 0 <= value <= 0xffffffff:
            return b"\xce" + struct.pack(">I", value)
        return b"\xd3" + struct.pack(">q", value)
    if isinstance(value, float):
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, bytes):
        return b"\xc4" + bytes([len(value)]) + value
    if isinstance(value, str):
        raw = value.encode()
        return (bytes([0xa0 | len(raw)]) if len(raw) < 32 else b"\xd9" + bytes([len(raw)])) + raw
    if isinstance(value, list):
        head = bytes([0x90 | len(value)]) if len(value) < 16 else b"\xdc" + struct.pack(">H", len(value))
        return head + b"".join(pack(v) for v in value)
    if isinstance(value, dict):
        head = bytes([0x80 | len(value)]) if len(value) < 16 else b"\xde" + struct.pack(">H", len(value))
        return head + b"".join(pack(k) + pack(v) for k, v in value.items())
    raise TypeError(value)


# ---- forged AMD code objects ---------------------------------------------------

MACH = {name: mach for mach, name in gr.AMDGPU_MACH.items()}
ABI = {4: 2, 5: 3, 6: 4}


def kernel(name="vh_test", **fields):
    meta = {".name": name, ".symbol": name + ".kd", ".vgpr_count": 40, ".agpr_count": 0,
            ".sgpr_count": 30, ".group_segment_fixed_size": 4096,
            ".private_segment_fixed_size": 0, ".vgpr_spill_count": 0,
            ".sgpr_spill_count": 0, ".wavefront_size": 32, ".max_flat_workgroup_size": 256,
            ".uses_dynamic_stack": False, ".kernarg_segment_size": 8}
    meta.update(fields)
    return meta


def code_object(processor="gfx1100", version=5, features=0, generic_version=0,
                kernels=None, target=None, meta_version=None):
    metadata = pack({
        "amdhsa.version": meta_version or [1, version - 3],
        "amdhsa.target": target or "amdgcn-amd-amdhsa--" + processor,
        "amdhsa.kernels": kernels if kernels is not None else [kernel()],
    })
    name = b"AMDGPU\0\0"
    note = struct.pack("<III", 7, len(metadata), gr.NT_AMDGPU_METADATA) + name + metadata
    note += b"\0" * (-len(note) % 4)
    flags = MACH[processor] | features | generic_version << 24
    ident = b"\x7fELF" + bytes([2, 1, 1, gr.ELFOSABI_AMDGPU_HSA, ABI[version]]) + b"\0" * 7
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, gr.EM_AMDGPU, 1, 0, 64, 0, flags,
                                 64, 56, 1, 64, 0, 0)
    phdr = struct.pack("<IIQQQQQQ", gr.PT_NOTE, 4, 120, 0, 0, len(note), len(note), 4)
    return header + phdr + note


def bundle(entries):
    ids = [("host-x86_64-unknown-linux--", b"")] + entries
    head = gr.BUNDLE_MAGIC + struct.pack("<Q", len(ids))
    table_size = sum(24 + len(i) for i, _ in ids)
    offset, table, body = len(head) + table_size, b"", b""
    for ident, data in ids:
        table += struct.pack("<QQQ", offset + len(body), len(data), len(ident)) + ident.encode()
        body += data
    return head + table + body


def hip_id(target):
    return "hipv4-amdgcn-amd-amdhsa--" + target


# ---- forged NVIDIA fatbins -----------------------------------------------------

def cubin(kernels):
    """kernels: {name: (shared bytes, threads)}: an ELF with .text.K,
    .nv.shared.K (NOBITS) and .nv.info.K (EIATTR_MAX_THREADS)."""
    names, sections = [""], [(0, 0, b"")]      # (name index, type, data or size)
    strtab = b"\0"

    def add(name, kind, data):
        nonlocal strtab
        sections.append((len(strtab), kind, data))
        strtab += name.encode() + b"\0"
    for k, (shared, threads) in kernels.items():
        add(".text." + k, 1, b"\0" * 16)
        if shared:
            add(".nv.shared." + k, gr.SHT_NOBITS, shared)
        info = struct.pack("<BBH", 0x01, 0x35, 0)          # an NVAL entry first
        info += struct.pack("<BBH", 0x04, 0x05, 12) + struct.pack("<III", threads, 1, 1)
        add(".nv.info." + k, 0x70000000, info)
    shstr_index = len(sections)
    add(".shstrtab", 3, b"")
    sections[-1] = (sections[-1][0], 3, strtab)
    body, headers, offset = b"", b"", 64
    for name, kind, data in sections:
        size = data if kind == gr.SHT_NOBITS else len(data)
        headers += struct.pack("<IIQQQQIIQQ", name, kind, 0, 0, offset + len(body), size, 0, 0, 1, 0)
        if kind != gr.SHT_NOBITS:
            body += data
    shoff = 64 + len(body)
    header = b"\x7fELF" + bytes([2, 1, 1, 0x33, 7]) + b"\0" * 7 + struct.pack(
        "<HHIQQQIHHHHHH", 2, gr.EM_CUDA, 1, 0, 0, shoff, 0, 64, 56, 0, 64, len(sections), shstr_index)
    return header + body + headers


def fatbin(cubins):
    body = b""
    for sm, blob in cubins.items():
        entry = struct.pack("<HHIQ", 2, 0x101, 64, len(blob)) + b"\0" * 12 + struct.pack("<I", sm)
        entry += b"\0" * (64 - len(entry))
        body += entry + blob
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def ptxas(kernel, sm, registers=64, smem=2048, spill=0, stack=0):
    return (f"ptxas info    : Compiling entry function '{kernel}' for 'sm_{sm}'\n"
            f"ptxas info    : Function properties for {kernel}\n"
            f"    {stack} bytes stack frame, {spill} bytes spill stores, {spill} bytes spill loads\n"
            f"ptxas info    : Used {registers} registers, used 1 barriers, {smem} bytes smem, "
            "400 bytes cmem[0]\n")


class Check(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, data):
        path = os.path.join(self.dir.name, name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    def amd(self, entries, version=5):
        path = self.write("m.hipfb", bundle(entries))
        return gr.analyse([("m", version, path)], [])

    def assertFails(self, failures, *words):
        self.assertTrue(any(all(w in f for w in words) for f in failures),
                        f"no failure with {words} in {failures}")

    # --- AMD ---
    def test_good_code_object_passes(self):
        images, failures = self.amd([(hip_id("gfx1100"), code_object())])
        self.assertEqual(failures, [])
        target = images[0]["targets"][0]
        self.assertEqual((target["target"], target["code_object_version"], target["xnack"],
                          target["sramecc"], target["first_rocm"]),
                         ("gfx1100", 5, "unsupported", "unsupported", "5.3"))
        row = target["kernels"][0]
        self.assertEqual((row["vgprs"], row["shared_bytes"], row["occupancy"]), (40, 4096, 16))

    def test_planted_vgpr_spill_fails(self):
        _, failures = self.amd([(hip_id("gfx1100"), code_object(
            kernels=[kernel("vh_spiller", **{".vgpr_spill_count": 3})]))])
        self.assertFails(failures, "vh_spiller", "gfx1100", "spills 3 VGPRs")

    def test_sgpr_spills_alone_pass(self):
        _, failures = self.amd([(hip_id("gfx1100"), code_object(
            kernels=[kernel(**{".sgpr_spill_count": 12})]))])
        self.assertEqual(failures, [])

    def test_planted_lds_overflow_fails(self):
        for processor, limit in (("gfx1100", 65536), ("gfx942", 65536)):
            entry = code_object(processor, features=0x500 if processor == "gfx942" else 0,
                                kernels=[kernel("vh_big_tile", **{
                                    ".group_segment_fixed_size": limit + 8,
                                    ".wavefront_size": 64 if processor == "gfx942" else 32})])
            _, failures = self.amd([(hip_id(processor), entry)])
            self.assertFails(failures, "vh_big_tile", processor, f"{limit + 8} bytes of LDS",
                             str(limit))

    def test_lds_at_the_limit_passes(self):
        _, failures = self.amd([(hip_id("gfx1100"), code_object(
            kernels=[kernel(**{".group_segment_fixed_size": 65536})]))])
        self.assertEqual(failures, [])

    def test_dynamic_stack_fails(self):
        _, failures = self.amd([(hip_id("gfx1100"), code_object(
            kernels=[kernel("vh_recursive", **{".uses_dynamic_stack": True})]))])
        self.assertFails(failures, "vh_recursive", "dynamic stack")

    def test_code_object_version_is_the_builds(self):
        _, failures = self.amd([(hip_id("gfx1100"), code_object(version=5))], version=4)
        self.assertFails(failures, "code object v5", "asked for v4")

    def test_xnack_on_fails(self):
        # gfx90a built for xnack+ only: would not load with xnack off
        entry = code_object("gfx90a", version=4, features=0x300 | 0x400,
                            kernels=[kernel(**{".wavefront_size": 64})])
        _, failures = self.amd([(hip_id("gfx90a"), entry)], version=4)
        self.assertFails(failures, "xnack is 'on'", "expected 'any'")

    def test_features_any_where_supported(self):
        entry = code_object("gfx90a", version=4, features=0x100 | 0x400,
                            kernels=[kernel(**{".wavefront_size": 64})])
        _, failures = self.amd([(hip_id("gfx90a"), entry)], version=4)
        self.assertEqual(failures, [])
        # a feature the processor has, marked unsupported: a wrong target
        entry = code_object("gfx906", version=4, features=0x100,
                            kernels=[kernel(**{".wavefront_size": 64})])
        _, failures = self.amd([(hip_id("gfx906"), entry)], version=4)
        self.assertFails(failures, "sramecc is 'unsupported'", "gfx906")

    def test_bundle_id_with_features_fails(self):
        _, failures = self.amd([(hip_id("gfx90a:xnack-"), code_object(
            "gfx90a", version=4, features=0x500, kernels=[kernel(**{".wavefront_size": 64})]))],
            version=4)
        self.assertFails(failures, "bundle id asks for xnack off")

    def test_bundle_id_and_header_disagree(self):
        _, failures = self.amd([(hip_id("gfx1101"), code_object("gfx1100"))])
        self.assertFails(failures, "bundle says gfx1101", "ELF header gfx1100")

    def test_metadata_target_and_version_checked(self):
        _, failures = self.amd([(hip_id("gfx1100"), code_object(
            target="amdgcn-amd-amdhsa--gfx1102", meta_version=[1, 1]))])
        self.assertFails(failures, "metadata target")
        self.assertFails(failures, "metadata version [1, 1]")

    def test_generic_needs_v6_and_a_version(self):
        good = code_object("gfx11-generic", version=6, generic_version=1)
        images, failures = self.amd([(hip_id("gfx11-generic"), good)], version=6)
        self.assertEqual(failures, [])
        self.assertEqual(images[0]["targets"][0]["first_rocm"], "6.4")
        _, failures = self.amd([(hip_id("gfx11-generic"), code_object(
            "gfx11-generic", version=5))], version=5)
        self.assertFails(failures, "generic processor with code object v5")
        _, failures = self.amd([(hip_id("gfx12-generic"), code_object(
            "gfx12-generic", version=6, generic_version=0))], version=6)
        self.assertFails(failures, "generic version 0")

    def test_runtime_table(self):
        cases = [((4, "gfx900"), "5.0"), ((5, "gfx900"), "5.2"), ((5, "gfx1100"), "5.3"),
                 ((5, "gfx1101"), "5.5"), ((5, "gfx942"), "5.7"), ((5, "gfx1151"), "6.1"),
                 ((5, "gfx1201"), "6.2"), ((6, "gfx9-generic"), "6.4"),
                 ((6, "gfx12-generic"), "6.4"), ((5, "gfx1153"), "7.0"),
                 ((3, "gfx900"), None), ((7, "gfx1100"), None)]
        for (version, processor), release in cases:
            self.assertEqual(gr.amd_first_runtime(version, processor), release,
                             f"v{version} {processor}")

    def test_unknown_processor_has_no_limits(self):
        entry = code_object("gfx950", features=0x500, kernels=[kernel(**{".wavefront_size": 64})])
        _, failures = self.amd([(hip_id("gfx950"), entry)])
        self.assertFails(failures, "gfx950 has no limits")

    def test_occupancy_model(self):
        """Figures clang-19's kernel-resource-usage remarks printed for the
        same kernels (scripts/gpu-resources-remarks.py)."""
        L = gr.AMD_LIMITS
        cases = [
            # (target, wave, VGPRs, SGPRs, LDS, workgroup) -> waves per SIMD, limit
            (("gfx1100", 32, 23, 36, 2048, 256), (16, "VGPRs")),
            (("gfx1100", 32, 119, 107, 21736, 256), (12, "VGPRs")),
            (("gfx1103", 32, 119, 107, 21736, 256), (8, "VGPRs")),
            (("gfx1100", 32, 60, 40, 44184, 256), (4, "LDS")),
            (("gfx942", 64, 24, 48, 2048, 256), (8, "VGPRs")),
            (("gfx942", 64, 40, 48, 44184, 256), (1, "LDS")),
            (("gfx900", 64, 24, 104, 0, 256), (7, "SGPRs")),
            (("gfx900", 64, 254, 40, 0, 256), (1, "VGPRs")),
        ]
        for (target, wave, vgprs, sgprs, lds, workgroup), expected in cases:
            got = gr.amd_occupancy(L[target], wave, vgprs, 0, sgprs, lds, workgroup)
            self.assertEqual(got, expected, (target, vgprs, sgprs, lds))

    def test_damaged_images_raise(self):
        good = bundle([(hip_id("gfx1100"), code_object())])
        for cut in (10, 40, len(good) // 2, len(good) - 3):
            path = self.write("cut.hipfb", good[:cut])
            with self.assertRaises((gr.ImageError, gr.MsgpackError, struct.error)):
                gr.analyse([("m", 5, path)], [])

    def test_msgpack(self):
        value = {"a": [1, -3, 200, 70000, 2 ** 40, -(2 ** 40)], "b": {"x": True, "y": None},
                 "c": "s" * 40, "d": 0.5, "e": b"raw", "f": list(range(20)),
                 **{f"k{i}": i for i in range(20)}}
        self.assertEqual(gr.msgpack_decode(pack(value)), value)
        with self.assertRaises(gr.MsgpackError):
            gr.msgpack_decode(pack(value)[:-1])
        with self.assertRaises(gr.MsgpackError):
            gr.msgpack_decode(b"\xc7\x01\x00\x00")      # ext: not AMDGPU metadata

    # --- NVIDIA ---
    def nvidia(self, kernels, log, sms=(90,)):
        fb = self.write("m.fatbin", fatbin({sm: cubin(kernels) for sm in sms}))
        lg = self.write("m.log", log)
        return gr.analyse([], [("m", fb, lg)])

    def test_nvidia_good(self):
        images, failures = self.nvidia({"vh_k": (2048, 256)}, ptxas("vh_k", 90))
        self.assertEqual(failures, [])
        row = images[0]["targets"][0]["kernels"][0]
        # 64 registers: 2048 a warp, 32 warps of the 64; blocks of 8 warps
        self.assertEqual((row["registers"], row["max_threads"], row["occupancy"],
                          row["limited_by"]), (64, 256, 32, "registers"))

    def test_nvidia_planted_spill_fails(self):
        _, failures = self.nvidia({"vh_k": (2048, 256)}, ptxas("vh_k", 90, spill=8, stack=8))
        self.assertFails(failures, "vh_k", "sm_90", "8 bytes stored")

    def test_accepted_spills(self):
        accepted = gr.parse_accepted(
            "# comment\n"
            "nvidia vh_k * 8 measured faster with it\n"
            "amd vh_a gfx906,gfx900 2 measured faster with it\n", "accepted.txt")
        fb = self.write("m.fatbin", fatbin({90: cubin({"vh_k": (2048, 256)})}))
        for spill, ok in ((8, True), (12, False)):
            lg = self.write("m.log", ptxas("vh_k", 90, spill=spill, stack=spill))
            images, failures = gr.analyse([], [("m", fb, lg)], accepted)
            self.assertEqual(failures == [], ok, failures)
            self.assertEqual(images[0]["targets"][0]["kernels"][0]["spill_accepted"], ok)
        for target, ok in (("gfx906", True), ("gfx908", False)):
            path = self.write("a.hipfb", bundle([(hip_id(target), code_object(
                target, version=4, features=0x500,
                kernels=[kernel("vh_a", **{".vgpr_spill_count": 2, ".wavefront_size": 64})]))]))
            _, failures = gr.analyse([("a", 4, path)], [], accepted)
            self.assertEqual(failures == [], ok, (target, failures))
        with self.assertRaises(ValueError):
            gr.parse_accepted("nvidia vh_k * many\n", "bad.txt")
        with self.assertRaises(ValueError):
            gr.parse_accepted("nvidia vh_k * 4\n", "no-reason.txt")

    def test_nvidia_report_must_cover_every_cubin(self):
        _, failures = self.nvidia({"vh_k": (0, 128)}, ptxas("vh_k", 90, smem=0), sms=(80, 90))
        self.assertFails(failures, "vh_k on sm_80", "not in ptxas's report")

    def test_nvidia_shared_memory_must_match_the_cubin(self):
        _, failures = self.nvidia({"vh_k": (4096, 256)}, ptxas("vh_k", 90, smem=2048))
        self.assertFails(failures, "reports 2048", "cubin has 4096")

    def test_nvidia_static_shared_limit(self):
        _, failures = self.nvidia({"vh_k": (50000, 256)}, ptxas("vh_k", 90, smem=50000))
        self.assertFails(failures, "50000 bytes of static shared memory")

    @unittest.skipUnless(CLANG and KERNELS, "no --clang given")
    def test_compiled_kernel_that_spills(self):
        """A real kernel capped at 8 VGPRs (planted-spill.hip), compiled as
        the build compiles for gfx1100: the check fails, naming it."""
        out = os.path.join(self.dir.name, "planted.hipfb")
        subprocess.run([CLANG, "-x", "hip", "--cuda-device-only", "-nogpulib", "-O3",
                        "-ffp-contract=off", "-DVH_AMD_NO_DEVICE_LIBS",
                        "-mcode-object-version=5", "--offload-arch=gfx1100", "-I", KERNELS,
                        os.path.join(HERE, "gpu", "planted-spill.hip"), "-o", out],
                       check=True, env=dict(os.environ, TMPDIR=self.dir.name))
        result = subprocess.run([sys.executable, TOOL, "--json", out + ".json",
                                 "--markdown", out + ".md", "--amd-image", "planted", "5", out],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("kernel vh_planted_spill on gfx1100 spills", result.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
