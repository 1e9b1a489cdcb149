#!/usr/bin/env bash
# Installs what vmafhip needs to build and test on Debian 12 (as root, or
# through sudo). Safe to run again.
#   --cuda-memory   also GStreamer's CUDA library headers (CUDA memory in;
#                   needs the CUDA toolkit's cuda.h too). Heavy on Debian 12:
#                   libgstreamer-plugins-bad1.0-dev depends on OpenCV.
#   --aarch64       instead: the arm64 cross compilers, qemu and the engine's
#                   arm64 libraries (scripts/test-aarch64.sh)
set -euo pipefail

packages=(
  build-essential meson ninja-build pkg-config python3
  libglib2.0-dev libjson-glib-dev check
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  hipcc libamdhip64-dev rocm-device-libs
  clang-19 lld-19 clang-tools-19
  python3-gi gir1.2-gstreamer-1.0 python3-matplotlib
  # vmafhip-probe and its tests: metrics, Prometheus, the dashboard's
  # charts, headless Chromium
  python3-prometheus-client prometheus libjs-chart.js chromium
  python3-distributed   # vmafhip-dask and its test: Dask's scheduler, workers
  python3-numpy python3-tqdm   # vmafhip-tune: scene cuts, progress
  ffmpeg          # test-scale compares the scaler with FFmpeg's scale filter
)
[ "${1:-}" != --cuda-memory ] || packages+=(libgstreamer-plugins-bad1.0-dev)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ "${1:-}" = --aarch64 ]; then
  packages=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static
    meson ninja-build pkg-config
    libglib2.0-dev:arm64 libjson-glib-dev:arm64 check:arm64 libstdc++6:arm64)
  dpkg --print-foreign-architectures | grep -qx arm64 \
    || $sudo dpkg --add-architecture arm64
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
