#!/usr/bin/env bash
# Pipelines as users run them, timed on the GPU machine (called by
# `scripts/gpu-run.sh remote`; needs the runtime it packs).  Every figure
# with vmafhip has its ceiling (the same sources alone) measured beside it
# in the same run:
#   - N instances in one process (1, 4, 8, 16), each scoring a pair of raw
#     files (filesrc ! rawvideoparse), 1080p and 2160p;
#   - nvh264dec pairs (1 and 4 in one process): decoding alone, vmafhip
#     reading the decoders' CUDA memory, vmafhip on system memory;
#   - an ABR ladder as encoding teams score it (issue 15): six 1080p
#     renditions in H.264, decoded by nvh264dec, against one reference (a
#     raw file, or H.264 too), in one vmafhip (dist_sink, dist_sink_0..4)
#     and in six (each reading its own reference), beside the sources
#     alone (the one element's seven streams, the six elements' twelve).
# Usage: scripts/gpu-bench.sh BIN_DIR OUT_LOG
set -uo pipefail
bin=${1:?bin dir}; log=${2:?log}
work=${BENCH_DIR:-/tmp/vmafhip-bench}
mkdir -p "$work"
# each line followed by the CPU time the process used (16 cores: CPU-bound
# when user + sys approaches 16 x wall)
bench() {
  local TIMEFORMAT="  cpu: user %U s, sys %S s, wall %R s"
  { time "$bin/vmafhip-pipeline-bench" "$@"; } 2>&1 | tee -a "$log"
}

# Raw clips: 60 frames drawn once, repeated (videotestsrc draws slowly).
make_raw() {  # name w h frames pattern
  local f=$work/$1.yuv
  [ -f "$f" ] && return
  gst-launch-1.0 -q videotestsrc num-buffers=60 pattern=$5 ! \
    video/x-raw,format=I420,width=$2,height=$3 ! filesink location="$f.60"
  for _ in $(seq $(( $4 / 60 ))); do cat "$f.60"; done > "$f"
  rm -f "$f.60"
}
# (each made where a section reads it)

raw() {  # file w h
  echo "filesrc location=$work/$1.yuv ! rawvideoparse width=$2 height=$3 format=i420 framerate=60/1"
}
# N pairs of sources: alone to fakesinks, or each pair into a vmafhip
# (with an element between source and vmafhip where given)
alone() {  # n ref-source dist-source
  local s=""
  for _ in $(seq "$1"); do s+=" $2 ! fakesink $3 ! fakesink"; done
  echo "$s"
}
scored() {  # n ref-source dist-source [element]
  local s="" mid=${4:+ ! $4}
  for i in $(seq "$1"); do
    s+=" $2$mid ! v$i.ref_sink $3$mid ! v$i.dist_sink vmafhip name=v$i backend=hip ! fakesink"
  done
  echo "$s"
}

# BENCH_SIZES (empty: no raw pairs), BENCH_INSTANCES, BENCH_DECODE=0 (no
# nvh264dec pairs), BENCH_QUEUE=0 (no queue variants), BENCH_LADDER=0 (no
# ladder) and BENCH_MEMORY=0 (no GPU memory figures) narrow a run down
sizes=${BENCH_SIZES-1080:1920:1080:1200 2160:3840:2160:240}
for size in $sizes; do
  IFS=: read -r tag w h n <<< "$size"
  make_raw ref-$tag $w $h $n ball
  make_raw dist-$tag $w $h $n snow
  r=$(raw ref-$tag $w $h) d=$(raw dist-$tag $w $h)
  for inst in ${BENCH_INSTANCES:-1 4 8 16}; do
    bench -n $((inst * n)) -l "raw ${tag}p x$inst, sources alone" $(alone $inst "$r" "$d")
    bench -n $((inst * n)) -l "raw ${tag}p x$inst, with vmafhip" $(scored $inst "$r" "$d")
    [ "${BENCH_QUEUE:-1}" = 0 ] || \
      bench -n $((inst * n)) -l "raw ${tag}p x$inst, with vmafhip, a queue before each input" \
        $(scored $inst "$r" "$d" queue)
  done
