#!/usr/bin/env python3
"""Runs nvcc with --resource-usage and keeps ptxas's report (vmafhip build
step).

    nvcc-resource-usage.py LOG -- NVCC ARGS...

ptxas's report of registers, shared memory, stack frame and spill bytes per
kernel and arch ("ptxas info ..." lines on stderr) goes to LOG, where
tools/gpu-resources.py reads it: a cubin records no spill counts, so the
compilation that writes it is the one place they are known.  The option
changes no code (only the cubins' .note.nv.tkinfo, which records ptxas's
options).  Everything else nvcc prints passes through; the exit status is
nvcc's.
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    log_path, command = sys.argv[1], sys.argv[3:]
    result = subprocess.run(command + ["--resource-usage"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    report, other = [], []
    lines = (result.stdout + result.stderr).splitlines()
    for i, line in enumerate(lines):
        # "ptxas info : Function properties for K" is followed by an
        # indented line of stack and spill bytes
        follows_properties = i > 0 and "Function properties for" in lines[i - 1] \
            and line.startswith(" ")
        (report if line.startswith("ptxas info") or follows_properties else other).append(line)
    if other:
        print("\n".join(other), file=sys.stderr)
    tmp = log_path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(report) + "\n")
    os.replace(tmp, log_path)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
