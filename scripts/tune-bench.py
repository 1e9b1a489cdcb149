#!/usr/bin/python3
"""The encoding grid of issue 39, item 4, timed two ways on one machine:

  (a) vmafhip-tune corpus: each CRF's resolutions in one GStreamer
      pipeline (the title read and decoded once, x264enc, the decoder,
      every rendition scored by one vmafhip on its own pad; with
      --decoder nvh264dec --backend hip the decoded frames stay in CUDA
      memory and the element scales them up on the GPU);
  (b) the file-based baseline, the equivalent of FFmpeg-encode-then-vmaf:
      per cell, gst-launch-1.0 encodes to an .h264 file (the same scaling
      and x264enc settings as (a)), decodes it to a raw .yuv file, and
      vmafhip-score scores that file against the title, scaling it up
      with the same bicubic filter (--scaler bicubic, FFmpeg's filter
      as the element's: docs/scaling.md).

It makes the title itself (videotestsrc shots with motion, joined by
concat, written to a y4m file), runs (a) then (b) with the same --jobs,
prints cells per minute for each and their ratio, checks every cell's
pooled scores and bytes are equal in (a) and (b), and draws the ladder of
(a)'s corpus (vmafhip-tune ladder: table, and the plot where matplotlib
is importable; else the command to draw it elsewhere).

Defaults: the GPU machine's grid: a 1920x1080 title of 10 s at 30 fps;
1920x1080, 1280x720, 960x540, 768x432, 640x360, 480x270; CRF 18, 23, 28,
33, 38, 43; x264enc preset medium; nvh264dec where installed (else
avdec_h264, openh264dec); --jobs: the CPUs rounded up to whole pipelines.
--small: a 320x180 title of 1 s and a grid of its size, preset
ultrafast, for a CPU machine.

Paths: --score (or $VMAFHIP_SCORE, else vmafhip-score on PATH),
--plugin-dir (the folder of libgstvmafhip.so, put in GST_PLUGIN_PATH; or
GST_PLUGIN_PATH as it is), --tune (tools/vmafhip-tune.py of this tree).

Output in --out: corpus.jsonl (a), baseline.jsonl (b: one line a cell),
summary.json, ladder.txt (and ladder.png).  Exit status: 0 when every
cell is equal in (a) and (b); 1 when a cell differs or failed; 2 for a
setup error (a missing element or program), named with its fix.
docs/tune.md, *The grid benchmark*, says how to run it on the GPU machine.
"""

import argparse
import concurrent.futures
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(os.path.dirname(HERE), "tools")

FULL = {"size": "1920x1080", "seconds": 10.0,
        "resolutions": "1920x1080,1280x720,960x540,768x432,640x360,480x270",
        "preset": "medium"}
SMALL = {"size": "320x180", "seconds": 1.0,
         "resolutions": "320x180,256x144,224x126,192x108,160x90,128x72",
         "preset": "ultrafast"}
CRFS = "18,23,28,33,38,43"

# The title's shots, one after the other: scrolling bars, an animated zone
# plate (fine detail that downscaling aliases), scrolling circles, a
# scrolling colour gradient, a ball on black (cheap to encode): content
# whose rate-quality curves cross between resolutions
SHOTS = ("pattern=smpte horizontal-speed=6",
         "pattern=zone-plate kx2=20 ky2=20 kt=2",
         "pattern=circular horizontal-speed=-3",
         "pattern=colors horizontal-speed=2",
         "pattern=ball motion=sweep")


class SetupError(Exception):
    """Something the bench cannot run without (exit 2)."""