done

# H.264 pairs decoded on the GPU
if [ "${BENCH_DECODE:-1}" = 0 ]; then
  :
elif gst-inspect-1.0 nvh264dec > /dev/null 2>&1; then
  # from the noise clip: the decoders work hard (a worst case, unlike
  # typical content)
  enc() {  # name kbps
    [ -f "$work/$1.h264" ] && return
    gst-launch-1.0 -q filesrc location=$work/dist-1080.yuv ! \
      rawvideoparse width=1920 height=1080 format=i420 framerate=60/1 ! \
      x264enc speed-preset=ultrafast bitrate=$2 ! \
      video/x-h264,stream-format=byte-stream ! filesink location="$work/$1.h264"
  }
  make_raw dist-1080 1920 1080 1200 snow
  enc ref-1080 12000
  enc dist-1080 2000
  dec() { echo "filesrc location=$work/$1.h264 ! h264parse ! nvh264dec"; }
  n=1200
  r=$(dec ref-1080) d=$(dec dist-1080)
  for pairs in 1 4; do
    bench -n $((pairs * n)) -l "nvh264dec 1080p x$pairs, decoding alone" $(alone $pairs "$r" "$d")
    bench -n $((pairs * n)) -l "nvh264dec 1080p x$pairs, vmafhip (negotiated memory)" \
      $(scored $pairs "$r" "$d")
    bench -n $((pairs * n)) -l "nvh264dec 1080p x$pairs, vmafhip on system memory" \
      $(scored $pairs "$r" "$d" video/x-raw)
  done
else
  echo "nvh264dec not available: GPU-decoder pipelines skipped" | tee -a "$log"
fi

