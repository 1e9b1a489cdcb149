#!/usr/bin/env bash
# Installs, builds and runs every test, then the engine's on 64-bit Arm
# under qemu (scripts/test-aarch64.sh; VMAFHIP_SKIP_AARCH64=1 leaves it
# out). Golden tests read ../shared/testdata (override with
# VMAFHIP_TESTDATA) and are skipped, loudly, without it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
status=0
meson test -C build --print-errorlogs --verbose "$@" || status=$?
python3 scripts/test-summary.py build/meson-logs/testlog.json
# the engine on 64-bit Arm, under qemu
if [ "${VMAFHIP_SKIP_AARCH64:-0}" != 1 ]; then
  scripts/test-aarch64.sh || status=1
fi
exit $status