def parse_size(text):
    try:
        width, height = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise SetupError(f"cannot read size {text!r} (WxH, e.g. 1920x1080)")
    if width <= 0 or height <= 0:
        raise SetupError(f"size {text}: must be positive")
    return width, height


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="vmafhip-tune corpus against encode-to-file then "
                    "vmafhip-score, on one x264 grid (docs/tune.md, "
                    "The grid benchmark)")
    p.add_argument("--small", action="store_true",
                   help="a 320x180 title of 1 s, preset ultrafast (a CPU "
                        "machine)")
    p.add_argument("--size", help="the title's size (default 1920x1080)")
    p.add_argument("--seconds", type=float, help="the title's length "
                                                 "(default 10)")
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--resolutions", help="encode sizes, WxH,WxH,...")
    p.add_argument("--crfs", default=CRFS, help=f"CRFs (default {CRFS})")
    p.add_argument("--preset", help="x264enc speed-preset (default medium)")
    p.add_argument("--decoder", help="H.264 decoder (default: nvh264dec, "
                                     "avdec_h264, openh264dec: the first "
                                     "installed)")
    p.add_argument("--backend", choices=("auto", "cpu", "hip"),
                   default="auto", help="vmafhip's and vmafhip-score's")
    p.add_argument("--jobs", type=int,
                   help="cells at once in both (default: the CPUs rounded "
                        "up to a multiple of the resolutions)")
    p.add_argument("--baseline-scaler", default="bicubic",
                   choices=("bicubic", "bilinear", "lanczos"),
                   help="vmafhip-score's --scaler (default bicubic, the "
                        "element's; another makes the smaller cells differ)")
    p.add_argument("--score", default=os.environ.get("VMAFHIP_SCORE"),
                   help="vmafhip-score (default $VMAFHIP_SCORE, else on PATH)")
    p.add_argument("--plugin-dir", help="folder of libgstvmafhip.so "
                                        "(default: GST_PLUGIN_PATH as set)")
    p.add_argument("--tune", default=os.path.join(TOOLS, "vmafhip-tune.py"),
                   help="vmafhip-tune (default: this tree's)")
    p.add_argument("--out", default=os.environ.get("OUT") or "tune-bench",
                   help="results folder (default $OUT, else ./tune-bench)")
    p.add_argument("--work", default=os.path.join(
        os.environ.get("TMPDIR", "/tmp"), "vmafhip-tune-bench"),
                   help="the title and the baseline's files (removed cell "
                        "by cell)")
    p.add_argument("--rungs", type=int, default=5, help="ladder rungs")
    args = p.parse_args(argv)
    base = SMALL if args.small else FULL
    for key, value in base.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    return args


def check_setup(args):
    """Programs and elements, each missing one named with its fix."""
    if args.plugin_dir:
        if not os.path.isfile(os.path.join(args.plugin_dir, "libgstvmafhip.so")):
            raise SetupError(f"--plugin-dir {args.plugin_dir}: no "
                             "libgstvmafhip.so there (give the build's "
                             "gst/vmafhip folder)")
        os.environ["GST_PLUGIN_PATH"] = os.path.abspath(args.plugin_dir)
    score = args.score or shutil.which("vmafhip-score")
    if not score or not os.access(score, os.X_OK):
        raise SetupError(f"vmafhip-score not found ({score or 'not on PATH'}): "
                         "give --score PATH or set VMAFHIP_SCORE")
    args.score = os.path.abspath(score)
    if not os.path.isfile(args.tune):
        raise SetupError(f"--tune {args.tune}: no such file")
    for program in ("gst-launch-1.0", "gst-inspect-1.0"):
        if not shutil.which(program):
            raise SetupError(f"{program} is not on PATH (source the GStreamer "
                             "runtime's env.sh)")
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.tune)))
    from vmafhip_tune import encoders, pipeline  # pipeline inits Gst
    if not args.decoder:
        args.decoder = next((d for d in ("nvh264dec", "avdec_h264",
                                         "openh264dec")
                             if encoders.have_element(d)), None)
        if args.decoder is None:
            raise SetupError("no H.264 decoder (nvh264dec, avdec_h264, "
                             "openh264dec) is installed; give --decoder")
    needed = ("vmafhip", "x264enc", "h264parse", args.decoder, "videotestsrc",
              "concat", "y4menc", "y4mdec", "videoconvert", "videoscale")
    packages = dict(encoders.PACKAGES, x264enc="gstreamer1.0-plugins-ugly",
                    concat="gstreamer1.0 (core)",
                    y4menc="gstreamer1.0-plugins-good",
                    y4mdec="gstreamer1.0-plugins-bad")
    for name in needed:
        if not encoders.have_element(name):
            raise SetupError(encoders.missing_message(name, packages.get(name, "?"))
                             + "; on the GPU machine: the runtime "
                             "scripts/gpu-run.sh packs")
    if not pipeline.renditions_supported():
        raise SetupError("this vmafhip has no dist_sink_%u pads, so the "
                         "corpus would run one pipeline per cell: build the "
                         "plugin of this tree")
    args.width, args.height = parse_size(args.size)
    args.sizes = [parse_size(s) for s in args.resolutions.split(",") if s]
    for w, h in args.sizes:
        if w > args.width or h > args.height or w % 2 or h % 2:
            raise SetupError(f"resolution {w}x{h}: even sizes up to the "
                             f"title's {args.size} only")
    try:
        args.crf_list = [int(c) for c in args.crfs.split(",") if c]
    except ValueError:
        raise SetupError(f"--crfs {args.crfs!r}: whole numbers, 18,23,28")
    if not args.crf_list or not args.sizes:
        raise SetupError("--crfs and --resolutions need a value each at least")
    if args.jobs is None:
        n = len(args.sizes)
        args.jobs = -(-(os.cpu_count() or 1) // n) * n
    if args.jobs < 1:
        raise SetupError("--jobs must be at least 1")


def run(command, what):
    r = subprocess.run(command, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {r.returncode}): "
                           f"{' '.join(command)}\n{r.stderr.strip()[-2000:]}")
    return r