# The ladder: LADDER (the ladders to run: 1080, six 1080p rungs; 2160,
# rungs 2160p to 360p against a 2160p reference, scaled up on the GPU),
# LADDER_FRAMES frames a rung (default 1800 at 1080p, 600 at 2160p),
# LADDER_ROUNDS rounds, the runs alternating within each; distorted frames
# a second (6 per ladder frame)
ladder() {  # tag width height frames rung...   (rung: WxH:kbps)
  local tag=$1 w=$2 h=$3 n=$4; shift 4
  local rungs=("$@") pads=(dist_sink dist_sink_0 dist_sink_1 dist_sink_2 dist_sink_3 dist_sink_4)
  make_raw ladder-ref-$tag "$w" "$h" "$n" ball
  local raw_ref; raw_ref=$(raw ladder-ref-$tag "$w" "$h")
  # the renditions (scaled down on the CPU) and an H.264 reference (a
  # mezzanine: 25 Mb/s at 1080p, 100 at 2160p) from the raw file, encoded
  # at once
  local ref_kbps=$(( w * h / 83 ))
  for r in "${w}x${h}:$ref_kbps" "${rungs[@]}"; do
    local size=${r%%:*} kbps=${r##*:}
    [ -f "$work/ladder-$tag-$size-$kbps.h264" ] || gst-launch-1.0 -q $raw_ref ! \
      videoscale ! video/x-raw,width=${size%x*},height=${size#*x} ! \
      x264enc speed-preset=ultrafast bitrate=$kbps threads=2 ! \
      video/x-h264,stream-format=byte-stream ! \
      filesink location="$work/ladder-$tag-$size-$kbps.h264" &
  done
  wait
  dec() { echo "filesrc location=$work/ladder-$tag-$1.h264 ! h264parse ! nvh264dec"; }
  one() {  # reference source
    local s="$1 ! v.ref_sink"
    for i in 0 1 2 3 4 5; do s+=" $(dec "${rungs[$i]/:/-}") ! v.${pads[$i]}"; done
    echo "$s vmafhip name=v backend=hip ! fakesink"
  }
  six() {
    local s=""
    for i in 0 1 2 3 4 5; do
      s+=" $1 ! v$i.ref_sink $(dec "${rungs[$i]/:/-}") ! v$i.dist_sink vmafhip name=v$i backend=hip ! fakesink"
    done
    echo "$s"
  }
  alone_one() {
    local s="$1 ! fakesink"
    for r in "${rungs[@]}"; do s+=" $(dec "${r/:/-}") ! fakesink"; done
    echo "$s"
  }
  alone_six() {
    local s=""
    for r in "${rungs[@]}"; do s+=" $1 ! fakesink $(dec "${r/:/-}") ! fakesink"; done
    echo "$s"
  }
  for round in $(seq "${LADDER_ROUNDS:-2}"); do
    for ref in raw h264; do
      local r=$raw_ref; [ $ref = raw ] || r=$(dec "${w}x${h}-$ref_kbps")
      local l="ladder ${tag}p, $ref reference, round $round"
      bench -n $((6 * n)) -l "$l: sources alone, one element's 7 streams" $(alone_one "$r")
      bench -n $((6 * n)) -l "$l: sources alone, six elements' 12 streams" $(alone_six "$r")
      bench -n $((6 * n)) -l "$l: one vmafhip" $(one "$r")
      VMAFHIP_SHARED_REFERENCE=1 \
        bench -n $((6 * n)) -l "$l: one vmafhip, reference shared" $(one "$r")
      bench -n $((6 * n)) -l "$l: six vmafhip" $(six "$r")
    done
  done
}
if [ "${BENCH_LADDER:-1}" = 0 ]; then
  :
elif gst-inspect-1.0 nvh264dec > /dev/null 2>&1; then
  for l in ${LADDER:-1080 2160}; do
    case $l in
    1080) ladder 1080 1920 1080 "${LADDER_FRAMES:-1800}" 1920x1080:8000 \
            1920x1080:6000 1920x1080:4500 1920x1080:3000 1920x1080:2000 \
            1920x1080:1200 ;;
    2160) ladder 2160 3840 2160 "${LADDER_FRAMES:-600}" 3840x2160:16000 \
            2560x1440:9000 1920x1080:6000 1280x720:3000 960x540:2000 \
            640x360:1000 ;;
    esac
  done
else
  echo "nvh264dec not available: the ladder is skipped" | tee -a "$log"
fi

# GPU memory of one process with 1 and 8 instances (1080p, raw files), and
# of one instance early and late in a run of 100,000 small frames
gpu_mem() {  # pid -> MiB used by that process
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits \
    | awk -F', *' -v p="$1" '$1 == p { print $2 }'
}
if [ "${BENCH_MEMORY:-1}" != 0 ] && command -v nvidia-smi > /dev/null; then
  make_raw ref-1080 1920 1080 1200 ball
  make_raw dist-1080 1920 1080 1200 snow
  for inst in 1 8; do
    gst-launch-1.0 -q $(scored $inst "$(raw ref-1080 1920 1080)" \
        "$(raw dist-1080 1920 1080)") > /dev/null & pid=$!
    sleep 1.0; m=$(gpu_mem $pid); wait $pid
    echo "GPU memory, 1080p x$inst in one process: ${m:-?} MiB" | tee -a "$log"
  done
  small="videotestsrc num-buffers=100000 pattern=black ! video/x-raw,format=I420,width=320,height=240,framerate=1000/1"
  gst-launch-1.0 -q $small ! v.ref_sink $small ! v.dist_sink vmafhip name=v backend=hip ! fakesink > /dev/null & pid=$!
  t0=$(date +%s); sleep 2; early=$(gpu_mem $pid); last=$early
  while kill -0 $pid 2> /dev/null; do m=$(gpu_mem $pid); [ -z "$m" ] || last=$m; sleep 1; done
  wait $pid
  echo "GPU memory over 100,000 frames (320x240): ${early:-?} MiB after 2 s, ${last:-?} MiB at the end ($(( $(date +%s) - t0 )) s)" | tee -a "$log"
fi
