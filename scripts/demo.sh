#!/usr/bin/env bash
# The main job on content vmafhip makes itself: installs, builds, then runs a
# real GStreamer pipeline. videotestsrc makes a 640x360 reference; an
# x264enc/avdec_h264 round trip makes the distorted copy (one encoder
# thread: the same bitstream, so the same scores, every run); vmafhip scores
# the pair. Prints per-frame and pooled VMAF and writes demo-vmaf.json (libvmaf's
# JSON log format).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export GST_PLUGIN_PATH="$PWD/build/gst/vmafhip${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
gst-launch-1.0 -m \
  videotestsrc num-buffers=60 pattern=smpte ! \
  video/x-raw,format=I420,width=640,height=360,framerate=30/1 ! tee name=t \
  t. ! queue ! v.ref_sink \
  t. ! queue ! x264enc tune=zerolatency bitrate=300 threads=1 ! avdec_h264 ! v.dist_sink \
  vmafhip name=v models=vmaf_v0.6.1,vmaf_v0.6.1neg:name=vmaf_neg psnr=true frame-message=true \
    results-filename=demo-vmaf.json results-format=json ! fakesink 2>&1 |
  sed -n -E \
    -e 's/.*VMAF, .*index=\(int\)([0-9]+), type=\(string\)frame, (pad=\(string\)[a-z_0-9]+, )?score=\(double\)([0-9.]+).*vmaf_neg=\(double\)([0-9.]+).*/frame \1: vmaf \3  vmaf_neg \4/p' \
    -e 's/.*VMAF, .*type=\(string\)pooled.*n-frames=\(u?int\)([0-9]+).*/pooled over \1 frames:/p' \
    -e 's/.*ERROR.*/&/p' |
  awk '{ if ($1 == "frame") { printf "%s %s %s %.3f  %s %.3f\n", $1, $2, $3, $4, $5, $6 } else print }'
python3 - <<'PY'
import json
d = json.load(open("demo-vmaf.json"))
for name in ("vmaf", "vmaf_neg", "psnr_y"):
    p = d["pooled_metrics"][name]
    print(f"  {name}: mean {p['mean']:.3f}  harmonic_mean {p['harmonic_mean']:.3f}  min {p['min']:.3f}  max {p['max']:.3f}")
print(f"libvmaf-format log: demo-vmaf.json ({len(d['frames'])} frames)")
PY