def make_title(args, path):
    """The title: SHOTS joined, each an equal part of --seconds."""
    frames = max(len(SHOTS), round(args.seconds * args.fps))
    caps = (f"video/x-raw,format=I420,width={args.width},"
            f"height={args.height},framerate={args.fps}/1")
    command = ["gst-launch-1.0", "-q", "concat", "name=c", "!", caps, "!",
               "y4menc", "!", "filesink", f"location={path}"]
    for i, shot in enumerate(SHOTS):
        count = frames * (i + 1) // len(SHOTS) - frames * i // len(SHOTS)
        command += ["videotestsrc", f"num-buffers={count}", *shot.split(),
                    "!", caps, "!", "c."]
    run(command, "making the title")
    return frames


def corpus_run(args, title, corpus):
    """(a): one vmafhip-tune corpus run over the grid, timed."""
    command = [sys.executable, args.tune, "corpus", "--corpus", corpus,
               "--source", title, "--encoder", "x264enc",
               "--values", ",".join(map(str, args.crf_list)),
               "--preset", args.preset, "--decoder", args.decoder,
               "--backend", args.backend, "--jobs", str(args.jobs), "--quiet"]
    for w, h in args.sizes:
        command += ["--resolution", f"{w}x{h}"]
    begin = time.monotonic()
    r = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - begin
    if r.returncode not in (0, 1):
        raise RuntimeError(f"vmafhip-tune corpus failed (exit {r.returncode}):"
                           f" {' '.join(command)}\n{r.stderr.strip()[-2000:]}")
    rows = {}
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                rows[(row["value"], row["width"], row["height"])] = row
    return rows, wall, command, r.stderr.strip()


def x264_settings(args, crf):
    """x264enc's properties for CRF, as vmafhip-tune sets them."""
    from vmafhip_tune import encoders, pipeline
    encoder = encoders.lookup("x264enc")
    knob = encoder.knob("crf")
    cell = pipeline.Cell("", None, encoder, knob, crf, 0, 0, args.decoder,
                         args.preset)
    return [f"{p}={v}" for p, v in pipeline.encoder_settings(cell)]


