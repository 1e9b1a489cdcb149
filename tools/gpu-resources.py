#!/usr/bin/env python3
"""Reads every kernel's resources from the compiled GPU images and checks
them, per target (vmafhip build step).

AMD: each code object of an offload bundle is an ELF whose NT_AMDGPU_METADATA
note (a msgpack map, decoded here: no python3-msgpack needed) lists every
kernel's VGPRs, AGPRs, SGPRs, LDS (group segment), scratch (private
segment), spills, wavefront size and launch bound.  The ELF header is
checked against what the ROCm runtimes load (AMD_RUNTIMES below): code
object version (e_ident[EI_ABIVERSION]), processor (e_flags), the
xnack/sramecc features and the generic version, and against the bundle id
and the metadata's amdhsa.target.

NVIDIA: a cubin carries no spill counts, so nvcc's own report is used:
tools/nvcc-resource-usage.py keeps ptxas's --resource-usage lines of the
very compilation that wrote the fatbin, and every kernel of every cubin in
the fatbin must be in it, with the same static shared memory as the
cubin's .nv.shared.KERNEL section.

Fails (exit 1, naming kernel, target, the figure and the fix) on a spill
to memory (except one kernels/spills-accepted.txt accepts, up to its
size), on shared memory beyond a target's limit (AMD_LIMITS,
NVIDIA_LIMITS), or on a code object no ROCm runtime of AMD_RUNTIMES would
load as built.  Writes
a JSON table (embedded by tools/embed-binary.py, printed by
vmafhip-info --resources) and a Markdown summary (docs/gpu.md).

usage: gpu-resources.py --json OUT.json --markdown OUT.md [--accept FILE]
           [--amd-image MODULE CODE_OBJECT_VERSION FILE ...]
           [--nvidia-image MODULE FILE PTXAS_LOG ...]
"""
import argparse
import hashlib
import json
import math
import os
import re
import struct
import sys

# ---- msgpack (the subset AMDGPU metadata uses) ------------------------------


class MsgpackError(Exception):
    pass


def msgpack_decode(data):
    """Decodes one msgpack value spanning all of data."""
    value, end = _msgpack_at(data, 0)
    if end != len(data):
        raise MsgpackError(f"{len(data) - end} bytes after the metadata map")
    return value


