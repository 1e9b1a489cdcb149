#!/usr/bin/env python3
"""vmafhip-info lists every configured kernel target, and a GPU line for
each vendor (a device, or why there is none); --resources lists every
target's kernel resources, with no spill, and --target every kernel of
one; --arch names the image a GPU of that arch would run, a generic one
for a chip the build has no code object of.
usage: test-info.py VMAFHIP_INFO TARGET,TARGET,..."""
import subprocess
import sys

info, targets = sys.argv[1], [t for t in sys.argv[2].split(",") if t]
failures = []


def run(*args, status=0):
    result = subprocess.run([info, *args], capture_output=True, text=True, timeout=120)
    print(f"$ vmafhip-info {' '.join(args)}\n{result.stdout}{result.stderr}")
    if result.returncode != status:
        failures.append(f"{' '.join(args) or 'no option'}: exit status {result.returncode}, "
                        f"expected {status}: {result.stderr}")
    return result.stdout, result.stderr


out, _ = run()
image_lines = [l for l in out.splitlines() if " image " in l and l.startswith("  ")]
for target in targets:
    if not any(target in l.split(": ", 1)[-1].split(", ") for l in image_lines):
        failures.append(f"target {target} not listed")
if not targets and "CPU-only build" not in out:
    failures.append("a build without kernels must say it is CPU only")
for vendor in ("AMD", "NVIDIA"):
    if not any(l.startswith(f"  {vendor}: ") for l in out.splitlines()):
        failures.append(f"no line for {vendor} GPUs")

# --resources: one summary per target (PTX has no resources of its own)
out, _ = run("--resources")
summaries = {l.split()[0]: l for l in out.splitlines() if l.startswith("  ") and not l.startswith("   ")}
cubin_targets = [t for t in targets if not t.startswith("compute_")]
for target in cubin_targets:
    if target not in summaries:
        failures.append(f"--resources: no summary for {target}")
spill_lines = [l for l in out.splitlines() if l.startswith("    spills: ")]
if len(spill_lines) != len(cubin_targets):
    failures.append("--resources: not one spills line a target")
for line in spill_lines:
    if not line.startswith("    spills: 0 ") and "spills-accepted.txt accepts" not in line:
        failures.append(f"--resources: a spill the build did not accept: {line.strip()}")
if not targets and "CPU-only build" not in out:
    failures.append("--resources: a build without kernels must say it has none")
for target in cubin_targets[:1] + [t for t in cubin_targets if t.endswith("-generic")][:1]:
    out, _ = run("--resources", "--target", target)
    rows = [l for l in out.splitlines() if l.startswith("  ") and "/vh_" in l]
    if not rows or not any(l.split()[0].startswith("probe/") for l in rows):
        failures.append(f"--resources --target {target}: no kernel rows (probe's included)")
_, err = run("--resources", "--target", "gfx9999", status=2)
if "gfx9999" not in err:
    failures.append("--target gfx9999: the error does not name the target")

# --arch: a chip's own code object, or its family's generic one
checks = [("gfx1100", "gfx1100", "its code object for this arch"),
          ("gfx1036", "gfx10-3-generic", "gfx10-3-generic code object"),
          ("gfx1152", "gfx11-generic", "gfx11-generic code object"),
          ("gfx902", "gfx9-generic", "gfx9-generic code object")]
for arch, needs, expected in checks:
    if needs not in targets or (arch != needs and arch in targets):
        continue
    out, _ = run("--arch", arch)
    if expected not in out or "runs AMD image" not in out:
        failures.append(f"--arch {arch}: does not say it runs the {expected}")
if "gfx9-generic" in targets:
    out, _ = run("--arch", "gfx803")
    if "no image fits" not in out:
        failures.append("--arch gfx803: an arch in no family must find no image")

for f in failures:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if failures else 0)