def baseline_cell(args, title, crf, size):
    """(b) for one cell: encode to a file, decode it to a file, score the
    file; the cell's pooled scores and bytes."""
    w, h = size
    stem = os.path.join(args.work, f"crf{crf}-{w}x{h}")
    stream, decoded, log = stem + ".h264", stem + ".yuv", stem + ".json"
    try:
        run(["gst-launch-1.0", "-q", "filesrc", f"location={title}", "!",
             "y4mdec", "!", "videoscale", "!", f"video/x-raw,width={w},height={h}",
             "!", "x264enc", *x264_settings(args, crf), "!", "h264parse", "!",
             "video/x-h264,stream-format=byte-stream,alignment=au", "!",
             "filesink", f"location={stream}"], f"encoding crf {crf} {w}x{h}")
        # raw I420 (videoconvert: nvh264dec gives NV12); not y4m: GStreamer
        # 1.22's y4menc writes a decoder's padded rows with the picture
        run(["gst-launch-1.0", "-q", "filesrc", f"location={stream}", "!",
             "h264parse", "!", args.decoder, "!", "videoconvert", "!",
             "video/x-raw,format=I420", "!", "filesink",
             f"location={decoded}"], f"decoding crf {crf} {w}x{h}")
        command = [args.score, "-r", title, "-d", decoded, "-w", str(args.width),
                   "-h", str(args.height), "-p", "420", "-b", "8",
                   "--backend", args.backend, "--json", "-o", log, "-q"]
        if (w, h) != (args.width, args.height):
            command += ["--dis_width", str(w), "--dis_height", str(h),
                        "--scaler", args.baseline_scaler]
        run(command, f"vmafhip-score crf {crf} {w}x{h}")
        with open(log, encoding="utf-8") as f:
            result = json.load(f)
        scores = {k: v["mean"] for k, v in result["pooled_metrics"].items()}
        return {"value": crf, "width": w, "height": h,
                "bytes": os.path.getsize(stream), "scores": scores,
                "frames": len(result["frames"])}
    finally:
        for path in (stream, decoded, log):
            if os.path.exists(path):
                os.unlink(path)


def baseline_run(args, title, path):
    """(b) over the grid, --jobs cells at once, timed."""
    cells = [(crf, size) for crf in args.crf_list for size in args.sizes]
    rows, failures = {}, {}
    begin = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(baseline_cell, args, title, crf, size):
                   (crf, *size) for crf, size in cells}
        for future in concurrent.futures.as_completed(futures):
            key = futures[future]
            try:
                rows[key] = future.result()
            except RuntimeError as e:
                failures[key] = str(e)
    wall = time.monotonic() - begin
    with open(path, "w", encoding="utf-8") as f:
        for key in sorted(rows):
            f.write(json.dumps(rows[key], sort_keys=True) + "\n")
    return rows, failures, wall


def compare(args, corpus, baseline, failures):
    """Per cell: (key, what differs) for every cell not equal in both."""
    differ = []
    for crf in args.crf_list:
        for w, h in args.sizes:
            key = (crf, w, h)
            a, b = corpus.get(key), baseline.get(key)
            if a is None or b is None:
                differ.append((key, "failed in "
                               + ("the corpus" if a is None else "the baseline")
                               + (f": {failures[key]}" if key in failures else "")))
                continue
            what = [f"{field}: corpus {a[field]} baseline {b[field]}"
                    for field in ("bytes", "frames") if a[field] != b[field]]
            metrics = sorted(set(a["scores"]) | set(b["scores"]))
            what += [f"{m}: corpus {a['scores'].get(m)} baseline "
                     f"{b['scores'].get(m)}" for m in metrics
                     if a["scores"].get(m) != b["scores"].get(m)]
            if what:
                differ.append((key, "; ".join(what)))
    return differ


def draw_ladder(args, corpus):
    """vmafhip-tune ladder on (a)'s corpus: the table, and the plot where
    matplotlib is importable."""
    command = [sys.executable, args.tune, "ladder", "--corpus", corpus,
               "--encoder", "x264enc", "--rungs", str(args.rungs)]
    plot = os.path.join(args.out, "ladder.png")
    have_plot = importlib.util.find_spec("matplotlib") is not None
    if have_plot:
        command += ["--plot", plot]
    r = run(command, "vmafhip-tune ladder")
    with open(os.path.join(args.out, "ladder.txt"), "w", encoding="utf-8") as f:
        f.write(r.stdout)
    note = None
    if not have_plot:
        note = ("no matplotlib in this Python: draw the plot where it is, "
                f"vmafhip-tune ladder --corpus {corpus} --encoder x264enc "
                f"--rungs {args.rungs} --plot ladder.png")
    return r.stdout, (plot if have_plot else None), note


def gpu_name():
    if not shutil.which("nvidia-smi"):
        return None
    r = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        return None
    return r.stdout.strip()


