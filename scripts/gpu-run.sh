#!/usr/bin/env bash
# GPU tests and benchmarks on a machine with a GPU but no GStreamer or GLib
# (the lent GPU machine, see ../shared/device/README.md).
#
#   scripts/gpu-run.sh pack     here: build, then gather the GPU test and
#                               benchmark programs, the plugin, a GStreamer
#                               runtime and the test vectors into .gpurun/
#   scripts/gpu-run.sh remote [tests|bench|all|kernels|ab|cambi|ladder|tune]
#                               there, in a copy of the tree that carries
#                               .gpurun/: run the GPU tests (accumulators and
#                               scores against the CPU) and/or the benchmarks
#                               (all: both, the default), logs into $OUT (or
#                               .gpurun/out); kernels: only the feature
#                               kernels against the CPU and their timings;
#                               ladder: the ABR ladders decoded on the
#                               GPU, one element against six;
#                               tune: scripts/tune-bench.py (issue 39's x264
#                               grid through vmafhip-tune, nvh264dec and the
#                               GPU, against encode-to-file then
#                               vmafhip-score; TUNE_BENCH_ARGS adds options),
#                               results in $OUT/tune; needs PACK_TUNE=1 at
#                               pack time (a Python with PyGObject,
#                               scripts/pack-python-runtime.sh);
#                               ab: the raw-file pipelines
#                               with this plugin and another build of it
#                               (OLD_PLUGIN=path/libgstvmafhip.so at pack
#                               time), alternating, AB_ROUNDS rounds;
#                               PACK_TESTDATA=0 / PACK_BENCH=0 at pack time
#                               leave the test vectors / the benchmark
#                               programs out (a smaller pack)
#
# With the device tool: pack here, then run `scripts/gpu-run.sh remote`
# there with carry [".gpurun"].
set -euo pipefail
cd "$(dirname "$0")/.."
carry=.gpurun              # what travels: one compressed pack.tgz
dest=$carry/tree           # the pack unpacked (the tree does not travel)

