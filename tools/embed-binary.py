#!/usr/bin/env python3
"""Embeds compiled GPU kernel images into C arrays (vmafhip build step).

Writes one C source and one header.  For every module (a kernels/NAME.hip
file) the source defines

    const unsigned char vh_kernel_NAME_amd[];      /* one per image */
    const size_t vh_kernel_NAME_amd_size;
    const VhGpuImageSet vh_kernel_NAME;             /* all images of NAME */

    const VhGpuResourceTable vh_kernel_resources;   /* every kernel, target */

and the header declares them, with the configured targets as macros
(VH_KERNELS_AMD_TARGETS, VH_KERNELS_NVIDIA_TARGETS: "" when that vendor was
not compiled).  A module given no image gets an empty set, so a CPU-only
build still compiles and links; loading it then fails with a clear message.
The resource table is tools/gpu-resources.py's JSON for these very files
(each image's SHA-256 must match); without --resources it is empty.

usage: embed-binary.py --source OUT.c --header OUT.h --module probe ...
           [--image MODULE VENDOR TARGETS FILE ...]
           [--amd-targets LIST] [--nvidia-targets LIST] [--resources JSON]
VENDOR is amd or nvidia; TARGETS a comma-separated list (what the build
asked for, recorded for messages).  A module may have several images of one
vendor (the loader takes the one that can run on the device).
"""
import argparse
import hashlib
import json
import os
import re
import sys

VENDOR_ENUM = {"amd": "VH_GPU_VENDOR_AMD", "nvidia": "VH_GPU_VENDOR_NVIDIA"}
BYTES_PER_LINE = 16


def c_identifier(text):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        raise SystemExit(f"embed-binary: '{text}' is not a valid C identifier part")
    return text


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def byte_lines(data):
    for start in range(0, len(data), BYTES_PER_LINE):
        chunk = data[start:start + BYTES_PER_LINE]
        yield "  " + ", ".join(f"0x{b:02x}" for b in chunk) + ","


