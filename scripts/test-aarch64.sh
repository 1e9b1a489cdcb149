#!/usr/bin/env bash
# The engine (common/: every feature, model and log, no GStreamer, no GPU)
# built for 64-bit Arm and its tests run under qemu: the plain C paths
# (NEON through GCC's vectoriser) against the same golden vectors. Installs
# the cross tools and arm64 libraries itself (scripts/install-deps.sh
# --aarch64); builds in ./build-aarch64.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --aarch64
if [ ! -f build-aarch64/build.ninja ]; then
  meson setup build-aarch64 --cross-file scripts/aarch64-linux-gnu.ini \
    -Dgst=disabled -Dhip-amd=disabled -Dhip-amd-clang=disabled \
    -Dhip-nvidia=disabled -Dcuda-memory=disabled
fi
ninja -C build-aarch64
# The engine's tests that run inside the emulated process. Left out: cli
# and info (they start other Arm programs, which only qemu can run) and
# gpu-runtime (it loads the x86 CUDA stub library). golden runs motion's
# and PSNR's NEON kernels, golden-plain-c the plain C instead. The golden
# clips up to 720x480 (the 1080p clip and the MP4 pair take too long
# emulated).
tests=(engine accel model-spec streaming threads vif-pixels motion-psnr-simd
  golden golden-plain-c
  kernel-emulation vif-emulation ms-ssim-emulation psnr-hvs-emulation
  ciede-emulation adm-emulation stage-copy gpu-import frame-reader)
status=0
VMAFHIP_GOLDEN_CLIPS=${VMAFHIP_GOLDEN_CLIPS:-src01_160x90,src01_576x324_10b,hall_352x288,bsds_481x321_444} \
  meson test -C build-aarch64 --print-errorlogs --timeout-multiplier 4 \
  "${tests[@]}" "$@" || status=$?
python3 scripts/test-summary.py build-aarch64/meson-logs/testlog.json "aarch64 tests (qemu)"
exit $status
