#!/usr/bin/env python3
"""The kernels' lane-level code goes through the lane model only.

usage: test-lanes-source.py KERNELS_DIR

kernels/vh-lanes.h is the one place that calls the vendors' lane
intrinsics (shuffles, ballots, votes, warp syncs, lane ids): the host
emulation models those calls at 32 and 64 lanes, so a kernel that called
one directly would escape the model.  Checked in every kernel source and
header (comments left out):
  - no lane intrinsic outside vh-lanes.h;
  - no 32-bit full-mask literal (0xffffffff: a 32-lane assumption on a
    64-lane wavefront), anywhere;
  - the kernels that run lane-level code (vh_lanes::GpuWave, named by them
    or by a header they include) are exactly LANE_KERNELS, and those that
    compute with warpSize exactly WIDTH_KERNELS, each emulated at 32 and 64
    lanes by its test; the others neither exchange values between lanes
    nor group threads by wavefront, so the wavefront's width cannot change
    their results.  A kernel that starts doing either must be added here
    with a two-width emulation."""
import os
import re
import sys

# kernel -> the emulation test that runs its lanes at 32 and 64 lanes
LANE_KERNELS = {
    "psnr-hvs": "test-psnr-hvs-emulation.cpp",
    "cambi": "test-cambi-emulation.cpp",
}
# kernel -> the emulation test that runs its arithmetic on the width
# (warpSize: threads grouped by wavefront, exchanging through shared
# memory) at 32 and 64 lanes
WIDTH_KERNELS = {
    "probe": "test-kernel-emulation.cpp",
}
MODEL = "vh-lanes.h"

INTRINSIC = re.compile(
    r"\b(__shfl\w*|__ballot\w*|__any\w*|__all\b|__all_sync|__activemask"
    r"|__syncwarp|__lane_id|__match_\w+|__reduce_\w+_sync|__fns\w*"
    r"|__builtin_amdgcn_(?:ds_bpermute|ds_permute|ds_swizzle|mov_dpp\w*"
    r"|update_dpp|readlane|readfirstlane|writelane|permlane\w*|ballot\w*"
    r"|wave_barrier|mbcnt\w*|uicmp\w*|icmp\w*))\b")
FULL_MASK = re.compile(r"\b0[xX][fF]{8}(?:[uUlL]*)\b")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def code_only(text):
    """the text without its comments and string literals"""
    out = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                 text, flags=re.S)
    out = re.sub(r"//[^\n]*", "", out)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', out)


def main():
    kdir = sys.argv[1]
    names = sorted(n for n in os.listdir(kdir)
                   if n.endswith(".hip") or n.endswith(".h"))
    sources = {}
    for n in names:
        with open(os.path.join(kdir, n), encoding="utf-8") as f:
            sources[n] = f.read()
    failures = []

    for n, text in sources.items():
        code = code_only(text)
        if n != MODEL:
            for m in INTRINSIC.finditer(code):
                line = code.count("\n", 0, m.start()) + 1
                failures.append(f"{n}:{line}: {m.group(0)} outside {MODEL}")
        for m in FULL_MASK.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            failures.append(f"{n}:{line}: {m.group(0)}, a 32-lane mask")

    # lane-level code is written against a Wave (templates); a kernel runs
    # it on the GPU's by naming vh_lanes::GpuWave, itself or in a header it
    # includes
    def lane_level(n, seen=()):
        if n == MODEL or n not in sources or n in seen:
            return False
        return "GpuWave" in code_only(sources[n]) or any(
            lane_level(inc, seen + (n,))
            for inc in INCLUDE.findall(sources[n]))

    def width_arithmetic(n, seen=()):
        if n == MODEL or n not in sources or n in seen:
            return False
        return re.search(r"\bwarpSize\b", code_only(sources[n])) or any(
            width_arithmetic(inc, seen + (n,))
            for inc in INCLUDE.findall(sources[n]))

    lane_kernels, width_kernels = set(), set()
    for n in names:
        if not n.endswith(".hip"):
            continue
        kernel = n[:-4]
        if lane_level(n):
            lane_kernels.add(kernel)
            print(f"{kernel}: lane-level (kernels/{MODEL}), emulated at 32 "
                  f"and 64 lanes in {LANE_KERNELS.get(kernel, '?')}")
        elif width_arithmetic(n):
            width_kernels.add(kernel)
            print(f"{kernel}: threads grouped by warpSize (shared memory), "
                  f"emulated at 32 and 64 lanes in "
                  f"{WIDTH_KERNELS.get(kernel, '?')}")
        else:
            print(f"{kernel}: no lane-level operations (no values exchanged "
                  "between lanes but through memory and barriers)")
    for found, table, name in ((lane_kernels, LANE_KERNELS, "LANE_KERNELS"),
                               (width_kernels, WIDTH_KERNELS,
                                "WIDTH_KERNELS")):
        if found != set(table):
            failures.append(
                "%s: found %s, expected %s (a new one needs an emulation at "
                "32 and 64 lanes, then an entry)"
                % (name, sorted(found), sorted(table)))
    tests = os.path.join(os.path.dirname(os.path.abspath(__file__)))
    for kernel, test in list(LANE_KERNELS.items()) + list(
            WIDTH_KERNELS.items()):
        path = os.path.join(tests, test)
        if not os.path.exists(path):
            failures.append(f"{kernel}: its emulation {test} is missing")
            continue
        with open(path, encoding="utf-8") as f:
            text = code_only(f.read())
        runs = ("HostWave" in text or "CheckedTeam" in text
                if kernel in LANE_KERNELS else
                re.search(r"\b32u?\b", text) and re.search(r"\b64u?\b", text))
        if not runs:
            failures.append(f"{test} does not run {kernel} at 32 and 64 "
                            "lanes")

    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print(f"{len(names)} kernel files: " +
          ("lane intrinsics only in " + MODEL + ", no 32-lane mask literal"
           if not failures else f"{len(failures)} problems"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
