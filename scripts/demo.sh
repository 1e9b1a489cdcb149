#!/usr/bin/env bash
# The main job on content vmafhip makes itself: installs, builds, then scores
# a seeded synthetic 1280x720 pair with vmaf_v0.6.1 and vmaf_v0.6.1neg and
# prints per-frame and pooled scores (and writes demo-vmaf.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/tools/vmafhip-score --synthetic 1280x720 --frames 24 \
  -m vmaf_v0.6.1:name=vmaf -m vmaf_v0.6.1neg:name=vmaf_neg --feature psnr \
  -o demo-vmaf.json
echo "libvmaf-format log written to demo-vmaf.json"
