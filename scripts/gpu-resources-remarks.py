#!/usr/bin/env python3
"""Compares tools/gpu-resources.py's figures with the AMD compilers' own
kernel-resource-usage remarks: VGPRs, AGPRs, SGPRs, scratch, LDS, spills
and occupancy, per kernel and target.  The build reads the code objects'
metadata and computes occupancy with its model of LLVM's; this proves the
two agree (not run in CI: it compiles every module once per target).

usage: scripts/gpu-resources-remarks.py [--compiler clang-19|hipcc]
           [--targets gfx942,gfx1100,...] [--modules psnr,adm,...]

Exit status 0 when every figure agrees, but for occupancies the remark
gives lower: LLVM's scheduler may aim below what the registers it then
allocates allow (the kernel descriptor's count), and the remark prints
its aim; the table prints what the registers, SGPRs and LDS allow.  With
--compiler hipcc (clang 15) the LDS-bound occupancies differ too: clang 15
counts all the waves of the workgroups a CU holds as each SIMD's, which
LLVM 19 (the table's model) corrected.  Run from the source tree; the
compilers' flags are the build's (kernels/meson.build).
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("gpu_resources",
                                              os.path.join(ROOT, "tools", "gpu-resources.py"))
gpu_resources = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_resources)

MODULES = ["probe", "motion", "psnr", "adm", "vif", "ciede", "ssim", "ms-ssim",
           "psnr-hvs", "cambi", "speed", "scale"]
FLAGS = {
    "clang-19": ["-x", "hip", "--cuda-device-only", "-nogpulib", "-O3", "-ffp-contract=off",
                 "-DVH_AMD_NO_DEVICE_LIBS"],
    "hipcc": ["--genco", "-O3", "-ffp-contract=off"],
}
REMARK = re.compile(r"remark:\s+(Function Name|SGPRs|VGPRs|AGPRs|ScratchSize \[bytes/lane\]|"
                    r"Occupancy \[waves/SIMD\]|SGPRs Spill|VGPRs Spill|LDS Size \[bytes/block\]):"
                    r"\s+(\S+)")
FIELDS = {"SGPRs": "sgprs", "ScratchSize [bytes/lane]": "scratch_bytes",
          "Occupancy [waves/SIMD]": "occupancy", "SGPRs Spill": "sgpr_spills",
          "VGPRs Spill": "vgpr_spills", "LDS Size [bytes/block]": "shared_bytes"}


def remarks(text):
    kernels, current = {}, None
    for name, value in REMARK.findall(text):
        if name == "Function Name":
            current = kernels.setdefault(value, {})
        elif current is not None:
            current[name] = int(value) if value.isdigit() else value
    return kernels


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compiler", default="clang-19", choices=sorted(FLAGS))
    parser.add_argument("--targets", default="gfx942,gfx1100,gfx1101,gfx1102,gfx1103,"
                        "gfx1150,gfx1151,gfx1200,gfx1201,gfx9-generic,gfx10-3-generic,"
                        "gfx11-generic,gfx12-generic")
    parser.add_argument("--modules", default=",".join(MODULES))
    args = parser.parse_args()

    mismatches = compared = targeted = 0
    with tempfile.TemporaryDirectory() as tmp:
        for target in args.targets.split(","):
            version = 6 if target.endswith("-generic") else 5 if args.compiler == "clang-19" else 4
            flags = list(FLAGS[args.compiler])
            if args.compiler == "clang-19":
                flags += ["-Xclang", f"-mcode-object-version={version}"]
            for module in args.modules.split(","):
                out = os.path.join(tmp, f"{module}-{target}.bundle")
                result = subprocess.run(
                    [args.compiler] + flags + [f"--offload-arch={target}",
                                               "-Rpass-analysis=kernel-resource-usage",
                                               os.path.join(ROOT, "kernels", module + ".hip"),
                                               "-o", out],
                    capture_output=True, text=True, env=dict(os.environ, TMPDIR=tmp))
                if result.returncode != 0:
                    print(result.stderr, file=sys.stderr)
                    return 1
                said = remarks(result.stderr)
                images, _ = gpu_resources.analyse([(module, version, out)], [])
                for row in images[0]["targets"][0]["kernels"]:
                    remark = said.get(row["kernel"])
                    if remark is None:
                        print(f"{target} {row['kernel']}: no remark")
                        mismatches += 1
                        continue
                    # gfx90a/gfx942 metadata: one unified count, AGPRs after
                    # the VGPRs rounded up to 4
                    vgprs = remark["VGPRs"]
                    if remark.get("AGPRs"):
                        vgprs = (vgprs + 3) // 4 * 4 + remark["AGPRs"]
                    pairs = [("VGPRs", vgprs, row["vgprs"])]
                    pairs += [(k, remark[k], row[v]) for k, v in FIELDS.items() if k in remark]
                    for name, theirs, ours in pairs:
                        compared += 1
                        if theirs == ours:
                            continue
                        # The remark's occupancy is the one LLVM's scheduler
                        # aimed at, which may be below what the registers
                        # allocated (the kernel descriptor's) allow.
                        below = name.startswith("Occupancy") and theirs < ours
                        mismatches += not below
                        targeted += below
                        print(f"{target} {module} {row['kernel']}: {name} remark {theirs}, "
                              f"gpu-resources.py {ours} (limited by {row.get('limited_by')})"
                              + (": the scheduler's target, below the registers' limit"
                                 if below else ""))
            print(f"{target}: done", flush=True)
    print(f"{compared} figures compared, {mismatches} differ; {targeted} occupancies "
          "below the registers' limit in the remark (the scheduler's target)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
