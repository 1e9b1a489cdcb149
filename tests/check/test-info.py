#!/usr/bin/env python3
"""vmafhip-info lists every configured kernel target, and a GPU line for
each vendor (a device, or why there is none).
usage: test-info.py VMAFHIP_INFO TARGET,TARGET,..."""
import subprocess
import sys

info, targets = sys.argv[1], [t for t in sys.argv[2].split(",") if t]
run = subprocess.run([info], capture_output=True, text=True, timeout=120)
out = run.stdout
print(out)
failures = []
if run.returncode != 0:
    failures.append(f"exit status {run.returncode}: {run.stderr}")
image_lines = [l for l in out.splitlines() if " image " in l and l.startswith("  ")]
for target in targets:
    if not any(target in l.split(": ", 1)[-1].split(", ") for l in image_lines):
        failures.append(f"target {target} not listed")
if not targets and "CPU-only build" not in out:
    failures.append("a build without kernels must say it is CPU only")
for vendor in ("AMD", "NVIDIA"):
    if not any(l.startswith(f"  {vendor}: ") for l in out.splitlines()):
        failures.append(f"no line for {vendor} GPUs")
for f in failures:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if failures else 0)
