#!/usr/bin/env python3
"""Checks that a vmafhip binary carries GPU code for the configured targets.

Scans any file (the GStreamer plugin .so, a test program, the kernels static
library, or a raw .hsaco/.fatbin) for the embedded kernel images and reads
their targets from the bytes themselves:

  - AMD: clang offload bundles ("__CLANG_OFFLOAD_BUNDLE__"); each device
    entry's id names its gfx arch, and the entry must be an AMD GPU ELF
    (e_machine EM_AMDGPU) whose e_flags arch agrees with the id;
  - NVIDIA: fatbins (magic 0xBA55ED50); each entry is a cubin (sm_NN, an
    ELF with e_machine EM_CUDA when stored uncompressed) or PTX
    (compute_NN).

Where clang-offload-bundler or cuobjdump is installed, their listing of each
image is compared with ours as a second opinion.

usage: check-gpu-images.py [--amd gfx900,gfx906 [--amd gfx942,...]]
                           [--nvidia sm_80,sm_90,compute_90]
                           [--modules probe,...] FILE
--amd may be given once per AMD image of a module (hipcc's, clang-19's and
clang-19's for the generic targets).
Exit status 0 when every image found carries exactly one expected target
list and there is one image per module for each list; 1 otherwise.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
FATBIN_MAGIC = struct.pack("<I", 0xBA55ED50)
EM_AMDGPU = 224
EM_CUDA = 190

# the shared table beside this file (also when loaded by path, as tests do)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from amdgpu_mach import AMDGPU_MACH  # noqa: E402


class NotAnImage(Exception):
    pass


def u(fmt, data, offset):
    size = struct.calcsize(fmt)
    if offset < 0 or offset + size > len(data):
        raise NotAnImage("truncated")
    return struct.unpack_from(fmt, data, offset)


def parse_bundle(data, start):
    """Returns (targets, end offset, problems) of the bundle at start."""
    pos = start + len(BUNDLE_MAGIC)
    (count,) = u("<Q", data, pos)
    if count == 0 or count > 256:
        raise NotAnImage("implausible entry count")
    pos += 8
    targets, problems, end = [], [], pos
    for _ in range(count):
        offset, size, id_len = u("<QQQ", data, pos)
        pos += 24
        if id_len == 0 or id_len > 256:
            raise NotAnImage("implausible id length")
        ident = data[pos:pos + id_len]
        pos += id_len
        try:
            ident = ident.decode("ascii")
        except UnicodeDecodeError:
            raise NotAnImage("id is not text")
        if not (ident.startswith("host-") or ident.startswith("hip")):
            raise NotAnImage("unknown id " + ident)
        body = start + offset
        if body + size > len(data):
            raise NotAnImage("entry beyond the end of the file")
        end = max(end, body + size)
        if ident.startswith("host-"):
            continue
        target = ident.rsplit("--", 1)[-1]
        targets.append(target)
        elf = data[body:body + size]
        if elf[:4] != b"\x7fELF":
            problems.append(f"{target}: entry is not an ELF code object")
            continue
        (machine,) = u("<H", elf, 18)
        (flags,) = u("<I", elf, 48)
        mach = AMDGPU_MACH.get(flags & 0xff, f"mach 0x{flags & 0xff:x}")
        if machine != EM_AMDGPU:
            problems.append(f"{target}: ELF e_machine {machine}, not EM_AMDGPU")
        elif mach != target.split(":")[0]:
            problems.append(f"{target}: ELF e_flags say {mach}")
    return targets, max(end, pos), problems


def parse_fatbin(data, start):
    version, header = u("<HH", data, start + 4)
    (body,) = u("<Q", data, start + 8)
    if version != 1 or header != 16 or body == 0 or start + header + body > len(data):
        raise NotAnImage("bad fatbin header")
    pos, end = start + header, start + header + body
    targets, problems = [], []
    while pos < end:
        kind, _, entry_header, payload = u("<HHIQ", data, pos)
        (sm,) = u("<I", data, pos + 28)
        (flags,) = u("<Q", data, pos + 40)
        if kind not in (1, 2) or entry_header < 32 or pos + entry_header + payload > end:
            raise NotAnImage("bad fatbin entry")
        name = f"compute_{sm}" if kind == 1 else f"sm_{sm}"
        targets.append(name)
        blob = data[pos + entry_header:pos + entry_header + payload]
        compressed = flags & 0x2000 or blob[:4] == b"\x28\xb5\x2f\xfd"
        if kind == 2 and not compressed:
            if blob[:4] != b"\x7fELF":
                problems.append(f"{name}: cubin is not an ELF")
            elif u("<H", blob, 18)[0] != EM_CUDA:
                problems.append(f"{name}: ELF e_machine is not EM_CUDA")
        pos += entry_header + payload
    return targets, end, problems


def scan(data):
    """Yields (kind, offset, end, targets, problems) for every image found."""
    for magic, kind, parser in ((BUNDLE_MAGIC, "amd", parse_bundle),
                                (FATBIN_MAGIC, "nvidia", parse_fatbin)):
        pos = data.find(magic)
        while pos >= 0:
            try:
                targets, end, problems = parser(data, pos)
                yield kind, pos, end, targets, problems
            except NotAnImage:
                pass  # the magic bytes as a constant in code, not an image
            pos = data.find(magic, pos + 1)


def second_opinion(kind, blob):
    """The targets an installed vendor tool lists, or None."""
    tool = None
    if kind == "amd":
        for name in ("clang-offload-bundler", "clang-offload-bundler-19",
                     "/usr/lib/llvm-19/bin/clang-offload-bundler",
                     "clang-offload-bundler-15",
                     "/usr/lib/llvm-15/bin/clang-offload-bundler"):
            tool = shutil.which(name)
            if tool:
                break
    else:
        tool = shutil.which("cuobjdump") or shutil.which("/usr/local/cuda/bin/cuobjdump")
    if not tool:
        return None
    with tempfile.NamedTemporaryFile(suffix=".img") as f:
        f.write(blob)
        f.flush()
        if kind == "amd":
            cmd = [tool, "--list", "--type=o", "--input=" + f.name]
        else:
            cmd = [tool, "--list-elf", "--list-ptx", f.name]
        result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        return None
    found = []
    for line in result.stdout.splitlines():
        line = line.strip()
        if kind == "amd" and line.startswith("hip"):
            found.append(line.rsplit("--", 1)[-1])
        elif kind == "nvidia" and (".sm_" in line):
            # "ELF file    1: name.sm_80.cubin" / "PTX file    1: name.sm_90.ptx"
            arch = line.rsplit(".sm_", 1)[-1].split(".")[0]
            found.append(("compute_" if ".ptx" in line else "sm_") + arch)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--amd", action="append", default=[],
                        help="expected AMD targets of one image, comma-separated")
    parser.add_argument("--nvidia", default="", help="expected NVIDIA targets, comma-separated")
    parser.add_argument("--modules", default="", help="kernel modules, comma-separated")
    parser.add_argument("file")
    args = parser.parse_args()

    # one expected target list per image of a module
    groups = {
        "amd": [sorted(t for t in g.split(",") if t) for g in args.amd],
        "nvidia": [sorted(t for t in args.nvidia.split(",") if t)],
    }
    for kind in groups:
        groups[kind] = [g for g in groups[kind] if g]
    modules = [m for m in args.modules.split(",") if m]
    with open(args.file, "rb") as f:
        data = f.read()

    failures = []
    counts = {kind: [0] * len(groups[kind]) for kind in groups}
    for kind, start, end, targets, problems in scan(data):
        label = f"{os.path.basename(args.file)}+0x{start:x}: {kind} image, {end - start} bytes"
        print(f"{label}: {', '.join(targets)}")
        for problem in problems:
            failures.append(f"{label}: {problem}")
        if sorted(targets) in groups[kind]:
            counts[kind][groups[kind].index(sorted(targets))] += 1
        else:
            wanted = " or ".join(", ".join(g) for g in groups[kind])
            failures.append(f"{label}: carries {', '.join(sorted(targets)) or 'nothing'}, "
                            f"expected {wanted or 'no ' + kind + ' image'}")
        other = second_opinion(kind, data[start:end])
        if other is not None:
            print(f"{label}: vendor tool lists {', '.join(other)}")
            if sorted(other) != sorted(targets):
                failures.append(f"{label}: vendor tool disagrees ({', '.join(other)})")

    for kind in ("amd", "nvidia"):
        for group, count in zip(groups[kind], counts[kind]):
            if modules and count != len(modules):
                failures.append(f"{count} {kind} image(s) for {', '.join(group)} found, "
                                f"expected {len(modules)} (modules: {', '.join(modules)})")
            elif not modules and count == 0:
                failures.append(f"no {kind} image found for {', '.join(group)}")

    for failure in failures:
        print("FAIL: " + failure, file=sys.stderr)
    if not failures:
        print(f"OK: {sum(counts['amd'])} AMD and {sum(counts['nvidia'])} NVIDIA image(s) "
              "with the configured targets")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
