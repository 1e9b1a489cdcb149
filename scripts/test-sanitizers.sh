#!/usr/bin/env bash
# Every test again, built with AddressSanitizer and UndefinedBehaviorSanitizer
# (-Db_sanitize=address,undefined) in ./build-asan: out-of-bounds access,
# use after free, leaks and undefined behaviour fail the test that hit them.
# Run by scripts/test.sh (VMAFHIP_SKIP_SANITIZERS=1 leaves it out); extra
# arguments go to meson test.  docs/reliability.md says what it covers.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-asan/build.ninja ]; then
  # AMD kernels only: the mock HIP runtime the GPU host code is tested
  # against is an AMD device; NVIDIA's would only cost build time here
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    --buildtype=debugoptimized -Dhip-amd-clang=disabled \
    -Dhip-nvidia=disabled -Dcuda-memory=disabled -Dstrict-tests=true
fi
ninja -C build-asan

# fast_unwind_on_malloc=0: whole stacks through GLib, which the suppressions
# match on; halt_on_error: UBSan's reports fail the test
export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# the plugin is scanned in the test process, which has the ASan runtime
# (gst-plugin-scanner has not)
export GST_REGISTRY_FORK=no
# the engine's golden tests on their smaller clips (the element's golden
# test still runs every clip)
export VMAFHIP_GOLDEN_CLIPS=${VMAFHIP_GOLDEN_CLIPS:-src01_160x90,src01_576x324_10b,hall_352x288,bsds_481x321_444}

# tests whose process is Python (or gst-launch-1.0, gst-inspect-1.0, run by
# Python): the runtime preloaded, leaks not checked (the interpreter's own
# would be reported)
python_tests=(element-meta-python monitor-tools launch-stops live-jump install
  cli-decode element-properties-docs probe probe-prometheus probe-gpus tune
  tune-bench)
# not here: the dashboard's test drives a browser (the page is what it
# checks, not vmafhip's code; it runs in the plain pass), which the
# preloaded runtime would be loaded into too
left_out=(probe-dashboard)
mapfile -t all < <(meson test -C build-asan --list 2>/dev/null \
  | sed -n 's/^vmafhip:[^/]* \/ //p')
native=()
for t in "${all[@]}"; do
  [[ " ${python_tests[*]} ${left_out[*]} " == *" $t "* ]] || native+=("$t")
done

status=0
meson test -C build-asan --print-errorlogs --timeout-multiplier 4 \
  "${native[@]}" "$@" || status=$?
cp build-asan/meson-logs/testlog.json build-asan/meson-logs/testlog-combined.json
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0 \
  meson test -C build-asan --print-errorlogs --timeout-multiplier 4 \
  "${python_tests[@]}" "$@" || status=$?
cat build-asan/meson-logs/testlog.json >> build-asan/meson-logs/testlog-combined.json
python3 scripts/test-summary.py build-asan/meson-logs/testlog-combined.json \
  "sanitizer tests (ASan, UBSan)"
exit $status