def resource_table(prefix, image_files, resources_path):
    """The C lines of the resource table for the embedded images."""
    table = f"const VhGpuResourceTable {prefix}_resources"
    if not resources_path:
        return [f"{table} = {{ NULL, 0, NULL, 0 }};", ""]
    with open(resources_path) as f:
        analysed = {image["file"]: image for image in json.load(f)["images"]}
    facts, rows = {}, []
    for module, vendor, targets, path, data in image_files:
        image = analysed.get(os.path.basename(path))
        if image is None or image["sha256"] != hashlib.sha256(data).hexdigest():
            raise SystemExit(f"embed-binary: {resources_path} has no resources for {path} as "
                             "it is now: rerun tools/gpu-resources.py on the same files")
        for target in image["targets"]:
            fact = (vendor, target["target"], targets, target.get("code_object_version") or 0,
                    target.get("xnack", ""), target.get("sramecc", ""),
                    target.get("first_rocm") or "")
            key = (vendor, target["target"])
            if facts.setdefault(key, fact) != fact:
                raise SystemExit(f"embed-binary: {target['target']} differs between the images "
                                 f"of two modules ({facts[key]} and {fact})")
            for k in target["kernels"]:
                nvidia = vendor == "nvidia"
                rows.append(f"  {{ {VENDOR_ENUM[vendor]}, {c_string(target['target'])}, "
                            f"{c_string(image['module'])}, {c_string(k['kernel'])}, "
                            f"{k['registers' if nvidia else 'vgprs']}, "
                            f"{0 if nvidia else k['sgprs']}, {k['shared_bytes']}, "
                            f"{k['stack_bytes' if nvidia else 'scratch_bytes']}, "
                            f"{k['spill_store_bytes' if nvidia else 'vgpr_spills']}, "
                            f"{'TRUE' if k.get('spill_accepted') else 'FALSE'}, "
                            f"{0 if nvidia else k['sgpr_spills']}, "
                            f"{32 if nvidia else k['wave_size']}, {k['max_threads']}, "
                            f"{k.get('occupancy', 0)}, {k.get('occupancy_max', 0)}, "
                            f"{c_string(k.get('limited_by', ''))} }},")
    lines = ["static const VhGpuTargetFacts target_facts[] = {"]
    for vendor, target, targets, version, xnack, sramecc, rocm in facts.values():
        lines.append(f"  {{ {VENDOR_ENUM[vendor]}, {c_string(target)}, {c_string(targets)}, "
                     f"{version}, {c_string(xnack)}, {c_string(sramecc)}, {c_string(rocm)} }},")
    lines += ["};", "", "static const VhGpuKernelResources kernel_resources[] = {"]
    lines += rows
    lines += ["};", "",
              f"{table} = {{ target_facts, G_N_ELEMENTS (target_facts), "
              "kernel_resources, G_N_ELEMENTS (kernel_resources) };", ""]
    return lines if rows else [f"{table} = {{ NULL, 0, NULL, 0 }};", ""]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True, help="C file to write")
    parser.add_argument("--header", required=True, help="header to write")
    parser.add_argument("--module", action="append", default=[], required=True,
                        help="kernel module name (repeatable)")
    parser.add_argument("--image", nargs=4, action="append", default=[],
                        metavar=("MODULE", "VENDOR", "TARGETS", "FILE"))
    parser.add_argument("--amd-targets", default="")
    parser.add_argument("--nvidia-targets", default="")
    parser.add_argument("--prefix", default="vh_kernel")
    parser.add_argument("--resources", help="tools/gpu-resources.py's JSON for the images")
    args = parser.parse_args()

    prefix = c_identifier(args.prefix)
    modules = [c_identifier(m) for m in args.module]
    if len(set(modules)) != len(modules):
        raise SystemExit("embed-binary: a module is listed twice")

    images = {m: [] for m in modules}
    image_files = []
    for module, vendor, targets, path in args.image:
        if module not in images:
            raise SystemExit(f"embed-binary: image for unlisted module '{module}'")
        if vendor not in VENDOR_ENUM:
            raise SystemExit(f"embed-binary: vendor '{vendor}' is not amd or nvidia")
        with open(path, "rb") as f:
            data = f.read()
        if not data:
            raise SystemExit(f"embed-binary: {path} is empty")
        images[module].append((vendor, targets, data))
        image_files.append((module, vendor, targets, path, data))

    guard = "VH_KERNEL_IMAGES_H"
    header = [
        "/* Generated by tools/embed-binary.py: do not edit. */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        '#include "vh-gpu.h"',
        "",
        "G_BEGIN_DECLS",
        "",
        "/* The targets this build was configured for (\"\" = vendor not compiled). */",
        f"#define VH_KERNELS_AMD_TARGETS {c_string(args.amd_targets)}",
        f"#define VH_KERNELS_NVIDIA_TARGETS {c_string(args.nvidia_targets)}",
        "",
    ]
    source = [
        "/* Generated by tools/embed-binary.py: do not edit. */",
        f'#include "{os.path.basename(args.header)}"',
        "",
    ]

    for module in modules:
        symbol = f"{prefix}_{module}"
        described = "; ".join(f"{v} {t} ({len(d)} bytes)" for v, t, d in images[module])
        header.append(f"/* kernels/{module}.hip: {described or 'no GPU code (CPU-only build)'} */")
        header.append(f"extern const VhGpuImageSet {symbol};")
        entries = []
        seen = {}
        for vendor, targets, data in images[module]:
            # a vendor may have several images (AMD: hipcc's and clang-19's)
            seen[vendor] = seen.get(vendor, 0) + 1
            array = f"{symbol}_{vendor}" + (f"_{seen[vendor]}" if seen[vendor] > 1 else "")
            header.append(f"extern const unsigned char {array}[];")
            header.append(f"extern const size_t {array}_size;")
            # Aligned like a section of its own: loaders may map the image
            # in place, and ELF readers expect 8-byte aligned headers.
            source.append(f"_Alignas (64) const unsigned char {array}[{len(data)}] = {{")
            source.extend(byte_lines(data))
            source.append("};")
            source.append(f"const size_t {array}_size = sizeof {array};")
            source.append("")
            entries.append(f"  {{ {VENDOR_ENUM[vendor]}, {c_string(targets)}, {array}, sizeof {array} }},")
        header.append("")
        if entries:
            source.append(f"static const VhGpuImage {symbol}_images[] = {{")
            source.extend(entries)
            source.append("};")
            source.append(f"const VhGpuImageSet {symbol} = {{ {c_string(module)}, "
                          f"{symbol}_images, G_N_ELEMENTS ({symbol}_images) }};")
        else:
            source.append(f"const VhGpuImageSet {symbol} = {{ {c_string(module)}, NULL, 0 }};")
        source.append("")

    header.append("/* Every kernel's registers, shared memory, scratch, spills and occupancy")
    header.append(" * on every target (tools/gpu-resources.py; vmafhip-info --resources). */")
    header.append(f"extern const VhGpuResourceTable {prefix}_resources;")
    header.append("")
    source += resource_table(prefix, image_files, args.resources)
    header += ["G_END_DECLS", f"#endif /* {guard} */", ""]

    # Write through a temporary name: a half-written file after an
    # interrupted build must not look up to date.
    for path, lines in ((args.source, source), (args.header, header)):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write("\n".join(lines))
            if lines[-1] != "":
                f.write("\n")
        os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