case "${1:-}" in
pack)
  build=${BUILD:-build}          # another build folder: BUILD=path
  [ "$build" != build ] || scripts/build.sh
  rm -rf "$carry"
  mkdir -p "$dest/bin" "$dest/plugin"
  bins=("$build"/tests/check/gpu/test-gpu-runtime "$build"/tests/check/gpu/test-gpu-features
        "$build"/tests/check/gpu/test-gpu-sums
        "$build"/tests/check/gpu/test-scale-gpu
        "$build"/tools/vmafhip-info
        "$build"/tests/check/elements/test-element-vmafhip
        "$build"/tests/check/elements/test-element-vmafhip-models
        "$build"/tests/check/elements/test-element-vmafhip-pairing
        "$build"/tests/check/elements/test-element-vmafhip-results
        "$build"/tests/check/elements/test-element-vmafhip-errors
        "$build"/tests/check/elements/test-element-vmafhip-pipelines
        "$build"/tests/check/elements/test-element-vmafhip-timeline
        "$build"/tests/check/elements/test-element-vmafhip-scale
        "$build"/tests/check/elements/test-element-vmafhip-renditions
        "$build"/tests/check/elements/test-element-vmafhip-renditions-live
        "$build"/tests/check/elements/test-element-vmafhip-stops
        "$build"/tests/check/elements/test-element-vmafhip-segments
        "$build"/tests/check/elements/test-element-vmafhip-memory
        "$build"/tests/check/elements/test-element-vmafhip-golden)
  # PACK_BENCH=0: the tests only (the benchmark programs carry every
  # kernel image each, and the carry is limited)
  # PACK_TUNE=1 needs vmafhip-score even without the benchmark programs
  [ "${PACK_BENCH:-1}" != 0 ] || [ "${PACK_TUNE:-0}" = 0 ] || \
    bins+=("$build"/tools/vmafhip-score)
  [ "${PACK_BENCH:-1}" = 0 ] || bins+=("$build"/tools/vmafhip-gpu-bench
        "$build"/tools/vmafhip-bench "$build"/tools/vmafhip-score
        "$build"/gst/vmafhip/vmafhip-element-bench
        "$build"/gst/vmafhip/vmafhip-pipeline-bench
        "$build"/gst/vmafhip/vmafhip-soak)
  cp "${bins[@]}" "$dest/bin/"
  strip "$dest"/bin/* 2>/dev/null || true   # smaller pack
  cp "$build"/gst/vmafhip/libgstvmafhip.so "$dest/plugin/"
  strip "$dest/plugin/libgstvmafhip.so"
  if [ -n "${OLD_PLUGIN:-}" ]; then   # the baseline of `remote ab`
    mkdir -p "$dest/plugin-old"
    cp "$OLD_PLUGIN" "$dest/plugin-old/libgstvmafhip.so"
    strip "$dest/plugin-old/libgstvmafhip.so"
  fi
  # Debian's nvcodec plugin (nvh264dec, cudaupload): NVDEC runs there
  nvcodec=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/gstreamer-1.0/libgstnvcodec.so
  [ -f "$nvcodec" ] || nvcodec=
  ../shared/device/pack-gst-runtime "$dest/gstrt" "$dest"/bin/* "$dest/plugin/libgstvmafhip.so" $nvcodec
  [ -z "$nvcodec" ] || cp "$nvcodec" "$dest/gstrt/plugins/"
  strip "$dest"/gstrt/lib/* "$dest"/gstrt/plugins/* 2>/dev/null || true
  if [ -d ../shared/testdata ] && [ "${PACK_TESTDATA:-1}" != 0 ]; then
    mkdir -p "$dest/testdata"
    cp -r ../shared/testdata/clips ../shared/testdata/golden "$dest/testdata/"
    # no H.264 decoder travels: decode the first frames of the MP4 pair here
    for f in "$dest"/testdata/clips/*.mp4; do
      gst-launch-1.0 -q filesrc location="$f" ! qtdemux ! h264parse ! avdec_h264 ! \
        video/x-raw,format=I420 ! filesink location="${f%.mp4}.yuv"
      head -c $((720 * 480 * 3 / 2 * 12)) "${f%.mp4}.yuv" > "${f%.mp4}.yuv.part"
      mv "${f%.mp4}.yuv.part" "${f%.mp4}.yuv"
      rm "$f"
    done
  fi
  # PACK_TUNE=1: Debian's Python with PyGObject for scripts/tune-bench.py
  # and vmafhip-tune (about 12.6 MB more in the pack)
  [ "${PACK_TUNE:-0}" = 0 ] || scripts/pack-python-runtime.sh "$dest/pyrt"
  # the carry is limited to 64 MiB with the work tree: compressed, it is
  # about 40 % of the unpacked size
  tar czf "$carry/pack.tgz" -C "$dest" .
  rm -rf "$dest"
  # (a worktree's .git is a file: ask git where its exclude file is)
  exclude=$(git rev-parse --git-path info/exclude 2>/dev/null || echo .git/info/exclude)
  mkdir -p "$(dirname "$exclude")"
  grep -qx "/$carry/" "$exclude" 2>/dev/null || echo "/$carry/" >> "$exclude"
  du -sh "$carry/pack.tgz"
  ;;
remote)
  out=${OUT:-$carry/out}
  mkdir -p "$out"
  rm -rf "$dest" && mkdir -p "$dest" && tar xzf "$carry/pack.tgz" -C "$dest"
  . "$dest/gstrt/env.sh"
  export GST_PLUGIN_PATH="$PWD/$dest/plugin"
  export VMAFHIP_TESTDATA="$PWD/$dest/testdata"
  export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-300}
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  status=0
  run() { echo "== $*"; "$@" 2>&1 | tee -a "$out/gpu-run.log"; return "${PIPESTATUS[0]}"; }
  what=${2:-all}
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
  # kernels: the feature kernels against the CPU (CIEDE2000 with and
  # without its 8-bit table) and their timings, nothing else
  if [ "$what" = kernels ]; then
    run "$dest/bin/test-gpu-features" || status=1
    VMAFHIP_CIEDE_TABLE=0 run "$dest/bin/test-gpu-features" || status=1
    run "$dest/bin/vmafhip-gpu-bench" --frames 200 || status=1
    exit $status
  fi
  # cambi: the features against the CPU, the kernels' timings, and
  # vmaf_v1.0.16 against vmaf_v0.6.1 end to end (alternating rounds)
  if [ "$what" = cambi ]; then
    run "$dest/bin/test-gpu-features" || status=1
    run "$dest/bin/vmafhip-gpu-bench" --frames 100 || status=1
    for round in 1 2; do
      for model in vmaf_v0.6.1 vmaf_v1.0.16_3d0h; do
        run "$dest/bin/vmafhip-element-bench" --size 1920x1080 --frames 600 \
          --backend hip --model $model || status=1
        run "$dest/bin/vmafhip-element-bench" --size 3840x2160 --frames 240 \
          --backend hip --model $model || status=1
      done
    done
    exit $status
  fi
  if [ "$what" = all ] || [ "$what" = tests ]; then
  run "$dest/bin/vmafhip-info" || status=1
  run "$dest/bin/test-gpu-runtime" > /dev/null || status=1
  run "$dest/bin/test-gpu-sums" || status=1
  run "$dest/bin/test-scale-gpu" || status=1
  run "$dest/bin/test-gpu-features" || status=1
  # the element's harness tests on the GPU (backend=auto picks it); the
  # H.264 round trip needs avdec_h264, which does not travel
  for t in test-element-vmafhip test-element-vmafhip-models \
      test-element-vmafhip-errors test-element-vmafhip-pipelines test-element-vmafhip-timeline \
      test-element-vmafhip-memory; do
    GST_STATE_IGNORE_ELEMENTS= GST_CHECKS_IGNORE=test_pipeline_encode_decode \
      run "$dest/bin/$t" || status=1
  done
  # the same harness tests with every element on the GPU (backend=hip):
  # scores compared with the CPU engine's, bit for bit. Left out: the
  # tests about backend choice and CPU allocation, and one that pulls two
  # frames after three pairs with the input stalled, not live (the GPU
  # keeps frames in flight until the next push there; live, they go out)
  for t in test-element-vmafhip test-element-vmafhip-models \
      test-element-vmafhip-pairing test-element-vmafhip-results test-element-vmafhip-errors \
      test-element-vmafhip-timeline test-element-vmafhip-golden \
      test-element-vmafhip-scale test-element-vmafhip-renditions \
      test-element-vmafhip-renditions-live \
      test-element-vmafhip-stops test-element-vmafhip-segments; do
    GST_STATE_IGNORE_ELEMENTS= VMAFHIP_TEST_BACKEND=hip \
      GST_CHECKS_IGNORE=test_pipeline_encode_decode,test_backend_auto,test_error_backend_hip,test_allocation_cpu_no_pinned_pool,test_flushing_seek \
      run "$dest/bin/$t" || status=1
  done
  # the renditions with their reference uploaded once (opt-in): every
  # rung's frames still equal a separate run's
  GST_STATE_IGNORE_ELEMENTS= VMAFHIP_TEST_BACKEND=hip VMAFHIP_SHARED_REFERENCE=1 \
    run "$dest/bin/test-element-vmafhip-renditions" || status=1
  # Every libvmaf metric the element offers, on the GPU and on the CPU,
  # through real pipelines (12 frames of the 720x480 pair): integer
  # features equal, the float metrics (SSIM, MS-SSIM, PSNR-HVS, CIEDE2000:
  # float arithmetic summed in another order) within 1e-5
  clip=$VMAFHIP_TESTDATA/clips/seeking_720x480
  if [ -f "${clip}_ref.yuv" ]; then
    for b in cpu hip; do
      gst-launch-1.0 -q filesrc location="${clip}_ref.yuv" ! \
        rawvideoparse width=720 height=480 format=i420 ! v.ref_sink \
        filesrc location="${clip}_dis_crf40.yuv" ! \
        rawvideoparse width=720 height=480 format=i420 ! v.dist_sink \
        vmafhip name=v backend=$b psnr=true ssim=true ms-ssim=true \
        features=psnr_hvs,ciede \
        results-filename="$out/metrics-$b.json" ! fakesink || status=1
    done
    run python3 -c 'import json, sys
a, b = (json.load(open(f))["frames"] for f in sys.argv[1:])
def tol(k):
    return 1e-5 if k.startswith(("float_", "psnr_hvs", "ciede")) else 0
bad = [(i, k) for i, (x, y) in enumerate(zip(a, b)) for k in x["metrics"]
       if k not in y["metrics"]
       or abs(x["metrics"][k] - y["metrics"][k]) > tol(k)]
print("every metric, GPU vs CPU:", len(a), "frames,", len(a[0]["metrics"]),
      "metrics,", "equal" if not bad else "DIFFER at %s" % bad[:5])
sys.exit(1 if bad or len(a) < 12 else 0)' "$out/metrics-cpu.json" "$out/metrics-hip.json" || status=1
  fi
  fi
  [ "$what" != tests ] || exit $status
  # tune: issue 39's grid, vmafhip-tune corpus (x264enc, nvh264dec, the
  # element on the GPU) against the file-based baseline, and the ladder
  if [ "$what" = tune ]; then
    [ -d "$dest/pyrt" ] || { echo "no Python in the pack: pack with PACK_TUNE=1" >&2; exit 2; }
    # shellcheck disable=SC1091
    . "$dest/pyrt/python-env.sh"
    # shellcheck disable=SC2086  # TUNE_BENCH_ARGS: options, split on spaces
    run python3 scripts/tune-bench.py --score "$dest/bin/vmafhip-score" \
      --plugin-dir "$dest/plugin" --decoder nvh264dec --backend hip \
      --out "$out/tune" ${TUNE_BENCH_ARGS:-} || status=1
    exit $status
  fi
  # ladder: the ABR ladders as users score them (H.264 rungs on nvh264dec,
  # one element against six; LADDER, LADDER_FRAMES, LADDER_ROUNDS)
  if [ "$what" = ladder ]; then
    BENCH_SIZES= BENCH_DECODE=0 BENCH_MEMORY=0 \
      scripts/gpu-bench.sh "$dest/bin" "$out/gpu-run.log" || status=1
    exit $status
  fi
  if [ "$what" = ab ]; then
    [ -d "$dest/plugin-old" ] || { echo "no plugin-old in the pack" >&2; exit 2; }
    for round in $(seq "${AB_ROUNDS:-3}"); do
      for which in new old; do
        dir=$PWD/$dest/plugin; [ $which = new ] || dir=$PWD/$dest/plugin-old
        echo "== round $round, plugin $which" | tee -a "$out/gpu-run.log"
        GST_PLUGIN_PATH=$dir GST_REGISTRY=$PWD/$dest/registry-$which.bin \
          BENCH_DECODE=0 BENCH_QUEUE=0 BENCH_MEMORY=0 BENCH_LADDER=0 BENCH_SIZES=${BENCH_SIZES:-1080:1920:1080:1200 2160:3840:2160:240} \
          BENCH_INSTANCES=${BENCH_INSTANCES:-1 8} \
          scripts/gpu-bench.sh "$dest/bin" "$out/gpu-run.log" || status=1
      done
    done
    exit $status
  fi
  run "$dest/bin/vmafhip-gpu-bench" ${BENCH_ARGS:-} || status=1
  scripts/gpu-bench.sh "$dest/bin" "$out/gpu-run.log" || status=1
  for size in 1920x1080 3840x2160; do
    run "$dest/bin/vmafhip-element-bench" --size "$size" --frames 600 --backend hip || status=1
  done
  run "$dest/bin/vmafhip-element-bench" --size 1920x1080 --frames 48 --backend cpu || status=1
  run "$dest/bin/vmafhip-bench" -n 24 || status=1
  exit $status
  ;;
*)
  echo "usage: $0 pack|remote" >&2
  exit 2
  ;;
esac