def main(argv=None):
    args = parse_args(argv)
    try:
        check_setup(args)
    except SetupError as e:
        print(f"tune-bench: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    title = os.path.join(args.work, "title.y4m")
    corpus = os.path.join(args.out, "corpus.jsonl")
    for stale in (corpus, corpus + ".errors"):
        if os.path.exists(stale):
            os.unlink(stale)
    cells = len(args.crf_list) * len(args.sizes)
    gpu = gpu_name()
    print(f"tune-bench: {cells} cells ({len(args.sizes)} resolutions x "
          f"{len(args.crf_list)} CRFs), x264enc preset {args.preset}, "
          f"decoder {args.decoder}, backend {args.backend}, jobs {args.jobs}, "
          f"{os.cpu_count()} CPUs" + (f", {gpu}" if gpu else ""), flush=True)
    try:
        return measure(args, title, corpus, cells, gpu)
    finally:
        shutil.rmtree(args.work, ignore_errors=True)


def measure(args, title, corpus, cells, gpu):
    """Both runs, the check, the ladder, the summary; the exit status."""
    try:
        begin = time.monotonic()
        frames = make_title(args, title)
        print(f"title: {args.width}x{args.height}, {frames} frames "
              f"({len(SHOTS)} shots), made in {time.monotonic() - begin:.1f} s",
              flush=True)
        rows_a, wall_a, command_a, notes_a = corpus_run(args, title, corpus)
        print(f"(a) vmafhip-tune corpus: {len(rows_a)} cells in {wall_a:.1f} s, "
              f"{len(rows_a) / wall_a * 60:.1f} cells/min", flush=True)
        if notes_a:     # what vmafhip-tune said: failed cells, notes
            print("\n".join("    " + line for line in notes_a.splitlines()))
        rows_b, failures, wall_b = baseline_run(
            args, title, os.path.join(args.out, "baseline.jsonl"))
        print(f"(b) encode, decode to file, vmafhip-score: {len(rows_b)} cells "
              f"in {wall_b:.1f} s, {len(rows_b) / wall_b * 60:.1f} cells/min",
              flush=True)
    except RuntimeError as e:
        print(f"tune-bench: {e}", file=sys.stderr)
        return 1
    rate_a, rate_b = len(rows_a) / wall_a * 60, len(rows_b) / wall_b * 60
    ratio = rate_a / rate_b if rate_b else float("inf")
    print(f"(a) against (b): {ratio:.2f}x the cells per minute")
    differ = compare(args, rows_a, rows_b, failures)
    for (crf, w, h), what in differ:
        print(f"  DIFFERS crf {crf} {w}x{h}: {what}")
    if differ and args.baseline_scaler != "bicubic":
        print(f"  (the baseline scales with {args.baseline_scaler}, the "
              "element with bicubic: the smaller cells' scores differ)")
    print(f"scores and bytes: {cells - len(differ)} of {cells} cells equal "
          "in (a) and (b)")
    table, plot, note = draw_ladder(args, corpus)
    print(f"ladder ({args.rungs} rungs):\n{table.rstrip()}")
    if note:
        print(note)
    summary = {
        "cells": cells, "frames": frames, "title": f"{args.width}x{args.height}",
        "fps": args.fps, "resolutions": [f"{w}x{h}" for w, h in args.sizes],
        "crfs": args.crf_list, "preset": args.preset, "decoder": args.decoder,
        "backend": args.backend, "jobs": args.jobs, "cpus": os.cpu_count(),
        "gpu": gpu,
        "corpus": {"cells": len(rows_a), "wall_s": round(wall_a, 3),
                   "cells_per_min": round(rate_a, 2),
                   "command": " ".join(command_a), "stderr": notes_a},
        "baseline": {"cells": len(rows_b), "wall_s": round(wall_b, 3),
                     "cells_per_min": round(rate_b, 2),
                     "scaler": args.baseline_scaler},
        "ratio": round(ratio, 3),
        "equal": cells - len(differ),
        "differ": [{"crf": k[0], "size": f"{k[1]}x{k[2]}", "what": what}
                   for k, what in differ],
        "ladder_plot": plot,
    }
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