def _msgpack_at(data, pos):
    def take(fmt):
        size = struct.calcsize(fmt)
        if pos + 1 + size > len(data):
            raise MsgpackError("truncated")
        return struct.unpack_from(fmt, data, pos + 1)[0], pos + 1 + size

    def raw(length, start):
        if start + length > len(data):
            raise MsgpackError("truncated")
        return data[start:start + length], start + length

    def items(count, start, pairs):
        out = {} if pairs else []
        for _ in range(count):
            key, start = _msgpack_at(data, start)
            if pairs:
                value, start = _msgpack_at(data, start)
                if not isinstance(key, (str, int)):
                    raise MsgpackError("map key is not a string")
                out[key] = value
            else:
                out.append(key)
        return out, start

    if pos >= len(data):
        raise MsgpackError("truncated")
    b = data[pos]
    if b <= 0x7f:
        return b, pos + 1
    if b >= 0xe0:
        return b - 0x100, pos + 1
    if 0x80 <= b <= 0x8f:
        return items(b & 0x0f, pos + 1, True)
    if 0x90 <= b <= 0x9f:
        return items(b & 0x0f, pos + 1, False)
    if 0xa0 <= b <= 0xbf:
        text, end = raw(b & 0x1f, pos + 1)
        return text.decode("utf-8"), end
    simple = {0xc0: None, 0xc2: False, 0xc3: True}
    if b in simple:
        return simple[b], pos + 1
    numbers = {0xca: ">f", 0xcb: ">d", 0xcc: ">B", 0xcd: ">H", 0xce: ">I",
               0xcf: ">Q", 0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q"}
    if b in numbers:
        return take(numbers[b])
    lengths = {0xc4: ">B", 0xc5: ">H", 0xc6: ">I", 0xd9: ">B", 0xda: ">H",
               0xdb: ">I", 0xdc: ">H", 0xdd: ">I", 0xde: ">H", 0xdf: ">I"}
    if b in lengths:
        count, start = take(lengths[b])
        if b in (0xc4, 0xc5, 0xc6):
            return raw(count, start)
        if b in (0xd9, 0xda, 0xdb):
            text, end = raw(count, start)
            return text.decode("utf-8"), end
        return items(count, start, b in (0xde, 0xdf))
    raise MsgpackError(f"msgpack type 0x{b:02x} is not used by AMDGPU metadata")


# ---- ELF ----------------------------------------------------------------------

EM_AMDGPU = 224
EM_CUDA = 190
ELFOSABI_AMDGPU_HSA = 64
NT_AMDGPU_METADATA = 32
SHT_NOTE = 7
SHT_NOBITS = 8
PT_NOTE = 4


class ImageError(Exception):
    pass


def _u(fmt, data, offset, what):
    size = struct.calcsize(fmt)
    if offset < 0 or offset + size > len(data):
        raise ImageError(f"{what}: truncated")
    return struct.unpack_from(fmt, data, offset)


def elf_sections(elf, what):
    """{name: (type, bytes or size for NOBITS)} of a 64-bit ELF."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        raise ImageError(f"{what}: not a 64-bit ELF")
    (shoff,) = _u("<Q", elf, 0x28, what)
    shentsize, shnum, shstrndx = _u("<HHH", elf, 0x3a, what)
    if shnum == 0:
        return {}
    headers = [_u("<IIQQQQ", elf, shoff + i * shentsize, what) for i in range(shnum)]
    if shstrndx >= shnum:
        raise ImageError(f"{what}: bad section name table index")
    strings = headers[shstrndx][4]
    sections = {}
    for name, kind, _flags, _addr, offset, size in headers:
        end = elf.find(b"\0", strings + name)
        if end < 0:
            raise ImageError(f"{what}: bad section name")
        label = elf[strings + name:end].decode("ascii", "replace")
        if kind == SHT_NOBITS:
            sections[label] = (kind, size)
        else:
            if offset + size > len(elf):
                raise ImageError(f"{what}: section {label} beyond the end")
            sections[label] = (kind, elf[offset:offset + size])
    return sections


def elf_notes(elf, what):
    """Yields (name, type, desc) of every note, from the PT_NOTE segments."""
    (phoff,) = _u("<Q", elf, 0x20, what)
    phentsize, phnum = _u("<HH", elf, 0x36, what)
    for i in range(phnum):
        kind, _flags, offset, _vaddr, _paddr, size = _u("<IIQQQQ", elf, phoff + i * phentsize, what)
        if kind != PT_NOTE:
            continue
        pos, end = offset, offset + size
        if end > len(elf):
            raise ImageError(f"{what}: note segment beyond the end")
        while pos + 12 <= end:
            namesz, descsz, note_type = _u("<III", elf, pos, what)
            name_at = pos + 12
            desc_at = name_at + (namesz + 3) // 4 * 4
            next_at = desc_at + (descsz + 3) // 4 * 4
            if next_at > end:
                raise ImageError(f"{what}: note beyond its segment")
            yield (elf[name_at:name_at + namesz].rstrip(b"\0").decode("ascii", "replace"),
                   note_type, elf[desc_at:desc_at + descsz])
            pos = next_at


# ---- AMD: targets, features, what each ROCm runtime loads ---------------------

# the shared table beside this file (also when loaded by path, as tests do)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from amdgpu_mach import AMDGPU_MACH  # noqa: E402
# e_ident[EI_ABIVERSION] of ELFOSABI_AMDGPU_HSA -> code object version
AMDGPU_ABI_VERSION = {0: 2, 1: 3, 2: 4, 3: 5, 4: 6}
METADATA_VERSIONS = {4: [[1, 1]], 5: [[1, 2]], 6: [[1, 2], [1, 3]]}
EF_XNACK, EF_SRAMECC = 0x300, 0xc00
XNACK_VALUES = {0x000: "unsupported", 0x100: "any", 0x200: "off", 0x300: "on"}
SRAMECC_VALUES = {0x000: "unsupported", 0x400: "any", 0x800: "off", 0xc00: "on"}

# Which processors have the xnack and sramecc features (ROCR's ISA registry,
# rocm-systems projects/rocr-runtime/runtime/hsa-runtime/core/runtime/isa.cpp,
# and LLVM's AMDGPUUsage processor table).  A code object for one of them
# must say "any" (built without :xnack+/- or :sramecc+/-) so that it loads
# whatever mode the GPU runs in: the loader's choice ignores the features.
XNACK_PROCESSORS = {"gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909",
                    "gfx90a", "gfx90c", "gfx940", "gfx941", "gfx942", "gfx950",
                    "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx9-generic",
                    "gfx9-4-generic", "gfx10-1-generic"}
SRAMECC_PROCESSORS = {"gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942",
                      "gfx950", "gfx9-4-generic"}

# What each ROCm release's code object loader reads (ROCR-Runtime's
# libamdhsacode/amd_hsa_code.cpp: GetCodeObjectVersion's ELF ABI versions,
# GetMachInfo's processors; read at the tags rocm-5.0.0 ... rocm-6.2.4, at
# ROCR-Runtime amd-staging of 2024-10-23 and at rocm-systems of 2025-08-09,
# the ROCm 7.0 line).  "generic": whether the loader also runs a generic
# code object on a GPU of its family (Isa::IsCompatible with the generic
# version; absent up to 2024-10-23, in rocm-systems 2025-08-09) and HIP's
# bundle reader picks generic entries (ROCm/clr hip_code_object.cpp: absent
# at rocm-6.2.2 and 2024-10-01); AMD's own libraries build generic targets
# from ROCm 6.4 on (composable_kernel, rocSOLVER issue 909).
_GFX9 = {"gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90a", "gfx90c"}
_GFX10 = {"gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031",
          "gfx1032", "gfx1033", "gfx1034", "gfx1035"}
_GENERIC = {"gfx9-generic", "gfx10-1-generic", "gfx10-3-generic", "gfx11-generic"}
AMD_RUNTIMES = [
    ("5.0", {4}, _GFX9 | _GFX10, False),
    ("5.2", {4, 5}, _GFX9 | _GFX10, False),
    ("5.3", {4, 5}, _GFX9 | _GFX10 | {"gfx1036", "gfx1100", "gfx1102", "gfx1103"}, False),
    ("5.5", {4, 5}, _GFX9 | _GFX10 | {"gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103"}, False),
    ("5.7", {4, 5}, _GFX9 | _GFX10 | {"gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103",
                                      "gfx940", "gfx941", "gfx942"}, False),
    ("6.1", {4, 5}, _GFX9 | _GFX10 | {"gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103",
                                      "gfx940", "gfx941", "gfx942", "gfx1150", "gfx1151"}, False),
    ("6.2", {4, 5, 6}, _GFX9 | _GFX10 | _GENERIC | {
        "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx940", "gfx941",
        "gfx942", "gfx1150", "gfx1151", "gfx1200", "gfx1201"}, False),
    ("7.0", {4, 5, 6}, _GFX9 | _GFX10 | _GENERIC | {
        "gfx12-generic", "gfx9-4-generic", "gfx1036", "gfx1100", "gfx1101", "gfx1102",
        "gfx1103", "gfx942", "gfx950", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
        "gfx1200", "gfx1201"}, True),
]
GENERIC_FIRST_ROCM = "6.4"   # the release AMD's own libraries take up generic targets with


def amd_first_runtime(version, processor):
    """The first ROCm release (of AMD_RUNTIMES) whose loader reads a code
    object of this version and processor, or None."""
    for release, versions, processors, runs_generic in AMD_RUNTIMES:
        if version in versions and processor in processors:
            if processor.endswith("-generic") and not runs_generic:
                continue
            return GENERIC_FIRST_ROCM if processor.endswith("-generic") else release
    return None


# ---- per-target limits ---------------------------------------------------------


class AmdLimits:
    """What one AMD processor has (LLVM AMDGPU backend: AMDGPUBaseInfo and
    GCNSubtarget; AMDGPUUsage's processor and memory tables).  Occupancy is
    LLVM's model: waves per SIMD, the least of what the VGPRs, SGPRs (gfx9
    only) and LDS allow, for a workgroup of the kernel's launch bound."""

    def __init__(self, family, lds_per_workgroup, vgprs_wave64, vgpr_granule_wave64,
                 max_waves, vgpr_file_wave32=None, vgpr_granule_wave32=None,
                 gfx9=False, unified_agprs=False, separate_agprs=False):
        self.family = family
        self.lds_per_workgroup = lds_per_workgroup
        self.vgprs = {64: vgprs_wave64, 32: vgpr_file_wave32}
        self.granule = {64: vgpr_granule_wave64, 32: vgpr_granule_wave32}
        self.max_waves = max_waves
        # gfx9: a CU of 4 SIMDs and 64 KiB of LDS, 16 barriers, SGPRs limit
        # the waves too.  gfx10+ in WGP mode (HIP's default): 2 CUs of 2
        # SIMDs sharing 128 KiB, 32 barriers; in CU mode half of each.
        self.gfx9 = gfx9
        self.unified_agprs = unified_agprs
        self.separate_agprs = separate_agprs


_GCN5 = AmdLimits("GCN5 (Vega)", 65536, 256, 4, 10, gfx9=True)
_CDNA1 = AmdLimits("CDNA1", 65536, 256, 4, 10, gfx9=True, separate_agprs=True)
_CDNA2 = AmdLimits("CDNA2/3", 65536, 512, 8, 8, gfx9=True, unified_agprs=True)
_RDNA1 = AmdLimits("RDNA1", 65536, 512, 4, 20, 1024, 8)
_RDNA2 = AmdLimits("RDNA2", 65536, 512, 4, 16, 1024, 8)
_RDNA3 = AmdLimits("RDNA3", 65536, 512, 4, 16, 1024, 8)
_RDNA3_BIG = AmdLimits("RDNA3 (1.5x VGPRs)", 65536, 768, 12, 16, 1536, 24)
_RDNA4 = AmdLimits("RDNA4", 65536, 768, 12, 16, 1536, 24)

AMD_LIMITS = {
    **{p: _GCN5 for p in ("gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c",
                          "gfx9-generic")},
    "gfx908": _CDNA1,
    **{p: _CDNA2 for p in ("gfx90a", "gfx940", "gfx941", "gfx942")},
    **{p: _RDNA1 for p in ("gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx10-1-generic")},
    **{p: _RDNA2 for p in ("gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034",
                           "gfx1035", "gfx1036", "gfx10-3-generic")},
    # gfx11-generic may use only what the smaller VGPR file holds
    **{p: _RDNA3 for p in ("gfx1102", "gfx1103", "gfx1150", "gfx1152", "gfx1153",
                           "gfx11-generic")},
    **{p: _RDNA3_BIG for p in ("gfx1100", "gfx1101", "gfx1151")},
    **{p: _RDNA4 for p in ("gfx1200", "gfx1201", "gfx12-generic")},
}


class NvidiaLimits:
    """Per compute capability (CUDA C++ Programming Guide, "Technical
    Specifications per Compute Capability"; occupancy as the CUDA occupancy
    calculator: registers allocated per warp in units of 256, 64K registers
    per SM in four partitions, shared memory per block plus the 1 KiB the
    system reserves per block from 8.0 on)."""

    def __init__(self, max_warps, max_blocks, smem_per_sm, smem_per_block_optin,
                 reserved_smem):
        self.max_warps = max_warps
        self.max_blocks = max_blocks
        self.smem_per_sm = smem_per_sm
        self.smem_per_block_optin = smem_per_block_optin
        self.reserved_smem = reserved_smem
        self.static_smem_limit = 48 * 1024   # static __shared__ per block, every arch
        self.registers = 65536
        self.max_registers_per_thread = 255


KIB = 1024
NVIDIA_LIMITS = {
    75: NvidiaLimits(32, 16, 64 * KIB, 64 * KIB, 0),
    80: NvidiaLimits(64, 32, 164 * KIB, 163 * KIB, KIB),
    86: NvidiaLimits(48, 16, 100 * KIB, 99 * KIB, KIB),
    87: NvidiaLimits(48, 16, 164 * KIB, 163 * KIB, KIB),
    89: NvidiaLimits(48, 24, 100 * KIB, 99 * KIB, KIB),
    90: NvidiaLimits(64, 32, 228 * KIB, 227 * KIB, KIB),
    100: NvidiaLimits(64, 32, 228 * KIB, 227 * KIB, KIB),
    103: NvidiaLimits(64, 32, 228 * KIB, 227 * KIB, KIB),
    120: NvidiaLimits(48, 32, 128 * KIB, 99 * KIB, KIB),
}


def _align(value, granule):
    return (value + granule - 1) // granule * granule


def amd_occupancy(limits, wave, vgprs, agprs, sgprs, lds, workgroup, wgp_mode=True):
    """(waves per SIMD, what limits it) by the model of LLVM 19's AMDGPU
    backend (getNumWavesPerEUWithNumVGPRs, getOccupancyWithNumSGPRs,
    getOccupancyWithLocalMemSize), which clang-19's kernel-resource-usage
    remarks print."""
    total, granule = limits.vgprs[wave], limits.granule[wave]
    if total is None:
        raise ImageError(f"{limits.family} has no wave{wave} mode")
    registers = max(vgprs, agprs) if limits.separate_agprs else vgprs
    by_vgprs = limits.max_waves if registers < granule else \
        min(max(total // _align(registers, granule), 1), limits.max_waves)
    found = [(by_vgprs, "VGPRs")]
    if limits.gfx9:
        by_sgprs = 10 if sgprs <= 80 else 9 if sgprs <= 88 else 8 if sgprs <= 100 else 7
        found.append((min(by_sgprs, limits.max_waves), "SGPRs"))
    whole_wgp = wgp_mode and not limits.gfx9
    simds = 2 if not limits.gfx9 and not wgp_mode else 4
    lds_size = 131072 if whole_wgp else 65536
    barriers = 32 if whole_wgp else 16
    # the workgroups that fit, their waves spread over the SIMDs
    waves_per_group = math.ceil(workgroup / wave)
    max_groups = limits.max_waves * simds
    if waves_per_group > 1:
        max_groups = min(max_groups // waves_per_group, barriers)
    groups = min(max_groups, lds_size // max(lds, 1))
    by_lds = 1 if groups == 0 else min(math.ceil(groups * waves_per_group / simds),
                                       limits.max_waves)
    found.append((by_lds, "LDS"))
    return min(found, key=lambda item: item[0])


def nvidia_occupancy(limits, registers, smem, threads):
    """(warps per SM, what limits it) as the CUDA occupancy calculator."""
    warps_per_block = math.ceil(threads / 32)
    found = [(limits.max_blocks * warps_per_block, "blocks")]
    per_warp = _align(max(registers, 1) * 32, 256)
    warps_by_regs = (limits.registers // 4 // per_warp) * 4
    found.append((warps_by_regs // warps_per_block * warps_per_block, "registers"))
    if smem:
        per_block = _align(smem + limits.reserved_smem, 128)
        found.append((limits.smem_per_sm // per_block * warps_per_block, "shared memory"))
    warps, why = min(found, key=lambda item: item[0])
    cap = limits.max_warps // warps_per_block * warps_per_block
    return (warps, why) if warps <= cap else (cap, "warps")


# ---- images -----------------------------------------------------------------------

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def bundle_entries(data, what):
    """[(id, bytes)] of a clang offload bundle's device entries."""
    if not data.startswith(BUNDLE_MAGIC):
        raise ImageError(f"{what}: not a clang offload bundle")
    (count,) = _u("<Q", data, len(BUNDLE_MAGIC), what)
    pos, entries = len(BUNDLE_MAGIC) + 8, []
    for _ in range(count):
        offset, size, id_len = _u("<QQQ", data, pos, what)
        ident = data[pos + 24:pos + 24 + id_len].decode("ascii", "replace")
        pos += 24 + id_len
        if offset + size > len(data):
            raise ImageError(f"{what}: entry {ident} beyond the end")
        if not ident.startswith("host-"):
            entries.append((ident, data[offset:offset + size]))
    return entries


def split_target_id(target_id):
    """'gfx90a:sramecc+:xnack-' -> ('gfx90a', {'sramecc': 'on', 'xnack': 'off'})"""
    processor, *features = target_id.split(":")
    return processor, {f[:-1]: "on" if f.endswith("+") else "off" for f in features}


def read_amd_code_object(elf, bundle_id, expected_version, what):
    """The code object's header facts and kernels; problems found in it."""
    problems = []
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or _u("<H", elf, 18, what)[0] != EM_AMDGPU:
        raise ImageError(f"{what}: not a 64-bit AMD GPU ELF")
    (flags,) = _u("<I", elf, 48, what)
    processor = AMDGPU_MACH.get(flags & 0xff, f"mach 0x{flags & 0xff:x}")
    version = AMDGPU_ABI_VERSION.get(elf[8]) if elf[7] == ELFOSABI_AMDGPU_HSA else None
    xnack = XNACK_VALUES[flags & EF_XNACK]
    sramecc = SRAMECC_VALUES[flags & EF_SRAMECC]
    generic_version = flags >> 24
    facts = {"processor": processor, "code_object_version": version,
             "xnack": xnack, "sramecc": sramecc, "generic_version": generic_version}

    if elf[7] != ELFOSABI_AMDGPU_HSA:
        problems.append(f"ELF OS ABI {elf[7]}, not AMDGPU_HSA (64): not a HIP code object")
    if version != expected_version:
        problems.append(f"code object v{version} (ELF ABI version {elf[8]}), the build "
                        f"asked for v{expected_version}")
    id_processor, id_features = split_target_id(bundle_id.rsplit("--", 1)[-1])
    if id_processor != processor:
        problems.append(f"the bundle says {id_processor}, the ELF header {processor}")
    for feature, value, supported in (("xnack", xnack, XNACK_PROCESSORS),
                                      ("sramecc", sramecc, SRAMECC_PROCESSORS)):
        wanted = "any" if processor in supported else "unsupported"
        if value != wanted:
            problems.append(f"{feature} is '{value}', expected '{wanted}' for {processor} "
                            "(build without :{0}+/- so it loads in either mode)".format(feature))
        if feature in id_features:
            problems.append(f"the bundle id asks for {feature} {id_features[feature]}")
    is_generic = processor.endswith("-generic")
    if is_generic and (version is None or version < 6 or generic_version < 1):
        problems.append(f"generic processor with code object v{version} and generic "
                        f"version {generic_version}: needs v6 and version 1 or later")
    if not is_generic and generic_version:
        problems.append(f"generic version {generic_version} on a specific processor")
    if processor in AMDGPU_MACH.values() and version is not None \
            and amd_first_runtime(version, processor) is None:
        problems.append(f"no ROCm runtime of 5.0-7.0 loads code object v{version} for "
                        f"{processor} (tools/gpu-resources.py AMD_RUNTIMES)")

    metadata = None
    for name, note_type, desc in elf_notes(elf, what):
        if name == "AMDGPU" and note_type == NT_AMDGPU_METADATA:
            metadata = msgpack_decode(desc)
    if not isinstance(metadata, dict):
        raise ImageError(f"{what}: no NT_AMDGPU_METADATA note")
    meta_version = metadata.get("amdhsa.version")
    # metadata 1.1 is code object v4, 1.2 v5; v6 keeps v5's (LLVM 19) or
    # says 1.3
    if version and meta_version not in METADATA_VERSIONS.get(version, []):
        problems.append(f"metadata version {meta_version} does not match code object v{version}")
    target = metadata.get("amdhsa.target", "")
    meta_processor, meta_features = split_target_id(target.rsplit("--", 1)[-1])
    if meta_processor != processor or meta_features:
        problems.append(f"metadata target '{target}' does not match {processor} built for "
                        "any xnack/sramecc mode")
    kernels = metadata.get("amdhsa.kernels")
    if not isinstance(kernels, list) or not kernels:
        raise ImageError(f"{what}: metadata lists no kernels")
    return facts, kernels, problems


def amd_kernel_row(kernel, processor, what):
    def field(key, default=None):
        value = kernel.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ImageError(f"{what}: kernel {kernel.get('.name')} has no integer {key}")
        return value
    row = {
        "kernel": kernel.get(".name", "?"),
        "vgprs": field(".vgpr_count"),
        "agprs": field(".agpr_count", 0),
        "sgprs": field(".sgpr_count"),
        "shared_bytes": field(".group_segment_fixed_size"),
        "scratch_bytes": field(".private_segment_fixed_size"),
        "vgpr_spills": field(".vgpr_spill_count", 0),
        "sgpr_spills": field(".sgpr_spill_count", 0),
        "wave_size": field(".wavefront_size"),
        "max_threads": field(".max_flat_workgroup_size"),
        "dynamic_stack": bool(kernel.get(".uses_dynamic_stack", False)),
    }
    limits = AMD_LIMITS.get(processor)
    if limits:
        row["occupancy"], row["limited_by"] = amd_occupancy(
            limits, row["wave_size"], row["vgprs"], row["agprs"], row["sgprs"],
            row["shared_bytes"], row["max_threads"],
            kernel.get(".workgroup_processor_mode", 1) != 0)
        row["occupancy_max"] = limits.max_waves
    return row


def parse_accepted(text, origin):
    """[(vendor, kernel, targets or None for all, most, why)] of a
    spills-accepted file."""
    accepted = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(None, 4)
        if len(fields) < 5 or fields[0] not in ("amd", "nvidia") or not fields[3].isdigit():
            raise ValueError(f"{origin}:{number}: expected 'VENDOR KERNEL TARGETS MOST WHY'")
        targets = None if fields[2] == "*" else set(fields[2].split(","))
        accepted.append((fields[0], fields[1], targets, int(fields[3]), fields[4]))
    return accepted


def accepted_spill(accepted, vendor, kernel, target):
    """The most spill accepted for kernel on target (None: none)."""
    for a_vendor, a_kernel, targets, most, _why in accepted:
        if a_vendor == vendor and a_kernel == kernel and (targets is None or target in targets):
            return most
    return None


def check_amd_row(row, processor, accepted=()):
    """The build failures of one kernel on one AMD target."""
    where = f"kernel {row['kernel']} on {processor}"
    limits = AMD_LIMITS.get(processor)
    failures = []
    if limits is None:
        failures.append(f"{processor} has no limits in tools/gpu-resources.py AMD_LIMITS: "
                        "add its LDS size and VGPR file (LLVM's AMDGPUUsage)")
        return failures
    most = accepted_spill(accepted, "amd", row["kernel"], processor)
    row["spill_accepted"] = bool(row["vgpr_spills"]) and most is not None \
        and row["vgpr_spills"] <= most
    if row["vgpr_spills"] and not row["spill_accepted"]:
        failures.append(f"{where} spills {row['vgpr_spills']} VGPRs to scratch memory: lower "
                        "its register pressure (fewer live values, smaller unrolls) or its "
                        "__launch_bounds__ so the compiler may use more registers (or, "
                        "measured faster so, accept it in kernels/spills-accepted.txt)")
    if row["dynamic_stack"]:
        failures.append(f"{where} uses a dynamic stack (recursion or alloca): its scratch "
                        "size is unknown at build time")
    if row["shared_bytes"] > limits.lds_per_workgroup:
        failures.append(f"{where} needs {row['shared_bytes']} bytes of LDS, more than the "
                        f"{limits.lds_per_workgroup} a workgroup has there: shrink its tiles")
    return failures


def fatbin_cubins(data, what):
    """{sm: cubin bytes} of an NVIDIA fatbin's uncompressed cubins."""
    version, header = _u("<HH", data, 4, what)
    (body,) = _u("<Q", data, 8, what)
    if data[:4] != struct.pack("<I", 0xBA55ED50) or header < 16 or header + body > len(data):
        raise ImageError(f"{what}: not an NVIDIA fatbin")
    pos, end, cubins = header, header + body, {}
    while pos < end:
        kind, _, entry_header, payload = _u("<HHIQ", data, pos, what)
        (sm,) = _u("<I", data, pos + 28, what)
        blob = data[pos + entry_header:pos + entry_header + payload]
        if kind == 2:
            if blob[:4] != b"\x7fELF":
                raise ImageError(f"{what}: the sm_{sm} cubin is compressed: build it with "
                                 "nvcc's default (uncompressed) cubins")
            cubins[sm] = blob
        pos += entry_header + payload
    return cubins


PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)' for 'sm_(\d+)'")
PTXAS_PROPERTIES = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                              r"(\d+) bytes spill loads")
PTXAS_USED = re.compile(r"Used (\d+) registers")
PTXAS_SMEM = re.compile(r"(\d+) bytes smem")
PTXAS_LMEM = re.compile(r"(\d+) bytes lmem")


def parse_ptxas_log(text):
    """{(kernel, sm): row} from ptxas's --resource-usage report."""
    rows, current = {}, None
    for line in text.splitlines():
        m = PTXAS_ENTRY.search(line)
        if m:
            current = {"kernel": m.group(1), "sm": int(m.group(2)), "registers": None,
                       "stack_bytes": 0, "spill_store_bytes": 0, "spill_load_bytes": 0,
                       "shared_bytes": 0, "local_bytes": 0}
            rows[(current["kernel"], current["sm"])] = current
            continue
        if current is None:
            continue
        m = PTXAS_PROPERTIES.search(line)
        if m:
            current["stack_bytes"], current["spill_store_bytes"], current["spill_load_bytes"] = \
                (int(g) for g in m.groups())
        m = PTXAS_USED.search(line)
        if m:
            current["registers"] = int(m.group(1))
            smem = PTXAS_SMEM.search(line)
            current["shared_bytes"] = int(smem.group(1)) if smem else 0
            lmem = PTXAS_LMEM.search(line)
            current["local_bytes"] = int(lmem.group(1)) if lmem else 0
    return rows


def cubin_kernels(cubin, what):
    """{kernel: (static shared bytes, threads of its launch bound or None)}"""
    sections = elf_sections(cubin, what)
    kernels = {}
    for name in sections:
        if not name.startswith(".text."):
            continue
        kernel = name[len(".text."):]
        shared = sections.get(".nv.shared." + kernel)
        threads = None
        info = sections.get(".nv.info." + kernel)
        if info and info[0] != SHT_NOBITS:
            threads = _nv_info_threads(info[1])
        kernels[kernel] = (shared[1] if shared else 0, threads)
    return kernels


def _nv_info_threads(info):
    """The block size of a kernel's EIATTR_MAX_THREADS (0x05) or
    EIATTR_REQNTID (0x10) attribute (x*y*z): its __launch_bounds__."""
    pos = 0
    while pos + 4 <= len(info):
        fmt, attr = info[pos], info[pos + 1]
        if fmt == 0x04:     # EIFMT_SVAL: a 16-bit size, then the value
            (size,) = struct.unpack_from("<H", info, pos + 2)
            value = info[pos + 4:pos + 4 + size]
            if attr in (0x05, 0x10) and size == 12:
                x, y, z = struct.unpack("<III", value)
                return x * y * z
            pos += 4 + size
        else:               # EIFMT_NVAL / BVAL / HVAL: 4 bytes in all
            pos += 4
    return None


def check_nvidia_row(row, sm, accepted=()):
    limits = NVIDIA_LIMITS.get(sm)
    where = f"kernel {row['kernel']} on sm_{sm}"
    failures = []
    if limits is None:
        return [f"sm_{sm} has no limits in tools/gpu-resources.py NVIDIA_LIMITS: add its "
                "row from the CUDA Programming Guide's compute capability table"]
    most = accepted_spill(accepted, "nvidia", row["kernel"], f"sm_{sm}")
    spilled = row["spill_store_bytes"] or row["spill_load_bytes"]
    row["spill_accepted"] = bool(spilled) and most is not None \
        and row["spill_store_bytes"] <= most
    if spilled and not row["spill_accepted"]:
        failures.append(f"{where} spills registers to local memory ({row['spill_store_bytes']} "
                        f"bytes stored, {row['spill_load_bytes']} loaded): lower its register "
                        "pressure or raise its __launch_bounds__ register budget (or, measured "
                        "faster so, accept it in kernels/spills-accepted.txt)")
    if row["shared_bytes"] > limits.static_smem_limit:
        failures.append(f"{where} needs {row['shared_bytes']} bytes of static shared memory, "
                        f"more than the {limits.static_smem_limit} a block may declare: "
                        "shrink its tiles")
    return failures


# ---- the whole check ------------------------------------------------------------------


def _read(path, mode):
    with open(path, mode, **({} if "b" in mode else {"errors": "replace"})) as f:
        return f.read()


def analyse(amd_images, nvidia_images, accepted=()):
    """(images, failures): the JSON table's images and what fails the build.
    amd_images: [(module, code object version, path)];
    nvidia_images: [(module, path, ptxas log path)];
    accepted: parse_accepted's spills."""
    images, failures = [], []
    for module, expected_version, path in amd_images:
        data = _read(path, "rb")
        label = os.path.basename(path)
        image = {"module": module, "vendor": "amd", "file": label,
                 "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                 "targets": []}
        for bundle_id, elf in bundle_entries(data, label):
            what = f"{label} ({bundle_id})"
            facts, kernels, problems = read_amd_code_object(elf, bundle_id, expected_version, what)
            failures += [f"{what}: {p}" for p in problems]
            processor = facts["processor"]
            rows = []
            for kernel in kernels:
                row = amd_kernel_row(kernel, processor, what)
                failures += [f"{label}: {f}" for f in check_amd_row(row, processor, accepted)]
                rows.append(row)
            facts["first_rocm"] = amd_first_runtime(facts["code_object_version"], processor)
            image["targets"].append({"target": processor, **facts,
                                     "kernels": sorted(rows, key=lambda r: r["kernel"])})
        image["targets"].sort(key=lambda t: _target_order(t["target"]))
        images.append(image)

    for module, path, log_path in nvidia_images:
        data = _read(path, "rb")
        label = os.path.basename(path)
        report = parse_ptxas_log(_read(log_path, "r"))
        image = {"module": module, "vendor": "nvidia", "file": label,
                 "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                 "targets": []}
        for sm, cubin in sorted(fatbin_cubins(data, label).items()):
            rows = []
            for kernel, (shared, threads) in sorted(cubin_kernels(cubin, f"{label} sm_{sm}").items()):
                reported = report.get((kernel, sm))
                where = f"{label}: kernel {kernel} on sm_{sm}"
                if reported is None or reported["registers"] is None:
                    failures.append(f"{where} is not in ptxas's report "
                                    f"({os.path.basename(log_path)}): rebuild it")
                    continue
                # from sm_90 on the section also holds the 1 KiB the system
                # reserves in each block's shared memory
                if shared not in (reported["shared_bytes"], reported["shared_bytes"] + (
                        KIB if sm >= 90 else 0)):
                    failures.append(f"{where}: ptxas reports {reported['shared_bytes']} bytes "
                                    f"of shared memory, the cubin has {shared}")
                row = dict(reported)
                del row["sm"]
                row["max_threads"] = threads or 1024
                limits = NVIDIA_LIMITS.get(sm)
                if limits:
                    row["occupancy"], row["limited_by"] = nvidia_occupancy(
                        limits, row["registers"], row["shared_bytes"], row["max_threads"])
                    row["occupancy_max"] = limits.max_warps
                failures += [f"{label}: {f}" for f in check_nvidia_row(row, sm, accepted)]
                rows.append(row)
            image["targets"].append({"target": f"sm_{sm}", "kernels": rows})
        images.append(image)
    return images, failures


def _worst(rows, key, reverse=True):
    best = sorted(rows, key=lambda r: (-r[key] if reverse else r[key], r["kernel"]))[0]
    return best[key], best["kernel"]


def markdown(images):
    """The per-target summary docs/gpu.md carries."""
    by_target = {}
    for image in images:
        for target in image["targets"]:
            entry = by_target.setdefault((image["vendor"], target["target"]),
                                         {"rows": [], "facts": target})
            entry["rows"] += [dict(r, module=image["module"]) for r in target["kernels"]]
    lines = [
        "| target | kernels | most VGPRs / registers | most SGPRs | most LDS / shared (bytes) "
        "| scratch (bytes) | spills | least occupancy | code object |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    order = sorted(by_target, key=lambda k: (k[0], _target_order(k[1])))
    for vendor, name in order:
        rows, facts = by_target[(vendor, name)]["rows"], by_target[(vendor, name)]["facts"]
        reg_key = "vgprs" if vendor == "amd" else "registers"
        regs, regs_kernel = _worst(rows, reg_key)
        lds, lds_kernel = _worst(rows, "shared_bytes")
        scratch_key = "scratch_bytes" if vendor == "amd" else "stack_bytes"
        scratch, scratch_kernel = _worst(rows, scratch_key)
        accepted = sorted({r["kernel"] for r in rows if r.get("spill_accepted")})
        accepted_text = f", accepted: {', '.join(accepted)}" if accepted else ""
        if vendor == "amd":
            sgprs = "{} ({})".format(*_worst(rows, "sgprs"))
            spills = sum(r["vgpr_spills"] for r in rows)
            sgpr_spills = sum(r["sgpr_spills"] for r in rows)
            spill_text = f"{spills} VGPRs{accepted_text}" + (
                f" ({sgpr_spills} SGPRs into VGPR lanes)" if sgpr_spills else "")
            unit = "waves/SIMD"
            runtime = (f"v{facts['code_object_version']}, xnack {facts['xnack']}, "
                       f"sramecc {facts['sramecc']}, ROCm {facts['first_rocm']}+")
        else:
            sgprs = "-"
            spill_text = str(sum(r["spill_store_bytes"] for r in rows)) + " bytes" + accepted_text
            unit = "warps/SM"
            runtime = "cubin"
        occ = [r for r in rows if "occupancy" in r]
        least = sorted(occ, key=lambda r: (r["occupancy"], r["kernel"]))[0] if occ else None
        occupancy = (f"{least['occupancy']}/{least['occupancy_max']} {unit} ({least['kernel']}, "
                     f"{least['limited_by']})") if least else "-"
        lines.append(f"| {name} | {len(rows)} | {regs} ({regs_kernel}) | {sgprs} | {lds} "
                     f"({lds_kernel}) | {scratch}" + (f" ({scratch_kernel})" if scratch else "")
                     + f" | {spill_text} | {occupancy} | {runtime} |")
    return "\n".join(lines) + "\n"


def _target_order(name):
    """gfx900 < gfx90a < gfx942 < gfx1030 ..., then the generic targets,
    then sm_75 < sm_100 (a gfx name's last two digits are hexadecimal)."""
    m = re.fullmatch(r"gfx(\d+)([0-9a-f])([0-9a-f])", name)
    if m:
        return (0, int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16), name)
    numbers = [int(n) for n in re.findall(r"\d+", name)]
    return (1 if name.endswith("-generic") else 2, *numbers[:1], 0, 0, name)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", required=True)
    parser.add_argument("--markdown", required=True)
    parser.add_argument("--accept", help="the spills to accept (kernels/spills-accepted.txt)")
    parser.add_argument("--amd-image", nargs=3, action="append", default=[],
                        metavar=("MODULE", "CODE_OBJECT_VERSION", "FILE"))
    parser.add_argument("--nvidia-image", nargs=3, action="append", default=[],
                        metavar=("MODULE", "FILE", "PTXAS_LOG"))
    args = parser.parse_args(argv)
    try:
        amd = [(m, int(v), f) for m, v, f in args.amd_image]
        accepted = []
        if args.accept:
            with open(args.accept) as f:
                accepted = parse_accepted(f.read(), args.accept)
        images, failures = analyse(amd, [tuple(i) for i in args.nvidia_image], accepted)
    except (ImageError, MsgpackError, OSError, ValueError) as error:
        print(f"gpu-resources: {error}", file=sys.stderr)
        return 1
    # written even when a check fails: the summary shows what the figures are
    for path, text in ((args.json, json.dumps({"images": images}, indent=1, sort_keys=True)),
                       (args.markdown, markdown(images))):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    for failure in failures:
        print(f"gpu-resources: FAIL: {failure}", file=sys.stderr)
    if failures:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
