#!/usr/bin/env bash
# Installs, builds and runs every test, then every test again built with
# AddressSanitizer and UBSan (scripts/test-sanitizers.sh;
# VMAFHIP_SKIP_SANITIZERS=1 leaves it out), then the engine's on 64-bit Arm
# under qemu (scripts/test-aarch64.sh; VMAFHIP_SKIP_AARCH64=1 leaves it
# out), then builds, checks and installs the Debian packages and removes
# them (scripts/package.sh --check; VMAFHIP_SKIP_PACKAGE=1). Golden tests read ../shared/testdata (override with
# VMAFHIP_TESTDATA) and are skipped, loudly, without it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -Dstrict-tests=true
status=0
meson test -C build --print-errorlogs --verbose "$@" || status=$?
python3 scripts/test-summary.py build/meson-logs/testlog.json
# every test again under AddressSanitizer and UBSan (build-asan)
if [ "${VMAFHIP_SKIP_SANITIZERS:-0}" != 1 ]; then
  scripts/test-sanitizers.sh || status=1
fi
# the engine on 64-bit Arm, under qemu
if [ "${VMAFHIP_SKIP_AARCH64:-0}" != 1 ]; then
  scripts/test-aarch64.sh || status=1
fi
# the Debian packages: built from a clean tree, lintian, installed, checked,
# removed (scripts/package.sh)
if [ "${VMAFHIP_SKIP_PACKAGE:-0}" != 1 ]; then
  scripts/package.sh --check || status=1
fi
# again, last: a CI log's tail then shows every run's results
python3 scripts/test-summary.py build/meson-logs/testlog.json
if [ -f build-asan/meson-logs/testlog-combined.json ] \
    && [ "${VMAFHIP_SKIP_SANITIZERS:-0}" != 1 ]; then
  python3 scripts/test-summary.py build-asan/meson-logs/testlog-combined.json \
    "sanitizer tests (ASan, UBSan)"
fi
# which CPU ran them: the engine picks its SIMD by it
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
  "$(grep -o -w -E 'avx2|avx512f|avx512_vnni|fma' /proc/cpuinfo | sort -u | tr '\n' ' ')"
exit $status
